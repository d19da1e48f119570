import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { roles } from '../../db/schema.js';

export type RoleRow = typeof roles.$inferSelect;
export type NewRole = Omit<typeof roles.$inferInsert, 'createdAt' | 'updatedAt'>;
export type RoleChanges = Partial<Pick<RoleRow, 'name' | 'color' | 'description' | 'permissions'>>;

export async function insertRole(db: Db, role: NewRole): Promise<RoleRow> {
  const [row] = await db.insert(roles).values(role).returning();
  return row!;
}

/** The custom role `roleId` of the team or organization `teamId`; `lock` holds its row until the transaction ends. */
export async function findRole(db: Db, teamId: number, roleId: string, lock = false): Promise<RoleRow | undefined> {
  const query = db.select().from(roles).where(and(eq(roles.id, roleId), eq(roles.teamId, teamId)));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

export async function listRoles(db: Db, teamId: number, page: { skip: number; take: number }): Promise<RoleRow[]> {
  return db.select().from(roles).where(eq(roles.teamId, teamId)).orderBy(asc(roles.createdAt), asc(roles.id)).offset(page.skip).limit(page.take);
}

/** Is `name` (case-insensitively) the name of another role of the team? */
export async function isNameTaken(db: Db, teamId: number, name: string, exceptId?: string): Promise<boolean> {
  const [row] = await db
    .select({ id: roles.id })
    .from(roles)
    .where(and(eq(roles.teamId, teamId), sql`lower(${roles.name}) = lower(${name})`, exceptId !== undefined ? sql`${roles.id} <> ${exceptId}` : undefined));
  return row !== undefined;
}

export async function updateRole(db: Db, id: string, changes: RoleChanges): Promise<RoleRow> {
  const [row] = await db.update(roles).set({ ...changes, updatedAt: sql`now()` }).where(eq(roles.id, id)).returning();
  return row!;
}

/** Deletes the role; memberships that used it keep their membership role without it (ON DELETE SET NULL). */
export async function deleteRole(db: Db, id: string): Promise<void> {
  await db.delete(roles).where(eq(roles.id, id));
}
