// Schedules seen and managed by organization and team admins: the reference's OrganizationsSchedulesController
// (ORG_ADMIN; IsUserInOrg 403 on /users/:userId), TeamsSchedulesController (TEAM_ADMIN on /v2/teams/:teamId)
// and OrganizationsTeamsSchedulesController (IsTeamInOrg 404 before RolesGuard; IsUserInOrgTeam 403).
// Bodies and outputs are those of /v2/schedules (ScheduleOutput_2024_06_11).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { acceptMembership, addTeamMember, createMember, createOrganization, createOrgMember, createTeam, markCreatedByOrganization, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';


async function ownSchedule(api: TestApp, member: Member, name: string) {
  const response = await api.request('POST', '/v2/schedules', { key: member.apiKey, body: { name, timeZone: 'Europe/Rome', isDefault: true } });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

const WEEKDAYS = { days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'], startTime: '09:00', endTime: '17:00' };

describe('organization and team schedules', () => {
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

  test("an organization admin creates, lists, reads, updates and deletes a member's schedules", async () => {
    const member = await createOrgMember(api, orgId, owner.apiKey);
    await markCreatedByOrganization(api, member.user.id, orgId);
    const base = `/v2/organizations/${orgId}/users/${member.user.id}/schedules`;
    const created = await api.request('POST', base, { key: admin.apiKey, body: { name: 'Office', timeZone: 'America/New_York', isDefault: false } });
    assert.equal(created.status, 201, created.text);
    const first = created.body.data;
    // The member's first schedule becomes their default whatever isDefault says, as under /v2/schedules.
    assert.deepEqual(first, { id: first.id, ownerId: member.user.id, name: 'Office', timeZone: 'America/New_York', availability: [WEEKDAYS], isDefault: true, overrides: [] });
    const second = (await api.request('POST', base, {
      key: admin.apiKey,
      body: { name: 'Weekend', timeZone: 'UTC', isDefault: false, availability: [{ days: ['Saturday'], startTime: '10:00', endTime: '12:00' }], overrides: [{ date: '2030-01-05', startTime: '00:00', endTime: '00:00' }] },
    })).body.data;
    assert.deepEqual([second.isDefault, second.availability, second.overrides], [false, [{ days: ['Saturday'], startTime: '10:00', endTime: '12:00' }], [{ date: '2030-01-05', startTime: '00:00', endTime: '00:00' }]]);

    const mine = await api.request('GET', '/v2/schedules', { key: member.apiKey });
    assert.deepEqual(mine.body.data.map((s: any) => s.id), [first.id, second.id], 'they are the member\'s own schedules');
    const listed = await api.request('GET', base, { key: admin.apiKey });
    assert.deepEqual(listed.body.data, mine.body.data);
    assert.deepEqual((await api.request('GET', `${base}/${second.id}`, { key: admin.apiKey })).body.data, second);

    const patched = await api.request('PATCH', `${base}/${second.id}`, { key: admin.apiKey, body: { name: 'Saturdays', isDefault: true } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual([patched.body.data.name, patched.body.data.isDefault], ['Saturdays', true]);
    assert.equal((await api.request('GET', '/v2/me', { key: member.apiKey })).body.data.defaultScheduleId, second.id);

    const deleted = await api.request('DELETE', `${base}/${first.id}`, { key: admin.apiKey });
    assert.deepEqual([deleted.status, deleted.body], [200, { status: 'success' }]);
    assert.deepEqual((await api.request('GET', base, { key: admin.apiKey })).body.data.map((s: any) => s.id), [second.id]);
  });

  test("a schedule of someone else under a user's path is the schedules 403; a missing one 404 (400 on DELETE); bad bodies 400 naming the field", async () => {
    const member = await createOrgMember(api, orgId, owner.apiKey);
    await markCreatedByOrganization(api, member.user.id, orgId);
    const other = await createOrgMember(api, orgId, owner.apiKey);
    const othersSchedule = await ownSchedule(api, other, 'Theirs');
    const base = `/v2/organizations/${orgId}/users/${member.user.id}/schedules`;
    for (const [method, body] of [['GET'], ['PATCH', { name: 'Taken' }], ['DELETE']] as const) {
      const response = await api.request(method, `${base}/${othersSchedule.id}`, { key: admin.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual([response.status, response.body.error.message], [403, `User with ID=${member.user.id} does not own schedule with ID=${othersSchedule.id}`], method);
    }
    assert.equal((await api.request('GET', `${base}/2147483000`, { key: admin.apiKey })).status, 404);
    assert.equal((await api.request('DELETE', `${base}/2147483000`, { key: admin.apiKey })).status, 400);
    for (const [field, body] of [['name', { timeZone: 'UTC', isDefault: true }], ['timeZone', { name: 'X', timeZone: 'Mars/Base', isDefault: true }], ['isDefault', { name: 'X', timeZone: 'UTC' }]] as const) {
      const response = await api.request('POST', base, { key: admin.apiKey, body });
      assert.deepEqual([response.status, response.body.error?.details?.errors?.[0]?.property], [400, field], field);
    }
  });

  test('GET /v2/organizations/{orgId}/schedules lists the schedules of every user of the organization, with take and skip', async () => {
    const made = await createOrganization(api);
    const id = made.organization.id;
    const a = await createOrgMember(api, id, made.owner.apiKey);
    const b = await createOrgMember(api, id, made.owner.apiKey);
    const outsider = await createMember(api);
    const s1 = await ownSchedule(api, a, 'A1');
    const s2 = await ownSchedule(api, b, 'B1');
    const s3 = await ownSchedule(api, a, 'A2');
    await ownSchedule(api, outsider, 'Not in the organization');
    const all = await api.request('GET', `/v2/organizations/${id}/schedules`, { key: made.owner.apiKey });
    assert.equal(all.status, 200, all.text);
    // A2 was made A's default after A1: each schedule says whether it is its owner's default.
    assert.deepEqual(all.body.data, [{ ...s1, isDefault: false }, s2, s3]);
    const page = await api.request('GET', `/v2/organizations/${id}/schedules?take=1&skip=1`, { key: made.owner.apiKey });
    assert.deepEqual(page.body.data.map((s: any) => s.id), [s2.id]);
    const tooMany = await api.request('GET', `/v2/organizations/${id}/schedules?take=251`, { key: made.owner.apiKey });
    assert.deepEqual([tooMany.status, tooMany.body.error.details.errors[0].property], [400, 'take']);
  });

  test('access: an organization MEMBER and an admin of another organization get the RolesGuard 403; a user outside the organization is the IsUserInOrg 403', async () => {
    const member = await createOrgMember(api, orgId, owner.apiKey);
    const schedule = await ownSchedule(api, member, 'Mine');
    const other = await createOrganization(api);
    const paths: [string, string, unknown?][] = [
      ['GET', `/v2/organizations/${orgId}/schedules`],
      ['GET', `/v2/organizations/${orgId}/users/${member.user.id}/schedules`],
      ['POST', `/v2/organizations/${orgId}/users/${member.user.id}/schedules`, { name: 'X', timeZone: 'UTC', isDefault: false }],
      ['GET', `/v2/organizations/${orgId}/users/${member.user.id}/schedules/${schedule.id}`],
      ['PATCH', `/v2/organizations/${orgId}/users/${member.user.id}/schedules/${schedule.id}`, { name: 'X' }],
      ['DELETE', `/v2/organizations/${orgId}/users/${member.user.id}/schedules/${schedule.id}`],
    ];
    for (const [method, path, body] of paths) {
      const byMember = await api.request(method, path, { key: member.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual([byMember.status, byMember.body.error?.message], [403, `RolesGuard - user with id=${member.user.id} does not have the minimum required role=ORG_ADMIN within organization with id=${orgId}.`], `${method} ${path}`);
      const byOtherAdmin = await api.request(method, path, { key: other.owner.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual([byOtherAdmin.status, byOtherAdmin.body.error?.message], [403, `RolesGuard - User is not a member of the organization with id=${orgId}.`], `${method} ${path}`);
    }
    assert.equal((await api.request('GET', `/v2/organizations/${orgId}/users/${member.user.id}/schedules/${schedule.id}`, { key: member.apiKey })).status, 403);
    assert.equal((await api.request('GET', `/v2/schedules/${schedule.id}`, { key: member.apiKey })).body.data.name, 'Mine', 'untouched');

    // The other organization's owner, under this organization's path, is not one of its users.
    const foreignSchedule = await ownSchedule(api, other.owner, 'Foreign');
    for (const [method, path, body] of [
      ['GET', `/v2/organizations/${orgId}/users/${other.owner.user.id}/schedules`],
      ['POST', `/v2/organizations/${orgId}/users/${other.owner.user.id}/schedules`, { name: 'X', timeZone: 'UTC', isDefault: false }],
      ['PATCH', `/v2/organizations/${orgId}/users/${other.owner.user.id}/schedules/${foreignSchedule.id}`, { name: 'Hijacked' }],
      ['DELETE', `/v2/organizations/${orgId}/users/${other.owner.user.id}/schedules/${foreignSchedule.id}`],
    ] as [string, string, unknown?][]) {
      const response = await api.request(method, path, { key: admin.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual([response.status, response.body.error?.message], [403, `IsUserInOrg - user with id=${other.owner.user.id} is not part of the organization with id=${orgId}.`], `${method} ${path}`);
    }
    assert.equal((await api.request('GET', `/v2/schedules/${foreignSchedule.id}`, { key: other.owner.apiKey })).body.data.name, 'Foreign', 'untouched');

    // A user who accepted to join the organization (not one it created): its admins read their schedules, as the reference's
    // OrganizationsSchedulesController lets them (`@Roles("ORG_ADMIN")` and `@UseGuards(IsUserInOrg)` on
    // `@Get("/users/:userId/schedules")` and `@Get("/users/:userId/schedules/:scheduleId")`). Writes stay with the user: the
    // reference allows them to any user of the organization, but any user id can be added to one.
    const added = await createOrgMember(api, orgId, owner.apiKey);
    const addedSchedule = await ownSchedule(api, added, 'Private');
    const listed = await api.request('GET', `/v2/organizations/${orgId}/users/${added.user.id}/schedules`, { key: admin.apiKey });
    assert.deepEqual([listed.status, listed.body.data], [200, [addedSchedule]], listed.text);
    const one = await api.request('GET', `/v2/organizations/${orgId}/users/${added.user.id}/schedules/${addedSchedule.id}`, { key: admin.apiKey });
    assert.deepEqual([one.status, one.body.data], [200, addedSchedule], one.text);
    for (const [method, path, body] of [
      ['POST', `/v2/organizations/${orgId}/users/${added.user.id}/schedules`, { name: 'Planted', timeZone: 'UTC', isDefault: true }],
      ['PATCH', `/v2/organizations/${orgId}/users/${added.user.id}/schedules/${addedSchedule.id}`, { name: 'Hijacked' }],
      ['DELETE', `/v2/organizations/${orgId}/users/${added.user.id}/schedules/${addedSchedule.id}`],
    ] as [string, string, unknown?][]) {
      const response = await api.request(method, path, { key: admin.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual([response.status, response.body.error?.details?.reason], [403, 'user_not_created_by_organization'], `${method} ${path}`);
    }
    assert.deepEqual((await api.request('GET', '/v2/schedules', { key: added.apiKey })).body.data, [addedSchedule], 'untouched');

    // Someone invited who has not accepted has no profile in the organization yet: IsUserInOrg's 403, reads included.
    const invitee = await createMember(api);
    const inviteeSchedule = await ownSchedule(api, invitee, 'Not yet');
    const invited = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey, body: { userId: invitee.user.id } });
    assert.equal(invited.body.data.accepted, false, invited.text);
    for (const path of [`/v2/organizations/${orgId}/users/${invitee.user.id}/schedules`, `/v2/organizations/${orgId}/users/${invitee.user.id}/schedules/${inviteeSchedule.id}`]) {
      const response = await api.request('GET', path, { key: admin.apiKey });
      assert.deepEqual([response.status, response.body.error?.message], [403, `IsUserInOrg - user with id=${invitee.user.id} is not part of the organization with id=${orgId}.`], path);
    }
  });

  test('GET /v2/teams/{teamId}/schedules: the team admin sees the accepted members\' schedules (not the team\'s own, not a pending invitee\'s); a team MEMBER and an outsider get 403', async () => {
    const teamOwner = await createMember(api);
    const team = await createTeam(api, teamOwner);
    const teamAdmin = await createMember(api);
    const teamMember = await createMember(api);
    const outsider = await createMember(api);
    await addTeamMember(api, teamOwner.apiKey, team.id, teamAdmin, 'ADMIN');
    const invitation = await addTeamMember(api, teamOwner.apiKey, team.id, teamMember, 'MEMBER', false);
    const memberSchedule = await ownSchedule(api, teamMember, 'Member hours');
    const adminSchedule = await ownSchedule(api, teamAdmin, 'Admin hours');
    await ownSchedule(api, outsider, 'Outside');

    const beforeConsent = await api.request('GET', `/v2/teams/${team.id}/schedules`, { key: teamAdmin.apiKey });
    assert.deepEqual([beforeConsent.status, beforeConsent.body.data], [200, [adminSchedule]], 'a pending invitee shows the team nothing');
    await acceptMembership(api, teamMember, `/v2/teams/${team.id}/memberships/${invitation.id}`);
    const listed = await api.request('GET', `/v2/teams/${team.id}/schedules`, { key: teamAdmin.apiKey });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.data, [memberSchedule, adminSchedule]);
    assert.deepEqual((await api.request('GET', `/v2/teams/${team.id}/schedules?skip=1`, { key: teamOwner.apiKey })).body.data, [adminSchedule]);

    const byMember = await api.request('GET', `/v2/teams/${team.id}/schedules`, { key: teamMember.apiKey });
    assert.deepEqual([byMember.status, byMember.body.error.message], [403, `RolesGuard - user with id=${teamMember.user.id} does not have the minimum required role=TEAM_ADMIN within team with id=${team.id}.`]);
    const byOutsider = await api.request('GET', `/v2/teams/${team.id}/schedules`, { key: outsider.apiKey });
    assert.deepEqual([byOutsider.status, byOutsider.body.error.message], [403, `RolesGuard - User is not a member of the team with id=${team.id}.`]);
    assert.equal((await api.request('GET', '/v2/teams/2147483000/schedules', { key: ADMIN_API_KEY })).status, 404);
  });

  test('organization team schedules: TEAM_ADMIN (organization admins too), IsTeamInOrg 404 before the role check, IsUserInOrgTeam 403', async () => {
    const team = (await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: `Schedules ${process.pid} ${Date.now()}` } })).body.data;
    const teamAdmin = await createOrgMember(api, orgId, owner.apiKey);
    const teamMember = await createOrgMember(api, orgId, owner.apiKey);
    const notInTeam = await createOrgMember(api, orgId, owner.apiKey);
    for (const [member, role] of [[teamAdmin, 'ADMIN'], [teamMember, 'MEMBER']] as const) {
      const response = await api.request('POST', `/v2/organizations/${orgId}/teams/${team.id}/memberships`, { key: owner.apiKey, body: { userId: member.user.id, role, accepted: true } });
      assert.equal(response.status, 201, response.text);
    }
    const memberSchedule = await ownSchedule(api, teamMember, 'Team member hours');
    await ownSchedule(api, notInTeam, 'Not in the team');

    const listed = await api.request('GET', `/v2/organizations/${orgId}/teams/${team.id}/schedules`, { key: teamAdmin.apiKey });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.data, [memberSchedule]);
    const byOrgAdmin = await api.request('GET', `/v2/organizations/${orgId}/teams/${team.id}/users/${teamMember.user.id}/schedules`, { key: admin.apiKey });
    assert.deepEqual([byOrgAdmin.status, byOrgAdmin.body.data], [200, [memberSchedule]]);

    const byMember = await api.request('GET', `/v2/organizations/${orgId}/teams/${team.id}/schedules`, { key: teamMember.apiKey });
    assert.deepEqual([byMember.status, byMember.body.error.message], [403, `RolesGuard - user with id=${teamMember.user.id} does not have the minimum required role=TEAM_ADMIN within organization with id=${orgId} team with id=${team.id}.`]);

    const notMember = await api.request('GET', `/v2/organizations/${orgId}/teams/${team.id}/users/${notInTeam.user.id}/schedules`, { key: teamAdmin.apiKey });
    assert.deepEqual(
      [notMember.status, notMember.body.error.message],
      [403, `IsUserInOrgTeam - user with id=(${notInTeam.user.id}) is not part of the team with id=(${team.id}) in the organization with id=(${orgId})`],
    );

    // A team of another organization: 404 first, even for a plain member (IsTeamInOrg runs before RolesGuard here).
    const other = await createOrganization(api);
    const foreignTeam = (await api.request('POST', `/v2/organizations/${other.organization.id}/teams`, { key: other.owner.apiKey, body: { name: 'Foreign' } })).body.data;
    const crossed = await api.request('GET', `/v2/organizations/${orgId}/teams/${foreignTeam.id}/schedules`, { key: teamMember.apiKey });
    assert.deepEqual([crossed.status, crossed.body.error.message], [404, `IsTeamInOrg - Team (${foreignTeam.id}) not found.`]);
    const byOtherOwner = await api.request('GET', `/v2/organizations/${orgId}/teams/${team.id}/schedules`, { key: other.owner.apiKey });
    assert.deepEqual([byOtherOwner.status, byOtherOwner.body.error.message], [403, `RolesGuard - User is not part of the organization with id=${orgId}.`]);
  });
});
