// `npm run bench`: cold start of the built CLI and HTTP throughput on both stores, printed as ONE
// JSON object on stdout. Progress and the servers' own output go to stderr.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '../src/db/client.js';
import { createTestDatabase, postgresAvailable, postgresServerUrl } from '../test/support/postgres.js';
import { freePort } from '../test/support/child-server.js';
import { runEngineBench } from './engine.js';
import {
  checkSlotsResponse,
  EVENT_TYPES_API_VERSION,
  insertBookingsSql,
  SLOTS_API_VERSION,
  SLOTS_BOOKINGS,
  SLOTS_ZONE,
  slotsPath,
  slotsPlan,
} from './slots-e2e.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_API_KEY = 'svc_0123456789abcdef0123456789abcdef';
const COLD_START_RUNS = 3;
const WARMUP_S = 1;
const DURATION_S = 5;
const CONNECTIONS = 10;
const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;
const WATCHDOG_MS = 175_000;

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
  process.exit(1);
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

/** Spawns `node bin/svc.js serve` and resolves once GET /health answers 200 (polled every 10 ms). */
async function startServer(env: Record<string, string>, label: string): Promise<Server> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = '';
  const startedAt = performance.now();
  const child = spawn(process.execPath, ['bin/svc.js', 'serve'], {
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

const TICK_MS = 10; // Linux USER_HZ is 100

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

/** utime + stime of a /proc/<pid>/stat line, ms. */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function postgresCpuMs(): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === 'postgres') total += statCpuMs(stat);
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

/** CPU time so far, from /proc (null where it is not available). */
function cpuSnapshot(serverPid: number | undefined): CpuSnapshot | null {
  try {
    const ticks = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const totalMs = ticks.reduce((sum, value) => sum + value, 0) * TICK_MS;
    const idleMs = (ticks[3]! + ticks[4]!) * TICK_MS;
    const serverMs = serverPid === undefined ? Number.NaN : statCpuMs(fs.readFileSync(`/proc/${serverPid}/stat`, 'utf8'));
    const usage = process.cpuUsage();
    return { busyMs: totalMs - idleMs, totalMs, serverMs, benchMs: (usage.user + usage.system) / 1000, postgresMs: postgresCpuMs() };
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

async function load(url: string, headers: Record<string, string> = {}, serverPid?: number): Promise<Measurement> {
  const options = { url, connections: CONNECTIONS, headers };
  await autocannon({ ...options, duration: WARMUP_S });
  const before = cpuSnapshot(serverPid);
  const result = await autocannon({ ...options, duration: DURATION_S });
  const after = cpuSnapshot(serverPid);
  const requests = result['2xx'] + result.non2xx;
  let cpuMsPerRequest: Measurement['cpuMsPerRequest'];
  if (before && after && requests > 0) {
    const server = after.serverMs - before.serverMs;
    const bench = after.benchMs - before.benchMs;
    const busy = after.busyMs - before.busyMs;
    const postgres = after.postgresMs - before.postgresMs;
    cpuMsPerRequest = {
      server: round(server / requests, 3),
      loadGenerator: round(bench / requests, 3),
      postgres: round(postgres / requests, 3),
      other: round(Math.max(0, busy - server - bench - postgres) / requests, 3),
      machineBusyPercent: round((100 * busy) / (after.totalMs - before.totalMs)),
    };
  }
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
});

const postgresWriter = (url: string): BookingWriter => ({
  whileServerRuns: true,
  async insert(sqlText) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sqlText);
    } finally {
      await client.end();
    }
  },
});

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
  };
  let server = await startServer(env, label);
  const startupMs = Math.round(server.readyMs);
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

    const plan = slotsPlan(Date.now());
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
    }
    log(`${label}: ${SLOTS_BOOKINGS} bookings inserted (${plan.startDate} .. ${plan.endDate})${restartMs === undefined ? '' : `; server restarted in ${restartMs} ms`}`);

    const url = `${server.baseUrl}${slotsPath(plan, eventTypeId)}`;
    const slotsHeaders = { 'svc-api-version': SLOTS_API_VERSION };
    const first = await fetch(url, { headers: slotsHeaders });
    const checked = checkSlotsResponse(first.status, await first.text(), plan, Date.now());
    if (!checked.matchesEngine) notes.push(`${label}: GET /v2/slots did not list exactly the starts computeSlots gives in process for the same data`);
    log(`${label}: GET /v2/slots lists ${checked.slotsInResponse} slots (${checked.responseBytes} bytes); autocannon GET /v2/slots`);
    const measured = await load(url, slotsHeaders, server.child.pid);
    log(`${label}: slots ${measured.rps} req/s`);
    const slots = { ...measured, ...checked, targetRps: 1000, metTarget: measured.rps >= 1000 };
    return {
      startupMs,
      ...(restartMs === undefined ? {} : { restartBeforeSlotsMs: restartMs }),
      health,
      me,
      slots,
      ratio: round(me.rps / health.rps, 3),
      slotsRatio: round(measured.rps / health.rps, 3),
    };
  } finally {
    const stopped = await server.stop();
    if (stopped.code !== 0) notes.push(`${label}: server exited with code ${stopped.code} signal ${stopped.signal} after SIGTERM`);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`${what} timed out after ${ms} ms`)))]);
}

// ---- the run ----

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
  let embedded: unknown;
  try {
    embedded = await throughput({ SVC_DATA_DIR: dir }, 'embedded', pgliteWriter(dir));
  } finally {
    removeTempDir(dir);
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
      postgres = { server: serverUrl, ...(await throughput({ DATABASE_URL: database.url }, 'postgres', postgresWriter(database.url))) };
    } finally {
      cleanups.splice(cleanups.indexOf(database.drop), 1);
      await database.drop();
    }
  }

  const cpus = os.cpus();
  notes.push(
    `The server runs in a separate child process, but autocannon runs in this bench process on the same ${cpus.length} CPU core(s): client and server compete for CPU, so absolute req/s are lower than a dedicated load generator would show.`,
    `autocannon: ${CONNECTIONS} connections, no pipelining, ${WARMUP_S} s warm-up run (discarded) then ${DURATION_S} s measured, against 127.0.0.1; rps is the mean of per-second samples.`,
    "autocannon's latency histogram has 1 ms resolution (sub-millisecond responses are recorded as 0), so p50Ms/p99Ms/meanMs are coarse; impliedMeanMs = connections / rps (Little's law) gives the mean at finer resolution.",
    'cpuMsPerRequest: CPU time per request during each measured run, from /proc: the server process (all threads), this process (autocannon), every process named postgres (the local PostgreSQL server: its backends for this run, but also for any other database on it), and other = everything else busy on the machine (anyone else sharing the cores); machineBusyPercent is the share of all cores busy. A high other means someone else was using the CPUs and the req/s are understated. CPU time is counted at 10 ms ticks over the 5 s run.',
    'GET /v2/me authenticates an API key through the in-process credential cache (SVC_AUTH_CACHE_TTL_MS, default 30 s), so under load it hits the database about once per TTL, not once per request.',
    '`svc serve` also runs the background job worker in the same process (no --no-worker flag was passed).',
    'engine: computeSlots in this process (src/scheduling/slots.ts via tsx), seeded data (bench/engine.ts), window 2026-06-01 + 30 days in America/New_York, `now` one day before; process.hrtime.bigint per call after warm-up; firstCallUs includes filling the zone-offset cache and Intl formatters. oneHost: 200 bookings 30-60 min with own buffers 0-15 min at 07:00-18:45 on any date (some outside working hours). roundRobin50: 50 non-fixed hosts cycling New York / Chicago / London, 20 such bookings each; slots are the union over hosts.',
    `slots: GET /v2/slots (svc-api-version ${SLOTS_API_VERSION}, public, no auth) for a 30-minute event type with 120 min notice of a user with the default Mon-Fri 09:00-17:00 ${SLOTS_ZONE} schedule and ${SLOTS_BOOKINGS} accepted bookings (30-60 min, inside working hours, seeded; bench/slots-e2e.ts) over the 30 local dates from next Monday, inserted with SQL (PGlite: with the server stopped, then restarted on the same data dir). Each request reads the event type + schedule and the busy blocks (two queries) and runs computeSlots; matchesEngine compares the listed starts with computeSlots run in this process on the same data.`,
    'coldStart: spawn of `node bin/svc.js serve` on a fresh empty SVC_DATA_DIR (PGlite initdb + migrations + admin bootstrap) until GET /health first answers 200, polled every 10 ms.',
  );

  return {
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model,
      node: process.version,
      platform: `${os.platform()} ${os.release()} ${os.arch()}`,
      memoryGiB: round(os.totalmem() / 2 ** 30),
      // 1/5/15-minute load averages: anything well above 0 at start means other work shared the cores.
      loadAvgAtStart: loadAtStart,
      loadAvgAtEnd: os.loadavg().map((value) => round(value, 2)),
    },
    engine,
    coldStart,
    embedded,
    postgres,
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
