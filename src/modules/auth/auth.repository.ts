import { eq, getTableColumns } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { accessTokens, apiKeys, users } from '../../db/schema.js';
import type { UserRecord } from '../users/users.repository.js';

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
