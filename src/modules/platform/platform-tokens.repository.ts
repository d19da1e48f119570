import { and, eq, inArray, isNotNull, lt } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { accessTokens, platformRefreshTokens } from '../../db/schema.js';

export type RefreshTokenRow = typeof platformRefreshTokens.$inferSelect;

export interface NewTokenPair {
  clientId: string;
  userId: number;
  familyId: string;
  accessHash: string;
  accessExpiresAt: Date;
  refreshHash: string;
  refreshExpiresAt: Date;
}

export async function insertTokenPair(db: Db, pair: NewTokenPair): Promise<void> {
  const { clientId, userId, familyId } = pair;
  await db.insert(accessTokens).values({ userId, clientId, familyId, hashedToken: pair.accessHash, expiresAt: pair.accessExpiresAt });
  await db.insert(platformRefreshTokens).values({ userId, clientId, familyId, hashedToken: pair.refreshHash, expiresAt: pair.refreshExpiresAt });
}

/** The refresh token with this hash, locked: two refreshes with one token are decided one after the other. */
export async function lockRefreshToken(db: Db, hashedToken: string): Promise<RefreshTokenRow | undefined> {
  const [row] = await db.select().from(platformRefreshTokens).where(eq(platformRefreshTokens.hashedToken, hashedToken)).for('update');
  return row;
}

export async function markRotated(db: Db, id: number, at: Date): Promise<void> {
  await db.update(platformRefreshTokens).set({ rotatedAt: at }).where(eq(platformRefreshTokens.id, id));
}

/** Deletes every token of a family; returns the hashes of its access tokens (their cached copies must go). */
export async function deleteFamily(db: Db, familyId: string): Promise<string[]> {
  await db.delete(platformRefreshTokens).where(eq(platformRefreshTokens.familyId, familyId));
  const rows = await db.delete(accessTokens).where(eq(accessTokens.familyId, familyId)).returning({ hash: accessTokens.hashedToken });
  return rows.map((row) => row.hash);
}

/** Deletes every token the client issued to the user; returns the access tokens' hashes. */
export async function deleteTokensOfUser(db: Db, clientId: string, userId: number): Promise<string[]> {
  await db.delete(platformRefreshTokens).where(and(eq(platformRefreshTokens.clientId, clientId), eq(platformRefreshTokens.userId, userId)));
  const rows = await db
    .delete(accessTokens)
    .where(and(eq(accessTokens.clientId, clientId), eq(accessTokens.userId, userId)))
    .returning({ hash: accessTokens.hashedToken });
  return rows.map((row) => row.hash);
}

/** Deletes every access token of the client (its refresh tokens go with the client's row). */
export async function deleteAccessTokensOfClient(db: Db, clientId: string): Promise<void> {
  await db.delete(accessTokens).where(eq(accessTokens.clientId, clientId));
}

/**
 * Housekeeping: platform access tokens that expired before `accessBefore` (kept a while after expiry so
 * they answer 498, not 401) and refresh tokens that expired before `refreshBefore`, at most `limit` of
 * each per call.
 */
export async function deleteExpiredTokens(db: Db, accessBefore: Date, refreshBefore: Date, limit: number): Promise<number> {
  const expiredAccess = db
    .select({ id: accessTokens.id })
    .from(accessTokens)
    .where(and(isNotNull(accessTokens.familyId), lt(accessTokens.expiresAt, accessBefore)))
    .limit(limit);
  const access = await db.delete(accessTokens).where(inArray(accessTokens.id, expiredAccess)).returning({ id: accessTokens.id });
  const expiredRefresh = db.select({ id: platformRefreshTokens.id }).from(platformRefreshTokens).where(lt(platformRefreshTokens.expiresAt, refreshBefore)).limit(limit);
  const refresh = await db.delete(platformRefreshTokens).where(inArray(platformRefreshTokens.id, expiredRefresh)).returning({ id: platformRefreshTokens.id });
  return access.length + refresh.length;
}
