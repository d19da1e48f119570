// `npm run bench`: cold start of the built CLI and HTTP throughput on both stores, printed as ONE
// JSON object on stdout. Progress and the servers' own output go to stderr.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { CHANGES_CHANNEL } from '../src/db/change-feed.js';
import { openDatabase } from '../src/db/client.js';
import { createTestDatabase, postgresAvailable, postgresServerUrl } from '../test/support/postgres.js';
import { freePort } from '../test/support/child-server.js';
import {
  BOOKING_MINUTES,
  BOOKINGS_API_VERSION,
  BOOKINGS_CONNECTIONS,
  BOOKINGS_HOSTS,
  BOOKINGS_ZONE,
  type BookingHost,
  bookingRequests,
  type BookingsCheck,
  bookingsPlan,
  type BookingsPlan,
  checkBookingsSql,
  phaseCapacity,
  SlotDealer,
} from './bookings-e2e.js';
import { runEngineBench, SHARED_ROUND_ROBIN_NOTE } from './engine.js';
import { LATENCY_NOTE, latencyBench, type LatencyHarness } from './latency.js';
import { idleRss, MEMORY_NOTE, MEMORY_ONLY_NOTE, type RssSample, type StartMemory, startMemory } from './memory.js';
import { OAUTH_NOTE, OAUTH_TARGET_RATIO, oauthFixture } from './oauth-e2e.js';
import { PLATFORM_NOTE, PLATFORM_TARGET_RATIO, platformFixture } from './platform-e2e.js';
import { TEAM_NOTE, teamBench, type TeamHarness } from './team-e2e.js';
import { TENANCY_NOTE, TENANCY_TARGET_RATIO, tenancyFixture } from './tenancy-e2e.js';
import { type BenchSmtp, MAIL_MAX_COST, MAIL_NOTE, startBenchSmtp } from './mail-e2e.js';
import { WEBHOOKS_NOTE, webhooksBench, type WebhooksHarness } from './webhooks-e2e.js';
import { DATA_EMBEDDED_SIZE, DATA_NOTE, DATA_SIZES, dataBench, dataGoals, type DataHarness } from './data-e2e.js';
import { CALENDARS_NOTE, calendarsBench, type CalendarsHarness } from './calendars-e2e.js';
import { machineCpuMs, postgresCpuMs, statCpuMs } from './proc-cpu.js';

/** svc requires a sealing key on PostgreSQL; any fixed one serves a benchmark. */
const BENCH_ENCRYPTION_KEY = 'be'.repeat(32);
import {
  checkSlotsResponse,
  EVENT_TYPES_API_VERSION,
  insertBookingsSql,
  SLOTS_API_VERSION,
  SLOTS_BOOKINGS,
  SLOTS_ZONE,
  slotsPath,
  slotsPlan,
  withoutOverlaps,
} from './slots-e2e.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_API_KEY = 'svc_0123456789abcdef0123456789abcdef';
const COLD_START_RUNS = 3;
const WARMUP_S = 1;
const DURATION_S = 5;
const CONNECTIONS = 10;
const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;
// The team benchmark (bench/team-e2e.ts) adds about 90 s to a full run (377 s in all on a loaded 2-core machine).
// A full run skips the data benchmark (bench/data-e2e.ts): it takes 6-11 minutes by itself on a loaded
// 2-core machine (bulk loads up to 210k bookings, about 3,600 timed requests per size and store), which
// would more than double a full run and blow its watchdog. It runs alone, with --only=data, under a
// watchdog of its own. So does the calendars benchmark (bench/calendars-e2e.ts, --only=calendars): it
// builds the 50-host team twice (once per store) and writes 132k calendar events into each.
const WATCHDOG_MS = process.argv.includes('--only=data') || process.argv.includes('--only=calendars') ? 900_000 : 480_000;
const BOOKINGS_TARGET_RPS = 300;

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

// ---- cleanup: every child and temp dir goes away, whatever happens ----

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();
const cleanups: (() => Promise<void>)[] = [];

function killAllSync(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
}
process.on('exit', killAllSync);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    log(`got ${signal}; killing children`);
    killAllSync();
    // Drop a PostgreSQL database made for this run, if any (bounded: never hang on the way out).
    const timeout = new Promise((resolve) => setTimeout(resolve, 3000).unref());
    void Promise.race([Promise.allSettled(cleanups.map((cleanup) => cleanup())), timeout]).then(() => process.exit(130));
  });
}
const watchdog = setTimeout(() => {
  log(`watchdog: still running after ${WATCHDOG_MS} ms; killing children`);
  killAllSync();
  // As on a signal: drop the PostgreSQL databases made for this run (the data benchmark's holds 210k bookings).
  const timeout = new Promise((resolve) => setTimeout(resolve, 3000).unref());
  void Promise.race([Promise.allSettled(cleanups.map((cleanup) => cleanup())), timeout]).then(() => process.exit(1));
}, WATCHDOG_MS);
watchdog.unref();

// ---- helpers ----


function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  tempDirs.add(dir);
  return dir;
}

function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** The parent's environment minus everything svc reads, so only what the bench sets reaches the child. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (
      name.startsWith('SVC_') ||
      name.startsWith('RATE_LIMIT_') ||
      ['DATABASE_URL', 'REDIS_URL', 'PORT', 'HOST', 'LOG_LEVEL', 'APP_URL', 'NODE_OPTIONS'].includes(name)
    ) {
      delete env[name];
    }
  }
  return env;
}

interface Server {
  child: ChildProcess;
  baseUrl: string;
  readyMs: number;
  output(): string;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/** Spawns `node bin/svc.js serve [args]` and resolves once GET /health answers 200 (polled every 10 ms). */
async function startServer(env: Record<string, string>, label: string, args: string[] = []): Promise<Server> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = '';
  const startedAt = performance.now();
  const child = spawn(process.execPath, ['bin/svc.js', 'serve', ...args], {
    cwd: root,
    env: { ...baseEnv(), HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  const capture = (chunk: Buffer) => {
    const text = chunk.toString();
    output += text;
    for (const line of text.split('\n')) if (line.trim()) process.stderr.write(`[${label}] ${line}\n`);
  };
  child.stdout!.on('data', capture);
  child.stderr!.on('data', capture);

  let readyMs: number | undefined;
  let dead = false;
  void exited.then(() => (dead = true));
  while (readyMs === undefined) {
    if (dead) throw new Error(`${label}: server exited before answering /health:\n${output.slice(-2000)}`);
    if (performance.now() - startedAt > READY_TIMEOUT_MS) {
      child.kill('SIGKILL');
      throw new Error(`${label}: /health did not answer 200 within ${READY_TIMEOUT_MS} ms:\n${output.slice(-2000)}`);
    }
    try {
      const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) readyMs = performance.now() - startedAt;
    } catch {
      // not listening yet
    }
    if (readyMs === undefined) await sleep(10);
  }

  return {
    child,
    baseUrl,
    readyMs,
    output: () => output,
    async stop() {
      const stopAt = performance.now();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      const result = await exited;
      clearTimeout(timer);
      return { ...result, ms: round(performance.now() - stopAt) };
    },
  };
}

interface CpuSnapshot {
  /** All CPUs, busy and total, in ms (from /proc/stat). */
  busyMs: number;
  totalMs: number;
  /** The server process (all its threads), ms. */
  serverMs: number;
  /** This process (autocannon), ms. */
  benchMs: number;
  /** Every process named postgres (a local PostgreSQL server's backends), ms. */
  postgresMs: number;
}

/** CPU time so far, from /proc (null where it is not available). */
function cpuSnapshot(serverPid: number | undefined): CpuSnapshot | null {
  try {
    const { busyMs, totalMs } = machineCpuMs();
    const serverMs = serverPid === undefined ? Number.NaN : statCpuMs(fs.readFileSync(`/proc/${serverPid}/stat`, 'utf8'));
    const usage = process.cpuUsage();
    return { busyMs, totalMs, serverMs, benchMs: (usage.user + usage.system) / 1000, postgresMs: postgresCpuMs() };
  } catch {
    return null;
  }
}

interface Measurement {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** connections / rps (Little's law): the mean latency at sub-millisecond resolution. */
  impliedMeanMs: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  requests: number;
  /**
   * CPU time per request during the measured run: the server process, this process (autocannon), the
   * postgres processes, and everything else on the machine; machineBusyPercent of all cores.
   */
  cpuMsPerRequest?: { server: number; loadGenerator: number; postgres: number; other: number; machineBusyPercent: number } | undefined;
}

/** CPU time per request between two snapshots (see Measurement.cpuMsPerRequest). */
function cpuSplit(before: CpuSnapshot | null, after: CpuSnapshot | null, requests: number): Measurement['cpuMsPerRequest'] {
  if (!before || !after || requests <= 0) return undefined;
  const server = after.serverMs - before.serverMs;
  const bench = after.benchMs - before.benchMs;
  const busy = after.busyMs - before.busyMs;
  const postgres = after.postgresMs - before.postgresMs;
  return {
    server: round(server / requests, 3),
    loadGenerator: round(bench / requests, 3),
    postgres: round(postgres / requests, 3),
    other: round(Math.max(0, busy - server - bench - postgres) / requests, 3),
    machineBusyPercent: round((100 * busy) / (after.totalMs - before.totalMs)),
  };
}

async function load(url: string, headers: Record<string, string> = {}, serverPid?: number): Promise<Measurement> {
  const options = { url, connections: CONNECTIONS, headers };
  await autocannon({ ...options, duration: WARMUP_S });
  const before = cpuSnapshot(serverPid);
  const result = await autocannon({ ...options, duration: DURATION_S });
  const after = cpuSnapshot(serverPid);
  const requests = result['2xx'] + result.non2xx;
  const cpuMsPerRequest = cpuSplit(before, after, requests);
  return {
    rps: round(result.requests.mean),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.mean,
    impliedMeanMs: round((CONNECTIONS * 1000) / result.requests.mean, 3),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    requests,
    cpuMsPerRequest,
  };
}

const notes: string[] = [];

async function postJson(url: string, headers: Record<string, string>, body: unknown, what: string): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`${what} answered ${response.status}: ${text}`);
  return JSON.parse(text).data;
}

/**
 * How the bookings of the slots test get into the store: PostgreSQL takes them while the server runs;
 * a PGlite data dir belongs to the one process that has it open, so the server is stopped first.
 */
interface BookingWriter {
  whileServerRuns: boolean;
  insert(sqlText: string): Promise<void>;
  /** The first row of one SELECT (the bookings check). */
  queryRow<T>(sqlText: string): Promise<T>;
  /** PostgreSQL: the pids of the backends connected to this database (the server's pool and listener). */
  backendPids?(): Promise<number[]>;
}

const pgliteWriter = (dataDir: string): BookingWriter => ({
  whileServerRuns: false,
  async insert(sqlText) {
    const database = await openDatabase({ dataDir });
    try {
      await database.exec(sqlText);
    } finally {
      await database.close();
    }
  },
  async queryRow<T>(sqlText: string) {
    const database = await openDatabase({ dataDir });
    try {
      const result = (await database.db.execute(sql.raw(sqlText))) as unknown as { rows: T[] };
      return result.rows[0]!;
    } finally {
      await database.close();
    }
  },
});

async function withPgClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const postgresWriter = (url: string): BookingWriter => ({
  whileServerRuns: true,
  async insert(sqlText) {
    await withPgClient(url, (client) => client.query(sqlText));
  },
  queryRow: <T>(sqlText: string) => withPgClient(url, async (client) => (await client.query(sqlText)).rows[0] as T),
  backendPids: () =>
    withPgClient(url, async (client) => {
      const result = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
      return result.rows.map((row) => row.pid);
    }),
});

/** CPU time (ms) so far of each of these processes (0 for one that is gone). */
function processCpuMs(pids: number[]): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const pid of pids) {
    try {
      cpu.set(pid, statCpuMs(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')));
    } catch {
      cpu.set(pid, 0);
    }
  }
  return cpu;
}

// ---- POST /v2/bookings ----

/** BOOKINGS_HOSTS users with the default schedule and a 15-minute event type each (a few at a time). */
async function createBookingHosts(baseUrl: string, label: string): Promise<BookingHost[]> {
  const admin = { authorization: `Bearer ${ADMIN_API_KEY}` };
  const hosts: BookingHost[] = [];
  for (let first = 0; first < BOOKINGS_HOSTS; first += 5) {
    const batch = Array.from({ length: Math.min(5, BOOKINGS_HOSTS - first) }, async (_, offset) => {
      const i = first + offset;
      const created = await postJson(
        `${baseUrl}/v2/admin/users`,
        admin,
        { email: `bookings-host-${i}@example.com`, name: `Bookings Host ${i}`, username: `bookings-host-${i}`, timeZone: BOOKINGS_ZONE },
        `${label}: POST /v2/admin/users (bookings host ${i})`,
      );
      const eventType = await postJson(
        `${baseUrl}/v2/event-types`,
        { authorization: `Bearer ${created.apiKey}`, 'svc-api-version': EVENT_TYPES_API_VERSION },
        { title: `Bench ${BOOKING_MINUTES}`, slug: `bench-${BOOKING_MINUTES}`, lengthInMinutes: BOOKING_MINUTES, minimumBookingNotice: 0 },
        `${label}: POST /v2/event-types (bookings host ${i})`,
      );
      return { userId: created.user.id as number, eventTypeId: eventType.id as number, apiKey: created.apiKey as string };
    });
    hosts.push(...(await Promise.all(batch)));
  }
  return hosts;
}

interface BookingsRun {
  /** Requests built and sent (each with its own slot). */
  sent: number;
  answered: number;
  statuses: Record<string, number>;
  /** Up to 3 non-201 answers, for diagnosis. */
  failures: string[];
  non2xx: number;
  errors: number;
  timeouts: number;
  latency: { p50: number; p99: number; mean: number };
  /** From the first request to the last answer. */
  elapsedMs: number;
  answerTimes: number[];
  /** The slowest first request of a connection (each connection's first request waits for a new connection's setup). */
  firstRequestsMaxMs: number;
  /** CPU snapshots at the start and at the last answer (amount runs) or the end. */
  cpu: { before: CpuSnapshot | null; after: CpuSnapshot | null };
}

/**
 * POST /v2/bookings over BOOKINGS_CONNECTIONS connections; connection c books only host c, each request
 * the host's next free slot of the dealer's range. Stops after `durationS` (answers still in flight are
 * abandoned, though the server may still commit them) or after exactly `amount` requests, all answered.
 */
async function runBookings(baseUrl: string, hosts: BookingHost[], dealer: SlotDealer, stop: { durationS: number } | { amount: number }, serverPid?: number): Promise<BookingsRun> {
  const statuses: Record<string, number> = {};
  const failures: string[] = [];
  let answered = 0;
  let lastAnswerAt = 0;
  /** When each answer came, ms after the start. */
  const answerTimes: number[] = [];
  /** Per connection, when its first answer came: the latency of its first request. */
  const firstAnswers: number[] = [];
  let after: CpuSnapshot | null = null;
  const amount = 'amount' in stop ? stop.amount : undefined;
  const before = cpuSnapshot(serverPid);
  const startedAt = performance.now();
  const result = await autocannon({
    ...bookingRequests(baseUrl, hosts, dealer, (status, body, host) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status !== 201 && failures.length < 3) failures.push(`${status} ${body.slice(0, 300)}`);
      answered += 1;
      lastAnswerAt = performance.now();
      answerTimes.push(lastAnswerAt - startedAt);
      firstAnswers[host] ??= lastAnswerAt - startedAt;
      if (answered === amount) after = cpuSnapshot(serverPid);
    }),
    ...(amount === undefined ? { duration: (stop as { durationS: number }).durationS } : { amount }),
  });
  after ??= cpuSnapshot(serverPid);
  return {
    sent: dealer.handedOut,
    answered,
    statuses,
    failures,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    latency: { p50: result.latency.p50, p99: result.latency.p99, mean: result.latency.mean },
    elapsedMs: (amount === undefined ? performance.now() : lastAnswerAt) - startedAt,
    answerTimes,
    firstRequestsMaxMs: Math.max(0, ...firstAnswers.filter((at) => at !== undefined)),
    cpu: { before, after },
  };
}

/**
 * A 1 s warm-up on the warm-up range, then a measured run on the measured range sized from the warm-up's
 * rate to last about DURATION_S (an amount, so every request of it is answered and counted), then the
 * check of what the store holds.
 */
async function bookingsLoad(baseUrl: string, hosts: BookingHost[], plan: BookingsPlan, serverPid: number | undefined, label: string, backendPids?: () => Promise<number[]>) {
  const warmDealer = new SlotDealer(plan, 'warmup', hosts.length);
  const warmup = await runBookings(baseUrl, hosts, warmDealer, { durationS: WARMUP_S }, serverPid);
  const warmupRps = (warmup.answered * 1000) / warmup.elapsedMs;
  // The first requests pay for JIT compilation and cold caches: the rate of the warm-up's second half
  // predicts the measured run's better.
  const half = warmup.elapsedMs / 2;
  const secondHalfRps = (warmup.answerTimes.filter((at) => at >= half).length * 1000) / half;
  // Requests abandoned at the end of the warm-up may still be running on the server.
  await sleep(300);
  // Even that runs about 30% below the steady rate (seen on both stores), hence the 1.3.
  const expectedRps = 1.3 * Math.max(warmupRps, secondHalfRps);
  const perHost = Math.min(phaseCapacity('measured'), Math.max(10, Math.ceil((expectedRps * DURATION_S) / hosts.length)));
  const amount = perHost * hosts.length;
  log(`${label}: bookings warm-up ${round(warmupRps)} /s (second half ${round(secondHalfRps)} /s, ${warmup.answered} answered); measured run: ${amount} bookings`);
  const measuredDealer = new SlotDealer(plan, 'measured', hosts.length);
  const backendsBefore = backendPids ? processCpuMs(await backendPids()) : undefined;
  const measured = await runBookings(baseUrl, hosts, measuredDealer, { amount }, serverPid);
  let thisDatabaseMs: number | undefined;
  if (backendPids && backendsBefore) {
    // Only the backends of this run's database, unlike `postgres` (every postgres process, other databases' too).
    const after = processCpuMs(await backendPids());
    thisDatabaseMs = [...after].reduce((sum, [pid, ms]) => sum + ms - (backendsBefore.get(pid) ?? 0), 0);
  }
  const rps = (measured.answered * 1000) / measured.elapsedMs;
  const created = measured.statuses['201'] ?? 0;
  const split = cpuSplit(measured.cpu.before, measured.cpu.after, measured.answered);
  // The longest time in which no answer came (from the start, between answers): a stall of the server or store.
  let longestGapMs = 0;
  let previous = 0;
  for (const at of [...measured.answerTimes].sort((a, b) => a - b)) {
    longestGapMs = Math.max(longestGapMs, at - previous);
    previous = at;
  }
  return {
    result: {
      rps: round(rps),
      p50Ms: measured.latency.p50,
      p99Ms: measured.latency.p99,
      meanMs: measured.latency.mean,
      impliedMeanMs: round((BOOKINGS_CONNECTIONS * 1000) / rps, 3),
      non2xx: measured.non2xx,
      errors: measured.errors,
      timeouts: measured.timeouts,
      requests: measured.answered,
      created,
      statuses: measured.statuses,
      ...(measured.failures.length ? { failures: measured.failures } : {}),
      durationS: round(measured.elapsedMs / 1000, 2),
      longestGapMs: round(longestGapMs),
      firstRequestsMaxMs: round(measured.firstRequestsMaxMs),
      connections: BOOKINGS_CONNECTIONS,
      hosts: hosts.length,
      targetRps: BOOKINGS_TARGET_RPS,
      metTarget: rps >= BOOKINGS_TARGET_RPS && measured.non2xx === 0 && measured.errors === 0,
      cpuMsPerRequest: split && thisDatabaseMs !== undefined ? { ...split, postgresThisDatabase: round(thisDatabaseMs / measured.answered, 3) } : split,
      warmup: {
        rps: round(warmupRps),
        sent: warmup.sent,
        answered: warmup.answered,
        created: warmup.statuses['201'] ?? 0,
        non2xx: warmup.non2xx,
        errors: warmup.errors,
        ...(warmup.failures.length ? { failures: warmup.failures } : {}),
      },
    },
    /** What the check must find: exactly `created` bookings in the measured range; in the warm-up range at least its 201s, at most those plus the requests it abandoned. */
    expect: { measured: created, warmupMin: warmup.statuses['201'] ?? 0, warmupMax: (warmup.statuses['201'] ?? 0) + (warmup.sent - warmup.answered) },
  };
}

interface BookingsVerification extends BookingsCheck {
  measuredMatches201: boolean;
  warmupWithinBounds: boolean;
  ok: boolean;
}

function verifyBookings(check: BookingsCheck, expect: { measured: number; warmupMin: number; warmupMax: number }): BookingsVerification {
  const measuredMatches201 = check.measuredBookings === expect.measured;
  const warmupWithinBounds = check.warmupBookings >= expect.warmupMin && check.warmupBookings <= expect.warmupMax;
  const onlyAccepted = Object.keys(check.statuses).every((status) => status === 'accepted');
  return {
    ...check,
    measuredMatches201,
    warmupWithinBounds,
    ok: measuredMatches201 && warmupWithinBounds && onlyAccepted && check.overlappingPairs === 0 && check.offPlan === 0 && check.withoutOneAttendee === 0,
  };
}

/**
 * One server on the given store: create a user, then load /health and /v2/me; then GET /v2/slots of a
 * second user's event type with 200 bookings (case (a) of the engine bench, over HTTP).
 */
async function throughput(storeEnv: Record<string, string>, label: string, bookings: BookingWriter) {
  const env = {
    ...storeEnv,
    SVC_ADMIN_API_KEY: ADMIN_API_KEY,
    RATE_LIMIT_API_KEY: '100000000',
    RATE_LIMIT_ANONYMOUS: '100000000',
    RATE_LIMIT_ACCESS_TOKEN: '100000000',
  };
  let server = await startServer(env, label);
  const startupMs = Math.round(server.readyMs);
  let serverStopped = false;
  const memory: { idleAfterFirstStart: RssSample | null; idleAfterRestart?: RssSample | null; idleAfterLoad?: RssSample | null } = {
    idleAfterFirstStart: await idleRss(server.child.pid),
  };
  log(`${label}: idle after first start: ${JSON.stringify(memory.idleAfterFirstStart)}`);
  try {
    log(`${label}: up in ${Math.round(server.readyMs)} ms; creating a user`);
    const admin = { authorization: `Bearer ${ADMIN_API_KEY}` };
    const created = await postJson(`${server.baseUrl}/v2/admin/users`, admin, { email: 'bench@example.com', name: 'Bench' }, `${label}: POST /v2/admin/users`);
    const apiKey: string = created.apiKey;
    const auth = { authorization: `Bearer ${apiKey}` };
    const check = await fetch(`${server.baseUrl}/v2/me`, { headers: auth });
    const checkText = await check.text();
    if (check.status !== 200) throw new Error(`${label}: GET /v2/me answered ${check.status}: ${checkText}`);

    // The slots fixture: a user with the default schedule (timeZone given) and a 30-minute event type.
    const host = await postJson(
      `${server.baseUrl}/v2/admin/users`,
      admin,
      { email: 'slots@example.com', name: 'Slots Host', username: 'slots-host', timeZone: SLOTS_ZONE },
      `${label}: POST /v2/admin/users (slots host)`,
    );
    const hostId: number = host.user.id;
    const eventType = await postJson(
      `${server.baseUrl}/v2/event-types`,
      { authorization: `Bearer ${host.apiKey}`, 'svc-api-version': EVENT_TYPES_API_VERSION },
      { title: 'Bench 30', slug: 'bench-30', lengthInMinutes: 30, minimumBookingNotice: 120 },
      `${label}: POST /v2/event-types`,
    );
    const eventTypeId: number = eventType.id;

    log(`${label}: autocannon GET /health (${WARMUP_S} s warm-up + ${DURATION_S} s)`);
    const health = await load(`${server.baseUrl}/health`, {}, server.child.pid);
    log(`${label}: health ${health.rps} req/s; autocannon GET /v2/me`);
    const me = await load(`${server.baseUrl}/v2/me`, auth, server.child.pid);
    log(`${label}: me ${me.rps} req/s`);
    const tenancy = await tenancyFixture(server.baseUrl, admin, postJson, label);
    const tenancyCheck = await fetch(tenancy.url, { headers: tenancy.headers });
    if (tenancyCheck.status !== 200) throw new Error(`${label}: team memberships answered ${tenancyCheck.status}: ${await tenancyCheck.text()}`);
    log(`${label}: autocannon GET /v2/organizations/{orgId}/teams/{teamId}/memberships as an organization admin`);
    const teamMemberships = await load(tenancy.url, tenancy.headers, server.child.pid);
    const orgTeamMemberships = { ...teamMemberships, ratio: round(teamMemberships.rps / health.rps, 3), targetRatio: TENANCY_TARGET_RATIO, metTarget: teamMemberships.rps / health.rps >= TENANCY_TARGET_RATIO };
    log(`${label}: org team memberships ${teamMemberships.rps} req/s (ratio ${orgTeamMemberships.ratio})`);
    const platform = await platformFixture(server.baseUrl, admin, postJson, label);
    log(`${label}: autocannon GET /v2/me with a managed user's access token`);
    const managedMe = await load(platform.url, platform.headers, server.child.pid);
    const managedUserMe = { ...managedMe, ratio: round(managedMe.rps / health.rps, 3), targetRatio: PLATFORM_TARGET_RATIO, metTarget: managedMe.rps / health.rps >= PLATFORM_TARGET_RATIO };
    log(`${label}: managed user me ${managedMe.rps} req/s (ratio ${managedUserMe.ratio})`);
    const oauthApp = await oauthFixture(server.baseUrl, admin, postJson, label);
    log(`${label}: autocannon GET /v2/me with a third-party OAuth access token; then code exchanges`);
    const thirdPartyMe = await load(oauthApp.url, oauthApp.headers, server.child.pid);
    const oauth = {
      thirdPartyMe: { ...thirdPartyMe, ratio: round(thirdPartyMe.rps / health.rps, 3), targetRatio: OAUTH_TARGET_RATIO, metTarget: thirdPartyMe.rps / health.rps >= OAUTH_TARGET_RATIO },
      tokenExchanges: await oauthApp.measureTokenExchanges(),
    };
    log(`${label}: third-party me ${thirdPartyMe.rps} req/s (ratio ${oauth.thirdPartyMe.ratio}); ${oauth.tokenExchanges.perSecond} code exchanges/s`);

    const plan = withoutOverlaps(slotsPlan(Date.now()));
    const insertSql = insertBookingsSql(plan, hostId, eventTypeId);
    let restartMs: number | undefined;
    if (bookings.whileServerRuns) {
      await bookings.insert(insertSql);
    } else {
      const stopped = await server.stop();
      if (stopped.code !== 0) notes.push(`${label}: server exited with code ${stopped.code} signal ${stopped.signal} after SIGTERM (before inserting bookings)`);
      await bookings.insert(insertSql);
      server = await startServer(env, label);
      restartMs = Math.round(server.readyMs);
      memory.idleAfterRestart = await idleRss(server.child.pid);
      log(`${label}: idle after restart: ${JSON.stringify(memory.idleAfterRestart)}`);
    }
    log(`${label}: ${plan.bookings.length} bookings inserted (${plan.startDate} .. ${plan.endDate})${restartMs === undefined ? '' : `; server restarted in ${restartMs} ms`}`);

    const url = `${server.baseUrl}${slotsPath(plan, eventTypeId)}`;
    const slotsHeaders = { 'svc-api-version': SLOTS_API_VERSION };
    const first = await fetch(url, { headers: slotsHeaders });
    const checked = checkSlotsResponse(first.status, await first.text(), plan, Date.now());
    if (!checked.matchesEngine) notes.push(`${label}: GET /v2/slots did not list exactly the starts computeSlots gives in process for the same data`);
    log(`${label}: GET /v2/slots lists ${checked.slotsInResponse} slots (${checked.responseBytes} bytes); autocannon GET /v2/slots`);
    const measured = await load(url, slotsHeaders, server.child.pid);
    log(`${label}: slots ${measured.rps} req/s`);
    const slots = { ...measured, ...checked, bookingsInserted: plan.bookings.length, targetRps: 1000, metTarget: measured.rps >= 1000 };

    // POST /v2/bookings: 20 connections, each on its own host, every request on a slot of its own.
    log(`${label}: creating ${BOOKINGS_HOSTS} hosts with ${BOOKING_MINUTES}-minute event types`);
    const bookingHosts = await createBookingHosts(server.baseUrl, label);
    const bookingPlan = bookingsPlan(Date.now());
    log(`${label}: autocannon POST /v2/bookings (${WARMUP_S} s warm-up + about ${DURATION_S} s, ${bookingPlan.firstDate} .. ${bookingPlan.lastDate})`);
    const booked = await bookingsLoad(server.baseUrl, bookingHosts, bookingPlan, server.child.pid, label, bookings.backendPids);
    log(`${label}: bookings ${booked.result.rps} /s, ${booked.result.created} created, ${booked.result.non2xx} non-2xx, ${booked.result.errors} errors; checking the store`);
    memory.idleAfterLoad = await idleRss(server.child.pid);
    log(`${label}: idle after the loads: ${JSON.stringify(memory.idleAfterLoad)}`);
    const checkSql = checkBookingsSql(
      bookingHosts.map((host) => host.userId),
      bookingPlan,
    );
    if (!bookings.whileServerRuns) {
      // The PGlite data dir belongs to the server while it runs: stop it, then read the store.
      serverStopped = true;
      const stopped = await server.stop();
      if (stopped.code !== 0) notes.push(`${label}: server exited with code ${stopped.code} signal ${stopped.signal} after SIGTERM`);
    }
    const verification = verifyBookings(await bookings.queryRow<BookingsCheck>(checkSql), booked.expect);
    if (!verification.ok) notes.push(`${label}: the bookings check FAILED: ${JSON.stringify(verification)}`);
    log(`${label}: bookings check ${verification.ok ? 'ok' : 'FAILED'} (${verification.measuredBookings} measured + ${verification.warmupBookings} warm-up bookings, ${verification.overlappingPairs} overlapping pairs)`);
    return {
      startupMs,
      memory,
      ...(restartMs === undefined ? {} : { restartBeforeSlotsMs: restartMs }),
      health,
      me,
      orgTeamMemberships,
      managedUserMe,
      oauth,
      slots,
      bookings: { ...booked.result, verification },
      ratio: round(me.rps / health.rps, 3),
      slotsRatio: round(measured.rps / health.rps, 3),
    };
  } finally {
    if (!serverStopped) {
      const stopped = await server.stop();
      if (stopped.code !== 0) notes.push(`${label}: server exited with code ${stopped.code} signal ${stopped.signal} after SIGTERM`);
    }
  }
}

/** The webhook delivery benchmark (bench/webhooks-e2e.ts) on its own fresh store; a failure is reported, not fatal. */
async function webhooks(storeEnv: Record<string, string>, label: string, writer: BookingWriter, backend: 'pglite' | 'postgres') {
  const harness: WebhooksHarness = {
    startServer: (env, serverLabel, args) => startServer(env, serverLabel, args),
    createHosts: createBookingHosts,
    insertSql: (sqlText) => writer.insert(sqlText),
    whileServerRuns: writer.whileServerRuns,
    log,
    notes,
  };
  return reportFailure(label, 'webhooks', () => webhooksBench(harness, benchEnv(storeEnv), label, backend));
}

const benchEnv = (storeEnv: Record<string, string>) => ({ ...storeEnv, SVC_ADMIN_API_KEY: ADMIN_API_KEY, RATE_LIMIT_API_KEY: '100000000', RATE_LIMIT_ANONYMOUS: '100000000' });

/** A side benchmark's result, or its failure in the notes and the result (the rest of the run goes on). */
async function reportFailure<T>(label: string, what: string, work: () => Promise<T>): Promise<T | { failed: string }> {
  try {
    return await work();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    notes.push(`${label}: the ${what} benchmark FAILED: ${message}`);
    return { failed: message };
  }
}

/**
 * The bookings load alone on a server of `storeEnv`, with mail sent to `smtp` or (without one) written
 * to the log; with `smtp`, the server runs on until it has received every message of the load or
 * MAIL_DRAIN_MS passed.
 */
async function bookingsRun(storeEnv: Record<string, string>, label: string, smtp: BenchSmtp | null) {
  const env = { ...storeEnv, SVC_ADMIN_API_KEY: ADMIN_API_KEY, RATE_LIMIT_API_KEY: '100000000', RATE_LIMIT_ANONYMOUS: '100000000', ...(smtp ? { SMTP_URL: smtp.url } : {}) };
  const server = await startServer(env, label);
  try {
    const receivedBefore = smtp?.received() ?? 0;
    const hosts = await createBookingHosts(server.baseUrl, label);
    const booked = await bookingsLoad(server.baseUrl, hosts, bookingsPlan(Date.now()), server.child.pid, label);
    if (!smtp) return { booked, messages: null };
    // Every booking of the run (warm-up included) mails its host and its attendee.
    const expected = 2 * (await countBookings(storeEnv));
    const drainStart = performance.now();
    while (smtp.received() - receivedBefore < expected && performance.now() - drainStart < MAIL_DRAIN_MS) await sleep(100);
    const received = smtp.received() - receivedBefore;
    return { booked, messages: { expected, received, drainedMs: received >= expected ? Math.round(performance.now() - drainStart) : null } };
  } finally {
    await server.stop();
  }
}

const MAIL_DRAIN_MS = 10_000;

/** Bookings in the PostgreSQL database of `storeEnv`. */
async function countBookings(storeEnv: Record<string, string>): Promise<number> {
  return withPgClient(storeEnv.DATABASE_URL!, async (client) => Number((await client.query('select count(*)::int as n from bookings')).rows[0].n));
}

/**
 * The mail cost (also alone: `npm run bench -- --only=mail`), from bookings runs without and with SMTP
 * taking turns (three of each), each on a fresh server and PostgreSQL database: ratio = median mail rps
 * over median plain rps, so that neither side gets a warmer server or the quieter moments of the
 * machine; after each mail run, how long its server took to send every message of it.
 */
async function mailAlone() {
  const runs: { plain: number[]; mail: number[] } = { plain: [], mail: [] };
  type Cpu = { server: number; loadGenerator: number; postgres: number };
  const cpu: { plain: Cpu[]; mail: Cpu[] } = { plain: [], mail: [] };
  const messages: { expected: number; received: number; drainedMs: number | null }[] = [];
  const smtp = await startBenchSmtp();
  try {
    for (const [index, kind] of (['plain', 'mail', 'plain', 'mail', 'plain', 'mail'] as const).entries()) {
      const database = await createTestDatabase({ empty: true });
      cleanups.push(database.drop);
      try {
        const storeEnv = { DATABASE_URL: database.url, SVC_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY };
        const run = await bookingsRun(storeEnv, `postgres-${kind}-${index + 1}`, kind === 'mail' ? smtp : null);
        runs[kind].push(run.booked.result.rps as number);
        const split = run.booked.result.cpuMsPerRequest as Cpu | undefined;
        if (split) cpu[kind].push(split);
        if (run.messages) messages.push(run.messages);
      } finally {
        cleanups.splice(cleanups.indexOf(database.drop), 1);
        await database.drop();
      }
    }
  } finally {
    await smtp.close();
  }
  const ratio = round(median(runs.mail) / median(runs.plain), 3);
  // Where the cost lies: CPU per booking of the server, of this process (autocannon and, in mail runs,
  // the SMTP receiver) and of PostgreSQL, medians per kind.
  const cpuMedians = (list: Cpu[]) =>
    list.length === 0 ? null : { server: round(median(list.map((c) => c.server)), 3), loadGenerator: round(median(list.map((c) => c.loadGenerator)), 3), postgres: round(median(list.map((c) => c.postgres)), 3) };
  const cpuMsPerBooking = { plain: cpuMedians(cpu.plain), mail: cpuMedians(cpu.mail) };
  return { plainRps: runs.plain, mailRps: runs.mail, ratio, costPercent: round((1 - ratio) * 100, 1), cpuMsPerBooking, messages, metTarget: 1 - ratio < MAIL_MAX_COST };
}

/** The team scheduling benchmark (bench/team-e2e.ts) on a fresh embedded store and a fresh PostgreSQL database. */
async function teamOnBothStores() {
  const harness = (writer: BookingWriter): TeamHarness => ({
    startServer,
    load,
    queryRow: writer.whileServerRuns ? (sqlText) => writer.queryRow(sqlText) : null,
    cpuSnapshot,
    cpuSplit: (before, after, requests) => cpuSplit(before as CpuSnapshot | null, after as CpuSnapshot | null, requests),
    databaseCpuMs: writer.backendPids && (async () => [...processCpuMs(await writer.backendPids!()).values()].reduce((sum, ms) => sum + ms, 0)),
    log,
    notes,
  });
  const dir = tempDataDir();
  let embedded: unknown;
  try {
    const storeEnv = { SVC_DATA_DIR: dir };
    embedded = await reportFailure('embedded-team', 'team', () => teamBench(harness(pgliteWriter(dir)), benchEnv(storeEnv), ADMIN_API_KEY, 'embedded-team'));
  } finally {
    removeTempDir(dir);
  }
  if (!(await withTimeout(postgresAvailable(), 5000, 'PostgreSQL connect').catch(() => false))) return { embedded, postgres: { skipped: 'PostgreSQL did not answer' } };
  const database = await createTestDatabase({ empty: true });
  cleanups.push(database.drop);
  try {
    const storeEnv = { DATABASE_URL: database.url, SVC_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY };
    const postgres = await reportFailure('postgres-team', 'team', () => teamBench(harness(postgresWriter(database.url)), benchEnv(storeEnv), ADMIN_API_KEY, 'postgres-team'));
    return { embedded, postgres };
  } finally {
    cleanups.splice(cleanups.indexOf(database.drop), 1);
    await database.drop();
  }
}

/**
 * The calendars benchmark (bench/calendars-e2e.ts) on a fresh PostgreSQL database, then on a fresh
 * embedded store; the store is opened in this process only while no server runs.
 */
async function calendarsOnBothStores() {
  const harness = (withStore: CalendarsHarness['withStore'], analyze: string | null, notify: CalendarsHarness['notify'] = null): CalendarsHarness => ({ startServer, load, withStore, analyze, log, notes, notify });
  let postgres: unknown = { skipped: 'PostgreSQL did not answer' };
  if (await withTimeout(postgresAvailable(), 5000, 'PostgreSQL connect').catch(() => false)) {
    const database = await createTestDatabase({ empty: true });
    cleanups.push(database.drop);
    try {
      const url = database.url;
      const version = await withPgClient(url, async (client) => (await client.query<{ server_version: string }>('show server_version')).rows[0]!.server_version);
      const withStore: CalendarsHarness['withStore'] = async (work) => {
        const opened = await openDatabase({ databaseUrl: url, poolSize: 2 });
        try {
          return await work(opened);
        } finally {
          await opened.close();
        }
      };
      const env = benchEnv({ DATABASE_URL: url, SVC_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY });
      // One connection for the run's notifications, as another svc process's would be.
      const notifier = new pg.Client({ connectionString: url });
      await notifier.connect();
      try {
        const notify = async (payloads: string[]) => {
          await notifier.query('begin');
          for (const payload of payloads) await notifier.query('select pg_notify($1, $2)', [CHANGES_CHANNEL, payload]);
          await notifier.query('commit');
        };
        postgres = { version, ...(await reportFailure('postgres-calendars', 'calendars', () => calendarsBench(harness(withStore, 'vacuum analyze', notify), env, ADMIN_API_KEY, 'postgres-calendars'))) };
      } finally {
        await notifier.end();
      }
    } finally {
      cleanups.splice(cleanups.indexOf(database.drop), 1);
      await database.drop();
    }
  }
  const dir = tempDataDir();
  try {
    const withStore: CalendarsHarness['withStore'] = async (work) => {
      const opened = await openDatabase({ dataDir: dir });
      try {
        return await work(opened);
      } finally {
        await opened.close();
      }
    };
    const embedded = await reportFailure('embedded-calendars', 'calendars', () => calendarsBench(harness(withStore, 'analyze'), benchEnv({ SVC_DATA_DIR: dir }), ADMIN_API_KEY, 'embedded-calendars'));
    return { postgres, embedded };
  } finally {
    removeTempDir(dir);
  }
}

/** The data benchmark (bench/data-e2e.ts): every size on one PostgreSQL database, then the middle size on a fresh embedded store. */
async function dataOnBothStores() {
  const harness = (exec: (sqlText: string) => Promise<void>, rows: <T>(sqlText: string) => Promise<T[]>, analyze: string | null, beforeStart: () => Promise<void> = async () => {}): DataHarness => ({
    startServer: async (env, label, args) => {
      await beforeStart();
      return startServer(env, label, args);
    },
    exec,
    rows,
    analyze,
    log,
    notes,
  });
  let postgres: unknown = { skipped: 'PostgreSQL did not answer' };
  if (await withTimeout(postgresAvailable(), 5000, 'PostgreSQL connect').catch(() => false)) {
    const database = await createTestDatabase({ empty: true });
    cleanups.push(database.drop);
    try {
      const url = database.url;
      const version = await withPgClient(url, async (client) => (await client.query<{ server_version: string }>('show server_version')).rows[0]!.server_version);
      const postgresHarness = harness(
        (sqlText) => withPgClient(url, async (client) => void (await client.query(sqlText))),
        <T>(sqlText: string) => withPgClient(url, async (client) => (await client.query(sqlText)).rows as T[]),
        'vacuum analyze',
      );
      const env = benchEnv({ DATABASE_URL: url, SVC_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY });
      const result = await reportFailure('postgres-data', 'data', () => dataBench(postgresHarness, env, ADMIN_API_KEY, DATA_SIZES, 'postgres-data'));
      postgres = { version, ...result, goals: 'sizes' in result ? dataGoals(result.sizes) : null };
    } finally {
      cleanups.splice(cleanups.indexOf(database.drop), 1);
      await database.drop();
    }
  }
  const dir = tempDataDir();
  try {
    // One PGlite instance stays open across consecutive SQL steps, and is closed before a server takes the data dir.
    let open: Awaited<ReturnType<typeof openDatabase>> | null = null;
    const database = async () => (open ??= await openDatabase({ dataDir: dir }));
    const close = async () => {
      const current = open;
      open = null;
      await current?.close();
    };
    const embeddedHarness = harness(
      async (sqlText) => (await database()).exec(sqlText),
      async <T>(sqlText: string) => ((await (await database()).db.execute(sql.raw(sqlText))) as unknown as { rows: T[] }).rows,
      // What svc's hourly housekeeping runs on the embedded store (it has no autovacuum).
      'analyze',
      close,
    );
    try {
      const embedded = await reportFailure('embedded-data', 'data', () => dataBench(embeddedHarness, benchEnv({ SVC_DATA_DIR: dir }), ADMIN_API_KEY, [DATA_EMBEDDED_SIZE], 'embedded-data'));
      return { postgres, embedded };
    } finally {
      await close();
    }
  } finally {
    removeTempDir(dir);
  }
}

const MEMORY_RUNS = 3;

/**
 * `--only=memory`: MEMORY_RUNS times, a fresh start on an empty data dir and a restart on it, each
 * sampled after IDLE_SAMPLE_MS without requests (bench/memory.ts).
 */
async function memoryAlone() {
  const fresh: StartMemory[] = [];
  const restart: StartMemory[] = [];
  for (let i = 0; i < MEMORY_RUNS; i += 1) {
    const dir = tempDataDir();
    try {
      for (const [kind, list] of [['fresh', fresh], ['restart', restart]] as const) {
        const server = await startServer({ SVC_DATA_DIR: dir, SVC_ADMIN_API_KEY: ADMIN_API_KEY }, `memory-${kind}-${i + 1}`);
        const sample = startMemory(server.readyMs, await idleRss(server.child.pid));
        list.push(sample);
        const stopped = await server.stop();
        if (stopped.code !== 0) notes.push(`memory ${kind} ${i + 1}: server exited with code ${stopped.code} signal ${stopped.signal} after SIGTERM`);
        log(`memory ${kind} ${i + 1}: ${JSON.stringify(sample)}`);
      }
    } finally {
      removeTempDir(dir);
    }
  }
  const medianOf = (list: StartMemory[], key: 'idleMiB' | 'startupPeakMiB') => {
    const values = list.map((sample) => sample[key]).filter((value): value is number => value !== null);
    return values.length ? median(values) : null;
  };
  const summary = (list: StartMemory[]) => ({ idleMiB: medianOf(list, 'idleMiB'), startupPeakMiB: medianOf(list, 'startupPeakMiB'), samples: list });
  return { fresh: summary(fresh), restart: summary(restart) };
}

/** The latency benchmark (bench/latency.ts) on a fresh embedded store and a fresh PostgreSQL database. */
async function latencyOnBothStores() {
  const harness = (writer: BookingWriter): LatencyHarness => ({
    startServer,
    createBookingHosts,
    postJson,
    insertSql: (sqlText) => writer.insert(sqlText),
    whileServerRuns: writer.whileServerRuns,
    log,
    notes,
  });
  const dir = tempDataDir();
  let embedded: unknown;
  try {
    embedded = await reportFailure('embedded-latency', 'latency', () => latencyBench(harness(pgliteWriter(dir)), benchEnv({ SVC_DATA_DIR: dir }), ADMIN_API_KEY, 'embedded-latency'));
  } finally {
    removeTempDir(dir);
  }
  if (!(await withTimeout(postgresAvailable(), 5000, 'PostgreSQL connect').catch(() => false))) return { embedded, postgres: { skipped: 'PostgreSQL did not answer' } };
  const database = await createTestDatabase({ empty: true });
  cleanups.push(database.drop);
  try {
    const storeEnv = { DATABASE_URL: database.url, SVC_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY };
    const postgres = await reportFailure('postgres-latency', 'latency', () => latencyBench(harness(postgresWriter(database.url)), benchEnv(storeEnv), ADMIN_API_KEY, 'postgres-latency'));
    return { embedded, postgres };
  } finally {
    cleanups.splice(cleanups.indexOf(database.drop), 1);
    await database.drop();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`${what} timed out after ${ms} ms`)))]);
}

// ---- the run ----

function machineOf(loadAtStart: number[]) {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    memoryGiB: round(os.totalmem() / 2 ** 30),
    // 1/5/15-minute load averages: anything well above 0 at start means other work shared the cores.
    loadAvgAtStart: loadAtStart,
    loadAvgAtEnd: os.loadavg().map((value) => round(value, 2)),
  };
}

const MEETINGS_NOTE =
  'meetings: POST /v2/bookings one at a time over loopback to an in-process svc (its job runner included), an event type on Zoom (a local ' +
  'server implementing its meetings API) and one on the built-in video taking turns, 150 measured each after 20 warm-up, on PostgreSQL and ' +
  'the embedded store. ratioOfMedians = Zoom p50 / built-in p50 (goal <= 1.05: the meeting is made by a job after commit); ' +
  'linksDoneMsAfterLastRequest: until every Zoom booking carried its link.';

const CALDAV_NOTE =
  'caldav: a 2,000-event calendar on Radicale (127.0.0.1). firstSyncMs / incrementalSyncMs are the CalDAV adapter alone (sync-collection, ' +
  'then after 3 edits, 1 addition, 1 deletion); stores.* time the whole sync job (read, expand, store in one transaction, tell the caches): ' +
  'connectMs the connect request (discovery and the first read stored), fullSyncMs a full read again, incrementalSyncMs after 5 more changes, ' +
  'checked through GET /v2/calendars/busy-times.';

const PAGES_NOTE =
  'pages: the booking page of the round-robin team of ../shared/bench/roundrobin-50-hosts.json (built as for team, on a server with SVC_NOW at the ' +
  "file's now), GET /team/{team}/{type}?tz=Asia/Kolkata&month&date (the whole page) and the same with &partial=day (the day's times, what the " +
  "page's script fetches) one at a time over loopback with fetch, taking turns, 100 measured each after 10 warm-up, timed to the whole body; " +
  'the day is the one of the window with the most times. bytes: the bodies as sent (no compression); times: time links (ok needs them, as many ' +
  'as GET /v2/slots lists). browser: chromium (playwright-core), 20 navigations each in a fresh context, first-contentful-paint and responseEnd. ' +
  'metTarget: page, day and first paint p90 <= goalMs (300), on the embedded store and PostgreSQL.';

const ROUTING_NOTE =
  'routing: the 50 hosts of ../shared/bench/roundrobin-50-hosts.json (built as for team, on a server with SVC_NOW at the file\'s now), made accepted members ' +
  'of an organization and of one of its teams, with a round-robin event type of that team hosted by all 50 (the team\'s settings: 30 min, slotInterval 15, ' +
  '30 min notice), a Region attribute (Europe for every host) and a team routing form routing region=Europe to that type, keeping the hosts whose ' +
  'attributes.region equals the answer (all 50). A = POST /v2/routing-forms/{id}/calculate-slots {region: Europe}, B = GET /v2/slots of that event type, ' +
  "both over the file's window in UTC. check: 50 routed members and the same starts as B (and B's as the plain team's and computeSlots'). autocannon from " +
  'the bench process (sharing the cores with the server), 10 connections: 2 s warm-up of each, then 8 s runs A B B A; rps the mean of an endpoint\'s two runs, ' +
  'p50/p99 the worse of its runs (1 ms resolution). ratio = rps(A) / rps(B); metTarget: ok (check, every answer 2xx) and ratio >= goalRatio (0.8). ' +
  'svc keeps computed slot listings, so the repeated identical requests of both are answered from that cache; uncached: once more each (1 s warm-up, ' +
  '8 s), every request with a window end of its own (the end minus 1, 2, 3... ms: the same slots, a new listing key), the hosts\' busy time still read ' +
  'from the availability cache.';

async function main() {
  const began = performance.now();
  const loadAtStart = os.loadavg().map((value) => round(value, 2));
  log('building: tsc -p tsconfig.build.json');
  const buildStart = performance.now();
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  log(`built in ${Math.round(performance.now() - buildStart)} ms`);
  if (process.argv.includes('--only=mail')) {
    const mailCost = await mailAlone();
    notes.push(MAIL_NOTE);
    return { machine: machineOf(loadAtStart), mail: mailCost, totalSeconds: round((performance.now() - began) / 1000), notes };
  }
  // `npm run bench -- --only=engine`: the slot engine alone, in this process and in fresh ones.
  if (process.argv.includes('--only=engine')) {
    const engine = runEngineBench(log);
    notes.push(SHARED_ROUND_ROBIN_NOTE);
    return { machine: machineOf(loadAtStart), engine, totalSeconds: round((performance.now() - began) / 1000), notes };
  }
  // `npm run bench -- --only=data`: the cost that follows the data, alone (never part of a full run; see WATCHDOG_MS).
  if (process.argv.includes('--only=data')) {
    const data = await dataOnBothStores();
    notes.push(DATA_NOTE);
    return { machine: machineOf(loadAtStart), data, totalSeconds: round((performance.now() - began) / 1000), notes };
  }
  // `npm run bench -- --only=calendars`: what connected calendars cost the team's GET /v2/slots (never part of a full run; see WATCHDOG_MS).
  if (process.argv.includes('--only=calendars')) {
    const calendars = await calendarsOnBothStores();
    notes.push(CALENDARS_NOTE);
    return { machine: machineOf(loadAtStart), calendars, totalSeconds: round((performance.now() - began) / 1000), notes };
  }
  // `npm run bench -- --only=caldav`: a 2,000-event CalDAV calendar's sync on Debian's Radicale (bench/caldav-sync.ts), alone.
  if (process.argv.includes('--only=caldav')) {
    const output = execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench/caldav-sync.ts')], { cwd: root, stdio: ['ignore', 'pipe', 2], encoding: 'utf8' });
    const caldav = JSON.parse(output.trim().split('\n').at(-1)!) as unknown;
    notes.push(CALDAV_NOTE);
    return { machine: machineOf(loadAtStart), caldav, totalSeconds: round((performance.now() - began) / 1000), notes };
  }
  // `npm run bench -- --only=meetings`: POST /v2/bookings with a Zoom meeting against the built-in video (bench/meetings.ts), alone.
  if (process.argv.includes('--only=meetings')) {
    const output = execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench/meetings.ts')], { cwd: root, stdio: ['ignore', 'pipe', 2], encoding: 'utf8' });
    const meetings = (JSON.parse(output.trim().split('\n').at(-1)!) as { meetings: unknown }).meetings;
    notes.push(MEETINGS_NOTE);
    return { machine: machineOf(loadAtStart), meetings, totalSeconds: round((performance.now() - began) / 1000), notes };
  }
  // `npm run bench -- --only=pages`: the 50-host team's booking page and day's times (bench/booking-pages.ts), alone.
  if (process.argv.includes('--only=pages')) {
    const output = execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench/booking-pages.ts')], { cwd: root, stdio: ['ignore', 'pipe', 2], encoding: 'utf8' });
    const pages = (JSON.parse(output.trim().split('\n').at(-1)!) as { pages: unknown }).pages;
    notes.push(PAGES_NOTE);
    return { machine: machineOf(loadAtStart), pages, totalSeconds: round((performance.now() - began) / 1000), notes };
  }
  // `npm run bench -- --only=routing`: a routing form's calculate-slots against GET /v2/slots for the same 50 hosts (bench/routing-forms.ts), alone.
  if (process.argv.includes('--only=routing')) {
    const output = execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench/routing-forms.ts')], { cwd: root, stdio: ['ignore', 'pipe', 2], encoding: 'utf8' });
    const routing = (JSON.parse(output.trim().split('\n').at(-1)!) as { routing: unknown }).routing;
    notes.push(ROUTING_NOTE);
    return { machine: machineOf(loadAtStart), routing, totalSeconds: round((performance.now() - began) / 1000), notes };
  }
  // `npm run bench -- --only=workflows`: 10,000 due reminders sent by one worker, and what 3 workflows cost POST /v2/bookings (bench/workflows.ts), alone.
  if (process.argv.includes('--only=workflows')) {
    const output = execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench/workflows.ts')], { cwd: root, stdio: ['ignore', 'pipe', 2], encoding: 'utf8' });
    const { note, ...workflows } = (JSON.parse(output.trim().split('\n').at(-1)!) as { workflows: { note: string } }).workflows;
    notes.push(note);
    return { machine: machineOf(loadAtStart), workflows, totalSeconds: round((performance.now() - began) / 1000), notes };
  }
  // `npm run bench -- --only=payments`: 500 payments confirmed by Stripe's webhook on one process (bench/payments.ts), alone.
  if (process.argv.includes('--only=payments')) {
    const output = execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench/payments.ts')], { cwd: root, stdio: ['ignore', 'pipe', 2], encoding: 'utf8' });
    const { note, ...payments } = (JSON.parse(output.trim().split('\n').at(-1)!) as { payments: { note: string } }).payments;
    notes.push(note);
    return { machine: machineOf(loadAtStart), payments, totalSeconds: round((performance.now() - began) / 1000), notes };
  }
  // `npm run bench -- --only=team`: the team scheduling benchmark alone.
  if (process.argv.includes('--only=team')) {
    const team = await teamOnBothStores();
    notes.push(TEAM_NOTE);
    return { machine: machineOf(loadAtStart), team, totalSeconds: round((performance.now() - began) / 1000), notes };
  }

  // `npm run bench -- --only=memory`: start-up peak and idle memory of fresh starts and restarts.
  if (process.argv.includes('--only=memory')) {
    const memory = await memoryAlone();
    notes.push(MEMORY_ONLY_NOTE);
    return { machine: machineOf(loadAtStart), embedded: { memory }, totalSeconds: round((performance.now() - began) / 1000), notes };
  }
  // `npm run bench -- --only=latency`: p50/p95/p99 at a fixed rate on both stores (bench/latency.ts).
  if (process.argv.includes('--only=latency')) {
    const latency = await latencyOnBothStores();
    notes.push(LATENCY_NOTE);
    return { machine: machineOf(loadAtStart), latency, totalSeconds: round((performance.now() - began) / 1000), notes };
  }

  // 0. slot engine, in process (before any server runs, so it has the cores to itself)
  const engine = runEngineBench(log);

  // 1. cold start
  const samples: number[] = [];
  const stopSamples: number[] = [];
  for (let i = 0; i < COLD_START_RUNS; i += 1) {
    const dir = tempDataDir();
    try {
      const server = await startServer({ SVC_DATA_DIR: dir }, `cold-${i + 1}`);
      samples.push(round(server.readyMs));
      const stopped = await server.stop();
      stopSamples.push(stopped.ms);
      if (stopped.code !== 0) notes.push(`cold start ${i + 1}: server exited with code ${stopped.code} signal ${stopped.signal} after SIGTERM`);
      log(`cold start ${i + 1}: ${Math.round(server.readyMs)} ms (stop ${Math.round(stopped.ms)} ms)`);
    } finally {
      removeTempDir(dir);
    }
  }
  const coldStart = { medianMs: round(median(samples)), samplesMs: samples, stopAfterSigtermMs: stopSamples };

  // 2. embedded store
  const dir = tempDataDir();
  let embedded: Record<string, unknown>;
  try {
    embedded = await throughput({ SVC_DATA_DIR: dir }, 'embedded', pgliteWriter(dir));
  } finally {
    removeTempDir(dir);
  }
  const webhooksDir = tempDataDir();
  try {
    embedded = { ...embedded, webhooks: await webhooks({ SVC_DATA_DIR: webhooksDir }, 'embedded-webhooks', pgliteWriter(webhooksDir), 'pglite') };
  } finally {
    removeTempDir(webhooksDir);
  }

  // 3. PostgreSQL
  let postgres: unknown;
  const serverUrl = postgresServerUrl().replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
  const available = await withTimeout(postgresAvailable(), 5000, 'PostgreSQL connect').catch(() => false);
  if (!available) {
    postgres = { skipped: `PostgreSQL at ${serverUrl} did not answer` };
  } else {
    const database = await createTestDatabase({ empty: true });
    cleanups.push(database.drop);
    try {
      postgres = { server: serverUrl, ...(await throughput({ DATABASE_URL: database.url, SVC_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY }, 'postgres', postgresWriter(database.url))) };
    } finally {
      cleanups.splice(cleanups.indexOf(database.drop), 1);
      await database.drop();
    }
    const webhooksDatabase = await createTestDatabase({ empty: true });
    cleanups.push(webhooksDatabase.drop);
    try {
      postgres = { ...(postgres as Record<string, unknown>), webhooks: await webhooks({ DATABASE_URL: webhooksDatabase.url, SVC_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY }, 'postgres-webhooks', postgresWriter(webhooksDatabase.url), 'postgres') };
    } finally {
      cleanups.splice(cleanups.indexOf(webhooksDatabase.drop), 1);
      await webhooksDatabase.drop();
    }
    postgres = { ...(postgres as Record<string, unknown>), mail: await reportFailure('postgres-mail', 'mail', mailAlone) };
  }

  // 4. the round-robin team of bench/data (bench/team-e2e.ts), on fresh stores of its own
  const team = await teamOnBothStores();

  const cpus = os.cpus();
  notes.push(
    `The server runs in a separate child process, but autocannon runs in this bench process on the same ${cpus.length} CPU core(s): client and server compete for CPU, so absolute req/s are lower than a dedicated load generator would show.`,
    `autocannon: ${CONNECTIONS} connections, no pipelining, ${WARMUP_S} s warm-up run (discarded) then ${DURATION_S} s measured, against 127.0.0.1; rps is the mean of per-second samples.`,
    "autocannon's latency histogram has 1 ms resolution (sub-millisecond responses are recorded as 0), so p50Ms/p99Ms/meanMs are coarse; impliedMeanMs = connections / rps (Little's law) gives the mean at finer resolution.",
    'cpuMsPerRequest: CPU time per request during each measured run, from /proc: the server process (all threads), this process (autocannon), every process named postgres (the local PostgreSQL server: its backends for this run, but also for any other database on it), and other = everything else busy on the machine (anyone else sharing the cores); machineBusyPercent is the share of all cores busy. A high other means someone else was using the CPUs and the req/s are understated. CPU time is counted at 10 ms ticks over the 5 s run.',
    'GET /v2/me authenticates an API key through the in-process credential cache (SVC_AUTH_CACHE_TTL_MS, default 30 s), so under load it hits the database about once per TTL, not once per request.',
    '`svc serve` also runs the background job worker in the same process (no --no-worker flag was passed).',
    'engine: computeSlots in this process (src/scheduling/slots.ts via tsx), seeded data (bench/engine.ts), window 2026-06-01 + 30 days in America/New_York, `now` one day before; process.hrtime.bigint per call after warm-up; firstCallUs includes filling the zone-offset cache and Intl formatters. oneHost: 200 bookings 30-60 min with own buffers 0-15 min at 07:00-18:45 on any date (some outside working hours). roundRobin50: 50 non-fixed hosts cycling New York / Chicago / London, 20 such bookings each; slots are the union over hosts.',
    SHARED_ROUND_ROBIN_NOTE,
    `slots: GET /v2/slots (svc-api-version ${SLOTS_API_VERSION}, public, no auth) for a 30-minute event type with 120 min notice of a user with the default Mon-Fri 09:00-17:00 ${SLOTS_ZONE} schedule and ${SLOTS_BOOKINGS} accepted bookings (30-60 min, inside working hours, seeded; bench/slots-e2e.ts) over the 30 local dates from next Monday, inserted with SQL (PGlite: with the server stopped, then restarted on the same data dir). Each request reads the event type + schedule and the busy blocks (two queries) and runs computeSlots; matchesEngine compares the listed starts with computeSlots run in this process on the same data.`,
    `bookings: POST /v2/bookings (svc-api-version ${BOOKINGS_API_VERSION}, public, no auth, no Idempotency-Key) on ${BOOKINGS_HOSTS} hosts, each with the default Mon-Fri 09:00-17:00 ${BOOKINGS_ZONE} schedule and one ${BOOKING_MINUTES}-minute event type (notice 0), created through the API. ${BOOKINGS_CONNECTIONS} connections; connection c books only host c, each request the host's next free ${BOOKING_MINUTES}-minute slot in weekdays from the first Monday of next year, so no request waits on another's host lock or finds its slot taken. A ${WARMUP_S} s warm-up (duration run) books a first range of dates; the measured run books a later range, with an amount sized from the warm-up's rate to last about ${DURATION_S} s, so every one of its requests is answered: rps = answered / (first request to last answer), cpuMsPerRequest over the same span (PostgreSQL: postgresThisDatabase counts only the backends connected to this run's database, without the WAL writer and other shared processes, while postgres counts every postgres process, other databases' included); longestGapMs is the longest time without any answer; firstRequestsMaxMs is the slowest first request of a connection (autocannon opens 20 new connections for the run, and their first requests wait longest, up to seconds on the embedded store, whose synchronous WASM queries hold the event loop: on that store these 20 requests make p99). metTarget also requires no non-2xx and no errors. Each request is one transaction: the event type, the host's advisory lock, the slot engine on the host's busy time, the booking, its attendee and its booking_events row. verification: SQL on the store after the runs (PGlite: the server stopped first): bookings in the measured range must equal its 201s; the warm-up range must hold between its 201s and those plus the requests it abandoned at its end; no two live bookings of a host overlap; every booking is accepted, 15 minutes, on a plan slot, with one attendee.`,
    'slots: the slots fixture now inserts the 200 seeded bookings with overlaps trimmed away (bookingsInserted rows, the same busy time): the exclusion constraint bookings_host_time_no_overlap refuses overlapping accepted bookings of one host.',
    WEBHOOKS_NOTE,
    MAIL_NOTE,
    MEMORY_NOTE,
    TENANCY_NOTE,
    PLATFORM_NOTE,
    OAUTH_NOTE,
    TEAM_NOTE,
    'coldStart: spawn of `node bin/svc.js serve` on a fresh empty SVC_DATA_DIR (PGlite initdb + migrations + admin bootstrap) until GET /health first answers 200, polled every 10 ms.',
  );

  return {
    machine: machineOf(loadAtStart),
    engine,
    coldStart,
    embedded,
    postgres,
    team,
    totalSeconds: round((performance.now() - began) / 1000),
    notes,
  };
}

main().then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  async (error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    killAllSync();
    for (const cleanup of cleanups) await cleanup().catch(() => {});
    process.exit(1);
  },
);
