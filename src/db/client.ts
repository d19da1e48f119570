import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { isLockFile, lockDataDir } from './data-dir-lock.js';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { NamingClient } from './named-statements.js';
import { pgliteBaseSnapshotPath, UNPACKING_MARKER, unpackSnapshot } from './pglite-snapshot.js';
import { applyPgliteWasmTiering } from './pglite-wasm.js';
import { usePreparedStatements } from './pglite-statements.js';
import * as schema from './schema.js';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export type Notification = (payload: string) => void;

/** One handle over the embedded store (PGlite) or a PostgreSQL server: the rest of svc never asks which. */
export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
  /** Subscribe to NOTIFY on a channel; `onLost` runs if delivery can no longer be guaranteed. */
  listen(channel: string, onMessage: Notification, onLost: () => void): Promise<() => Promise<void>>;
  /** Run raw SQL statements (migrations, maintenance). */
  exec(statements: string): Promise<void>;
  /**
   * Runs `work` on one dedicated session holding a session-level advisory lock, so work that manages
   * its own transactions (the migrator) stays under the lock from start to end.
   */
  withExclusiveSession<T>(lockKey: number, work: (db: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  /** A dumped PGlite data dir to start from (tests clone a migrated snapshot). */
  pgliteSnapshot?: Blob | undefined;
  /** An already-created PGlite instance to wrap. */
  pglite?: PGlite | undefined;
  poolSize?: number;
  /** The svc command opening an embedded store's data dir, named to a second opener it refuses. */
  command?: string;
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 10);
  return openPglite(options);
}

const extensions = { btree_gist };

/**
 * The PostgreSQL settings every PGlite instance svc opens runs with (passed at start, so they apply to
 * existing data dirs too). PGlite's cluster comes from initdb with shared_buffers = 128MB, and in
 * WebAssembly the whole buffer pool is touched at start: 128 MiB of resident memory before the first
 * query, three quarters of an idle `svc serve`. One process owns the store and its working set is small,
 * and a buffer miss is a read from the OS page cache, so 16MB serves as well (npm run bench: same req/s).
 * wal_buffers follows shared_buffers (1/32: 512kB). SVC_PGLITE_SHARED_BUFFERS overrides it.
 */
export const DEFAULT_PGLITE_SHARED_BUFFERS = '16MB';

export function pgliteSettings(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const sharedBuffers = env.SVC_PGLITE_SHARED_BUFFERS?.trim() || DEFAULT_PGLITE_SHARED_BUFFERS;
  if (!/^[1-9][0-9]*(kB|MB|GB)$/.test(sharedBuffers)) {
    throw new Error(`SVC_PGLITE_SHARED_BUFFERS must be a size such as 16MB or 512kB, got ${JSON.stringify(sharedBuffers)}`);
  }
  return { shared_buffers: sharedBuffers };
}

function pgliteStartParams(): string[] {
  return [...PGlite.defaultStartParams, ...Object.entries(pgliteSettings()).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
}

function isEmptyDir(dir: string): boolean {
  return !fs.existsSync(dir) || fs.readdirSync(dir).every(isLockFile);
}

/** True when `dir` is empty, or holds a snapshot unpack that did not finish (unpacking again overwrites it). */
function needsCluster(dir: string): boolean {
  return isEmptyDir(dir) || fs.existsSync(path.join(dir, UNPACKING_MARKER));
}

async function openPglite(options: OpenOptions): Promise<Database> {
  const loadDataDir = options.pgliteSnapshot;
  // Taken before anything is read or unpacked, and held until close: one process owns a data dir.
  const releaseDataDir = options.dataDir && !options.pglite ? await lockDataDir(options.dataDir, options.command ?? 'process') : null;
  try {
    return await startPglite(options, loadDataDir, releaseDataDir);
  } catch (error) {
    await releaseDataDir?.();
    throw error;
  }
}

/**
 * PGlite's own bytea parser reads the hex text a byte at a time (substring and parseInt each): Buffer's
 * native hex decoder gives the same bytes (a Buffer is a Uint8Array, as node-postgres gives) several
 * times faster, which the slot query's calendar spans (calendar_busy_days) notice.
 */
const BYTEA_OID = 17;
const PGLITE_PARSERS = { [BYTEA_OID]: (value: string) => Buffer.from(value.slice(2), 'hex') };

async function startPglite(options: OpenOptions, loadDataDir: Blob | undefined, releaseDataDir: (() => Promise<void>) | null): Promise<Database> {
  if (!loadDataDir && options.dataDir && needsCluster(options.dataDir)) {
    // initdb costs 2-5 s; the migrated cluster prepared at install time is unpacked in well under 1 s,
    // straight to disk (not through PGlite's loadDataDir, which holds the tar in memory several times).
    const base = pgliteBaseSnapshotPath();
    if (fs.existsSync(base)) unpackSnapshot(base, options.dataDir);
    else if (!isEmptyDir(options.dataDir)) {
      throw new Error(`${options.dataDir} holds an unfinished snapshot unpack and ${base} is gone: empty the directory or run npm install`);
    }
  }
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true });
  if (!options.pglite) applyPgliteWasmTiering();
  const client =
    options.pglite ?? (await PGlite.create({ dataDir: options.dataDir, loadDataDir, extensions, startParams: pgliteStartParams(), parsers: PGLITE_PARSERS }));
  usePreparedStatements(client);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    transaction: (work) => db.transaction(work),
    async listen(channel, onMessage) {
      // One process owns a PGlite store, so notifications cannot be lost between processes.
      const unsubscribe = await client.listen(channel, onMessage);
      return unsubscribe;
    },
    async exec(statements) {
      await client.exec(statements);
    },
    // One process owns a PGlite store: there is no one to exclude.
    withExclusiveSession: (_lockKey, work) => work(db),
    async close() {
      if (!client.closed) await client.close();
      await releaseDataDir?.();
    },
  };
}

// int8 (bigserial ids, count(*)) as numbers, as PGlite returns them: ids stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

async function openPostgres(url: string, poolSize: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, Client: NamingClient });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = drizzleNodePg(pool, { schema }) as unknown as Db;
  await db.execute(sql`select 1`);
  const listeners = new Set<pg.Client>();
  return {
    kind: 'postgres',
    db,
    transaction: (work) => db.transaction(work),
    async listen(channel, onMessage, onLost) {
      const client = new pg.Client({ connectionString: url });
      listeners.add(client);
      let closing = false;
      const lost = () => {
        if (!closing) onLost();
      };
      client.on('error', lost);
      client.on('end', lost);
      client.on('notification', (message) => {
        if (message.channel === channel) onMessage(message.payload ?? '');
      });
      await client.connect();
      await client.query(`LISTEN "${channel.replaceAll('"', '')}"`);
      return async () => {
        closing = true;
        listeners.delete(client);
        await client.end().catch(() => {});
      };
    },
    async exec(statements) {
      await pool.query(statements);
    },
    async withExclusiveSession(lockKey, work) {
      const client = await pool.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [lockKey]);
        try {
          return await work(drizzleNodePg(client, { schema }) as unknown as Db);
        } finally {
          await client.query('select pg_advisory_unlock($1)', [lockKey]);
        }
      } finally {
        client.release();
      }
    },
    async close() {
      await Promise.all([...listeners].map((client) => client.end().catch(() => {})));
      listeners.clear();
      await pool.end();
    },
  };
}
