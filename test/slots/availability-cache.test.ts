import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { CHANGES_CHANNEL } from '../../src/db/change-feed.js';
import { booked, BOOKINGS_VERSION } from '../bookings/helpers.js';
import { insertBooking } from '../support/bookings.js';
import { eventually } from '../support/eventually.js';
import { backend, createPeerApp, createTestApp, type TestApp } from '../support/test-app.js';
import { createTeamEventType, createTeamWithHosts } from '../support/team-scheduling.js';
import { createEventType, createHost, SLOTS_VERSION, slotsOf, startsOf } from './helpers.js';

// 2027-01-04 is a Monday: the New York host works 14:00Z-22:00Z.
const MONDAY = '2027-01-04';
const at = (time: string) => `${MONDAY}T${time}:00.000Z`;


describe('the slot listing\'s availability cache, in one process', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('the listing is served from memory: a change nobody announces is not seen until one is', async () => {
    const host = await createHost(api, 'America/New_York');
    const eventType = await createEventType(api, host);
    assert.ok(api.runtime.ctx.availability.active);
    const list = async () => startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }));
    assert.ok((await list()).includes(at('14:00')));
    // Written behind svc's back: the cached busy time does not know.
    await api.runtime.ctx.database.db.execute(
      sql`insert into bookings (uid, user_id, title, start_at, end_at, status) values ('silent', ${host.userId}, 'x', ${at('14:00')}::timestamptz, ${at('15:00')}::timestamptz, 'accepted')`,
    );
    assert.ok((await list()).includes(at('14:00')));
    api.runtime.ctx.changes.apply({ kind: 'availability', userId: host.userId });
    assert.ok(!(await list()).includes(at('14:00')));
  });

  test('every write through the API is seen by the next listing', async () => {
    const host = await createHost(api, 'America/New_York');
    const eventType = await createEventType(api, host);
    const list = async (eventTypeId = eventType.id) => startsOf(await slotsOf(api, { eventTypeId, start: MONDAY, end: MONDAY }));
    assert.equal((await list()).length, 8);

    // The event type's own settings.
    assert.equal((await api.request('PATCH', `/v2/event-types/${eventType.id}`, { key: host.apiKey, version: '2024-06-14', body: { lengthInMinutes: 120 } })).status, 200);
    assert.deepEqual(await list(), ['14', '16', '18', '20'].map((hour) => at(`${hour}:00`)));

    // The schedule's hours.
    const schedules = await api.request('GET', '/v2/schedules', { key: host.apiKey, version: '2024-06-11' });
    const scheduleId = schedules.body.data[0].id;
    const narrowed = await api.request('PATCH', `/v2/schedules/${scheduleId}`, {
      key: host.apiKey, version: '2024-06-11', body: { availability: [{ days: ['Monday'], startTime: '09:00', endTime: '11:00' }] },
    });
    assert.equal(narrowed.status, 200, narrowed.text);
    assert.deepEqual(await list(), [at('14:00')]);

    // Another schedule becomes the default (through /v2/me).
    const evening = await api.request('POST', '/v2/schedules', {
      key: host.apiKey, version: '2024-06-11', body: { name: 'Evenings', timeZone: 'America/New_York', isDefault: false, availability: [{ days: ['Monday'], startTime: '18:00', endTime: '20:00' }] },
    });
    assert.equal((await api.request('PATCH', '/v2/me', { key: host.apiKey, body: { defaultScheduleId: evening.body.data.id } })).status, 200);
    assert.deepEqual(await list(), [at('23:00')]);

    // A booking of another event type, and a reservation.
    const other = await createEventType(api, host, { lengthInMinutes: 30 });
    assert.deepEqual(await list(other.id), [at('23:00'), at('23:30'), `2027-01-05T00:00:00.000Z`, `2027-01-05T00:30:00.000Z`].filter((start) => start.startsWith(MONDAY)));
    await insertBooking(api, { userId: host.userId, eventTypeId: eventType.id, start: at('23:00'), end: '2027-01-05T01:00:00Z' });
    assert.deepEqual(await list(other.id), []);

    // Deleting the event type ends its listing.
    assert.equal((await api.request('DELETE', `/v2/event-types/${eventType.id}`, { key: host.apiKey, version: '2024-06-14' })).status, 200);
    assert.equal((await api.request('GET', `/v2/slots?eventTypeId=${eventType.id}&start=${MONDAY}&end=${MONDAY}`, { version: SLOTS_VERSION })).status, 404);
  });
});

describe('bookings and the availability cache', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => Date.parse('2027-01-01T12:00:00Z') });
  });
  after(() => api.close());

  test('a booking reads the event type\'s settings as they are now, though another booking cached them', async () => {
    const host = await createHost(api, 'America/New_York');
    const eventType = await createEventType(api, host);
    const book = (start: string, i: number) =>
      api.request('POST', '/v2/bookings', { version: '2024-08-13', body: { eventTypeId: eventType.id, start, attendee: { name: `B${i}`, email: `b${i}@example.com`, timeZone: 'UTC' } } });
    assert.equal((await book(at('14:00'), 1)).body.data.status, 'accepted');
    const patched = await api.request('PATCH', `/v2/event-types/${eventType.id}`, {
      key: host.apiKey, version: '2024-06-14', body: { confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: false } },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await book(at('15:00'), 2)).body.data.status, 'pending');
  });

  test('a team booking reads its event type and its organizer as they are now, though earlier bookings cached them', async () => {
    const host = await createHost(api, 'America/New_York');
    const { team, owner } = await createTeamWithHosts(api, [host]);
    const eventType = await createTeamEventType(api, owner.apiKey, team.id, {
      title: 'Support', slug: 'support', lengthInMinutes: 60, minimumBookingNotice: 0, schedulingType: 'roundRobin', hosts: [{ userId: host.userId }],
    });
    const book = (start: string, i: number) =>
      api.request('POST', '/v2/bookings', { version: '2024-08-13', body: { eventTypeId: eventType.id, start, attendee: { name: `T${i}`, email: `t${i}@example.com`, timeZone: 'UTC' } } });
    const first = await book(at('14:00'), 1);
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.data.status, 'accepted');
    const patched = await api.request('PATCH', `/v2/teams/${team.id}/event-types/${eventType.id}`, {
      key: owner.apiKey, body: { confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: false } },
    });
    assert.equal(patched.status, 200, patched.text);
    const renamed = await api.request('PATCH', '/v2/me', { key: host.apiKey, body: { name: 'Renamed Host' } });
    assert.equal(renamed.status, 200, renamed.text);
    const second = await book(at('15:00'), 2);
    assert.equal(second.status, 201, second.text);
    assert.equal(second.body.data.status, 'pending');
    assert.equal(second.body.data.hosts[0].name, 'Renamed Host');
  });
});

describe('kept listings', () => {
  let api: TestApp;
  let now = Date.parse('2027-01-04T12:00:00Z');
  const heard = new Set<number>();
  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    api.runtime.ctx.changes.subscribe({ invalidate: (event) => void (event.kind === 'teamEventType' && heard.add(event.eventTypeId)), enable() {}, disable() {} });
  });
  after(() => api.close());

  /**
   * On PostgreSQL this process hears its own writes again by NOTIFY, some time after it applied them:
   * a late one would drop a listing in the middle of a count. Notifications arrive in commit order,
   * so once a marker sent now has come back, every earlier one has.
   */
  let markers = 0;
  async function settled() {
    if (backend !== 'postgres') return;
    const marker = 2_000_000_000 + ++markers;
    await api.runtime.ctx.database.db.execute(sql`select pg_notify(${CHANGES_CHANNEL}, ${`teamEventType:${marker}`})`);
    await eventually(async () => heard.has(marker));
  }

  const computed = () => api.runtime.ctx.availability.computedListings;
  const hours = (...list: string[]) => list.map((hour) => at(`${hour}:00`));

  test('the same listing is computed once, until a host\'s busy time or settings change', async () => {
    now = Date.parse('2027-01-01T12:00:00Z');
    const host = await createHost(api, 'America/New_York');
    const stranger = await createHost(api, 'America/New_York');
    const eventType = await createEventType(api, host);
    const strangers = await createEventType(api, stranger);
    const list = async () => startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }));
    await settled();
    const before = computed();
    assert.deepEqual(await list(), hours('14', '15', '16', '17', '18', '19', '20', '21'));
    assert.deepEqual(await list(), hours('14', '15', '16', '17', '18', '19', '20', '21'));
    assert.equal(computed(), before + 1, 'the second listing is the kept one');
    // Another window is another listing.
    await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: '2027-01-05' });
    assert.equal(computed(), before + 2);

    // Someone else's booking leaves it kept; the host's own drops it.
    const book = (eventTypeId: number, start: string) =>
      api.request('POST', '/v2/bookings', { version: '2024-08-13', body: { eventTypeId, start, attendee: { name: 'B', email: 'b@example.com', timeZone: 'UTC' } } });
    assert.equal((await book(strangers.id, at('15:00'))).status, 201);
    await settled();
    assert.equal((await list()).length, 8);
    assert.equal(computed(), before + 2);
    assert.equal((await book(eventType.id, at('15:00'))).status, 201);
    await settled();
    assert.deepEqual(await list(), hours('14', '16', '17', '18', '19', '20', '21'));
    assert.equal(computed(), before + 3);

    // So do the event type's settings.
    assert.equal((await api.request('PATCH', `/v2/event-types/${eventType.id}`, { key: host.apiKey, version: '2024-06-14', body: { lengthInMinutes: 120 } })).status, 200);
    await settled();
    assert.deepEqual(await list(), hours('16', '18', '20'));
    assert.equal(computed(), before + 4);
  });

  test('a kept listing follows the clock: the notice cuts it, a reservation running out gives its slot back, an earlier clock recomputes', async () => {
    now = Date.parse('2027-01-04T12:00:00Z');
    const host = await createHost(api, 'America/New_York');
    // Three hours' notice: at 12:00Z the first start is 15:00Z.
    const eventType = await createEventType(api, host, { minimumBookingNotice: 180 });
    const list = async () => startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }));
    const reserved = await api.request('POST', '/v2/slots/reservations', { version: SLOTS_VERSION, body: { eventTypeId: eventType.id, slotStart: at('17:00') } });
    assert.equal(reserved.status, 201, reserved.text);
    await settled();
    assert.deepEqual(await list(), hours('15', '16', '18', '19', '20', '21'));
    const first = computed();

    // The notice has passed 15:00: the kept listing loses it without being computed again.
    now = Date.parse('2027-01-04T12:02:00Z');
    assert.deepEqual(await list(), hours('16', '18', '19', '20', '21'));
    assert.equal(computed(), first);

    // Nobody announces that a reservation ran out (at 12:05): the listing knew when it would.
    now = Date.parse('2027-01-04T12:10:00Z');
    assert.deepEqual(await list(), hours('16', '17', '18', '19', '20', '21'));
    assert.equal(computed(), first + 1);

    // A clock set back cannot use what was computed later.
    now = Date.parse('2027-01-04T11:00:00Z');
    assert.ok((await list()).includes(at('14:00')));
    assert.equal(computed(), first + 2);
  });

  test('rules that move with the clock are computed every time: the first slot of the day is the first after the notice', async () => {
    now = Date.parse('2027-01-04T12:00:00Z');
    const host = await createHost(api, 'America/New_York');
    const eventType = await createEventType(api, host, { minimumBookingNotice: 180, onlyShowFirstAvailableSlot: true });
    const list = async () => startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }));
    assert.deepEqual(await list(), hours('15'));
    // Cutting the 12:00 listing would leave nothing: 16:00 is now the day's first slot.
    now = Date.parse('2027-01-04T12:02:00Z');
    assert.deepEqual(await list(), hours('16'));
  });
});

describe('the availability cache across processes sharing one PostgreSQL', { skip: backend !== 'postgres' && 'needs PostgreSQL (PGlite is single-process)' }, () => {
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    a = await createTestApp();
    b = await createPeerApp(a);
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  test('a reservation or a schedule change made through one process reaches the other\'s listing', async () => {
    const host = await createHost(a, 'America/New_York');
    const eventType = await createEventType(a, host);
    const listOnB = async () => startsOf(await slotsOf(b, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }));
    assert.ok((await listOnB()).includes(at('15:00')));
    const reserved = await a.request('POST', '/v2/slots/reservations', { version: SLOTS_VERSION, body: { eventTypeId: eventType.id, slotStart: at('15:00') } });
    assert.equal(reserved.status, 201, reserved.text);
    const ms = await eventually(async () => !(await listOnB()).includes(at('15:00')));
    assert.ok(ms < 1000, `took ${ms} ms`);

    const schedules = await a.request('GET', '/v2/schedules', { key: host.apiKey, version: '2024-06-11' });
    await a.request('PATCH', `/v2/schedules/${schedules.body.data[0].id}`, {
      key: host.apiKey, version: '2024-06-11', body: { availability: [{ days: ['Monday'], startTime: '16:00', endTime: '17:00' }] },
    });
    await eventually(async () => JSON.stringify(await listOnB()) === JSON.stringify([at('21:00')]));
  });

  test('bookings made through either process reach both listings, the maker\'s own at once', async () => {
    const host = await createHost(a, 'America/New_York');
    const eventType = await createEventType(a, host);
    const list = async (api: TestApp) => startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }));
    assert.equal((await list(a)).length, 8);
    assert.equal((await list(b)).length, 8);
    const first = await booked(a, { eventTypeId: eventType.id, start: at('15:00') });
    // The maker added its booking to its cached busy time: its next listing needs no other change.
    assert.ok(!(await list(a)).includes(at('15:00')));
    await eventually(async () => !(await list(b)).includes(at('15:00')));
    await booked(b, { eventTypeId: eventType.id, start: at('16:00') });
    assert.ok(!(await list(b)).includes(at('16:00')));
    await eventually(async () => !(await list(a)).includes(at('16:00')));
    // A cancellation is never added: both read the host again.
    const cancelled = await b.request('POST', `/v2/bookings/${first.uid}/cancel`, { version: BOOKINGS_VERSION, body: { cancellationReason: 'moved' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.ok((await list(b)).includes(at('15:00')));
    await eventually(async () => (await list(a)).includes(at('15:00')));
    // Both end where an uncached read ends.
    const expected = [at('14:00'), at('15:00'), at('17:00'), at('18:00'), at('19:00'), at('20:00'), at('21:00')];
    assert.deepEqual(await list(a), expected);
    assert.deepEqual(await list(b), expected);
  });

  test('while the change feed is down the cache is off, so a silent change is still seen', async () => {
    const host = await createHost(a, 'America/New_York');
    const eventType = await createEventType(a, host);
    const listOnB = async () => startsOf(await slotsOf(b, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }));
    assert.ok((await listOnB()).includes(at('14:00')));
    await a.runtime.ctx.database.db.execute(
      sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query like 'LISTEN%'`,
    );
    await eventually(async () => !b.runtime.ctx.availability.active);
    await a.runtime.ctx.database.db.execute(
      sql`insert into bookings (uid, user_id, title, start_at, end_at, status) values ('silent-b', ${host.userId}, 'x', ${at('14:00')}::timestamptz, ${at('15:00')}::timestamptz, 'accepted')`,
    );
    assert.ok(!(await listOnB()).includes(at('14:00')));
    await eventually(async () => b.runtime.ctx.availability.active, 5000);
  });
});
