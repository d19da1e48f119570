import { dateOfDayNumber, dayNumber, LAST_DAY_NUMBER, localDateOf, offsetMinutes, utcTime, zonedToEpoch } from './zones.js';

/** The last year whose every date `LAST_DAY_NUMBER` admits. */
const LAST_YEAR = 275_000;

const MINUTE = 60_000;

export interface RecurrenceRule {
  interval: number;
  frequency: 'weekly' | 'monthly' | 'yearly';
}

function daysInMonth(year: number, month: number): number {
  return new Date(utcTime(year, month, 0)).getUTCDate();
}

/**
 * The starts of `count` occurrences from `first`, at the same wall-clock time in `zone` (so a weekly
 * 09:00 stays 09:00 across DST changes). Like RFC 5545, a monthly or yearly date that does not exist
 * in a period (the 31st, February 29th) is skipped rather than moved. Fewer than `count` come back
 * when the series would run past the last instant JavaScript dates hold. The loop needs no other
 * bound: a skipped monthly date comes back within 12 steps, a skipped February 29th within 400.
 */
export function occurrenceStarts(first: number, rule: RecurrenceRule, count: number, zone: string): number[] {
  const local = localDateOf(zone, first);
  const minuteOfDay = Math.round((first + offsetMinutes(zone, first) * MINUTE - utcTime(local.year, local.month - 1, local.day)) / MINUTE);
  const starts = [first];
  for (let k = 1; starts.length < count; k++) {
    let date: { year: number; month: number; day: number } | null;
    if (rule.frequency === 'weekly') {
      const dayNo = dayNumber(local) + 7 * rule.interval * k;
      if (dayNo > LAST_DAY_NUMBER) break;
      date = dateOfDayNumber(dayNo);
    } else {
      const months = rule.frequency === 'monthly' ? rule.interval * k : 12 * rule.interval * k;
      const index = local.month - 1 + months;
      const year = local.year + Math.floor(index / 12);
      if (year > LAST_YEAR) break;
      const month = (index % 12) + 1;
      date = local.day <= daysInMonth(year, month) ? { year, month, day: local.day } : null;
    }
    if (date) starts.push(zonedToEpoch(zone, date.year, date.month, date.day, minuteOfDay));
  }
  return starts;
}
