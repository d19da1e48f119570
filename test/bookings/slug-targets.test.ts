// POST /v2/bookings by slugs. The reference's bookings service finds the team of `teamSlug` inside the
// organization of `organizationSlug` when one is sent (getBookedEventTypeTeam: findOrgBySlug, else 404
// "slots-input.service.ts: Organization with slug ${organizationSlug} not found"; then
// findOrgTeamBySlug), else among teams outside any organization, and answers 404 "Team with slug
// ${teamSlug} not found" when there is none; its errors service names the event type that is missing
// ("Event type with slug ... belonging to team ... within organization ... not found."). Its team-bookings
// e2e spec books an organization team's event type with all three ("should book using teamSlug and
// eventTypeSlug and organizationSlug") and expects 404 without organizationSlug. A user's event type
// within an organization is found by their username there (usersRepository.findByUsername(username,
// organizationSlug), else 404 "User with username ${username} not found"), and the slots input service
// finds the same (getOrganizationUserByUsername).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, createEventType, createHost, getSlots, type Host, startsOf } from '../slots/helpers.js';
import { createTeamWithEventType } from '../support/team-scheduling.js';
import { acceptMembership, createOrganization } from '../support/tenancy.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';
import { book, booked } from './helpers.js';

// 2027-03-01 is a Monday: London hosts work 09:00-17:00Z.
const MONDAY = '2027-03-01';

describe(`POST /v2/bookings by slugs (${backend})`, () => {
  let api: TestApp;
  let organization: { id: number; slug: string };
  let orgTeam: { id: number; slug: string };
  let host: Host;
  const eventTypeSlug = 'org-panel';

  before(async () => {
    api = await createTestApp();
    const made = await createOrganization(api);
    organization = made.organization;
    host = await createHost(api, 'Europe/London', { name: 'Olga Org' });
    const joined = await api.request('POST', `/v2/organizations/${organization.id}/memberships`, { key: made.owner.apiKey, body: { userId: host.userId, role: 'MEMBER', accepted: true } });
    assert.equal(joined.status, 201, joined.text);
    if (!joined.body.data.accepted) await acceptMembership(api, { user: { id: host.userId, email: '', username: host.username }, apiKey: host.apiKey }, `/v2/organizations/${organization.id}/memberships/${joined.body.data.id}`);
    const team = await api.request('POST', `/v2/organizations/${organization.id}/teams`, { key: made.owner.apiKey, body: { name: `Org Panel Team ${process.pid}` } });
    assert.equal(team.status, 201, team.text);
    orgTeam = team.body.data;
    const member = await api.request('POST', `/v2/organizations/${organization.id}/teams/${orgTeam.id}/memberships`, { key: made.owner.apiKey, body: { userId: host.userId, accepted: true } });
    assert.equal(member.status, 201, member.text);
    const eventType = await api.request('POST', `/v2/organizations/${organization.id}/teams/${orgTeam.id}/event-types`, {
      key: made.owner.apiKey,
      body: { title: 'Org panel', slug: eventTypeSlug, lengthInMinutes: 30, minimumBookingNotice: 0, schedulingType: 'collective', hosts: [{ userId: host.userId }] },
    });
    assert.equal(eventType.status, 201, eventType.text);
  });
  after(() => api.close());

  test("an organization team's event type is booked with teamSlug, eventTypeSlug and organizationSlug", async () => {
    const created = await booked(api, { teamSlug: orgTeam.slug, eventTypeSlug, organizationSlug: organization.slug, start: `${MONDAY}T10:00:00Z` });
    assert.deepEqual(created.hosts.map((each: any) => each.id), [host.userId]);
    assert.equal(created.eventType.slug, eventTypeSlug);
  });

  test("a member's own event type is booked and listed with username, eventTypeSlug and organizationSlug", async () => {
    const personal = await createEventType(api, host, { slug: 'olga-call', lengthInMinutes: 30 });
    const target = { username: host.username, eventTypeSlug: personal.slug, organizationSlug: organization.slug };
    const slots = await getSlots(api, { ...target, start: MONDAY, end: MONDAY, timeZone: 'UTC' });
    assert.equal(slots.status, 200, slots.text);
    assert.ok(startsOf(slots.body.data).includes(`${MONDAY}T12:00:00.000Z`), slots.text);
    const created = await booked(api, { ...target, start: `${MONDAY}T12:00:00Z` });
    assert.equal(created.eventType.id, personal.id);
    assertError(await book(api, { ...target, username: 'nobody-here', start: `${MONDAY}T12:30:00Z` }), 404, 'NotFoundException', 'User with username nobody-here not found');
    assertError(
      await book(api, { ...target, eventTypeSlug: 'no-such-type', start: `${MONDAY}T12:30:00Z` }),
      404,
      'NotFoundException',
      `Event type with slug no-such-type belonging to user ${host.username} within organization ${organization.slug} not found.`,
    );
    const outsider = await createHost(api, 'Europe/London');
    const outsiderType = await createEventType(api, outsider, { slug: 'outside-call' });
    assertError(await book(api, { username: outsider.username, eventTypeSlug: outsiderType.slug, organizationSlug: organization.slug, start: `${MONDAY}T12:30:00Z` }), 404, 'NotFoundException', `User with username ${outsider.username} not found`);
    assertError(await getSlots(api, { ...target, organizationSlug: 'no-such-org', start: MONDAY, end: MONDAY }), 404, 'NotFoundException', 'slots-input.service.ts: Organization with slug no-such-org not found');
  });

  test('without organizationSlug the team is looked for outside organizations: 404', async () => {
    assertError(await book(api, { teamSlug: orgTeam.slug, eventTypeSlug, start: `${MONDAY}T11:00:00Z` }), 404, 'NotFoundException', `Team with slug ${orgTeam.slug} not found`);
  });

  test('an unknown organization, team or event type answers the reference\'s 404s', async () => {
    assertError(
      await book(api, { teamSlug: orgTeam.slug, eventTypeSlug, organizationSlug: 'no-such-org', start: `${MONDAY}T11:00:00Z` }),
      404,
      'NotFoundException',
      'slots-input.service.ts: Organization with slug no-such-org not found',
    );
    assertError(
      await book(api, { teamSlug: 'no-such-team', eventTypeSlug, organizationSlug: organization.slug, start: `${MONDAY}T11:00:00Z` }),
      404,
      'NotFoundException',
      'Team with slug no-such-team not found',
    );
    assertError(
      await book(api, { teamSlug: orgTeam.slug, eventTypeSlug: 'no-such-type', organizationSlug: organization.slug, start: `${MONDAY}T11:00:00Z` }),
      404,
      'NotFoundException',
      `Event type with slug no-such-type belonging to team ${orgTeam.slug} within organization ${organization.slug} not found.`,
    );
    const standalone = await createTeamWithEventType(api, [await createHost(api, 'Europe/London')], { title: 'Solo', lengthInMinutes: 30, schedulingType: 'collective' });
    assertError(
      await book(api, { teamSlug: standalone.team.slug, eventTypeSlug: 'no-such-type', start: `${MONDAY}T11:00:00Z` }),
      404,
      'NotFoundException',
      `Event type with slug no-such-type belonging to team ${standalone.team.slug} not found.`,
    );
  });
});
