import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { profiles, teams, users } from '../../db/schema.js';

export type ProfileRow = typeof profiles.$inferSelect;
type TeamRow = typeof teams.$inferSelect;

export async function listOrganizations(db: Db, page: { skip: number; take: number }): Promise<TeamRow[]> {
  return db.select().from(teams).where(eq(teams.isOrganization, true)).orderBy(asc(teams.id)).offset(page.skip).limit(page.take);
}

export async function findProfile(db: Db, organizationId: number, userId: number): Promise<ProfileRow | undefined> {
  const [row] = await db.select().from(profiles).where(and(eq(profiles.organizationId, organizationId), eq(profiles.userId, userId)));
  return row;
}

/** Gives the user a profile in the organization (its username there: the user's own, made unique in the organization). */
export async function ensureProfile(db: Db, organizationId: number, userId: number): Promise<ProfileRow> {
  const existing = await findProfile(db, organizationId, userId);
  if (existing) return existing;
  const [user] = await db.select({ username: users.username, email: users.email }).from(users).where(eq(users.id, userId));
  const base = user?.username ?? user?.email.split('@')[0] ?? `user-${userId}`;
  for (let suffix = 0; ; suffix++) {
    const username = suffix === 0 ? base : `${base}-${suffix}`;
    const [taken] = await db.select({ id: profiles.id }).from(profiles).where(and(eq(profiles.organizationId, organizationId), sql`lower(${profiles.username}) = lower(${username})`));
    if (taken) continue;
    const [row] = await db.insert(profiles).values({ organizationId, userId, username }).returning();
    return row!;
  }
}

export async function deleteProfile(db: Db, organizationId: number, userId: number): Promise<void> {
  await db.delete(profiles).where(and(eq(profiles.organizationId, organizationId), eq(profiles.userId, userId)));
}

/**
 * The organization of the user's main profile, as the reference's getUserMainProfile picks it: the profile in
 * the organization that made the account, else the first profile the user got.
 */
export async function findMainProfileOrganization(db: Db, userId: number): Promise<{ id: number; isPlatform: boolean } | undefined> {
  const [row] = await db
    .select({ id: teams.id, isPlatform: teams.isPlatform })
    .from(profiles)
    .innerJoin(teams, eq(teams.id, profiles.organizationId))
    .innerJoin(users, eq(users.id, profiles.userId))
    .where(eq(profiles.userId, userId))
    .orderBy(desc(sql`${profiles.organizationId} is not distinct from ${users.organizationId}`), asc(profiles.id))
    .limit(1);
  return row;
}
