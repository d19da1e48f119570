// Engine functions whose changes the slot tests did not notice (issue 27's mutation run): how a slot time
// is printed with its offset, recurring series across DST and month ends, and which bookings a limit
// check loads. Expectations come from Temporal (temporal-polyfill), not from svc's own zone code.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { bookingLimitChecker, limitHorizon } from '../../src/scheduling/booking-limits.js';
import { occurrenceStarts } from '../../src/scheduling/recurrence.js';
import { formatWithOffset } from '../../src/scheduling/zones.js';

const ZONES = ['UTC', 'America/New_York', 'America/St_Johns', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham', 'Australia/Lord_Howe', 'Pacific/Marquesas', 'America/Santiago', 'Europe/London'];

/** Temporal's ISO text with milliseconds and the offset, no zone name. */
const temporalText = (epochMs: number, zone: string) =>
  Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(zone).toString({ fractionalSecondDigits: 3, timeZoneName: 'never' }).replace(/([+-]\d\d:\d\d):00$/, '$1');

test('formatWithOffset prints the local time and the offset, whole, half and three-quarter hours, both signs', () => {
  const cases: [string, string, string][] = [
    ['2026-06-01T12:00:00.000Z', 'UTC', '2026-06-01T12:00:00.000+00:00'],
    ['2026-03-08T07:30:00.000Z', 'America/New_York', '2026-03-08T03:30:00.000-04:00'],
    ['2026-03-08T06:59:59.999Z', 'America/New_York', '2026-03-08T01:59:59.999-05:00'],
    ['2026-01-15T12:00:00.000Z', 'America/St_Johns', '2026-01-15T08:30:00.000-03:30'],
    ['2026-01-15T12:00:00.000Z', 'Asia/Kolkata', '2026-01-15T17:30:00.000+05:30'],
    ['2026-01-15T12:00:00.000Z', 'Asia/Kathmandu', '2026-01-15T17:45:00.000+05:45'],
    ['2026-01-15T12:00:00.000Z', 'Pacific/Chatham', '2026-01-16T01:45:00.000+13:45'],
    ['2026-07-15T12:00:00.000Z', 'Pacific/Chatham', '2026-07-16T00:45:00.000+12:45'],
    ['2026-01-15T12:00:00.000Z', 'Pacific/Marquesas', '2026-01-15T02:30:00.000-09:30'],
    ['2026-01-15T12:00:00.000Z', 'Australia/Lord_Howe', '2026-01-15T23:00:00.000+11:00'],
    ['2026-07-15T12:00:00.000Z', 'Australia/Lord_Howe', '2026-07-15T22:30:00.000+10:30'],
  ];
  for (const [instant, zone, expected] of cases) assert.equal(formatWithOffset(Date.parse(instant), zone), expected, `${instant} in ${zone}`);
});

test('formatWithOffset agrees with Temporal on random instants and odd zones', () => {
  fc.assert(
    fc.property(fc.integer({ min: Date.parse('1970-01-01T00:00:00Z'), max: Date.parse('2100-01-01T00:00:00Z') }), fc.constantFrom(...ZONES), (epochMs, zone) => {
      assert.equal(formatWithOffset(epochMs, zone), temporalText(epochMs, zone));
    }),
    { numRuns: 3000 },
  );
});

/** The series as Temporal builds it: the same wall-clock time, `step` after step, dates that do not exist skipped. */
function temporalSeries(first: string, zone: string, frequency: 'weekly' | 'monthly' | 'yearly', interval: number, count: number): string[] {
  const start = Temporal.Instant.from(first).toZonedDateTimeISO(zone);
  const out: string[] = [];
  for (let k = 0; out.length < count && k < count * 12 + 12; k++) {
    const plain = start.toPlainDate();
    const moved = frequency === 'weekly' ? plain.add({ days: 7 * interval * k }) : plain.add(frequency === 'monthly' ? { months: interval * k } : { years: interval * k }, { overflow: 'constrain' });
    if (moved.day !== plain.day && frequency !== 'weekly') continue; // the 31st or February 29th does not exist there
    out.push(moved.toZonedDateTime({ timeZone: zone, plainTime: start.toPlainTime() }).toInstant().toString({ fractionalSecondDigits: 3 }));
  }
  return out;
}

test('recurring series keep their wall-clock time across DST, in odd zones, and skip dates a month or year lacks', () => {
  const cases: [string, string, 'weekly' | 'monthly' | 'yearly', number, number][] = [
    ['2026-03-02T14:00:00.000Z', 'America/New_York', 'weekly', 1, 6], // 09:00 EST, then 09:00 EDT from 03-08
    ['2026-10-19T08:00:00.000Z', 'Europe/London', 'weekly', 2, 4],
    ['2026-09-28T13:30:00.000Z', 'Australia/Lord_Howe', 'weekly', 1, 3], // the 30-minute DST change on 10-04
    ['2026-01-31T10:00:00.000Z', 'Asia/Kathmandu', 'monthly', 1, 12], // the 31st: months without one are skipped
    ['2026-01-15T15:00:00.000Z', 'America/New_York', 'monthly', 1, 6],
    ['2026-02-28T12:00:00.000Z', 'Pacific/Chatham', 'monthly', 3, 5],
    ['2024-02-29T09:00:00.000Z', 'UTC', 'yearly', 1, 2], // the next February 29th is in 2028
    ['2026-04-05T09:00:00.000Z', 'America/Santiago', 'yearly', 1, 3],
  ];
  for (const [first, zone, frequency, interval, count] of cases) {
    const starts = occurrenceStarts(Date.parse(first), { frequency, interval }, count, zone).map((ms) => new Date(ms).toISOString());
    assert.deepEqual(starts, temporalSeries(first, zone, frequency, interval, count), `${frequency}/${interval} from ${first} in ${zone}`);
  }
});

/** The first instant of the local date `date` in `zone`. */
const dayStart = (date: string, zone: string) => Temporal.PlainDate.from(date).toZonedDateTime({ timeZone: zone }).epochMilliseconds;

test('limitHorizon: the whole periods a range touches, for each kind of limit, in the limits\' zone', () => {
  const zone = 'America/New_York';
  // Thursday 2026-03-05 10:00 to Tuesday 2026-03-10 10:00 local (across the DST change of 03-08).
  const from = Date.parse('2026-03-05T15:00:00Z');
  const to = Date.parse('2026-03-10T14:00:00Z');
  const horizon = (count: Record<string, number> | null, duration: Record<string, number> | null, weekStart = 1) => limitHorizon({ count, duration, timeZone: zone, weekStart }, from, to);
  assert.equal(horizon(null, null), null, 'no limit: nothing to load');
  assert.equal(horizon({}, {}), null);
  // The checker agrees: no limit, no check to run (slots.ts then skips it for every start).
  assert.equal(bookingLimitChecker({ count: {}, duration: null, timeZone: zone, weekStart: 1 }, [{ start: from, end: to, uid: 'x' }], null), null);
  assert.equal(typeof bookingLimitChecker({ count: null, duration: { week: 60 }, timeZone: zone, weekStart: 1 }, [], null), 'function');
  assert.deepEqual(horizon({ day: 2 }, null), { start: dayStart('2026-03-05', zone), end: dayStart('2026-03-11', zone) });
  assert.deepEqual(horizon(null, { day: 60 }), { start: dayStart('2026-03-05', zone), end: dayStart('2026-03-11', zone) }, 'duration limits alone');
  assert.deepEqual(horizon({ week: 3 }, null, 1), { start: dayStart('2026-03-02', zone), end: dayStart('2026-03-16', zone) }, 'weeks from Monday');
  assert.deepEqual(horizon({ week: 3 }, null, 0), { start: dayStart('2026-03-01', zone), end: dayStart('2026-03-15', zone) }, 'weeks from Sunday');
  assert.deepEqual(horizon({ month: 5 }, null), { start: dayStart('2026-03-01', zone), end: dayStart('2026-04-01', zone) });
  assert.deepEqual(horizon(null, { year: 600 }), { start: dayStart('2026-01-01', zone), end: dayStart('2027-01-01', zone) });
  assert.deepEqual(horizon({ day: 1 }, { month: 120 }), { start: dayStart('2026-03-01', zone), end: dayStart('2026-04-01', zone) }, 'the widest of all active kinds');
  // A range across a month and a year end.
  const yearEnd = limitHorizon({ count: { month: 1 }, duration: null, timeZone: 'Asia/Kathmandu', weekStart: 1 }, Date.parse('2026-12-30T00:00:00Z'), Date.parse('2027-01-02T00:00:00Z'));
  assert.deepEqual(yearEnd, { start: dayStart('2026-12-01', 'Asia/Kathmandu'), end: dayStart('2027-02-01', 'Asia/Kathmandu') });
  // A range ending at a local midnight (exclusive) does not reach the next day, week or month.
  const toMidnight = (count: Record<string, number>) => limitHorizon({ count, duration: null, timeZone: 'Asia/Kathmandu', weekStart: 1 }, dayStart('2026-06-01', 'Asia/Kathmandu'), dayStart('2026-06-03', 'Asia/Kathmandu'));
  assert.deepEqual(toMidnight({ day: 1 }), { start: dayStart('2026-06-01', 'Asia/Kathmandu'), end: dayStart('2026-06-03', 'Asia/Kathmandu') });
  // An empty range still covers the period holding its start.
  const empty = limitHorizon({ count: { week: 1 }, duration: null, timeZone: 'UTC', weekStart: 1 }, Date.parse('2026-03-04T12:00:00Z'), Date.parse('2026-03-04T12:00:00Z'));
  assert.deepEqual(empty, { start: Date.parse('2026-03-02T00:00:00Z'), end: Date.parse('2026-03-09T00:00:00Z') });
});
