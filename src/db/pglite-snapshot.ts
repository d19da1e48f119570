import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding package.json, whether this file runs from src/ (tsx) or dist/src/ (built). */
function findProjectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) || path.basename(dir) === 'dist') {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('svc: cannot find the project root (package.json)');
    dir = parent;
  }
  return dir;
}

export const projectRoot = findProjectRoot();

/**
 * Where `npm install` leaves an initdb'd and migrated PGlite cluster. The name carries the PGlite
 * version and the migration journal's hash, so a stale snapshot is never picked up.
 */
export function pgliteBaseSnapshotPath(): string {
  const manifest = path.join(projectRoot, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  const version = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version;
  const journal = fs.readFileSync(path.join(migrationsFolder(), 'meta', '_journal.json'));
  const migrations = createHash('sha256').update(journal).digest('hex').slice(0, 12);
  return path.join(projectRoot, '.cache', `pglite-base-${version}-${migrations}.tar`);
}

export function migrationsFolder(): string {
  return path.join(projectRoot, 'drizzle');
}
