// GET /v2/bookings and teams. The reference's DTO (packages/platform/types/bookings/2024-08-13/inputs/
// get-bookings.input.ts) takes `teamsIds` ("Filter bookings by team ids that user is part of", comma
// separated) and `teamId`; its input service passes `teamIds: queryParams.teamsIds || (queryParams.teamId
// ? [queryParams.teamId] : undefined)`, and its handler (getBookings, "6. ... If Current user is
// TEAM_OWNER/ADMIN, get bookings created for an event type within the team") lists, beside the caller's
// own bookings, those of the event types (and their managed copies) of every team where the caller is
// ADMIN or OWNER, within their organization when they have one (`...(user.orgId && { OR: [{ teamId:
// user.orgId }, { team: { parentId: user.orgId } }] })`). The teams filter keeps the bookings of the
// teams' event types (getEventTypeIdsFromTeamIdsFilter: direct and managed copies).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertNamesField } from '../slots/helpers.js';
import { insertEventType, insertTeamBooking } from '../support/team-bookings.js';
import { addTeamMember, createMember, createOrganization, createOrgMember, createTeam, type Member } from '../support/tenancy.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';
import { BOOKINGS_VERSION } from './helpers.js';

describe(`GET /v2/bookings: teams (${backend})`, () => {
  let api: TestApp;
  const now = Date.parse('2030-01-10T12:00:00Z');
  let owner: Member;
  let admin: Member;
  let member: Member;
  let host: Member;
  let otherOwner: Member;
  let team: { id: number };
  let otherTeam: { id: number };
  let orgAdmin: Member & { membershipId: number };
  const uids: Record<string, string> = {};

  const list = async (key: string, query = '') => {
    const response = await api.request('GET', `/v2/bookings${query}`, { key, version: BOOKINGS_VERSION });
    assert.equal(response.status, 200, response.text);
    return response.body.data.map((booking: any) => booking.uid).sort();
  };
  const named = (...names: string[]) => names.map((name) => uids[name]).sort();

  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    [owner, admin, member, host, otherOwner] = [await createMember(api), await createMember(api), await createMember(api), await createMember(api), await createMember(api)];
    team = await createTeam(api, owner);
    await addTeamMember(api, owner.apiKey, team.id, admin, 'ADMIN');
    await addTeamMember(api, owner.apiKey, team.id, member, 'MEMBER');
    await addTeamMember(api, owner.apiKey, team.id, host, 'MEMBER');
    otherTeam = await createTeam(api, otherOwner);
    await addTeamMember(api, otherOwner.apiKey, otherTeam.id, member, 'MEMBER');
    // An organization member who is also the ADMIN of a standalone team outside it.
    const { organization, owner: orgOwner } = await createOrganization(api);
    orgAdmin = await createOrgMember(api, organization.id, orgOwner.apiKey, 'MEMBER');
    await addTeamMember(api, otherOwner.apiKey, otherTeam.id, orgAdmin, 'ADMIN');

    const collective = await insertEventType(api, { teamId: team.id, schedulingType: 'collective' });
    const managed = await insertEventType(api, { teamId: team.id, schedulingType: 'managed' });
    const copy = await insertEventType(api, { userId: host.user.id, parentId: managed.id, slug: managed.slug });
    const other = await insertEventType(api, { teamId: otherTeam.id });
    const personal = await insertEventType(api, { userId: member.user.id });
    const adminPersonal = await insertEventType(api, { userId: admin.user.id });
    const book = async (name: string, fixture: Parameters<typeof insertTeamBooking>[1]) => {
      uids[name] = (await insertTeamBooking(api, fixture)).uid;
    };
    await book('team', { organizerId: host.user.id, eventTypeId: collective.id, start: '2030-01-12T10:00:00Z' });
    await book('copy', { organizerId: host.user.id, eventTypeId: copy.id, start: '2030-01-13T10:00:00Z' });
    await book('other', { organizerId: member.user.id, eventTypeId: other.id, start: '2030-01-14T10:00:00Z' });
    await book('memberPersonal', { organizerId: member.user.id, eventTypeId: personal.id, start: '2030-01-15T10:00:00Z' });
    await book('adminPersonal', { organizerId: admin.user.id, eventTypeId: adminPersonal.id, start: '2030-01-16T10:00:00Z' });
  });
  after(() => api.close());

  test("a team's ADMIN and OWNER also see the bookings of its event types and their managed copies; a MEMBER does not", async () => {
    assert.deepEqual(await list(admin.apiKey), named('team', 'copy', 'adminPersonal'));
    assert.deepEqual(await list(owner.apiKey), named('team', 'copy'));
    assert.deepEqual(await list(member.apiKey), named('other', 'memberPersonal'));
    assert.deepEqual(await list(host.apiKey), named('team', 'copy'));
    // The other team's owner sees its bookings, not those its members make elsewhere.
    assert.deepEqual(await list(otherOwner.apiKey), named('other'));
  });

  test("with an organization profile, only teams of that organization count", async () => {
    assert.deepEqual(await list(orgAdmin.apiKey), []);
  });

  test('teamId and teamsIds keep the bookings of those teams\' event types; teamsIds wins over teamId', async () => {
    assert.deepEqual(await list(admin.apiKey, `?teamId=${team.id}`), named('team', 'copy'));
    assert.deepEqual(await list(member.apiKey, `?teamId=${otherTeam.id}`), named('other'));
    assert.deepEqual(await list(member.apiKey, `?teamsIds=${team.id},${otherTeam.id}`), named('other'));
    assert.deepEqual(await list(member.apiKey, `?teamsIds=${otherTeam.id}&teamId=${team.id}`), named('other'));
    assert.deepEqual(await list(member.apiKey, `?teamId=${team.id}`), []);
    assert.deepEqual(await list(admin.apiKey, `?teamsIds=${otherTeam.id}`), []);
  });

  test("the team-bookings e2e spec's unknown event type: teamId with eventTypeId=90909 is a 400", async () => {
    const response = await api.request('GET', `/v2/bookings?teamId=${team.id}&eventTypeId=90909`, { key: admin.apiKey, version: BOOKINGS_VERSION });
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body.error.message, 'The requested event-types do not exist.');
  });

  test('malformed team ids are a 400 naming the parameter', async () => {
    for (const [query, field] of [
      ['?teamsIds=abc', 'teamsIds'],
      ['?teamsIds=', 'teamsIds'],
      ['?teamId=0', 'teamId'],
      ['?teamId=x', 'teamId'],
    ] as const) {
      assertNamesField(await api.request('GET', `/v2/bookings${query}`, { key: admin.apiKey, version: BOOKINGS_VERSION }), field);
    }
  });
});
