import { type DateOverride, isDayOff, type WeeklyRule } from './availability-rules.js';
import { type Interval, clipIntervals, normalizeIntervals } from './intervals.js';
import { dateOfDayNumber, dayNumber, formatDate, localDateOf, weekdayOfDayNumber, zonedToEpoch } from './zones.js';

export interface HostSchedule {
  timeZone: string;
  weeklyRules: readonly WeeklyRule[];
  overrides: readonly DateOverride[];
}

interface MinuteRange {
  startMinute: number;
  endMinute: number;
}

/** The schedule indexed for day-by-day reading; built once per schedule and query. */
function indexSchedule(schedule: HostSchedule) {
  const overridesByDate = new Map<string, DateOverride[]>();
  for (const override of schedule.overrides) {
    const list = overridesByDate.get(override.date);
    if (list) list.push(override);
    else overridesByDate.set(override.date, [override]);
  }
  const rulesByWeekday: MinuteRange[][] = [[], [], [], [], [], [], []];
  for (const rule of schedule.weeklyRules) for (const day of rule.days) rulesByWeekday[day]!.push(rule);
  const hasOverrides = overridesByDate.size > 0;
  return (dayNo: number): readonly MinuteRange[] => {
    if (hasOverrides) {
      const overrides = overridesByDate.get(formatDate(dateOfDayNumber(dayNo)));
      if (overrides) return overrides.filter((override) => !isDayOff(override));
    }
    return rulesByWeekday[weekdayOfDayNumber(dayNo)]!;
  };
}

/**
 * The pieces of working time of every local date (in the schedule's zone) that meets [from, to): each
 * date's ranges as instants, merged where they overlap or touch within that date, never across dates.
 * Pieces are sorted and disjoint, and are not clipped to the window. Each local date gets its overrides
 * if it has any (they replace the weekly rules; a day off empties it), otherwise its weekday's rules.
 * Wall-clock times become instants with DST-correct conversion, so 23- and 25-hour days and 30-minute
 * shifts come out right.
 */
export function workingPieces(schedule: HostSchedule, from: number, to: number): Interval[] {
  if (to <= from) return [];
  const { timeZone } = schedule;
  const rangesOf = indexSchedule(schedule);
  const firstDay = dayNumber(localDateOf(timeZone, from));
  const lastDay = dayNumber(localDateOf(timeZone, to - 1));
  const pieces: Interval[] = [];
  for (let dayNo = firstDay; dayNo <= lastDay; dayNo++) {
    const ranges = rangesOf(dayNo);
    if (ranges.length === 0) continue;
    const { year, month, day } = dateOfDayNumber(dayNo);
    const dated: Interval[] = [];
    for (const { startMinute, endMinute } of ranges) {
      const start = zonedToEpoch(timeZone, year, month, day, startMinute);
      const end = zonedToEpoch(timeZone, year, month, day, endMinute);
      if (end > start) dated.push([start, end]);
    }
    for (const piece of dated.length > 1 ? normalizeIntervals(dated) : dated) {
      if (piece[1] > from && piece[0] < to) pieces.push(piece);
    }
  }
  return pieces;
}

/** The instants a schedule is open within [from, to), as merged UTC intervals. */
export function workingIntervals(schedule: HostSchedule, from: number, to: number): Interval[] {
  return clipIntervals(normalizeIntervals(workingPieces(schedule, from, to)), from, to);
}
