import { inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { memberships, users } from '../../db/schema.js';

/** The users among `ids` that exist, with the email attendee rights follow and whether they belong to the organization. */
export async function findUsersForOrganization(db: Db, organizationId: number, ids: readonly number[]): Promise<{ id: number; verifiedEmail: string | null; member: boolean }[]> {
  if (ids.length === 0) return [];
  return db
    .select({
      id: users.id,
      verifiedEmail: users.verifiedEmail,
      member: sql<boolean>`exists (select 1 from ${memberships} where ${memberships.userId} = ${users.id} and ${memberships.teamId} = ${organizationId})`,
    })
    .from(users)
    .where(inArray(users.id, [...ids]));
}
