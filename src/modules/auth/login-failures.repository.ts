import { and, count, eq, gt, inArray, lt, max } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { loginFailures } from '../../db/schema.js';

export interface FailureCount {
  failures: number;
  /** When the latest of them was (null: none). */
  latest: Date | null;
}

/** Failures of one account or one client address after `since`. */
export async function countFailures(db: Db, of: { accountKey: string } | { clientKey: string }, since: Date): Promise<FailureCount> {
  const key = 'accountKey' in of ? eq(loginFailures.accountKey, of.accountKey) : eq(loginFailures.clientIp, of.clientKey);
  const [row] = await db
    .select({ failures: count(), latest: max(loginFailures.failedAt) })
    .from(loginFailures)
    .where(and(key, gt(loginFailures.failedAt, since)));
  return { failures: row?.failures ?? 0, latest: row?.latest ?? null };
}

export async function insertFailure(db: Db, failure: { accountKey: string; clientKey: string; failedAt: Date }): Promise<void> {
  await db.insert(loginFailures).values({ accountKey: failure.accountKey, clientIp: failure.clientKey, failedAt: failure.failedAt });
}

export async function deleteFailuresOfAccount(db: Db, accountKey: string): Promise<void> {
  await db.delete(loginFailures).where(eq(loginFailures.accountKey, accountKey));
}

/** Housekeeping: failures from before `before`, at most `limit` of them. */
export async function deleteFailuresBefore(db: Db, before: Date, limit: number): Promise<number> {
  const old = db.select({ id: loginFailures.id }).from(loginFailures).where(lt(loginFailures.failedAt, before)).limit(limit);
  const rows = await db.delete(loginFailures).where(inArray(loginFailures.id, old)).returning({ id: loginFailures.id });
  return rows.length;
}
