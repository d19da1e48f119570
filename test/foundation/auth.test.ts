import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { accessTokens, apiKeys } from '../../src/db/schema.js';
import { hashApiKey, hashToken } from '../../src/lib/crypto.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';

const NO_CREDENTIALS =
  "No authentication method provided. Either pass an API key as 'Bearer' header or OAuth client credentials as 'x-svc-secret-key' and 'x-svc-client-id' headers";

describe('authentication', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  const db = () => api.runtime.ctx.database.db;

  async function issueAccessToken(userId: number, scopes: string[], expiresInMs: number): Promise<string> {
    const token = randomBytes(24).toString('base64url');
    await db().insert(accessTokens).values({ userId, hashedToken: hashToken(token), scopes, expiresAt: new Date(Date.now() + expiresInMs) });
    return token;
  }

  test('no credentials: 401 with the reference message', async () => {
    const response = await api.request('GET', '/v2/me');
    assert.equal(response.status, 401);
    assert.equal(response.body.status, 'error');
    assert.equal(response.body.path, '/v2/me');
    assert.ok(!Number.isNaN(Date.parse(response.body.timestamp)));
    assert.deepEqual({ code: response.body.error.code, message: response.body.error.message }, { code: 'UnauthorizedException', message: NO_CREDENTIALS });
  });

  test('the Bearer scheme is case-insensitive and white space is trimmed', async () => {
    const { apiKey } = await api.createUser();
    const response = await api.request('GET', '/v2/me', { headers: { authorization: `  bEaReR   ${apiKey}  ` } });
    assert.equal(response.status, 200);
  });

  test('a malformed Authorization header is "Invalid Bearer token"', async () => {
    const response = await api.request('GET', '/v2/me', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    assert.equal(response.status, 401);
    assert.equal(response.body.error.message, 'Invalid Bearer token');
  });

  test('unknown API key and unknown access token are 401 with their own messages', async () => {
    const badKey = await api.request('GET', '/v2/me', { key: `svc_${'0'.repeat(32)}` });
    assert.equal(badKey.status, 401);
    assert.equal(badKey.body.error.message, 'Your api key is not valid');
    const badToken = await api.request('GET', '/v2/me', { key: 'not-a-known-token' });
    assert.equal(badToken.status, 401);
    assert.equal(badToken.body.error.message, 'Invalid Access Token.');
  });

  test('an API key without its svc_ prefix is not an access token, even while the key is cached', async () => {
    const { apiKey } = await api.createUser();
    assert.equal((await api.request('GET', '/v2/me', { key: apiKey })).status, 200, 'the key is now cached');
    const bare = await api.request('GET', '/v2/me', { key: apiKey.slice('svc_'.length) });
    assert.equal(bare.status, 401, bare.text);
    assert.equal(bare.body.error.message, 'Invalid Access Token.');
  });

  test('API key expiry is compared by calendar date, like the reference', async () => {
    const { apiKey } = await api.createUser();
    const hashed = hashApiKey(apiKey);
    const dayMs = 86_400_000;
    const startOfToday = Math.floor(Date.now() / dayMs) * dayMs;
    // Expired earlier today: still valid until the date changes.
    await db().update(apiKeys).set({ expiresAt: new Date(startOfToday + 1) }).where(eq(apiKeys.hashedKey, hashed));
    api.runtime.ctx.credentials.invalidate({ kind: 'credential', hash: hashed });
    assert.equal((await api.request('GET', '/v2/me', { key: apiKey })).status, 200);
    await db().update(apiKeys).set({ expiresAt: new Date(startOfToday - 1) }).where(eq(apiKeys.hashedKey, hashed));
    api.runtime.ctx.credentials.invalidate({ kind: 'credential', hash: hashed });
    const expired = await api.request('GET', '/v2/me', { key: apiKey });
    assert.equal(expired.status, 401);
    assert.equal(expired.body.error.message, 'Your api key is expired');
  });

  test('an expired access token is HTTP 498 TokenExpiredException', async () => {
    const { user } = await api.createUser();
    const token = await issueAccessToken(user.id, ['PROFILE_READ'], -1000);
    const response = await api.request('GET', '/v2/me', { key: token });
    assert.equal(response.status, 498);
    assert.equal(response.body.error.code, 'TokenExpiredException');
    assert.equal(response.body.error.message, 'ACCESS_TOKEN_IS_EXPIRED');
  });

  test('an access token needs the scope the route declares', async () => {
    const { user } = await api.createUser();
    const readOnly = await issueAccessToken(user.id, ['PROFILE_READ'], 60_000);
    assert.equal((await api.request('GET', '/v2/me', { key: readOnly })).status, 200);
    const patch = await api.request('PATCH', '/v2/me', { key: readOnly, body: { name: 'x' } });
    assert.equal(patch.status, 403);
    assert.equal(patch.body.error.code, 'ForbiddenException');
    assert.match(patch.body.error.message, /PROFILE_WRITE/);
    const writer = await issueAccessToken(user.id, ['PROFILE_WRITE'], 60_000);
    assert.equal((await api.request('PATCH', '/v2/me', { key: writer, body: { name: 'Scoped' } })).status, 200);
  });

  test('access tokens cannot manage API keys, which need the key itself', async () => {
    const { user } = await api.createUser();
    const token = await issueAccessToken(user.id, ['PROFILE_READ', 'PROFILE_WRITE'], 60_000);
    const response = await api.request('POST', '/v2/api-keys/refresh', { key: token });
    assert.equal(response.status, 401);
  });

  test('only one half of the OAuth-client header pair names the missing one', async () => {
    const onlySecret = await api.request('GET', '/v2/me', { headers: { 'x-svc-secret-key': 'abc' } });
    assert.equal(onlySecret.status, 401);
    assert.match(onlySecret.body.error.message, /Only 'x-svc-secret-key' header provided/);
    const onlyId = await api.request('GET', '/v2/me', { headers: { 'x-svc-client-id': 'abc' } });
    assert.equal(onlyId.status, 401);
    assert.match(onlyId.body.error.message, /Only 'x-svc-client-id' header provided/);
  });

  test('admin routes answer 403 to other users', async () => {
    const { apiKey } = await api.createUser();
    for (const [method, path] of [['GET', '/v2/admin/users'], ['POST', '/v2/admin/users'], ['DELETE', '/v2/admin/users/1']] as const) {
      const response = await api.request(method, path, { key: apiKey, body: method === 'POST' ? { email: 'x@example.com', name: 'x' } : undefined });
      assert.equal(response.status, 403, `${method} ${path}`);
      assert.equal(response.body.error.code, 'ForbiddenException');
    }
    assert.equal((await api.request('GET', '/v2/admin/users', { key: ADMIN_API_KEY })).status, 200);
  });

  test('credentials are stored hashed, never in clear', async () => {
    const { user, apiKey } = await api.createUser();
    const rows = await db().select().from(apiKeys).where(eq(apiKeys.userId, user.id));
    assert.equal(rows.length, 1);
    assert.match(apiKey, /^svc_[0-9a-f]{32}$/);
    assert.equal(rows[0]!.hashedKey, hashApiKey(apiKey));
    assert.ok(!JSON.stringify(rows).includes(apiKey.slice(4)));
  });
});
