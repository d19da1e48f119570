// Every organization route (/v2/organizations/{orgId}/...) that needs credentials takes a platform
// client's, as the reference opens them to x-svc-client-id + x-svc-secret-key: on the client's own
// organization the call is let through as its OWNER (no 401 and no access refusal; a resource guard may
// still find that a named thing does not exist), on another organization it is refused with 403.
// Identifiers of everything but the organization and its team name nothing (deletes always), so
// nothing is changed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOrganization, type Member } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createClient, platformHeaders } from './helpers.js';

const MISSING = '999999';
/** The access check's refusals (tenant-access.ts), as opposed to a resource guard's. */
const ACCESS_REFUSALS = new Set(['not_an_organization', 'not_organization_member', 'not_team_member', 'insufficient_role', 'insufficient_scope', 'outside_oauth_client_organization']);

describe('organization routes with platform credentials', () => {
  let api: TestApp;
  let client: { clientId: string; clientSecret: string };
  let owner: Member;
  const ids = { own: { orgId: 0, teamId: 0 }, other: { orgId: 0, teamId: 0 } };
  before(async () => {
    api = await createTestApp();
    const own = await createOrganization(api, { isPlatform: true });
    const other = await createOrganization(api, { isPlatform: true });
    owner = own.owner;
    client = await createClient(api, owner.apiKey);
    for (const [target, made] of [['own', own], ['other', other]] as const) {
      const team = await api.request('POST', `/v2/organizations/${made.organization.id}/teams`, { key: made.owner.apiKey, body: { name: `Team ${target}` } });
      assert.equal(team.status, 201, team.text);
      ids[target] = { orgId: made.organization.id, teamId: team.body.data.id };
    }
  });
  after(() => api.close());

  /** Organization routes that need credentials and take platform ones, from the API document. */
  async function organizationRoutes(): Promise<{ method: string; url: string }[]> {
    const document = (await api.request('GET', '/docs/openapi.json')).body;
    const routes: { method: string; url: string }[] = [];
    for (const [path, methods] of Object.entries<any>(document.paths)) {
      if (!path.startsWith('/v2/organizations/{orgId}')) continue;
      for (const [method, op] of Object.entries<any>(methods)) {
        const access = op['x-svc-access'];
        // An invitee's answer to their own pending membership is theirs alone, never a client's.
        if (access?.auth !== 'required' || /\/(accept|decline)$/.test(path)) continue;
        assert.ok(access.credentials.includes('oauthClient'), `${method} ${path} takes platform credentials`);
        routes.push({ method: method.toUpperCase(), url: path.replace(/\{(\w+)\}/g, ':$1') });
      }
    }
    return routes;
  }

  function pathFor(url: string, method: string, target: 'own' | 'other'): string {
    return url.replace(/:(\w+)/g, (_, name: string) => {
      if (name === 'orgId') return String(ids[target].orgId);
      if (name === 'teamId' && method !== 'DELETE') return String(ids[target].teamId);
      return name.toLowerCase().includes('uid') ? '00000000-0000-4000-8000-000000000000' : MISSING;
    });
  }

  test('on its own organization every route lets the client through; on another organization every route refuses it', async () => {
    const routes = await organizationRoutes();
    assert.ok(routes.length >= 60, `${routes.length} organization routes`);
    const headers = platformHeaders(client.clientId, client.clientSecret);
    const mismatches: string[] = [];
    for (const route of routes) {
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
      for (const target of ['own', 'other'] as const) {
        const response = await api.request(route.method, pathFor(route.url, route.method, target), { headers, ...(body ? { body } : {}) });
        const reason = response.body?.error?.details?.reason;
        const letThrough = response.status !== 401 && !(response.status === 403 && ACCESS_REFUSALS.has(reason));
        if (target === 'own' && !letThrough) mismatches.push(`${route.method} ${route.url} own: ${response.status} ${response.body?.error?.message ?? ''}`);
        if (target === 'other' && (response.status !== 403 || reason !== 'outside_oauth_client_organization')) {
          mismatches.push(`${route.method} ${route.url} other: ${response.status} ${response.body?.error?.message ?? ''}`);
        }
      }
    }
    assert.deepEqual(mismatches, []);
  });

  test('the calls act as the organization\'s OWNER: what the client creates and reads is the owner\'s doing', async () => {
    const headers = platformHeaders(client.clientId, client.clientSecret);
    const team = await api.request('POST', `/v2/organizations/${ids.own.orgId}/teams`, { headers, body: { name: 'By the client' } });
    assert.equal(team.status, 201, team.text);
    const memberships = await api.request('GET', `/v2/organizations/${ids.own.orgId}/teams/${team.body.data.id}/memberships`, { headers });
    assert.deepEqual(memberships.body.data.map((row: { userId: number; role: string }) => [row.userId, row.role]), [[owner.user.id, 'OWNER']]);
    const mine = await api.request('GET', `/v2/organizations/${ids.own.orgId}/teams/me`, { headers });
    assert.ok(mine.body.data.some((row: { id: number }) => row.id === team.body.data.id));
  });

  test('a wrong secret is a 401 on every organization route', async () => {
    const headers = platformHeaders(client.clientId, 'not-the-secret');
    for (const route of await organizationRoutes()) {
      const response = await api.request(route.method, pathFor(route.url, route.method, 'own'), { headers, ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: {} }) });
      assert.equal(response.status, 401, `${route.method} ${route.url}`);
    }
  });
});
