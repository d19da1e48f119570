import { and, eq, getTableColumns, gt, lt } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { users, webSessions } from '../db/schema.js';
import type { UserRecord } from '../modules/users/users.repository.js';

const { passwordHash: _omitted, ...userColumns } = getTableColumns(users);

export type WebSessionRow = typeof webSessions.$inferSelect;

export async function insertSession(db: Db, session: typeof webSessions.$inferInsert): Promise<void> {
  await db.insert(webSessions).values(session);
}

/** A session that has not expired, with its user (null before login). */
export async function findLiveSession(db: Db, hashedId: string, now: Date): Promise<{ session: WebSessionRow; user: UserRecord | null } | undefined> {
  const [row] = await db
    .select({ session: webSessions, user: userColumns })
    .from(webSessions)
    .leftJoin(users, eq(users.id, webSessions.userId))
    .where(and(eq(webSessions.hashedId, hashedId), gt(webSessions.expiresAt, now)));
  return row ? { session: row.session, user: row.session.userId === null ? null : (row.user as UserRecord) } : undefined;
}

export async function deleteSession(db: Db, hashedId: string): Promise<void> {
  await db.delete(webSessions).where(eq(webSessions.hashedId, hashedId));
}

export async function deleteExpiredSessions(db: Db, before: Date): Promise<number> {
  const rows = await db.delete(webSessions).where(lt(webSessions.expiresAt, before)).returning({ id: webSessions.hashedId });
  return rows.length;
}
