import type { DateOverride, WeeklyRule } from './availability-rules.js';
import { work } from './engine-work.js';
import { type Interval, clipIntervals, normalizeIntervals } from './intervals.js';
import { dateOfDayNumber, dayNumber, epochOfWallClock, localDayNumber, parseDate, weekdayOfDayNumber, zonedToEpoch } from './zones.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

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
  // Keyed by day number: a date is looked up without printing it.
  const overridesByDay = new Map<number, DateOverride[]>();
  for (const override of schedule.overrides) {
    const dayNo = dayNumber(parseDate(override.date));
    const list = overridesByDay.get(dayNo);
    if (list) list.push(override);
    else overridesByDay.set(dayNo, [override]);
  }
  const rulesByWeekday: MinuteRange[][] = [[], [], [], [], [], [], []];
  for (const rule of schedule.weeklyRules) for (const day of rule.days) rulesByWeekday[day]!.push(rule);
  // A day off (00:00-00:00) is an empty range: it makes no piece.
  return (dayNo: number): readonly MinuteRange[] => overridesByDay.get(dayNo) ?? rulesByWeekday[weekdayOfDayNumber(dayNo)]!;
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
  const firstDay = localDayNumber(timeZone, from);
  const lastDay = localDayNumber(timeZone, to - 1);
  const pieces: Interval[] = [];
  for (let dayNo = firstDay; dayNo <= lastDay; dayNo++) {
    work.workingDates += 1;
    const ranges = rangesOf(dayNo);
    const midnight = dayNo * DAY; // the date's midnight as a wall-clock time (see epochOfWallClock)
    // Indexed loops: see intervals.ts on destructuring.
    const dated: Interval[] = [];
    for (let i = 0; i < ranges.length; i++) {
      const start = epochOfWallClock(timeZone, midnight + ranges[i]!.startMinute * MINUTE);
      // An empty range (a day off, or a time the clocks skip) is dropped by normalizeIntervals.
      dated.push([start, epochOfWallClock(timeZone, midnight + ranges[i]!.endMinute * MINUTE)]);
    }
    const merged = normalizeIntervals(dated);
    for (let i = 0; i < merged.length; i++) {
      if (merged[i]![1] > from && merged[i]![0] < to) pieces.push(merged[i]!);
    }
  }
  return pieces;
}

/** The instants a schedule is open within [from, to), as merged UTC intervals. */
export function workingIntervals(schedule: HostSchedule, from: number, to: number): Interval[] {
  return clipIntervals(normalizeIntervals(workingPieces(schedule, from, to)), from, to);
}

/** Whether the weekly rules alone keep every weekday open from midnight to midnight. */
function openAllWeek(schedule: HostSchedule): boolean {
  for (let weekday = 0; weekday < 7; weekday++) {
    const ranges = schedule.weeklyRules.filter((rule) => rule.days.includes(weekday)).map((rule) => [rule.startMinute, rule.endMinute] as const);
    const merged = normalizeIntervals(ranges);
    if (merged.length !== 1 || merged[0]![0] !== 0 || merged[0]![1] !== 1440) return false;
  }
  return true;
}

/**
 * Working time from `from` on, as far as it runs without a gap, up to `until`: what a candidate
 * starting before `from` may run into. It is read a date at a time and stops at the first gap; where
 * the weekly rules are open all week, the dates up to the next override are one stretch. So the cost
 * depends on the schedule, not on how far `until` is.
 */
export function workingRunAfter(schedule: HostSchedule, from: number, until: number): Interval[] {
  const { timeZone } = schedule;
  // Where the weekly rules are open all week: the days with overrides, which break the stretch.
  const overrideDays = openAllWeek(schedule) ? schedule.overrides.map((override) => dayNumber(parseDate(override.date))).sort((a, b) => a - b) : null;
  const run: Interval[] = [];
  let cursor = from;
  while (cursor < until) {
    if (overrideDays) {
      const dayNo = localDayNumber(timeZone, cursor);
      const dayStart = zonedToEpoch(timeZone, ...ymd(dayNo), 0);
      const nextOverride = overrideDays.find((day) => day > dayNo);
      if (dayStart === cursor && !overrideDays.includes(dayNo)) {
        const stretchEnd = nextOverride === undefined ? until : Math.min(until, zonedToEpoch(timeZone, ...ymd(nextOverride), 0));
        run.push([cursor, stretchEnd]);
        cursor = stretchEnd;
        continue;
      }
    }
    const chunkEnd = Math.min(until, cursor + DAY);
    let reach = cursor;
    for (const piece of workingPieces(schedule, cursor, chunkEnd)) {
      if (piece[0] > reach) break;
      run.push(piece);
      reach = Math.max(reach, piece[1]);
    }
    if (reach < chunkEnd) break;
    cursor = reach;
  }
  return run;
}


function ymd(dayNo: number): [number, number, number] {
  const { year, month, day } = dateOfDayNumber(dayNo);
  return [year, month, day];
}
