import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { insertBooking } from '../support/bookings.js';
import { backend, createPeerApp, createTestApp, type TestApp } from '../support/test-app.js';
import { assertError, assertNamesField, createEventType, createHost, type Host, SLOTS_VERSION, slotsOf, startsOf } from './helpers.js';

const MINUTE = 60_000;
// 2027-01-04 is a Monday; the New York host works 14:00Z-22:00Z.
const MONDAY = '2027-01-04';
const at = (time: string) => `${MONDAY}T${time}:00.000Z`;

describe('slot reservations (svc-api-version 2024-09-04)', () => {
  let api: TestApp;
  let now = Date.parse('2027-01-02T12:00:00Z');
  let host: Host;
  let eventType: any;
  const reserve = (body: Record<string, unknown>, key?: string) =>
    api.request('POST', '/v2/slots/reservations', { version: SLOTS_VERSION, body, ...(key ? { key } : {}) });
  const mondayStarts = async (eventTypeId = eventType.id) => startsOf(await slotsOf(api, { eventTypeId, start: MONDAY, end: MONDAY }));

  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    host = await createHost(api, 'America/New_York');
    eventType = await createEventType(api, host, { lengthInMinutes: 60, lengthInMinutesOptions: [30, 60] });
  });
  after(() => api.close());

  test('reserves an available slot for 5 minutes and removes it from everyone\'s slots until then', async () => {
    const response = await reserve({ eventTypeId: eventType.id, slotStart: at('15:00') });
    assert.equal(response.status, 201, response.text);
    const data = response.body.data;
    assert.match(data.reservationUid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.deepEqual({ ...data, reservationUid: 'uid' }, {
      eventTypeId: eventType.id, slotStart: at('15:00'), slotEnd: at('16:00'), slotDuration: 60,
      reservationUid: 'uid', reservationDuration: 5, reservationUntil: new Date(now + 5 * MINUTE).toISOString(),
    });
    const starts = await mondayStarts();
    assert.ok(!starts.includes(at('15:00')) && starts.includes(at('14:00')) && starts.includes(at('16:00')));
    // Another event type of the host cannot take that time either.
    const other = await createEventType(api, host, { lengthInMinutes: 30 });
    const otherStarts = await mondayStarts(other.id);
    assert.ok(!otherStarts.includes(at('15:00')) && !otherStarts.includes(at('15:30')) && otherStarts.includes(at('16:00')));

    const read = await api.request('GET', `/v2/slots/reservations/${data.reservationUid}`, { version: SLOTS_VERSION });
    assert.deepEqual(read.body, { status: 'success', data: { eventTypeId: eventType.id, slotStart: at('15:00'), slotEnd: at('16:00'), slotDuration: 60, reservationUid: data.reservationUid, reservationUntil: data.reservationUntil } });

    now += 5 * MINUTE + 1;
    assert.ok((await mondayStarts()).includes(at('15:00')), 'the slot is back once the hold expires');
    assert.deepEqual((await api.request('GET', `/v2/slots/reservations/${data.reservationUid}`, { version: SLOTS_VERSION })).body, { status: 'success', data: null });
  });

  test('a slot someone holds, or that is booked, answers the reference 422s', async () => {
    const first = await reserve({ eventTypeId: eventType.id, slotStart: at('17:00') });
    assert.equal(first.status, 201, first.text);
    assertError(await reserve({ eventTypeId: eventType.id, slotStart: at('17:00') }), 422, 'UnprocessableEntityException', 'This time slot is already reserved by another user. Please choose a different time.');
    await insertBooking(api, { userId: host.userId, eventTypeId: eventType.id, start: at('18:00'), end: at('19:00') });
    assertError(await reserve({ eventTypeId: eventType.id, slotStart: at('18:00') }), 422, 'UnprocessableEntityException', "Can't reserve a slot if the event is already booked.");
    const outside = await reserve({ eventTypeId: eventType.id, slotStart: at('23:00') });
    assertError(outside, 422, 'UnprocessableEntityException');
    assert.equal(outside.body.error.details.reason, 'slot_unavailable');
    const offGrid = await reserve({ eventTypeId: eventType.id, slotStart: at('14:10') });
    assert.equal(offGrid.body.error.details.reason, 'slot_unavailable');
    const past = await reserve({ eventTypeId: eventType.id, slotStart: '2027-01-01T15:00:00Z' });
    assert.equal(past.body.error.details.reason, 'slot_in_the_past');
  });

  test('slotDuration: only variable-length event types, and only their lengths', async () => {
    const half = await reserve({ eventTypeId: eventType.id, slotStart: at('20:00'), slotDuration: 30 });
    assert.equal(half.status, 201, half.text);
    assert.deepEqual([half.body.data.slotEnd, half.body.data.slotDuration], [at('20:30'), 30]);
    const refused = await reserve({ eventTypeId: eventType.id, slotStart: at('21:00'), slotDuration: 45 });
    assertError(refused, 400, 'BadRequestException', "Provided 'slotDuration' is not one of the possible lengths for the event type. The possible lengths for this variable length event type are: 30, 60");
    assertNamesField(refused, 'slotDuration');
    const fixed = await createEventType(api, host);
    assertError(await reserve({ eventTypeId: fixed.id, slotStart: at('21:00'), slotDuration: 30 }), 400, 'BadRequestException', "You passed 'slotDuration' but this event type is not a variable length event type.");
  });

  test('reservationDuration needs credentials; only the event type\'s owner may reserve with them', async () => {
    assertError(
      await reserve({ eventTypeId: eventType.id, slotStart: at('14:00'), reservationDuration: 30 }),
      401, 'UnauthorizedException', 'reservationDuration can only be used for authenticated requests - use access token, api key or OAuth credentials',
    );
    const stranger = await createHost(api, 'UTC');
    assertError(await reserve({ eventTypeId: eventType.id, slotStart: at('14:00') }, stranger.apiKey), 403, 'ForbiddenException');
    const owned = await reserve({ eventTypeId: eventType.id, slotStart: at('14:00'), reservationDuration: 30 }, host.apiKey);
    assert.equal(owned.status, 201, owned.text);
    assert.equal(owned.body.data.reservationUntil, new Date(now + 30 * MINUTE).toISOString());
    assertError(await reserve({ eventTypeId: eventType.id, slotStart: at('14:00') }, 'svc_0000000000000000000000000000dead'), 401, 'UnauthorizedException', 'Your api key is not valid');
  });

  test('bad bodies and unknown event types', async () => {
    assertError(await reserve({ eventTypeId: 999999, slotStart: at('14:00') }), 404, 'NotFoundException', 'Event Type with ID=999999 not found');
    assertNamesField(await reserve({ eventTypeId: eventType.id, slotStart: 'Monday 9am' }), 'slotStart');
    assertNamesField(await reserve({ slotStart: at('14:00') }), 'eventTypeId');
    assertNamesField(await reserve({ eventTypeId: eventType.id, slotStart: at('14:00'), reservationDuration: 0 }), 'reservationDuration');
  });

  test('PATCH moves or extends a live reservation; the old slot comes back', async () => {
    const day = '2027-01-05';
    const created = await reserve({ eventTypeId: eventType.id, slotStart: `${day}T14:00:00Z` });
    assert.equal(created.status, 201, created.text);
    const uid = created.body.data.reservationUid;
    const same = await api.request('PATCH', `/v2/slots/reservations/${uid}`, { version: SLOTS_VERSION, body: { eventTypeId: eventType.id, slotStart: `${day}T14:00:00Z` } });
    assert.equal(same.status, 200, `a reservation does not collide with itself: ${same.text}`);
    const moved = await api.request('PATCH', `/v2/slots/reservations/${uid}`, { version: SLOTS_VERSION, body: { eventTypeId: eventType.id, slotStart: `${day}T16:00:00Z`, slotDuration: 30 } });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual([moved.body.data.reservationUid, moved.body.data.slotStart, moved.body.data.slotEnd], [uid, `${day}T16:00:00.000Z`, `${day}T16:30:00.000Z`]);
    const starts = startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: day, end: day }));
    assert.ok(starts.includes(`${day}T14:00:00.000Z`) && !starts.includes(`${day}T16:00:00.000Z`));
    assertError(
      await api.request('PATCH', '/v2/slots/reservations/no-such-uid', { version: SLOTS_VERSION, body: { eventTypeId: eventType.id, slotStart: `${day}T18:00:00Z` } }),
      404, 'NotFoundException', 'Slot with uid=no-such-uid not found',
    );
    assertError(
      await api.request('PATCH', `/v2/slots/reservations/${uid}`, { version: SLOTS_VERSION, body: { eventTypeId: eventType.id, slotStart: `${day}T18:00:00Z`, reservationDuration: 60 } }),
      401, 'UnauthorizedException',
    );
  });

  test('DELETE releases the slot at once, and answers success for an unknown uid too', async () => {
    const day = '2027-01-06';
    const created = await reserve({ eventTypeId: eventType.id, slotStart: `${day}T15:00:00Z` });
    const uid = created.body.data.reservationUid;
    const deleted = await api.request('DELETE', `/v2/slots/reservations/${uid}`, { version: SLOTS_VERSION });
    assert.deepEqual([deleted.status, deleted.body], [200, { status: 'success' }]);
    assert.ok(startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: day, end: day })).includes(`${day}T15:00:00.000Z`));
    const unknown = await api.request('DELETE', '/v2/slots/reservations/never-existed', { version: SLOTS_VERSION });
    assert.deepEqual([unknown.status, unknown.body], [200, { status: 'success' }]);
  });

  test('on a seated event type a reservation takes one seat; the last seat taken removes the slot', async () => {
    const seated = await createEventType(api, host, { seats: { seatsPerTimeSlot: 2, showAttendeeInfo: false, showAvailabilityCount: true } });
    const day = '2027-01-07';
    const slot = `${day}T15:00:00Z`;
    await insertBooking(api, { userId: host.userId, eventTypeId: seated.id, start: slot, end: `${day}T16:00:00Z` });
    const seat = await reserve({ eventTypeId: seated.id, slotStart: slot });
    assert.equal(seat.status, 201, seat.text);
    const data = await slotsOf(api, { eventTypeId: seated.id, start: day, end: day });
    assert.ok(!data[day]!.some((item) => item.start === `${day}T15:00:00.000Z`), 'both seats are taken');
    assertError(await reserve({ eventTypeId: seated.id, slotStart: slot }), 422, 'UnprocessableEntityException', `Booking with id=${seated.id} at ${day}T15:00:00.000Z has no more seats left.`);
    await api.request('DELETE', `/v2/slots/reservations/${seat.body.data.reservationUid}`);
    const again = await slotsOf(api, { eventTypeId: seated.id, start: day, end: day });
    assert.deepEqual(again[day]!.find((item) => item.start === `${day}T15:00:00.000Z`), { start: `${day}T15:00:00.000Z`, seatsBooked: 1, seatsRemaining: 1, seatsTotal: 2, bookingUid: again[day]!.find((item) => item.bookingUid)?.bookingUid });
  });
});

describe('slot reservations under concurrency', { skip: backend !== 'postgres' && 'needs PostgreSQL: PGlite is one session, so it cannot race' }, () => {
  let first: TestApp;
  let second: TestApp;
  before(async () => {
    first = await createTestApp();
    // A second svc process on the same database: the lock has to hold across processes.
    second = await createPeerApp(first);
  });
  after(async () => {
    await second.close();
    await first.close();
  });

  test('twenty simultaneous reservations of one slot through two processes: exactly one wins', async () => {
    const host = await createHost(first, 'America/New_York');
    const eventType = await createEventType(first, host);
    const body = { eventTypeId: eventType.id, slotStart: at('16:00') };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? second : first).request('POST', '/v2/slots/reservations', { version: SLOTS_VERSION, body })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [201, ...Array(19).fill(422)], answers.map((answer) => answer.text).join('\n'));
    const rows = await first.runtime.ctx.database.db.execute(sql`select count(*)::int as count from slot_reservations where event_type_id = ${eventType.id}`);
    assert.equal((rows as unknown as { rows: { count: number }[] }).rows[0]!.count, 1);
  });
});
