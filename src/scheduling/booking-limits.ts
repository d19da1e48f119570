import { work } from './engine-work.js';
import type { IntervalLimits, LimitBooking } from './slot-query.js';
import { dateOfDayNumber, localDayNumber, startOfDayNumber, utcTime, weekdayOfDayNumber } from './zones.js';

const MINUTE = 60_000;
const PERIODS = ['day', 'week', 'month', 'year'] as const;
type Period = (typeof PERIODS)[number];

/**
 * Key of the period of kind `period` holding local day `dayNo`. Keys of consecutive periods differ by
 * `periodStep(period)`, so the periods an interval touches are the keys between its first and last day's.
 */
function periodKey(period: Period, dayNo: number, weekStart: number): number {
  switch (period) {
    case 'day':
      return dayNo;
    case 'week':
      return dayNo - ((weekdayOfDayNumber(dayNo) - weekStart + 7) % 7);
    case 'month': {
      const { year, month } = dateOfDayNumber(dayNo);
      return year * 12 + month - 1;
    }
    case 'year':
      return dateOfDayNumber(dayNo).year;
  }
}

const periodStep = (period: Period) => (period === 'week' ? 7 : 1);

export interface LimitRules {
  count: IntervalLimits | null;
  duration: IntervalLimits | null;
  timeZone: string;
  weekStart: number;
}

/** The kinds of period that have a count or duration limit. */
const activePeriods = (rules: LimitRules) => PERIODS.filter((period) => rules.count?.[period] !== undefined || rules.duration?.[period] !== undefined);

/**
 * How many bookings, and how many booked minutes, each period of one kind holds, as runs of
 * consecutive period keys with the same tally: a booking adds to the run of keys from its first
 * period to its last. Its size depends on the number of bookings, never on their lengths.
 */
interface Tallies {
  /** Run i holds keys [keys[i], ends[i]), ascending; keys without bookings are in no run. */
  keys: number[];
  ends: number[];
  counts: number[];
  /** Booked time in milliseconds: integers, so adding and removing lengths stays exact. */
  millis: number[];
}

function tallyRuns(spans: readonly { first: number; last: number; millis: number }[], step: number): Tallies {
  const edges = new Map<number, { count: number; millis: number }>();
  const add = (key: number, count: number, millis: number) => {
    const edge = edges.get(key);
    if (edge) {
      edge.count += count;
      edge.millis += millis;
    } else edges.set(key, { count, millis });
  };
  for (const span of spans) {
    add(span.first, 1, span.millis);
    add(span.last + step, -1, -span.millis);
  }
  const runs: Tallies = { keys: [], ends: [], counts: [], millis: [] };
  const sorted = [...edges.entries()].sort((a, b) => a[0] - b[0]);
  let count = 0;
  let millis = 0;
  for (let i = 0; i < sorted.length - 1; i++) {
    const [key, edge] = sorted[i]!;
    count += edge.count;
    millis += edge.millis;
    if (count > 0) {
      runs.keys.push(key);
      runs.ends.push(sorted[i + 1]![0]);
      runs.counts.push(count);
      runs.millis.push(millis);
    }
  }
  return runs;
}

/** The largest count and booked time of any key in [first, last]. */
function busiest(runs: Tallies, first: number, last: number): { count: number; millis: number } {
  let low = 0;
  let high = runs.keys.length - 1;
  let index = runs.keys.length;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (runs.ends[mid]! > first) {
      index = mid;
      high = mid - 1;
    } else low = mid + 1;
  }
  let count = 0;
  let millis = 0;
  for (let i = index; i < runs.keys.length && runs.keys[i]! <= last; i++) {
    count = Math.max(count, runs.counts[i]!);
    millis = Math.max(millis, runs.millis[i]!);
  }
  return { count, millis };
}

/**
 * Booking-count and booked-minutes limits per day, week, month and year in the organizer's zone. A
 * booking counts in every period it overlaps, and so does a candidate: a slot is allowed only if each
 * period it touches still has room.
 */
export function bookingLimitChecker(rules: LimitRules, bookings: readonly LimitBooking[], ignoreUid: string | null | undefined) {
  const active = activePeriods(rules);
  if (active.length === 0) return null;
  const { timeZone, weekStart } = rules;
  const keyRange = (period: Period, start: number, end: number) => {
    const firstDay = localDayNumber(timeZone, start);
    const lastDay = localDayNumber(timeZone, Math.max(start, end - 1));
    return { first: periodKey(period, firstDay, weekStart), last: periodKey(period, lastDay, weekStart) };
  };
  const counted = bookings.filter((booking) => !(ignoreUid && booking.uid === ignoreUid));
  const tallyOf = (period: Period): Tallies => {
    work.limitTallies += 1;
    const spans = counted.map((booking) => ({ ...keyRange(period, booking.start, booking.end), millis: booking.end - booking.start }));
    return tallyRuns(spans, periodStep(period));
  };
  const tallies = new Map(active.map((period) => [period, tallyOf(period)]));

  /** Whether one more booking over [start, end) stays within every limit. */
  return (start: number, end: number): boolean => {
    work.limitChecks += 1;
    const millis = end - start;
    for (const period of active) {
      // A kind of period with only one of the two limits: the other is no limit (Infinity).
      const countLimit = rules.count?.[period] ?? Infinity;
      const durationLimit = (rules.duration?.[period] ?? Infinity) * MINUTE;
      const { first, last } = keyRange(period, start, end);
      const most = busiest(tallies.get(period)!, first, last);
      if (most.count >= countLimit || most.millis + millis > durationLimit) return false;
    }
    return true;
  };
}

/** First local day of the period with key `key` (inverse of `periodKey` on period starts). */
function periodStartDay(period: Period, key: number): number {
  switch (period) {
    case 'day':
    case 'week':
      return key;
    case 'month':
      return Math.floor(utcTime(Math.floor(key / 12), key % 12, 1) / 86_400_000);
    case 'year':
      return Math.floor(utcTime(key, 0, 1) / 86_400_000);
  }
}

/**
 * The instants of every limit period that [from, to) touches: the bookings a limit check over that
 * range can count. null when no limit is set.
 */
export function limitHorizon(rules: LimitRules, from: number, to: number): { start: number; end: number } | null {
  const active = activePeriods(rules);
  if (active.length === 0) return null;
  const { timeZone, weekStart } = rules;
  const firstDay = localDayNumber(timeZone, from);
  const lastDay = localDayNumber(timeZone, Math.max(from, to - 1));
  // Every period starts on or before its first day and ends after its last: the widest kind decides.
  const startDay = Math.min(...active.map((period) => periodStartDay(period, periodKey(period, firstDay, weekStart))));
  const endDay = Math.max(...active.map((period) => periodStartDay(period, periodKey(period, lastDay, weekStart) + periodStep(period))));
  return { start: startOfDayNumber(timeZone, startDay), end: startOfDayNumber(timeZone, endDay) };
}
