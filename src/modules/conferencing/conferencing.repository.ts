import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { calendarConnections, type ConferencingAppType, conferencingApps, teams, users } from '../../db/schema.js';

export type ConferencingAppRow = typeof conferencingApps.$inferSelect;

/** Whose apps: a user's, or a team's (an organization's team). */
export type AppOwner = { kind: 'user'; userId: number } | { kind: 'team'; teamId: number };

const ownedBy = (owner: AppOwner): SQL => (owner.kind === 'user' ? eq(conferencingApps.userId, owner.userId) : eq(conferencingApps.teamId, owner.teamId));

export async function listApps(db: Db, owner: AppOwner): Promise<ConferencingAppRow[]> {
  return db.select().from(conferencingApps).where(ownedBy(owner)).orderBy(asc(conferencingApps.id));
}

export async function findApp(db: Db, owner: AppOwner, type: ConferencingAppType): Promise<ConferencingAppRow | undefined> {
  const [row] = await db.select().from(conferencingApps).where(and(ownedBy(owner), eq(conferencingApps.type, type)));
  return row;
}

/** Installs the app for the owner, replacing an earlier installation of it (a new consent renews the tokens). */
export async function saveApp(
  db: Db,
  owner: AppOwner,
  app: { type: ConferencingAppType; appId: string; credentialsSealed: string | null; accountEmail: string | null },
): Promise<ConferencingAppRow> {
  await db.delete(conferencingApps).where(and(ownedBy(owner), eq(conferencingApps.type, app.type)));
  const ownerColumns = owner.kind === 'user' ? { userId: owner.userId } : { teamId: owner.teamId };
  const [row] = await db.insert(conferencingApps).values({ ...app, ...ownerColumns }).returning();
  return row!;
}

export async function deleteApp(db: Db, id: number): Promise<void> {
  await db.delete(conferencingApps).where(eq(conferencingApps.id, id));
}

/** Locks the owner's row (one change to their apps and default at a time) and reads their default; undefined: no such owner. */
export async function lockOwner(db: Db, owner: AppOwner): Promise<{ defaultConferencingApp: string | null } | undefined> {
  const [row] =
    owner.kind === 'user'
      ? await db.select({ defaultConferencingApp: users.defaultConferencingApp }).from(users).where(eq(users.id, owner.userId)).for('update')
      : await db.select({ defaultConferencingApp: teams.defaultConferencingApp }).from(teams).where(eq(teams.id, owner.teamId)).for('update');
  return row;
}

export async function findDefault(db: Db, owner: AppOwner): Promise<string | null> {
  const [row] =
    owner.kind === 'user'
      ? await db.select({ app: users.defaultConferencingApp }).from(users).where(eq(users.id, owner.userId))
      : await db.select({ app: teams.defaultConferencingApp }).from(teams).where(eq(teams.id, owner.teamId));
  return row?.app ?? null;
}

export async function setDefault(db: Db, owner: AppOwner, app: string | null): Promise<void> {
  if (owner.kind === 'user') await db.update(users).set({ defaultConferencingApp: app }).where(eq(users.id, owner.userId));
  else await db.update(teams).set({ defaultConferencingApp: app }).where(eq(teams.id, owner.teamId));
}

/** The owner's Google Calendar connections (Google Meet needs one that works). Teams connect no calendars in svc. */
export async function googleCalendarStates(db: Db, owner: AppOwner): Promise<{ invalid: boolean }[]> {
  if (owner.kind === 'team') return [];
  return db
    .select({ invalid: calendarConnections.invalid })
    .from(calendarConnections)
    .where(and(eq(calendarConnections.userId, owner.userId), eq(calendarConnections.type, 'google_calendar')));
}
