import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { booked } from '../bookings/helpers.js';
import { assertError, assertNamesField, createEventType, createHost, type Host } from '../slots/helpers.js';
import { insertEventType, insertTeamBooking } from '../support/team-bookings.js';
import { createOrganization, createOrgMember, markCreatedByOrganization, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';

type OrgMember = Member & { membershipId: number };

describe('organization booking lists: /v2/organizations/{orgId}/bookings, .../teams/{teamId}/bookings, .../users/{userId}/bookings', () => {
  let api: TestApp;
  let now = Date.parse('2030-01-01T12:00:00Z');
  let orgId: number;
  let otherOrgId: number;
  let owner: Member;
  let otherOwner: Member;
  let orgAdmin: OrgMember;
  let orgMember: OrgMember;
  let teamAdmin: OrgMember;
  let teamMember: OrgMember;
  /** Created by the organization: its bookings anywhere are the organization's. */
  let ownUser: OrgMember;
  /** Merely added to the organization: only its bookings of the organization's teams are. */
  let addedUser: OrgMember;
  let outsider: Host;
  let team1: { id: number };
  let team2: { id: number };
  let otherTeam: { id: number };
  let teamMemberMembershipId: number;
  const types: Record<string, { id: number }> = {};
  const uids: Record<string, string> = {};

  const uidsOf = (body: any) => body.data.map((booking: any) => booking.uid);
  const named = (...names: string[]) => names.map((name) => uids[name]);
  const get = (path: string, key?: string) => api.request('GET', path, key ? { key } : {});
  const list = async (path: string, key = orgAdmin.apiKey) => {
    const response = await get(path, key);
    assert.equal(response.status, 200, response.text);
    return response.body;
  };
  const orgBookings = (query = '', org = orgId) => `/v2/organizations/${org}/bookings${query}`;
  const teamBookings = (teamId: number, query = '', org = orgId) => `/v2/organizations/${org}/teams/${teamId}/bookings${query}`;
  const userBookings = (userId: number, query = '', org = orgId) => `/v2/organizations/${org}/users/${userId}/bookings${query}`;
  const references = (teamId: number, uid: string, query = '') => `/v2/organizations/${orgId}/teams/${teamId}/bookings/${uid}/references${query}`;
  const asHost = (member: Member): Host => ({ userId: member.user.id, username: member.user.username, apiKey: member.apiKey });

  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    ({ organization: { id: orgId }, owner } = await createOrganization(api));
    ({ organization: { id: otherOrgId }, owner: otherOwner } = await createOrganization(api));
    orgAdmin = await createOrgMember(api, orgId, owner.apiKey, 'ADMIN');
    orgMember = await createOrgMember(api, orgId, owner.apiKey);
    teamAdmin = await createOrgMember(api, orgId, owner.apiKey);
    teamMember = await createOrgMember(api, orgId, owner.apiKey);
    ownUser = await createOrgMember(api, orgId, owner.apiKey);
    await markCreatedByOrganization(api, ownUser.user.id, orgId);
    addedUser = await createOrgMember(api, orgId, owner.apiKey);
    outsider = await createHost(api, 'America/New_York');

    const orgTeam = async (org: number, key: string, name: string) => {
      const response = await api.request('POST', `/v2/organizations/${org}/teams`, { key, body: { name } });
      assert.equal(response.status, 201, response.text);
      return response.body.data as { id: number };
    };
    team1 = await orgTeam(orgId, owner.apiKey, 'Sales');
    team2 = await orgTeam(orgId, owner.apiKey, 'Support');
    otherTeam = await orgTeam(otherOrgId, otherOwner.apiKey, 'Elsewhere');
    const join = async (teamId: number, who: Member, role: string) => {
      const response = await api.request('POST', `/v2/organizations/${orgId}/teams/${teamId}/memberships`, { key: owner.apiKey, body: { userId: who.user.id, role, accepted: true } });
      assert.equal(response.status, 201, response.text);
      return response.body.data.id as number;
    };
    await join(team1.id, teamAdmin, 'ADMIN');
    teamMemberMembershipId = await join(team1.id, teamMember, 'MEMBER');

    types.team1 = await insertEventType(api, { teamId: team1.id });
    types.team2 = await insertEventType(api, { teamId: team2.id, schedulingType: 'roundRobin' });
    types.otherTeam = await insertEventType(api, { teamId: otherTeam.id });

    // Personal bookings through the API (Monday 2030-01-07 and Tuesday 01-08, in working hours).
    for (const user of [ownUser, addedUser]) {
      const schedule = await api.request('POST', '/v2/schedules', { key: user.apiKey, version: '2024-06-11', body: { name: 'Work', timeZone: 'UTC', isDefault: true } });
      assert.equal(schedule.status, 201, schedule.text);
    }
    const ownType = await createEventType(api, asHost(ownUser));
    const addedType = await createEventType(api, asHost(addedUser));
    const outsiderType = await createEventType(api, outsider);
    uids.ownPersonal = (await booked(api, { eventTypeId: ownType.id, start: '2030-01-07T15:00:00Z' })).uid;
    uids.addedPersonal = (await booked(api, { eventTypeId: addedType.id, start: '2030-01-07T15:00:00Z' })).uid;
    uids.ownAttends = (await booked(api, { eventTypeId: outsiderType.id, start: '2030-01-07T16:00:00Z', attendee: { name: 'Own User', email: ownUser.user.email, timeZone: 'UTC' } })).uid;
    uids.addedAttends = (await booked(api, { eventTypeId: outsiderType.id, start: '2030-01-08T15:00:00Z', attendee: { name: 'Added User', email: addedUser.user.email, timeZone: 'UTC' } })).uid;

    const book = async (name: string, fixture: Parameters<typeof insertTeamBooking>[1]) => {
      uids[name] = (await insertTeamBooking(api, fixture)).uid;
    };
    await book('team1', { organizerId: ownUser.user.id, eventTypeId: types.team1!.id, start: '2030-01-09T10:00:00Z', attendees: [{ name: 'Tia Tester', email: 'tia@example.com' }] });
    await book('team2', { organizerId: addedUser.user.id, eventTypeId: types.team2!.id, start: '2030-01-11T10:00:00Z' });
    await book('team1Cancelled', { organizerId: teamAdmin.user.id, eventTypeId: types.team1!.id, start: '2030-01-12T10:00:00Z', status: 'cancelled' });
    await book('otherOrg', { organizerId: otherOwner.user.id, eventTypeId: types.otherTeam!.id, start: '2030-01-09T10:00:00Z' });
    now = Date.parse('2030-01-07T18:00:00Z');
  });
  after(() => api.close());

  const ORG = ['ownPersonal', 'ownAttends', 'team1', 'team2', 'team1Cancelled'];

  test("an organization's bookings: its teams', and those its own users host or attend; never a merely added user's own, nor another organization's", async () => {
    const body = await list(orgBookings());
    assert.deepEqual(uidsOf(body), named(...ORG));
    assert.deepEqual(body.pagination, { totalItems: 5, remainingItems: 0, returnedItems: 5, itemsPerPage: 100, currentPage: 1, totalPages: 1, hasNextPage: false, hasPreviousPage: false });
    assert.deepEqual(uidsOf(await list(orgBookings(), owner.apiKey)), named(...ORG));
    assert.deepEqual(uidsOf(await list(orgBookings('', otherOrgId), otherOwner.apiKey)), named('otherOrg'));
  });

  test('the organization list filters, sorts and pages as GET /v2/bookings, plus teamId, teamsIds and userIds', async () => {
    assert.deepEqual(uidsOf(await list(orgBookings('?status=past&sortStart=asc'))), named('ownPersonal', 'ownAttends'));
    assert.deepEqual(uidsOf(await list(orgBookings('?status=upcoming'))), named('team1', 'team2'));
    assert.deepEqual(uidsOf(await list(orgBookings('?status=cancelled'))), named('team1Cancelled'));
    assert.deepEqual(uidsOf(await list(orgBookings('?attendeeEmail=TIA@example.com'))), named('team1'));
    assert.deepEqual(uidsOf(await list(orgBookings(`?eventTypeIds=${types.team2!.id}`))), named('team2'));
    assert.deepEqual(uidsOf(await list(orgBookings(`?teamId=${team1.id}`))), named('team1', 'team1Cancelled'));
    assert.deepEqual(uidsOf(await list(orgBookings(`?teamsIds=${team1.id},${team2.id}&sortStart=desc`))), named('team1Cancelled', 'team2', 'team1'));
    const page = await list(orgBookings('?take=2&skip=1'));
    assert.deepEqual(uidsOf(page), named('ownAttends', 'team1'));
    assert.deepEqual(page.pagination, { totalItems: 5, remainingItems: 2, returnedItems: 2, itemsPerPage: 2, currentPage: 1, totalPages: 3, hasNextPage: true, hasPreviousPage: true });
    assertNamesField(await get(orgBookings('?teamsIds=1,two'), orgAdmin.apiKey), 'teamsIds');
    assertNamesField(await get(orgBookings('?status=soon'), orgAdmin.apiKey), 'status');
    assertNamesField(await get(orgBookings('?take=251'), orgAdmin.apiKey), 'take');
  });

  test("userIds: the bookings members host or attend within the organization's; users elsewhere are a 403, unknown ones a 400", async () => {
    assert.deepEqual(uidsOf(await list(orgBookings(`?userIds=${ownUser.user.id}`))), named('ownPersonal', 'ownAttends', 'team1'));
    assert.deepEqual(uidsOf(await list(orgBookings(`?userIds=${addedUser.user.id}`))), named('team2'));
    assert.deepEqual(uidsOf(await list(orgBookings(`?userIds=${ownUser.user.id},${addedUser.user.id}&status=upcoming`))), named('team1', 'team2'));
    assertError(await get(orgBookings(`?userIds=${outsider.userId}`), orgAdmin.apiKey), 403, 'ForbiddenException', 'You do not have permissions to fetch bookings for specified userIds');
    assertError(await get(orgBookings(`?userIds=${ownUser.user.id},${otherOwner.user.id}`), orgAdmin.apiKey), 403, 'ForbiddenException');
    assertNamesField(await get(orgBookings('?userIds=999999'), orgAdmin.apiKey), 'userIds');
    assertNamesField(await get(orgBookings('?userIds=abc'), orgAdmin.apiKey), 'userIds');
  });

  test('the organization list is for its admins and owners, or members whose custom role grants booking.readOrgBookings', async () => {
    assertError(await get(orgBookings(), orgMember.apiKey), 403, 'ForbiddenException', /ORG_ADMIN/);
    assertError(await get(orgBookings(), teamAdmin.apiKey), 403, 'ForbiddenException');
    assertError(await get(orgBookings(), otherOwner.apiKey), 403, 'ForbiddenException');
    assertError(await get(orgBookings('', otherOrgId), orgAdmin.apiKey), 403, 'ForbiddenException');
    assertError(await get(orgBookings()), 401, 'UnauthorizedException');
    assert.deepEqual(uidsOf(await list(orgBookings(), ADMIN_API_KEY)), named(...ORG));

    const role = await api.request('POST', `/v2/organizations/${orgId}/roles`, { key: owner.apiKey, body: { name: 'Booking readers', permissions: ['booking.readOrgBookings'] } });
    assert.equal(role.status, 201, role.text);
    const assigned = await api.request('PATCH', `/v2/organizations/${orgId}/memberships/${orgMember.membershipId}`, { key: owner.apiKey, body: { roleId: role.body.data.id } });
    assert.equal(assigned.status, 200, assigned.text);
    assert.deepEqual(uidsOf(await list(orgBookings(), orgMember.apiKey)), named(...ORG));
  });

  test("an organization team's bookings: for the organization's admins and the team's, another organization's team is a 404", async () => {
    for (const key of [orgAdmin.apiKey, owner.apiKey, teamAdmin.apiKey]) assert.deepEqual(uidsOf(await list(teamBookings(team1.id), key)), named('team1', 'team1Cancelled'));
    assert.deepEqual(uidsOf(await list(teamBookings(team2.id))), named('team2'));
    assert.deepEqual(uidsOf(await list(teamBookings(team1.id, '?status=cancelled'))), named('team1Cancelled'));
    assert.deepEqual(uidsOf(await list(teamBookings(team1.id, '?sortStart=desc&attendeeName=Tia%20Tester'))), named('team1'));
    // The reference's GetTeamsBookingsInput: bookings these members host.
    assert.deepEqual(uidsOf(await list(teamBookings(team1.id, `?teamMemberIds=${teamAdmin.user.id}`))), named('team1Cancelled'));
    assert.deepEqual(uidsOf(await list(teamBookings(team1.id, `?teamMemberEmails=${encodeURIComponent(ownUser.user.email)}`))), named('team1'));
    const page = await list(teamBookings(team1.id, '?take=1&sortStart=desc'));
    assert.deepEqual(uidsOf(page), named('team1Cancelled'));
    assert.equal(page.pagination.totalItems, 2);
    assertNamesField(await get(teamBookings(team1.id, '?skip=-1'), orgAdmin.apiKey), 'skip');

    assertError(await get(teamBookings(team1.id), teamMember.apiKey), 403, 'ForbiddenException', /TEAM_ADMIN/);
    assertError(await get(teamBookings(team1.id), orgMember.apiKey), 403, 'ForbiddenException');
    assertError(await get(teamBookings(team2.id), teamAdmin.apiKey), 403, 'ForbiddenException');
    assertError(await get(teamBookings(team1.id), otherOwner.apiKey), 403, 'ForbiddenException');
    assertError(await get(teamBookings(otherTeam.id), orgAdmin.apiKey), 404, 'NotFoundException');
  });

  test('a custom team role with booking.readTeamBookings lets a team member list its bookings', async () => {
    const role = await api.request('POST', `/v2/organizations/${orgId}/teams/${team1.id}/roles`, { key: owner.apiKey, body: { name: 'Team booking readers', permissions: ['booking.readTeamBookings'] } });
    assert.equal(role.status, 201, role.text);
    const assigned = await api.request('PATCH', `/v2/organizations/${orgId}/teams/${team1.id}/memberships/${teamMemberMembershipId}`, { key: owner.apiKey, body: { roleId: role.body.data.id } });
    assert.equal(assigned.status, 200, assigned.text);
    assert.deepEqual(uidsOf(await list(teamBookings(team1.id), teamMember.apiKey)), named('team1', 'team1Cancelled'));
    assertError(await get(teamBookings(team2.id), teamMember.apiKey), 403, 'ForbiddenException');
  });

  test("booking references: the team's bookings only (404 otherwise), type among the six reference types", async () => {
    for (const key of [orgAdmin.apiKey, teamAdmin.apiKey]) {
      const response = await get(references(team1.id, uids.team1!), key);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { status: 'success', data: [] });
    }
    for (const type of ['google_calendar', 'office365_calendar', 'daily_video', 'google_video', 'office365_video', 'zoom_video']) {
      assert.equal((await get(references(team1.id, uids.team1!, `?type=${type}`), orgAdmin.apiKey)).status, 200, type);
    }
    assertNamesField(await get(references(team1.id, uids.team1!, '?type=zoom'), orgAdmin.apiKey), 'type');
    for (const name of ['team2', 'ownPersonal', 'otherOrg']) {
      assertError(await get(references(team1.id, uids[name]!), orgAdmin.apiKey), 404, 'NotFoundException', `Booking with uid ${uids[name]} not found`);
    }
    assertError(await get(references(team1.id, 'no-such-booking'), orgAdmin.apiKey), 404, 'NotFoundException');
    assertError(await get(references(team1.id, uids.team1!), orgMember.apiKey), 403, 'ForbiddenException');
    assertError(await get(references(team2.id, uids.team2!), teamAdmin.apiKey), 403, 'ForbiddenException');
  });

  test("a user's bookings within the organization: for its admins; the user must be in the organization", async () => {
    assert.deepEqual(uidsOf(await list(userBookings(ownUser.user.id))), named('ownPersonal', 'ownAttends', 'team1'));
    assert.deepEqual(uidsOf(await list(userBookings(addedUser.user.id))), named('team2'));
    assert.deepEqual(uidsOf(await list(userBookings(teamAdmin.user.id))), named('team1Cancelled'));
    assert.deepEqual(uidsOf(await list(userBookings(ownUser.user.id, '?status=past'))), named('ownAttends', 'ownPersonal'));
    const page = await list(userBookings(ownUser.user.id, '?sortStart=desc&take=1&skip=1'));
    assert.deepEqual(uidsOf(page), named('ownAttends'));
    assert.equal(page.pagination.totalItems, 3);
    assertError(await get(userBookings(outsider.userId), orgAdmin.apiKey), 403, 'ForbiddenException');
    assertError(await get(userBookings(otherOwner.user.id), orgAdmin.apiKey), 403, 'ForbiddenException');
    assertError(await get(userBookings(ownUser.user.id), orgMember.apiKey), 403, 'ForbiddenException');
    assertError(await get(userBookings(ownUser.user.id), ownUser.apiKey), 403, 'ForbiddenException');
    assertError(await get(userBookings(otherOwner.user.id, '', otherOrgId), orgAdmin.apiKey), 403, 'ForbiddenException');
    assertNamesField(await get(userBookings(ownUser.user.id, '?afterStart=2030-13-01'), orgAdmin.apiKey), 'afterStart');
  });
});
