// The permission matrix: every route a managed user's access token (or a client's own credentials)
// can reach and that names a platform permission, called with a token of a client lacking that one
// permission (403 naming it, before anything is looked up) and with a token of a client holding every
// permission (let through: any answer but 401 and 403). The routes come from the API document's
// x-svc-access, so a new route is in the matrix the day it ships. Identifiers name nothing, so a call
// that is let through changes nothing (404 or 400).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PLATFORM_PERMISSIONS } from '../../src/http/scopes.js';
import { callOperation, type DocumentedOperation, documentedOperations } from '../support/api-operations.js';
import { createOrganization } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createClient, createManagedUser, platformHeaders } from './helpers.js';

type Operation = Pick<DocumentedOperation, 'method' | 'path' | 'credentials'> & { scope: string };

describe('platform permission matrix', () => {
  let api: TestApp;
  let operations: Operation[];
  /** A managed user's token and its client, per client: the one with every permission, and one lacking each permission. */
  const tokens = new Map<string, { accessToken: string; client: { clientId: string; clientSecret: string } }>();
  before(async () => {
    api = await createTestApp();
    const { owner } = await createOrganization(api, { isPlatform: true });
    operations = [];
    for (const op of await documentedOperations(api)) {
      if (!op.scope || !(PLATFORM_PERMISSIONS as readonly string[]).includes(op.scope)) continue;
      if (!op.credentials.includes('accessToken') && !op.credentials.includes('oauthClient')) continue;
      operations.push({ method: op.method, path: op.path, scope: op.scope, credentials: op.credentials });
    }
    for (const lacking of ['none', ...PLATFORM_PERMISSIONS]) {
      const client = await createClient(api, owner.apiKey, { permissions: lacking === 'none' ? ['*'] : PLATFORM_PERMISSIONS.filter((p) => p !== lacking) });
      const managed = await createManagedUser(api, client, { timeZone: 'UTC' });
      tokens.set(lacking, { accessToken: managed.accessToken, client });
    }
  });
  after(() => api.close());

  const call = (op: Operation, auth: { key?: string; headers?: Record<string, string> }) => callOperation(api, op, auth);

  test('the matrix covers the personal routes of every area', () => {
    assert.ok(operations.length >= 30, `${operations.length} routes in the matrix`);
    const areas = new Set(operations.map((op) => op.path.split('/')[2]));
    for (const area of ['me', 'schedules', 'event-types', 'bookings']) assert.ok(areas.has(area), `${area} routes are in the matrix`);
    const needed = new Set(operations.map((op) => op.scope));
    assert.ok(needed.size >= 8, `permissions some route needs: ${[...needed].join(', ')}`);
    const cancel = operations.find((op) => op.method === 'POST' && op.path === '/v2/bookings/{bookingUid}/cancel');
    assert.equal(cancel?.scope, 'BOOKING_WRITE');
  });

  test('a managed-user token of a client lacking the permission is refused (403 naming it); one with it is let through', async () => {
    const mismatches: string[] = [];
    for (const op of operations) {
      if (!op.credentials.includes('accessToken')) continue;
      const lacking = tokens.get(op.scope)!;
      const refused = await call(op, { key: lacking.accessToken });
      const named = `oAuth client with id=${lacking.client.clientId} does not have the required permissions=${op.scope}`;
      if (refused.status !== 403 || !String(refused.body?.error?.message).includes(named)) {
        mismatches.push(`${op.method} ${op.path} lacking ${op.scope}: ${refused.status} ${refused.body?.error?.message ?? ''}`);
      }
      const allowed = await call(op, { key: tokens.get('none')!.accessToken });
      if (allowed.status === 401 || allowed.status === 403) mismatches.push(`${op.method} ${op.path} with every permission: ${allowed.status} ${allowed.body?.error?.message ?? ''}`);
    }
    assert.deepEqual(mismatches, []);
  });

  test("a client's own credentials are held to its permissions the same way", async () => {
    const mismatches: string[] = [];
    const platformOps = operations.filter((op) => op.credentials.includes('oauthClient'));
    assert.ok(platformOps.length >= 3, `${platformOps.length} routes take platform credentials and name a permission`);
    for (const op of platformOps) {
      const lacking = tokens.get(op.scope)!.client;
      const refused = await call(op, { headers: platformHeaders(lacking.clientId, lacking.clientSecret) });
      if (refused.status !== 403) mismatches.push(`${op.method} ${op.path} lacking ${op.scope}: ${refused.status}`);
      const full = tokens.get('none')!.client;
      const allowed = await call(op, { headers: platformHeaders(full.clientId, full.clientSecret) });
      if (allowed.status === 401 || allowed.status === 403) mismatches.push(`${op.method} ${op.path} with every permission: ${allowed.status} ${allowed.body?.error?.message ?? ''}`);
    }
    assert.deepEqual(mismatches, []);
  });

  test('routes outside the platform permissions (user webhooks) are open to any managed-user token, as in the reference', async () => {
    const lackingEverythingButProfile = tokens.get('EVENT_TYPE_READ')!.accessToken;
    const hooks = await api.request('GET', '/v2/webhooks', { key: lackingEverythingButProfile });
    assert.equal(hooks.status, 200, hooks.text);
  });
});
