import type { BookingWindow } from './slot-query.js';
import { dayNumber, LAST_DAY_NUMBER, localDayNumber, parseDate, startOfDayNumber, weekdayOfDayNumber } from './zones.js';

/** How far a rolling window looks for bookable days. */
export const ROLLING_WINDOW_SEARCH_DAYS = 365;

export const isBusinessDay = (dayNo: number) => {
  const weekday = weekdayOfDayNumber(dayNo);
  return weekday !== 0 && weekday !== 6;
};

/**
 * The instants a fixed booking window allows, [start, end), in the organizer's zone; null for a
 * rolling window, which depends on which days have slots (see `slots.ts`).
 */
export function fixedWindowBounds(window: BookingWindow, timeZone: string, now: number): { start: number; end: number } | null {
  if (window.type === 'range') {
    return {
      start: startOfDayNumber(timeZone, dayNumber(parseDate(window.start))),
      end: startOfDayNumber(timeZone, dayNumber(parseDate(window.end)) + 1),
    };
  }
  if (window.rolling) return null;
  const today = localDayNumber(timeZone, now);
  const lastDay = window.type === 'calendarDays' ? today + window.days : nthBusinessDayAfter(today, window.days);
  // Beyond the dates JavaScript can hold (about 273,790 years either side of 1970) the window has no end.
  return { start: -Infinity, end: lastDay >= LAST_DAY_NUMBER ? Infinity : startOfDayNumber(timeZone, lastDay + 1) };
}

/**
 * The `n`-th Monday-Friday date after `dayNo` (n >= 1). Every 7 consecutive dates hold 5 business
 * days, so whole weeks are skipped at once and at most 5 steps remain: the cost never grows with n.
 */
export function nthBusinessDayAfter(dayNo: number, n: number): number {
  const weeks = Math.floor((n - 1) / 5);
  let last = dayNo + weeks * 7;
  for (let added = weeks * 5; added < n; added++) {
    last += 1;
    while (!isBusinessDay(last)) last += 1;
  }
  return last;
}
