import { and, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { accessTokens, platformOAuthClients, platformRefreshTokens } from '../../db/schema.js';

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

/** Deletes every token the organization's clients issued to the user; returns the access tokens' hashes. */
export async function deleteTokensOfUserInOrganization(db: Db, organizationId: number, userId: number): Promise<string[]> {
  const clientsOfOrganization = db.select({ id: platformOAuthClients.id }).from(platformOAuthClients).where(eq(platformOAuthClients.organizationId, organizationId));
  await db.delete(platformRefreshTokens).where(and(eq(platformRefreshTokens.userId, userId), inArray(platformRefreshTokens.clientId, clientsOfOrganization)));
  const rows = await db
    .delete(accessTokens)
    .where(and(eq(accessTokens.userId, userId), inArray(accessTokens.clientId, clientsOfOrganization)))
    .returning({ hash: accessTokens.hashedToken });
  return rows.map((row) => row.hash);
}

/** Deletes every access token of the client (its refresh tokens go with the client's row). */
export async function deleteAccessTokensOfClient(db: Db, clientId: string): Promise<void> {
  await db.delete(accessTokens).where(eq(accessTokens.clientId, clientId));
}

/**
 * Deletes every access token of the clients of a team that is about to be deleted, and of the teams
 * deleted with it (its teams, its managed organizations and theirs); returns those clients' ids. Their
 * refresh tokens go with the clients' rows; access tokens name their client without a foreign key.
 */
export async function deleteAccessTokensOfClientsUnder(db: Db, teamId: number): Promise<string[]> {
  const owned = sql`(with recursive owned(id) as (select ${teamId}::int union select t.id from teams t join owned o on t.parent_id = o.id or t.manager_organization_id = o.id) select id from owned)`;
  const clients = await db.select({ id: platformOAuthClients.id }).from(platformOAuthClients).where(sql`${platformOAuthClients.organizationId} in ${owned}`);
  const clientIds = clients.map((client) => client.id);
  if (clientIds.length > 0) await db.delete(accessTokens).where(inArray(accessTokens.clientId, clientIds));
  return clientIds;
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
