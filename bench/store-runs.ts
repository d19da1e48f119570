// What the benches that run once per store (bench/booking-pages.ts, bench/routing-forms.ts) share.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killAllChildren, type startServer } from '../test/support/child-server.js';
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
