import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { bookingEvents } from '../../src/db/schema.js';
import { cancelBookings } from '../support/bookings.js';
import type { ApiResponse, TestApp } from '../support/test-app.js';
import { createTestApp } from '../support/test-app.js';
import { assertError, assertNamesField, createEventType, createHost, type Host } from '../slots/helpers.js';
import { BOOKINGS_VERSION, booked, getBooking } from './helpers.js';

// 2027-01-04 is a Monday; the New York host works 14:00Z-22:00Z on weekdays.
const WEEKDAYS = ['2027-01-04', '2027-01-05', '2027-01-06', '2027-01-07', '2027-01-08'];
const BEFORE_ANY_BOOKING = Date.parse('2027-01-02T12:00:00Z');
const NOT_ATTENDING = 'You are not allowed to access this booking';

describe('booking details: mark-absent, guests, location, calendar links, references (svc-api-version 2024-08-13)', () => {
  let api: TestApp;
  let now = BEFORE_ANY_BOOKING;
  let host: Host;
  let stranger: Host;
  /** A user whose email is the booker's: an attendee of the bookings made for them. */
  let attendee: { apiKey: string; email: string };
  let eventType: any;
  let slot = 0;

  /** The next free hour of the host's week, as an ISO instant. */
  const nextStart = () => {
    const day = WEEKDAYS[Math.floor(slot / 8)]!;
    const hour = 14 + (slot % 8);
    slot += 1;
    assert.ok(day, 'test week has free hours left');
    return `${day}T${hour}:00:00.000Z`;
  };
  const bookOne = (fields: Record<string, unknown> = {}) =>
    booked(api, { eventTypeId: eventType.id, start: nextStart(), attendee: { name: 'Bob Booker', email: attendee.email, timeZone: 'Europe/Rome' }, ...fields });
  const send = (method: string, path: string, options: { key?: string; body?: unknown; version?: string | null; headers?: Record<string, string> } = {}) =>
    api.request(method, path, {
      ...(options.version === null ? {} : { version: options.version ?? BOOKINGS_VERSION }),
      ...(options.key ? { key: options.key } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
    });
  const markAbsent = (uid: string, body: unknown, key = host.apiKey, headers?: Record<string, string>) =>
    send('POST', `/v2/bookings/${uid}/mark-absent`, { key, body, ...(headers ? { headers } : {}) });
  const addGuests = (uid: string, guests: unknown, key = host.apiKey) => send('POST', `/v2/bookings/${uid}/guests`, { key, body: { guests } });
  const setLocation = (uid: string, body: unknown, key = host.apiKey) => send('PATCH', `/v2/bookings/${uid}/location`, { key, body });
  const calendarLinks = (uid: string, key = host.apiKey) => send('GET', `/v2/bookings/${uid}/calendar-links`, { key });
  const references = (uid: string, key = host.apiKey, query = '') => send('GET', `/v2/bookings/${uid}/references${query}`, { key });
  /** Runs `work` with the clock just after the booking's start. */
  const afterStart = async <T>(booking: any, work: () => Promise<T>): Promise<T> => {
    now = Date.parse(booking.start) + 60_000;
    try {
      return await work();
    } finally {
      now = BEFORE_ANY_BOOKING;
    }
  };

  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    host = await createHost(api, 'America/New_York', { name: 'Ada Host' });
    stranger = await createHost(api, 'UTC');
    const email = `attendee-${process.pid}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    attendee = { apiKey: (await api.createUser({ email })).apiKey, email };
    eventType = await createEventType(api, host, { lengthInMinutes: 60, locations: [{ type: 'address', address: 'Via Roma 1, Milano', public: true }] });
  });
  after(() => api.close());

  const endpoints = (uid: string) => [
    { method: 'POST', path: `/v2/bookings/${uid}/mark-absent`, body: { host: true } },
    { method: 'POST', path: `/v2/bookings/${uid}/guests`, body: { guests: [{ email: 'new@example.com' }] } },
    { method: 'PATCH', path: `/v2/bookings/${uid}/location`, body: { location: { type: 'address', address: 'Elsewhere 2' } } },
    { method: 'GET', path: `/v2/bookings/${uid}/calendar-links` },
    { method: 'GET', path: `/v2/bookings/${uid}/references` },
  ];

  test('every endpoint refuses a caller without credentials (401) and answers 404 for an unknown uid', async () => {
    const booking = await bookOne();
    for (const { method, path, body } of endpoints(booking.uid)) {
      assertError(await send(method, path, { body }), 401, 'UnauthorizedException');
    }
    for (const { method, path, body } of endpoints('no-such-booking')) {
      assertError(await send(method, path, { key: host.apiKey, body }), 404, 'NotFoundException', 'Booking with uid=no-such-booking was not found in the database');
    }
  });

  test('another user gets 403 with the reference messages', async () => {
    const booking = await bookOne();
    const messages = [
      NOT_ATTENDING,
      "You don't have necessary permissions to access this resource",
      'User is not authorized to update this booking location. User must be the event type owner, host, team admin or owner, or org admin or owner.',
      NOT_ATTENDING,
      `Booking with uid ${booking.uid} does not belong to user`,
    ];
    await afterStart(booking, async () => {
      for (const [index, { method, path, body }] of endpoints(booking.uid).entries()) {
        assertError(await send(method, path, { key: stranger.apiKey, body }), 403, 'ForbiddenException', messages[index]);
      }
    });
    // The attendee may read the links and add guests, but not mark absences, move the booking or read references.
    assertError(await markAbsent(booking.uid, { host: true }, attendee.apiKey), 403, 'ForbiddenException', NOT_ATTENDING);
    assertError(await setLocation(booking.uid, { location: { type: 'address', address: 'X' } }, attendee.apiKey), 403, 'ForbiddenException');
    assertError(await references(booking.uid, attendee.apiKey), 403, 'ForbiddenException', `Booking with uid ${booking.uid} does not belong to user`);
    assert.equal((await calendarLinks(booking.uid, attendee.apiKey)).status, 200);
  });

  test('guests and location exist only with svc-api-version 2024-08-13: 404 like an unknown route otherwise', async () => {
    const booking = await bookOne();
    const unknown = await send('POST', '/v2/bookings/x/no-such-route', { key: host.apiKey });
    assertError(unknown, 404, 'NotFoundException', 'Cannot POST /v2/bookings/x/no-such-route');
    for (const version of [null, '2024-06-14', '2099-01-01']) {
      for (const { method, path } of endpoints(booking.uid).slice(1, 3)) {
        // An invalid body too: the route is not found before anything is read.
        const response = await send(method, path, { key: host.apiKey, body: { guests: 'nope', location: 5 }, version });
        assertError(response, 404, 'NotFoundException', `Cannot ${method} ${path}`);
        assert.deepEqual(response.body.error.details, unknown.body.error.details);
        assert.equal(response.body.path, path);
      }
    }
    const unchanged = (await getBooking(api, booking.uid)).body.data;
    assert.equal(unchanged.location, booking.location);
    assert.equal(unchanged.attendees.length, booking.attendees.length);
  });

  describe('POST /v2/bookings/{uid}/mark-absent', () => {
    test('is refused before the booking starts, with both instants in the message', async () => {
      const booking = await bookOne();
      now = Date.parse(booking.start) - 1000;
      try {
        assertError(
          await markAbsent(booking.uid, { host: true }),
          400,
          'BadRequestException',
          `Bookings can only be marked as absent after their scheduled start time. Current time in UTC+0: ${new Date(now).toISOString()}, Booking start time in UTC+0: ${booking.start}`,
        );
      } finally {
        now = BEFORE_ANY_BOOKING;
      }
    });

    test('marks the host and attendees absent, records BOOKING_NO_SHOW_UPDATED, and can undo it', async () => {
      const booking = await bookOne({ guests: ['guest-one@example.com'] });
      const response = await afterStart(booking, () => markAbsent(booking.uid, { host: true, attendees: [{ email: attendee.email.toUpperCase(), absent: true }] }));
      assert.equal(response.status, 200, response.text);
      const data = response.body.data;
      assert.equal(data.uid, booking.uid);
      assert.equal(data.absentHost, true);
      assert.deepEqual(data.attendees.map((a: any) => [a.email, a.absent]), [[attendee.email, true], ['guest-one@example.com', false]]);
      const read = (await getBooking(api, booking.uid)).body.data;
      assert.equal(read.absentHost, true);
      assert.equal(read.attendees[0].absent, true);

      const undo = await afterStart(booking, () => markAbsent(booking.uid, { host: false, attendees: [{ email: attendee.email, absent: false }, { email: 'guest-one@example.com', absent: true }] }));
      assert.equal(undo.status, 200, undo.text);
      assert.equal(undo.body.data.absentHost, false);
      assert.deepEqual(undo.body.data.attendees.map((a: any) => a.absent), [false, true]);

      const events = await api.runtime.ctx.database.db.select().from(bookingEvents).where(eq(bookingEvents.bookingUid, booking.uid));
      const noShows = events.filter((event) => event.trigger === 'BOOKING_NO_SHOW_UPDATED').sort((a, b) => a.id - b.id);
      assert.equal(noShows.length, 2);
      assert.deepEqual(noShows[0]!.payload.attendees, [{ email: attendee.email, noShow: true }]);
      assert.equal(noShows[0]!.payload.message, `Host marked as no-show; ${attendee.email} marked as no-show`);
      assert.equal(noShows[0]!.payload.absentHost, true);
      assert.equal(noShows[0]!.userId, host.userId);
      assert.deepEqual(noShows[1]!.payload.attendees, [{ email: attendee.email, noShow: false }, { email: 'guest-one@example.com', noShow: true }]);
    });

    test('names an email that is not an attendee, and refuses cancelled bookings and bad bodies', async () => {
      const booking = await bookOne();
      await afterStart(booking, async () => {
        const response = await markAbsent(booking.uid, { attendees: [{ email: attendee.email, absent: true }, { email: 'nobody@example.com', absent: true }] });
        assertNamesField(response, 'attendees.1.email');
        assertNamesField(await markAbsent(booking.uid, { attendees: [] }), 'attendees');
        const many = Array.from({ length: 101 }, (_, i) => ({ email: `p${i}@example.com`, absent: true }));
        assertNamesField(await markAbsent(booking.uid, { attendees: many }), 'attendees');
        assertNamesField(await markAbsent(booking.uid, { attendees: [{ email: 'not-an-email', absent: true }] }), 'attendees.0.email');
        assertNamesField(await markAbsent(booking.uid, { host: 'yes' }), 'host');
      });
      const read = (await getBooking(api, booking.uid)).body.data;
      assert.equal(read.attendees[0].absent, false, 'nothing changed');

      const cancelled = await bookOne();
      await cancelBookings(api, host.userId, { uids: [cancelled.uid] });
      await afterStart(cancelled, async () => {
        assertError(await markAbsent(cancelled.uid, { host: true }), 400, 'BadRequestException', 'Absences cannot be marked on a cancelled booking.');
      });
    });

    test('an Idempotency-Key retry gets the first response back and records one event', async () => {
      const booking = await bookOne();
      const key = `absent-${booking.uid}`;
      const [first, second] = await afterStart(booking, async () => [
        await markAbsent(booking.uid, { host: true }, host.apiKey, { 'Idempotency-Key': key }),
        await markAbsent(booking.uid, { host: true }, host.apiKey, { 'Idempotency-Key': key }),
      ]);
      assert.equal(first!.status, 200, first!.text);
      assert.equal(second!.status, 200, second!.text);
      assert.equal(second!.headers.get('idempotent-replayed'), 'true');
      assert.equal(first!.headers.get('idempotent-replayed'), null);
      assert.deepEqual(second!.body, first!.body);
      const events = await api.runtime.ctx.database.db.select().from(bookingEvents).where(eq(bookingEvents.bookingUid, booking.uid));
      assert.equal(events.filter((event) => event.trigger === 'BOOKING_NO_SHOW_UPDATED').length, 1);

      // The 2024-08-13-only routes take the key too: a replayed guests call is not refused as "nothing new".
      const guestsKey = { 'Idempotency-Key': `guests-${booking.uid}` };
      const body = { guests: [{ email: 'once@example.com' }] };
      const added = await send('POST', `/v2/bookings/${booking.uid}/guests`, { key: host.apiKey, body, headers: guestsKey });
      const replayed = await send('POST', `/v2/bookings/${booking.uid}/guests`, { key: host.apiKey, body, headers: guestsKey });
      assert.equal(added.status, 200, added.text);
      assert.deepEqual([replayed.status, replayed.body, replayed.headers.get('idempotent-replayed')], [200, added.body, 'true']);
    });
  });

  describe('POST /v2/bookings/{uid}/guests', () => {
    test('the organizer adds guests: new emails only, defaults from the booker, listed in guests', async () => {
      const booking = await bookOne({ guests: ['first-guest@example.com'] });
      const response = await addGuests(booking.uid, [
        { email: 'Carol@Example.com', name: 'Carol', timeZone: 'Asia/Tokyo', phoneNumber: '+37120993151', language: 'it' },
        { email: 'dave@example.com' },
        { email: 'FIRST-GUEST@example.com' },
        { email: 'carol@example.com' },
      ]);
      assert.equal(response.status, 200, response.text);
      const data = response.body.data;
      assert.deepEqual(
        data.attendees.map((a: any) => ({ name: a.name, email: a.email, timeZone: a.timeZone, language: a.language, phoneNumber: a.phoneNumber })),
        [
          { name: 'Bob Booker', email: attendee.email, timeZone: 'Europe/Rome', language: 'en', phoneNumber: undefined },
          { name: 'first-guest@example.com', email: 'first-guest@example.com', timeZone: 'Europe/Rome', language: 'en', phoneNumber: undefined },
          { name: 'Carol', email: 'Carol@Example.com', timeZone: 'Asia/Tokyo', language: 'it', phoneNumber: '+37120993151' },
          { name: 'dave@example.com', email: 'dave@example.com', timeZone: 'Europe/Rome', language: 'en', phoneNumber: undefined },
        ],
      );
      assert.deepEqual(data.guests, ['first-guest@example.com', 'Carol@Example.com', 'dave@example.com']);
      assert.deepEqual(data.bookingFieldsResponses.guests, data.guests);
      assert.deepEqual((await getBooking(api, booking.uid)).body.data.attendees.length, 4);
    });

    test('an attendee may add guests; nothing new, too many at once or in all are refused', async () => {
      const booking = await bookOne();
      const byAttendee = await addGuests(booking.uid, [{ email: 'erin@example.com' }], attendee.apiKey);
      assert.equal(byAttendee.status, 200, byAttendee.text);
      assert.deepEqual(byAttendee.body.data.guests, ['erin@example.com']);

      const none = await addGuests(booking.uid, [{ email: 'ERIN@example.com' }, { email: attendee.email }]);
      assertNamesField(none, 'guests');
      assert.equal(none.body.error.message, 'guests must be new, valid and unique emails');
      const eleven = await addGuests(booking.uid, Array.from({ length: 11 }, (_, i) => ({ email: `g${i}@example.com` })));
      assertNamesField(eleven, 'guests');
      assert.equal(eleven.body.error.message, 'Cannot add more than 10 guests at a time');
      assertNamesField(await addGuests(booking.uid, []), 'guests');
      assertNamesField(await addGuests(booking.uid, [{ email: 'not-an-email' }]), 'guests.0.email');
      assertNamesField(await addGuests(booking.uid, [{ email: 'ok@example.com', phoneNumber: '12345' }]), 'guests.0.phoneNumber');
      assertNamesField(await addGuests(booking.uid, [{ email: 'ok@example.com', timeZone: 'Mars/Olympus' }]), 'guests.0.timeZone');
      assertNamesField(await send('POST', `/v2/bookings/${booking.uid}/guests`, { key: host.apiKey, body: {} }), 'guests');

      const crowded = await bookOne({ guests: Array.from({ length: 6 }, (_, i) => `crowd${i}@example.com`) });
      const tooMany = await addGuests(crowded.uid, Array.from({ length: 5 }, (_, i) => ({ email: `late${i}@example.com` })));
      assertNamesField(tooMany, 'guests');
      assert.equal(tooMany.body.error.message, 'Cannot add 5 guests. This booking already has 6 guests. Maximum total guests allowed is 10. You can add up to 4 more guests.');
      const fits = await addGuests(crowded.uid, Array.from({ length: 4 }, (_, i) => ({ email: `late${i}@example.com` })));
      assert.equal(fits.status, 200, fits.text);
      assert.equal(fits.body.data.attendees.length, 11);
    });

    test('event types without guests, seated and cancelled bookings are refused', async () => {
      const noGuests = await createEventType(api, host, { lengthInMinutes: 60, disableGuests: true });
      const closed = await booked(api, { eventTypeId: noGuests.id, start: nextStart(), attendee: { name: 'Bob', email: attendee.email, timeZone: 'UTC' } });
      const refused = await addGuests(closed.uid, [{ email: 'x@example.com' }]);
      assertNamesField(refused, 'guests');
      assert.equal(
        refused.body.error.message,
        `Cannot add guests to this booking. The guests field is disabled for event type "${noGuests.title}" (ID: ${noGuests.id}). Please contact the event organizer to enable guest additions.`,
      );

      const seatedType = await createEventType(api, host, { lengthInMinutes: 60, seats: { seatsPerTimeSlot: 3, showAttendeeInfo: false, showAvailabilityCount: true } });
      const seated = await booked(api, { eventTypeId: seatedType.id, start: nextStart(), attendee: { name: 'Bob', email: attendee.email, timeZone: 'UTC' } });
      assertNamesField(await addGuests(seated.uid, [{ email: 'x@example.com' }]), 'guests');

      const cancelled = await bookOne();
      await cancelBookings(api, host.userId, { uids: [cancelled.uid] });
      const response = await addGuests(cancelled.uid, [{ email: 'x@example.com' }]);
      assertNamesField(response, 'guests');
      assert.equal(response.body.error.message, 'Guests cannot be added to a cancelled booking.');
    });
  });

  describe('PATCH /v2/bookings/{uid}/location', () => {
    test('sets the location text and the location answer for every supported type', async () => {
      const booking = await bookOne();
      assert.equal(booking.location, 'Via Roma 1, Milano');
      const cases: [Record<string, string>, string][] = [
        [{ type: 'address', address: 'Piazza Duomo 1' }, 'Piazza Duomo 1'],
        [{ type: 'link', link: 'https://meet.example.com/abc' }, 'https://meet.example.com/abc'],
        [{ type: 'phone', phone: '+14155550123' }, '+14155550123'],
        [{ type: 'attendeeAddress', address: 'Bob\'s office' }, 'Bob\'s office'],
        [{ type: 'attendeePhone', phone: '+37120993151' }, '+37120993151'],
        [{ type: 'attendeeDefined', location: 'The usual café' }, 'The usual café'],
      ];
      for (const [location, text] of cases) {
        const response = await setLocation(booking.uid, { location });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.data.location, text);
        assert.deepEqual(response.body.data.bookingFieldsResponses.location, { value: location.type, optionValue: text });
      }
      const read = (await getBooking(api, booking.uid)).body.data;
      assert.equal(read.location, 'The usual café');
      assert.equal(read.bookingFieldsResponses.name, 'Bob Booker', 'other answers are kept');
    });

    test('no location returns the booking unchanged', async () => {
      const booking = await bookOne();
      for (const body of [{}, undefined]) {
        const response = await setLocation(booking.uid, body);
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.data.location, booking.location);
        assert.equal(response.body.data.updatedAt, booking.updatedAt);
      }
    });

    test('refuses other types and bad values, naming the field', async () => {
      const booking = await bookOne();
      for (const type of ['integration', 'organizersDefaultApp', 'carrierPigeon']) {
        const response = await setLocation(booking.uid, { location: { type, integration: 'zoom' } });
        assertNamesField(response, 'location.type');
        assert.equal(response.body.error.message, `Unsupported booking location type '${type}'. Valid types are address, link, phone, attendeePhone, attendeeAddress, and attendeeDefined.`);
      }
      const bad: [Record<string, string>, string][] = [
        [{ type: 'address' }, 'location.address'],
        [{ type: 'address', address: '   ' }, 'location.address'],
        [{ type: 'link', link: 'ftp://files.example.com' }, 'location.link'],
        [{ type: 'link', link: 'not a url' }, 'location.link'],
        [{ type: 'phone', phone: '555-0123' }, 'location.phone'],
        [{ type: 'attendeePhone' }, 'location.phone'],
        [{ type: 'attendeeAddress', location: 'wrong key' }, 'location.address'],
        [{ type: 'attendeeDefined', location: '' }, 'location.location'],
      ];
      for (const [location, field] of bad) assertNamesField(await setLocation(booking.uid, { location }), field);
      assertNamesField(await setLocation(booking.uid, { location: { address: 'no type' } }), 'location.type');
      assert.equal((await getBooking(api, booking.uid)).body.data.location, booking.location);
    });
  });

  describe('GET /v2/bookings/{uid}/calendar-links', () => {
    test('gives Google, Office, Outlook and ICS links; the ICS parses back', async () => {
      const notes = `Agenda, part one; part two: ${'a long line of notes that will need folding '.repeat(3)}— ünïcödé\nSecond line \\ done`;
      const booking = await bookOne({ guests: ['guest-ics@example.com'], bookingFieldsResponses: { notes } });
      const response = await calendarLinks(booking.uid);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.status, 'success');
      const links: { label: string; link: string }[] = response.body.data;
      assert.deepEqual(links.map((link) => link.label), ['Google Calendar', 'Microsoft Office', 'Microsoft Outlook', 'ICS']);

      const start = new Date(booking.start);
      const end = new Date(booking.end);
      const basic = (date: Date) => date.toISOString().replace(/\.000Z$/, 'Z').replace(/[-:]/g, '');
      const title = encodeURIComponent(booking.title);
      assert.equal(
        links[0]!.link,
        `https://calendar.google.com/calendar/r/eventedit?dates=${basic(start)}/${basic(end)}&text=${title}&details=${encodeURIComponent(notes)}&location=${encodeURIComponent('Via Roma 1, Milano')}`,
      );
      for (const [index, origin] of [[1, 'https://outlook.office.com'], [2, 'https://outlook.live.com']] as const) {
        const url = new URL(links[index]!.link);
        assert.equal(url.origin + url.pathname, `${origin}/calendar/0/deeplink/compose`);
        assert.deepEqual(Object.fromEntries(url.searchParams), {
          body: notes,
          enddt: booking.end,
          path: '/calendar/action/compose',
          rru: 'addevent',
          startdt: booking.start,
          subject: booking.title,
          location: 'Via Roma 1, Milano',
        });
      }

      const ics = links[3]!.link;
      assert.ok(ics.startsWith('data:text/calendar,'), ics.slice(0, 40));
      const text = decodeURIComponent(ics.slice('data:text/calendar,'.length));
      assert.ok(text.endsWith('END:VCALENDAR\r\n'));
      const raw = text.slice(0, -2).split('\r\n');
      for (const line of raw) assert.ok(Buffer.byteLength(line, 'utf8') <= 75, `line longer than 75 octets: ${line}`);
      assert.ok(raw.some((line) => line.startsWith(' ')), 'long lines are folded');
      const lines = text.replace(/\r\n[ \t]/g, '').slice(0, -2).split('\r\n');
      const value = (name: string) => lines.find((line) => line.startsWith(`${name}:`))?.slice(name.length + 1);
      const unescape = (escaped: string | undefined) => escaped?.replace(/\\([\\;,nN])/g, (_, c: string) => (c === 'n' || c === 'N' ? '\n' : c));
      assert.equal(lines[0], 'BEGIN:VCALENDAR');
      assert.equal(value('VERSION'), '2.0');
      assert.equal(lines.filter((line) => line === 'BEGIN:VEVENT').length, 1);
      assert.equal(value('UID'), booking.icsUid);
      assert.equal(value('DTSTART'), basic(start));
      assert.equal(value('DTEND'), basic(end));
      assert.match(value('DTSTAMP') ?? '', /^\d{8}T\d{6}Z$/);
      assert.equal(unescape(value('SUMMARY')), booking.title);
      assert.equal(unescape(value('DESCRIPTION')), notes);
      assert.equal(value('LOCATION'), 'Via Roma 1\\, Milano');
      assert.equal(value('STATUS'), 'CONFIRMED');
      const organizer = lines.find((line) => line.startsWith('ORGANIZER'));
      assert.match(organizer ?? '', /^ORGANIZER;CN="Ada Host":mailto:user-.*@example\.com$/i);
      const attendees = lines.filter((line) => line.startsWith('ATTENDEE'));
      assert.deepEqual(attendees.map((line) => line.slice(line.lastIndexOf(':') + 1).toLowerCase()), [attendee.email, 'guest-ics@example.com']);
      assert.ok(attendees[0]!.includes('CN="Bob Booker"'));
    });

    test('a booking on the built-in video app has its room as the location of its links', async () => {
      const videoType = await createEventType(api, host, { lengthInMinutes: 60 });
      const booking = await booked(api, { eventTypeId: videoType.id, start: nextStart(), attendee: { name: 'Bob', email: attendee.email, timeZone: 'UTC' } });
      assert.match(booking.location, /^https:\/\/meet\.jit\.si\/svc-/);
      const links: { link: string }[] = (await calendarLinks(booking.uid, attendee.apiKey)).body.data;
      assert.ok(links[0]!.link.includes(`location=${encodeURIComponent(booking.location)}`), links[0]!.link);
      assert.ok(decodeURIComponent(links[3]!.link).replace(/\r\n /g, '').includes(`LOCATION:${booking.location}`));
    });
  });

  describe('GET /v2/bookings/{uid}/references', () => {
    test('the organizer gets an empty list (svc writes no external references yet); type is checked', async () => {
      const booking = await bookOne();
      for (const query of ['', '?type=google_calendar', '?type=zoom_video']) {
        const response: ApiResponse = await references(booking.uid, host.apiKey, query);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, { status: 'success', data: [] });
      }
      assertNamesField(await references(booking.uid, host.apiKey, '?type=carrier_pigeon'), 'type');
    });
  });
});
