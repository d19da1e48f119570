import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { acceptMembership, createMember, createOrganization, createOrgMember, markCreatedByOrganization } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe('GET and PATCH /v2/me', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('returns the caller in the reference envelope', async () => {
    const { user, apiKey } = await api.createUser({ name: 'Ada', timeZone: 'Asia/Kathmandu', weekStart: 'Monday', timeFormat: 24 });
    const response = await api.request('GET', '/v2/me', { key: apiKey });
    assert.equal(response.status, 200);
    assert.equal(response.body.status, 'success');
    assert.equal(typeof user.defaultScheduleId, 'number', 'a time zone gives the user a default schedule');
    assert.deepEqual(response.body.data, {
      id: user.id,
      username: user.username,
      email: user.email,
      name: 'Ada',
      avatarUrl: null,
      bio: null,
      timeFormat: 24,
      defaultScheduleId: user.defaultScheduleId,
      weekStart: 'Monday',
      timeZone: 'Asia/Kathmandu',
      locale: 'en',
      metadata: {},
      organizationId: null,
    });
  });

  test("an organization's owners and accepted members read it as their organization; an invitee and a plain user do not", async () => {
    // The reference's MeController.getMe: `const organization = this.usersService.getUserMainProfile(user)?.organization` and, when
    // there is one, `organizationId: organization.id, organization: { id: organization.id, isPlatform: organization.isPlatform }`;
    // getUserMainProfile picks the profile in `user.organizationId`, else the first profile. Its e2e expects
    // `organization?.isPlatform` true and `organization?.id` the organization's.
    const { organization, owner } = await createOrganization(api);
    const platform = await createOrganization(api, { isPlatform: true });
    const member = await createOrgMember(api, organization.id, owner.apiKey);
    const me = async (key: string) => (await api.request('GET', '/v2/me', { key })).body.data;
    for (const who of [owner, member]) {
      const data = await me(who.apiKey);
      assert.deepEqual([data.organizationId, data.organization], [organization.id, { id: organization.id, isPlatform: false }]);
    }
    assert.deepEqual((await me(platform.owner.apiKey)).organization, { id: platform.organization.id, isPlatform: true });

    // In two organizations: the first one joined, unless the account belongs to one (an organization made it).
    const both = await createOrgMember(api, organization.id, owner.apiKey);
    const inPlatform = await api.request('POST', `/v2/organizations/${platform.organization.id}/memberships`, { key: platform.owner.apiKey, body: { userId: both.user.id } });
    await acceptMembership(api, both, `/v2/organizations/${platform.organization.id}/memberships/${inPlatform.body.data.id}`);
    assert.equal((await me(both.apiKey)).organizationId, organization.id, 'the first profile');
    const madeByPlatform = await createOrgMember(api, organization.id, owner.apiKey);
    const joined = await api.request('POST', `/v2/organizations/${platform.organization.id}/memberships`, { key: platform.owner.apiKey, body: { userId: madeByPlatform.user.id } });
    await acceptMembership(api, madeByPlatform, `/v2/organizations/${platform.organization.id}/memberships/${joined.body.data.id}`);
    await markCreatedByOrganization(api, madeByPlatform.user.id, platform.organization.id);
    assert.deepEqual((await me(madeByPlatform.apiKey)).organization, { id: platform.organization.id, isPlatform: true }, 'the organization that made the account');

    const invitee = await createMember(api);
    await api.request('POST', `/v2/organizations/${organization.id}/memberships`, { key: owner.apiKey, body: { userId: invitee.user.id } });
    const pending = await me(invitee.apiKey);
    assert.deepEqual([pending.organizationId, 'organization' in pending], [null, false], 'no profile until they accept');

    // PATCH answers the updated user as the reference's updateMe does (`userSchemaResponse.parse(result.updatedUser)`): no organization.
    const patched = await api.request('PATCH', '/v2/me', { key: member.apiKey, body: { bio: 'Member' } });
    assert.deepEqual([patched.status, patched.body.data.organizationId, 'organization' in patched.body.data], [200, null, false]);
  });

  test('PATCH round-trips every field and the next GET sees it at once', async () => {
    const { apiKey } = await api.createUser();
    await api.request('GET', '/v2/me', { key: apiKey }); // warm the credential cache
    const changes = {
      email: `renamed-${Date.now()}@example.org`,
      name: 'Grace Hopper',
      timeFormat: 24,
      weekStart: 'Saturday',
      timeZone: 'Australia/Lord_Howe',
      locale: 'pt-BR',
      avatarUrl: 'https://cdn.example.com/a.png',
      bio: 'Compilers.',
      metadata: { plan: 'pro', seats: 3, beta: true },
    };
    const patched = await api.request('PATCH', '/v2/me', { key: apiKey, body: changes });
    assert.equal(patched.status, 200, patched.text);
    const read = await api.request('GET', '/v2/me', { key: apiKey });
    for (const [field, value] of Object.entries(changes)) assert.deepEqual(read.body.data[field], value, field);
  });

  test('ignores unknown body properties like the reference', async () => {
    const { apiKey } = await api.createUser();
    const response = await api.request('PATCH', '/v2/me', { key: apiKey, body: { name: 'Kept', role: 'ADMIN', id: 1 } });
    assert.equal(response.status, 200);
    assert.equal(response.body.data.name, 'Kept');
    const admin = await api.request('GET', '/v2/admin/users', { key: apiKey });
    assert.equal(admin.status, 403, 'role must not be writable through /v2/me');
  });

  test('rejects bad values with a 400 naming each field', async () => {
    const { apiKey } = await api.createUser();
    const response = await api.request('PATCH', '/v2/me', {
      key: apiKey,
      body: { timeZone: '+05:30', weekStart: 'Funday', timeFormat: 13, email: 'not-an-email', locale: 'xx' },
    });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'BadRequestException');
    const properties = response.body.error.details.errors.map((error: { property: string }) => error.property).sort();
    assert.deepEqual(properties, ['email', 'locale', 'timeFormat', 'timeZone', 'weekStart']);
  });

  test('enforces the metadata limits', async () => {
    const { apiKey } = await api.createUser();
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    const longKey = { ['k'.repeat(41)]: 'v' };
    const longValue = { note: 'x'.repeat(501) };
    const nested = { deep: { a: 1 } };
    for (const metadata of [tooMany, longKey, longValue, nested]) {
      const response = await api.request('PATCH', '/v2/me', { key: apiKey, body: { metadata } });
      assert.equal(response.status, 400, JSON.stringify(metadata).slice(0, 60));
      assert.match(response.body.error.message, /metadata/);
    }
    const fine = await api.request('PATCH', '/v2/me', { key: apiKey, body: { metadata: { ['k'.repeat(40)]: 'x'.repeat(500) } } });
    assert.equal(fine.status, 200);
  });

  test('an email already used by another user, in any case, is a 409', async () => {
    const first = await api.createUser();
    const second = await api.createUser();
    const response = await api.request('PATCH', '/v2/me', { key: second.apiKey, body: { email: first.user.email.toUpperCase() } });
    assert.equal(response.status, 409);
    assert.equal(response.body.error.code, 'ConflictException');
  });
});
