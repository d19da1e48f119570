// Slot-engine micro-benchmark: computeSlots (pure, in-process) on two fixed, seeded queries and one shared input.
//   oneHost:      1 fixed host, 30-day window, 30-minute event, Mon-Fri 09:00-17:00 America/New_York,
//                 200 bookings (30-60 min, own buffers 0-15 min), minimum notice 120 min.
//   roundRobin50: 50 round-robin hosts (New York / Chicago / London), 20 bookings each, same window and event.
//   sharedRoundRobin50: ../shared/bench/roundrobin-50-hosts.json (bench/roundrobin-50.ts), its slot count
//                 checked, timed warm in this process and cold in fresh processes (bench/engine-fresh.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BusyBlock, type HostAvailability, PLAIN_EVENT_RULES, type SlotQuery } from '../src/scheduling/slot-query.js';
import { computeSlots } from '../src/scheduling/slots.js';
import { dateOfDayNumber, dayNumber, parseDate, startOfDayNumber, weekdayOfDayNumber, zonedToEpoch } from '../src/scheduling/zones.js';
import { EXPECTED_SLOTS, EXTRA_SLOT_START, loadRoundRobin50, REFERENCE_SLOTS } from './roundrobin-50.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
export const WINDOW_DAYS = 30;
export const WORKING_HOURS = { days: [1, 2, 3, 4, 5], startMinute: 540, endMinute: 1020 };

/** mulberry32: a small seeded PRNG, so every run generates the same data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const intBetween = (random: () => number, min: number, max: number) => min + Math.floor(random() * (max - min + 1));

export interface GeneratedBooking {
  start: number;
  end: number;
  bufferBefore: number;
  bufferAfter: number;
}

export interface BookingSpread {
  zone: string;
  /** Day number (see zones.dayNumber) of the window's first local date. */
  firstDay: number;
  days: number;
  count: number;
  /**
   * true: Monday-Friday only, start and end inside 09:00-17:00 (what the API run inserts).
   * false: any date of the window, starts 07:00-18:45, so some bookings lie partly or wholly outside
   * working hours and some on weekends; own buffers 0-15 min.
   */
  insideWorkingHours: boolean;
}

/** Bookings of 30-60 minutes (5-minute steps) starting on a 15-minute grid, sorted by start. */
export function generateBookings(random: () => number, spread: BookingSpread): GeneratedBooking[] {
  const weekdays: number[] = [];
  for (let offset = 0; offset < spread.days; offset++) {
    const weekday = weekdayOfDayNumber(spread.firstDay + offset);
    if (!spread.insideWorkingHours || (weekday >= 1 && weekday <= 5)) weekdays.push(spread.firstDay + offset);
  }
  const bookings: GeneratedBooking[] = [];
  for (let i = 0; i < spread.count; i++) {
    const dayNo = weekdays[intBetween(random, 0, weekdays.length - 1)]!;
    const length = intBetween(random, 6, 12) * 5;
    const startMinute = spread.insideWorkingHours
      ? WORKING_HOURS.startMinute + intBetween(random, 0, Math.floor((WORKING_HOURS.endMinute - WORKING_HOURS.startMinute - length) / 15)) * 15
      : intBetween(random, 7 * 4, 18 * 4 + 3) * 15;
    const { year, month, day } = dateOfDayNumber(dayNo);
    const start = zonedToEpoch(spread.zone, year, month, day, startMinute);
    const buffered = !spread.insideWorkingHours;
    bookings.push({
      start,
      end: start + length * MINUTE,
      bufferBefore: buffered ? intBetween(random, 0, 3) * 5 : 0,
      bufferAfter: buffered ? intBetween(random, 0, 3) * 5 : 0,
    });
  }
  return bookings.sort((a, b) => a.start - b.start);
}

export const busyOf = (bookings: readonly GeneratedBooking[]): BusyBlock[] =>
  bookings.map((booking, index) => ({ ...booking, source: 'booking', eventTypeId: 1, bookingUid: `bench-${index}` }));

/** A 30-minute event with no buffers, limits, window or seats; minimum notice 120 min. */
export function eventQuery(fields: { now: number; from: number; to: number; organizerTimeZone: string; hosts: HostAvailability[] }): SlotQuery {
  return {
    ...fields,
    ...PLAIN_EVENT_RULES,
    eventTypeId: 1,
    duration: 30,
    minimumBookingNotice: 120,
    weekStart: 0,
    limitBookings: [],
    ignoreBookingUid: null,
  };
}

/** The window: 30 local dates from Monday 2026-06-01 in New York; `now` is one day before it. */
const ORGANIZER_ZONE = 'America/New_York';
const FIRST_DAY = dayNumber(parseDate('2026-06-01'));

function window() {
  const from = startOfDayNumber(ORGANIZER_ZONE, FIRST_DAY);
  const to = startOfDayNumber(ORGANIZER_ZONE, FIRST_DAY + WINDOW_DAYS);
  return { from, to, now: from - DAY };
}

export function oneHostQuery(): SlotQuery {
  const random = seededRandom(0x5eed_0001);
  const bookings = generateBookings(random, { zone: ORGANIZER_ZONE, firstDay: FIRST_DAY, days: WINDOW_DAYS, count: 200, insideWorkingHours: false });
  return eventQuery({
    ...window(),
    organizerTimeZone: ORGANIZER_ZONE,
    hosts: [{ userId: 1, fixed: true, schedule: { timeZone: ORGANIZER_ZONE, weeklyRules: [WORKING_HOURS], overrides: [] }, busy: busyOf(bookings) }],
  });
}

const HOST_ZONES = ['America/New_York', 'America/Chicago', 'Europe/London'];

export function roundRobinQuery(hostCount = 50, bookingsPerHost = 20): SlotQuery {
  const random = seededRandom(0x5eed_0002);
  const hosts: HostAvailability[] = [];
  for (let i = 0; i < hostCount; i++) {
    const zone = HOST_ZONES[i % HOST_ZONES.length]!;
    const bookings = generateBookings(random, { zone, firstDay: FIRST_DAY, days: WINDOW_DAYS, count: bookingsPerHost, insideWorkingHours: false });
    hosts.push({ userId: i + 1, fixed: false, schedule: { timeZone: zone, weeklyRules: [WORKING_HOURS], overrides: [] }, busy: busyOf(bookings) });
  }
  return eventQuery({ ...window(), organizerTimeZone: ORGANIZER_ZONE, hosts });
}

interface Timing {
  firstCallUs: number;
  medianUs: number;
  p95Us: number;
  minUs: number;
  slots: number;
  calls: number;
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Times `computeSlots(query)`: one first call, `warmup` discarded calls, then `calls` timed one by one. */
function timeQuery(query: SlotQuery, warmup: number, calls: number): Timing {
  let t0 = process.hrtime.bigint();
  const slots = computeSlots(query).length;
  const firstCallUs = Number(process.hrtime.bigint() - t0) / 1000;
  let sink = 0;
  for (let i = 0; i < warmup; i++) sink += computeSlots(query).length;
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    t0 = process.hrtime.bigint();
    sink += computeSlots(query).length;
    samples.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  if (sink !== slots * (warmup + calls)) throw new Error(`computeSlots is not deterministic: ${sink} != ${slots} x ${warmup + calls}`);
  samples.sort((a, b) => a - b);
  return { firstCallUs: round(firstCallUs), medianUs: round(percentile(samples, 50)), p95Us: round(percentile(samples, 95)), minUs: round(samples[0]!), slots, calls };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const FRESH_SPAWNS = 7;
const WARM_TARGET_MS = 4;
const FRESH_TARGET_MS = 15;

interface FreshTiming {
  medianMs: number;
  samplesMs: number[];
  cpuMedianMs: number | null;
  importMedianMs: number;
  warmUpMedianMs: number | null;
}

interface SharedRoundRobin50 {
  file: string;
  check: { expected: number; got: number; ok: boolean; referenceSlots: number; extraSlotStart: string; extraSlotListed: boolean };
  warm: { medianMs: number; p95Ms: number; minMs: number; calls: number; targetMs: number; metTarget: boolean };
  fresh:
    | (FreshTiming & { withoutWarmUp: FreshTiming; engine: string; spawns: number; loadAvgBefore: number; targetMs: number; metTarget: boolean })
    | { failed: string };
}

/**
 * `bench/engine-fresh.mjs` in 2 x FRESH_SPAWNS new node processes, one after the other, taking turns:
 * as `svc serve` starts (its engine warm-up run, see src/scheduling/warm-up.ts) and with no engine
 * code run before the query. On the built engine (dist/, as `svc serve` runs it) or, when it is not
 * built, on the sources through tsx.
 */
function freshProcessTimes(query: SlotQuery, expectedSlots: number): SharedRoundRobin50['fresh'] {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const built = path.join(root, 'dist/src/scheduling/slots.js');
  const [loader, engine, warmUp] = fs.existsSync(built)
    ? [[], built, path.join(root, 'dist/src/scheduling/warm-up.js')]
    : [['--import', 'tsx'], path.join(root, 'src/scheduling/slots.ts'), path.join(root, 'src/scheduling/warm-up.ts')];
  type Result = { importMs: number; warmUpMs: number | null; firstQueryMs: number; firstQueryCpuMs: number | null; slots: number };
  const results: { server: Result[]; none: Result[] } = { server: [], none: [] };
  const loadAvg = os.loadavg()[0]!;
  for (let i = 0; i < 2 * FRESH_SPAWNS; i++) {
    const mode = i % 2 === 0 ? 'server' : 'none';
    const args = [...loader, 'bench/engine-fresh.mjs', engine, mode === 'server' ? warmUp : 'none'];
    const child = spawnSync(process.execPath, args, { cwd: root, input: JSON.stringify(query), encoding: 'utf8', timeout: 60_000 });
    if (child.status !== 0) return { failed: `bench/engine-fresh.mjs exited with ${child.status ?? child.signal}: ${child.stderr.trim().split('\n').slice(-3).join(' ')}` };
    const result = JSON.parse(child.stdout) as Result;
    if (result.slots !== expectedSlots) return { failed: `a fresh process listed ${result.slots} slots, this one ${expectedSlots} (is dist/ stale? npm run build)` };
    results[mode].push(result);
  }
  const timing = (runs: Result[]): FreshTiming => {
    const cpu = runs.flatMap((run) => (run.firstQueryCpuMs === null ? [] : [run.firstQueryCpuMs]));
    const warmUps = runs.flatMap((run) => (run.warmUpMs === null ? [] : [run.warmUpMs]));
    return {
      medianMs: round(median(runs.map((run) => run.firstQueryMs)), 2),
      samplesMs: runs.map((run) => round(run.firstQueryMs, 2)),
      cpuMedianMs: cpu.length > 0 ? round(median(cpu), 2) : null,
      importMedianMs: round(median(runs.map((run) => run.importMs))),
      warmUpMedianMs: warmUps.length > 0 ? round(median(warmUps)) : null,
    };
  };
  const server = timing(results.server);
  return {
    ...server,
    withoutWarmUp: timing(results.none),
    engine: path.relative(root, engine),
    spawns: FRESH_SPAWNS,
    loadAvgBefore: round(loadAvg, 2),
    targetMs: FRESH_TARGET_MS,
    metTarget: server.medianMs <= FRESH_TARGET_MS,
  };
}

function runSharedRoundRobin50(log: (message: string) => void): SharedRoundRobin50 | { file: string; skipped: string } {
  const input = loadRoundRobin50();
  if ('absent' in input) return { file: input.file, skipped: input.absent };
  const slots = computeSlots(input.query);
  const extraSlotListed = slots.some((slot) => slot.start === Date.parse(EXTRA_SLOT_START));
  const check = { expected: EXPECTED_SLOTS, got: slots.length, ok: slots.length === EXPECTED_SLOTS && extraSlotListed, referenceSlots: REFERENCE_SLOTS, extraSlotStart: EXTRA_SLOT_START, extraSlotListed };
  log(`engine: sharedRoundRobin50 ${slots.length} slots (expected ${EXPECTED_SLOTS}); 200 warm-up + 300 timed calls`);
  const timing = timeQuery(input.query, 200, 300);
  const warm = {
    medianMs: round(timing.medianUs / 1000, 3),
    p95Ms: round(timing.p95Us / 1000, 3),
    minMs: round(timing.minUs / 1000, 3),
    calls: timing.calls,
    targetMs: WARM_TARGET_MS,
    metTarget: timing.medianUs <= WARM_TARGET_MS * 1000,
  };
  log(`engine: sharedRoundRobin50 warm median ${warm.medianMs} ms; ${FRESH_SPAWNS} fresh processes`);
  const fresh = freshProcessTimes(input.query, slots.length);
  log(`engine: sharedRoundRobin50 fresh median ${'medianMs' in fresh ? `${fresh.medianMs} ms (without the warm-up ${fresh.withoutWarmUp.medianMs} ms)` : fresh.failed}`);
  return { file: input.file, check, warm, fresh };
}

/** How the shared-input figures are measured (for the bench's notes). */
export const SHARED_ROUND_ROBIN_NOTE = `engine.sharedRoundRobin50: ../shared/bench/roundrobin-50-hosts.json read as it is (bench/roundrobin-50.ts: round robin, one group, starts in [window.start, window.end + 1 ms), organizer zone = bookerTimeZone, busy blocks as calendar events); skipped when the file is absent. check: the slot count against ${EXPECTED_SLOTS} (the reference's ${REFERENCE_SLOTS} plus ${EXTRA_SLOT_START}, which starts inside the window and ends after it). warm: median of 300 timed calls after 200 warm-up calls in this process. fresh: new node processes one after the other (bench/engine-fresh.mjs, the query on stdin), each importing the engine as the server runs it (fresh.engine: dist/ when built, else the sources through tsx), then running the engine warm-up svc serve runs before it listens (src/scheduling/warm-up.ts: built-in queries in zones of its own, after which every zone table and formatter is dropped) or, for fresh.withoutWarmUp, nothing; ${FRESH_SPAWNS} of each, taking turns; each waits 100 ms for start-up's compilations, then times its first computeSlots with the zone tables empty (wall clock; cpuMedianMs: that thread's CPU time, which other processes on the machine do not lengthen, Node 23.9+); importMedianMs is the engine's import, Intl's one-time load (which zones.ts triggers on import) included; warmUpMedianMs the warm-up's own time; loadAvgBefore: the 1-minute load average when the spawns began.`;

export interface EngineResult {
  oneHost: Timing & { hosts: number; bookings: number; targetUs: number; metTarget: boolean };
  roundRobin50: { medianMs: number; p95Ms: number; minMs: number; firstCallMs: number; slots: number; calls: number; hosts: number; bookingsPerHost: number; targetMs: number; metTarget: boolean; meanHostsPerSlot: number };
  sharedRoundRobin50: ReturnType<typeof runSharedRoundRobin50>;
}

export function runEngineBench(log: (message: string) => void = () => {}): EngineResult {
  const one = oneHostQuery();
  log('engine: oneHost (200 warm-up + 2000 timed calls)');
  const oneHost = timeQuery(one, 200, 2000);
  log(`engine: oneHost median ${oneHost.medianUs} us, ${oneHost.slots} slots`);

  const rr = roundRobinQuery();
  log('engine: roundRobin50 (200 warm-up + 300 timed calls)');
  const timing = timeQuery(rr, 200, 300);
  const rrSlots = computeSlots(rr);
  const meanHostsPerSlot = rrSlots.length ? rrSlots.reduce((sum, slot) => sum + slot.hostIds.length, 0) / rrSlots.length : 0;
  log(`engine: roundRobin50 median ${round(timing.medianUs / 1000, 3)} ms, ${timing.slots} slots`);
  return {
    oneHost: { ...oneHost, hosts: 1, bookings: one.hosts[0]!.busy.length, targetUs: 500, metTarget: oneHost.medianUs <= 500 },
    roundRobin50: {
      medianMs: round(timing.medianUs / 1000, 3),
      p95Ms: round(timing.p95Us / 1000, 3),
      minMs: round(timing.minUs / 1000, 3),
      firstCallMs: round(timing.firstCallUs / 1000, 3),
      slots: timing.slots,
      calls: timing.calls,
      hosts: rr.hosts.length,
      bookingsPerHost: rr.hosts[0]!.busy.length,
      targetMs: 10,
      metTarget: timing.medianUs <= 10_000,
      meanHostsPerSlot: round(meanHostsPerSlot, 2),
    },
    sharedRoundRobin50: runSharedRoundRobin50(log),
  };
}

// `node --import tsx bench/engine.ts` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${JSON.stringify(runEngineBench((message) => process.stderr.write(`[engine] ${message}\n`)))}\n`);
}
