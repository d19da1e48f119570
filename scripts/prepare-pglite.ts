// Runs on `npm install`: initdb and migrate once into a snapshot, so the first `npm start` skips
// PostgreSQL's 2-5 s initdb and loads a ready cluster in about a second.
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../src/db/client.js';
import { migrateDatabase } from '../src/db/migrate.js';
import { pgliteBaseSnapshotPath } from '../src/db/pglite-snapshot.js';
import { applyPgliteWasmTiering } from '../src/db/pglite-wasm.js';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';

const target = pgliteBaseSnapshotPath();
if (!fs.existsSync(target)) {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  applyPgliteWasmTiering();
  const client = await PGlite.create({ extensions: { btree_gist } });
  const database = await openDatabase({ pglite: client });
  await migrateDatabase(database);
  // Uncompressed: it loads ~200 ms faster than gzip, and it only lives in the local install.
  const dump = await client.dumpDataDir('none');
  await database.close();
  const partial = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(partial, target);
  // Snapshots of older migrations or PGlite versions are never read again.
  for (const name of fs.readdirSync(path.dirname(target))) {
    if (name.startsWith('pglite-base-') && name !== path.basename(target)) fs.rmSync(path.join(path.dirname(target), name), { force: true });
  }
  console.log(`svc: prepared the embedded database (${path.relative(process.cwd(), target)})`);
}
