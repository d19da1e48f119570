// What the benches that run once per store (bench/booking-pages.ts, bench/routing-forms.ts) share.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Db, openDatabase } from '../src/db/client.js';
import { killAllChildren, type startServer } from '../test/support/child-server.js';
import type { BenchSmtp } from './mail-e2e.js';
import { SLOTS_API_VERSION } from './slots-e2e.js';
import { createTestDatabase, postgresAvailable } from '../test/support/postgres.js';

type Server = Awaited<ReturnType<typeof startServer>>;

/** A store's result, or why it failed (the other store still runs). */
async function orFailure<T>(log: (message: string) => void, store: string, work: () => Promise<T>): Promise<T | { store: string; failed: string; ok: false }> {
  try {
    return await work();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`${store}: FAILED: ${message}`);
    return { store, failed: message.slice(0, 2000), ok: false };
  }
}

/** Stops the store's server, saying so when it did not exit cleanly. */
export async function stopServer(log: (message: string) => void, store: string, server: Server): Promise<void> {
  const stopped = await server.stop();
  if (stopped.code !== 0) log(`${store}: server exited with code ${stopped.code} signal ${stopped.signal} after SIGTERM`);
}

/** As bench/run.ts: a fixed sealing key for servers on PostgreSQL. */
export const BENCH_ENCRYPTION_KEY = 'be'.repeat(32);

/**
 * `run` on the embedded store (a fresh data dir) and then, if it answers, on an empty PostgreSQL database,
 * each given the environment of its store; both dropped afterwards. A store that fails does not stop the other.
 */
export async function onBothStores(log: (message: string) => void, name: string, run: (store: 'embedded' | 'postgres', env: Record<string, string>) => Promise<unknown>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-bench-${name}-`));
  let embedded: unknown;
  try {
    embedded = await orFailure(log, 'embedded', () => run('embedded', { SVC_DATA_DIR: dir }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  let postgres: unknown = { store: 'postgres', skipped: 'PostgreSQL did not answer' };
  if (await postgresAvailable()) {
    const database = await createTestDatabase({ empty: true });
    try {
      postgres = await orFailure(log, 'postgres', () => run('postgres', { DATABASE_URL: database.url, SVC_ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY }));
    } finally {
      await database.drop();
    }
  }
  return { embedded, postgres };
}

/**
 * A bench of one feature: `run` on both stores, then ONE JSON object `{[key]: {embedded, postgres, ...extra}}`
 * on stdout, and no child server left behind whatever happened.
 */
export async function benchOnBothStores(log: (message: string) => void, key: string, run: (store: 'embedded' | 'postgres', env: Record<string, string>) => Promise<unknown>, extra: Record<string, unknown> = {}): Promise<void> {
  try {
    const { embedded, postgres } = await onBothStores(log, key, run);
    process.stdout.write(`${JSON.stringify({ [key]: { embedded, postgres, ...extra } })}\n`);
  } finally {
    await killAllChildren();
  }
}

/** One call to the API of a bench's server: its `data`, or an error naming the call when the status is not `expected`. */
export async function benchCall<T>(baseUrl: string, method: string, route: string, key: string | null, body: unknown, expected: number, what: string, headers: Record<string, string> = {}): Promise<T> {
  const all: Record<string, string> = { ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}) };
  if (body !== undefined) all['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${route}`, { method, headers: all, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${what}: ${method} ${route} answered ${response.status}: ${text.slice(0, 500)}`);
  return (JSON.parse(text) as { data: T }).data;
}

/** The store's database, opened from this process (the embedded store only while no server runs). */
export async function withStoreDb<T>(env: Record<string, string>, work: (db: Db) => Promise<T>): Promise<T> {
  const database = await openDatabase(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL, poolSize: 2 } : { dataDir: env.SVC_DATA_DIR, command: 'bench' });
  try {
    return await work(database.db);
  } finally {
    await database.close();
  }
}

/** Free starts of an event type from `from` over 40 days (GET /v2/slots, UTC), in order. */
export async function freeStarts(baseUrl: string, eventTypeId: number, from: number): Promise<string[]> {
  const query = new URLSearchParams({ eventTypeId: String(eventTypeId), start: new Date(from).toISOString(), end: new Date(from + 40 * 86_400_000).toISOString(), timeZone: 'UTC' });
  const response = await fetch(`${baseUrl}/v2/slots?${query}`, { headers: { 'svc-api-version': SLOTS_API_VERSION } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /v2/slots answered ${response.status}: ${text.slice(0, 500)}`);
  return Object.values((JSON.parse(text) as { data: Record<string, { start: string }[]> }).data).flatMap((day) => day.map((slot) => slot.start)).sort();
}

/** Waits until the sink has received nothing new for 1.5 s (what earlier requests queued is out). */
export async function settleSmtp(smtp: BenchSmtp): Promise<void> {
  const deadline = Date.now() + 60_000;
  let seen = -1;
  while (smtp.received() !== seen && Date.now() < deadline) {
    seen = smtp.received();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  }
}
