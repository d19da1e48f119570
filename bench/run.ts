// `npm run bench`: cold start of the built CLI and HTTP throughput on both stores, printed as ONE
// JSON object on stdout. Progress and the servers' own output go to stderr.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createTestDatabase, postgresAvailable, postgresServerUrl } from '../test/support/postgres.js';
import { freePort } from '../test/support/child-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_API_KEY = 'svc_0123456789abcdef0123456789abcdef';
const COLD_START_RUNS = 3;
const WARMUP_S = 1;
const DURATION_S = 5;
const CONNECTIONS = 10;
const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;
const WATCHDOG_MS = 170_000;

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
}

async function load(url: string, headers: Record<string, string> = {}): Promise<Measurement> {
  const options = { url, connections: CONNECTIONS, headers };
  await autocannon({ ...options, duration: WARMUP_S });
  const result = await autocannon({ ...options, duration: DURATION_S });
  return {
    rps: round(result.requests.mean),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.mean,
    impliedMeanMs: round((CONNECTIONS * 1000) / result.requests.mean, 3),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    requests: result['2xx'] + result.non2xx,
  };
}

const notes: string[] = [];

/** One server on the given store: create a user, then load /health and /v2/me. */
async function throughput(storeEnv: Record<string, string>, label: string) {
  const server = await startServer(
    {
      ...storeEnv,
      SVC_ADMIN_API_KEY: ADMIN_API_KEY,
      RATE_LIMIT_API_KEY: '100000000',
      RATE_LIMIT_ANONYMOUS: '100000000',
    },
    label,
  );
  try {
    log(`${label}: up in ${Math.round(server.readyMs)} ms; creating a user`);
    const created = await fetch(`${server.baseUrl}/v2/admin/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', name: 'Bench' }),
    });
    const createdText = await created.text();
    if (created.status !== 201) throw new Error(`${label}: POST /v2/admin/users answered ${created.status}: ${createdText}`);
    const apiKey: string = JSON.parse(createdText).data.apiKey;
    const auth = { authorization: `Bearer ${apiKey}` };
    const check = await fetch(`${server.baseUrl}/v2/me`, { headers: auth });
    const checkText = await check.text();
    if (check.status !== 200) throw new Error(`${label}: GET /v2/me answered ${check.status}: ${checkText}`);

    log(`${label}: autocannon GET /health (${WARMUP_S} s warm-up + ${DURATION_S} s)`);
    const health = await load(`${server.baseUrl}/health`);
    log(`${label}: health ${health.rps} req/s; autocannon GET /v2/me`);
    const me = await load(`${server.baseUrl}/v2/me`, auth);
    log(`${label}: me ${me.rps} req/s`);
    return { startupMs: Math.round(server.readyMs), health, me, ratio: round(me.rps / health.rps, 3) };
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
    embedded = await throughput({ SVC_DATA_DIR: dir }, 'embedded');
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
      postgres = { server: serverUrl, ...(await throughput({ DATABASE_URL: database.url }, 'postgres')) };
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
    'GET /v2/me authenticates an API key through the in-process credential cache (SVC_AUTH_CACHE_TTL_MS, default 30 s), so under load it hits the database about once per TTL, not once per request.',
    '`svc serve` also runs the background job worker in the same process (no --no-worker flag was passed).',
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
