import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WeeklyRule } from '../../src/scheduling/availability-rules.js';
import { bookingLimitChecker } from '../../src/scheduling/booking-limits.js';
import { fixedWindowBounds, isBusinessDay, nthBusinessDayAfter } from '../../src/scheduling/booking-window.js';
import { occurrenceStarts } from '../../src/scheduling/recurrence.js';
import { explainUnavailable, findSlot } from '../../src/scheduling/slot-check.js';
import { type HostAvailability, PLAIN_EVENT_RULES, type SlotQuery } from '../../src/scheduling/slot-query.js';
import { computeSlots } from '../../src/scheduling/slots.js';
import { workingRunAfter } from '../../src/scheduling/working-hours.js';
import { dayNumber, LAST_DAY_NUMBER } from '../../src/scheduling/zones.js';

// The engine's cost must not grow with a length, buffer, notice, offset, window or limit: each case
// below took from seconds to minutes (or never ended) when a loop stepped through such a span. The
// timeout only turns such a hang into a failure; the assertions are on results.
const LIMIT = { timeout: 60_000 };
const MINUTE = 60_000;
const DAY = 86_400_000;
const INT4_MAX = 2_147_483_647;
const utc = (text: string) => Date.parse(text);
const iso = (ms: number) => new Date(ms).toISOString().replace(':00.000Z', 'Z');
const NINE_TO_FIVE: WeeklyRule[] = [{ days: [1, 2, 3, 4, 5], startMinute: 540, endMinute: 1020 }];
const ALL_WEEK: WeeklyRule[] = [{ days: [0, 1, 2, 3, 4, 5, 6], startMinute: 0, endMinute: 1440 }];

function host(weeklyRules: WeeklyRule[], extra: Partial<HostAvailability> = {}): HostAvailability {
  return { userId: 1, fixed: true, schedule: { timeZone: 'UTC', weeklyRules, overrides: [] }, busy: [], ...extra };
}

/** A 60-minute event type queried over Monday 2026-06-01 (UTC), booked from 2026-01-01. */
function query(fields: Partial<SlotQuery> = {}): SlotQuery {
  return {
    ...PLAIN_EVENT_RULES,
    now: utc('2026-01-01T00:00Z'),
    from: utc('2026-06-01T00:00Z'),
    to: utc('2026-06-02T00:00Z'),
    eventTypeId: 7,
    duration: 60,
    organizerTimeZone: 'UTC',
    weekStart: 0,
    hosts: [host(NINE_TO_FIVE)],
    limitBookings: [],
    ...fields,
  };
}

const starts = (q: SlotQuery) => computeSlots(q).map((slot) => iso(slot.start));
const NINE_TO_FIVE_STARTS = ['09', '10', '11', '12', '13', '14', '15', '16'].map((hour) => `2026-06-01T${hour}:00Z`);

describe('slot engine: cost independent of the size of lengths, buffers, notice, offsets, windows and limits', LIMIT, () => {
  test('a length of 2^31-1 minutes fits nowhere in 09:00-17:00 working hours', () => {
    const q = query({ duration: INT4_MAX });
    assert.deepEqual(starts(q), []);
    assert.equal(findSlot(q, utc('2026-06-01T09:00Z')), null);
    assert.equal(explainUnavailable(q, utc('2026-06-01T09:00Z')), 'not_available');
  });

  test('a length of 2^31-1 minutes fits in a schedule open around the clock, and ends 2^31-1 minutes later', () => {
    const slots = computeSlots(query({ duration: INT4_MAX, hosts: [host(ALL_WEEK)] }));
    assert.deepEqual(
      slots.map((slot) => [iso(slot.start), slot.end - slot.start]),
      [['2026-06-01T00:00Z', INT4_MAX * MINUTE]],
    );
  });

  test('working time after the last piece is read up to its first gap, whatever the length', () => {
    const schedule = { timeZone: 'Europe/Rome', weeklyRules: ALL_WEEK, overrides: [{ date: '2400-01-01', startMinute: 0, endMinute: 0 }] };
    const from = utc('2026-06-01T22:00Z');
    // Open all week until the day off: one stretch up to its local midnight, then nothing.
    assert.deepEqual(workingRunAfter(schedule, from, from + INT4_MAX * MINUTE), [[from, utc('2399-12-31T23:00Z')]]);
    const nineToFive = { timeZone: 'UTC', weeklyRules: NINE_TO_FIVE, overrides: [] };
    const five = utc('2026-06-01T17:00Z');
    assert.deepEqual(workingRunAfter(nineToFive, five, five + INT4_MAX * MINUTE).filter(([, end]) => end > five), []);
  });

  test('buffers, slot interval and offset of 2^31-1 minutes', () => {
    const farBooking = { start: utc('2500-01-01T09:00Z'), end: utc('2500-01-01T10:00Z'), bufferBefore: 0, bufferAfter: 0, source: 'booking' as const };
    // A buffer that long reaches back from a booking 474 years away to today's candidates.
    assert.deepEqual(starts(query({ afterEventBuffer: INT4_MAX, hosts: [host(NINE_TO_FIVE, { busy: [farBooking] })] })), []);
    assert.deepEqual(starts(query({ beforeEventBuffer: INT4_MAX, afterEventBuffer: INT4_MAX })), NINE_TO_FIVE_STARTS);
    assert.deepEqual(starts(query({ slotInterval: INT4_MAX })), ['2026-06-01T09:00Z']);
    assert.deepEqual(starts(query({ offsetStart: INT4_MAX })), []);
  });

  test('a notice of 2^31-1 minutes leaves nothing to list, even over a year', () => {
    const q = query({ minimumBookingNotice: INT4_MAX, slotInterval: 1, to: utc('2027-06-01T00:00Z') });
    assert.deepEqual(starts(q), []);
    assert.equal(explainUnavailable(q, utc('2026-06-01T09:00Z')), 'too_soon');
  });

  test('a notice ending mid-day removes only the earlier starts of that day', () => {
    assert.deepEqual(starts(query({ now: utc('2026-06-01T00:00Z'), minimumBookingNotice: 13 * 60 + 1 })), NINE_TO_FIVE_STARTS.slice(5));
  });

  test('business-day windows of any length: the N-th Monday-Friday date, as stepping one date at a time finds it', () => {
    for (let today = dayNumber({ year: 2026, month: 6, day: 1 }); today < dayNumber({ year: 2026, month: 6, day: 8 }); today++) {
      let stepped = today;
      for (let n = 1; n <= 40; n++) {
        stepped += 1;
        while (!isBusinessDay(stepped)) stepped += 1;
        assert.equal(nthBusinessDayAfter(today, n), stepped, `day ${today}, n ${n}`);
      }
    }
    const now = utc('2026-06-01T12:00Z'); // a Monday
    assert.equal(fixedWindowBounds({ type: 'businessDays', days: 36_500, rolling: false }, 'UTC', now)!.end, utc('2026-06-01T00:00Z') + (7 * 7300 + 1) * DAY);
    assert.equal(fixedWindowBounds({ type: 'businessDays', days: INT4_MAX, rolling: false }, 'UTC', now)!.end, Infinity);
    assert.equal(fixedWindowBounds({ type: 'calendarDays', days: INT4_MAX, rolling: false }, 'UTC', now)!.end, Infinity);
    // A window whose last day is the last day number dates reach has no end; one day earlier, it ends.
    const today = Math.floor(now / DAY);
    assert.equal(fixedWindowBounds({ type: 'calendarDays', days: LAST_DAY_NUMBER - today, rolling: false }, 'UTC', now)!.end, Infinity);
    assert.equal(fixedWindowBounds({ type: 'calendarDays', days: LAST_DAY_NUMBER - today - 1, rolling: false }, 'UTC', now)!.end, LAST_DAY_NUMBER * DAY);
    assert.deepEqual(starts(query({ bookingWindow: { type: 'businessDays', days: INT4_MAX, rolling: false } })), NINE_TO_FIVE_STARTS);
    assert.deepEqual(starts(query({ bookingWindow: { type: 'businessDays', days: INT4_MAX, rolling: true } })), NINE_TO_FIVE_STARTS);
  });

  test('booking limits: a booking 2^31-1 minutes long counts in every period it touches', () => {
    const long = { start: utc('2026-05-31T12:00Z'), end: utc('2026-05-31T12:00Z') + INT4_MAX * MINUTE, uid: 'long' };
    assert.deepEqual(starts(query({ bookingLimitsCount: { day: 1 }, limitBookings: [long] })), []);
    assert.deepEqual(starts(query({ bookingLimitsCount: { day: 2 }, limitBookings: [long] })), NINE_TO_FIVE_STARTS);
    assert.deepEqual(starts(query({ bookingLimitsCount: { year: 1 }, limitBookings: [long], ignoreBookingUid: 'long' })), NINE_TO_FIVE_STARTS);
    // Its 2^31-1 minutes fill any day's duration limit.
    assert.deepEqual(starts(query({ bookingLimitsDuration: { day: INT4_MAX }, limitBookings: [long] })), []);
  });

  test('booking limits: a candidate 2^31-1 minutes long is checked against every period it touches', () => {
    const later = { start: utc('3000-03-01T10:00Z'), end: utc('3000-03-01T11:00Z') };
    const q = query({ duration: INT4_MAX, hosts: [host(ALL_WEEK)], limitBookings: [later] });
    assert.deepEqual(starts({ ...q, bookingLimitsCount: { month: 2 } }), ['2026-06-01T00:00Z']);
    assert.deepEqual(starts({ ...q, bookingLimitsCount: { month: 1 } }), []);
    // Its own length is more than any period's duration limit below it.
    assert.deepEqual(starts({ ...q, limitBookings: [], bookingLimitsDuration: { year: INT4_MAX - 1 } }), []);
    const check = bookingLimitChecker({ count: { day: 1 }, duration: null, timeZone: 'UTC', weekStart: 0 }, [later], null)!;
    assert.equal(check(utc('2026-06-01T00:00Z'), utc('3000-03-01T00:00Z')), true);
    assert.equal(check(utc('2026-06-01T00:00Z'), utc('3000-03-01T10:30Z')), false);
  });

  test('a recurrence whose occurrences run past the dates JavaScript holds stops there', () => {
    const first = utc('2026-06-01T09:00Z');
    assert.deepEqual(occurrenceStarts(first, { frequency: 'yearly', interval: INT4_MAX }, 3, 'UTC'), [first]);
    assert.deepEqual(occurrenceStarts(first, { frequency: 'monthly', interval: INT4_MAX }, 3, 'UTC'), [first]);
    assert.deepEqual(occurrenceStarts(first, { frequency: 'weekly', interval: INT4_MAX }, 3, 'UTC'), [first]);
    assert.deepEqual(occurrenceStarts(first, { frequency: 'weekly', interval: 1000 }, 2, 'UTC'), [first, first + 7000 * DAY]);
  });
});
