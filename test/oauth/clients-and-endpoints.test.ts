// Client registration (API and developer page), the admin review (API and page) with the owner's
// email in the outbox, and the RFC 8414 metadata, RFC 7009 revocation and RFC 7662 introspection.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { emailOutbox } from '../../src/db/schema.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';
import { confidentialTokens, createPasswordUser, csrfOf, logIn, registerClient, WebClient } from './helpers.js';

describe('OAuth 2.0 clients, review, metadata, revocation and introspection', () => {
  let api: TestApp;
  let owner: Awaited<ReturnType<typeof createPasswordUser>>;
  let stranger: Awaited<ReturnType<typeof createPasswordUser>>;
  let admin: Awaited<ReturnType<typeof createPasswordUser>>;

  before(async () => {
    api = await createTestApp();
    owner = await createPasswordUser(api, { name: 'Olive Owner' });
    stranger = await createPasswordUser(api);
    admin = await createPasswordUser(api, { role: 'ADMIN' });
  });
  after(() => api.close());

  const outbox = async () => api.runtime.ctx.database.db.select().from(emailOutbox);

  test('registration through the API: pending, secret shown once, validation names the field; only the owner sees it', async () => {
    const bad = [
      [{ redirectUris: [] }, 'redirectUris'],
      [{ redirectUris: ['http://app.example.com/cb'] }, 'redirectUris.0'],
      [{ redirectUris: ['https://app.example.com/cb#x'] }, 'redirectUris.0'],
      [{ redirectUris: Array.from({ length: 11 }, (_, i) => `https://a.example.com/${i}`) }, 'redirectUris'],
      [{ scopes: [] }, 'scopes'],
      [{ scopes: ['NOPE'] }, 'scopes'],
      [{ logo: 'javascript:alert(1)' }, 'logo'],
    ] as const;
    for (const [patch, field] of bad) {
      const response = await api.request('POST', '/v2/auth/oauth2/clients', {
        key: owner.apiKey,
        body: { name: 'X', redirectUris: ['https://app.example.com/cb'], scopes: ['PROFILE_READ'], ...patch },
      });
      assert.equal(response.status, 400, `${JSON.stringify(patch)}: ${response.text}`);
      assert.ok(response.text.includes(field), `${field} named in ${response.text}`);
    }
    const created = await api.request('POST', '/v2/auth/oauth2/clients', {
      key: owner.apiKey,
      body: { name: 'Mine', redirectUris: ['https://app.example.com/cb'], scopes: ['PROFILE_READ'] },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.data.status, 'pending');
    assert.equal(created.body.data.clientType, 'confidential');
    assert.ok(created.body.data.secret.length >= 40);
    const id = created.body.data.id;
    const mine = await api.request('GET', `/v2/auth/oauth2/clients/${id}`, { key: owner.apiKey });
    assert.equal(mine.status, 200);
    assert.equal(mine.body.data.secret, undefined, 'the secret is shown only once');
    assert.equal((await api.request('GET', `/v2/auth/oauth2/clients/${id}`, { key: stranger.apiKey })).status, 404);
    assert.equal((await api.request('DELETE', `/v2/auth/oauth2/clients/${id}`, { key: stranger.apiKey })).status, 404);
    assert.ok(!(await api.request('GET', '/v2/auth/oauth2/clients', { key: stranger.apiKey })).body.data.some((c: any) => c.id === id));
    assert.equal((await api.request('PATCH', `/v2/admin/oauth2-clients/${id}`, { key: owner.apiKey, body: { status: 'approved' } })).status, 403);
    const publicOne = await api.request('POST', '/v2/auth/oauth2/clients', {
      key: owner.apiKey,
      body: { name: 'SPA', redirectUris: ['http://localhost:3000/cb'], scopes: ['PROFILE_READ'], clientType: 'public' },
    });
    assert.equal(publicOne.body.data.secret, null);
    const deleted = await api.request('DELETE', `/v2/auth/oauth2/clients/${publicOne.body.data.id}`, { key: owner.apiKey });
    assert.equal(deleted.status, 200);
  });

  test('admin review through the API writes the owner\'s email to the outbox', async () => {
    const client = await registerClient(api, owner.apiKey, { approve: false });
    const pending = await api.request('GET', '/v2/admin/oauth2-clients?status=pending', { key: ADMIN_API_KEY });
    assert.ok(pending.body.data.some((c: any) => c.id === client.id));
    const approved = await api.request('PATCH', `/v2/admin/oauth2-clients/${client.id}`, { key: ADMIN_API_KEY, body: { status: 'approved' } });
    assert.equal(approved.body.data.status, 'approved');
    assert.ok(approved.body.data.reviewedAt);
    const mails = (await outbox()).filter((mail) => mail.textBody.includes(client.id));
    assert.equal(mails.length, 1);
    assert.equal(mails[0]!.toAddress, owner.email);
    assert.equal(mails[0]!.kind, 'oauth_client_approved');
    assert.match(mails[0]!.textBody, /Olive Owner/);
    assert.equal(mails[0]!.sentAt, null);
    assert.equal((await api.request('PATCH', '/v2/admin/oauth2-clients/oa2_missing', { key: ADMIN_API_KEY, body: { status: 'approved' } })).status, 404);
  });

  test('developer page registers a client (CSRF-checked); the admin page approves it; a non-admin is refused', async () => {
    const dev = new WebClient(api.baseUrl);
    assert.equal((await dev.get('/settings/developer')).status, 303, 'a visitor is sent to log in');
    await logIn(dev, owner.email);
    const page = await dev.get('/settings/developer');
    assert.equal(page.status, 200);
    assert.match(page.html, /<label for="name">Name<\/label>/);
    const form = { name: 'Page App', redirect_uris: 'https://page.example.com/cb\nhttps://page.example.com/cb2', client_type: 'confidential', scopes: ['PROFILE_READ', 'BOOKING_READ'], logo: '' };
    assert.equal((await dev.post('/settings/developer/clients', form)).status, 403, 'no CSRF token');
    const invalid = await dev.post('/settings/developer/clients', { ...form, scopes: [], csrf: csrfOf(page.html) });
    assert.equal(invalid.status, 400);
    assert.match(invalid.html, /role="alert"[^>]*>scopes must name at least one scope/);
    const created = await dev.post('/settings/developer/clients', { ...form, csrf: csrfOf(page.html) });
    assert.equal(created.status, 201, created.html);
    const id = /id="new-client-id">([^<]+)</.exec(created.html)![1]!;
    assert.match(created.html, /id="new-client-secret">[A-Za-z0-9_-]{40,}</);

    const notAdmin = await dev.get('/settings/admin/oauth-clients');
    assert.equal(notAdmin.status, 403);
    const adminWeb = new WebClient(api.baseUrl);
    await logIn(adminWeb, admin.email);
    const review = await adminWeb.get('/settings/admin/oauth-clients');
    assert.equal(review.status, 200);
    assert.match(review.html, new RegExp(`data-client-id="${id}"`));
    const forged = await dev.post(`/settings/admin/oauth-clients/${id}/review`, { decision: 'approved', csrf: csrfOf(notAdmin.html === '' ? page.html : page.html) });
    assert.equal(forged.status, 403, 'a non-admin cannot review even with their own CSRF token');
    const done = await adminWeb.post(`/settings/admin/oauth-clients/${id}/review`, { decision: 'rejected', csrf: csrfOf(review.html) });
    assert.equal(done.status, 303);
    const listed = await dev.get('/settings/developer');
    assert.match(listed.html, new RegExp(`data-client-id="${id}"[\\s\\S]*?data-status>rejected<`));
    assert.ok((await outbox()).some((mail) => mail.kind === 'oauth_client_rejected' && mail.textBody.includes(id)));
  });

  test('RFC 8414 metadata', async () => {
    const response = await api.request('GET', '/.well-known/oauth-authorization-server');
    assert.equal(response.status, 200);
    const base = api.config.appUrl.replace(/\/+$/, '');
    assert.equal(response.body.issuer, base);
    assert.equal(response.body.authorization_endpoint, `${base}/auth/oauth2/authorize`);
    assert.equal(response.body.token_endpoint, `${base}/v2/auth/oauth2/token`);
    assert.deepEqual(response.body.code_challenge_methods_supported, ['S256']);
    assert.ok(response.body.scopes_supported.includes('ORG_WEBHOOK_WRITE'));
  });

  test('RFC 7009 revocation and RFC 7662 introspection, client-authenticated, told only about the client\'s own tokens', async () => {
    const client = await registerClient(api, owner.apiKey);
    const other = await registerClient(api, owner.apiKey);
    const user = new WebClient(api.baseUrl);
    await logIn(user, stranger.email);
    const tokens = await confidentialTokens(api, user, client);
    const creds = { client_id: client.id, client_secret: client.secret! };
    const introspect = (token: string, as = creds) => api.request('POST', '/v2/auth/oauth2/introspect', { body: { token, ...as } });

    const active = await introspect(tokens.access_token);
    assert.equal(active.status, 200);
    assert.equal(active.headers.get('cache-control'), 'no-store');
    assert.equal(active.body.active, true);
    assert.equal(active.body.client_id, client.id);
    assert.equal(active.body.scope, 'PROFILE_READ BOOKING_READ');
    assert.equal(active.body.sub, String((await api.request('GET', '/v2/me', { key: tokens.access_token })).body.data.id));
    assert.equal((await introspect(tokens.refresh_token)).body.token_type, 'refresh_token');
    assert.deepEqual((await introspect(tokens.access_token, { client_id: other.id, client_secret: other.secret! })).body, { active: false });
    assert.deepEqual((await introspect('nonsense')).body, { active: false });
    const unauthenticated = await introspect(tokens.access_token, { client_id: client.id, client_secret: 'wrong' });
    assert.equal(unauthenticated.status, 401);
    assert.equal(unauthenticated.body.error, 'invalid_client');

    // Another client cannot revoke it (same 200, nothing revoked).
    const foreign = await api.request('POST', '/v2/auth/oauth2/revoke', { body: { token: tokens.access_token, client_id: other.id, client_secret: other.secret! } });
    assert.equal(foreign.status, 200);
    assert.equal((await api.request('GET', '/v2/me', { key: tokens.access_token })).status, 200);
    assert.equal((await api.request('POST', '/v2/auth/oauth2/revoke', { body: { token: tokens.access_token, client_id: client.id, client_secret: 'wrong' } })).status, 401);
    assert.equal((await api.request('POST', '/v2/auth/oauth2/revoke', { body: { token: 'x', token_type_hint: 'id_token', ...creds } })).body.error, 'unsupported_token_type');

    const revoked = await api.request('POST', '/v2/auth/oauth2/revoke', { body: { token: tokens.access_token, token_type_hint: 'access_token', ...creds } });
    assert.equal(revoked.status, 200);
    assert.equal((await api.request('GET', '/v2/me', { key: tokens.access_token })).status, 401);
    assert.deepEqual((await introspect(tokens.access_token)).body, { active: false });

    // Revoking the refresh token ends the whole authorization.
    const second = await confidentialTokens(api, user, client);
    const byRefresh = await api.request('POST', '/v2/auth/oauth2/revoke', {
      body: new URLSearchParams({ token: second.refresh_token, ...creds }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(byRefresh.status, 200);
    assert.equal((await api.request('GET', '/v2/me', { key: second.access_token })).status, 401);
    const refresh = await api.request('POST', '/v2/auth/oauth2/token', { body: { grant_type: 'refresh_token', refresh_token: second.refresh_token, ...creds } });
    assert.equal(refresh.body.error, 'invalid_grant');
  });
});

describe('OAuth housekeeping', () => {
  test('expired codes, refresh tokens and web sessions are deleted; live ones stay', async () => {
    const { runHousekeeping } = await import('../../src/jobs/housekeeping.js');
    const { oauthAuthorizationCodes, oauthRefreshTokens, webSessions } = await import('../../src/db/schema.js');
    const api = await createTestApp();
    try {
      const owner = await createPasswordUser(api);
      const client = await registerClient(api, owner.apiKey);
      const web = new WebClient(api.baseUrl);
      await logIn(web, owner.email);
      await confidentialTokens(api, web, client);
      const db = api.runtime.ctx.database.db;
      const count = async () => ({
        codes: (await db.select().from(oauthAuthorizationCodes)).length,
        refresh: (await db.select().from(oauthRefreshTokens)).length,
        sessions: (await db.select().from(webSessions)).length,
      });
      const before = await count();
      assert.ok(before.codes === 1 && before.refresh === 1 && before.sessions >= 1, JSON.stringify(before));
      await runHousekeeping(db, api.config.jobs, new Date());
      assert.deepEqual(await count(), before, 'nothing live is deleted');
      const result = await runHousekeeping(db, api.config.jobs, new Date(Date.now() + 32 * 86_400_000));
      assert.deepEqual(await count(), { codes: 0, refresh: 0, sessions: 0 });
      assert.ok(result.oauthGrants >= 3);
    } finally {
      await api.close();
    }
  });
});
