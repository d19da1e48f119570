import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { assertError, createEventType, slotsOf, startsOf } from '../slots/helpers.js';
import { createTestApp, type ApiResponse, type TestApp } from '../support/test-app.js';
import { book, BOOKINGS_VERSION, booked, getBooking } from './helpers.js';

// 2027-01-04 is a Monday; a New York host works 14:00Z-22:00Z in January.
const START_CLOCK = Date.parse('2027-01-02T12:00:00Z');
const at = (day: string, time: string) => `${day}T${time}:00.000Z`;
const ALREADY_CANCELLED = (uid: string) => `Can't cancel booking with uid=${uid} because it has been cancelled already. Please provide uid of a booking that is not cancelled.`;
const NOT_A_HOST = 'User not a host of this event or an admin of the booking user';
const SLOT_TAKEN = 'User either already has booking at this time or is not available';

interface Organizer {
  userId: number;
  username: string;
  apiKey: string;
  email: string;
}

describe('booking changes: cancel, reschedule, confirm, decline (svc-api-version 2024-08-13)', () => {
  let api: TestApp;
  let now = START_CLOCK;
  let stranger: Organizer;
  let counter = 0;

  const newHost = async (): Promise<Organizer> => {
    counter += 1;
    const username = `changes-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 6)}`;
    const { user, apiKey } = await api.createUser({ timeZone: 'America/New_York', username });
    return { userId: user.id, username, apiKey, email: user.email };
  };
  const post = (path: string, body?: unknown, key?: string, headers?: Record<string, string>) =>
    api.request('POST', path, { version: BOOKINGS_VERSION, ...(body === undefined ? {} : { body }), ...(key ? { key } : {}), ...(headers ? { headers } : {}) });
  const cancel = (uid: string, body: Record<string, unknown> = {}, key?: string, headers?: Record<string, string>) => post(`/v2/bookings/${uid}/cancel`, body, key, headers);
  const reschedule = (uid: string, body: Record<string, unknown>, key?: string) => post(`/v2/bookings/${uid}/reschedule`, body, key);
  const confirm = (uid: string, key?: string) => post(`/v2/bookings/${uid}/confirm`, undefined, key);
  const decline = (uid: string, body: Record<string, unknown> = {}, key?: string) => post(`/v2/bookings/${uid}/decline`, body, key);
  const ok = (response: ApiResponse, status = 200) => {
    assert.equal(response.status, status, response.text);
    return response.body.data;
  };
  const events = async (uid: string): Promise<{ trigger: string; payload: any }[]> => {
    const result = await api.runtime.ctx.database.db.execute(sql`select trigger, payload from booking_events where booking_uid = ${uid} order by id`);
    return (result as unknown as { rows: { trigger: string; payload: any }[] }).rows;
  };
  const triggers = async (uid: string) => (await events(uid)).map((event) => event.trigger);
  const listed = async (eventTypeId: number, start: string) => startsOf(await slotsOf(api, { eventTypeId, start: start.slice(0, 10), end: start.slice(0, 10) })).includes(start);
  const statuses = (data: any[]) => data.map((booking) => booking.status);
  /** Runs `work` with the clock at `instant`, then puts it back. */
  const atTime = async <T>(instant: string, work: () => Promise<T>): Promise<T> => {
    const saved = now;
    now = Date.parse(instant);
    try {
      return await work();
    } finally {
      now = saved;
    }
  };

  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    stranger = await newHost();
  });
  after(() => api.close());

  describe('cancel', () => {
    test('anyone holding the uid cancels; the slot is bookable again; BOOKING_CANCELLED is recorded', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host);
      const start = at('2027-01-04', '15:00');
      const booking = await booked(api, { eventTypeId: eventType.id, start });
      assert.equal(await listed(eventType.id, start), false);

      const data = ok(await cancel(booking.uid, { cancellationReason: 'Plans changed' }));
      assert.deepEqual([data.uid, data.status, data.cancellationReason, data.cancelledByEmail], [booking.uid, 'cancelled', 'Plans changed', 'bob@example.com']);
      assert.equal(ok(await getBooking(api, booking.uid)).status, 'cancelled');
      assert.equal(await listed(eventType.id, start), true, 'GET /v2/slots offers the time again');
      const evs = await events(booking.uid);
      assert.deepEqual(evs.map((event) => event.trigger), ['BOOKING_CREATED', 'BOOKING_CANCELLED']);
      assert.deepEqual([evs[1]!.payload.status, evs[1]!.payload.cancellationReason], ['cancelled', 'Plans changed']);
      ok(await book(api, { eventTypeId: eventType.id, start }), 201);

      assertError(await cancel(booking.uid), 400, 'BadRequestException', ALREADY_CANCELLED(booking.uid));
      assert.equal((await triggers(booking.uid)).length, 2, 'a refused cancel records nothing');
    });

    test('unknown uid, ended booking, bad credentials; the organizer must give a reason; the caller\'s email is kept', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host);
      assertError(await cancel('no-such-booking'), 404, 'NotFoundException', 'Booking with uid=no-such-booking was not found in the database');
      const first = await booked(api, { eventTypeId: eventType.id, start: at('2027-01-04', '15:00') });
      assertError(await cancel(first.uid, {}, 'svc_0000000000000000000000000000dead'), 401, 'UnauthorizedException');
      assertError(await cancel(first.uid, {}, host.apiKey), 400, 'BadRequestException', 'Cancellation reason is required when you are the host');
      assertError(await cancel(first.uid, { cancellationReason: '   ' }, host.apiKey), 400, 'BadRequestException', 'Cancellation reason is required when you are the host');
      const byHost = ok(await cancel(first.uid, { cancellationReason: 'Sick' }, host.apiKey));
      assert.deepEqual([byHost.status, byHost.cancelledByEmail], ['cancelled', host.email]);

      const second = await booked(api, { eventTypeId: eventType.id, start: at('2027-01-04', '17:00') });
      const byStranger = ok(await post(`/v2/bookings/${second.uid}/cancel`, undefined, stranger.apiKey));
      assert.deepEqual([byStranger.status, byStranger.cancelledByEmail], ['cancelled', stranger.email]);

      const third = await booked(api, { eventTypeId: eventType.id, start: at('2027-01-04', '19:00') });
      await atTime('2027-01-04T20:01:00Z', async () => {
        assertError(await cancel(third.uid), 400, 'BadRequestException', 'Cannot cancel a booking that has already ended');
      });
      assert.equal(ok(await getBooking(api, third.uid)).status, 'accepted');
      assert.deepEqual(await triggers(third.uid), ['BOOKING_CREATED']);
    });

    test('disableCancelling: only the organizer may cancel', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host, { disableCancelling: { disabled: true } });
      const booking = await booked(api, { eventTypeId: eventType.id, start: at('2027-01-05', '15:00') });
      assertError(await cancel(booking.uid), 400, 'BadRequestException', 'This event type does not allow cancellations');
      assertError(await cancel(booking.uid, { cancellationReason: 'x' }, stranger.apiKey), 400, 'BadRequestException', 'This event type does not allow cancellations');
      assert.deepEqual(await triggers(booking.uid), ['BOOKING_CREATED']);
      assert.equal(ok(await cancel(booking.uid, { cancellationReason: 'Host says so' }, host.apiKey)).status, 'cancelled');
    });

    test('recurring: a series uid cancels every upcoming occurrence; cancelSubsequentBookings this one and the later ones', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host, { recurrence: { interval: 1, occurrences: 4, frequency: 'weekly' } });
      const series = ok(await book(api, { eventTypeId: eventType.id, start: at('2027-01-05', '15:00') }), 201);
      assert.equal(series.length, 4);
      const seriesUid = series[0].recurringBookingUid;
      assertError(
        await cancel(seriesUid, { cancelSubsequentBookings: true }),
        400, 'BadRequestException',
        'Cannot cancel subsequent bookings for recurring event - you have to provide uid of one of the individual bookings of a recurring booking.',
      );
      const data = ok(await cancel(series[1].uid, { cancelSubsequentBookings: true, cancellationReason: 'Enough' }));
      assert.deepEqual(data.map((booking: any) => booking.uid), series.map((booking: any) => booking.uid));
      assert.deepEqual(statuses(data), ['accepted', 'cancelled', 'cancelled', 'cancelled']);
      for (const booking of series.slice(1)) assert.deepEqual(await triggers(booking.uid), ['BOOKING_CREATED', 'BOOKING_CANCELLED']);
      assert.equal(await listed(eventType.id, at('2027-01-12', '15:00')), true);

      const single = await createEventType(api, host);
      const lone = await booked(api, { eventTypeId: single.id, start: at('2027-01-04', '15:00') });
      assertError(await cancel(lone.uid, { cancelSubsequentBookings: true }), 400, 'BadRequestException', `Booking with bookingUid=${lone.uid} is not part of a recurring booking.`);
      assert.equal(ok(await getBooking(api, lone.uid)).status, 'accepted');

      const other = ok(await book(api, { eventTypeId: eventType.id, start: at('2027-01-06', '15:00') }), 201);
      const otherUid = other[0].recurringBookingUid;
      await atTime('2027-01-06T17:00:00Z', async () => {
        const cancelled = ok(await cancel(otherUid));
        assert.deepEqual(statuses(cancelled), ['accepted', 'cancelled', 'cancelled', 'cancelled'], 'the occurrence already past stays');
        assertError(await cancel(otherUid), 400, 'BadRequestException', ALREADY_CANCELLED(otherUid));
      });
    });

    test('seats: a seatUid frees one seat (the last one cancels the booking); only the organizer cancels a whole seated booking', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host, { seats: { seatsPerTimeSlot: 3, showAttendeeInfo: false, showAvailabilityCount: true } });
      const start = at('2027-01-07', '15:00');
      const first = ok(await book(api, { eventTypeId: eventType.id, start }), 201);
      const second = ok(await book(api, { eventTypeId: eventType.id, start, attendee: { name: 'Cy', email: 'cy@example.com', timeZone: 'UTC' } }), 201);
      assert.equal(second.uid, first.uid);
      const elsewhere = ok(await book(api, { eventTypeId: eventType.id, start: at('2027-01-07', '17:00') }), 201);

      assertError(await cancel(first.uid), 401, 'UnauthorizedException', NOT_A_HOST);
      assertError(await cancel(first.uid, {}, stranger.apiKey), 403, 'ForbiddenException', NOT_A_HOST);
      assertError(await cancel(first.uid, { seatUid: 'nope' }), 400, 'BadRequestException', 'Invalid seatUid: this seat does not exist or has already been cancelled.');
      assertError(await cancel(first.uid, { seatUid: elsewhere.seatUid }), 400, 'BadRequestException', 'Invalid seatUid: this seat does not belong to this booking.');

      assert.equal(ok(await cancel(first.uid, { seatUid: first.seatUid })).status, 'accepted');
      const seen = ok(await getBooking(api, first.uid, host.apiKey));
      assert.deepEqual(seen.attendees.map((attendee: any) => attendee.seatUid), [second.seatUid]);
      assertError(await cancel(first.uid, { seatUid: first.seatUid }), 400, 'BadRequestException', 'Invalid seatUid: this seat does not exist or has already been cancelled.');
      const last = ok(await cancel(first.uid, { seatUid: second.seatUid, cancellationReason: 'Bye' }));
      assert.deepEqual([last.status, last.cancellationReason, last.cancelledByEmail], ['cancelled', 'Bye', 'cy@example.com']);
      assert.deepEqual(await triggers(first.uid), ['BOOKING_CREATED', 'BOOKING_CREATED', 'BOOKING_CANCELLED', 'BOOKING_CANCELLED']);

      assert.equal(ok(await cancel(elsewhere.uid, { cancellationReason: 'Closed' }, host.apiKey)).status, 'cancelled');
    });

    test('Idempotency-Key: a retry replays the first answer and cancels nothing twice', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host);
      const booking = await booked(api, { eventTypeId: eventType.id, start: at('2027-01-08', '15:00') });
      const headers = { 'idempotency-key': `cancel-${booking.uid}` };
      const first = await cancel(booking.uid, { cancellationReason: 'Once' }, undefined, headers);
      const retry = await cancel(booking.uid, { cancellationReason: 'Once' }, undefined, headers);
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(retry.body, first.body);
      assert.deepEqual(await triggers(booking.uid), ['BOOKING_CREATED', 'BOOKING_CANCELLED']);

      const moving = await booked(api, { eventTypeId: eventType.id, start: at('2027-01-08', '17:00') });
      const moveKey = { 'idempotency-key': `reschedule-${moving.uid}` };
      const body = { start: at('2027-01-08', '19:00') };
      const moved = await post(`/v2/bookings/${moving.uid}/reschedule`, body, undefined, moveKey);
      const again = await post(`/v2/bookings/${moving.uid}/reschedule`, body, undefined, moveKey);
      assert.deepEqual([moved.status, again.status, again.headers.get('idempotent-replayed')], [201, 201, 'true']);
      assert.deepEqual(again.body, moved.body);
    });
  });

  describe('reschedule', () => {
    test('makes a new booking linked both ways, frees the old time and records BOOKING_RESCHEDULED', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host);
      const oldStart = at('2027-01-08', '15:00');
      const newStart = at('2027-01-08', '17:00');
      const old = await booked(api, { eventTypeId: eventType.id, start: oldStart, guests: ['gina@example.com'], metadata: { ref: 'A1' } });
      const created = ok(await reschedule(old.uid, { start: newStart, rescheduledBy: 'bob@example.com', reschedulingReason: 'Clash' }), 201);
      assert.notEqual(created.uid, old.uid);
      assert.deepEqual(
        [created.start, created.end, created.status, created.rescheduledFromUid, created.reschedulingReason, created.rescheduledByEmail, created.title, created.metadata],
        [newStart, at('2027-01-08', '18:00'), 'accepted', old.uid, 'Clash', 'bob@example.com', old.title, { ref: 'A1', videoCallUrl: old.location }],
      );
      assert.equal(created.location, old.location, 'the built-in video room goes with the booking');
      assert.deepEqual(created.attendees.map((attendee: any) => attendee.email), ['bob@example.com', 'gina@example.com']);
      assert.deepEqual(created.guests, ['gina@example.com']);
      assert.equal(created.bookingFieldsResponses.rescheduledReason, 'Clash');
      const before = ok(await getBooking(api, old.uid));
      assert.deepEqual([before.status, before.rescheduledToUid], ['cancelled', created.uid]);
      assert.equal(await listed(eventType.id, oldStart), true);
      assert.equal(await listed(eventType.id, newStart), false);

      const evs = await events(created.uid);
      assert.deepEqual(evs.map((event) => event.trigger), ['BOOKING_RESCHEDULED']);
      assert.deepEqual(
        [evs[0]!.payload.rescheduleUid, evs[0]!.payload.rescheduleStartTime, evs[0]!.payload.rescheduleEndTime, evs[0]!.payload.rescheduledBy],
        [old.uid, oldStart, at('2027-01-08', '16:00'), 'bob@example.com'],
      );
      assert.deepEqual(await triggers(old.uid), ['BOOKING_CREATED']);
      ok(await book(api, { eventTypeId: eventType.id, start: oldStart }), 201);

      assertError(
        await reschedule(old.uid, { start: at('2027-01-08', '19:00') }),
        400, 'BadRequestException',
        `Can't reschedule booking with uid=${old.uid} because it has been cancelled and rescheduled already to booking with uid=${created.uid}. You probably want to reschedule ${created.uid} instead by passing it within the request URL.`,
      );
      assertError(await reschedule(created.uid, { start: oldStart }), 400, 'BadRequestException', SLOT_TAKEN);
      assertError(await reschedule(created.uid, { start: at('2027-01-08', '23:00') }), 400, 'BadRequestException', SLOT_TAKEN);
      assertError(await reschedule(created.uid, { start: '2027-01-01T15:00:00Z' }), 400, 'BadRequestException', 'Attempting to book a meeting in the past.');
      assertError(await reschedule('no-such-booking', { start: newStart }), 404, 'NotFoundException', 'Booking with uid=no-such-booking was not found in the database');
      assertError(await reschedule(created.uid, { start: at('2027-01-08', '20:00') }, 'svc_0000000000000000000000000000dead'), 401, 'UnauthorizedException');
      assert.deepEqual(await triggers(created.uid), ['BOOKING_RESCHEDULED'], 'refused reschedules record nothing');
      assert.equal(ok(await getBooking(api, created.uid)).status, 'accepted');
    });

    test('may move into its own time (half an hour later), and keeps a length the event type still offers', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host, { slotInterval: 30, lengthInMinutesOptions: [30, 60] });
      const old = await booked(api, { eventTypeId: eventType.id, start: at('2027-01-11', '15:00') });
      const moved = ok(await reschedule(old.uid, { start: at('2027-01-11', '15:30') }), 201);
      assert.deepEqual([moved.start, moved.end], [at('2027-01-11', '15:30'), at('2027-01-11', '16:30')]);
      const short = await booked(api, { eventTypeId: eventType.id, start: at('2027-01-11', '18:00'), lengthInMinutes: 30 });
      assert.equal(ok(await reschedule(short.uid, { start: at('2027-01-11', '19:00') }), 201).duration, 30);
    });

    test('cancelled and ended bookings, unless the event type allows them', async () => {
      const host = await newHost();
      const strict = await createEventType(api, host);
      const lenient = await createEventType(api, host, { allowReschedulingCancelledBookings: true, allowReschedulingPastBookings: true });
      const cancelled = await booked(api, { eventTypeId: strict.id, start: at('2027-01-12', '15:00') });
      ok(await cancel(cancelled.uid));
      assertError(
        await reschedule(cancelled.uid, { start: at('2027-01-12', '16:00') }),
        400, 'BadRequestException',
        `Can't reschedule booking with uid=${cancelled.uid} because it has been cancelled. Please provide uid of a booking that is not cancelled.`,
      );
      const revived = await booked(api, { eventTypeId: lenient.id, start: at('2027-01-12', '17:00') });
      ok(await cancel(revived.uid));
      const fresh = ok(await reschedule(revived.uid, { start: at('2027-01-12', '18:00') }), 201);
      assert.equal(fresh.status, 'accepted');
      assert.deepEqual([ok(await getBooking(api, revived.uid)).status, ok(await getBooking(api, revived.uid)).rescheduledToUid], ['cancelled', fresh.uid]);

      const past = await booked(api, { eventTypeId: strict.id, start: at('2027-01-12', '19:00') });
      const pastOk = await booked(api, { eventTypeId: lenient.id, start: at('2027-01-12', '20:00') });
      await atTime('2027-01-12T21:30:00Z', async () => {
        assertError(await reschedule(past.uid, { start: at('2027-01-13', '15:00') }), 400, 'BadRequestException', `Can't reschedule booking with uid=${past.uid} because it has already ended.`);
        ok(await reschedule(pastOk.uid, { start: at('2027-01-13', '16:00') }), 201);
      });
    });

    test('disableRescheduling and its minutesBefore bind everyone but the organizer', async () => {
      const host = await newHost();
      const frozen = await createEventType(api, host, { disableRescheduling: { disabled: true } });
      const notice = await createEventType(api, host, { disableRescheduling: { minutesBefore: 120 } });
      const a = await booked(api, { eventTypeId: frozen.id, start: at('2027-01-13', '15:00') });
      assertError(await reschedule(a.uid, { start: at('2027-01-13', '16:00') }), 400, 'BadRequestException', 'This event type does not allow rescheduling');
      assertError(await reschedule(a.uid, { start: at('2027-01-13', '16:00') }, stranger.apiKey), 400, 'BadRequestException', 'This event type does not allow rescheduling');
      ok(await reschedule(a.uid, { start: at('2027-01-13', '16:00') }, host.apiKey), 201);

      const b = await booked(api, { eventTypeId: notice.id, start: at('2027-01-13', '18:00') });
      await atTime('2027-01-13T16:30:00Z', async () => {
        assertError(await reschedule(b.uid, { start: at('2027-01-13', '20:00') }), 400, 'BadRequestException', 'Rescheduling is not allowed within 120 minutes before the event');
        ok(await reschedule(b.uid, { start: at('2027-01-13', '20:00') }, host.apiKey), 201);
      });
      const c = await booked(api, { eventTypeId: notice.id, start: at('2027-01-14', '18:00') });
      ok(await reschedule(c.uid, { start: at('2027-01-14', '19:00') }), 201);
    });

    test('confirmation policy: the new booking waits for the organizer unless the organizer reschedules', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host, { confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: true } });
      const pending = await booked(api, { eventTypeId: eventType.id, start: at('2027-01-14', '15:00') });
      assert.equal(pending.status, 'pending');
      const again = ok(await reschedule(pending.uid, { start: at('2027-01-14', '16:00') }), 201);
      assert.equal(again.status, 'pending');
      const byHost = ok(await reschedule(again.uid, { start: at('2027-01-14', '17:00'), rescheduledBy: host.email.toUpperCase() }), 201);
      assert.equal(byHost.status, 'accepted');
    });

    test('seats: a seatUid moves one seat (joining the booking there); the organizer moves the whole booking', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host, { seats: { seatsPerTimeSlot: 2, showAttendeeInfo: true, showAvailabilityCount: true } });
      const day = '2027-01-15';
      const a = ok(await book(api, { eventTypeId: eventType.id, start: at(day, '15:00') }), 201);
      const b = ok(await book(api, { eventTypeId: eventType.id, start: at(day, '15:00'), attendee: { name: 'Cy', email: 'cy@example.com', timeZone: 'UTC' } }), 201);
      assertError(
        await reschedule(a.uid, { start: at(day, '17:00') }),
        400, 'BadRequestException',
        `Booking with uid=${a.uid} is a seated booking which means you have to provide seatUid in the request body to specify which seat specifically you want to reschedule.`,
      );
      assertError(await reschedule(a.uid, { start: at(day, '17:00'), seatUid: 'nope' }), 404, 'NotFoundException', 'Seat with uid=nope does not exist.');
      const other = ok(await book(api, { eventTypeId: eventType.id, start: at(day, '21:00') }), 201);
      assertError(await reschedule(a.uid, { start: at(day, '17:00'), seatUid: other.seatUid }), 400, 'BadRequestException', 'Invalid seatUid: this seat does not belong to this booking.');

      const moved = ok(await reschedule(a.uid, { start: at(day, '17:00'), seatUid: a.seatUid }), 201);
      assert.deepEqual([moved.start, moved.seatUid, moved.rescheduledFromUid], [at(day, '17:00'), a.seatUid, a.uid]);
      assert.deepEqual(moved.attendees.map((attendee: any) => attendee.seatUid), [a.seatUid]);
      const left = ok(await getBooking(api, a.uid));
      assert.deepEqual([left.status, left.attendees.map((attendee: any) => attendee.seatUid)], ['accepted', [b.seatUid]]);

      const joined = ok(await reschedule(a.uid, { start: at(day, '17:00'), seatUid: b.seatUid }), 201);
      assert.equal(joined.uid, moved.uid, 'the seat joins the booking already at 17:00');
      assert.deepEqual(joined.attendees.map((attendee: any) => attendee.seatUid), [a.seatUid, b.seatUid]);
      const emptied = ok(await getBooking(api, a.uid));
      assert.deepEqual([emptied.status, emptied.rescheduledToUid], ['cancelled', moved.uid]);
      assert.equal(await listed(eventType.id, at(day, '15:00')), true);

      const whole = ok(await reschedule(moved.uid, { start: at(day, '19:00') }, host.apiKey), 201);
      assert.deepEqual([whole.start, whole.attendees.length, whole.rescheduledFromUid], [at(day, '19:00'), 2, moved.uid]);
      assert.equal(ok(await getBooking(api, moved.uid)).status, 'cancelled');
      assert.deepEqual((await events(whole.uid)).map((event) => event.trigger), ['BOOKING_RESCHEDULED']);
    });
  });

  describe('confirm and decline', () => {
    const policy = (blockUnconfirmedBookingsInBooker: boolean) => ({ confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker } });

    test('the organizer confirms a pending booking: accepted, BOOKING_CREATED; others are refused', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host, policy(true));
      const booking = await booked(api, { eventTypeId: eventType.id, start: at('2027-01-18', '15:00') });
      assert.equal(booking.status, 'pending');
      assertError(await confirm(booking.uid), 401, 'UnauthorizedException');
      assertError(await confirm(booking.uid, stranger.apiKey), 403, 'ForbiddenException', 'You are not authorized to access this resource');
      assertError(await decline(booking.uid, {}, stranger.apiKey), 403, 'ForbiddenException', 'You are not authorized to access this resource');
      assertError(await confirm('no-such-booking', host.apiKey), 404, 'NotFoundException', 'Booking with uid=no-such-booking was not found in the database');
      assertError(await decline('no-such-booking', {}, host.apiKey), 404, 'NotFoundException', 'Booking with uid=no-such-booking was not found in the database');
      assert.deepEqual(await triggers(booking.uid), ['BOOKING_REQUESTED']);

      const data = ok(await confirm(booking.uid, host.apiKey));
      assert.deepEqual([data.uid, data.status], [booking.uid, 'accepted']);
      assert.deepEqual(await triggers(booking.uid), ['BOOKING_REQUESTED', 'BOOKING_CREATED']);
      assertError(await confirm(booking.uid, host.apiKey), 400, 'BadRequestException', 'Only a pending booking can be confirmed, and this one is accepted.');
      assertError(await decline(booking.uid, {}, host.apiKey), 400, 'BadRequestException', 'Only a pending booking can be declined, and this one is accepted.');
    });

    test('declining rejects with the reason and frees the slot', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host, policy(true));
      const start = at('2027-01-18', '16:00');
      const booking = await booked(api, { eventTypeId: eventType.id, start });
      assert.equal(await listed(eventType.id, start), false, 'this policy blocks the slot while pending');
      assertError(await decline(booking.uid), 401, 'UnauthorizedException');
      const data = ok(await decline(booking.uid, { reason: 'Away that day' }, host.apiKey));
      assert.equal(data.status, 'rejected');
      const evs = await events(booking.uid);
      assert.deepEqual([evs.map((event) => event.trigger), evs[1]!.payload.rejectionReason], [['BOOKING_REQUESTED', 'BOOKING_REJECTED'], 'Away that day']);
      assert.equal(await listed(eventType.id, start), true);
      assertError(await confirm(booking.uid, host.apiKey), 400, 'BadRequestException', 'Only a pending booking can be confirmed, and this one is rejected.');
      assertError(await cancel(booking.uid), 400, 'BadRequestException', ALREADY_CANCELLED(booking.uid));
    });

    test('confirming checks the time again: a second request for a confirmed slot is a 409', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host, policy(false));
      const start = at('2027-01-19', '15:00');
      const first = await booked(api, { eventTypeId: eventType.id, start });
      const second = await booked(api, { eventTypeId: eventType.id, start, attendee: { name: 'Cy', email: 'cy@example.com', timeZone: 'UTC' } });
      assert.deepEqual([first.status, second.status], ['pending', 'pending']);
      ok(await confirm(first.uid, host.apiKey));
      const refused = await confirm(second.uid, host.apiKey);
      assertError(refused, 409, 'ConflictException', "This booking's time is no longer available: another booking holds it.");
      assert.equal(refused.body.error.details.reason, 'booking_conflict');
      assert.deepEqual(await triggers(second.uid), ['BOOKING_REQUESTED']);
      assert.equal(ok(await decline(second.uid, {}, host.apiKey)).status, 'rejected');
    });

    test('notice and booking window applied when it was requested: confirming late still works', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host, { ...policy(true), minimumBookingNotice: 1440 });
      const booking = await booked(api, { eventTypeId: eventType.id, start: at('2027-01-20', '15:00') });
      const patched = await api.request('PATCH', `/v2/event-types/${eventType.id}`, { key: host.apiKey, version: '2024-06-14', body: { bookingWindow: { type: 'range', value: ['2027-03-01', '2027-03-31'] } } });
      assert.equal(patched.status, 200, patched.text);
      await atTime('2027-01-20T14:00:00Z', async () => {
        assert.equal(ok(await confirm(booking.uid, host.apiKey)).status, 'accepted');
      });
    });

    test('a recurring series is confirmed or declined as a whole', async () => {
      const host = await newHost();
      const eventType = await createEventType(api, host, { ...policy(true), recurrence: { interval: 1, occurrences: 3, frequency: 'weekly' } });
      const series = ok(await book(api, { eventTypeId: eventType.id, start: at('2027-01-21', '15:00') }), 201);
      assert.deepEqual(statuses(series), ['pending', 'pending', 'pending']);
      const confirmed = ok(await confirm(series[1].uid, host.apiKey));
      assert.deepEqual([confirmed.length, statuses(confirmed)], [3, ['accepted', 'accepted', 'accepted']]);
      for (const booking of series) assert.deepEqual(await triggers(booking.uid), ['BOOKING_REQUESTED', 'BOOKING_CREATED']);

      const other = ok(await book(api, { eventTypeId: eventType.id, start: at('2027-01-22', '15:00') }), 201);
      const declined = ok(await decline(other[0].recurringBookingUid, { reason: 'No' }, host.apiKey));
      assert.deepEqual(statuses(declined), ['rejected', 'rejected', 'rejected']);
    });
  });
});
