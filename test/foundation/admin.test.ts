import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';

describe('system admin: /v2/admin/users', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('role ADMIN makes a system admin, and the API document says so', async () => {
    const created = await api.request('POST', '/v2/admin/users', { key: ADMIN_API_KEY, body: { email: `second-admin-${Date.now()}@example.com`, name: 'Second Admin', role: 'ADMIN' } });
    assert.equal(created.status, 201, created.text);
    assert.equal((await api.request('GET', '/v2/admin/users', { key: created.body.data.apiKey })).status, 200);
    const document = (await api.request('GET', '/docs/openapi.json')).body;
    const operation = document.paths['/v2/admin/users'].post;
    const role = operation.requestBody.content['application/json'].schema.properties.role;
    assert.match(role.description, /ADMIN makes another system admin/);
    assert.match(operation.description, /role: "ADMIN"/);
  });

  test('creates a user with every field and a working API key', async () => {
    const email = `new-${Date.now()}@example.com`;
    const response = await api.request('POST', '/v2/admin/users', {
      key: ADMIN_API_KEY,
      body: { email, name: 'New Person', username: 'new.person', timeZone: 'America/New_York', weekStart: 'Monday', timeFormat: 24, locale: 'de', password: 'correct horse battery' },
    });
    assert.equal(response.status, 201, response.text);
    const { user, apiKey } = response.body.data;
    assert.deepEqual(
      { email: user.email, name: user.name, username: user.username, timeZone: user.timeZone, weekStart: user.weekStart, timeFormat: user.timeFormat, locale: user.locale, role: user.role },
      { email, name: 'New Person', username: 'new.person', timeZone: 'America/New_York', weekStart: 'Monday', timeFormat: 24, locale: 'de', role: 'USER' },
    );
    assert.equal(user.password, undefined);
    assert.equal(user.passwordHash, undefined);
    const me = await api.request('GET', '/v2/me', { key: apiKey });
    assert.equal(me.status, 200);
    assert.equal(me.body.data.id, user.id);
  });

  test('defaults: username from the email, Sunday week start, 12-hour clock', async () => {
    const { user } = await api.createUser({ email: 'Mixed.Case+tag@Example.com', name: 'Defaults' });
    assert.equal(user.username, 'mixed.case-tag');
    assert.equal(user.weekStart, 'Sunday');
    assert.equal(user.timeFormat, 12);
    const again = await api.createUser({ email: 'mixed.case+tag@elsewhere.com', name: 'Second' });
    assert.equal(again.user.username, 'mixed.case-tag-1', 'a taken username gets a suffix');
  });

  test('duplicate email (any case) or username is a 409 and creates nothing', async () => {
    const { user } = await api.createUser();
    const before = (await api.request('GET', '/v2/admin/users', { key: ADMIN_API_KEY })).body.data.length;
    const byEmail = await api.request('POST', '/v2/admin/users', { key: ADMIN_API_KEY, body: { email: user.email.toUpperCase(), name: 'Dup' } });
    assert.equal(byEmail.status, 409);
    const byUsername = await api.request('POST', '/v2/admin/users', { key: ADMIN_API_KEY, body: { email: `other-${Date.now()}@example.com`, name: 'Dup', username: user.username.toUpperCase() } });
    assert.equal(byUsername.status, 409);
    const after = (await api.request('GET', '/v2/admin/users', { key: ADMIN_API_KEY })).body.data.length;
    assert.equal(after, before);
  });

  test('validation names each bad field', async () => {
    const response = await api.request('POST', '/v2/admin/users', {
      key: ADMIN_API_KEY,
      body: { email: 'nope', timeZone: 'Nowhere/City', password: 'short', role: 'ROOT' },
    });
    assert.equal(response.status, 400);
    const properties = response.body.error.details.errors.map((e: { property: string }) => e.property).sort();
    assert.deepEqual(properties, ['email', 'name', 'password', 'role', 'timeZone']);
  });

  test('lists with take and skip', async () => {
    await api.createUser();
    await api.createUser();
    const all = (await api.request('GET', '/v2/admin/users', { key: ADMIN_API_KEY })).body.data;
    const page = await api.request('GET', '/v2/admin/users?take=1&skip=1', { key: ADMIN_API_KEY });
    assert.equal(page.status, 200);
    assert.deepEqual(page.body.data.map((u: { id: number }) => u.id), [all[1].id]);
    assert.equal((await api.request('GET', '/v2/admin/users?take=0', { key: ADMIN_API_KEY })).status, 400);
    assert.equal((await api.request('GET', '/v2/admin/users?take=251', { key: ADMIN_API_KEY })).status, 400);
  });

  test('deleting a user revokes its keys at once; unknown ids are 404; the admin cannot delete itself', async () => {
    const { user, apiKey } = await api.createUser();
    assert.equal((await api.request('GET', '/v2/me', { key: apiKey })).status, 200); // cached now
    const deleted = await api.request('DELETE', `/v2/admin/users/${user.id}`, { key: ADMIN_API_KEY });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.data.id, user.id);
    assert.equal((await api.request('GET', '/v2/me', { key: apiKey })).status, 401);
    assert.equal((await api.request('DELETE', `/v2/admin/users/${user.id}`, { key: ADMIN_API_KEY })).status, 404);
    const me = (await api.request('GET', '/v2/me', { key: ADMIN_API_KEY })).body.data;
    assert.equal((await api.request('DELETE', `/v2/admin/users/${me.id}`, { key: ADMIN_API_KEY })).status, 400);
    assert.equal((await api.request('DELETE', '/v2/admin/users/abc', { key: ADMIN_API_KEY })).status, 400);
  });
});
