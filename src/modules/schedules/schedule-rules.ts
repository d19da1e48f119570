import type { DateOverride, WeeklyRule } from '../../scheduling/availability-rules.js';
import { isDayOff } from '../../scheduling/availability-rules.js';
import { invalidField } from '../../lib/errors.js';
import { WEEKDAYS } from '../users/users.schemas.js';

/** Weekday names in the engine's numbering (0 = Sunday). */
export const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
export type WeekdayName = (typeof WEEKDAYS)[number];

export interface AvailabilityInput {
  days: WeekdayName[];
  startTime: string;
  endTime: string;
}

export interface OverrideInput {
  date: string;
  startTime: string;
  endTime: string;
}

function minutes(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

/** "23:59" as an end means "until midnight", as in the reference (it widens 23:59 to the day's end). */
function endMinutes(hhmm: string): number {
  const value = minutes(hhmm);
  return value === 23 * 60 + 59 ? 1440 : value;
}

export function parseWeeklyRules(input: AvailabilityInput[], field = 'availability'): WeeklyRule[] {
  return input.map((rule, index) => {
    const startMinute = minutes(rule.startTime);
    const endMinute = endMinutes(rule.endTime);
    if (endMinute <= startMinute) throw invalidField(`${field}.${index}.endTime`, 'must be later than startTime', rule.endTime);
    if (new Set(rule.days).size !== rule.days.length) throw invalidField(`${field}.${index}.days`, 'must not repeat a day', rule.days);
    const days = rule.days.map((day) => WEEKDAY_NAMES.indexOf(day)).sort((a, b) => a - b);
    return { days, startMinute, endMinute };
  });
}

function isRealDate(date: string): boolean {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const parsed = new Date(Date.UTC(y, m - 1, d));
  return parsed.getUTCFullYear() === y && parsed.getUTCMonth() === m - 1 && parsed.getUTCDate() === d;
}

/**
 * Overrides replace the weekly rules of their date. Several disjoint ranges on one date make a split
 * day; a date listed twice with overlapping ranges, or a day off next to hours, is refused.
 */
export function parseDateOverrides(input: OverrideInput[], field = 'overrides'): DateOverride[] {
  const parsed = input.map((override, index) => {
    if (!isRealDate(override.date)) throw invalidField(`${field}.${index}.date`, 'must be a real calendar date (YYYY-MM-DD)', override.date);
    const startMinute = minutes(override.startTime);
    const endMinute = endMinutes(override.endTime);
    const dayOff = startMinute === 0 && endMinute === 0;
    if (!dayOff && endMinute <= startMinute) throw invalidField(`${field}.${index}.endTime`, 'must be later than startTime ("00:00"-"00:00" marks the whole day unavailable)', override.endTime);
    return { index, override: { date: override.date, startMinute, endMinute } };
  });
  const byDate = new Map<string, { index: number; override: DateOverride }[]>();
  for (const entry of parsed) byDate.set(entry.override.date, [...(byDate.get(entry.override.date) ?? []), entry]);
  for (const entries of byDate.values()) {
    if (entries.length < 2) continue;
    const sorted = [...entries].sort((a, b) => a.override.startMinute - b.override.startMinute);
    for (let i = 1; i < sorted.length; i++) {
      const previous = sorted[i - 1]!;
      const current = sorted[i]!;
      if (isDayOff(current.override) || isDayOff(previous.override) || current.override.startMinute < previous.override.endMinute) {
        const index = Math.max(previous.index, current.index);
        throw invalidField(`${field}.${index}.date`, 'repeats an override date with an overlapping range or a day off', current.override.date);
      }
    }
  }
  return parsed.map((entry) => entry.override).sort((a, b) => (a.date === b.date ? a.startMinute - b.startMinute : a.date < b.date ? -1 : 1));
}

function hhmm(minute: number): string {
  const clamped = minute === 1440 ? 23 * 60 + 59 : minute;
  return `${String(Math.floor(clamped / 60)).padStart(2, '0')}:${String(clamped % 60).padStart(2, '0')}`;
}

export function presentWeeklyRules(rules: WeeklyRule[]): AvailabilityInput[] {
  return rules.map((rule) => ({ days: rule.days.map((day) => WEEKDAY_NAMES[day]!), startTime: hhmm(rule.startMinute), endTime: hhmm(rule.endMinute) }));
}

export function presentDateOverrides(overrides: DateOverride[]): OverrideInput[] {
  return overrides.map((override) => ({ date: override.date, startTime: hhmm(override.startMinute), endTime: hhmm(override.endMinute) }));
}

/** The reference's default: Monday to Friday, 09:00-17:00. */
export const DEFAULT_WEEKLY_RULES: WeeklyRule[] = [{ days: [1, 2, 3, 4, 5], startMinute: 540, endMinute: 1020 }];
