// The shared benchmark input ../shared/bench/roundrobin-50-hosts.json (see its README), read as it is
// and turned into a SlotQuery. Used by the engine benchmark (bench/engine.ts) and by
// test/engine/roundrobin-50.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DateOverride, WeeklyRule } from '../src/scheduling/availability-rules.js';
import { type BusyBlock, type HostAvailability, PLAIN_EVENT_RULES, type SlotQuery } from '../src/scheduling/slot-query.js';

const FILE_NAME = 'roundrobin-50-hosts.json';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Where the input lives: `../shared/bench/` next to the repository. A git worktree is a repository of
 * its own, so its parents are searched too (the first ancestor holding `shared/bench/<file>` wins).
 * SVC_BENCH_INPUTS names another directory.
 */
export function roundRobin50Path(): string {
  if (process.env.SVC_BENCH_INPUTS) return path.resolve(process.env.SVC_BENCH_INPUTS, FILE_NAME);
  const candidates: string[] = [];
  for (let dir = repoRoot; ; dir = path.dirname(dir)) {
    candidates.push(path.join(dir, '..', 'shared', 'bench', FILE_NAME));
    if (path.dirname(dir) === dir) break;
  }
  return candidates.find((candidate) => fs.existsSync(candidate)) ?? candidates[0]!;
}

/** What the reference answers on this input, and the one slot svc lists on top (it starts inside the window). */
export const REFERENCE_SLOTS = 2335;
export const EXTRA_SLOT_START = '2026-03-30T23:45:00.000Z';
export const EXPECTED_SLOTS = REFERENCE_SLOTS + 1;

interface InputRule {
  days: number[];
  startTime: string;
  endTime: string;
}

interface InputFile {
  now: string;
  window: { start: string; end: string };
  bookerTimeZone: string;
  lengthInMinutes: number;
  slotInterval: number;
  minimumBookingNotice: number;
  schedulingType: string;
  hosts: { timeZone: string; availability: InputRule[]; overrides: { date: string; startTime: string; endTime: string }[]; busy: { start: string; end: string }[] }[];
}

const minuteOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
/** `23:59` as an end is the end of the day, as svc's schedules read it. */
const endMinuteOf = (hhmm: string) => (hhmm === '23:59' ? 1440 : minuteOf(hhmm));

function toQuery(input: InputFile): SlotQuery {
  if (input.schedulingType !== 'roundRobin') throw new Error(`${FILE_NAME}: schedulingType ${input.schedulingType}, expected roundRobin`);
  const hosts: HostAvailability[] = input.hosts.map((host, index) => {
    const weeklyRules: WeeklyRule[] = host.availability.map((rule) => ({ days: [...rule.days], startMinute: minuteOf(rule.startTime), endMinute: endMinuteOf(rule.endTime) }));
    const overrides: DateOverride[] = host.overrides.map((o) => ({ date: o.date, startMinute: minuteOf(o.startTime), endMinute: endMinuteOf(o.endTime) }));
    const busy: BusyBlock[] = host.busy.map((b) => ({ start: Date.parse(b.start), end: Date.parse(b.end), bufferBefore: 0, bufferAfter: 0, source: 'calendar' }));
    // Round robin: every host is a candidate of one group; a slot needs one of them free.
    return { userId: index + 1, fixed: false, schedule: { timeZone: host.timeZone, weeklyRules, overrides }, busy };
  });
  return {
    ...PLAIN_EVENT_RULES,
    now: Date.parse(input.now),
    from: Date.parse(input.window.start),
    // The window's end is its last millisecond: starts lie in [start, end + 1 ms).
    to: Date.parse(input.window.end) + 1,
    eventTypeId: 1,
    duration: input.lengthInMinutes,
    slotInterval: input.slotInterval,
    minimumBookingNotice: input.minimumBookingNotice,
    organizerTimeZone: input.bookerTimeZone,
    weekStart: 0,
    hosts,
    limitBookings: [],
  };
}

export type RoundRobin50 = { file: string; query: SlotQuery } | { file: string; absent: string };

/** The input as a SlotQuery, or why it could not be read (a missing file is not an error). */
export function loadRoundRobin50(): RoundRobin50 {
  const file = roundRobin50Path();
  if (!fs.existsSync(file)) return { file, absent: `${file} does not exist` };
  return { file, query: toQuery(JSON.parse(fs.readFileSync(file, 'utf8')) as InputFile) };
}
