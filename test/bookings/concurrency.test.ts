import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { CHILD_ENCRYPTION_KEY, type ChildServer, killAllChildren, startServer } from '../support/child-server.js';
import { createTestDatabase } from '../support/postgres.js';
import { ADMIN_API_KEY, backend, createTestApp, request, type TestApp } from '../support/test-app.js';
import { createEventType, createHost } from '../slots/helpers.js';
import { BOOKINGS_VERSION } from './helpers.js';

const UNAVAILABLE = 'User either already has booking at this time or is not available';

const attendee = (i: number) => ({ name: `Racer ${i}`, email: `racer${i}@example.com`, timeZone: 'UTC' });
const bookingBody = (eventTypeId: number, start: string, i: number) => ({ eventTypeId, start, attendee: attendee(i) });

function tally(responses: { status: number; body: any }[]) {
  const counts = new Map<string, number>();
  for (const response of responses) {
    const key = response.status === 201 ? '201' : `${response.status} ${response.body?.error?.message}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return Object.fromEntries(counts);
}

describe(`bookings under concurrency (${backend})`, () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  const post = (body: unknown) => api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body });
  const countBookings = async (eventTypeIds: number[]) => {
    const result = await api.runtime.ctx.database.db.execute(sql`select count(*)::int as n from bookings where event_type_id in ${eventTypeIds} and status = 'accepted'`);
    return (result as unknown as { rows: { n: number }[] }).rows[0]!.n;
  };

  test('50 requests for one slot: exactly one booking, 49 times the reference\'s unavailable error', async () => {
    const host = await createHost(api, 'America/New_York');
    const eventType = await createEventType(api, host);
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => post(bookingBody(eventType.id, '2027-02-01T15:00:00Z', i))));
    assert.deepEqual(tally(responses), { 201: 1, [`400 ${UNAVAILABLE}`]: 49 });
    assert.equal(await countBookings([eventType.id]), 1);
  });

  test('20 requests for distinct slots against a daily limit of 3: exactly 3 bookings', async () => {
    const host = await createHost(api, 'America/New_York');
    const eventType = await createEventType(api, host, { lengthInMinutes: 15, bookingLimitsCount: { day: 3 } });
    const starts = Array.from({ length: 20 }, (_, i) => new Date(Date.parse('2027-02-02T14:00:00Z') + i * 15 * 60_000).toISOString());
    const responses = await Promise.all(starts.map((start, i) => post(bookingBody(eventType.id, start, i))));
    assert.equal(responses.filter((response) => response.status === 201).length, 3, JSON.stringify(tally(responses)));
    assert.ok(responses.every((response) => response.status === 201 || response.body.error.details.reason === 'booking_limit_reached'), JSON.stringify(tally(responses)));
    assert.equal(await countBookings([eventType.id]), 3);
  });

  test('the last free seat raced by 10 bookers: exactly one gets it', async () => {
    const host = await createHost(api, 'America/New_York');
    const eventType = await createEventType(api, host, { seats: { seatsPerTimeSlot: 3, showAttendeeInfo: false, showAvailabilityCount: true } });
    const start = '2027-02-03T15:00:00Z';
    for (const i of [100, 101]) assert.equal((await post(bookingBody(eventType.id, start, i))).status, 201);
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => post(bookingBody(eventType.id, start, i))));
    assert.deepEqual(tally(responses), { 201: 1, '409 No more seats left at this seated booking.': 9 });
    const seats = await api.runtime.ctx.database.db.execute(sql`select count(*)::int as n from booking_attendees a join bookings b on b.id = a.booking_id where b.event_type_id = ${eventType.id}`);
    assert.equal((seats as unknown as { rows: { n: number }[] }).rows[0]!.n, 3);
  });

  test('overlapping starts of two event types of one host: exactly one booking', async () => {
    const host = await createHost(api, 'America/New_York');
    const hour = await createEventType(api, host, { lengthInMinutes: 60 });
    const half = await createEventType(api, host, { lengthInMinutes: 30 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? post(bookingBody(hour.id, '2027-02-04T15:00:00Z', i)) : post(bookingBody(half.id, '2027-02-04T15:30:00Z', i)))),
    );
    assert.deepEqual(tally(responses), { 201: 1, [`400 ${UNAVAILABLE}`]: 19 });
    assert.equal(await countBookings([hour.id, half.id]), 1);
  });

  test('the store itself refuses two overlapping accepted bookings of one host (exclusion constraint)', async () => {
    const host = await createHost(api, 'America/New_York');
    const insert = (uid: string, start: string, end: string) =>
      api.runtime.ctx.database.db.execute(
        sql`insert into bookings (uid, user_id, title, start_at, end_at, status) values (${uid}, ${host.userId}, 'x', ${start}::timestamptz, ${end}::timestamptz, 'accepted')`,
      );
    await insert('direct-1', '2027-02-05T15:00:00Z', '2027-02-05T16:00:00Z');
    await insert('direct-2', '2027-02-05T16:00:00Z', '2027-02-05T17:00:00Z'); // touching is fine
    await assert.rejects(insert('direct-3', '2027-02-05T15:30:00Z', '2027-02-05T16:30:00Z'), (error: any) => (error.cause?.code ?? error.code) === '23P01');
  });
});

describe('bookings raced through two svc server processes on one PostgreSQL', { skip: backend !== 'postgres' && 'needs PostgreSQL: PGlite belongs to one process' }, () => {
  let servers: ChildServer[] = [];
  let drop: (() => Promise<void>) | undefined;
  before(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    const env = { DATABASE_URL: database.url, SVC_ENCRYPTION_KEY: CHILD_ENCRYPTION_KEY, SVC_ADMIN_API_KEY: ADMIN_API_KEY, RATE_LIMIT_ENABLED: '0' };
    servers = await Promise.all([startServer(env), startServer(env)]);
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await killAllChildren();
    await drop?.();
  });

  test('50 requests for one slot spread over both processes: exactly one booking', async () => {
    const [a, b] = servers as [ChildServer, ChildServer];
    const user = await request(a.baseUrl, 'POST', '/v2/admin/users', { key: ADMIN_API_KEY, body: { email: 'race@example.com', name: 'Race Host', timeZone: 'America/New_York' } });
    assert.equal(user.status, 201, user.text);
    const eventType = await request(a.baseUrl, 'POST', '/v2/event-types', { key: user.body.data.apiKey, version: '2024-06-14', body: { title: 'Race', slug: 'race', lengthInMinutes: 60, minimumBookingNotice: 0 } });
    assert.equal(eventType.status, 201, eventType.text);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => request((i % 2 ? b : a).baseUrl, 'POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: bookingBody(eventType.body.data.id, '2027-02-08T15:00:00Z', i) })),
    );
    assert.deepEqual(tally(responses), { 201: 1, [`400 ${UNAVAILABLE}`]: 49 });
  });
});
