import type { BookingWindow } from './slot-query.js';
import { dayNumber, localDayNumber, parseDate, startOfDayNumber, weekdayOfDayNumber } from './zones.js';

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
  if (window.type === 'calendarDays') return { start: -Infinity, end: startOfDayNumber(timeZone, today + window.days + 1) };
  let last = today;
  for (let added = 0; added < window.days; added++) {
    last += 1;
    while (!isBusinessDay(last)) last += 1;
  }
  return { start: -Infinity, end: startOfDayNumber(timeZone, last + 1) };
}
