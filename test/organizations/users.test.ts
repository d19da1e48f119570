// /v2/organizations/{orgId}/users: the reference's OrganizationsUsersController (RolesGuard ORG_ADMIN,
// IsUserInOrg on /:userId: 403 "IsUserInOrg - user with id=U is not part of the organization with id=O.",
// OrganizationsUsersService's 409s "A user already exists with that email" / "Username is already taken",
// GetOrgUsersWithProfileOutput with the user's profile in the organization).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMember, createOrganization, createOrgMember, markCreatedByOrganization, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 7)}`;


describe('organization users (/v2/organizations/{orgId}/users)', () => {
  let api: TestApp;
  let orgId: number;
  let owner: Member;
  let admin: Member;
  before(async () => {
    api = await createTestApp();
    const made = await createOrganization(api);
    orgId = made.organization.id;
    owner = made.owner;
    admin = await createOrgMember(api, orgId, owner.apiKey, 'ADMIN');
  });
  after(() => api.close());

  test('POST creates the user with an accepted MEMBER membership and a profile in the organization; email and username lowercased; fields svc does not store are null', async () => {
    const email = `${unique('New.Person')}@Example.com`;
    const username = unique('NewPerson');
    const response = await api.request('POST', `/v2/organizations/${orgId}/users`, {
      key: admin.apiKey,
      body: { email, username, timeZone: 'Europe/Rome', bio: 'Hello', metadata: { team: 'blue' }, brandColor: '#ffffff', hideBranding: true, theme: 'dark' },
    });
    assert.equal(response.status, 201, response.text);
    const user = response.body.data;
    assert.equal(typeof user.id, 'number');
    assert.ok(!Number.isNaN(Date.parse(user.createdDate)));
    assert.equal(typeof user.profile.id, 'number');
    assert.deepEqual(user, {
      id: user.id,
      username: username.toLowerCase(),
      name: null,
      email: email.toLowerCase(),
      emailVerified: null,
      bio: 'Hello',
      avatarUrl: null,
      timeZone: 'Europe/Rome',
      weekStart: 'Sunday',
      appTheme: null,
      theme: null,
      defaultScheduleId: null,
      locale: 'en',
      timeFormat: 12,
      hideBranding: false,
      brandColor: null,
      darkBrandColor: null,
      allowDynamicBooking: null,
      createdDate: user.createdDate,
      verified: null,
      invitedTo: null,
      metadata: { team: 'blue' },
      profile: { id: user.profile.id, organizationId: orgId, userId: user.id, username: username.toLowerCase() },
    });
    const memberships = await api.request('GET', `/v2/organizations/${orgId}/memberships?take=250`, { key: admin.apiKey });
    const membership = memberships.body.data.find((m: any) => m.userId === user.id);
    assert.deepEqual([membership.role, membership.accepted], ['MEMBER', true]);
    // svc: an organization admin does not vouch for the address (attendee rights follow verified addresses only).
    const rows: any = await api.runtime.ctx.database.db.execute(`select verified_email from users where id = ${Number(user.id)}` as never);
    assert.equal((rows.rows ?? rows)[0].verified_email, null);
  });

  test('POST takes organizationRole, autoAccept false (a pending membership) and the reference name weekday', async () => {
    const response = await api.request('POST', `/v2/organizations/${orgId}/users`, {
      key: owner.apiKey,
      body: { email: `${unique('pending')}@example.com`, organizationRole: 'ADMIN', autoAccept: false, weekday: 'Monday', locale: 'de', timeFormat: 24 },
    });
    assert.equal(response.status, 201, response.text);
    const user = response.body.data;
    assert.deepEqual([user.weekStart, user.locale, user.timeFormat], ['Monday', 'de', 24]);
    const memberships = await api.request('GET', `/v2/organizations/${orgId}/memberships?take=250`, { key: owner.apiKey });
    const membership = memberships.body.data.find((m: any) => m.userId === user.id);
    assert.deepEqual([membership.role, membership.accepted], ['ADMIN', false]);
  });

  test('a taken email (any user, any case) or username (any user, or a profile in the organization) is the reference 409', async () => {
    const outsider = await createMember(api);
    const byEmail = await api.request('POST', `/v2/organizations/${orgId}/users`, { key: admin.apiKey, body: { email: outsider.user.email.toUpperCase() } });
    assert.deepEqual([byEmail.status, byEmail.body.error.message], [409, 'A user already exists with that email']);
    const byUsername = await api.request('POST', `/v2/organizations/${orgId}/users`, { key: admin.apiKey, body: { email: `${unique('u')}@example.com`, username: outsider.user.username.toUpperCase() } });
    assert.deepEqual([byUsername.status, byUsername.body.error.message], [409, 'Username is already taken']);

    // A profile username in the organization that no user holds as their own username.
    const member = await createOrgMember(api, orgId, owner.apiKey);
    const profileName = unique('profile-only');
    await api.runtime.ctx.database.db.execute(`update profiles set username = '${profileName}' where organization_id = ${orgId} and user_id = ${Number(member.user.id)}` as never);
    const byProfile = await api.request('POST', `/v2/organizations/${orgId}/users`, { key: admin.apiKey, body: { email: `${unique('u')}@example.com`, username: profileName } });
    assert.deepEqual([byProfile.status, byProfile.body.error.message], [409, 'Username is already taken']);
  });

  test('bad input is a 400 naming the field', async () => {
    const cases: [string, string, unknown][] = [
      ['POST', 'email', {}],
      ['POST', 'email', { email: 'not-an-email' }],
      ['POST', 'organizationRole', { email: `${unique('x')}@example.com`, organizationRole: 'BOSS' }],
      ['POST', 'autoAccept', { email: `${unique('x')}@example.com`, autoAccept: 'yes' }],
      ['POST', 'timeZone', { email: `${unique('x')}@example.com`, timeZone: 'Mars/Base' }],
    ];
    for (const [method, field, body] of cases) {
      const response = await api.request(method, `/v2/organizations/${orgId}/users`, { key: admin.apiKey, body });
      assert.equal(response.status, 400, `${field}: ${response.text}`);
      assert.equal(response.body.error.details.errors[0].property, field);
    }
    for (const [query, field] of [['take=1001', 'take'], ['take=0', 'take'], ['skip=-1', 'skip'], ['emails=someone', 'emails'], ['emails=a@example.com,nope', 'emails'], ['teamIds=abc', 'teamIds']]) {
      const response = await api.request('GET', `/v2/organizations/${orgId}/users?${query}`, { key: admin.apiKey });
      assert.equal(response.status, 400, `${query}: ${response.text}`);
      assert.match(response.body.error.details.errors[0].property, new RegExp(`^${field}(\\.\\d+)?$`), query);
    }
    assert.equal((await api.request('GET', `/v2/organizations/${orgId}/users?take=1000`, { key: admin.apiKey })).status, 200, 'take may be up to 1000');
  });

  test('GET lists the users with a profile in the organization, filtered by emails and teamIds (repeated or comma-separated), with take and skip', async () => {
    const made = await createOrganization(api);
    const id = made.organization.id;
    const key = made.owner.apiKey;
    const a = await createOrgMember(api, id, key);
    const b = await createOrgMember(api, id, key);
    const c = await createOrgMember(api, id, key);
    await createMember(api); // outside the organization: never listed

    const all = await api.request('GET', `/v2/organizations/${id}/users`, { key });
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.body.data.map((u: any) => u.id), [made.owner.user.id, a.user.id, b.user.id, c.user.id]);
    assert.deepEqual(all.body.data[1].profile, { id: all.body.data[1].profile.id, organizationId: id, userId: a.user.id, username: a.user.username });
    assert.equal(all.body.data[1].email, a.user.email);

    const page = await api.request('GET', `/v2/organizations/${id}/users?take=2&skip=1`, { key });
    assert.deepEqual(page.body.data.map((u: any) => u.id), [a.user.id, b.user.id]);

    const comma = await api.request('GET', `/v2/organizations/${id}/users?emails=${a.user.email.toUpperCase()},${c.user.email}`, { key });
    assert.deepEqual(comma.body.data.map((u: any) => u.id), [a.user.id, c.user.id]);
    const repeated = await api.request('GET', `/v2/organizations/${id}/users?emails=${b.user.email}&emails=${c.user.email}`, { key });
    assert.deepEqual(repeated.body.data.map((u: any) => u.id), [b.user.id, c.user.id]);

    const team1 = (await api.request('POST', `/v2/organizations/${id}/teams`, { key, body: { name: unique('Team') } })).body.data;
    const team2 = (await api.request('POST', `/v2/organizations/${id}/teams`, { key, body: { name: unique('Team') } })).body.data;
    const join = async (teamId: number, member: Member) =>
      assert.equal((await api.request('POST', `/v2/organizations/${id}/teams/${teamId}/memberships`, { key, body: { userId: member.user.id } })).status, 201);
    await join(team1.id, a);
    await join(team2.id, c);
    // The owner created both teams and is their OWNER: a member of each.
    const inTeam1 = await api.request('GET', `/v2/organizations/${id}/users?teamIds=${team1.id}`, { key });
    assert.deepEqual(inTeam1.body.data.map((u: any) => u.id), [made.owner.user.id, a.user.id]);
    const inBoth = await api.request('GET', `/v2/organizations/${id}/users?teamIds=${team1.id},${team2.id}&emails=${a.user.email},${c.user.email}`, { key });
    assert.deepEqual(inBoth.body.data.map((u: any) => u.id), [a.user.id, c.user.id]);
    // A team of another organization filters everyone out.
    const foreignTeam = (await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: unique('Team') } })).body.data;
    assert.deepEqual((await api.request('GET', `/v2/organizations/${id}/users?teamIds=${foreignTeam.id}`, { key })).body.data, []);
  });

  test('PATCH updates a user of the organization (a new username is their profile username too); a taken email or username is a 409', async () => {
    const member = await createOrgMember(api, orgId, owner.apiKey);
    await markCreatedByOrganization(api, member.user.id, orgId);
    const username = unique('renamed');
    const patched = await api.request('PATCH', `/v2/organizations/${orgId}/users/${member.user.id}`, {
      key: admin.apiKey,
      body: { name: 'Renamed Person', username, timeZone: 'Asia/Tokyo', weekStart: 'Monday', bio: 'New bio' },
    });
    assert.equal(patched.status, 200, patched.text);
    const user = patched.body.data;
    assert.deepEqual([user.name, user.username, user.profile.username, user.timeZone, user.weekStart, user.bio, user.email], ['Renamed Person', username, username, 'Asia/Tokyo', 'Monday', 'New bio', member.user.email]);
    const me = await api.request('GET', '/v2/me', { key: member.apiKey });
    assert.deepEqual([me.body.data.name, me.body.data.timeZone], ['Renamed Person', 'Asia/Tokyo']);

    const other = await createOrgMember(api, orgId, owner.apiKey);
    const emailTaken = await api.request('PATCH', `/v2/organizations/${orgId}/users/${member.user.id}`, { key: admin.apiKey, body: { email: other.user.email } });
    assert.deepEqual([emailTaken.status, emailTaken.body.error.message], [409, 'A user already exists with that email']);
    const usernameTaken = await api.request('PATCH', `/v2/organizations/${orgId}/users/${member.user.id}`, { key: admin.apiKey, body: { username: other.user.username } });
    assert.deepEqual([usernameTaken.status, usernameTaken.body.error.message], [409, 'Username is already taken']);
    const same = await api.request('PATCH', `/v2/organizations/${orgId}/users/${member.user.id}`, { key: admin.apiKey, body: { username } });
    assert.equal(same.status, 200, 'keeping their own username is no conflict');
    const badField = await api.request('PATCH', `/v2/organizations/${orgId}/users/${member.user.id}`, { key: admin.apiKey, body: { email: 'nope' } });
    assert.deepEqual([badField.status, badField.body.error.details.errors[0].property], [400, 'email']);
    const badId = await api.request('PATCH', `/v2/organizations/${orgId}/users/0`, { key: admin.apiKey, body: {} });
    assert.deepEqual([badId.status, badId.body.error.details.errors[0].property], [400, 'userId']);
  });

  test('a user merely added to the organization (any user id can be) is not its admins\' to change or delete: 403, account untouched', async () => {
    const victim = await createOrgMember(api, orgId, owner.apiKey);
    for (const [method, body] of [['PATCH', { email: `${unique('hijack')}@example.com` }], ['DELETE', undefined]] as const) {
      const response = await api.request(method, `/v2/organizations/${orgId}/users/${victim.user.id}`, { key: admin.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual([response.status, response.body.error.details.reason], [403, 'user_not_created_by_organization'], response.text);
    }
    const me = await api.request('GET', '/v2/me', { key: victim.apiKey });
    assert.deepEqual([me.status, me.body.data.email], [200, victim.user.email]);
    // A user the organization created is its admins' to change.
    const created = (await api.request('POST', `/v2/organizations/${orgId}/users`, { key: admin.apiKey, body: { email: `${unique('made')}@example.com` } })).body.data;
    assert.equal((await api.request('PATCH', `/v2/organizations/${orgId}/users/${created.id}`, { key: admin.apiKey, body: { bio: 'Ours' } })).status, 200);
  });

  test('a user without a profile in the organization is the IsUserInOrg 403 on PATCH and DELETE', async () => {
    const elsewhere = await createOrganization(api);
    for (const method of ['PATCH', 'DELETE']) {
      const response = await api.request(method, `/v2/organizations/${orgId}/users/${elsewhere.owner.user.id}`, { key: admin.apiKey, ...(method === 'PATCH' ? { body: { name: 'X' } } : {}) });
      assert.equal(response.status, 403, response.text);
      assert.equal(response.body.error.message, `IsUserInOrg - user with id=${elsewhere.owner.user.id} is not part of the organization with id=${orgId}.`);
    }
    assert.notEqual((await api.request('GET', '/v2/me', { key: elsewhere.owner.apiKey })).body.data.name, 'X', 'unchanged');
  });

  test('DELETE removes the user through the organization and returns it', async () => {
    const created = (await api.request('POST', `/v2/organizations/${orgId}/users`, { key: admin.apiKey, body: { email: `${unique('gone')}@example.com` } })).body.data;
    const deleted = await api.request('DELETE', `/v2/organizations/${orgId}/users/${created.id}`, { key: admin.apiKey });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body.data, created);
    const list = await api.request('GET', `/v2/organizations/${orgId}/users?emails=${created.email}`, { key: admin.apiKey });
    assert.deepEqual(list.body.data, []);
    const users = await api.request('GET', '/v2/admin/users?take=250', { key: ADMIN_API_KEY });
    assert.ok(!users.body.data.some((u: any) => u.id === created.id), 'the account is gone');
    const again = await api.request('DELETE', `/v2/organizations/${orgId}/users/${created.id}`, { key: admin.apiKey });
    assert.equal(again.status, 403);

    // A member's API key stops working with their account.
    const member = await createOrgMember(api, orgId, owner.apiKey);
    await markCreatedByOrganization(api, member.user.id, orgId);
    assert.equal((await api.request('DELETE', `/v2/organizations/${orgId}/users/${member.user.id}`, { key: admin.apiKey })).status, 200);
    assert.equal((await api.request('GET', '/v2/me', { key: member.apiKey })).status, 401);
  });

  test('svc keeps what an organization admin may not erase: a user of other teams, an OWNER (the last one even for itself), a system admin', async () => {
    const member = await createOrgMember(api, orgId, owner.apiKey);
    await markCreatedByOrganization(api, member.user.id, orgId);
    const standalone = await api.request('POST', '/v2/teams', { key: member.apiKey, body: { name: unique('Own team') } });
    assert.equal(standalone.status, 201);
    const elsewhere = await api.request('DELETE', `/v2/organizations/${orgId}/users/${member.user.id}`, { key: admin.apiKey });
    assert.equal(elsewhere.status, 403, elsewhere.text);
    assert.equal(elsewhere.body.error.details.reason, 'user_in_other_tenants');
    assert.equal((await api.request('GET', '/v2/me', { key: member.apiKey })).status, 200, 'still there');

    await markCreatedByOrganization(api, owner.user.id, orgId);
    const ownerByAdmin = await api.request('DELETE', `/v2/organizations/${orgId}/users/${owner.user.id}`, { key: admin.apiKey });
    assert.deepEqual([ownerByAdmin.status, ownerByAdmin.body.error.details.reason], [403, 'owner_membership_owners_only'], 'an admin removes no owner');
    const lastOwner = await api.request('DELETE', `/v2/organizations/${orgId}/users/${owner.user.id}`, { key: owner.apiKey });
    assert.deepEqual([lastOwner.status, lastOwner.body.error.details.reason], [400, 'last_owner']);

    const sysadminId = (await api.request('GET', '/v2/me', { key: ADMIN_API_KEY })).body.data.id;
    const sysadminMembership = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey, body: { userId: sysadminId, accepted: true } });
    assert.equal(sysadminMembership.status, 201);
    assert.equal((await api.request('POST', `/v2/organizations/${orgId}/memberships/${sysadminMembership.body.data.id}/accept`, { key: ADMIN_API_KEY })).status, 200, 'the system admin joins by accepting');
    const renamed = await api.request('PATCH', `/v2/organizations/${orgId}/users/${sysadminId}`, { key: admin.apiKey, body: { name: 'Hijacked' } });
    assert.deepEqual([renamed.status, renamed.body.error.details.reason], [403, 'user_is_system_admin']);
  });

  test('access: an organization MEMBER and an admin of another organization get the RolesGuard 403; an outsider too', async () => {
    const member = await createOrgMember(api, orgId, owner.apiKey);
    const other = await createOrganization(api);
    const outsider = await createMember(api);
    const calls: [string, string, unknown?][] = [
      ['GET', `/v2/organizations/${orgId}/users`],
      ['POST', `/v2/organizations/${orgId}/users`, { email: `${unique('x')}@example.com` }],
      ['PATCH', `/v2/organizations/${orgId}/users/${admin.user.id}`, { name: 'X' }],
      ['DELETE', `/v2/organizations/${orgId}/users/${admin.user.id}`],
    ];
    for (const [method, path, body] of calls) {
      const byMember = await api.request(method, path, { key: member.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual([byMember.status, byMember.body.error?.message], [403, `RolesGuard - user with id=${member.user.id} does not have the minimum required role=ORG_ADMIN within organization with id=${orgId}.`], `${method} ${path}`);
      for (const stranger of [other.owner, outsider]) {
        const response = await api.request(method, path, { key: stranger.apiKey, ...(body ? { body } : {}) });
        assert.deepEqual([response.status, response.body.error?.message], [403, `RolesGuard - User is not a member of the organization with id=${orgId}.`], `${method} ${path}`);
      }
    }
    const notOrg = await api.request('GET', '/v2/organizations/999999999/users', { key: admin.apiKey });
    assert.deepEqual([notOrg.status, notOrg.body.error.message], [403, 'IsOrgGuard - provided organization id=999999999 does not represent any existing organization.']);
    assert.equal((await api.request('GET', `/v2/organizations/${orgId}/users`, { key: ADMIN_API_KEY })).status, 200, 'the system admin passes');
  });
});
