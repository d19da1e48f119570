import { and, asc, count, eq, getTableColumns, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema.js';

type UserRow = typeof users.$inferSelect;
/** A user as the rest of svc sees it: never the password hash. */
export type UserRecord = Omit<UserRow, 'passwordHash'>;
export type NewUser = Omit<typeof users.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>;
export type UserChanges = Partial<Omit<NewUser, 'role' | 'passwordHash' | 'verifiedEmail'>>;

const { passwordHash: _omitted, ...userColumns } = getTableColumns(users);

export async function insertUser(db: Db, user: NewUser): Promise<UserRecord> {
  const [row] = await db.insert(users).values(user).returning(userColumns);
  return row!;
}

/** The user holding this address, as their email or as their verified email (they may differ after a change). */
export async function findUserIdByEmail(db: Db, email: string): Promise<number | undefined> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email}) or lower(${users.verifiedEmail}) = lower(${email})`)
    .limit(1);
  return row?.id;
}

/** The first system admin (the one bootstrap created, unless it was replaced). */
export async function findSystemAdminId(db: Db): Promise<number | undefined> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.role, 'ADMIN')).orderBy(asc(users.id)).limit(1);
  return row?.id;
}

export async function isUsernameTaken(db: Db, username: string, exceptUserId?: number): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(sql`lower(${users.username}) = lower(${username})`, exceptUserId === undefined ? undefined : ne(users.id, exceptUserId)));
  return row !== undefined;
}

export async function updateUser(db: Db, id: number, changes: UserChanges): Promise<UserRecord | undefined> {
  const [row] = await db
    .update(users)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(users.id, id))
    .returning(userColumns);
  return row;
}

export async function deleteUser(db: Db, id: number): Promise<UserRecord | undefined> {
  const [row] = await db.delete(users).where(eq(users.id, id)).returning(userColumns);
  return row;
}

export async function listUsers(db: Db, page: { take: number; skip: number }): Promise<UserRecord[]> {
  return db.select(userColumns).from(users).orderBy(asc(users.id)).limit(page.take).offset(page.skip);
}

export async function countUsers(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users);
  return Number(row?.n ?? 0);
}

/**
 * Sets the user's password and ends their web sessions (a password change logs every browser out), in
 * one statement.
 */
export async function setPasswordHash(db: Db, userId: number, passwordHash: string): Promise<boolean> {
  const result = await db.execute(sql`with ended as (delete from web_sessions where user_id = ${userId})
    update users set password_hash = ${passwordHash}, updated_at = now() where id = ${userId} returning id`);
  return (result as unknown as { rows: unknown[] }).rows.length === 1;
}
