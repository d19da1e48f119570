import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { memberships, users } from '../../../db/schema.js';

/** The users among `ids` that exist, with the email attendee rights follow and whether they belong to the organization. */
export async function findUsersForOrganization(db: Db, organizationId: number, ids: readonly number[]): Promise<{ id: number; verifiedEmail: string | null; member: boolean }[]> {
  if (ids.length === 0) return [];
  const found = await db.select({ id: users.id, verifiedEmail: users.verifiedEmail }).from(users).where(inArray(users.id, [...ids]));
  const members = await db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.teamId, organizationId), inArray(memberships.userId, [...ids])));
  const memberIds = new Set(members.map((row) => row.userId));
  return found.map((user) => ({ ...user, member: memberIds.has(user.id) }));
}
