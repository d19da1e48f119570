import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, assertNamesField } from '../slots/helpers.js';
import { insertEventType, insertTeamBooking } from '../support/team-bookings.js';
import { addTeamMember, createMember, createTeam, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';
import { BOOKINGS_VERSION } from './helpers.js';

describe('GET /v2/teams/{teamId}/bookings', () => {
  let api: TestApp;
  const now = Date.parse('2030-01-10T12:00:00Z');
  let owner: Member;
  let admin: Member;
  let member: Member;
  let outsider: Member;
  let otherOwner: Member;
  let team: { id: number };
  let otherTeam: { id: number };
  const types: Record<string, { id: number; slug: string }> = {};
  const uids: Record<string, string> = {};

  const path = (query = '', teamId = team.id) => `/v2/teams/${teamId}/bookings${query}`;
  const list = async (query: string, key = admin.apiKey) => {
    const response = await api.request('GET', path(query), { key });
    assert.equal(response.status, 200, response.text);
    return response.body;
  };
  const uidsOf = (body: any) => body.data.map((booking: any) => booking.uid);
  const named = (...names: string[]) => names.map((name) => uids[name]);

  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    [owner, admin, member, outsider, otherOwner] = [await createMember(api), await createMember(api), await createMember(api), await createMember(api), await createMember(api)];
    team = await createTeam(api, owner);
    await addTeamMember(api, owner.apiKey, team.id, admin, 'ADMIN');
    await addTeamMember(api, owner.apiKey, team.id, member, 'MEMBER');
    otherTeam = await createTeam(api, otherOwner);

    types.a = await insertEventType(api, { teamId: team.id, schedulingType: 'collective' });
    types.b = await insertEventType(api, { teamId: team.id, schedulingType: 'roundRobin' });
    types.managed = await insertEventType(api, { teamId: team.id, schedulingType: 'managed' });
    types.managedCopy = await insertEventType(api, { userId: member.user.id, parentId: types.managed.id, slug: types.managed.slug });
    types.other = await insertEventType(api, { teamId: otherTeam.id });
    types.personal = await insertEventType(api, { userId: member.user.id });

    const book = async (name: string, fixture: Parameters<typeof insertTeamBooking>[1]) => {
      uids[name] = (await insertTeamBooking(api, fixture)).uid;
    };
    // Starts: past 01-05, cancelled 01-12 09:00 (ends 11:00), upcoming 01-12 10:00 (ends 10:30), unconfirmed 01-15, managed 01-20, recurring 01-25.
    await book('past', { organizerId: admin.user.id, eventTypeId: types.a.id, start: '2030-01-05T10:00:00Z', createdAt: '2029-12-03T00:00:00Z', attendees: [{ name: 'Ann Attendee', email: 'ann@example.com' }] });
    await book('cancelled', { organizerId: owner.user.id, eventTypeId: types.a.id, start: '2030-01-12T09:00:00Z', minutes: 120, status: 'cancelled', createdAt: '2029-12-05T00:00:00Z' });
    await book('upcoming', { organizerId: member.user.id, eventTypeId: types.b.id, start: '2030-01-12T10:00:00Z', createdAt: '2029-12-01T00:00:00Z', attendees: [{ name: 'Bob Booker', email: 'bob@example.com' }] });
    await book('unconfirmed', { organizerId: owner.user.id, eventTypeId: types.a.id, start: '2030-01-15T10:00:00Z', status: 'pending', coHostIds: [member.user.id], createdAt: '2029-12-06T00:00:00Z' });
    await book('managed', { organizerId: member.user.id, eventTypeId: types.managedCopy.id, start: '2030-01-20T10:00:00Z', createdAt: '2029-12-02T00:00:00Z' });
    await book('recurring', { organizerId: admin.user.id, eventTypeId: types.a.id, start: '2030-01-25T10:00:00Z', recurringBookingUid: 'series-team-lists', createdAt: '2029-12-04T00:00:00Z' });
    // Never in the team's list: another team's booking, a member's personal booking, a booking with no event type.
    await book('otherTeam', { organizerId: otherOwner.user.id, eventTypeId: types.other.id, start: '2030-01-13T10:00:00Z' });
    await book('personal', { organizerId: member.user.id, eventTypeId: types.personal.id, start: '2030-01-14T10:00:00Z' });
    await book('noType', { organizerId: admin.user.id, eventTypeId: null, start: '2030-01-16T10:00:00Z' });
  });
  after(() => api.close());

  const ALL = ['past', 'cancelled', 'upcoming', 'unconfirmed', 'managed', 'recurring'];

  test("lists the bookings of the team's event types and its managed event type's copies, with the pagination object", async () => {
    const body = await list('');
    assert.equal(body.status, 'success');
    assert.deepEqual(uidsOf(body), named(...ALL));
    assert.deepEqual(body.pagination, { totalItems: 6, remainingItems: 0, returnedItems: 6, itemsPerPage: 100, currentPage: 1, totalPages: 1, hasNextPage: false, hasPreviousPage: false });
    const upcoming = body.data.find((booking: any) => booking.uid === uids.upcoming);
    assert.deepEqual(upcoming.eventType, { id: types.b!.id, slug: types.b!.slug });
    assert.equal(upcoming.eventTypeId, types.b!.id);
    assert.equal(upcoming.hosts[0].id, member.user.id);
    assert.deepEqual(upcoming.attendees.map((attendee: any) => attendee.email), ['bob@example.com']);
    assert.equal(upcoming.status, 'accepted');
    assert.equal(upcoming.duration, 30);
    assert.equal(body.data.find((booking: any) => booking.uid === uids.recurring).recurringBookingUid, 'series-team-lists');
    // The owner sees the same; the version header changes nothing (the route is version-agnostic).
    assert.deepEqual(uidsOf(await list('', owner.apiKey)), named(...ALL));
    const versioned = await api.request('GET', path(), { key: owner.apiKey, version: BOOKINGS_VERSION });
    assert.deepEqual(uidsOf(versioned.body), named(...ALL));
  });

  test('status filters, one or several', async () => {
    assert.deepEqual(uidsOf(await list('?status=upcoming')), named('upcoming', 'unconfirmed', 'managed', 'recurring'));
    assert.deepEqual(uidsOf(await list('?status=recurring')), named('recurring'));
    assert.deepEqual(uidsOf(await list('?status=past')), named('past'));
    assert.deepEqual(uidsOf(await list('?status=cancelled')), named('cancelled'));
    assert.deepEqual(uidsOf(await list('?status=unconfirmed')), named('unconfirmed'));
    assert.deepEqual(uidsOf(await list('?status=past,cancelled&sortStart=asc')), named('past', 'cancelled'));
    assertNamesField(await api.request('GET', path('?status=soon'), { key: admin.apiKey }), 'status');
  });

  test('attendee, uid, event type and time filters', async () => {
    assert.deepEqual(uidsOf(await list('?attendeeEmail=ANN@example.com')), named('past'));
    assert.deepEqual(uidsOf(await list('?attendeeName=Bob%20Booker')), named('upcoming'));
    assert.deepEqual(uidsOf(await list(`?bookingUid=${uids.unconfirmed}`)), named('unconfirmed'));
    assert.deepEqual(uidsOf(await list(`?bookingUid=${uids.otherTeam}`)), [], "another team's booking is never listed");
    // A managed event type's id takes its members' copies, as in the reference.
    assert.deepEqual(uidsOf(await list(`?eventTypeIds=${types.b!.id},${types.managed!.id}`)), named('upcoming', 'managed'));
    assert.deepEqual(uidsOf(await list(`?eventTypeId=${types.a!.id}`)), named('past', 'cancelled', 'unconfirmed', 'recurring'));
    assert.deepEqual(uidsOf(await list(`?eventTypeIds=${types.other!.id},${types.personal!.id}`)), []);
    assert.deepEqual(uidsOf(await list('?afterStart=2030-01-12T10:00:00Z&beforeEnd=2030-01-20T10:30:00Z')), named('upcoming', 'unconfirmed', 'managed'));
    assertNamesField(await api.request('GET', path('?afterStart=2030-02-30'), { key: admin.apiKey }), 'afterStart');
    assertNamesField(await api.request('GET', path('?beforeEnd=soon'), { key: admin.apiKey }), 'beforeEnd');
    assertNamesField(await api.request('GET', path('?eventTypeIds=1,x'), { key: admin.apiKey }), 'eventTypeIds');
    assertNamesField(await api.request('GET', path('?eventTypeId=0'), { key: admin.apiKey }), 'eventTypeId');
  });

  // The reference's GetTeamsBookingsInput_2024_08_13 (apps/api/v2/src/modules/teams/bookings/inputs/
  // get-teams-bookings.input.ts): `teamMemberIds` ("Filter bookings by team member user ids. Multiple ids
  // can be separated by a comma", each an integer, "teamMemberIds must contain at least 1 id") and
  // `teamMemberEmails` (comma-separated, trimmed, "teamMemberEmails must contain at least 1 email"); its
  // e2e spec expects every booking listed to have that member among its hosts.
  test('teamMemberIds and teamMemberEmails keep the bookings those members host, as organizer or co-host', async () => {
    const emailOf = async (who: Member) => (await api.request('GET', '/v2/me', { key: who.apiKey })).body.data.email as string;
    assert.deepEqual(uidsOf(await list(`?teamMemberIds=${member.user.id}`)), named('upcoming', 'unconfirmed', 'managed'));
    assert.deepEqual(uidsOf(await list(`?teamMemberIds=${admin.user.id},${owner.user.id}`)), named('past', 'cancelled', 'unconfirmed', 'recurring'));
    assert.deepEqual(uidsOf(await list(`?teamMemberEmails=${encodeURIComponent(` ${(await emailOf(admin)).toUpperCase()} `)}`)), named('past', 'recurring'));
    // Both name members: a booking any of them hosts.
    assert.deepEqual(uidsOf(await list(`?teamMemberIds=${owner.user.id}&teamMemberEmails=${encodeURIComponent(await emailOf(admin))}`)), named('past', 'cancelled', 'unconfirmed', 'recurring'));
    assert.deepEqual(uidsOf(await list(`?teamMemberIds=${outsider.user.id}&status=upcoming`)), []);
    for (const query of ['?teamMemberIds=x', '?teamMemberIds=', '?teamMemberIds=1,2.5']) assertNamesField(await api.request('GET', path(query), { key: admin.apiKey }), 'teamMemberIds');
    assertNamesField(await api.request('GET', path('?teamMemberEmails=,%20,'), { key: admin.apiKey }), 'teamMemberEmails');
  });

  test('sorting by start, end and creation', async () => {
    assert.deepEqual(uidsOf(await list('?sortStart=desc')), named(...ALL).reverse());
    // The cancelled booking starts before the upcoming one and ends after it.
    assert.deepEqual(uidsOf(await list('?sortEnd=asc')), named('past', 'upcoming', 'cancelled', 'unconfirmed', 'managed', 'recurring'));
    assert.deepEqual(uidsOf(await list('?sortEnd=desc')), named('recurring', 'managed', 'unconfirmed', 'cancelled', 'upcoming', 'past'));
    assert.deepEqual(uidsOf(await list('?sortCreated=asc')), named('upcoming', 'managed', 'past', 'recurring', 'cancelled', 'unconfirmed'));
    assert.deepEqual(uidsOf(await list('?sortCreated=desc')), named('unconfirmed', 'cancelled', 'recurring', 'past', 'managed', 'upcoming'));
    assertNamesField(await api.request('GET', path('?sortStart=up'), { key: admin.apiKey }), 'sortStart');
  });

  test('paging: take 1-250, skip from 0', async () => {
    const page = await list('?take=2&skip=2');
    assert.deepEqual(uidsOf(page), named('upcoming', 'unconfirmed'));
    assert.deepEqual(page.pagination, { totalItems: 6, remainingItems: 2, returnedItems: 2, itemsPerPage: 2, currentPage: 2, totalPages: 3, hasNextPage: true, hasPreviousPage: true });
    const last = await list('?take=4&skip=4');
    assert.deepEqual(uidsOf(last), named('managed', 'recurring'));
    assert.equal(last.pagination.hasNextPage, false);
    assert.deepEqual(uidsOf(await list('?take=250&skip=6')), []);
    for (const query of ['?take=251', '?take=0']) assertNamesField(await api.request('GET', path(query), { key: admin.apiKey }), 'take');
    assertNamesField(await api.request('GET', path('?skip=-1'), { key: admin.apiKey }), 'skip');
  });

  test("the team's admins and owners only: members, outsiders and other teams' owners are refused", async () => {
    assertError(await api.request('GET', path(), { key: member.apiKey }), 403, 'ForbiddenException', /TEAM_ADMIN/);
    assertError(await api.request('GET', path(), { key: outsider.apiKey }), 403, 'ForbiddenException');
    assertError(await api.request('GET', path(), { key: otherOwner.apiKey }), 403, 'ForbiddenException');
    assertError(await api.request('GET', path('', otherTeam.id), { key: admin.apiKey }), 403, 'ForbiddenException');
    assertError(await api.request('GET', path()), 401, 'UnauthorizedException');
    // The other team's owner sees their own team's booking only.
    const other = await api.request('GET', path('', otherTeam.id), { key: otherOwner.apiKey });
    assert.deepEqual(uidsOf(other.body), named('otherTeam'));
    assert.equal((await api.request('GET', path(), { key: ADMIN_API_KEY })).status, 200);
    assertError(await api.request('GET', path('', 999_999), { key: ADMIN_API_KEY }), 404, 'NotFoundException');
  });

  test('GET /v2/bookings lists a booking to every host of it, not only its organizer', async () => {
    const response = await api.request('GET', '/v2/bookings?sortStart=asc', { key: member.apiKey, version: BOOKINGS_VERSION });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(uidsOf(response.body), named('upcoming', 'personal', 'unconfirmed', 'managed'));
    const outsiders = await api.request('GET', '/v2/bookings', { key: outsider.apiKey, version: BOOKINGS_VERSION });
    assert.deepEqual(uidsOf(outsiders.body), []);
  });
});
