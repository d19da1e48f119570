// The scope matrix of third-party OAuth tokens over every route of the API document: each route that
// takes an access token and names a scope refuses a token with every other scope (403 naming it) and
// lets through a token with that scope alone (any answer but 401, and no 403 for the scope); for a
// TEAM_ scope the matching ORG_ scope does too. Every other route is classified (public, optional
// credential without a scope, or closed to access tokens), so no route is missing from the matrix.
// Tokens come from the real flow: one consent to every scope, then refreshes narrowing it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SCOPES } from '../../src/http/scopes.js';
import { callOperation, type DocumentedOperation, documentedOperations } from '../support/api-operations.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { confidentialTokens, createPasswordUser, logIn, registerClient, tokenRequest, WebClient } from './helpers.js';

describe('third-party OAuth scope matrix', () => {
  let api: TestApp;
  let operations: DocumentedOperation[];
  let narrow: (scopes: readonly string[]) => Promise<string>;

  before(async () => {
    api = await createTestApp();
    operations = await documentedOperations(api);
    const owner = await createPasswordUser(api);
    const user = await createPasswordUser(api);
    const client = await registerClient(api, owner.apiKey, { scopes: [...SCOPES] });
    const web = new WebClient(api.baseUrl);
    await logIn(web, user.email);
    let refreshToken = (await confidentialTokens(api, web, client, SCOPES.join(' '))).refresh_token;
    narrow = async (scopes) => {
      const response = await tokenRequest(api, { grant_type: 'refresh_token', client_id: client.id, client_secret: client.secret!, refresh_token: refreshToken, scope: scopes.join(' ') });
      assert.equal(response.status, 200, response.text);
      refreshToken = response.body.refresh_token;
      return response.body.access_token;
    };
  });
  after(() => api.close());

  const scoped = () => operations.filter((op) => op.scope !== null && op.credentials.includes('accessToken'));
  const refusedForScope = (response: { status: number; body: any }) => response.status === 403 && response.body?.error?.details?.reason === 'insufficient_scope';

  test('every route is in the matrix or classified; a required access token always comes with a scope', () => {
    const unclassified = operations.filter((op) => {
      if (op.auth === 'none') return false;
      if (!op.credentials.includes('accessToken')) return false;
      if (op.scope !== null) return false;
      return op.auth !== 'optional';
    });
    assert.deepEqual(unclassified.map((op) => `${op.method} ${op.path}`), [], 'routes taking an access token without naming a scope');
    assert.ok(scoped().length >= 100, `${scoped().length} routes in the matrix`);
    const named = new Set(scoped().map((op) => op.scope));
    for (const scope of ['PROFILE_READ', 'BOOKING_WRITE', 'TEAM_EVENT_TYPE_WRITE', 'ORG_MEMBERSHIP_READ', 'ORG_WEBHOOK_WRITE']) assert.ok(named.has(scope), `${scope} is needed by some route`);
  });

  test('a token without the route\'s scope is refused with 403 naming it; a token with only that scope is let through', async () => {
    const mismatches: string[] = [];
    const byScope = new Map<string, DocumentedOperation[]>();
    for (const op of scoped()) byScope.set(op.scope!, [...(byScope.get(op.scope!) ?? []), op]);
    for (const [scope, ops] of byScope) {
      // Without the scope, and without the ORG_ scope that would grant a TEAM_ one.
      const lacking = await narrow(SCOPES.filter((s) => s !== scope && s !== scope.replace(/^TEAM_/, 'ORG_')));
      const only = await narrow([scope]);
      const viaOrg = scope.startsWith('TEAM_') && (SCOPES as readonly string[]).includes(scope.replace(/^TEAM_/, 'ORG_')) ? await narrow([scope.replace(/^TEAM_/, 'ORG_')]) : null;
      for (const op of ops) {
        const refused = await callOperation(api, op, { key: lacking });
        if (!refusedForScope(refused) || !String(refused.body.error.message).includes(scope)) {
          mismatches.push(`${op.method} ${op.path} without ${scope}: ${refused.status} ${refused.body?.error?.message ?? ''}`);
        }
        for (const [label, token] of [[scope, only], [`ORG_ for ${scope}`, viaOrg]] as const) {
          if (!token) continue;
          const allowed = await callOperation(api, op, { key: token });
          if (allowed.status === 401 || refusedForScope(allowed) || allowed.status >= 500) {
            mismatches.push(`${op.method} ${op.path} with ${label}: ${allowed.status} ${allowed.body?.error?.message ?? ''}`);
          }
        }
      }
    }
    assert.deepEqual(mismatches, []);
  });

  test('routes closed to access tokens refuse them (401); optional-credential routes without a scope take any token', async () => {
    const token = await narrow(['PROFILE_READ']);
    const mismatches: string[] = [];
    for (const op of operations) {
      if (op.auth === 'none') continue;
      if (!op.credentials.includes('accessToken')) {
        const refused = await callOperation(api, op, { key: token });
        if (refused.status !== 401) mismatches.push(`${op.method} ${op.path} (closed to access tokens): ${refused.status}`);
      } else if (op.scope === null) {
        const allowed = await callOperation(api, op, { key: token });
        if (allowed.status === 401 || allowed.status === 403 || allowed.status >= 500) mismatches.push(`${op.method} ${op.path} (no scope): ${allowed.status}`);
      }
    }
    assert.deepEqual(mismatches, []);
  });
});
