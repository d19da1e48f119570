import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { idempotencyKeys } from '../../db/schema.js';

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

export interface KeyClaim {
  scope: string;
  key: string;
  fingerprint: string;
}

/**
 * Takes the key for this transaction, or returns the row already holding it. A concurrent request
 * with the same key waits here until the first one commits (then it sees that row) or rolls back
 * (then it takes the key).
 */
export async function claimKey(tx: Db, claim: KeyClaim, expiresAt: Date): Promise<IdempotencyRow | null> {
  const inserted = await tx
    .insert(idempotencyKeys)
    // Filled in by storeResponse before commit: no other transaction ever sees these placeholders.
    .values({ ...claim, responseStatus: 0, responseBody: {}, expiresAt })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  if (inserted.length > 0) return null;
  const [row] = await tx.select().from(idempotencyKeys).where(and(eq(idempotencyKeys.scope, claim.scope), eq(idempotencyKeys.key, claim.key)));
  return row ?? null;
}

export async function storeResponse(tx: Db, claim: KeyClaim, status: number, body: unknown): Promise<void> {
  await tx
    .update(idempotencyKeys)
    .set({ responseStatus: status, responseBody: body })
    .where(and(eq(idempotencyKeys.scope, claim.scope), eq(idempotencyKeys.key, claim.key)));
}

export async function deleteKey(tx: Db, claim: KeyClaim): Promise<void> {
  await tx.delete(idempotencyKeys).where(and(eq(idempotencyKeys.scope, claim.scope), eq(idempotencyKeys.key, claim.key)));
}

/** Expired keys answer nothing; they are removed now and then. */
export async function deleteExpiredKeys(tx: Db, now: Date): Promise<void> {
  await tx.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, sql`${now.toISOString()}::timestamptz`));
}
