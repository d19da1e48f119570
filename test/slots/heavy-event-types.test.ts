import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createEventType, createHost, getSlots, type Host, SLOTS_VERSION } from './helpers.js';

const INT4_MAX = 2_147_483_647;
const EVERY_DAY = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** The largest values an event type accepts for each duration-like field (docs/slot-rules.md, README). */
const LARGEST = {
  lengthInMinutes: 1440,
  lengthInMinutesOptions: [1, 1440],
  slotInterval: 1440,
  beforeEventBuffer: 1440,
  afterEventBuffer: 1440,
  offsetStart: 1440,
  minimumBookingNotice: 525_600,
  bookingWindow: { type: 'businessDays', value: 36_500, rolling: true },
  bookingLimitsCount: { day: INT4_MAX, week: INT4_MAX, month: INT4_MAX, year: INT4_MAX },
  bookingLimitsDuration: { day: 2_147_483_640, week: 2_147_483_640, month: 2_147_483_640, year: 2_147_483_640 },
  seats: { seatsPerTimeSlot: 1000, showAttendeeInfo: true, showAvailabilityCount: true },
  disableRescheduling: { minutesBefore: INT4_MAX },
  confirmationPolicy: { type: 'time', noticeThreshold: { unit: 'hours', count: INT4_MAX }, blockUnconfirmedBookingsInBooker: true },
};

/** Longest wait for /health while `work` runs, polling it back to back. */
async function slowestHealthWhile(api: TestApp, work: Promise<unknown>): Promise<number> {
  let done = false;
  const finished = work.finally(() => {
    done = true;
  });
  let slowest = 0;
  let answers = 0;
  while (!done || answers === 0) {
    const started = performance.now();
    const response = await api.request('GET', '/health');
    assert.equal(response.status, 200);
    slowest = Math.max(slowest, performance.now() - started);
    answers += 1;
  }
  await finished;
  return slowest;
}

describe('event types with the largest accepted values keep the server responsive', () => {
  let api: TestApp;
  let host: Host;
  before(async () => {
    api = await createTestApp();
    host = await createHost(api, 'Europe/Rome');
    const schedule = await api.request('POST', '/v2/schedules', {
      key: host.apiKey,
      version: '2024-06-11',
      body: { name: 'Always', timeZone: 'Europe/Rome', isDefault: true, availability: [{ days: EVERY_DAY, startTime: '00:00', endTime: '23:59' }] },
    });
    assert.equal(schedule.status, 201, schedule.text);
  });
  after(() => api.close());

  test('one more than the largest value of each field is refused', async () => {
    for (const [field, value] of Object.entries({ lengthInMinutes: 1441, slotInterval: 1441, beforeEventBuffer: 1441, afterEventBuffer: 1441, offsetStart: 1441, minimumBookingNotice: 525_601 })) {
      const response = await api.request('POST', '/v2/event-types', {
        key: host.apiKey,
        version: '2024-06-14',
        body: { title: 'Too much', slug: `too-much-${field.toLowerCase()}`, ...LARGEST, [field]: value, seats: { disabled: true }, confirmationPolicy: { disabled: true } },
      });
      assert.equal(response.status, 400, `${field} ${value}: ${response.text}`);
      assert.equal(response.body.error.details.errors[0].property, field);
    }
  });

  test('/health answers within a second while slots, a reservation and bookings of such event types are computed', async () => {
    // Everything at its largest, except what would leave nothing to compute: a notice, an offset and
    // a slot interval at their largest leave no slot in the first year.
    const { seats: _seats, confirmationPolicy: _confirmation, ...unseated } = LARGEST;
    const dense = await createEventType(api, host, { ...unseated, slotInterval: 1, offsetStart: 0, minimumBookingNotice: 0 });
    const seated = await createEventType(api, host, { ...LARGEST, confirmationPolicy: { disabled: true }, slotInterval: 1, offsetStart: 0, minimumBookingNotice: 0 });
    const noticeOfAYear = await createEventType(api, host, { ...LARGEST, seats: { disabled: true } });
    const recurring = await createEventType(api, host, { lengthInMinutes: 1, recurrence: { frequency: 'weekly', interval: 5, occurrences: 1000 } });

    const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
    // Days far enough apart that the 24-hour buffers of one booking never reach another's.
    const firstSlot = async (eventTypeId: number, date: string) => {
      const response = await getSlots(api, { eventTypeId, start: date, end: date, duration: 1, timeZone: 'Europe/Rome' });
      assert.equal(response.status, 200, response.text);
      const slot = Object.values(response.body.data as Record<string, { start: string }[]>).flat()[0];
      assert.ok(slot, `event type ${eventTypeId} has 1-minute slots on ${date}`);
      return new Date(slot.start).toISOString();
    };
    const [reserveAt, bookAt, seatAt] = [await firstSlot(dense.id, day(1)), await firstSlot(dense.id, day(4)), await firstSlot(seated.id, day(7))];

    const book = (eventTypeId: number, at: string, extra: Record<string, unknown> = {}) =>
      api.request('POST', '/v2/bookings', {
        version: '2024-08-13',
        body: { eventTypeId, start: at, attendee: { name: 'Ada', email: 'ada@example.com', timeZone: 'Europe/Rome' }, ...extra },
      });
    // One ordinary booking first: a process's first 201 to POST /v2/bookings compiles the response
    // serializer's union checks (a few hundred ms, once per process, whatever the event type), which is
    // not what this test measures.
    const warmUp = await book(dense.id, await firstSlot(dense.id, day(13)), { lengthInMinutes: 1 });
    assert.equal(warmUp.status, 201, warmUp.text);
    const work = Promise.all([
      getSlots(api, { eventTypeId: dense.id, start: day(1), end: day(15), duration: 1 }),
      getSlots(api, { eventTypeId: seated.id, start: day(1), end: day(15), duration: 1 }),
      getSlots(api, { eventTypeId: noticeOfAYear.id, start: day(366), end: day(400) }),
      api.request('POST', '/v2/slots/reservations', { version: SLOTS_VERSION, body: { eventTypeId: dense.id, slotStart: reserveAt, slotDuration: 1 } }),
      book(dense.id, bookAt, { lengthInMinutes: 1 }),
      book(seated.id, seatAt, { lengthInMinutes: 1 }),
      book(noticeOfAYear.id, `${day(370)}T12:00:00Z`),
      // Every occurrence is a few statements in the booking's transaction; on the embedded store those
      // never pass through the event loop unless the series yields to it now and then.
      book(recurring.id, `${day(10)}T12:00:00Z`, { recurrenceCount: 300 }),
    ]);
    const slowest = await slowestHealthWhile(api, work);
    const [denseMonth, seatedMonth, noticeYear, reservation, booking, seatedBooking, noticeBooking, series] = await work;
    assert.ok(slowest < 1000, `/health waited ${Math.round(slowest)} ms`);

    assert.equal(denseMonth.status, 200, denseMonth.text);
    assert.ok(Object.values(denseMonth.body.data as Record<string, unknown[]>).flat().length > 1000);
    assert.equal(seatedMonth.status, 200, seatedMonth.text);
    assert.equal(noticeYear.status, 200, noticeYear.text);
    assert.equal(reservation.status, 201, reservation.text);
    assert.equal(booking.status, 201, booking.text);
    assert.equal(seatedBooking.status, 201, seatedBooking.text);
    // A year of notice, and a rolling window that finds no bookable day in the year it searches.
    assert.equal(noticeBooking.status, 400, noticeBooking.text);
    assert.equal(series.status, 201, series.text);
    assert.equal(series.body.data.length, 300);
  });
});
