import { eq, getTableColumns, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { accessTokens, apiKeys, users } from '../../db/schema.js';
import type { UserRecord } from '../users/users.repository.js';

export const CREDENTIALS_CHANNEL = 'svc_credentials';

const { passwordHash: _omitted, ...userColumns } = getTableColumns(users);

export interface ApiKeyWithUser {
  keyId: number;
  expiresAt: Date | null;
  user: UserRecord;
}

export interface AccessTokenWithUser {
  tokenId: number;
  expiresAt: Date;
  scopes: string[];
  clientId: string | null;
  user: UserRecord;
}

export async function findApiKeyWithUser(db: Db, hashedKey: string): Promise<ApiKeyWithUser | undefined> {
  const [row] = await db
    .select({ keyId: apiKeys.id, expiresAt: apiKeys.expiresAt, user: userColumns })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(eq(apiKeys.hashedKey, hashedKey));
  return row;
}

export async function findAccessTokenWithUser(db: Db, hashedToken: string): Promise<AccessTokenWithUser | undefined> {
  const [row] = await db
    .select({
      tokenId: accessTokens.id,
      expiresAt: accessTokens.expiresAt,
      scopes: accessTokens.scopes,
      clientId: accessTokens.clientId,
      user: userColumns,
    })
    .from(accessTokens)
    .innerJoin(users, eq(users.id, accessTokens.userId))
    .where(eq(accessTokens.hashedToken, hashedToken));
  return row;
}

/**
 * Tells every svc process that cached credentials must be dropped. NOTIFY is delivered only when the
 * surrounding transaction commits, so no process drops (or keeps) an entry for a change that rolled back.
 */
export async function notifyCredentialChange(db: Db, event: CredentialEvent): Promise<void> {
  await db.execute(sql`select pg_notify(${CREDENTIALS_CHANNEL}, ${formatCredentialEvent(event)})`);
}

export type CredentialEvent = { kind: 'user'; userId: number } | { kind: 'credential'; hash: string };

export function formatCredentialEvent(event: CredentialEvent): string {
  return event.kind === 'user' ? `user:${event.userId}` : `credential:${event.hash}`;
}

export function parseCredentialEvent(payload: string): CredentialEvent | null {
  const [kind, value] = payload.split(':', 2);
  if (kind === 'user' && value && /^\d+$/.test(value)) return { kind: 'user', userId: Number(value) };
  if (kind === 'credential' && value) return { kind: 'credential', hash: value };
  return null;
}
