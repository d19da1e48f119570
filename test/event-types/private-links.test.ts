// Private links of personal and organization-team event types: managing them (shapes, rules, who may),
// how they are stored, and using them to list slots of and book an event type, hidden or not, with
// their expiry and usage budget enforced inside the booking's transaction.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { sha256Hex } from '../../src/lib/crypto.js';
import { book, booked } from '../bookings/helpers.js';
import { assertError, createEventType, createHost, getSlots, type Host, slotsOf, startsOf } from '../slots/helpers.js';
import { createOrganization, createOrgMember } from '../support/tenancy.js';
import { backend, createTestApp, type ApiResponse, type TestApp } from '../support/test-app.js';
import { assertNamesField } from './helpers.js';

// 2030-01-07 is a Monday: hosts made by createHost work 09:00-17:00 there.
const MONDAY = '2030-01-07';
const day = { start: MONDAY, end: MONDAY, timeZone: 'UTC' };
const HOURS = ['09', '10', '11', '12', '13', '14', '15', '16'].map((hour) => `${MONDAY}T${hour}:00:00.000Z`);
const REFUSED = /expired, has been used up, or is not a link of this event type/;

describe(`private links (${backend})`, () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  const linksOf = (eventTypeId: number) => `/v2/event-types/${eventTypeId}/private-links`;
  const expectData = (response: ApiResponse, status: number) => {
    assert.equal(response.status, status, response.text);
    return response.body.data;
  };
  const createLink = async (host: Host, eventTypeId: number, body: Record<string, unknown>) =>
    expectData(await api.request('POST', linksOf(eventTypeId), { key: host.apiKey, body }), 201);
  const listLinks = async (host: Host, eventTypeId: number) => expectData(await api.request('GET', linksOf(eventTypeId), { key: host.apiKey }), 200);
  const rows = async <T>(query: ReturnType<typeof sql>) => ((await api.runtime.ctx.database.db.execute(query)) as unknown as { rows: T[] }).rows;

  describe('managing the links of your event type', () => {
    test('a usage-based and a time-based link answer the reference\'s two shapes; GET lists them oldest first', async () => {
      const host = await createHost(api, 'UTC');
      const eventType = await createEventType(api, host, { hidden: true });
      const usage = await createLink(host, eventType.id, { maxUsageCount: 3 });
      assert.deepEqual(Object.keys(usage).sort(), ['bookingUrl', 'eventTypeId', 'isExpired', 'linkId', 'maxUsageCount', 'usageCount']);
      assert.match(usage.linkId, /^[A-Za-z0-9_-]{22}$/);
      assert.deepEqual({ ...usage, linkId: 'x' }, { linkId: 'x', eventTypeId: eventType.id, isExpired: false, bookingUrl: `${api.config.appUrl}/d/${usage.linkId}/${eventType.slug}`, maxUsageCount: 3, usageCount: 0 });

      const timed = await createLink(host, eventType.id, { expiresAt: '2031-06-30T12:00:00+02:00' });
      assert.deepEqual(Object.keys(timed).sort(), ['bookingUrl', 'eventTypeId', 'expiresAt', 'isExpired', 'linkId']);
      assert.equal(timed.expiresAt, '2031-06-30T10:00:00.000Z');
      assert.equal(timed.isExpired, false);
      assert.notEqual(timed.linkId, usage.linkId);

      const past = await createLink(host, eventType.id, { expiresAt: '2020-01-01T00:00:00Z', maxUsageCount: null });
      assert.equal(past.isExpired, true, 'a link may be made already expired, as in the reference');

      assert.deepEqual(await listLinks(host, eventType.id), [usage, timed, past]);
    });

    test('exactly one of expiresAt and maxUsageCount (the reference\'s messages); bad values name their field', async () => {
      const host = await createHost(api, 'UTC');
      const eventType = await createEventType(api, host);
      const post = (body: unknown) => api.request('POST', linksOf(eventType.id), { key: host.apiKey, body });
      assertError(await post({}), 400, 'BadRequestException', 'Either expiresAt or maxUsageCount must be provided');
      assertError(await post({ expiresAt: null, maxUsageCount: null }), 400, 'BadRequestException', 'Either expiresAt or maxUsageCount must be provided');
      assertError(await post({ expiresAt: '2031-01-01T00:00:00Z', maxUsageCount: 2 }), 400, 'BadRequestException', 'Provide only one of expiresAt or maxUsageCount');
      assertNamesField(await post({ maxUsageCount: 0 }), 'maxUsageCount', 'maxUsageCount 0');
      assertNamesField(await post({ maxUsageCount: 1.5 }), 'maxUsageCount', 'maxUsageCount 1.5');
      assertNamesField(await post({ expiresAt: 'next tuesday' }), 'expiresAt', 'expiresAt not a date');
      assert.deepEqual(await listLinks(host, eventType.id), [], 'nothing refused was stored');
    });

    test('PATCH: expiresAt makes a link time-based, maxUsageCount usage-based (keeping its uses), neither changes nothing; DELETE answers the reference\'s message', async () => {
      const host = await createHost(api, 'UTC');
      const eventType = await createEventType(api, host, { minimumBookingNotice: 0 });
      const link = await createLink(host, eventType.id, { maxUsageCount: 5 });
      await booked(api, { eventTypeId: eventType.id, start: HOURS[0], privateLinkId: link.linkId });
      const patch = (body: unknown, linkId = link.linkId) => api.request('PATCH', `${linksOf(eventType.id)}/${linkId}`, { key: host.apiKey, body });

      assert.deepEqual(expectData(await patch({ maxUsageCount: 10 }), 200), { ...link, maxUsageCount: 10, usageCount: 1 });
      assert.deepEqual(expectData(await patch({}), 200), { ...link, maxUsageCount: 10, usageCount: 1 });
      const timed = expectData(await patch({ expiresAt: '2032-01-01T00:00:00Z' }), 200);
      assert.deepEqual(timed, { linkId: link.linkId, eventTypeId: eventType.id, isExpired: false, bookingUrl: link.bookingUrl, expiresAt: '2032-01-01T00:00:00.000Z' });
      assert.deepEqual(expectData(await patch({ maxUsageCount: 1 }), 200), { ...link, maxUsageCount: 1, usageCount: 1, isExpired: true }, 'back to usage-based: the use made before counts');
      assertError(await patch({ expiresAt: '2032-01-01T00:00:00Z', maxUsageCount: 3 }), 400, 'BadRequestException', 'Provide only one of expiresAt or maxUsageCount');
      assertError(await patch({ maxUsageCount: 3 }, 'not-a-link'), 404, 'NotFoundException', 'Updated link not found');

      const deleted = await api.request('DELETE', `${linksOf(eventType.id)}/${link.linkId}`, { key: host.apiKey });
      assert.deepEqual(expectData(deleted, 200), { linkId: link.linkId, message: 'Private link deleted successfully' });
      assertError(await api.request('DELETE', `${linksOf(eventType.id)}/${link.linkId}`, { key: host.apiKey }), 404, 'NotFoundException', 'Deleted link not found');
      assertError(await patch({ maxUsageCount: 3 }), 404, 'NotFoundException', 'Updated link not found');
      assert.deepEqual(await listLinks(host, eventType.id), []);
    });

    test('the link is stored hashed for lookup and sealed to be shown again, never in clear', async () => {
      const host = await createHost(api, 'UTC');
      const eventType = await createEventType(api, host);
      const link = await createLink(host, eventType.id, { maxUsageCount: 2 });
      const stored = await rows<Record<string, unknown>>(sql`select * from event_type_private_links where event_type_id = ${eventType.id}`);
      assert.equal(stored.length, 1);
      assert.equal(stored[0]!.link_hash, sha256Hex(link.linkId));
      assert.equal(api.runtime.ctx.secrets.open(String(stored[0]!.link_sealed)), link.linkId);
      assert.ok(!JSON.stringify(stored[0]).includes(link.linkId), 'no column holds the link in clear');
    });

    test("another user's event type, a team's, or a link of another event type is a 404", async () => {
      const owner = await createHost(api, 'UTC');
      const stranger = await createHost(api, 'UTC');
      const eventType = await createEventType(api, owner);
      const mine = await createEventType(api, stranger);
      const link = await createLink(owner, eventType.id, { maxUsageCount: 2 });
      const notFound = `Event type with id ${eventType.id} not found`;
      assertError(await api.request('GET', linksOf(eventType.id), { key: stranger.apiKey }), 404, 'NotFoundException', notFound);
      assertError(await api.request('POST', linksOf(eventType.id), { key: stranger.apiKey, body: { maxUsageCount: 1 } }), 404, 'NotFoundException', notFound);
      assertError(await api.request('PATCH', `${linksOf(eventType.id)}/${link.linkId}`, { key: stranger.apiKey, body: { maxUsageCount: 9 } }), 404, 'NotFoundException', notFound);
      assertError(await api.request('DELETE', `${linksOf(eventType.id)}/${link.linkId}`, { key: stranger.apiKey }), 404, 'NotFoundException', notFound);
      // The owner's link through the stranger's own event type is no link of it.
      assertError(await api.request('DELETE', `${linksOf(mine.id)}/${link.linkId}`, { key: stranger.apiKey }), 404, 'NotFoundException', 'Deleted link not found');
      assertError(await api.request('GET', linksOf(999_999), { key: owner.apiKey }), 404, 'NotFoundException', 'Event type with id 999999 not found');
      assert.deepEqual((await listLinks(owner, eventType.id)).map((each: { maxUsageCount: number }) => each.maxUsageCount), [2], 'untouched');
    });
  });

  describe('using a link', () => {
    test('a link alone names its hidden event type in GET /v2/slots and POST /v2/bookings; each booking counts one use', async () => {
      const host = await createHost(api, 'UTC');
      const hidden = await createEventType(api, host, { hidden: true });
      const link = await createLink(host, hidden.id, { maxUsageCount: 2 });
      assert.deepEqual(startsOf(await slotsOf(api, { privateLinkId: link.linkId, ...day })), HOURS);

      const first = await booked(api, { start: HOURS[1], privateLinkId: link.linkId });
      assert.equal(first.eventTypeId, hidden.id);
      // With the event type named as well, the link must be one of its own.
      assert.deepEqual(startsOf(await slotsOf(api, { eventTypeId: hidden.id, privateLinkId: link.linkId, ...day })), HOURS.filter((hour) => hour !== HOURS[1]));
      await booked(api, { eventTypeId: hidden.id, start: HOURS[2], privateLinkId: link.linkId });
      const [listed] = await listLinks(host, hidden.id);
      assert.deepEqual([listed.usageCount, listed.isExpired], [2, true]);

      // Used up: both refuse it, and nothing more is counted.
      assertError(await getSlots(api, { privateLinkId: link.linkId, ...day }), 404, 'NotFoundException', REFUSED);
      const refused = await book(api, { start: HOURS[3], privateLinkId: link.linkId });
      assertError(refused, 404, 'NotFoundException', REFUSED);
      assert.equal(refused.body.error.details.reason, 'private_link_expired');
      assert.equal((await listLinks(host, hidden.id))[0].usageCount, 2);
    });

    test('an expired, unknown or foreign link is refused alike; a time-based link counts no uses', async () => {
      const host = await createHost(api, 'UTC');
      const eventType = await createEventType(api, host, { hidden: true });
      const other = await createEventType(api, host);
      const expired = await createLink(host, eventType.id, { expiresAt: '2020-01-01T00:00:00Z' });
      const live = await createLink(host, eventType.id, { expiresAt: '2099-01-01T00:00:00Z' });
      for (const privateLinkId of [expired.linkId, 'no-such-link']) {
        assertError(await getSlots(api, { privateLinkId, ...day }), 404, 'NotFoundException', REFUSED);
        assertError(await book(api, { start: HOURS[0], privateLinkId }), 404, 'NotFoundException', REFUSED);
      }
      assertError(await getSlots(api, { eventTypeId: other.id, privateLinkId: live.linkId, ...day }), 404, 'NotFoundException', REFUSED);
      assertError(await book(api, { eventTypeId: other.id, start: HOURS[0], privateLinkId: live.linkId }), 404, 'NotFoundException', REFUSED);

      await booked(api, { start: HOURS[0], privateLinkId: live.linkId });
      await booked(api, { start: HOURS[1], privateLinkId: live.linkId });
      const stored = await rows<{ usage_count: number }>(sql`select usage_count from event_type_private_links where event_type_id = ${eventType.id} order by id`);
      assert.deepEqual(stored.map((row) => Number(row.usage_count)), [0, 0]);
    });

    test('a booking that fails uses nothing; an Idempotency-Key replay counts once', async () => {
      const host = await createHost(api, 'UTC');
      const eventType = await createEventType(api, host, { hidden: true });
      const link = await createLink(host, eventType.id, { maxUsageCount: 1 });
      // 03:00 is outside the host's hours.
      assert.equal((await book(api, { start: `${MONDAY}T03:00:00Z`, privateLinkId: link.linkId })).status, 400);
      assert.equal((await listLinks(host, eventType.id))[0].usageCount, 0);

      const headers = { 'idempotency-key': `link-${link.linkId}` };
      const once = await booked(api, { start: HOURS[4], privateLinkId: link.linkId }, { headers });
      const replay = await book(api, { start: HOURS[4], privateLinkId: link.linkId }, { headers });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.body.data.uid, once.uid);
      assert.equal((await listLinks(host, eventType.id))[0].usageCount, 1);
    });

    test('without a link a hidden event type stays out of public lists, and is bookable by id as in the reference', async () => {
      const host = await createHost(api, 'UTC');
      const hidden = await createEventType(api, host, { hidden: true });
      const listed = await api.request('GET', `/v2/event-types?username=${host.username}`, { version: '2024-06-14' });
      assert.deepEqual(expectData(listed, 200), []);
      assert.deepEqual(startsOf(await slotsOf(api, { eventTypeId: hidden.id, ...day })), HOURS);
    });

    test('a slots query with neither an event type nor a link names eventTypeId', async () => {
      const response = await getSlots(api, day);
      assertNamesField(response, 'eventTypeId', 'no target');
      assert.match(response.body.error.message, /privateLinkId/);
    });

    test('two concurrent bookings through the last use of a link: exactly one wins', { skip: backend !== 'postgres' && 'PGlite is a single session' }, async () => {
      const host = await createHost(api, 'UTC');
      const eventType = await createEventType(api, host, { hidden: true });
      for (let round = 0; round < 3; round++) {
        const link = await createLink(host, eventType.id, { maxUsageCount: 1 });
        const [a, b] = await Promise.all([
          book(api, { start: HOURS[2 * round]!, privateLinkId: link.linkId }),
          book(api, { start: HOURS[2 * round + 1]!, privateLinkId: link.linkId }),
        ]);
        assert.deepEqual([a.status, b.status].sort(), [201, 404], `${a.text} / ${b.text}`);
        const loser = a.status === 404 ? a : b;
        assert.equal(loser.body.error.details.reason, 'private_link_expired');
        const usage = await rows<{ usage_count: number }>(sql`select usage_count from event_type_private_links where link_hash = ${sha256Hex(link.linkId)}`);
        assert.equal(Number(usage[0]!.usage_count), 1);
      }
      const bookings = await rows<{ n: number }>(sql`select count(*)::int as n from bookings where event_type_id = ${eventType.id}`);
      assert.equal(Number(bookings[0]!.n), 3);
    });
  });

  describe('links of an organization team\'s event types', () => {
    test("the team's admins manage them; a member, another organization's admin, or another team's event type is refused; the link books the team event type", async () => {
      const { organization, owner } = await createOrganization(api);
      const orgId = organization.id;
      const team = expectData(await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: `Links ${Date.now()}` } }), 201);
      const otherTeam = expectData(await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: `Other ${Date.now()}` } }), 201);
      const teamAdmin = await createOrgMember(api, orgId, owner.apiKey);
      const teamMember = await createOrgMember(api, orgId, owner.apiKey);
      const host = await createHost(api, 'UTC');
      const invited = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey, body: { userId: host.userId, role: 'MEMBER', accepted: true } });
      expectData(await api.request('POST', `/v2/organizations/${orgId}/memberships/${invited.body.data.id}/accept`, { key: host.apiKey }), 200);
      for (const [member, role] of [[teamAdmin.user.id, 'ADMIN'], [teamMember.user.id, 'MEMBER'], [host.userId, 'MEMBER']] as const) {
        expectData(await api.request('POST', `/v2/organizations/${orgId}/teams/${team.id}/memberships`, { key: owner.apiKey, body: { userId: member, role, accepted: true } }), 201);
      }
      const base = `/v2/organizations/${orgId}/teams/${team.id}/event-types`;
      const eventType = expectData(
        await api.request('POST', base, { key: owner.apiKey, body: { title: 'Team call', slug: `team-call-${Date.now()}`, lengthInMinutes: 60, minimumBookingNotice: 0, hidden: true, schedulingType: 'collective', hosts: [{ userId: host.userId }] } }),
        201,
      );
      const otherEventType = expectData(
        await api.request('POST', `/v2/organizations/${orgId}/teams/${otherTeam.id}/event-types`, { key: owner.apiKey, body: { title: 'Other call', slug: `other-${Date.now()}`, lengthInMinutes: 60, schedulingType: 'collective', assignAllTeamMembers: true } }),
        201,
      );
      const links = `${base}/${eventType.id}/private-links`;

      const link = expectData(await api.request('POST', links, { key: teamAdmin.apiKey, body: { maxUsageCount: 1 } }), 201);
      assert.deepEqual({ ...link, linkId: 'x' }, { linkId: 'x', eventTypeId: eventType.id, isExpired: false, bookingUrl: `${api.config.appUrl}/d/${link.linkId}/${eventType.slug}`, maxUsageCount: 1, usageCount: 0 });
      assert.deepEqual(expectData(await api.request('GET', links, { key: owner.apiKey }), 200), [link], "the organization's owner sees it too");

      const other = await createOrganization(api);
      for (const [key, who] of [[teamMember.apiKey, 'team member'], [other.owner.apiKey, "another organization's owner"], [host.apiKey, 'host']] as const) {
        assert.equal((await api.request('GET', links, { key })).status, 403, who);
        assert.equal((await api.request('POST', links, { key, body: { maxUsageCount: 1 } })).status, 403, who);
        assert.equal((await api.request('DELETE', `${links}/${link.linkId}`, { key })).status, 403, who);
      }
      // Another team's event type under this team's path, and a personal one.
      assertError(await api.request('GET', `${base}/${otherEventType.id}/private-links`, { key: teamAdmin.apiKey }), 404, 'NotFoundException', `Event type with id ${otherEventType.id} not found`);
      const personal = await createEventType(api, host);
      assertError(await api.request('POST', `${base}/${personal.id}/private-links`, { key: owner.apiKey, body: { maxUsageCount: 1 } }), 404, 'NotFoundException');
      // The host cannot reach the team's link through the personal route either.
      assertError(await api.request('GET', linksOf(eventType.id), { key: host.apiKey }), 404, 'NotFoundException');

      assert.deepEqual(startsOf(await slotsOf(api, { privateLinkId: link.linkId, ...day })), HOURS);
      const booking = await booked(api, { start: HOURS[5], privateLinkId: link.linkId });
      assert.equal(booking.eventTypeId, eventType.id);
      assert.equal(booking.hosts[0].id, host.userId);
      assertError(await book(api, { start: HOURS[6], privateLinkId: link.linkId }), 404, 'NotFoundException', REFUSED);

      const patched = expectData(await api.request('PATCH', `${links}/${link.linkId}`, { key: teamAdmin.apiKey, body: { maxUsageCount: 2 } }), 200);
      assert.deepEqual([patched.usageCount, patched.isExpired], [1, false]);
      assert.deepEqual(expectData(await api.request('DELETE', `${links}/${link.linkId}`, { key: teamAdmin.apiKey }), 200), { linkId: link.linkId, message: 'Private link deleted successfully' });
      assertError(await getSlots(api, { privateLinkId: link.linkId, ...day }), 404, 'NotFoundException', REFUSED);
    });
  });
});
