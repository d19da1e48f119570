import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { bookingMeetings, type ConferencingAppType, conferencingApps, eventTypes } from '../../db/schema.js';
import type { AppOwner } from './conferencing.repository.js';

export type BookingMeetingRow = typeof bookingMeetings.$inferSelect;
export type ConferencingAppRow = typeof conferencingApps.$inferSelect;

export const ownerOfMeeting = (row: Pick<BookingMeetingRow, 'userId' | 'teamId'>): AppOwner =>
  row.userId !== null ? { kind: 'user', userId: row.userId } : { kind: 'team', teamId: row.teamId! };

/**
 * The app that makes a booking's meeting: the organizer's own installation, else the team's whose event
 * type it is (an organization team's app serves every host of its event types).
 */
export async function findMeetingApp(db: Db, type: ConferencingAppType, organizerId: number, teamId: number | null): Promise<ConferencingAppRow | undefined> {
  const rows = await db
    .select()
    .from(conferencingApps)
    .where(and(eq(conferencingApps.type, type), teamId === null ? eq(conferencingApps.userId, organizerId) : sql`(${conferencingApps.userId} = ${organizerId} or ${conferencingApps.teamId} = ${teamId})`))
    .orderBy(sql`${conferencingApps.userId} is null`);
  return rows[0];
}

export async function findOwnedApp(db: Db, owner: AppOwner, type: ConferencingAppType): Promise<ConferencingAppRow | undefined> {
  const [row] = await db
    .select()
    .from(conferencingApps)
    .where(and(eq(conferencingApps.type, type), owner.kind === 'user' ? eq(conferencingApps.userId, owner.userId) : eq(conferencingApps.teamId, owner.teamId)));
  return row;
}

export async function saveAppCredentials(db: Db, appId: number, credentialsSealed: string): Promise<void> {
  await db.update(conferencingApps).set({ credentialsSealed, updatedAt: sql`now()` }).where(eq(conferencingApps.id, appId));
}

/** The provider refused the app's tokens: the owner must connect it again. */
export async function flagAppInvalid(db: Db, appId: number): Promise<void> {
  await db.update(conferencingApps).set({ invalid: true, updatedAt: sql`now()` }).where(eq(conferencingApps.id, appId));
}

export async function insertMeeting(db: Db, meeting: typeof bookingMeetings.$inferInsert): Promise<BookingMeetingRow> {
  const [row] = await db.insert(bookingMeetings).values(meeting).returning();
  return row!;
}

/** The meeting a booking holds (not one being deleted). */
export async function findMeetingOfBooking(db: Db, bookingId: number): Promise<BookingMeetingRow | undefined> {
  const [row] = await db
    .select()
    .from(bookingMeetings)
    .where(and(eq(bookingMeetings.bookingId, bookingId), eq(bookingMeetings.deleting, false)))
    .orderBy(asc(bookingMeetings.id))
    .limit(1);
  return row;
}

/** The booking's Daily room of that name (the built-in video's). */
export async function findDailyRoom(db: Db, name: string): Promise<BookingMeetingRow | undefined> {
  const [row] = await db
    .select()
    .from(bookingMeetings)
    .where(and(eq(bookingMeetings.type, 'daily_video'), eq(bookingMeetings.externalId, name)))
    .limit(1);
  return row;
}

export async function findMeeting(db: Db, id: number): Promise<BookingMeetingRow | undefined> {
  const [row] = await db.select().from(bookingMeetings).where(eq(bookingMeetings.id, id));
  return row;
}

export async function updateMeeting(db: Db, id: number, changes: Partial<Pick<BookingMeetingRow, 'bookingId' | 'startAt' | 'endAt' | 'deleting' | 'providerId'>>): Promise<void> {
  await db.update(bookingMeetings).set({ ...changes, updatedAt: sql`now()` }).where(eq(bookingMeetings.id, id));
}

export async function deleteMeetingRow(db: Db, id: number): Promise<void> {
  await db.delete(bookingMeetings).where(eq(bookingMeetings.id, id));
}

/** The meetings of a booking as its references list them. */
export async function listMeetingsOfBooking(db: Db, bookingId: number): Promise<Pick<BookingMeetingRow, 'id' | 'type' | 'externalId'>[]> {
  return db
    .select({ id: bookingMeetings.id, type: bookingMeetings.type, externalId: bookingMeetings.externalId })
    .from(bookingMeetings)
    .where(and(eq(bookingMeetings.bookingId, bookingId), eq(bookingMeetings.deleting, false)))
    .orderBy(asc(bookingMeetings.id));
}

/**
 * Event types of the owner (a user's own, or a team's) whose locations name `integration`: when the app
 * goes, they are given the built-in video instead (the reference does the same). Returns their ids.
 */
export async function replaceLocationIntegration(db: Db, owner: AppOwner, integration: string, replacement: string): Promise<number[]> {
  const named = sql`exists (select 1 from jsonb_array_elements(${eventTypes.locations}) l where l->>'type' = 'integration' and l->>'integration' = ${integration})`;
  const rows = await db
    .update(eventTypes)
    .set({
      locations: sql`(select jsonb_agg(case when l->>'type' = 'integration' and l->>'integration' = ${integration} then jsonb_set(l, '{integration}', to_jsonb(${replacement}::text)) else l end order by n)
        from jsonb_array_elements(${eventTypes.locations}) with ordinality as e(l, n))`,
    })
    .where(and(owner.kind === 'user' ? eq(eventTypes.userId, owner.userId) : eq(eventTypes.teamId, owner.teamId), named))
    .returning({ id: eventTypes.id });
  return rows.map((row) => row.id);
}
