import { and, asc, desc, eq, gt, inArray, lt, ne, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { memberships, type OutOfOfficeReason, outOfOfficeEntries, profiles, users } from '../../db/schema.js';

export type OooRow = typeof outOfOfficeEntries.$inferSelect;
export interface OooFields {
  startAt: Date;
  endAt: Date;
  notes: string | null;
  reason: OutOfOfficeReason;
  toUserId: number | null;
}
export interface OooSort {
  sortStart?: 'asc' | 'desc' | undefined;
  sortEnd?: 'asc' | 'desc' | undefined;
}
export interface Page {
  skip: number;
  take: number;
}

/** Locks the user's row: entries of one user are checked against each other and written one request at a time. */
export async function lockUser(db: Db, userId: number): Promise<void> {
  await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
}

export async function insertEntry(db: Db, entry: OooFields & { uuid: string; userId: number }): Promise<OooRow> {
  const [row] = await db.insert(outOfOfficeEntries).values(entry).returning();
  return row!;
}

export async function updateEntry(db: Db, id: number, changes: Partial<OooFields>): Promise<OooRow> {
  const [row] = await db.update(outOfOfficeEntries).set({ ...changes, updatedAt: sql`now()` }).where(eq(outOfOfficeEntries.id, id)).returning();
  return row!;
}

export async function deleteEntry(db: Db, id: number): Promise<void> {
  await db.delete(outOfOfficeEntries).where(eq(outOfOfficeEntries.id, id));
}

export async function findEntry(db: Db, id: number): Promise<OooRow | undefined> {
  const [row] = await db.select().from(outOfOfficeEntries).where(eq(outOfOfficeEntries.id, id));
  return row;
}

/** Another entry of the user overlapping [startAt, endAt). */
export async function findOverlapping(db: Db, userId: number, startAt: Date, endAt: Date, exceptId: number | null): Promise<OooRow | undefined> {
  const [row] = await db
    .select()
    .from(outOfOfficeEntries)
    .where(
      and(
        eq(outOfOfficeEntries.userId, userId),
        gt(outOfOfficeEntries.endAt, startAt),
        lt(outOfOfficeEntries.startAt, endAt),
        exceptId === null ? undefined : ne(outOfOfficeEntries.id, exceptId),
      ),
    )
    .limit(1);
  return row;
}

/** An entry of `toUserId` overlapping [startAt, endAt) that sends its bookers to `userId`: covering each other would loop. */
export async function findRedirectBack(db: Db, userId: number, toUserId: number, startAt: Date, endAt: Date): Promise<boolean> {
  const [row] = await db
    .select({ id: outOfOfficeEntries.id })
    .from(outOfOfficeEntries)
    .where(and(eq(outOfOfficeEntries.userId, toUserId), eq(outOfOfficeEntries.toUserId, userId), gt(outOfOfficeEntries.endAt, startAt), lt(outOfOfficeEntries.startAt, endAt)))
    .limit(1);
  return row !== undefined;
}

/** Whether the two users hold accepted memberships of one team or organization. */
export async function shareAcceptedMembership(db: Db, userId: number, otherUserId: number): Promise<boolean> {
  const result = await db.execute(sql`
    select 1 from ${memberships} mine join ${memberships} theirs on theirs.team_id = mine.team_id
    where mine.user_id = ${userId} and mine.accepted and theirs.user_id = ${otherUserId} and theirs.accepted limit 1`);
  return (result as unknown as { rows: unknown[] }).rows.length > 0;
}

function ordering(sort: OooSort): SQL[] {
  const order: SQL[] = [];
  if (sort.sortStart) order.push(sort.sortStart === 'asc' ? asc(outOfOfficeEntries.startAt) : desc(outOfOfficeEntries.startAt));
  if (sort.sortEnd) order.push(sort.sortEnd === 'asc' ? asc(outOfOfficeEntries.endAt) : desc(outOfOfficeEntries.endAt));
  order.push(asc(outOfOfficeEntries.id));
  return order;
}

export async function listEntriesOfUser(db: Db, userId: number, page: Page, sort: OooSort): Promise<OooRow[]> {
  return db
    .select()
    .from(outOfOfficeEntries)
    .where(eq(outOfOfficeEntries.userId, userId))
    .orderBy(...ordering(sort))
    .offset(page.skip)
    .limit(page.take);
}

/** Entries of the organization's users (a profile there), optionally of the one with `email`. */
export async function listEntriesOfOrganization(db: Db, organizationId: number, email: string | undefined, page: Page, sort: OooSort): Promise<OooRow[]> {
  const rows = await db
    .select({ entry: outOfOfficeEntries })
    .from(outOfOfficeEntries)
    .innerJoin(profiles, and(eq(profiles.userId, outOfOfficeEntries.userId), eq(profiles.organizationId, organizationId)))
    .innerJoin(users, eq(users.id, outOfOfficeEntries.userId))
    .where(email === undefined ? undefined : eq(sql`lower(${users.email})`, email.toLowerCase()))
    .orderBy(...ordering(sort))
    .offset(page.skip)
    .limit(page.take);
  return rows.map((row) => row.entry);
}

/** What a webhook payload shows of each user. */
export async function findPeople(db: Db, userIds: number[]): Promise<Map<number, { id: number; name: string | null; username: string | null; timeZone: string; email: string }>> {
  const rows = await db
    .select({ id: users.id, name: users.name, username: users.username, timeZone: users.timeZone, email: users.email })
    .from(users)
    .where(inArray(users.id, userIds));
  return new Map(rows.map((row) => [row.id, row]));
}

/** The entries of `userIds` overlapping [from, to), with the user covering each (a slot answer's awayHosts). */
export async function listAwayEntries(db: Db, userIds: number[], from: Date, to: Date) {
  return db
    .select({
      entry: outOfOfficeEntries,
      toUser: { id: users.id, username: users.username, name: users.name },
    })
    .from(outOfOfficeEntries)
    .leftJoin(users, eq(users.id, outOfOfficeEntries.toUserId))
    .where(and(inArray(outOfOfficeEntries.userId, userIds), gt(outOfOfficeEntries.endAt, from), lt(outOfOfficeEntries.startAt, to)))
    .orderBy(asc(outOfOfficeEntries.userId), asc(outOfOfficeEntries.startAt));
}
