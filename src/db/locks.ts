import { sql } from 'drizzle-orm';
import type { Db } from './client.js';

/** Lock class of "this host's time": taken by every write that must see the host's busy time unchanged. */
const HOST_TIME_LOCK = 0x5376_0001;

/**
 * Transaction-scoped advisory locks on the hosts' time, in id order so that two writers sharing hosts
 * never wait on each other in a cycle. Whoever holds them re-reads busy time, checks, and writes before
 * anyone else can: this is what makes "check, then insert" safe across many API processes.
 */
export async function lockHostTime(tx: Db, userIds: readonly number[]): Promise<void> {
  for (const userId of [...new Set(userIds)].sort((a, b) => a - b)) {
    await tx.execute(sql`select pg_advisory_xact_lock(${HOST_TIME_LOCK}, ${userId})`);
  }
}
