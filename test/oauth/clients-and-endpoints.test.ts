// Client registration (API and developer page), the admin review (API and page) with the owner's
// email delivered over SMTP by the mail module, and the RFC 8414 metadata, RFC 7009 revocation and
// RFC 7662 introspection.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { reviewClient } from '../../src/modules/oauth/oauth-clients.service.js';
import { type SmtpReceiver, startSmtpReceiver } from '../mail/helpers.js';
import { eventually } from '../support/eventually.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';
import { confidentialTokens, createPasswordUser, csrfOf, logIn, registerClient, WebClient } from './helpers.js';

describe('OAuth 2.0 clients, review, metadata, revocation and introspection', () => {
  let api: TestApp;
  let smtp: SmtpReceiver;
  let owner: Awaited<ReturnType<typeof createPasswordUser>>;
  let stranger: Awaited<ReturnType<typeof createPasswordUser>>;
  let admin: Awaited<ReturnType<typeof createPasswordUser>>;

  before(async () => {
    smtp = await startSmtpReceiver();
    api = await createTestApp({ SMTP_URL: smtp.url });
    owner = await createPasswordUser(api, { name: 'Olive Owner' });
    stranger = await createPasswordUser(api);
    admin = await createPasswordUser(api, { role: 'ADMIN' });
  });
  after(async () => {
    await api.close();
    await smtp.close();
  });

  /** The review mail delivered about one client (its text names the client's id). */
  const mailsAbout = (clientId: string) => smtp.messages.filter((mail) => mail.email.text?.includes(clientId));
  const rows = async (query: ReturnType<typeof sql>) => ((await api.runtime.ctx.database.db.execute(query)) as unknown as { rows: any[] }).rows;

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

  test('GET one client answers the reference\'s OAuth2ClientDto: any API-key user for an approved client, only the owner before; never the secret', async () => {
    const registered = await api.request('POST', '/v2/auth/oauth2/clients', {
      key: owner.apiKey,
      body: { name: 'Wire App', redirectUris: ['https://wire.example.com/cb', 'https://wire.example.com/cb2'], scopes: ['PROFILE_READ'], logo: 'https://wire.example.com/logo.png' },
    });
    const id: string = registered.body.data.id;
    const secret: string = registered.body.data.secret;
    const read = (key?: string) => api.request('GET', `/v2/auth/oauth2/clients/${id}`, key ? { key } : {});
    // oauth2-client.output.ts: client_id (@Expose clientId), redirect_uris, redirect_uri (@ApiHideProperty, redirectUris?.[0]), name, logo, is_trusted, client_type (CONFIDENTIAL or PUBLIC).
    const expected = { client_id: id, redirect_uris: ['https://wire.example.com/cb', 'https://wire.example.com/cb2'], redirect_uri: 'https://wire.example.com/cb', name: 'Wire App', logo: 'https://wire.example.com/logo.png', is_trusted: false, client_type: 'CONFIDENTIAL' };
    const pending = await read(owner.apiKey);
    assert.equal(pending.status, 200, pending.text);
    assert.equal(pending.body.status, 'success');
    assert.deepEqual(pending.body.data, expected);
    assert.ok(!pending.text.includes(secret), 'the secret is never shown again');
    // e2e spec (newest), "User Authenticated (non-owner)": .get(`/api/v2/auth/oauth2/clients/${testClientId}`).set({ Authorization: `Bearer cal_test_${apiKeyString}` }).expect(200)
    assert.equal((await read(stranger.apiKey)).status, 404, 'a client under review is its owner\'s business');
    assert.equal((await api.request('PATCH', `/v2/admin/oauth2-clients/${id}`, { key: ADMIN_API_KEY, body: { status: 'approved' } })).status, 200);
    const approved = await read(stranger.apiKey);
    assert.equal(approved.status, 200, approved.text);
    assert.deepEqual(approved.body.data, expected);
    assert.ok(!approved.text.includes(secret));
    // e2e spec: GET /v2/auth/oauth2/clients/:clientId should return 401 without auth; 404 for non-existent client ID.
    assert.equal((await read()).status, 401);
    assert.equal((await api.request('GET', '/v2/auth/oauth2/clients/oa2_00000000000000000000000000000000', { key: stranger.apiKey })).status, 404);
    const spa = await registerClient(api, owner.apiKey, { clientType: 'public', redirectUris: ['http://localhost:3000/cb'] });
    const publicOne = await api.request('GET', `/v2/auth/oauth2/clients/${spa.id}`, { key: stranger.apiKey });
    assert.equal(publicOne.body.data.client_type, 'PUBLIC');
    const bare = await api.request('POST', '/v2/auth/oauth2/clients', { key: owner.apiKey, body: { name: 'No Logo', redirectUris: ['https://bare.example.com/cb'], scopes: ['PROFILE_READ'] } });
    assert.equal((await read(owner.apiKey)).body.data.logo, 'https://wire.example.com/logo.png');
    assert.equal((await api.request('GET', `/v2/auth/oauth2/clients/${bare.body.data.id}`, { key: owner.apiKey })).body.data.logo, null);
  });

  test('admin review through the API mails the owner over SMTP: plain text, the client\'s name verbatim, the decision', async () => {
    const name = `Olive's <b>Sync</b> & Co`;
    const registered = await api.request('POST', '/v2/auth/oauth2/clients', { key: owner.apiKey, body: { name, redirectUris: ['https://app.example.com/cb'], scopes: ['PROFILE_READ'] } });
    assert.equal(registered.status, 201, registered.text);
    const id: string = registered.body.data.id;
    const pending = await api.request('GET', '/v2/admin/oauth2-clients?status=pending', { key: ADMIN_API_KEY });
    assert.ok(pending.body.data.some((c: any) => c.id === id));
    assert.equal(mailsAbout(id).length, 0, 'registering mails nobody');

    const approved = await api.request('PATCH', `/v2/admin/oauth2-clients/${id}`, { key: ADMIN_API_KEY, body: { status: 'approved' } });
    assert.equal(approved.body.data.status, 'approved');
    assert.ok(approved.body.data.reviewedAt);
    await eventually(async () => mailsAbout(id).length === 1, 10_000);
    const [approval] = mailsAbout(id);
    assert.deepEqual(approval!.to, [owner.email.toLowerCase()]);
    assert.equal(approval!.email.subject, `Your OAuth client "${name}" was approved`);
    assert.equal(approval!.email.text, `Hello Olive Owner,\n\nYour OAuth client "${name}" (${id}) was approved. Users can now authorize it.\n`);
    assert.equal(approval!.email.html, undefined, 'plain text only: nothing of the name is put into HTML');
    assert.equal(approval!.calendarPart, null);
    assert.equal(approval!.icsAttachment, null);
    const [message] = await rows(sql`select * from mail_messages where recipient_email = ${owner.email} and kind = 'oauthClientApproved' and text_body like ${`%${id}%`}`);
    assert.equal(approval!.email.messageId, `<${message.uid}@svc>`);
    assert.equal(message.booking_event_id, null);
    assert.equal(message.recipient_role, 'owner');
    await eventually(async () => (await rows(sql`select status from mail_messages where id = ${message.id}`))[0].status === 'sent', 5000);
    const attempts = await rows(sql`select error from mail_attempts where message_id = ${message.id}`);
    assert.deepEqual(attempts.map((attempt) => attempt.error), [null], 'one attempt, logged');

    const rejected = await api.request('PATCH', `/v2/admin/oauth2-clients/${id}`, { key: ADMIN_API_KEY, body: { status: 'rejected' } });
    assert.equal(rejected.body.data.status, 'rejected');
    await eventually(async () => mailsAbout(id).length === 2, 10_000);
    const rejection = mailsAbout(id)[1]!;
    assert.deepEqual(rejection.to, [owner.email.toLowerCase()]);
    assert.equal(rejection.email.subject, `Your OAuth client "${name}" was rejected`);
    assert.match(rejection.email.text!, new RegExp(`\\(${id}\\) was rejected\\. It cannot be used to authorize users\\.`));

    // The same decision again changes nothing and tells nobody; an unknown client is not found.
    assert.equal((await api.request('PATCH', `/v2/admin/oauth2-clients/${id}`, { key: ADMIN_API_KEY, body: { status: 'rejected' } })).status, 200);
    assert.equal((await api.request('PATCH', `/v2/admin/oauth2-clients/${id}`, { key: owner.apiKey, body: { status: 'approved' } })).status, 403, 'the owner cannot review');
    await api.runtime.jobs!.drain();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(mailsAbout(id).length, 2);
    assert.ok(mailsAbout(id).every((mail) => mail.to.join() === owner.email.toLowerCase()), 'only the owner hears of it');
    assert.equal((await api.request('PATCH', '/v2/admin/oauth2-clients/oa2_missing', { key: ADMIN_API_KEY, body: { status: 'approved' } })).status, 404);
  });

  test('a review that rolls back queues and sends nothing', async () => {
    const client = await registerClient(api, owner.apiKey, { approve: false });
    const db = api.runtime.ctx.database.db;
    await assert.rejects(
      db.transaction(async (tx) => {
        await reviewClient(tx, async () => {}, client.id, 'approved', new Date());
        assert.equal(((await tx.execute(sql`select count(*)::int as n from mail_messages where text_body like ${`%${client.id}%`}`)) as unknown as { rows: any[] }).rows[0].n, 1, 'queued inside the transaction');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    await api.runtime.jobs!.drain();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await rows(sql`select count(*)::int as n from mail_messages where text_body like ${`%${client.id}%`}`))[0].n, 0);
    assert.equal(mailsAbout(client.id).length, 0);
    const listed = (await api.request('GET', '/v2/auth/oauth2/clients', { key: owner.apiKey })).body.data;
    assert.equal(listed.find((c: any) => c.id === client.id).status, 'pending');
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
    await eventually(async () => mailsAbout(id).some((mail) => mail.email.subject === 'Your OAuth client "Page App" was rejected' && mail.to.includes(owner.email.toLowerCase())), 10_000);
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
