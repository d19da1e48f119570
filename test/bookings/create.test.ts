import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertError, assertNamesField, createEventType, createHost, type Host, slotsOf, startsOf } from '../slots/helpers.js';
import { book, booked, getBooking } from './helpers.js';

// 2027-01-04 is a Monday; the New York host works 14:00Z-22:00Z in January.
const at = (day: string, time: string) => `2027-01-${day}T${time}:00.000Z`;

async function eventsOf(api: TestApp, uid: string): Promise<string[]> {
  const result = await api.runtime.ctx.database.db.execute(sql`select trigger from booking_events where booking_uid = ${uid} order by id`);
  return (result as unknown as { rows: { trigger: string }[] }).rows.map((row) => row.trigger);
}

describe('POST /v2/bookings (svc-api-version 2024-08-13)', () => {
  let api: TestApp;
  let now = Date.parse('2027-01-01T12:00:00Z');
  let host: Host;
  let eventType: any;
  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    host = await createHost(api, 'America/New_York');
    eventType = await createEventType(api, host);
  });
  after(() => api.close());

  test('books a listed slot: the reference output, the slot gone from the listing, an event recorded', async () => {
    const data = await booked(api, { eventTypeId: eventType.id, start: at('04', '15:00'), guests: ['carol@example.com'], metadata: { source: 'test' } });
    assert.equal(data.status, 'accepted');
    assert.deepEqual([data.start, data.end, data.duration], [at('04', '15:00'), at('04', '16:00'), 60]);
    assert.deepEqual(data.eventType, { id: eventType.id, slug: eventType.slug });
    assert.equal(data.hosts[0].id, host.userId);
    assert.deepEqual(data.attendees.map((attendee: any) => attendee.email), ['bob@example.com', 'carol@example.com']);
    assert.deepEqual(data.guests, ['carol@example.com']);
    // The built-in video app's own room (test/conferencing/built-in-video.test.ts), also kept as metadata.videoCallUrl.
    assert.match(data.location, /^https:\/\/meet\.jit\.si\/svc-[\w-]{22}$/);
    // The reference always sends the deprecated meetingUrl, a copy of the location (2024-08-13 output.service.ts).
    assert.equal(data.meetingUrl, data.location);
    assert.deepEqual(data.metadata, { source: 'test', videoCallUrl: data.location });
    assert.equal(data.title, `Call between ${data.hosts[0].name} and Bob Booker`);
    assert.deepEqual(data.bookingFieldsResponses, {
      name: 'Bob Booker',
      email: 'bob@example.com',
      guests: ['carol@example.com'],
      location: { value: 'integration', optionValue: 'integrations:svc-video' },
      displayEmail: 'bob@example.com',
      displayGuests: ['carol@example.com'],
    });
    assert.ok(!startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: '2027-01-04', end: '2027-01-04' })).includes(at('04', '15:00')));
    assert.deepEqual(await eventsOf(api, data.uid), ['BOOKING_CREATED']);
    const read = await getBooking(api, data.uid);
    assert.deepEqual(read.body.data, data);
  });

  // The reference's output service (2024-08-13 output.service.ts): getDisplayEmail drops a managed
  // user's `+` and 25-character OAuth client id from every attendee's and host's displayEmail, adds
  // bookingFieldsResponses.displayEmail and .displayGuests, and getHost answers `username || "unknown"`.
  test('display addresses leave out a managed user\'s client id; a host without a username is "unknown"', async () => {
    const tag = `c${Math.random().toString(36).slice(2, 10).padEnd(24, '0')}`;
    const managedHost = await createHost(api, 'America/New_York', { email: `mel+${tag}@example.com` });
    const managedType = await createEventType(api, managedHost);
    const attendee = { name: 'Max Managed', email: `max+${tag}@example.com`, timeZone: 'UTC' };
    const data = await booked(api, { eventTypeId: managedType.id, start: at('06', '15:00'), attendee, guests: [`gus+${tag}@example.com`] });
    assert.deepEqual(data.attendees.map((each: any) => each.displayEmail), ['max@example.com', 'gus@example.com']);
    assert.deepEqual(data.attendees.map((each: any) => each.email), [attendee.email, `gus+${tag}@example.com`]);
    assert.equal(data.hosts[0].displayEmail, 'mel@example.com');
    assert.equal(data.hosts[0].email, `mel+${tag}@example.com`);
    assert.equal(data.bookingFieldsResponses.displayEmail, 'max@example.com');
    assert.deepEqual(data.bookingFieldsResponses.displayGuests, ['gus@example.com']);
    assert.deepEqual(data.guests, [`gus+${tag}@example.com`]);
    await api.runtime.ctx.database.db.execute(sql`update users set username = null where id = ${managedHost.userId}`);
    assert.equal((await getBooking(api, data.uid)).body.data.hosts[0].username, 'unknown');
  });

  test('a taken, off-hours, past or too-soon start answers the reference 400s and writes nothing', async () => {
    await booked(api, { eventTypeId: eventType.id, start: at('05', '15:00') });
    assertError(await book(api, { eventTypeId: eventType.id, start: at('05', '15:00') }), 400, 'BadRequestException', 'User either already has booking at this time or is not available');
    assertError(await book(api, { eventTypeId: eventType.id, start: at('05', '23:00') }), 400, 'BadRequestException', 'User either already has booking at this time or is not available');
    assertError(await book(api, { eventTypeId: eventType.id, start: '2026-12-31T15:00:00Z' }), 400, 'BadRequestException', 'Attempting to book a meeting in the past.');
    const noticed = await createEventType(api, host, { minimumBookingNotice: 60 * 24 * 7 });
    const tooSoon = await book(api, { eventTypeId: noticed.id, start: at('05', '16:00') });
    assertError(tooSoon, 400, 'BadRequestException', /^The event type can't be booked at the "start" time provided/);
    const count = await api.runtime.ctx.database.db.execute(sql`select count(*)::int as n from bookings where start_at = ${at('05', '16:00')}::timestamptz`);
    assert.equal((count as unknown as { rows: { n: number }[] }).rows[0]!.n, 0);
  });

  test('by username and eventTypeSlug; unknown event types, users and teams answer 404', async () => {
    const data = await booked(api, { username: host.username, eventTypeSlug: eventType.slug, start: at('06', '15:00') });
    assert.equal(data.eventTypeId, eventType.id);
    assertError(await book(api, { eventTypeId: 999999, start: at('06', '16:00') }), 404, 'NotFoundException', 'Event type with id 999999 not found.');
    assertError(await book(api, { username: 'nobody-at-all', eventTypeSlug: 'x', start: at('06', '16:00') }), 404, 'NotFoundException', 'User with username nobody-at-all not found');
    assertError(await book(api, { teamSlug: 'acme', eventTypeSlug: 'x', start: at('06', '16:00') }), 404, 'NotFoundException', 'Team with slug acme not found');
    assertNamesField(await book(api, { start: at('06', '16:00') }), 'eventTypeId');
  });

  test('bookingRequiresAuthentication: only the owner may book', async () => {
    const guarded = await createEventType(api, host, { bookingRequiresAuthentication: true });
    assertError(await book(api, { eventTypeId: guarded.id, start: at('07', '15:00') }), 401, 'UnauthorizedException', /request must be authenticated/);
    const stranger = await createHost(api, 'UTC');
    assertError(await book(api, { eventTypeId: guarded.id, start: at('07', '15:00') }, { key: stranger.apiKey }), 403, 'ForbiddenException', /user is not authorized to access this event type/);
    await booked(api, { eventTypeId: guarded.id, start: at('07', '15:00') }, { key: host.apiKey });
  });

  test('booking-field answers are checked against the form with the reference messages', async () => {
    const formed = await createEventType(api, host, {
      bookingFields: [
        { type: 'select', slug: 'topic', label: 'Topic', required: true, options: ['sales', 'support'] },
        { type: 'number', slug: 'seats', label: 'Seats', required: false },
        { type: 'phone', slug: 'mobile', label: 'Mobile', required: false },
      ],
    });
    const base = { eventTypeId: formed.id, start: at('08', '15:00') };
    const missing = await book(api, base);
    assertError(missing, 400, 'BadRequestException', `Missing required booking field response: topic - it is required by the event type booking fields, but missing in the bookingFieldsResponses. You can fetch the event type with ID ${formed.id} to see the required fields.`);
    assertNamesField(missing, 'bookingFieldsResponses.topic');
    assertError(await book(api, { ...base, bookingFieldsResponses: { topic: 'billing' } }), 400, 'BadRequestException', "Invalid option 'billing' for booking field 'topic'. Allowed options are: sales, support.");
    assertError(await book(api, { ...base, bookingFieldsResponses: { topic: 'sales', seats: '3' } }), 400, 'BadRequestException', "Invalid type for booking field 'seats'. Expected type number (compatible with field type 'number'), but received string.");
    assertNamesField(await book(api, { ...base, bookingFieldsResponses: { topic: 'sales', mobile: '555-1234' } }), 'bookingFieldsResponses.mobile');
    const data = await booked(api, { ...base, bookingFieldsResponses: { topic: 'sales', seats: 3, notes: 'hi', unknown: 'dropped' } });
    assert.deepEqual([data.bookingFieldsResponses.topic, data.bookingFieldsResponses.seats, data.bookingFieldsResponses.notes, data.bookingFieldsResponses.unknown], ['sales', 3, 'hi', undefined]);
    assert.equal(data.description, 'hi');
  });

  test('guests are refused when the event type disables them; the attendee needs an email', async () => {
    const noGuests = await createEventType(api, host, { disableGuests: true });
    assertNamesField(await book(api, { eventTypeId: noGuests.id, start: at('11', '15:00'), guests: ['x@example.com'] }), 'guests');
    assertNamesField(await book(api, { eventTypeId: noGuests.id, start: at('11', '15:00'), attendee: { name: 'No Mail', timeZone: 'UTC' } }), 'attendee.email');
    assertNamesField(await book(api, { eventTypeId: noGuests.id, start: at('11', '15:00'), attendee: { name: 'Bad', email: 'bad', timeZone: 'UTC' } }), 'attendee.email');
    assertNamesField(await book(api, { eventTypeId: noGuests.id, start: at('11', '15:00'), attendee: { name: 'Bad', email: 'b@example.com', timeZone: 'Mars/Base' } }), 'attendee.timeZone');
  });

  test('location: one of the event type\'s, with the booker\'s value where the kind asks for one', async () => {
    const places = await createEventType(api, host, { locations: [{ type: 'address', address: '1 Main St', public: true }, { type: 'attendeePhone' }] });
    const addressed = await booked(api, { eventTypeId: places.id, start: at('12', '15:00') });
    assert.deepEqual([addressed.location, addressed.meetingUrl], ['1 Main St', '1 Main St']);
    const phoned = await booked(api, { eventTypeId: places.id, start: at('12', '16:00'), location: { type: 'attendeePhone', phone: '+37120993151' } });
    assert.equal(phoned.location, '+37120993151');
    assertError(
      await book(api, { eventTypeId: places.id, start: at('12', '17:00'), location: { type: 'link' } }),
      400, 'BadRequestException',
      `Booking location with type link not valid for event type with id=${places.id}. The event type has following location types: address, attendeePhone, and only these types are allowed for booking location.`,
    );
    assertNamesField(await book(api, { eventTypeId: places.id, start: at('12', '17:00'), location: { type: 'attendeePhone', phone: '12' } }), 'location.phone');
  });

  test('lengthInMinutes: only among the event type\'s lengths', async () => {
    assertError(await book(api, { eventTypeId: eventType.id, start: at('13', '15:00'), lengthInMinutes: 30 }), 400, 'BadRequestException', /^Can't specify 'lengthInMinutes' because event type does not have multiple possible lengths/);
    const multi = await createEventType(api, host, { lengthInMinutes: 30, lengthInMinutesOptions: [30, 90] });
    assertError(await book(api, { eventTypeId: multi.id, start: at('13', '15:00'), lengthInMinutes: 45 }), 400, 'BadRequestException', "Provided 'lengthInMinutes' is not one of the possible lengths for the event type. The possible lengths are: 30, 90");
    // 90-minute slots step every 90 minutes from 09:00 New York (14:00Z).
    const long = await booked(api, { eventTypeId: multi.id, start: at('13', '14:00'), lengthInMinutes: 90 });
    assert.deepEqual([long.end, long.duration], [at('13', '15:30'), 90]);
  });

  test('confirmation policies: always pending, or pending only inside the notice threshold', async () => {
    const always = await createEventType(api, host, { confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: true } });
    const pending = await booked(api, { eventTypeId: always.id, start: at('14', '15:00') });
    assert.equal(pending.status, 'pending');
    assert.deepEqual(await eventsOf(api, pending.uid), ['BOOKING_REQUESTED']);
    const threshold = await createEventType(api, host, { confirmationPolicy: { type: 'time', noticeThreshold: { unit: 'hours', count: 24 * 5 }, blockUnconfirmedBookingsInBooker: false } });
    assert.equal((await booked(api, { eventTypeId: threshold.id, start: at('05', '19:00') })).status, 'pending'); // within 5 days of now
    assert.equal((await booked(api, { eventTypeId: threshold.id, start: at('14', '19:00') })).status, 'accepted');
  });

  test('bookerActiveBookingsLimit: the reference 400, offering the existing booking to reschedule', async () => {
    const limited = await createEventType(api, host, { bookerActiveBookingsLimit: { maximumActiveBookings: 1, offerReschedule: true } });
    const attendee = { name: 'Limited', email: 'limited@example.com', timeZone: 'UTC' };
    const first = await booked(api, { eventTypeId: limited.id, start: at('15', '15:00'), attendee });
    const second = await book(api, { eventTypeId: limited.id, start: at('15', '16:00'), attendee });
    assertError(second, 400, 'BadRequestException', `Attendee with this email can't book because the maximum number of active bookings has been reached. You can reschedule your existing booking (${first.uid}) to a new timeslot instead.`);
    await booked(api, { eventTypeId: limited.id, start: at('15', '16:00'), attendee: { ...attendee, email: 'other@example.com' } });
  });

  test('a reserved slot: refused to others, bookable with its reservationUid, which it uses up', async () => {
    const reservation = await api.request('POST', '/v2/slots/reservations', { version: '2024-09-04', body: { eventTypeId: eventType.id, slotStart: at('18', '15:00') } });
    const uid = reservation.body.data.reservationUid;
    assertError(await book(api, { eventTypeId: eventType.id, start: at('18', '15:00') }), 400, 'BadRequestException', 'User either already has booking at this time or is not available');
    await booked(api, { eventTypeId: eventType.id, start: at('18', '15:00'), reservationUid: uid });
    assert.equal((await api.request('GET', `/v2/slots/reservations/${uid}`, { version: '2024-09-04' })).body.data, null);
  });

  test('Idempotency-Key: a retry replays the first answer and books nothing more; another body is a 422', async () => {
    const booker = await api.createUser();
    const body = { eventTypeId: eventType.id, start: at('19', '15:00') };
    const headers = { 'Idempotency-Key': `key-${Math.random()}` };
    const first = await book(api, body, { headers, key: booker.apiKey });
    const retry = await book(api, body, { headers, key: booker.apiKey });
    assert.equal(first.status, 201);
    assert.deepEqual([retry.status, retry.body], [201, first.body]);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assertError(await book(api, { ...body, start: at('19', '16:00') }, { headers, key: booker.apiKey }), 422, 'UnprocessableEntityException');
    const rows = await api.runtime.ctx.database.db.execute(sql`select count(*)::int as n from bookings where event_type_id = ${eventType.id} and start_at >= ${at('19', '00:00')}::timestamptz and start_at < ${at('20', '00:00')}::timestamptz`);
    assert.equal((rows as unknown as { rows: { n: number }[] }).rows[0]!.n, 1);
    // After 24 hours the key is forgotten: it may name a new request.
    const savedNow = now;
    now += 24 * 3_600_000 + 1;
    assert.equal((await book(api, { ...body, start: at('19', '16:00') }, { headers, key: booker.apiKey })).status, 201);
    now = savedNow;
    // A failed request keeps no key: once the slot is free, the same key books.
    const failing = { 'Idempotency-Key': `fail-${Math.random()}` };
    assert.equal((await book(api, { eventTypeId: eventType.id, start: at('19', '23:00') }, { headers: failing })).status, 400);
    assert.equal((await book(api, { eventTypeId: eventType.id, start: at('19', '23:00') }, { headers: failing })).status, 400);
  });

  test('Idempotency-Key of anonymous callers: bound to the exact request, so a key alone reads no one\'s answer', async () => {
    const headers = { 'Idempotency-Key': `anonymous-${Math.random()}` };
    const first = await book(api, { eventTypeId: eventType.id, start: at('20', '15:00') }, { headers });
    assert.equal(first.status, 201, first.text);
    const replay = await book(api, { eventTypeId: eventType.id, start: at('20', '15:00') }, { headers });
    assert.deepEqual([replay.status, replay.headers.get('idempotent-replayed'), replay.body], [201, 'true', first.body]);
    // Someone else with the same key and another request gets their own answer, not the first booking's uid.
    const other = await book(api, { eventTypeId: eventType.id, start: at('20', '16:00'), attendee: { name: 'Eve', email: 'eve@example.com', timeZone: 'UTC' } }, { headers });
    assert.equal(other.status, 201, other.text);
    assert.equal(other.headers.get('idempotent-replayed'), null);
    assert.notEqual(other.body.data.uid, first.body.data.uid);
  });

  test('stored Idempotency-Key answers are sealed: nothing of the response lies in the table in clear', async () => {
    const headers = { 'Idempotency-Key': `sealed-${Math.random()}` };
    const first = await book(api, { eventTypeId: eventType.id, start: at('20', '17:00') }, { headers });
    assert.equal(first.status, 201, first.text);
    const rows = await api.runtime.ctx.database.db.execute(sql`select response_body::text as body from idempotency_keys where key = ${headers['Idempotency-Key']}`);
    const stored = (rows as unknown as { rows: { body: string }[] }).rows[0]!.body;
    assert.ok(!stored.includes(first.body.data.uid), stored);
    assert.match(stored, /^\{"sealed": "v1:/);
  });
});

describe('POST /v2/bookings: recurring and seated event types', () => {
  let api: TestApp;
  const now = Date.parse('2027-01-01T12:00:00Z');
  let host: Host;
  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    host = await createHost(api, 'America/New_York');
  });
  after(() => api.close());

  test('a weekly series keeps its local time across the DST change and comes back as an array', async () => {
    const weekly = await createEventType(api, host, { recurrence: { interval: 1, occurrences: 4, frequency: 'weekly' } });
    const series = await booked(api, { eventTypeId: weekly.id, start: '2027-03-08T15:00:00Z', recurrenceCount: 3 });
    assert.ok(Array.isArray(series));
    // 10:00 in New York: EST on March 8, EDT from March 14.
    assert.deepEqual(series.map((booking: any) => booking.start), ['2027-03-08T15:00:00.000Z', '2027-03-15T14:00:00.000Z', '2027-03-22T14:00:00.000Z']);
    assert.equal(new Set(series.map((booking: any) => booking.recurringBookingUid)).size, 1);
    const bySeries = await getBooking(api, series[0].recurringBookingUid);
    assert.deepEqual(bySeries.body.data.map((booking: any) => booking.uid), series.map((booking: any) => booking.uid));
    assertNamesField(await book(api, { eventTypeId: weekly.id, start: '2027-04-05T14:00:00Z', recurrenceCount: 5 }), 'recurrenceCount');
  });

  test('every occurrence is checked: a conflict on the third refuses the whole series', async () => {
    const weekly = await createEventType(api, host, { recurrence: { interval: 1, occurrences: 3, frequency: 'weekly' } });
    const other = await createEventType(api, host);
    await booked(api, { eventTypeId: other.id, start: '2027-05-17T14:00:00Z' });
    const refused = await book(api, { eventTypeId: weekly.id, start: '2027-05-03T14:00:00Z' });
    assertError(refused, 400, 'BadRequestException', 'User either already has booking at this time or is not available');
    assert.equal(refused.body.error.details.occurrence, 2);
    const written = await api.runtime.ctx.database.db.execute(sql`select count(*)::int as n from bookings where event_type_id = ${weekly.id}`);
    assert.equal((written as unknown as { rows: { n: number }[] }).rows[0]!.n, 0);
    assertNamesField(await book(api, { eventTypeId: other.id, start: '2027-05-03T14:00:00Z', recurrenceCount: 2 }), 'recurrenceCount');
  });

  test('seats: the first booker opens the seated booking, the next ones take seats of it', async () => {
    const seated = await createEventType(api, host, { seats: { seatsPerTimeSlot: 2, showAttendeeInfo: false, showAvailabilityCount: true } });
    const start = '2027-06-07T14:00:00Z';
    const first = await booked(api, { eventTypeId: seated.id, start });
    const second = await booked(api, { eventTypeId: seated.id, start, attendee: { name: 'Second', email: 'second@example.com', timeZone: 'UTC' } });
    assert.equal(second.uid, first.uid);
    assert.ok(first.seatUid && second.seatUid && first.seatUid !== second.seatUid);
    assert.equal(second.bookingFieldsResponses, undefined);
    assert.deepEqual(second.attendees, []);
    assertError(await book(api, { eventTypeId: seated.id, start, attendee: { name: 'Third', email: 'third@example.com', timeZone: 'UTC' } }), 409, 'ConflictException', 'No more seats left at this seated booking.');
    const asOwner = await getBooking(api, first.uid, host.apiKey);
    assert.deepEqual(asOwner.body.data.attendees.map((attendee: any) => [attendee.email, attendee.seatUid]), [['bob@example.com', first.seatUid], ['second@example.com', second.seatUid]]);
    assert.equal((await getBooking(api, first.uid)).body.data.attendees.length, 0);
    assertNamesField(await book(api, { eventTypeId: seated.id, start: '2027-06-07T15:00:00Z', guests: ['g@example.com'] }), 'guests');
  });

  test('an unknown booking uid is a 404; the reference envelope and version-less calls', async () => {
    assertError(await getBooking(api, 'no-such-booking'), 404, 'NotFoundException', 'Booking with uid=no-such-booking was not found in the database');
    const headerless = await api.request('POST', '/v2/bookings', { body: { eventTypeId: (await createEventType(api, host)).id, start: '2027-06-08T14:00:00Z', attendee: { name: 'A', email: 'a@example.com', timeZone: 'UTC' } } });
    assert.equal(headerless.status, 201, headerless.text);
    assert.equal(headerless.body.data.status, 'accepted');
  });
});
