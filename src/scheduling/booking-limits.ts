import type { IntervalLimits, LimitBooking } from './slot-query.js';
import { dateOfDayNumber, localDayNumber, startOfDayNumber, weekdayOfDayNumber } from './zones.js';

const MINUTE = 60_000;
const PERIODS = ['day', 'week', 'month', 'year'] as const;
type Period = (typeof PERIODS)[number];

interface Tally {
  count: number;
  minutes: number;
}

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

/**
 * Booking-count and booked-minutes limits per day, week, month and year in the organizer's zone. A
 * booking counts in every period it overlaps, and so does a candidate: a slot is allowed only if each
 * period it touches still has room.
 */
export function bookingLimitChecker(rules: LimitRules, bookings: readonly LimitBooking[], ignoreUid: string | null | undefined) {
  const active = PERIODS.filter((period) => rules.count?.[period] !== undefined || rules.duration?.[period] !== undefined);
  if (active.length === 0) return null;
  const { timeZone, weekStart } = rules;
  const tallies = new Map<Period, Map<number, Tally>>(active.map((period) => [period, new Map()]));

  const forEachPeriod = (start: number, end: number, visit: (period: Period, key: number) => boolean): boolean => {
    const firstDay = localDayNumber(timeZone, start);
    const lastDay = localDayNumber(timeZone, Math.max(start, end - 1));
    for (const period of active) {
      const last = periodKey(period, lastDay, weekStart);
      for (let key = periodKey(period, firstDay, weekStart); key <= last; key += periodStep(period)) {
        if (!visit(period, key)) return false;
      }
    }
    return true;
  };

  for (const booking of bookings) {
    if (ignoreUid && booking.uid === ignoreUid) continue;
    const minutes = (booking.end - booking.start) / MINUTE;
    forEachPeriod(booking.start, booking.end, (period, key) => {
      const byKey = tallies.get(period)!;
      const tally = byKey.get(key);
      if (tally) {
        tally.count += 1;
        tally.minutes += minutes;
      } else byKey.set(key, { count: 1, minutes });
      return true;
    });
  }

  /** Whether one more booking over [start, end) stays within every limit. */
  return (start: number, end: number): boolean => {
    const minutes = (end - start) / MINUTE;
    return forEachPeriod(start, end, (period, key) => {
      const tally = tallies.get(period)!.get(key);
      const countLimit = rules.count?.[period];
      const durationLimit = rules.duration?.[period];
      if (countLimit !== undefined && (tally?.count ?? 0) >= countLimit) return false;
      if (durationLimit !== undefined && (tally?.minutes ?? 0) + minutes > durationLimit) return false;
      return true;
    });
  };
}

/** First local day of the period with key `key` (inverse of `periodKey` on period starts). */
function periodStartDay(period: Period, key: number): number {
  switch (period) {
    case 'day':
    case 'week':
      return key;
    case 'month':
      return Math.floor(Date.UTC(Math.floor(key / 12), key % 12, 1) / 86_400_000);
    case 'year':
      return Math.floor(Date.UTC(key, 0, 1) / 86_400_000);
  }
}

/**
 * The instants of every limit period that [from, to) touches: the bookings a limit check over that
 * range can count. null when no limit is set.
 */
export function limitHorizon(rules: LimitRules, from: number, to: number): { start: number; end: number } | null {
  const active = PERIODS.filter((period) => rules.count?.[period] !== undefined || rules.duration?.[period] !== undefined);
  if (active.length === 0) return null;
  const { timeZone, weekStart } = rules;
  const firstDay = localDayNumber(timeZone, from);
  const lastDay = localDayNumber(timeZone, Math.max(from, to - 1));
  let startDay = firstDay;
  let endDay = lastDay + 1;
  for (const period of active) {
    startDay = Math.min(startDay, periodStartDay(period, periodKey(period, firstDay, weekStart)));
    endDay = Math.max(endDay, periodStartDay(period, periodKey(period, lastDay, weekStart) + periodStep(period)));
  }
  return { start: startOfDayNumber(timeZone, startDay), end: startOfDayNumber(timeZone, endDay) };
}
