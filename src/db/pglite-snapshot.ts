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
 * version and a hash of the migration journal and of every migration's SQL (a migration edited before
 * it is released changes no journal entry), so a stale snapshot is never picked up.
 */
export function pgliteBaseSnapshotPath(): string {
  const manifest = path.join(projectRoot, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  const version = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version;
  const folder = migrationsFolder();
  const hash = createHash('sha256').update(fs.readFileSync(path.join(folder, 'meta', '_journal.json')));
  for (const name of fs.readdirSync(folder).filter((file) => file.endsWith('.sql')).sort()) hash.update(name).update(fs.readFileSync(path.join(folder, name)));
  return path.join(projectRoot, '.cache', `pglite-base-${version}-${hash.digest('hex').slice(0, 12)}.tar`);
}

export function migrationsFolder(): string {
  return path.join(projectRoot, 'drizzle');
}

/** Left in a data dir while a snapshot is being unpacked into it: a dir holding it is unpacked again. */
export const UNPACKING_MARKER = '.svc-unpacking-snapshot';

const BLOCK = 512;

function tarString(header: Buffer, offset: number, length: number): string {
  const end = header.indexOf(0, offset);
  return header.toString('utf8', offset, end === -1 || end > offset + length ? offset + length : end);
}

function tarOctal(header: Buffer, offset: number, length: number): number {
  const text = tarString(header, offset, length).trim();
  return text === '' ? 0 : Number.parseInt(text, 8);
}

/**
 * Unpacks a PGlite data-dir tar (`dumpDataDir('none')`: ustar, regular files and directories, names
 * relative to the data dir) straight into `dir` on disk, through one reused 1 MiB buffer. Handing the
 * tar to PGlite as `loadDataDir` instead keeps four copies of it in memory at once (the file, the Blob,
 * its ArrayBuffer, a slice per file), about 160 MiB for a 40 MiB cluster, of which the process kept
 * some 80 MiB resident afterwards. PG_VERSION (what PGlite looks for to open an existing cluster) is
 * written last, and a marker file marks an unfinished unpack so the next start redoes it.
 */
export function unpackSnapshot(tarPath: string, dir: string): void {
  const root = path.resolve(dir);
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  const marker = path.join(root, UNPACKING_MARKER);
  fs.writeFileSync(marker, '');
  const fd = fs.openSync(tarPath, 'r');
  const header = Buffer.alloc(BLOCK);
  const chunk = Buffer.allocUnsafe(1 << 20);
  let position = 0;
  let pgVersion: { target: string; mode: number; data: Buffer } | undefined;
  try {
    for (;;) {
      if (fs.readSync(fd, header, 0, BLOCK, position) !== BLOCK) throw new Error(`${tarPath}: truncated tar`);
      position += BLOCK;
      if (header.every((byte) => byte === 0)) break; // end of archive
      if (tarString(header, 257, 6) !== 'ustar') throw new Error(`${tarPath}: not a ustar archive`);
      let checksum = 8 * 32;
      for (let i = 0; i < BLOCK; i += 1) if (i < 148 || i >= 156) checksum += header[i]!;
      if (checksum !== tarOctal(header, 148, 8)) throw new Error(`${tarPath}: bad header checksum at ${position - BLOCK}`);
      const prefix = tarString(header, 345, 155);
      const name = (prefix ? `${prefix}/` : '') + tarString(header, 0, 100);
      const target = path.join(root, name);
      if (target !== root && !target.startsWith(root + path.sep)) throw new Error(`${tarPath}: entry outside the data dir: ${name}`);
      const mode = tarOctal(header, 100, 8) & 0o777;
      const size = tarOctal(header, 124, 12);
      const type = String.fromCharCode(header[156]!);
      if (type === '5') {
        fs.mkdirSync(target, { recursive: true, mode: mode || 0o700 });
      } else if (type === '0' || type === '\0') {
        fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
        if (path.relative(root, target) === 'PG_VERSION') {
          const data = Buffer.alloc(size);
          if (fs.readSync(fd, data, 0, size, position) !== size) throw new Error(`${tarPath}: truncated tar`);
          pgVersion = { target, mode: mode || 0o600, data };
        } else {
          const out = fs.openSync(target, 'w', mode || 0o600);
          try {
            for (let done = 0; done < size; ) {
              const read = fs.readSync(fd, chunk, 0, Math.min(chunk.length, size - done), position + done);
              if (read <= 0) throw new Error(`${tarPath}: truncated tar`);
              fs.writeSync(out, chunk, 0, read);
              done += read;
            }
          } finally {
            fs.closeSync(out);
          }
        }
        position += Math.ceil(size / BLOCK) * BLOCK;
      } else {
        throw new Error(`${tarPath}: unsupported tar entry type '${type}' (${name})`);
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  if (!pgVersion) throw new Error(`${tarPath}: no PG_VERSION in the snapshot`);
  fs.writeFileSync(pgVersion.target, pgVersion.data, { mode: pgVersion.mode });
  fs.rmSync(marker);
}
