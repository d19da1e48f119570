import { and, asc, count, eq, getTableColumns, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { memberships, teamInviteTokens, teams, users, webhooks } from '../../db/schema.js';
import type { MembershipRole } from '../../db/schema.js';

export type TeamRow = typeof teams.$inferSelect;
export type NewTeam = Omit<typeof teams.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>;
export type TeamChanges = Partial<Omit<NewTeam, 'parentId' | 'isOrganization' | 'isPlatform' | 'managerOrganizationId'>>;
export type MembershipRow = typeof memberships.$inferSelect;

const memberUserColumns = {
  avatarUrl: users.avatarUrl,
  username: users.username,
  name: users.name,
  email: users.email,
  bio: users.bio,
  metadata: users.metadata,
};

export interface MembershipWithUser extends MembershipRow {
  user: { avatarUrl: string | null; username: string | null; name: string | null; email: string; bio: string | null; metadata: Record<string, string | number | boolean> };
  /** May the team see who the member is? Once they accepted, or when they are an accepted member of its organization. */
  userVisible: boolean;
}

export async function insertTeam(db: Db, team: NewTeam): Promise<TeamRow> {
  const [row] = await db.insert(teams).values(team).returning();
  return row!;
}

export async function findTeamById(db: Db, id: number): Promise<TeamRow | undefined> {
  const [row] = await db.select().from(teams).where(eq(teams.id, id));
  return row;
}

/** Locks a team's row: membership changes that could leave it without an owner serialize on it. */
export async function lockTeam(db: Db, id: number): Promise<TeamRow | undefined> {
  const [row] = await db.select().from(teams).where(eq(teams.id, id)).for('update');
  return row;
}

/**
 * Locks a team's organization (if it has one), then the team: changes to who holds what in a team
 * serialize with those in its organization, and every writer takes the parent first, so none waits on another.
 */
export async function lockTeamAndParent(db: Db, id: number): Promise<TeamRow | undefined> {
  const [row] = await db.select({ parentId: teams.parentId }).from(teams).where(eq(teams.id, id));
  if (row?.parentId) await lockTeam(db, row.parentId);
  return lockTeam(db, id);
}

export async function isSlugTaken(db: Db, parentId: number | null, slug: string, exceptId?: number): Promise<boolean> {
  const [row] = await db
    .select({ id: teams.id })
    .from(teams)
    .where(and(parentId === null ? isNull(teams.parentId) : eq(teams.parentId, parentId), sql`lower(${teams.slug}) = lower(${slug})`, exceptId ? sql`${teams.id} <> ${exceptId}` : undefined));
  return row !== undefined;
}

/** Does any team or organization, anywhere, have this slug (any case)? */
export async function isSlugTakenByAnyTeam(db: Db, slug: string): Promise<boolean> {
  const [row] = await db.select({ id: teams.id }).from(teams).where(sql`lower(${teams.slug}) = lower(${slug})`).limit(1);
  return row !== undefined;
}

export async function updateTeam(db: Db, id: number, changes: TeamChanges): Promise<TeamRow> {
  const [row] = await db.update(teams).set({ ...changes, updatedAt: sql`now()` }).where(eq(teams.id, id)).returning();
  return row!;
}

/**
 * Deletes a team or organization with everything it owns: its teams (for an organization), memberships,
 * profiles, roles and schedules go by foreign key; webhook subscriptions name their owner without one.
 */
export async function deleteTeam(db: Db, id: number): Promise<TeamRow | undefined> {
  // Everything below it, however deep: its teams, its managed organizations and theirs.
  const owned = sql`(with recursive owned(id) as (select ${id}::int union select t.id from teams t join owned o on t.parent_id = o.id or t.manager_organization_id = o.id) select id from owned)`;
  await db.delete(webhooks).where(or(sql`${webhooks.teamId} in ${owned}`, sql`${webhooks.organizationId} in ${owned}`));
  const [row] = await db.delete(teams).where(eq(teams.id, id)).returning();
  return row;
}

/** Every team (and organization) the user has a membership of, accepted or not, as the reference lists them. */
export async function listTeamsOfUser(db: Db, userId: number): Promise<TeamRow[]> {
  return db
    .select(getTableColumns(teams))
    .from(teams)
    .innerJoin(memberships, eq(memberships.teamId, teams.id))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(teams.id));
}

export async function listTeamsOfParent(db: Db, parentId: number, page: { skip: number; take: number }): Promise<TeamRow[]> {
  return db.select().from(teams).where(eq(teams.parentId, parentId)).orderBy(asc(teams.id)).offset(page.skip).limit(page.take);
}

export async function insertMembership(
  db: Db,
  membership: { teamId: number; userId: number; role: MembershipRole; accepted: boolean; disableImpersonation: boolean },
): Promise<MembershipRow> {
  const [row] = await db.insert(memberships).values(membership).returning();
  return row!;
}

/** The user consented to the team: they accepted, or they are an accepted member of its organization. */
const consentedToTeam = sql<boolean>`(${memberships.accepted} or exists (select 1 from memberships pm join teams t on t.parent_id = pm.team_id
  where t.id = ${memberships.teamId} and pm.user_id = ${memberships.userId} and pm.accepted))`;

function membershipsWithUser(db: Db) {
  return db
    .select({ ...getTableColumns(memberships), user: memberUserColumns, userVisible: consentedToTeam })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId));
}

export async function findMembership(db: Db, teamId: number, membershipId: number): Promise<MembershipWithUser | undefined> {
  const [row] = await membershipsWithUser(db).where(and(eq(memberships.id, membershipId), eq(memberships.teamId, teamId)));
  return row;
}

export async function findMembershipOfUser(db: Db, teamId: number, userId: number): Promise<MembershipRow | undefined> {
  const [row] = await db.select().from(memberships).where(and(eq(memberships.teamId, teamId), eq(memberships.userId, userId)));
  return row;
}

/**
 * A page of the team's memberships; with `emails`, only members with one of them (any case) whom the team may
 * see (consentedToTeam): filtering on a pending invitee's address would tell who they are.
 */
export async function listMemberships(db: Db, teamId: number, page: { skip: number; take: number; emails?: string[] | undefined }): Promise<MembershipWithUser[]> {
  const byEmail = page.emails?.length ? and(inArray(sql`lower(${users.email})`, page.emails.map((email) => email.toLowerCase())), consentedToTeam) : undefined;
  return membershipsWithUser(db).where(and(eq(memberships.teamId, teamId), byEmail)).orderBy(asc(memberships.id)).offset(page.skip).limit(page.take);
}

export async function updateMembership(
  db: Db,
  id: number,
  changes: Partial<Pick<MembershipRow, 'role' | 'accepted' | 'disableImpersonation' | 'customRoleId'>>,
): Promise<void> {
  await db.update(memberships).set({ ...changes, updatedAt: sql`now()` }).where(eq(memberships.id, id));
}

export async function deleteMembership(db: Db, id: number): Promise<void> {
  await db.delete(memberships).where(eq(memberships.id, id));
}

export async function countOwners(db: Db, teamId: number): Promise<number> {
  const [row] = await db.select({ owners: count() }).from(memberships).where(and(eq(memberships.teamId, teamId), eq(memberships.role, 'OWNER')));
  return row?.owners ?? 0;
}

export async function userExists(db: Db, userId: number): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId));
  return row !== undefined;
}

export async function setPlatform(db: Db, id: number, isPlatform: boolean): Promise<TeamRow> {
  const [row] = await db.update(teams).set({ isPlatform, updatedAt: sql`now()` }).where(eq(teams.id, id)).returning();
  return row!;
}

export async function insertInviteToken(db: Db, invite: { teamId: number; inviteeUserId?: number | null; hashedToken: string; expiresAt: Date }): Promise<void> {
  await db.insert(teamInviteTokens).values(invite);
}

export type InviteRow = typeof teamInviteTokens.$inferSelect;

/** The invitation of a token that has not expired, with its team. */
export async function findLiveInvite(db: Db, hashedToken: string, now: Date): Promise<{ invite: InviteRow; team: TeamRow } | undefined> {
  const [row] = await db
    .select({ invite: teamInviteTokens, team: teams })
    .from(teamInviteTokens)
    .innerJoin(teams, eq(teams.id, teamInviteTokens.teamId))
    .where(and(eq(teamInviteTokens.hashedToken, hashedToken), sql`${teamInviteTokens.expiresAt} > ${now}`));
  return row;
}

/** Was the user mailed an invitation to the team since `since`? */
export async function invitedSince(db: Db, teamId: number, userId: number, since: Date): Promise<boolean> {
  const [row] = await db
    .select({ id: teamInviteTokens.id })
    .from(teamInviteTokens)
    .where(and(eq(teamInviteTokens.teamId, teamId), eq(teamInviteTokens.inviteeUserId, userId), sql`${teamInviteTokens.createdAt} > ${since}`))
    .limit(1);
  return row !== undefined;
}

/** A used or withdrawn personal invitation stops working. */
export async function deleteInvitesOf(db: Db, teamId: number, userId: number): Promise<void> {
  await db.delete(teamInviteTokens).where(and(eq(teamInviteTokens.teamId, teamId), eq(teamInviteTokens.inviteeUserId, userId)));
}

/**
 * Does joining the team need no word from the user? When they are an accepted member of its organization
 * (the reference adds an organization's members to its teams), or the organization made their account
 * (its users and its platform clients' managed users).
 */
export async function consentImplied(db: Db, teamId: number, userId: number): Promise<boolean> {
  const result = await db.execute(sql`select exists (
      select 1 from teams t where t.id = ${teamId} and (
        exists (select 1 from memberships pm where pm.team_id = t.parent_id and pm.user_id = ${userId} and pm.accepted)
        or exists (select 1 from users u where u.id = ${userId} and u.organization_id in (t.id, t.parent_id)))
    ) as implied`);
  return Boolean((result as unknown as { rows: { implied: boolean }[] }).rows[0]?.implied);
}

/** Who an invitation goes to, and the name it is sent in. */
export async function findInvitationParties(db: Db, inviteeId: number, inviterId: number) {
  const rows = await db
    .select({ id: users.id, email: users.email, name: users.name, username: users.username, timeZone: users.timeZone, locale: users.locale })
    .from(users)
    .where(inArray(users.id, [inviteeId, inviterId]));
  return { invitee: rows.find((row) => row.id === inviteeId), inviter: rows.find((row) => row.id === inviterId) };
}

/** The teams of an organization with the user's membership in each, if any. */
export async function listTeamsOfParentWithRole(db: Db, parentId: number, userId: number, onlyMine: boolean) {
  return db
    .select({ team: teams, role: memberships.role, accepted: memberships.accepted })
    .from(teams)
    .leftJoin(memberships, and(eq(memberships.teamId, teams.id), eq(memberships.userId, userId)))
    .where(and(eq(teams.parentId, parentId), onlyMine ? sql`${memberships.id} is not null` : undefined))
    .orderBy(asc(teams.id));
}

/** Removes the user from every team of the organization (when they leave it). */
export async function deleteMembershipsInChildTeams(db: Db, parentId: number, userId: number): Promise<void> {
  await db.delete(memberships).where(and(eq(memberships.userId, userId), sql`${memberships.teamId} in (select ${teams.id} from ${teams} where ${teams.parentId} = ${parentId})`));
}
