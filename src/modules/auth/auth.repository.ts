import { eq, getTableColumns, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { accessTokens, apiKeys, memberships, platformOAuthClients, users } from '../../db/schema.js';
import type { UserRecord } from '../users/users.repository.js';

const { passwordHash: _omitted, ...userColumns } = getTableColumns(users);

export interface ApiKeyWithUser {
  keyId: number;
  expiresAt: Date | null;
  user: UserRecord;
}

/** The platform client a token or credential belongs to, as authentication needs it. */
export interface PlatformClientFacts {
  id: string;
  organizationId: number;
  redirectUris: string[];
  permissions: string[];
}

export interface AccessTokenWithUser {
  tokenId: number;
  expiresAt: Date;
  scopes: string[];
  client: PlatformClientFacts | null;
  user: UserRecord;
}

export interface PlatformClientWithOwner {
  client: PlatformClientFacts & { secretHash: string };
  /** Who the client's credentials act as: the organization's OWNER (else an ADMIN); null if it has neither. */
  owner: UserRecord | null;
}

const clientFacts = {
  id: platformOAuthClients.id,
  organizationId: platformOAuthClients.organizationId,
  redirectUris: platformOAuthClients.redirectUris,
  permissions: platformOAuthClients.permissions,
};

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
      client: clientFacts,
      user: userColumns,
    })
    .from(accessTokens)
    .innerJoin(users, eq(users.id, accessTokens.userId))
    .leftJoin(platformOAuthClients, eq(platformOAuthClients.id, accessTokens.clientId))
    .where(eq(accessTokens.hashedToken, hashedToken));
  return row;
}

/** A platform client by id, with the user its credentials act as (the reference's OWNER, else ADMIN). */
export async function findPlatformClientWithOwner(db: Db, clientId: string): Promise<PlatformClientWithOwner | undefined> {
  const ownerId = sql`(select m.user_id from ${memberships} m where m.team_id = ${platformOAuthClients.organizationId} and m.role in ('OWNER', 'ADMIN')
    order by (m.role = 'OWNER') desc, m.accepted desc, m.id limit 1)`;
  const [row] = await db
    .select({ client: { ...clientFacts, secretHash: platformOAuthClients.secretHash }, owner: userColumns })
    .from(platformOAuthClients)
    .leftJoin(users, eq(users.id, ownerId))
    .where(eq(platformOAuthClients.id, clientId));
  return row;
}

/** A user by email (case-insensitive) with the password hash the web login checks. */
export async function findUserWithPasswordHash(db: Db, email: string): Promise<{ user: UserRecord; passwordHash: string | null } | undefined> {
  const [row] = await db
    .select({ user: userColumns, passwordHash: users.passwordHash })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email})`);
  return row;
}
