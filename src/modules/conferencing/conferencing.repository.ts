import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { calendarConnections, type ConferencingAppType, conferencingApps, users } from '../../db/schema.js';

export type ConferencingAppRow = typeof conferencingApps.$inferSelect;

export async function listUserApps(db: Db, userId: number): Promise<ConferencingAppRow[]> {
  return db.select().from(conferencingApps).where(eq(conferencingApps.userId, userId)).orderBy(asc(conferencingApps.id));
}

export async function findUserApp(db: Db, userId: number, type: ConferencingAppType): Promise<ConferencingAppRow | undefined> {
  const [row] = await db.select().from(conferencingApps).where(and(eq(conferencingApps.userId, userId), eq(conferencingApps.type, type)));
  return row;
}

/** Installs the app for the user, replacing an earlier installation of it (a new consent renews the tokens). */
export async function saveUserApp(
  db: Db,
  app: { userId: number; type: ConferencingAppType; appId: string; credentialsSealed: string | null; accountEmail: string | null },
): Promise<ConferencingAppRow> {
  await db.delete(conferencingApps).where(and(eq(conferencingApps.userId, app.userId), eq(conferencingApps.type, app.type)));
  const [row] = await db.insert(conferencingApps).values(app).returning();
  return row!;
}

export async function deleteApp(db: Db, id: number): Promise<void> {
  await db.delete(conferencingApps).where(eq(conferencingApps.id, id));
}

/** Locks the user's row: one change to their apps and default at a time. */
export async function lockUser(db: Db, userId: number): Promise<{ defaultConferencingApp: string | null } | undefined> {
  const [row] = await db.select({ defaultConferencingApp: users.defaultConferencingApp }).from(users).where(eq(users.id, userId)).for('update');
  return row;
}

export async function findUserDefault(db: Db, userId: number): Promise<string | null> {
  const [row] = await db.select({ defaultConferencingApp: users.defaultConferencingApp }).from(users).where(eq(users.id, userId));
  return row?.defaultConferencingApp ?? null;
}

export async function setUserDefault(db: Db, userId: number, app: string | null): Promise<void> {
  await db.update(users).set({ defaultConferencingApp: app }).where(eq(users.id, userId));
}

/** The user's Google Calendar connections (Google Meet needs one that works). */
export async function googleCalendarStates(db: Db, userId: number): Promise<{ invalid: boolean }[]> {
  return db
    .select({ invalid: calendarConnections.invalid })
    .from(calendarConnections)
    .where(and(eq(calendarConnections.userId, userId), eq(calendarConnections.type, 'google_calendar')));
}
