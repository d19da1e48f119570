import { type DateOverride, isDayOff, type WeeklyRule } from './availability-rules.js';
import { type Interval, clipIntervals, normalizeIntervals } from './intervals.js';
import { dateOfDayNumber, dayNumber, formatDate, localDateOf, weekdayOfDayNumber, zonedToEpoch } from './zones.js';

export interface HostSchedule {
  timeZone: string;
  weeklyRules: readonly WeeklyRule[];
  overrides: readonly DateOverride[];
}

/**
 * The instants a schedule is open within [from, to), as UTC intervals. Each local date of the schedule's
 * zone gets its overrides if it has any (they replace the weekly rules; a day off empties the date),
 * otherwise the weekly rules of its weekday. Wall-clock times become instants with DST-correct
 * conversion, so the 25- and 23-hour days and 30-minute shifts come out right.
 */
export function workingIntervals(schedule: HostSchedule, from: number, to: number): Interval[] {
  if (to <= from) return [];
  const { timeZone } = schedule;
  const overridesByDate = new Map<string, DateOverride[]>();
  for (const override of schedule.overrides) {
    const list = overridesByDate.get(override.date);
    if (list) list.push(override);
    else overridesByDate.set(override.date, [override]);
  }
  const rulesByWeekday: { startMinute: number; endMinute: number }[][] = [[], [], [], [], [], [], []];
  for (const rule of schedule.weeklyRules) for (const day of rule.days) rulesByWeekday[day]!.push(rule);

  // A local date can start up to ~14 h before or after the UTC date: one day of margin each side.
  const firstDay = dayNumber(localDateOf(timeZone, from)) - 1;
  const lastDay = dayNumber(localDateOf(timeZone, to)) + 1;
  const open: Interval[] = [];
  for (let dayNo = firstDay; dayNo <= lastDay; dayNo++) {
    const date = dateOfDayNumber(dayNo);
    const overrides = overridesByDate.get(formatDate(date));
    const ranges = overrides ? overrides.filter((override) => !isDayOff(override)) : rulesByWeekday[weekdayOfDayNumber(dayNo)]!;
    for (const { startMinute, endMinute } of ranges) {
      const start = zonedToEpoch(timeZone, date.year, date.month, date.day, startMinute);
      const end = zonedToEpoch(timeZone, date.year, date.month, date.day, endMinute);
      if (end > start) open.push([start, end]);
    }
  }
  return clipIntervals(normalizeIntervals(open), from, to);
}
