import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';
import { insertTeamBooking } from '../support/team-bookings.js';
import { createTeamEventType, createTeamWithEventType, createTeamWithHosts } from '../support/team-scheduling.js';
import { createEventType, createHost, type Host, slotsOf, startsOf } from '../slots/helpers.js';
import { startReceiver } from '../webhooks/helpers.js';
import { book, booked, BOOKINGS_VERSION, getBooking } from './helpers.js';

const NO_PERMISSION = 'You do not have permission to reassign this booking';
const NO_OTHER_HOST = "Can't reassign the booking because no other host is available at that time.";
// 2027-03-01 is a Monday; London is on +00:00 then, so its hosts work 09:00-17:00Z.
const MONDAY = '2027-03-01';
const day = (date: string) => ({ start: date, end: date, timeZone: 'UTC' });

describe(`booking reassignment (${backend})`, () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  const londoner = (name: string) => createHost(api, 'Europe/London', { name });
  const teamWith = (members: Host[]) => createTeamWithHosts(api, members);

  const roundRobin = (members: Host[], hosts: Record<string, unknown>[], fields: Record<string, unknown> = {}) =>
    createTeamWithEventType(api, members, { title: 'Support', lengthInMinutes: 60, schedulingType: 'roundRobin', hosts, ...fields });

  const reassign = (uid: string, key: string | undefined, options: { userId?: number; body?: unknown; version?: string | null } = {}) =>
    api.request('POST', `/v2/bookings/${uid}/reassign${options.userId === undefined ? '' : `/${options.userId}`}`, {
      ...(options.version === null ? {} : { version: options.version ?? BOOKINGS_VERSION }),
      ...(key ? { key } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
    });

  const rows = async <T>(query: ReturnType<typeof sql>) => ((await api.runtime.ctx.database.db.execute(query)) as unknown as { rows: T[] }).rows;
  const hostsOfBooking = async (uid: string) =>
    (await rows<{ user_id: number }>(sql`select bh.user_id from booking_hosts bh join bookings b on b.id = bh.booking_id where b.uid = ${uid} order by bh.user_id`)).map((row) => row.user_id);
  const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
  const offers = async (eventTypeId: number, start: string) => startsOf(await slotsOf(api, { eventTypeId, ...day(start.slice(0, 10)) })).includes(new Date(start).toISOString());

  test('automatic: the free host ranked first takes the booking; the attendee sees them; slots follow', async () => {
    const first = await londoner('Ann First');
    const second = await londoner('Ben Second');
    // A managed user's address, as the reference stores it (`+` and the OAuth client's 25-character id).
    const clientTag = `c${Math.random().toString(36).slice(2, 10).padEnd(24, '0')}`;
    const third = await createHost(api, 'Europe/London', { name: 'Cat Third', email: `cat.third+${clientTag}@example.com` });
    const { eventType } = await roundRobin([first, second, third], [{ userId: first.userId }, { userId: second.userId }, { userId: third.userId }]);
    const start = `${MONDAY}T10:00:00Z`;
    // Second is busy at 10:00 with a booking of their own.
    const secondPersonal = await createEventType(api, second);
    await booked(api, { eventTypeId: secondPersonal.id, start, attendee: { name: 'Private', email: 'private@example.com', timeZone: 'UTC' } });
    const booking = await booked(api, { eventTypeId: eventType.id, start });
    assert.equal(booking.hosts[0].id, first.userId, 'equal hosts, none booked: the first given');
    assert.equal(booking.title, 'Support between Ann First and Bob Booker');
    const firstPersonal = await createEventType(api, first);
    const thirdPersonal = await createEventType(api, third);
    assert.equal(await offers(firstPersonal.id, start), false);
    assert.equal(await offers(thirdPersonal.id, start), true);

    const response = await reassign(booking.uid, first.apiKey);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, {
      status: 'success',
      // ReassignBookingOutput_2024_08_13's ReassignedToDto: `displayEmail` ("Clean email for display
      // purposes"), the output service's getDisplayEmail: the email without `+` and a 25-character client id.
      data: { bookingUid: booking.uid, reassignedTo: { id: third.userId, name: 'Cat Third', email: `cat.third+${clientTag}@example.com`, displayEmail: 'cat.third@example.com' } },
    });

    // The attendee (anyone holding the uid) sees the new host; the booking keeps its uid and time.
    const seen = await getBooking(api, booking.uid);
    assert.equal(seen.status, 200, seen.text);
    assert.deepEqual(seen.body.data.hosts.map((host: { id: number }) => host.id), [third.userId]);
    assert.equal(seen.body.data.start, booking.start);
    assert.equal(seen.body.data.status, 'accepted');
    assert.equal(seen.body.data.title, 'Support between Cat Third and Bob Booker');
    assert.deepEqual(await hostsOfBooking(booking.uid), [third.userId]);
    // The old host's hour is free again, the new host's is taken.
    assert.equal(await offers(firstPersonal.id, start), true);
    assert.equal(await offers(thirdPersonal.id, start), false);

    // Once more: second is still busy, so it goes back to first, then to third again.
    const again = await reassign(booking.uid, third.apiKey);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.reassignedTo.id, first.userId);
    const back = await reassign(booking.uid, first.apiKey);
    assert.equal(back.body.data.reassignedTo.id, third.userId, back.text);
  });

  test('automatic: priority ranks as for a new booking; 400 when no other host is free', async () => {
    const low = await londoner('Lou Low');
    const high = await londoner('Hal High');
    const holder = await londoner('Hol Holder');
    const { eventType } = await roundRobin(
      [low, high, holder],
      [{ userId: holder.userId, priority: 'highest' }, { userId: low.userId, priority: 'low' }, { userId: high.userId, priority: 'high' }],
    );
    const booking = await booked(api, { eventTypeId: eventType.id, start: `${MONDAY}T11:00:00Z` });
    assert.equal(booking.hosts[0].id, holder.userId);
    const moved = await reassign(booking.uid, holder.apiKey);
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.data.reassignedTo.id, high.userId, 'higher priority first, the current host excluded');

    // A two-host type whose other host is busy then: nobody can take it.
    const busy = await londoner('Bea Busy');
    const only = await londoner('Oli Only');
    const pair = await roundRobin([busy, only], [{ userId: only.userId }, { userId: busy.userId }]);
    const start = `${MONDAY}T12:00:00Z`;
    await booked(api, { eventTypeId: (await createEventType(api, busy)).id, start, attendee: { name: 'Else', email: 'else@example.com', timeZone: 'UTC' } });
    const taken = await booked(api, { eventTypeId: pair.eventType.id, start });
    assert.equal(taken.hosts[0].id, only.userId);
    const refused = await reassign(taken.uid, only.apiKey);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.message, NO_OTHER_HOST);
    assert.equal(refused.body.error.details.reason, 'no_available_host');
    assert.deepEqual(await hostsOfBooking(taken.uid), [only.userId], 'nothing changed');
  });

  test('to a user: must be a free round-robin host; the reason and both hosts reach BOOKING_REASSIGNED subscribers', async (t) => {
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const first = await londoner('Ann First');
    const second = await londoner('Ben Second');
    const third = await londoner('Cat Third');
    const outsider = await londoner('Out Sider');
    const { owner, eventType } = await roundRobin([first, second, third], [{ userId: first.userId }, { userId: second.userId }, { userId: third.userId }]);
    const start = `${MONDAY}T13:00:00Z`;
    const secondPersonal = await createEventType(api, second);
    await booked(api, { eventTypeId: secondPersonal.id, start, attendee: { name: 'Private', email: 'private@example.com', timeZone: 'UTC' } });
    const booking = await booked(api, { eventTypeId: eventType.id, start });
    assert.equal(booking.hosts[0].id, first.userId);
    const subscribe = async (host: Host, path: string, triggers: string[]) => {
      const response = await api.request('POST', '/v2/webhooks', { key: host.apiKey, body: { subscriberUrl: `${receiver.url}/${path}`, active: true, triggers } });
      assert.equal(response.status, 201, response.text);
    };
    await subscribe(first, 'old-host', ['BOOKING_REASSIGNED']);
    await subscribe(third, 'new-host', ['BOOKING_REASSIGNED']);
    await subscribe(second, 'bystander', ['BOOKING_REASSIGNED']);
    await subscribe(third, 'created-only', ['BOOKING_CREATED']);

    const busy = await reassign(booking.uid, owner.apiKey, { userId: second.userId, body: { reason: 'x' } });
    assert.equal(busy.status, 400, busy.text);
    assert.equal(busy.body.error.details.reason, 'host_unavailable');
    assert.equal(busy.body.error.details.cause, 'booked');
    const notHost = await reassign(booking.uid, owner.apiKey, { userId: outsider.userId });
    assert.equal(notHost.status, 400, notHost.text);
    assert.equal(notHost.body.error.details.reason, 'invalid_round_robin_host');
    assert.match(notHost.body.error.message, new RegExp(`^User with id=${outsider.userId} is not a valid Round Robin host`));
    const unknown = await reassign(booking.uid, owner.apiKey, { userId: 2_000_000_000 });
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal(unknown.body.error.message, 'User with id=2000000000 was not found in the database');
    const badId = await reassign(booking.uid, owner.apiKey, { userId: 0 as never });
    assert.equal(badId.status, 400, badId.text);
    assert.deepEqual(await hostsOfBooking(booking.uid), [first.userId], 'no refusal changed anything');

    // The team's owner (not a host) hands it to third, with a reason.
    const moved = await reassign(booking.uid, owner.apiKey, { userId: third.userId, body: { reason: 'Ann is on leave' } });
    assert.equal(moved.status, 200, moved.text);
    const thirdEmail: string = moved.body.data.reassignedTo.email;
    assert.deepEqual(moved.body.data, { bookingUid: booking.uid, reassignedTo: { id: third.userId, name: 'Cat Third', email: thirdEmail, displayEmail: thirdEmail } });
    assert.deepEqual(await hostsOfBooking(booking.uid), [third.userId]);
    // The same user again: nothing to do.
    const same = await reassign(booking.uid, owner.apiKey, { userId: third.userId });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.body.data.reassignedTo.id, third.userId);

    const delivered = await receiver.waitFor(2, 10_000, (request) => request.url === '/hook/old-host' || request.url === '/hook/new-host');
    for (const request of delivered) {
      assert.equal(request.json.triggerEvent, 'BOOKING_REASSIGNED');
      const payload = request.json.payload;
      assert.equal(payload.uid, booking.uid);
      assert.equal(payload.organizer.id, third.userId);
      assert.equal(payload.startTime, new Date(start).toISOString());
      assert.deepEqual(payload.reassignedFrom, { id: first.userId, name: 'Ann First', email: payload.reassignedFrom.email });
      assert.equal(payload.reassignedTo.id, third.userId);
      assert.equal(payload.reassignReason, 'Ann is on leave');
      assert.equal(payload.attendees[0].name, 'Bob Booker');
    }
    assert.deepEqual(delivered.map((request) => request.url).sort(), ['/hook/new-host', '/hook/old-host']);
    // Exactly one reassignment happened; the bystander and a BOOKING_CREATED-only subscription hear nothing of it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(receiver.requests.filter((request) => request.url === '/hook/bystander' || request.url === '/hook/created-only').length, 0);
    assert.equal(receiver.requests.filter((request) => request.url === '/hook/new-host').length, 1);
  });

  test('with a fixed host: the round-robin co-host is replaced, the organizer stays; a fixed host cannot be chosen', async () => {
    const fixed = await londoner('Fay Fixed');
    const first = await londoner('Ann First');
    const second = await londoner('Ben Second');
    const { eventType } = await roundRobin([fixed, first, second], [{ userId: first.userId }, { userId: second.userId }, { userId: fixed.userId, mandatory: true }]);
    const start = `${MONDAY}T14:00:00Z`;
    const booking = await booked(api, { eventTypeId: eventType.id, start });
    assert.equal(booking.hosts[0].id, fixed.userId);
    assert.deepEqual(await hostsOfBooking(booking.uid), sorted([fixed.userId, first.userId]));
    const toFixed = await reassign(booking.uid, fixed.apiKey, { userId: fixed.userId });
    assert.equal(toFixed.status, 400, toFixed.text);
    assert.equal(toFixed.body.error.details.reason, 'fixed_host');

    const moved = await reassign(booking.uid, fixed.apiKey);
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.data.reassignedTo.id, second.userId);
    assert.deepEqual(await hostsOfBooking(booking.uid), sorted([fixed.userId, second.userId]));
    const seen = await getBooking(api, booking.uid);
    assert.equal(seen.body.data.hosts[0].id, fixed.userId, 'the organizer stays');
    assert.equal(seen.body.data.title, booking.title);
    assert.equal(await offers((await createEventType(api, second)).id, start), false, 'the new co-host is busy then');
    assert.equal(await offers((await createEventType(api, first)).id, start), true, 'the old one is free');
  });

  test('who may: the organizer, hosts, team admins; others 403; unknown uids 404; without the version header 404', async () => {
    const first = await londoner('Ann First');
    const second = await londoner('Ben Second');
    const member = await londoner('Meg Member');
    const stranger = await londoner('Sam Stranger');
    const { eventType } = await roundRobin([first, second, member], [{ userId: first.userId }, { userId: second.userId }]);
    const booking = await booked(api, { eventTypeId: eventType.id, start: `${MONDAY}T15:00:00Z` });
    for (const key of [stranger.apiKey, member.apiKey]) {
      for (const userId of [undefined, second.userId]) {
        const refused = await reassign(booking.uid, key, { userId });
        assert.equal(refused.status, 403, refused.text);
        assert.equal(refused.body.error.message, NO_PERMISSION);
      }
    }
    assert.equal((await reassign(booking.uid, undefined)).status, 401);
    const missing = await reassign('no-such-booking', first.apiKey);
    assert.equal(missing.status, 404, missing.text);
    assert.equal(missing.body.error.message, 'Booking with uid=no-such-booking was not found in the database');
    assert.equal((await reassign('no-such-booking', stranger.apiKey, { userId: second.userId })).status, 404);
    const unversioned = await reassign(booking.uid, first.apiKey, { version: null });
    assert.equal(unversioned.status, 404, unversioned.text);
    assert.equal(unversioned.body.error.details.reason, 'route_not_found');
    assert.deepEqual(await hostsOfBooking(booking.uid), [first.userId], 'no refusal changed anything');
    // A host who does not organize it may (as in the reference).
    const byHost = await reassign(booking.uid, second.apiKey, { userId: second.userId });
    assert.equal(byHost.status, 200, byHost.text);
    assert.deepEqual(await hostsOfBooking(booking.uid), [second.userId]);
  });

  test('only upcoming round-robin bookings: personal, collective, cancelled and started ones are refused', async () => {
    const first = await londoner('Ann First');
    const second = await londoner('Ben Second');
    const personal = await createEventType(api, first);
    const own = await booked(api, { eventTypeId: personal.id, start: `${MONDAY}T09:00:00Z` });
    const notRoundRobin = await reassign(own.uid, first.apiKey);
    assert.equal(notRoundRobin.status, 400, notRoundRobin.text);
    assert.equal(notRoundRobin.body.error.details.reason, 'booking_not_round_robin');

    const { owner, team } = await teamWith([first, second]);
    const collective = await createTeamEventType(api, owner.apiKey, team.id, {
      title: 'Panel', slug: 'panel', lengthInMinutes: 60, minimumBookingNotice: 0, schedulingType: 'collective', hosts: [{ userId: first.userId }, { userId: second.userId }],
    });
    const panel = await booked(api, { eventTypeId: collective.id, start: `${MONDAY}T10:00:00Z` });
    const refused = await reassign(panel.uid, owner.apiKey, { userId: second.userId });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.details.reason, 'booking_not_round_robin');

    const rr = await createTeamEventType(api, owner.apiKey, team.id, {
      title: 'Support', slug: 'support', lengthInMinutes: 60, minimumBookingNotice: 0, schedulingType: 'roundRobin', hosts: [{ userId: first.userId }, { userId: second.userId }],
    });
    const booking = await booked(api, { eventTypeId: rr.id, start: `${MONDAY}T11:00:00Z` });
    const cancelled = await api.request('POST', `/v2/bookings/${booking.uid}/cancel`, { version: BOOKINGS_VERSION, body: { cancellationReason: 'no' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    const afterCancel = await reassign(booking.uid, owner.apiKey);
    assert.equal(afterCancel.status, 400, afterCancel.text);
    assert.equal(afterCancel.body.error.details.reason, 'booking_cancelled');

    const started = await insertTeamBooking(api, { organizerId: first.userId, eventTypeId: rr.id, start: new Date(Date.now() - 10 * 60_000).toISOString(), minutes: 60 });
    const late = await reassign(started.uid, owner.apiKey);
    assert.equal(late.status, 400, late.text);
    assert.equal(late.body.error.details.reason, 'booking_started');
  });

  test('a reassignment racing a personal booking of the target host at the same time: exactly one wins', { skip: backend !== 'postgres' && 'races need PostgreSQL (PGlite is one session)' }, async () => {
    const first = await londoner('Ann First');
    const target = await londoner('Tom Target');
    const { owner, eventType } = await roundRobin([first, target], [{ userId: first.userId }, { userId: target.userId }]);
    const personal = await createEventType(api, target);
    for (const hour of [9, 10, 11, 12, 13, 14, 15, 16]) {
      const start = `2027-03-02T${String(hour).padStart(2, '0')}:00:00Z`;
      // Both hosts are free: the round-robin booking goes to the least recently booked, so make it first's explicitly.
      const booking = await booked(api, { eventTypeId: eventType.id, start });
      if (booking.hosts[0].id !== first.userId) {
        assert.equal((await reassign(booking.uid, owner.apiKey, { userId: first.userId })).status, 200);
      }
      // The personal booking leaves a little later each round, so that either may reach the locks first.
      const later = <T>(ms: number, send: () => Promise<T>) => new Promise<T>((resolve, reject) => setTimeout(() => send().then(resolve, reject), ms));
      const [reassigned, personalBooking] = await Promise.all([
        reassign(booking.uid, owner.apiKey, { userId: target.userId }),
        later(5 * (hour - 9), () => book(api, { eventTypeId: personal.id, start, attendee: { name: 'Rival', email: 'rival@example.com', timeZone: 'UTC' } })),
      ]);
      const wins = [reassigned.status === 200, personalBooking.status === 201].filter(Boolean).length;
      assert.equal(wins, 1, `${reassigned.status} ${reassigned.text}\n${personalBooking.status} ${personalBooking.text}`);
      if (reassigned.status === 200) {
        assert.equal(personalBooking.status, 400, personalBooking.text);
        assert.deepEqual(await hostsOfBooking(booking.uid), [target.userId]);
      } else {
        assert.equal(reassigned.status, 400, reassigned.text);
        assert.equal(reassigned.body.error.details.reason, 'host_unavailable');
        assert.deepEqual(await hostsOfBooking(booking.uid), [first.userId]);
      }
    }
    const overlaps = await rows<{ n: number }>(sql`
      select count(*)::int as n from booking_hosts a join booking_hosts b on a.user_id = b.user_id and a.booking_id < b.booking_id
      where a.status = 'accepted' and b.status = 'accepted' and tstzrange(a.start_at, a.end_at) && tstzrange(b.start_at, b.end_at)`);
    assert.equal(overlaps[0]!.n, 0);
  });
});
