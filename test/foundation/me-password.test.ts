// PUT /v2/me/password: how the first system admin (created with an API key only) gets onto svc's pages,
// and how anyone sets or changes their web password. API keys only; other sessions end.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { csrfOf, logIn, WebClient } from '../oauth/helpers.js';
import { createClient, createManagedUser } from '../platform/helpers.js';
import { createOrganization } from '../support/tenancy.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';

describe('PUT /v2/me/password', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('the system admin sets a password with its key and reaches the review page; a change logs other browsers out', async () => {
    const admin = (await api.request('GET', '/v2/me', { key: ADMIN_API_KEY })).body.data;
    const web = new WebClient(api.baseUrl);
    const before = await web.get('/auth/login');
    const refused = await web.post('/auth/login', { csrf: csrfOf(before.html), email: admin.email, password: 'first-password-1', next: '/settings/admin/oauth-clients' });
    assert.notEqual(refused.status, 303, 'no password yet: no login');

    const set = await api.request('PUT', '/v2/me/password', { key: ADMIN_API_KEY, body: { password: 'first-password-1' } });
    assert.deepEqual([set.status, set.body], [200, { status: 'success' }]);
    await logIn(web, admin.email, 'first-password-1');
    assert.equal((await web.get('/settings/admin/oauth-clients')).status, 200, 'the admin review page opens');

    assert.equal((await api.request('PUT', '/v2/me/password', { key: ADMIN_API_KEY, body: { password: 'second-password-2' } })).status, 200);
    const afterChange = await web.get('/settings/admin/oauth-clients');
    assert.equal(afterChange.status, 303, 'the old session ended');
    const other = new WebClient(api.baseUrl);
    await logIn(other, admin.email, 'second-password-2');
  });

  test('a short password is a 400 naming password; an access token may not set it', async () => {
    const { apiKey } = await api.createUser();
    const short = await api.request('PUT', '/v2/me/password', { key: apiKey, body: { password: 'short' } });
    assert.equal(short.status, 400);
    assert.equal(short.body.error.details.errors[0].property, 'password');
    // A platform client's managed user: its access token may not give the user a password.
    const { organization, owner } = await createOrganization(api, { isPlatform: true });
    assert.ok(organization.id);
    const managed = await createManagedUser(api, await createClient(api, owner.apiKey));
    const byToken = await api.request('PUT', '/v2/me/password', { key: managed.accessToken, body: { password: 'long enough 123' } });
    assert.ok([401, 403].includes(byToken.status), byToken.text);
    const stored: any = await api.runtime.ctx.database.db.execute(`select password_hash from users where id = ${managed.user.id}` as never);
    assert.equal((stored.rows ?? stored)[0].password_hash, null, 'nothing was set');
  });
});
