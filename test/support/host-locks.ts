import type { Database } from '../../src/db/client.js';
import { lockHostTime } from '../../src/db/locks.js';

/**
 * Holds the hosts' time locks in a transaction of `database` (another session than the one tested),
 * as a booking in flight would; resolves once they are taken, with the function that lets them go.
 */
export async function holdHostLocks(database: Database, userIds: number[]): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const taken = new Promise<void>((resolve) => (locked = resolve));
  const done = database.transaction(async (tx) => {
    await lockHostTime(tx, userIds);
    locked();
    await released;
  });
  await taken;
  return async () => {
    release();
    await done;
  };
}
