import { and, asc, eq, getTableColumns, inArray, ne, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { attributeAssignments, memberships, profiles, teams, users } from '../../db/schema.js';

const { passwordHash: _hash, verifiedEmail: _verified, ...userColumns } = getTableColumns(users);
const profileColumns = { id: profiles.id, organizationId: profiles.organizationId, userId: profiles.userId, username: profiles.username };

export type OrgUserRow = Omit<typeof users.$inferSelect, 'passwordHash' | 'verifiedEmail'>;
export interface OrgUser {
  user: OrgUserRow;
  profile: { id: number; organizationId: number; userId: number; username: string };
}

export interface OrgUsersFilter {
  emails?: string[] | undefined;
  teamIds?: number[] | undefined;
  /** Attribute values held (through the organization membership): all of them, any, or none. */
  attributes?: { optionIds: string[]; operator: 'AND' | 'OR' | 'NONE' } | undefined;
  skip: number;
  take: number;
}

function selectOrgUsers(db: Db, organizationId: number, where: SQL | undefined) {
  return db
    .select({ user: userColumns, profile: profileColumns })
    .from(users)
    .innerJoin(profiles, and(eq(profiles.userId, users.id), eq(profiles.organizationId, organizationId)))
    .where(where);
}

/** Users with a profile in the organization, by id; `teamIds` keeps those with a membership in one of those teams of it. */
export async function listOrgUsers(db: Db, organizationId: number, filter: OrgUsersFilter): Promise<OrgUser[]> {
  const byEmail = filter.emails?.length ? inArray(sql`lower(${users.email})`, filter.emails.map((email) => email.toLowerCase())) : undefined;
  const byTeam = filter.teamIds?.length
    ? sql`exists (select 1 from ${memberships} join ${teams} on ${teams.id} = ${memberships.teamId}
        where ${memberships.userId} = ${users.id} and ${teams.parentId} = ${organizationId} and ${inArray(memberships.teamId, filter.teamIds)})`
    : undefined;
  const held = filter.attributes
    ? sql`(select count(distinct ${attributeAssignments.optionId}) from ${attributeAssignments} join ${memberships} on ${memberships.id} = ${attributeAssignments.membershipId}
        where ${memberships.userId} = ${users.id} and ${memberships.teamId} = ${organizationId} and ${inArray(attributeAssignments.optionId, filter.attributes.optionIds)})`
    : undefined;
  const byAttributes = !filter.attributes
    ? undefined
    : filter.attributes.operator === 'AND'
      ? sql`${held} = ${new Set(filter.attributes.optionIds).size}`
      : filter.attributes.operator === 'OR'
        ? sql`${held} > 0`
        : sql`${held} = 0`;
  return selectOrgUsers(db, organizationId, and(byEmail, byTeam, byAttributes)).orderBy(asc(users.id)).offset(filter.skip).limit(filter.take);
}

/** The user, if they have a profile in the organization (the reference's `findOrgUser`). */
export async function findOrgUser(db: Db, organizationId: number, userId: number): Promise<OrgUser | undefined> {
  const [row] = await selectOrgUsers(db, organizationId, eq(users.id, userId));
  return row;
}

/** Has the user a profile in the organization and a membership (pending or not) in the team? */
export async function isUserInOrgTeam(db: Db, organizationId: number, teamId: number, userId: number): Promise<boolean> {
  const [row] = await db
    .select({ id: memberships.id })
    .from(memberships)
    .innerJoin(profiles, and(eq(profiles.userId, memberships.userId), eq(profiles.organizationId, organizationId)))
    .where(and(eq(memberships.teamId, teamId), eq(memberships.userId, userId)));
  return row !== undefined;
}

/** Does another user have this address, as their email or verified email? */
export async function isEmailTaken(db: Db, email: string, exceptUserId: number | null): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(sql`(lower(${users.email}) = lower(${email}) or lower(${users.verifiedEmail}) = lower(${email}))`, exceptUserId === null ? undefined : ne(users.id, exceptUserId)))
    .limit(1);
  return row !== undefined;
}

/** Does another user have this username, as their own or as their profile's in the organization? */
export async function isUsernameTaken(db: Db, organizationId: number, username: string, exceptUserId: number | null): Promise<boolean> {
  const other = (column: typeof users.id | typeof profiles.userId) => (exceptUserId === null ? undefined : ne(column, exceptUserId));
  const [user] = await db.select({ id: users.id }).from(users).where(and(sql`lower(${users.username}) = lower(${username})`, other(users.id))).limit(1);
  if (user) return true;
  const [profile] = await db
    .select({ id: profiles.id })
    .from(profiles)
    .where(and(eq(profiles.organizationId, organizationId), sql`lower(${profiles.username}) = lower(${username})`, other(profiles.userId)))
    .limit(1);
  return profile !== undefined;
}

export async function setProfileUsername(db: Db, organizationId: number, userId: number, username: string): Promise<void> {
  await db.update(profiles).set({ username, updatedAt: sql`now()` }).where(and(eq(profiles.organizationId, organizationId), eq(profiles.userId, userId)));
}

/** An organization admin does not vouch for an address the way the system admin does: it stays unverified. */
/**
 * Marks a user as created by the organization, with an unverified email: an organization admin may not
 * vouch for an address (attendee rights follow verified addresses).
 */
export async function markCreatedByOrganization(db: Db, userId: number, organizationId: number): Promise<void> {
  await db.update(users).set({ verifiedEmail: null, organizationId }).where(eq(users.id, userId));
}

/** Does the user belong to a team or organization other than this organization and its teams? */
export async function belongsOutsideOrganization(db: Db, organizationId: number, userId: number): Promise<boolean> {
  const [membership] = await db
    .select({ id: memberships.id })
    .from(memberships)
    .innerJoin(teams, eq(teams.id, memberships.teamId))
    .where(and(eq(memberships.userId, userId), ne(teams.id, organizationId), or(sql`${teams.parentId} is null`, ne(teams.parentId, organizationId))))
    .limit(1);
  if (membership) return true;
  const [profile] = await db.select({ id: profiles.id }).from(profiles).where(and(eq(profiles.userId, userId), ne(profiles.organizationId, organizationId))).limit(1);
  return profile !== undefined;
}
