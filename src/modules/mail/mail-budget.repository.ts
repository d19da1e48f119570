import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { mailBudgets } from '../../db/schema.js';

/**
 * Adds `messages` to a budget's window unless the total would pass `limit` (null: counted, never
 * refused). Returns whether they were added. One statement: a concurrent request of another process
 * waits for this one's row and then sees its total, so the limit holds across processes.
 */
export async function addToMailBudget(db: Db, key: string, windowEndsAt: Date, messages: number, limit: number | null): Promise<boolean> {
  if (limit !== null && messages > limit) return false;
  const result = await db.execute(sql`
    insert into ${mailBudgets} (key, window_ends_at, messages) values (${key}, ${windowEndsAt.toISOString()}::timestamptz, ${messages}::int)
    on conflict (key, window_ends_at) do update set messages = ${mailBudgets.messages} + excluded.messages
      where ${limit}::int is null or ${mailBudgets.messages} + excluded.messages <= ${limit}::int
    returning messages`);
  return (result as unknown as { rows: unknown[] }).rows.length === 1;
}

/** Windows that ended by `now`: no budget reads them again. */
export async function deleteEndedMailBudgets(db: Db, now: Date): Promise<number> {
  const result = await db.execute(sql`delete from ${mailBudgets} where window_ends_at <= ${now.toISOString()}::timestamptz returning 1`);
  return (result as unknown as { rows: unknown[] }).rows.length;
}
