import { and, asc, eq, inArray, ne, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { memberships, profiles, schedules, users } from '../../db/schema.js';

export type ScheduleRow = typeof schedules.$inferSelect;
export type NewSchedule = Pick<ScheduleRow, 'userId' | 'name' | 'timeZone' | 'availability' | 'overrides'> & { teamId?: number };
export type ScheduleChanges = Partial<Pick<ScheduleRow, 'name' | 'timeZone' | 'availability' | 'overrides'>>;

export async function insertSchedule(db: Db, schedule: NewSchedule): Promise<ScheduleRow> {
  const [row] = await db.insert(schedules).values(schedule).returning();
  return row!;
}

export async function findScheduleById(db: Db, id: number): Promise<ScheduleRow | undefined> {
  const [row] = await db.select().from(schedules).where(eq(schedules.id, id));
  return row;
}

export async function listSchedulesOfUser(db: Db, userId: number): Promise<ScheduleRow[]> {
  return db.select().from(schedules).where(eq(schedules.userId, userId)).orderBy(asc(schedules.id));
}

export async function updateSchedule(db: Db, id: number, changes: ScheduleChanges): Promise<ScheduleRow> {
  const [row] = await db.update(schedules).set({ ...changes, updatedAt: sql`now()` }).where(eq(schedules.id, id)).returning();
  return row!;
}

export async function deleteSchedule(db: Db, id: number): Promise<void> {
  await db.delete(schedules).where(eq(schedules.id, id));
}

/** The user's oldest schedule other than `exceptId`: the next default when the default goes away. */
export async function findOldestOtherSchedule(db: Db, userId: number, exceptId: number): Promise<number | undefined> {
  const [row] = await db
    .select({ id: schedules.id })
    .from(schedules)
    .where(and(eq(schedules.userId, userId), ne(schedules.id, exceptId)))
    .orderBy(asc(schedules.id))
    .limit(1);
  return row?.id;
}

/** Locks the user's row: schedule writes that move the default serialize per user. */
export async function lockUserDefaultSchedule(db: Db, userId: number): Promise<number | null> {
  const [row] = await db.select({ id: users.defaultScheduleId }).from(users).where(eq(users.id, userId)).for('update');
  return row?.id ?? null;
}

export async function setUserDefaultSchedule(db: Db, userId: number, scheduleId: number | null): Promise<void> {
  await db.update(users).set({ defaultScheduleId: scheduleId, updatedAt: sql`now()` }).where(eq(users.id, userId));
}

/** Schedules of the users picked by `owners` (a subquery of user ids), oldest first, each with whether it is its owner's default. */
async function listSchedulesOfUsersIn(db: Db, owners: SQL, page: { skip: number; take: number }): Promise<{ schedule: ScheduleRow; isDefault: boolean }[]> {
  const rows = await db
    .select({ schedule: schedules, defaultScheduleId: users.defaultScheduleId })
    .from(schedules)
    .innerJoin(users, eq(users.id, schedules.userId))
    .where(inArray(schedules.userId, owners))
    .orderBy(asc(schedules.id))
    .offset(page.skip)
    .limit(page.take);
  return rows.map((row) => ({ schedule: row.schedule, isDefault: row.defaultScheduleId === row.schedule.id }));
}

/** Schedules of the users with a profile in the organization. */
export function listSchedulesOfOrganizationUsers(db: Db, organizationId: number, page: { skip: number; take: number }) {
  return listSchedulesOfUsersIn(db, sql`(select ${profiles.userId} from ${profiles} where ${profiles.organizationId} = ${organizationId})`, page);
}

/**
 * Schedules of the team's accepted members, not the team's own schedule. Unlike the reference, a pending
 * member's are not listed: nobody shows a team their schedules before agreeing to join it.
 */
export function listSchedulesOfTeamMembers(db: Db, teamId: number, page: { skip: number; take: number }) {
  return listSchedulesOfUsersIn(db, sql`(select ${memberships.userId} from ${memberships} where ${memberships.teamId} = ${teamId} and ${memberships.accepted})`, page);
}
