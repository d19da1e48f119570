import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { calendarConnections, delegationCredentials, delegationMemberFailures, memberships, users, type WorkspacePlatformSlug } from '../../db/schema.js';

export type DelegationCredentialRow = typeof delegationCredentials.$inferSelect;

export async function insertDelegationCredential(db: Db, row: { id: string; organizationId: number; workspacePlatform: WorkspacePlatformSlug; domain: string; keySealed: string }): Promise<DelegationCredentialRow | null> {
  const [inserted] = await db.insert(delegationCredentials).values(row).onConflictDoNothing().returning();
  return inserted ?? null;
}

export async function findDelegationCredential(db: Db, organizationId: number, id: string, forUpdate = false): Promise<DelegationCredentialRow | undefined> {
  const query = db
    .select()
    .from(delegationCredentials)
    .where(and(eq(delegationCredentials.id, id), eq(delegationCredentials.organizationId, organizationId)));
  const [row] = forUpdate ? await query.for('update') : await query;
  return row;
}

export async function findDelegationCredentialById(db: Db, id: string): Promise<DelegationCredentialRow | undefined> {
  const [row] = await db.select().from(delegationCredentials).where(eq(delegationCredentials.id, id));
  return row;
}

export async function updateDelegationCredential(db: Db, id: string, changes: { enabled?: boolean; keySealed?: string }): Promise<DelegationCredentialRow> {
  const [row] = await db
    .update(delegationCredentials)
    .set({ ...changes, updatedAt: new Date() })
    .where(eq(delegationCredentials.id, id))
    .returning();
  return row!;
}

/** Lower-cased address domain of a user, in SQL. */
const domainOf = sql`lower(split_part(${users.email}, '@', 2))`;

/** Whether a member's last failure still holds them back at `now` (SQL, for user id `userId` of credential `credentialId`). */
const waitingAfterFailure = (credentialId: SQL | string, userId: SQL, now: Date) =>
  sql`exists (select 1 from ${delegationMemberFailures} f where f.credential_id = ${credentialId} and f.user_id = ${userId} and f.retry_at > ${now.toISOString()}::timestamptz)`;

/**
 * Accepted members of the credential's organization whose address is in its domain and who have no
 * connection of it yet (nor a failure waiting for its retry), oldest membership first.
 */
export async function membersWithoutConnection(db: Db, credential: DelegationCredentialRow, now: Date, limit: number): Promise<{ userId: number; email: string }[]> {
  return db
    .select({ userId: users.id, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.teamId, credential.organizationId),
        eq(memberships.accepted, true),
        sql`${domainOf} = ${credential.domain}`,
        sql`not exists (select 1 from ${calendarConnections} c where c.delegation_credential_id = ${credential.id} and c.user_id = ${users.id})`,
        sql`not ${waitingAfterFailure(credential.id, sql`${users.id}`, now)}`,
      ),
    )
    .orderBy(asc(memberships.id))
    .limit(limit);
}

/** The credential's connections flagged invalid (the workspace refused the key for them) whose retry is due. */
export async function invalidConnectionsDue(db: Db, credential: DelegationCredentialRow, now: Date, limit: number): Promise<{ id: number; userId: number; credentialsSealed: string }[]> {
  return db
    .select({ id: calendarConnections.id, userId: calendarConnections.userId, credentialsSealed: calendarConnections.credentialsSealed })
    .from(calendarConnections)
    .where(
      and(
        eq(calendarConnections.delegationCredentialId, credential.id),
        eq(calendarConnections.invalid, true),
        sql`not ${waitingAfterFailure(credential.id, sql`${calendarConnections.userId}`, now)}`,
      ),
    )
    .orderBy(asc(calendarConnections.id))
    .limit(limit);
}

/** Records a member's failure and when to try again; true when it starts a run of failures (the organization is told then). */
export async function recordMemberFailure(db: Db, credentialId: string, userId: number, failure: string, now: Date, retryAt: Date): Promise<boolean> {
  const [existing] = await db
    .select({ userId: delegationMemberFailures.userId })
    .from(delegationMemberFailures)
    .where(and(eq(delegationMemberFailures.credentialId, credentialId), eq(delegationMemberFailures.userId, userId)))
    .for('update');
  if (existing) {
    await db
      .update(delegationMemberFailures)
      .set({ failure, retryAt })
      .where(and(eq(delegationMemberFailures.credentialId, credentialId), eq(delegationMemberFailures.userId, userId)));
    return false;
  }
  const inserted = await db.insert(delegationMemberFailures).values({ credentialId, userId, failingSince: now, failure, retryAt }).onConflictDoNothing().returning({ userId: delegationMemberFailures.userId });
  return inserted.length > 0;
}

export async function clearMemberFailure(db: Db, credentialId: string, userId: number): Promise<void> {
  await db.delete(delegationMemberFailures).where(and(eq(delegationMemberFailures.credentialId, credentialId), eq(delegationMemberFailures.userId, userId)));
}

export async function clearFailuresOf(db: Db, credentialId: string): Promise<void> {
  await db.delete(delegationMemberFailures).where(eq(delegationMemberFailures.credentialId, credentialId));
}

export async function clearInvalid(db: Db, connectionId: number, credentialsSealed: string): Promise<void> {
  await db.update(calendarConnections).set({ credentialsSealed, invalid: false, ownerToldAt: null, updatedAt: new Date() }).where(eq(calendarConnections.id, connectionId));
}

/** A member of the domain to try the key for: `preferred` when they are one, else the first. */
export async function memberToTry(db: Db, credential: Pick<DelegationCredentialRow, 'organizationId' | 'domain'>, preferred: number): Promise<{ userId: number; email: string } | undefined> {
  const [row] = await db
    .select({ userId: users.id, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.teamId, credential.organizationId), eq(memberships.accepted, true), sql`${domainOf} = ${credential.domain}`))
    .orderBy(sql`${users.id} = ${preferred} desc`, asc(memberships.id))
    .limit(1);
  return row;
}

/** Connections of the credential whose user is no longer an accepted member in its domain (left, or changed address). */
export async function staleConnections(db: Db, credential: DelegationCredentialRow): Promise<{ id: number; userId: number }[]> {
  return db
    .select({ id: calendarConnections.id, userId: calendarConnections.userId })
    .from(calendarConnections)
    .innerJoin(users, eq(users.id, calendarConnections.userId))
    .where(
      and(
        eq(calendarConnections.delegationCredentialId, credential.id),
        sql`not (${domainOf} = ${credential.domain} and exists (select 1 from ${memberships} m where m.team_id = ${credential.organizationId} and m.user_id = ${users.id} and m.accepted))`,
      ),
    );
}

export async function connectionsOfCredential(db: Db, credentialId: string): Promise<{ id: number; userId: number; credentialsSealed: string }[]> {
  return db
    .select({ id: calendarConnections.id, userId: calendarConnections.userId, credentialsSealed: calendarConnections.credentialsSealed })
    .from(calendarConnections)
    .where(eq(calendarConnections.delegationCredentialId, credentialId));
}

/** Enabled credentials with a member to connect, a connection to drop, or a refused one to try again: the sweep hands each a provisioning job. */
export async function credentialsNeedingWork(db: Db, now: Date): Promise<string[]> {
  const waiting = (userId: SQL) => waitingAfterFailure(sql`${delegationCredentials.id}`, userId, now);
  const rows = await db
    .select({ id: delegationCredentials.id })
    .from(delegationCredentials)
    .where(
      and(
        eq(delegationCredentials.enabled, true),
        sql`(exists (select 1 from ${memberships} m join ${users} u on u.id = m.user_id
              where m.team_id = ${delegationCredentials.organizationId} and m.accepted and lower(split_part(u.email, '@', 2)) = ${delegationCredentials.domain}
                and not exists (select 1 from ${calendarConnections} c where c.delegation_credential_id = ${delegationCredentials.id} and c.user_id = u.id)
                and not ${waiting(sql`u.id`)})
            or exists (select 1 from ${calendarConnections} c where c.delegation_credential_id = ${delegationCredentials.id} and c.invalid and not ${waiting(sql`c.user_id`)})
            or exists (select 1 from ${calendarConnections} c join ${users} u on u.id = c.user_id
              where c.delegation_credential_id = ${delegationCredentials.id}
                and not (lower(split_part(u.email, '@', 2)) = ${delegationCredentials.domain}
                  and exists (select 1 from ${memberships} m where m.team_id = ${delegationCredentials.organizationId} and m.user_id = u.id and m.accepted))))`,
      ),
    );
  return rows.map((row) => row.id);
}

export async function deleteConnectionsOfCredential(db: Db, credentialId: string): Promise<number[]> {
  const rows = await db.delete(calendarConnections).where(eq(calendarConnections.delegationCredentialId, credentialId)).returning({ userId: calendarConnections.userId });
  return [...new Set(rows.map((row) => row.userId))];
}

export async function resealConnection(db: Db, id: number, credentialsSealed: string): Promise<void> {
  await db.update(calendarConnections).set({ credentialsSealed, invalid: false, ownerToldAt: null, updatedAt: new Date() }).where(eq(calendarConnections.id, id));
}

export async function deleteConnectionsById(db: Db, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) await db.delete(calendarConnections).where(inArray(calendarConnections.id, [...ids]));
}
