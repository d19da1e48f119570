import { asc, eq, inArray, lt } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { accessTokens, oauthAuthorizationCodes, oauthClients, oauthRefreshTokens, users, type OAuthClientStatus } from '../../db/schema.js';

export type OAuthClientRecord = typeof oauthClients.$inferSelect;
export type NewOAuthClient = typeof oauthClients.$inferInsert;
export type AuthorizationCodeRow = typeof oauthAuthorizationCodes.$inferSelect;
export type OAuthRefreshTokenRow = typeof oauthRefreshTokens.$inferSelect;

export async function insertClient(db: Db, client: NewOAuthClient): Promise<OAuthClientRecord> {
  const [row] = await db.insert(oauthClients).values(client).returning();
  return row!;
}

export async function findClient(db: Db, id: string): Promise<OAuthClientRecord | undefined> {
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.id, id));
  return row;
}

export async function listClientsOfOwner(db: Db, ownerId: number): Promise<OAuthClientRecord[]> {
  return db.select().from(oauthClients).where(eq(oauthClients.ownerId, ownerId)).orderBy(asc(oauthClients.createdAt), asc(oauthClients.id));
}

export async function listClientsByStatus(db: Db, status: OAuthClientStatus | undefined, page: { take: number; skip: number }): Promise<OAuthClientRecord[]> {
  return db
    .select()
    .from(oauthClients)
    .where(status ? eq(oauthClients.status, status) : undefined)
    .orderBy(asc(oauthClients.createdAt), asc(oauthClients.id))
    .limit(page.take)
    .offset(page.skip);
}

export async function setClientStatus(db: Db, id: string, status: OAuthClientStatus, at: Date): Promise<OAuthClientRecord | undefined> {
  const [row] = await db.update(oauthClients).set({ status, reviewedAt: at, updatedAt: at }).where(eq(oauthClients.id, id)).returning();
  return row;
}

export async function deleteClient(db: Db, id: string): Promise<OAuthClientRecord | undefined> {
  const [row] = await db.delete(oauthClients).where(eq(oauthClients.id, id)).returning();
  return row;
}

export async function findClientOwner(db: Db, userId: number): Promise<{ email: string; name: string | null; timeZone: string; locale: string | null } | undefined> {
  const [row] = await db.select({ email: users.email, name: users.name, timeZone: users.timeZone, locale: users.locale }).from(users).where(eq(users.id, userId));
  return row;
}

export async function insertAuthorizationCode(db: Db, code: typeof oauthAuthorizationCodes.$inferInsert): Promise<void> {
  await db.insert(oauthAuthorizationCodes).values(code);
}

/** The code with this hash, locked: two exchanges of one code are decided one after the other. */
export async function lockAuthorizationCode(db: Db, hashedCode: string): Promise<AuthorizationCodeRow | undefined> {
  const [row] = await db.select().from(oauthAuthorizationCodes).where(eq(oauthAuthorizationCodes.hashedCode, hashedCode)).for('update');
  return row;
}

export async function markCodeUsed(db: Db, id: number, at: Date): Promise<void> {
  await db.update(oauthAuthorizationCodes).set({ usedAt: at }).where(eq(oauthAuthorizationCodes.id, id));
}

export interface NewGrantTokens {
  clientId: string;
  userId: number;
  familyId: string;
  accessHash: string;
  accessScopes: string[];
  accessExpiresAt: Date;
  refreshHash: string;
  refreshScopes: string[];
  refreshExpiresAt: Date;
}

export async function insertGrantTokens(db: Db, tokens: NewGrantTokens): Promise<void> {
  const { clientId, userId, familyId } = tokens;
  await db.insert(accessTokens).values({ userId, clientId, familyId, hashedToken: tokens.accessHash, scopes: tokens.accessScopes, expiresAt: tokens.accessExpiresAt });
  await db
    .insert(oauthRefreshTokens)
    .values({ userId, clientId, familyId, hashedToken: tokens.refreshHash, scopes: tokens.refreshScopes, expiresAt: tokens.refreshExpiresAt });
}

export async function lockRefreshToken(db: Db, hashedToken: string): Promise<OAuthRefreshTokenRow | undefined> {
  const [row] = await db.select().from(oauthRefreshTokens).where(eq(oauthRefreshTokens.hashedToken, hashedToken)).for('update');
  return row;
}

export async function findRefreshToken(db: Db, hashedToken: string): Promise<OAuthRefreshTokenRow | undefined> {
  const [row] = await db.select().from(oauthRefreshTokens).where(eq(oauthRefreshTokens.hashedToken, hashedToken));
  return row;
}

export async function markRefreshRotated(db: Db, id: number, at: Date): Promise<void> {
  await db.update(oauthRefreshTokens).set({ rotatedAt: at }).where(eq(oauthRefreshTokens.id, id));
}

/** A third-party access token by hash (with the client it was issued to). */
export async function findAccessToken(db: Db, hashedToken: string) {
  const [row] = await db
    .select({ id: accessTokens.id, clientId: accessTokens.clientId, userId: accessTokens.userId, familyId: accessTokens.familyId, scopes: accessTokens.scopes, expiresAt: accessTokens.expiresAt, createdAt: accessTokens.createdAt })
    .from(accessTokens)
    .where(eq(accessTokens.hashedToken, hashedToken));
  return row;
}

export async function deleteAccessToken(db: Db, id: number): Promise<void> {
  await db.delete(accessTokens).where(eq(accessTokens.id, id));
}

/** Deletes every token of a family (one authorization); returns the access tokens' hashes (their cached copies must go). */
export async function deleteFamily(db: Db, familyId: string): Promise<string[]> {
  await db.delete(oauthRefreshTokens).where(eq(oauthRefreshTokens.familyId, familyId));
  const rows = await db.delete(accessTokens).where(eq(accessTokens.familyId, familyId)).returning({ hash: accessTokens.hashedToken });
  return rows.map((row) => row.hash);
}

/** Deletes every token a client was issued (it was rejected or deleted); returns the access tokens' hashes. */
export async function deleteTokensOfClient(db: Db, clientId: string): Promise<string[]> {
  await db.delete(oauthRefreshTokens).where(eq(oauthRefreshTokens.clientId, clientId));
  const rows = await db.delete(accessTokens).where(eq(accessTokens.clientId, clientId)).returning({ hash: accessTokens.hashedToken });
  return rows.map((row) => row.hash);
}

/** Housekeeping: codes and refresh tokens that expired before `before`, at most `limit` of each. */
export async function deleteExpiredGrants(db: Db, before: Date, limit: number): Promise<number> {
  const codes = db.select({ id: oauthAuthorizationCodes.id }).from(oauthAuthorizationCodes).where(lt(oauthAuthorizationCodes.expiresAt, before)).limit(limit);
  const deletedCodes = await db.delete(oauthAuthorizationCodes).where(inArray(oauthAuthorizationCodes.id, codes)).returning({ id: oauthAuthorizationCodes.id });
  const refresh = db.select({ id: oauthRefreshTokens.id }).from(oauthRefreshTokens).where(lt(oauthRefreshTokens.expiresAt, before)).limit(limit);
  const deletedRefresh = await db.delete(oauthRefreshTokens).where(inArray(oauthRefreshTokens.id, refresh)).returning({ id: oauthRefreshTokens.id });
  return deletedCodes.length + deletedRefresh.length;
}

