import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cancelBookings, insertBooking } from '../support/bookings.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertError, assertNamesField, createEventType, createHost, getSlots, type Host, instants, slotsOf, startsOf } from './helpers.js';

// 2027-01-04 is a Monday; New York is at UTC-5 then, so 09:00-17:00 is 14:00Z-22:00Z.
const MONDAY = '2027-01-04';
const NY_MONDAY_STARTS = ['14', '15', '16', '17', '18', '19', '20', '21'].map((hour) => `${MONDAY}T${hour}:00:00.000Z`);

describe('GET /v2/slots (svc-api-version 2024-09-04)', () => {
  let api: TestApp;
  let host: Host;
  let eventType: any;
  before(async () => {
    api = await createTestApp();
    host = await createHost(api, 'America/New_York');
    eventType = await createEventType(api, host);
  });
  after(() => api.close());

  test('lists the host\'s hours as UTC instants with "Z", grouped by UTC date, without a timeZone', async () => {
    const data = await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY });
    assert.deepEqual(data, { [MONDAY]: NY_MONDAY_STARTS.map((start) => ({ start })) });
  });

  test('timeZone prints each start with that zone\'s offset and groups by its dates; the instants never change', async () => {
    const window = { eventTypeId: eventType.id, start: '2027-01-04T00:00:00Z', end: '2027-01-05T23:59:59Z' };
    const utc = await slotsOf(api, window);
    const kolkata = await slotsOf(api, { ...window, timeZone: 'Asia/Kolkata' });
    const chatham = await slotsOf(api, { ...window, timeZone: 'Pacific/Chatham' });
    assert.deepEqual(instants(kolkata), instants(utc));
    assert.deepEqual(instants(chatham), instants(utc));
    assert.equal(startsOf(kolkata)[0], '2027-01-04T19:30:00.000+05:30');
    assert.equal(startsOf(chatham)[0], '2027-01-05T03:45:00.000+13:45');
    // Monday's 14:00Z-21:00Z are Tuesday morning in Chatham (+13:45), Tuesday's are Wednesday's.
    assert.deepEqual(Object.keys(chatham), ['2027-01-05', '2027-01-06']);
    assert.deepEqual([chatham['2027-01-05']!.length, chatham['2027-01-06']!.length], [8, 8]);
  });

  // The reference validates the slots query with forbidNonWhitelisted (GetSlotsInput_2024_09_04).
  test('an unknown query parameter is a 400 naming it, as in the reference; known ones still work', async () => {
    const typo = await getSlots(api, { eventTypeID: eventType.id, start: MONDAY, end: MONDAY });
    assertError(typo, 400, 'BadRequestException', 'property eventTypeID should not exist');
    assertNamesField(typo, 'eventTypeID');
    assert.equal((await getSlots(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY, timeZone: 'UTC', format: 'range' })).status, 200);
  });

  test('bare dates are whole days in the requested timeZone, not in UTC (reference #17844)', async () => {
    const sydney = await createHost(api, 'Australia/Sydney', {});
    const allDay = await api.request('POST', '/v2/schedules', {
      key: sydney.apiKey, version: '2024-06-11',
      body: { name: 'Always', timeZone: 'Australia/Sydney', isDefault: true, availability: [{ days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'], startTime: '00:00', endTime: '23:59' }] },
    });
    assert.equal(allDay.status, 201, allDay.text);
    const sydneyType = await createEventType(api, sydney);
    const data = await slotsOf(api, { eventTypeId: sydneyType.id, start: '2027-01-06', end: '2027-01-06', timeZone: 'Australia/Sydney' });
    assert.deepEqual(Object.keys(data), ['2027-01-06']);
    const day = data['2027-01-06']!;
    assert.equal(day.length, 24);
    assert.equal(day[0].start, '2027-01-06T00:00:00.000+11:00');
    assert.equal(day[23].start, '2027-01-06T23:00:00.000+11:00');
  });

  test('date-time bounds: with an offset it is that instant, without one it is wall time in timeZone; end is inclusive', async () => {
    const withOffset = await slotsOf(api, { eventTypeId: eventType.id, start: '2027-01-04T10:00:00-05:00', end: '2027-01-04T12:00:00-05:00' });
    assert.deepEqual(startsOf(withOffset), ['2027-01-04T15:00:00.000Z', '2027-01-04T16:00:00.000Z', '2027-01-04T17:00:00.000Z']);
    const wallTime = await slotsOf(api, { eventTypeId: eventType.id, start: '2027-01-04T10:00', end: '2027-01-04T12:00', timeZone: 'America/New_York' });
    assert.deepEqual(instants(wallTime), instants(withOffset));
  });

  test('by username and eventTypeSlug; unknown names answer the reference 404s', async () => {
    const data = await slotsOf(api, { username: host.username.toUpperCase(), eventTypeSlug: eventType.slug, start: MONDAY, end: MONDAY });
    assert.deepEqual(startsOf(data), NY_MONDAY_STARTS);
    assertError(await getSlots(api, { username: 'nobody-here', eventTypeSlug: eventType.slug, start: MONDAY, end: MONDAY }), 404, 'NotFoundException', 'User with username nobody-here not found');
    assertError(await getSlots(api, { username: host.username, eventTypeSlug: 'no-such-type', start: MONDAY, end: MONDAY }), 404, 'NotFoundException', 'Event Type not found');
    assertError(await getSlots(api, { eventTypeId: 999999, start: MONDAY, end: MONDAY }), 404, 'NotFoundException', 'Event Type not found');
    assertError(await getSlots(api, { teamSlug: 'team-x', eventTypeSlug: 'x', start: MONDAY, end: MONDAY }), 404, 'NotFoundException', 'Team with slug team-x not found');
    assertError(
      await getSlots(api, { username: host.username, eventTypeSlug: eventType.slug, organizationSlug: 'acme', start: MONDAY, end: MONDAY }),
      404, 'NotFoundException', 'slots-input.service.ts: Organization with slug acme not found',
    );
  });

  test('usernames: a dynamic group event every user attends, 30 minutes by default, duration from 15 to 90', async () => {
    const london = await createHost(api, 'Europe/London');
    const group = { usernames: `${host.username},${london.username},unknown-user`, start: MONDAY, end: MONDAY };
    // New York 14:00Z-22:00Z meets London 09:00Z-17:00Z at 14:00Z-17:00Z; the unknown user is left out, like the reference.
    const data = await slotsOf(api, group);
    assert.deepEqual(startsOf(data), ['14:00', '14:30', '15:00', '15:30', '16:00', '16:30'].map((time) => `${MONDAY}T${time}:00.000Z`));
    const hourly = await slotsOf(api, { ...group, duration: 60, format: 'range' });
    assert.deepEqual(hourly[MONDAY]![0], { start: `${MONDAY}T14:00:00.000Z`, end: `${MONDAY}T15:00:00.000Z` });
    assertNamesField(await getSlots(api, { ...group, duration: 20 }), 'duration');
    assertNamesField(await getSlots(api, { usernames: host.username, start: MONDAY, end: MONDAY }), 'usernames');
  });

  test('format=range adds the end; duration picks one of lengthInMinutesOptions and nothing else', async () => {
    const multi = await createEventType(api, host, { lengthInMinutes: 30, lengthInMinutesOptions: [30, 90] });
    const data = await slotsOf(api, { eventTypeId: multi.id, start: MONDAY, end: MONDAY, duration: 90, format: 'Range' });
    assert.deepEqual(data[MONDAY]![0], { start: `${MONDAY}T14:00:00.000Z`, end: `${MONDAY}T15:30:00.000Z` });
    assert.equal(data[MONDAY]!.length, 5); // every 90 minutes: 14:00, 15:30, 17:00, 18:30, 20:00
    assertNamesField(await getSlots(api, { eventTypeId: multi.id, start: MONDAY, end: MONDAY, duration: 45 }), 'duration');
    assertNamesField(await getSlots(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY, duration: 30 }), 'duration');
    assertNamesField(await getSlots(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY, format: 'list' }), 'format');
  });

  test('bad windows and values answer 400 naming the field', async () => {
    const reversed = await getSlots(api, { eventTypeId: eventType.id, start: '2027-01-05', end: '2027-01-04' });
    assertError(reversed, 400, 'BadRequestException', "Invalid time range given - check the 'start' and 'end' query parameters.");
    assertNamesField(reversed, 'end');
    assertNamesField(await getSlots(api, { eventTypeId: eventType.id, start: '2027-01-01', end: '2028-01-03' }), 'end');
    assertNamesField(await getSlots(api, { eventTypeId: eventType.id, start: '2027-02-30', end: '2027-03-01' }), 'start');
    assertNamesField(await getSlots(api, { eventTypeId: eventType.id, start: 'tomorrow', end: '2027-03-01' }), 'start');
    assertNamesField(await getSlots(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY, timeZone: 'Mars/Olympus' }), 'timeZone');
    assertNamesField(await getSlots(api, { eventTypeId: 'abc', start: MONDAY, end: MONDAY }), 'eventTypeId');
    assertNamesField(await getSlots(api, { start: MONDAY, end: MONDAY }), 'eventTypeId');
    assertNamesField(await getSlots(api, { eventTypeSlug: eventType.slug, start: MONDAY, end: MONDAY }), 'username');
    assertNamesField(await getSlots(api, { eventTypeId: eventType.id, end: MONDAY }), 'start');
    // A window of exactly 366 days is accepted.
    assert.equal((await getSlots(api, { eventTypeId: eventType.id, start: '2027-01-01', end: '2028-01-01' })).status, 200);
  });

  test('bookings block their time with buffers; cancelled ones do not; bookingUidToReschedule frees its own', async () => {
    const buffered = await createEventType(api, host, { beforeEventBuffer: 15, afterEventBuffer: 15 });
    const booked = await insertBooking(api, { userId: host.userId, eventTypeId: buffered.id, start: `${MONDAY}T16:00:00Z`, end: `${MONDAY}T17:00:00Z` });
    await insertBooking(api, { userId: host.userId, eventTypeId: buffered.id, start: `${MONDAY}T19:00:00Z`, end: `${MONDAY}T20:00:00Z`, status: 'cancelled' });
    const window = { start: MONDAY, end: MONDAY };
    // The plain event type loses 16:00 (the booking) and 15:00 and 17:00 (the booking's own buffers).
    assert.deepEqual(startsOf(await slotsOf(api, { ...window, eventTypeId: eventType.id })), NY_MONDAY_STARTS.filter((start) => !/T1[567]:/.test(start)));
    const rescheduling = await slotsOf(api, { ...window, eventTypeId: eventType.id, bookingUidToReschedule: booked.uid });
    assert.deepEqual(startsOf(rescheduling), NY_MONDAY_STARTS);
    await cancelBookings(api, host.userId, { uids: [booked.uid] });
  });

  test('pending bookings block only when their event type blocks unconfirmed bookings', async () => {
    const lax = await createEventType(api, host, { confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: false } });
    const strict = await createEventType(api, host, { confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: true } });
    const day = '2027-01-05';
    const pendingLax = await insertBooking(api, { userId: host.userId, eventTypeId: lax.id, start: `${day}T14:00:00Z`, end: `${day}T15:00:00Z`, status: 'pending' });
    const pendingStrict = await insertBooking(api, { userId: host.userId, eventTypeId: strict.id, start: `${day}T15:00:00Z`, end: `${day}T16:00:00Z`, status: 'pending' });
    const starts = startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: day, end: day }));
    assert.ok(starts.includes(`${day}T14:00:00.000Z`));
    assert.ok(!starts.includes(`${day}T15:00:00.000Z`));
    await cancelBookings(api, host.userId, { uids: [pendingLax.uid, pendingStrict.uid] });
  });

  test('seated event types show seat counts; a full slot disappears', async () => {
    const seated = await createEventType(api, host, { seats: { seatsPerTimeSlot: 3, showAttendeeInfo: false, showAvailabilityCount: true } });
    const day = '2027-01-06';
    const partly = await insertBooking(api, { userId: host.userId, eventTypeId: seated.id, start: `${day}T14:00:00Z`, end: `${day}T15:00:00Z`, attendees: 2 });
    await insertBooking(api, { userId: host.userId, eventTypeId: seated.id, start: `${day}T15:00:00Z`, end: `${day}T16:00:00Z`, attendees: 3 });
    const data = await slotsOf(api, { eventTypeId: seated.id, start: day, end: day });
    assert.deepEqual(data[day]![0], { start: `${day}T14:00:00.000Z`, seatsBooked: 2, seatsRemaining: 1, seatsTotal: 3, bookingUid: partly.uid });
    assert.deepEqual(data[day]![1], { start: `${day}T16:00:00.000Z`, seatsBooked: 0, seatsRemaining: 3, seatsTotal: 3 });
    // For the host's other event types the seated bookings are simply busy.
    const plain = startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: day, end: day }));
    assert.equal(plain[0], `${day}T16:00:00.000Z`);
    await cancelBookings(api, host.userId, { eventTypeId: seated.id });
  });

  test('booking limits close the organizer\'s day; onlyShowFirstAvailableSlot keeps one start a day', async () => {
    const limited = await createEventType(api, host, { bookingLimitsCount: { day: 1 } });
    const day = '2027-01-07';
    await insertBooking(api, { userId: host.userId, eventTypeId: limited.id, start: `${day}T22:30:00Z`, end: `${day}T23:00:00Z` });
    const data = await slotsOf(api, { eventTypeId: limited.id, start: day, end: '2027-01-08' });
    assert.deepEqual(Object.keys(data), ['2027-01-08']);
    const firstOnly = await createEventType(api, host, { onlyShowFirstAvailableSlot: true });
    const firsts = await slotsOf(api, { eventTypeId: firstOnly.id, start: '2027-01-11', end: '2027-01-13' });
    assert.deepEqual(startsOf(firsts), ['2027-01-11T14:00:00.000Z', '2027-01-12T14:00:00.000Z', '2027-01-13T14:00:00.000Z']);
  });

  test('hidden event types still have slots; a host without a schedule has none; no header serves the same shape', async () => {
    const hidden = await createEventType(api, host, { hidden: true });
    assert.equal(instants(await slotsOf(api, { eventTypeId: hidden.id, start: MONDAY, end: MONDAY })).length, 8);
    const noSchedule = await createHost(api, null);
    const unscheduled = await createEventType(api, noSchedule);
    assert.deepEqual(await slotsOf(api, { eventTypeId: unscheduled.id, start: MONDAY, end: MONDAY }), {});
    const headerless = await getSlots(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }, { version: null });
    assert.equal(headerless.status, 200);
    assert.deepEqual(startsOf(headerless.body.data), NY_MONDAY_STARTS);
  });
});

describe('GET /v2/slots and the clock', () => {
  let api: TestApp;
  let now = Date.parse('2027-01-04T15:10:00Z');
  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
  });
  after(() => api.close());

  test('minimum notice and booking windows are measured from now, in the organizer\'s zone', async () => {
    const host = await createHost(api, 'America/New_York');
    const noticed = await createEventType(api, host, { minimumBookingNotice: 120 });
    // Now is 10:10 in New York: with two hours' notice the first start is 13:00 (18:00Z).
    const today = startsOf(await slotsOf(api, { eventTypeId: noticed.id, start: MONDAY, end: MONDAY }));
    assert.equal(today[0], `${MONDAY}T18:00:00.000Z`);
    const windowed = await createEventType(api, host, { bookingWindow: { type: 'businessDays', value: 1, rolling: false } });
    const days = Object.keys(await slotsOf(api, { eventTypeId: windowed.id, start: MONDAY, end: '2027-01-08' }));
    assert.deepEqual(days, ['2027-01-04', '2027-01-05']);
    now = Date.parse('2027-01-05T04:30:00Z'); // still Monday 23:30 in New York
    const later = Object.keys(await slotsOf(api, { eventTypeId: windowed.id, start: MONDAY, end: '2027-01-08' }));
    assert.deepEqual(later, ['2027-01-05']);
  });
});
