import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isDayOff } from '../../src/scheduling/availability-rules.js';
import { bookingLimitChecker } from '../../src/scheduling/booking-limits.js';
import { occurrenceStarts } from '../../src/scheduling/recurrence.js';
import { explainUnavailable, findSlot } from '../../src/scheduling/slot-check.js';
import { PLAIN_EVENT_RULES, type SlotQuery } from '../../src/scheduling/slot-query.js';
import { computeSlots } from '../../src/scheduling/slots.js';
import { dateOfDayNumber, dayNumber, END_OF_TIME, LAST_DAY_NUMBER, localDayNumber, startOfDayNumber, utcTime, zonedToEpoch } from '../../src/scheduling/zones.js';

const utc = (text: string) => Date.parse(text);
const iso = (ms: number) => new Date(ms).toISOString();
const DAY = 86_400_000;
const dayNumberToUtc = (dayNo: number) => dayNo * DAY;
const ALL_WEEK = [{ days: [0, 1, 2, 3, 4, 5, 6], startMinute: 0, endMinute: 1440 }];

function query(fields: Partial<SlotQuery> = {}): SlotQuery {
  return {
    ...PLAIN_EVENT_RULES,
    now: utc('2026-01-01T00:00Z'),
    from: utc('9999-12-29T00:00Z'),
    to: utc('9999-12-31T00:00Z'),
    eventTypeId: 7,
    duration: 60,
    organizerTimeZone: 'UTC',
    weekStart: 0,
    hosts: [{ userId: 1, fixed: true, schedule: { timeZone: 'UTC', weeklyRules: ALL_WEEK, overrides: [] }, busy: [] }],
    limitBookings: [],
    ...fields,
  };
}

describe('slot engine: dates near year 0 and year 9999', () => {
  test('years 0 to 99 are those years, not 1900 to 1999', () => {
    assert.equal(iso(utcTime(0, 0, 1)), '0000-01-01T00:00:00.000Z');
    assert.equal(iso(utcTime(99, 11, 31, 23, 59, 59)), '0099-12-31T23:59:59.000Z');
    assert.equal(iso(utcTime(4, 1, 29)), '0004-02-29T00:00:00.000Z');
    assert.equal(iso(utcTime(2026, 0, 1)), '2026-01-01T00:00:00.000Z');
    assert.deepEqual(dateOfDayNumber(dayNumber({ year: 50, month: 3, day: 1 })), { year: 50, month: 3, day: 1 });
    assert.equal(iso(zonedToEpoch('UTC', 1, 1, 1, 90)), '0001-01-01T01:30:00.000Z');
    // Rome kept local mean time (+0:49:56) until 1866; offsets are read in whole minutes.
    assert.equal(iso(startOfDayNumber('Europe/Rome', dayNumber({ year: 10, month: 6, day: 1 }))), '0010-05-31T23:10:00.000Z');
    assert.equal(localDayNumber('Europe/Rome', utc('0010-05-31T23:10:00Z')), dayNumber({ year: 10, month: 6, day: 1 }));
  });

  test('monthly and yearly series keep their day in the first centuries (year 0 is a leap year, 100 is not)', () => {
    const leapDay = utc('0000-02-29T09:00:00Z');
    assert.deepEqual(occurrenceStarts(leapDay, { frequency: 'yearly', interval: 4 }, 3, 'UTC').map(iso), [
      '0000-02-29T09:00:00.000Z',
      '0004-02-29T09:00:00.000Z',
      '0008-02-29T09:00:00.000Z',
    ]);
    assert.deepEqual(occurrenceStarts(utc('0096-02-29T09:00:00Z'), { frequency: 'yearly', interval: 4 }, 2, 'UTC').map(iso), ['0096-02-29T09:00:00.000Z', '0104-02-29T09:00:00.000Z']);
  });

  test('a series whose dates are mostly skipped still has all its occurrences', () => {
    // Every 25 years from a February 29th: 2025, 2050, 2075 have none, 2100-2300 are no leap years,
    // so only every 16th step (each 400 years) is a date. 09:00 in New York stays 09:00 (EST, 14:00Z).
    const starts = occurrenceStarts(utc('2000-02-29T14:00:00Z'), { frequency: 'yearly', interval: 25 }, 10, 'America/New_York').map(iso);
    assert.deepEqual(starts, [2000, 2400, 2800, 3200, 3600, 4000, 4400, 4800, 5200, 5600].map((year) => `${year}-02-29T14:00:00.000Z`));
    // Every 2 months from August 31st: October and December have a 31st, then February, April and June do not.
    assert.deepEqual(occurrenceStarts(utc('2026-08-31T09:00:00Z'), { frequency: 'monthly', interval: 2 }, 4, 'UTC').map(iso), [
      '2026-08-31T09:00:00.000Z',
      '2026-10-31T09:00:00.000Z',
      '2026-12-31T09:00:00.000Z',
      '2027-08-31T09:00:00.000Z',
    ]);
  });

  test('a date override of 00:00-00:00 is a day off; any other span is not', () => {
    assert.equal(isDayOff({ date: '2026-06-01', startMinute: 0, endMinute: 0 }), true);
    assert.equal(isDayOff({ date: '2026-06-01', startMinute: 0, endMinute: 1440 }), false);
    assert.equal(isDayOff({ date: '2026-06-01', startMinute: 0, endMinute: 60 }), false);
  });

  test('the last day and year a series reaches are included; the next are not', () => {
    const lastWeek = dayNumberToUtc(LAST_DAY_NUMBER - 7);
    assert.deepEqual(occurrenceStarts(lastWeek, { frequency: 'weekly', interval: 1 }, 3, 'UTC'), [lastWeek, lastWeek + 7 * DAY]);
    const yearBefore = utcTime(274_999, 5, 1, 9);
    assert.deepEqual(occurrenceStarts(yearBefore, { frequency: 'yearly', interval: 1 }, 3, 'UTC'), [yearBefore, utcTime(275_000, 5, 1, 9)]);
  });

  test('limit periods in year 0 and year 9999 are the calendar periods', () => {
    const check = bookingLimitChecker({ count: { month: 1 }, duration: null, timeZone: 'UTC', weekStart: 0 }, [{ start: utc('0050-02-10T09:00Z'), end: utc('0050-02-10T10:00Z') }], null)!;
    assert.equal(check(utc('0050-02-28T09:00Z'), utc('0050-02-28T10:00Z')), false);
    assert.equal(check(utc('0050-03-01T09:00Z'), utc('0050-03-01T10:00Z')), true);
    assert.equal(check(utc('1950-02-28T09:00Z'), utc('1950-02-28T10:00Z')), true);
  });

  test('no slot ends at or after END_OF_TIME (9999-12-31T00:00Z)', () => {
    assert.equal(iso(END_OF_TIME), '9999-12-31T00:00:00.000Z');
    const slots = computeSlots(query({ to: utc('9999-12-31T23:59Z') }));
    assert.equal(iso(slots.at(-1)!.end), '9999-12-30T23:00:00.000Z');
    assert.equal(slots.length, 47);
    assert.equal(findSlot(query(), utc('9999-12-30T23:30Z')), null);
    assert.equal(computeSlots(query({ duration: 1440, from: utc('9999-12-30T00:00Z') })).length, 0);
  });

  test('year 0 is in the past: nothing is offered and the reason is the past', () => {
    const q = query({ from: utc('0000-01-01T00:00Z'), to: utc('0000-01-03T00:00Z') });
    assert.deepEqual(computeSlots(q), []);
    assert.equal(explainUnavailable(q, utc('0000-01-02T09:00Z')), 'in_the_past');
  });
});
