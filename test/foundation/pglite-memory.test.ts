// The embedded store's memory settings: every PGlite instance svc opens runs with a small buffer pool
// (shared_buffers = 128MB from initdb made three quarters of an idle `svc serve`'s 485 MB resident), and
// a fresh data dir is unpacked from the install-time snapshot on disk, not loaded through memory.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { type Database, DEFAULT_PGLITE_SHARED_BUFFERS, openDatabase, pgliteSettings } from '../../src/db/client.js';
import { pgliteBaseSnapshotPath, UNPACKING_MARKER } from '../../src/db/pglite-snapshot.js';
import { backend } from '../support/test-app.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pglite-memory-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function show(database: Database, setting: string): Promise<string> {
  const result = (await database.db.execute(sql.raw(`show ${setting}`))) as unknown as { rows: Record<string, string>[] };
  return result.rows[0]![setting]!;
}

async function migrationsApplied(database: Database): Promise<number> {
  const result = (await database.db.execute(sql.raw('select count(*) as n from drizzle.__drizzle_migrations'))) as unknown as { rows: { n: number }[] };
  return Number(result.rows[0]!.n);
}

async function withDatabase<T>(dataDir: string, work: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase({ dataDir });
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

describe('embedded store memory settings', { skip: backend !== 'pglite' && 'embedded store only' }, () => {
  test('defaults to 16MB of shared_buffers, and wal_buffers follows (512kB)', () => {
    assert.equal(DEFAULT_PGLITE_SHARED_BUFFERS, '16MB');
    assert.deepEqual(pgliteSettings({}), { shared_buffers: '16MB' });
    assert.deepEqual(pgliteSettings({ SVC_PGLITE_SHARED_BUFFERS: '64MB' }), { shared_buffers: '64MB' });
    for (const bad of ['16', '0MB', '16 MB', '1TB', '-1', 'lots']) {
      assert.throws(() => pgliteSettings({ SVC_PGLITE_SHARED_BUFFERS: bad }), /SVC_PGLITE_SHARED_BUFFERS/, bad);
    }
  });

  test('a fresh data dir is unpacked from the snapshot and runs with the small buffer pool; so does a restart', async () => {
    const dataDir = tempDir();
    const migrated = await withDatabase(dataDir, async (database) => {
      assert.equal(await show(database, 'shared_buffers'), '16MB');
      assert.equal(await show(database, 'wal_buffers'), '512kB');
      return migrationsApplied(database);
    });
    assert.ok(migrated > 0, 'the snapshot holds the migrated cluster');
    assert.ok(fs.existsSync(path.join(dataDir, 'PG_VERSION')));
    assert.ok(!fs.existsSync(path.join(dataDir, UNPACKING_MARKER)), 'the unpack finished');

    // The settings are passed at every start, not only kept in the cluster's postgresql.conf.
    await withDatabase(dataDir, async (database) => {
      assert.equal(await show(database, 'shared_buffers'), '16MB');
      assert.equal(await migrationsApplied(database), migrated);
    });
  });

  test('an in-memory store cloned from the snapshot (what the tests use) has the same settings', async () => {
    const database = await openDatabase({ pgliteSnapshot: new Blob([fs.readFileSync(pgliteBaseSnapshotPath())]) });
    try {
      assert.equal(await show(database, 'shared_buffers'), '16MB');
    } finally {
      await database.close();
    }
  });

  test('SVC_PGLITE_SHARED_BUFFERS sets the buffer pool', async () => {
    const previous = process.env.SVC_PGLITE_SHARED_BUFFERS;
    process.env.SVC_PGLITE_SHARED_BUFFERS = '8MB';
    try {
      await withDatabase(tempDir(), async (database) => assert.equal(await show(database, 'shared_buffers'), '8MB'));
    } finally {
      if (previous === undefined) delete process.env.SVC_PGLITE_SHARED_BUFFERS;
      else process.env.SVC_PGLITE_SHARED_BUFFERS = previous;
    }
  });

  test('an unpack that did not finish (marker left, no PG_VERSION) is redone on the next open', async () => {
    const dataDir = tempDir();
    fs.writeFileSync(path.join(dataDir, UNPACKING_MARKER), '');
    fs.mkdirSync(path.join(dataDir, 'base'));
    fs.writeFileSync(path.join(dataDir, 'postgresql.conf'), 'half written');
    await withDatabase(dataDir, async (database) => {
      assert.ok((await migrationsApplied(database)) > 0);
    });
    assert.ok(!fs.existsSync(path.join(dataDir, UNPACKING_MARKER)));
  });
});
