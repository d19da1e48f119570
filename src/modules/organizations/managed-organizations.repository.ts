import { and, asc, count, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { teams } from '../../db/schema.js';

type TeamRow = typeof teams.$inferSelect;

export interface ManagedOrganizationFilter {
  slug?: string | undefined;
  /** Both or neither: a metadata key whose value is exactly this string (case-sensitive, as stored). */
  metadata?: { key: string; value: string } | undefined;
}

function managedBy(managerId: number, filter: ManagedOrganizationFilter = {}): SQL {
  return and(
    eq(teams.managerOrganizationId, managerId),
    eq(teams.isOrganization, true),
    filter.slug !== undefined ? eq(teams.slug, filter.slug) : undefined,
    filter.metadata ? sql`${teams.metadata} -> ${filter.metadata.key}::text = to_jsonb(${filter.metadata.value}::text)` : undefined,
  )!;
}

/** The managed organization `managedId` of the manager organization, if it is one. */
export async function findManagedOrganization(db: Db, managerId: number, managedId: number): Promise<TeamRow | undefined> {
  const [row] = await db.select().from(teams).where(and(eq(teams.id, managedId), managedBy(managerId)));
  return row;
}

/** One page of the manager's organizations matching `filter`, oldest first, and how many match in all. */
export async function listManagedOrganizations(db: Db, managerId: number, filter: ManagedOrganizationFilter, page: { skip: number; take: number }): Promise<{ rows: TeamRow[]; total: number }> {
  const where = managedBy(managerId, filter);
  const rows = await db.select().from(teams).where(where).orderBy(asc(teams.id)).offset(page.skip).limit(page.take);
  const [counted] = await db.select({ total: count() }).from(teams).where(where);
  return { rows, total: Number(counted?.total ?? 0) };
}
