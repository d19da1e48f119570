import { and, asc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { memberships, platformManagedUsers, platformOAuthClients, teams, users, webhooks } from '../../db/schema.js';
import type { UserRecord } from '../users/users.repository.js';

export type OAuthClientRow = typeof platformOAuthClients.$inferSelect;
export type NewOAuthClient = Omit<typeof platformOAuthClients.$inferInsert, 'createdAt' | 'updatedAt'>;
export type OAuthClientChanges = Partial<Omit<NewOAuthClient, 'id' | 'organizationId' | 'secretHash' | 'secretSealed' | 'permissions'>>;

const { passwordHash: _omitted, ...userColumns } = getTableColumns(users);

export async function insertOAuthClient(db: Db, client: NewOAuthClient): Promise<OAuthClientRow> {
  const [row] = await db.insert(platformOAuthClients).values(client).returning();
  return row!;
}

export async function findOAuthClient(db: Db, id: string): Promise<OAuthClientRow | undefined> {
  const [row] = await db.select().from(platformOAuthClients).where(eq(platformOAuthClients.id, id));
  return row;
}

export async function lockOAuthClient(db: Db, id: string): Promise<OAuthClientRow | undefined> {
  const [row] = await db.select().from(platformOAuthClients).where(eq(platformOAuthClients.id, id)).for('update');
  return row;
}

export async function listOAuthClients(db: Db, organizationIds: number[] | null): Promise<OAuthClientRow[]> {
  const query = db.select().from(platformOAuthClients);
  const filtered = organizationIds === null ? query : query.where(inArray(platformOAuthClients.organizationId, organizationIds));
  return filtered.orderBy(asc(platformOAuthClients.createdAt), asc(platformOAuthClients.id));
}

export async function updateOAuthClient(db: Db, id: string, changes: OAuthClientChanges): Promise<OAuthClientRow> {
  const [row] = await db
    .update(platformOAuthClients)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(platformOAuthClients.id, id))
    .returning();
  return row!;
}

/** Deletes the client (its managed-user links and refresh tokens go with it) and its webhook subscriptions. */
export async function deleteOAuthClient(db: Db, id: string): Promise<void> {
  await db.delete(webhooks).where(and(eq(webhooks.ownerKind, 'oauthClient'), eq(webhooks.oauthClientId, id)));
  await db.delete(platformOAuthClients).where(eq(platformOAuthClients.id, id));
}

/** Platform organizations where the user is an accepted ADMIN or OWNER (the reference's OrganizationRolesGuard). */
export async function listAdministeredPlatformOrganizations(db: Db, userId: number): Promise<number[]> {
  const rows = await db
    .select({ id: teams.id })
    .from(memberships)
    .innerJoin(teams, eq(teams.id, memberships.teamId))
    .where(
      and(
        eq(memberships.userId, userId),
        eq(memberships.accepted, true),
        inArray(memberships.role, ['ADMIN', 'OWNER']),
        eq(teams.isOrganization, true),
        eq(teams.isPlatform, true),
      ),
    )
    .orderBy(asc(teams.id));
  return rows.map((row) => row.id);
}

export async function isPlatformOrganization(db: Db, organizationId: number): Promise<boolean> {
  const [row] = await db
    .select({ id: teams.id })
    .from(teams)
    .where(and(eq(teams.id, organizationId), eq(teams.isOrganization, true), eq(teams.isPlatform, true)));
  return row !== undefined;
}

/** The client that manages the user (null for a user no client made), and the clients of the organization. */
export async function findClientsOfUserAndOrganization(db: Db, userId: number, organizationId: number): Promise<{ userClientId: string | null; organizationClientIds: string[] }> {
  const [managed] = await db.select({ clientId: platformManagedUsers.clientId }).from(platformManagedUsers).where(eq(platformManagedUsers.userId, userId));
  const clients = await db.select({ id: platformOAuthClients.id }).from(platformOAuthClients).where(eq(platformOAuthClients.organizationId, organizationId));
  return { userClientId: managed?.clientId ?? null, organizationClientIds: clients.map((client) => client.id) };
}

// ---------------------------------------------------------------------------------------------------
// Managed users

export async function insertManagedUser(db: Db, userId: number, clientId: string): Promise<void> {
  await db.insert(platformManagedUsers).values({ userId, clientId });
}

/** A user of the client (the reference's findByIdWithinPlatformScope). */
export async function findManagedUser(db: Db, clientId: string, userId: number): Promise<UserRecord | undefined> {
  const [row] = await db
    .select(userColumns)
    .from(platformManagedUsers)
    .innerJoin(users, eq(users.id, platformManagedUsers.userId))
    .where(and(eq(platformManagedUsers.clientId, clientId), eq(platformManagedUsers.userId, userId)));
  return row;
}

/** The client's users, oldest first, optionally only those with one of `emails` (case-insensitive). */
export async function listManagedUsers(db: Db, clientId: string, page: { offset: number; limit: number; emails: string[] | null }): Promise<UserRecord[]> {
  const byEmail = page.emails === null ? undefined : inArray(sql`lower(${users.email})`, page.emails.map((email) => email.toLowerCase()));
  return db
    .select(userColumns)
    .from(platformManagedUsers)
    .innerJoin(users, eq(users.id, platformManagedUsers.userId))
    .where(and(eq(platformManagedUsers.clientId, clientId), byEmail))
    .orderBy(asc(users.id))
    .offset(page.offset)
    .limit(page.limit);
}
