// One process owns an embedded store. PGlite is one PostgreSQL session in one process: a second process
// opening the same data directory gets its own copy in memory and the two overwrite each other's files.
// The owner holds a lock directory inside the data directory (proper-lockfile: an atomic mkdir whose
// mtime the owner keeps fresh) and writes who it is beside it, so a second opener is refused with a
// message naming the running process, and the lock of a process that died is taken over at once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';

export const LOCK_DIR_NAME = 'svc.lock';
export const LOCK_OWNER_FILE = 'svc.lock.json';
/** Where the owning `svc serve` answers `svc admin-key` (src/app/admin-socket.ts). */
export const ADMIN_SOCKET_NAME = 'svc.lock.sock';

/** Who holds a data directory: written by the owner after it takes the lock. */
export interface DataDirOwner {
  pid: number;
  hostname: string;
  /** The svc command that opened it (`serve`, `worker`, `migrate`, `admin-key`...). */
  command: string;
  startedAt: string;
}

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: DataDirOwner | null,
  ) {
    const who = owner ? `svc ${owner.command} (pid ${owner.pid} on ${owner.hostname}, since ${owner.startedAt})` : 'another process';
    super(
      `the embedded store ${dataDir} is in use by ${who}: one process at a time may open it. ` +
        'Stop that process first, or point this one at another SVC_DATA_DIR (or at PostgreSQL with DATABASE_URL, which many processes may share).',
    );
    this.name = 'DataDirInUseError';
  }
}

/** The files of the lock: never part of the store, so a data directory holding only them is still empty. */
export const isLockFile = (name: string) => name === LOCK_DIR_NAME || name === LOCK_OWNER_FILE || name === ADMIN_SOCKET_NAME;

export function readDataDirOwner(dataDir: string): DataDirOwner | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_OWNER_FILE), 'utf8')) as DataDirOwner;
  } catch {
    return null;
  }
}

/** Is the owner a process that has gone (on this machine)? Then its lock is left over, not held. */
function ownerIsGone(owner: DataDirOwner | null): boolean {
  if (!owner || owner.hostname !== os.hostname() || owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

const LOCK_OPTIONS = {
  lockfilePath: '',
  realpath: false,
  // The owner refreshes the lock every 10 s; one not refreshed for a minute is a dead owner's (on
  // another machine sharing the directory, where the pid cannot be asked).
  stale: 60_000,
  update: 10_000,
  retries: 0,
};

/**
 * Takes the data directory for this process, or throws DataDirInUseError. Returns the release, which
 * also removes the owner file. A lock whose owner process is gone is taken over.
 */
export async function lockDataDir(dataDir: string, command: string): Promise<() => Promise<void>> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lockfilePath = path.join(dataDir, LOCK_DIR_NAME);
  const options = {
    ...LOCK_OPTIONS,
    lockfilePath,
    onCompromised: (error: Error) => {
      // Another process took the directory (this one stalled for a minute): writing on would corrupt it.
      console.error(`svc: lost the lock on ${dataDir} (${error.message}); stopping so that two processes never write one store`);
      process.exit(70);
    },
  };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(dataDir, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    const owner = readDataDirOwner(dataDir);
    if (!ownerIsGone(owner)) throw new DataDirInUseError(dataDir, owner);
    fs.rmSync(lockfilePath, { recursive: true, force: true });
    try {
      release = await lockfile.lock(dataDir, options);
    } catch (retryError) {
      if ((retryError as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirInUseError(dataDir, readDataDirOwner(dataDir));
      throw retryError;
    }
  }
  const owner: DataDirOwner = { pid: process.pid, hostname: os.hostname(), command, startedAt: new Date().toISOString() };
  fs.writeFileSync(path.join(dataDir, LOCK_OWNER_FILE), `${JSON.stringify(owner)}\n`, { mode: 0o600 });
  return async () => {
    fs.rmSync(path.join(dataDir, LOCK_OWNER_FILE), { force: true });
    await release();
  };
}
