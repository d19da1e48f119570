import { and, asc, desc, eq, inArray, isNotNull, ne, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { eventTypeHosts, eventTypes, memberships, schedules, teams, users } from '../../db/schema.js';
import type { EventTypeRow, EventTypeState } from './event-types.repository.js';

export type TeamRow = typeof teams.$inferSelect;
export type HostRow = typeof eventTypeHosts.$inferSelect;

/** A host as outputs show it: the host row with its user's public fields. */
export interface HostView {
  eventTypeId: number;
  userId: number;
  mandatory: boolean;
  priority: number;
  weight: number;
  name: string | null;
  username: string | null;
  avatarUrl: string | null;
}

export interface NewHost {
  userId: number;
  mandatory: boolean;
  priority: number;
  weight: number;
}

export async function insertEventTypeOf(db: Db, userId: number | null, state: EventTypeState): Promise<EventTypeRow> {
  const [row] = await db.insert(eventTypes).values({ ...state, userId }).returning();
  return row!;
}

export async function findTeamEventType(db: Db, teamId: number, id: number): Promise<EventTypeRow | undefined> {
  const [row] = await db.select().from(eventTypes).where(and(eq(eventTypes.id, id), eq(eventTypes.teamId, teamId)));
  return row;
}

export async function lockTeamEventType(db: Db, teamId: number, id: number): Promise<EventTypeRow | undefined> {
  const [row] = await db.select().from(eventTypes).where(and(eq(eventTypes.id, id), eq(eventTypes.teamId, teamId))).for('update');
  return row;
}

export interface TeamEventTypeFilter {
  slug?: string | undefined;
  order: 'asc' | 'desc';
  page?: { skip: number; take: number } | undefined;
}

/** The event types of the given teams (children of managed types have no team and are not listed). */
export async function listEventTypesOfTeams(db: Db, teamIds: number[], filter: TeamEventTypeFilter): Promise<EventTypeRow[]> {
  if (teamIds.length === 0) return [];
  const conditions = [inArray(eventTypes.teamId, teamIds)];
  if (filter.slug !== undefined) conditions.push(sql`lower(${eventTypes.slug}) = lower(${filter.slug})`);
  const query = db
    .select()
    .from(eventTypes)
    .where(and(...conditions))
    .orderBy(filter.order === 'desc' ? desc(eventTypes.id) : asc(eventTypes.id));
  return filter.page ? query.offset(filter.page.skip).limit(filter.page.take) : query;
}

export async function isTeamSlugTaken(db: Db, teamId: number, slug: string, exceptId?: number): Promise<boolean> {
  const conditions = [eq(eventTypes.teamId, teamId), sql`lower(${eventTypes.slug}) = lower(${slug})`];
  if (exceptId !== undefined) conditions.push(ne(eventTypes.id, exceptId));
  const [row] = await db.select({ id: eventTypes.id }).from(eventTypes).where(and(...conditions)).limit(1);
  return row !== undefined;
}

/** Users among `userIds` who already have an event type of their own with this slug (not `exceptParentId`'s child). */
export async function usersWithSlug(db: Db, userIds: number[], slug: string, exceptParentId?: number): Promise<number[]> {
  if (userIds.length === 0) return [];
  const conditions = [inArray(eventTypes.userId, userIds), sql`lower(${eventTypes.slug}) = lower(${slug})`];
  if (exceptParentId !== undefined) conditions.push(sql`${eventTypes.parentId} is distinct from ${exceptParentId}`);
  const rows = await db.selectDistinct({ userId: eventTypes.userId }).from(eventTypes).where(and(...conditions));
  return rows.map((row) => row.userId!);
}

export async function findTeam(db: Db, teamId: number): Promise<TeamRow | undefined> {
  const [row] = await db.select().from(teams).where(eq(teams.id, teamId));
  return row;
}

export async function findTeams(db: Db, teamIds: number[]): Promise<TeamRow[]> {
  if (teamIds.length === 0) return [];
  return db.select().from(teams).where(inArray(teams.id, teamIds));
}

export async function teamIdsOfOrganization(db: Db, organizationId: number): Promise<number[]> {
  const rows = await db.select({ id: teams.id }).from(teams).where(eq(teams.parentId, organizationId));
  return rows.map((row) => row.id);
}

/** Users with an accepted membership of the team, in membership order. */
export async function acceptedMemberIds(db: Db, teamId: number): Promise<number[]> {
  const rows = await db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.teamId, teamId), eq(memberships.accepted, true)))
    .orderBy(asc(memberships.id));
  return rows.map((row) => row.userId);
}

/** The memberships of the team held by any of `userIds`, accepted or not. */
export async function membershipsOfUsers(db: Db, teamId: number, userIds: number[]): Promise<{ id: number; userId: number; accepted: boolean }[]> {
  if (userIds.length === 0) return [];
  return db
    .select({ id: memberships.id, userId: memberships.userId, accepted: memberships.accepted })
    .from(memberships)
    .where(and(eq(memberships.teamId, teamId), inArray(memberships.userId, userIds)));
}

export async function isAcceptedMember(db: Db, teamId: number, userId: number): Promise<boolean> {
  const [row] = await db
    .select({ id: memberships.id })
    .from(memberships)
    .where(and(eq(memberships.teamId, teamId), eq(memberships.userId, userId), eq(memberships.accepted, true)));
  return row !== undefined;
}

/** Whether the schedule belongs to the team itself or to one of the given users. */
export async function isScheduleOfTeamOrUsers(db: Db, scheduleId: number, teamId: number, userIds: number[]): Promise<boolean> {
  const [row] = await db.select({ userId: schedules.userId, teamId: schedules.teamId }).from(schedules).where(eq(schedules.id, scheduleId));
  if (!row) return false;
  return row.teamId === teamId || (row.userId !== null && userIds.includes(row.userId));
}

export async function scheduleExists(db: Db, scheduleId: number): Promise<boolean> {
  const [row] = await db.select({ id: schedules.id }).from(schedules).where(eq(schedules.id, scheduleId));
  return row !== undefined;
}

const hostUserColumns = {
  eventTypeId: eventTypeHosts.eventTypeId,
  userId: eventTypeHosts.userId,
  mandatory: eventTypeHosts.mandatory,
  priority: eventTypeHosts.priority,
  weight: eventTypeHosts.weight,
  name: users.name,
  username: users.username,
  avatarUrl: users.avatarUrl,
};

/** The hosts of the event types, by user id. */
export async function listHosts(db: Db, eventTypeIds: number[]): Promise<HostView[]> {
  if (eventTypeIds.length === 0) return [];
  return db
    .select(hostUserColumns)
    .from(eventTypeHosts)
    .innerJoin(users, eq(users.id, eventTypeHosts.userId))
    .where(inArray(eventTypeHosts.eventTypeId, eventTypeIds))
    .orderBy(asc(eventTypeHosts.userId));
}

export async function listHostRows(db: Db, eventTypeId: number): Promise<HostRow[]> {
  return db.select().from(eventTypeHosts).where(eq(eventTypeHosts.eventTypeId, eventTypeId)).orderBy(asc(eventTypeHosts.userId));
}

/** Sets the hosts to exactly `hosts`: rows of users no longer listed go, listed ones are inserted or updated. */
export async function replaceHosts(db: Db, eventTypeId: number, hosts: NewHost[]): Promise<void> {
  const keep = hosts.map((host) => host.userId);
  await db
    .delete(eventTypeHosts)
    .where(and(eq(eventTypeHosts.eventTypeId, eventTypeId), keep.length > 0 ? notInArray(eventTypeHosts.userId, keep) : undefined));
  for (const host of hosts) {
    await db
      .insert(eventTypeHosts)
      .values({ eventTypeId, ...host })
      .onConflictDoUpdate({ target: [eventTypeHosts.eventTypeId, eventTypeHosts.userId], set: { mandatory: host.mandatory, priority: host.priority, weight: host.weight } });
  }
}

export async function insertHostIfMissing(db: Db, eventTypeId: number, host: NewHost): Promise<void> {
  await db.insert(eventTypeHosts).values({ eventTypeId, ...host }).onConflictDoNothing();
}

/** Removes the user from the hosts of every event type of the team. */
export async function deleteHostOfTeam(db: Db, teamId: number, userId: number): Promise<void> {
  await db
    .delete(eventTypeHosts)
    .where(and(eq(eventTypeHosts.userId, userId), sql`${eventTypeHosts.eventTypeId} in (select ${eventTypes.id} from ${eventTypes} where ${eventTypes.teamId} = ${teamId})`));
}

/** The children of managed event types, with their owners' public fields, in creation order. */
export async function listChildren(db: Db, parentIds: number[]) {
  if (parentIds.length === 0) return [];
  return db
    .select({ child: eventTypes, name: users.name, username: users.username, avatarUrl: users.avatarUrl })
    .from(eventTypes)
    .innerJoin(users, eq(users.id, eventTypes.userId))
    .where(and(inArray(eventTypes.parentId, parentIds), isNotNull(eventTypes.userId)))
    .orderBy(asc(eventTypes.id));
}

export async function deleteChildren(db: Db, parentId: number, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.delete(eventTypes).where(and(eq(eventTypes.parentId, parentId), inArray(eventTypes.userId, userIds)));
}

/** Removes the user's children of the team's managed event types. */
export async function deleteChildrenOfTeam(db: Db, teamId: number, userId: number): Promise<void> {
  await db
    .delete(eventTypes)
    .where(and(eq(eventTypes.userId, userId), sql`${eventTypes.parentId} in (select ${eventTypes.id} from ${eventTypes} where ${eventTypes.teamId} = ${teamId})`));
}

/** Writes the parent's locked fields into every child. */
export async function updateChildren(db: Db, parentId: number, locked: Partial<EventTypeState>): Promise<void> {
  await db.update(eventTypes).set({ ...locked, updatedAt: sql`now()` }).where(eq(eventTypes.parentId, parentId));
}

/** The team's event types that follow its membership (`assign_all_team_members`). */
export async function listAssignAllEventTypes(db: Db, teamId: number): Promise<EventTypeRow[]> {
  return db
    .select()
    .from(eventTypes)
    .where(and(eq(eventTypes.teamId, teamId), eq(eventTypes.assignAllTeamMembers, true)))
    .orderBy(asc(eventTypes.id));
}

export async function hasChild(db: Db, parentId: number, userId: number): Promise<boolean> {
  const [row] = await db.select({ id: eventTypes.id }).from(eventTypes).where(and(eq(eventTypes.parentId, parentId), eq(eventTypes.userId, userId)));
  return row !== undefined;
}

export async function deleteEventType(db: Db, id: number): Promise<void> {
  await db.delete(eventTypes).where(eq(eventTypes.id, id));
}
