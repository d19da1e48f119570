import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { attributeAssignments, attributeOptions, attributes, memberships } from '../../db/schema.js';

export type AttributeRow = typeof attributes.$inferSelect;
export type AttributeOptionRow = typeof attributeOptions.$inferSelect;
export type AssignmentRow = typeof attributeAssignments.$inferSelect;
export type NewAttribute = Pick<typeof attributes.$inferInsert, 'type' | 'name' | 'slug' | 'enabled'>;

export async function insertAttribute(db: Db, organizationId: number, attribute: NewAttribute): Promise<AttributeRow> {
  const [row] = await db.insert(attributes).values({ ...attribute, organizationId }).returning();
  return row!;
}

export async function listAttributes(db: Db, organizationId: number, page: { skip: number; take: number }): Promise<AttributeRow[]> {
  return db.select().from(attributes).where(eq(attributes.organizationId, organizationId)).orderBy(asc(attributes.createdAt), asc(attributes.id)).offset(page.skip).limit(page.take);
}

/** The organization's attribute by id, or by slug (case-insensitive). */
export async function findAttribute(db: Db, organizationId: number, by: { id: string } | { slug: string }): Promise<AttributeRow | undefined> {
  const match = 'id' in by ? eq(attributes.id, by.id) : sql`lower(${attributes.slug}) = lower(${by.slug})`;
  const [row] = await db.select().from(attributes).where(and(eq(attributes.organizationId, organizationId), match));
  return row;
}

/** Locks the attribute row: changes to its options and assignments apply one after the other. */
export async function lockAttribute(db: Db, organizationId: number, id: string): Promise<AttributeRow | undefined> {
  const [row] = await db.select().from(attributes).where(and(eq(attributes.organizationId, organizationId), eq(attributes.id, id))).for('update');
  return row;
}

/** Whether another row of `table` in the same scope (`scope` = `scopeValue`) has that slug, case-insensitively. */
async function slugTaken(
  db: Db,
  table: typeof attributes | typeof attributeOptions,
  scope: { column: AnyPgColumn; value: string | number },
  slug: string,
  exceptId?: string,
): Promise<boolean> {
  const rows = await db
    .select({ id: table.id })
    .from(table)
    .where(and(eq(scope.column, scope.value), sql`lower(${table.slug}) = lower(${slug})`, exceptId ? sql`${table.id} <> ${exceptId}` : undefined))
    .limit(1);
  return rows.length > 0;
}

export const isAttributeSlugTaken = (db: Db, organizationId: number, slug: string, exceptId?: string) =>
  slugTaken(db, attributes, { column: attributes.organizationId, value: organizationId }, slug, exceptId);

export async function updateAttribute(db: Db, id: string, changes: Partial<NewAttribute>): Promise<AttributeRow> {
  const [row] = await db.update(attributes).set({ ...changes, updatedAt: sql`now()` }).where(eq(attributes.id, id)).returning();
  return row!;
}

export async function deleteAttribute(db: Db, id: string): Promise<void> {
  await db.delete(attributes).where(eq(attributes.id, id));
}

export async function insertOptions(db: Db, attributeId: string, options: { value: string; slug: string }[]): Promise<AttributeOptionRow[]> {
  if (options.length === 0) return [];
  return db.insert(attributeOptions).values(options.map((option) => ({ ...option, attributeId }))).returning();
}

export async function listOptions(db: Db, attributeId: string): Promise<AttributeOptionRow[]> {
  return db.select().from(attributeOptions).where(eq(attributeOptions.attributeId, attributeId)).orderBy(asc(attributeOptions.ordinal));
}

export async function findOption(db: Db, attributeId: string, optionId: string): Promise<AttributeOptionRow | undefined> {
  const [row] = await db.select().from(attributeOptions).where(and(eq(attributeOptions.attributeId, attributeId), eq(attributeOptions.id, optionId)));
  return row;
}

/** The option of that exact value (a TEXT or NUMBER attribute's values are options too). */
export async function findOptionByValue(db: Db, attributeId: string, value: string): Promise<AttributeOptionRow | undefined> {
  const [row] = await db.select().from(attributeOptions).where(and(eq(attributeOptions.attributeId, attributeId), eq(attributeOptions.value, value))).limit(1);
  return row;
}

export const isOptionSlugTaken = (db: Db, attributeId: string, slug: string, exceptId?: string) =>
  slugTaken(db, attributeOptions, { column: attributeOptions.attributeId, value: attributeId }, slug, exceptId);

export async function updateOption(db: Db, id: string, changes: { value?: string; slug?: string }): Promise<AttributeOptionRow> {
  const [row] = await db.update(attributeOptions).set(changes).where(eq(attributeOptions.id, id)).returning();
  return row!;
}

export async function deleteOption(db: Db, id: string): Promise<void> {
  await db.delete(attributeOptions).where(eq(attributeOptions.id, id));
}

/** The accepted membership of the user in the organization. */
export async function findAcceptedMembership(db: Db, organizationId: number, userId: number): Promise<{ id: number } | undefined> {
  const [row] = await db
    .select({ id: memberships.id })
    .from(memberships)
    .where(and(eq(memberships.teamId, organizationId), eq(memberships.userId, userId), eq(memberships.accepted, true)));
  return row;
}

/** The member's assignments among the attribute's options. */
export async function assignmentsOfMember(db: Db, attributeId: string, membershipId: number): Promise<AssignmentRow[]> {
  return db
    .select({ id: attributeAssignments.id, optionId: attributeAssignments.optionId, membershipId: attributeAssignments.membershipId, createdAt: attributeAssignments.createdAt })
    .from(attributeAssignments)
    .innerJoin(attributeOptions, eq(attributeOptions.id, attributeAssignments.optionId))
    .where(and(eq(attributeOptions.attributeId, attributeId), eq(attributeAssignments.membershipId, membershipId)));
}

export async function insertAssignment(db: Db, optionId: string, membershipId: number): Promise<AssignmentRow> {
  const [row] = await db.insert(attributeAssignments).values({ optionId, membershipId }).returning();
  return row!;
}

export async function deleteAssignments(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.delete(attributeAssignments).where(inArray(attributeAssignments.id, ids));
}

/** The member's assignment of one option of the organization (through its attribute). */
export async function findAssignment(db: Db, organizationId: number, userId: number, optionId: string): Promise<AssignmentRow | undefined> {
  const [row] = await db
    .select({ id: attributeAssignments.id, optionId: attributeAssignments.optionId, membershipId: attributeAssignments.membershipId, createdAt: attributeAssignments.createdAt })
    .from(attributeAssignments)
    .innerJoin(memberships, eq(memberships.id, attributeAssignments.membershipId))
    .innerJoin(attributeOptions, eq(attributeOptions.id, attributeAssignments.optionId))
    .innerJoin(attributes, eq(attributes.id, attributeOptions.attributeId))
    .where(and(eq(memberships.teamId, organizationId), eq(memberships.userId, userId), eq(attributeAssignments.optionId, optionId), eq(attributes.organizationId, organizationId)));
  return row;
}

/** The options of the organization's attributes the user holds. */
export async function optionsOfUser(db: Db, organizationId: number, userId: number): Promise<AttributeOptionRow[]> {
  return db
    .select({ id: attributeOptions.id, attributeId: attributeOptions.attributeId, value: attributeOptions.value, slug: attributeOptions.slug, ordinal: attributeOptions.ordinal, createdAt: attributeOptions.createdAt })
    .from(attributeOptions)
    .innerJoin(attributes, eq(attributes.id, attributeOptions.attributeId))
    .innerJoin(attributeAssignments, eq(attributeAssignments.optionId, attributeOptions.id))
    .innerJoin(memberships, eq(memberships.id, attributeAssignments.membershipId))
    .where(and(eq(attributes.organizationId, organizationId), eq(memberships.teamId, organizationId), eq(memberships.userId, userId)))
    .orderBy(asc(attributes.createdAt), asc(attributes.id), asc(attributeOptions.ordinal));
}

export interface AssignedOption extends AttributeOptionRow {
  assignedUserIds: number[];
}

/**
 * The attribute's options held by at least one member, with who holds them; `heldWith` keeps the options
 * held by a member who also holds one of those options, `inTeams` those held by a member of one of those
 * teams of the organization.
 */
export async function assignedOptions(
  db: Db,
  organizationId: number,
  attributeId: string,
  filter: { heldWith?: string[] | undefined; inTeams?: number[] | undefined; skip: number; take: number },
): Promise<AssignedOption[]> {
  const holders = sql`select m.user_id from ${attributeAssignments} aa join ${memberships} m on m.id = aa.membership_id where aa.option_id = ${attributeOptions.id}`;
  const conditions: SQL[] = [eq(attributeOptions.attributeId, attributeId), sql`exists (${holders})`];
  if (filter.heldWith?.length) {
    conditions.push(sql`exists (select 1 from ${attributeAssignments} mine join ${attributeAssignments} other on other.membership_id = mine.membership_id
      where mine.option_id = ${attributeOptions.id} and ${inArray(sql`other.option_id`, filter.heldWith)})`);
  }
  if (filter.inTeams?.length) {
    conditions.push(sql`exists (select 1 from ${attributeAssignments} aa join ${memberships} org on org.id = aa.membership_id
      join ${memberships} tm on tm.user_id = org.user_id and tm.accepted
      join teams t on t.id = tm.team_id and t.parent_id = ${organizationId}
      where aa.option_id = ${attributeOptions.id} and ${inArray(sql`tm.team_id`, filter.inTeams)})`);
  }
  const rows = await db
    .select({
      id: attributeOptions.id,
      attributeId: attributeOptions.attributeId,
      value: attributeOptions.value,
      slug: attributeOptions.slug,
      ordinal: attributeOptions.ordinal,
      createdAt: attributeOptions.createdAt,
      assignedUserIds: sql<number[]>`array(${holders} order by m.user_id)`,
    })
    .from(attributeOptions)
    .where(and(...conditions))
    .orderBy(asc(attributeOptions.ordinal))
    .offset(filter.skip)
    .limit(filter.take);
  return rows.map((row) => ({ ...row, assignedUserIds: (row.assignedUserIds ?? []).map(Number) }));
}

/** The organization's attribute slugs, in lower case. */
export async function attributeSlugsOf(db: Db, organizationId: number): Promise<Set<string>> {
  const rows = await db.select({ slug: attributes.slug }).from(attributes).where(eq(attributes.organizationId, organizationId));
  return new Set(rows.map((row) => row.slug.toLowerCase()));
}

export interface HeldValue {
  userId: number;
  attributeId: string;
  name: string;
  slug: string;
  type: string;
  optionId: string;
  value: string;
}

/**
 * The members' values of the organization's attributes, a row per value held, in the attributes' and
 * options' order: what membership outputs show and what conditions over members read.
 */
export async function heldValues(db: Db, organizationId: number, userIds: number[]): Promise<HeldValue[]> {
  if (userIds.length === 0) return [];
  return db
    .select({ userId: memberships.userId, attributeId: attributes.id, name: attributes.name, slug: attributes.slug, type: attributes.type, optionId: attributeOptions.id, value: attributeOptions.value })
    .from(attributeAssignments)
    .innerJoin(memberships, eq(memberships.id, attributeAssignments.membershipId))
    .innerJoin(attributeOptions, eq(attributeOptions.id, attributeAssignments.optionId))
    .innerJoin(attributes, eq(attributes.id, attributeOptions.attributeId))
    .where(and(eq(memberships.teamId, organizationId), eq(attributes.organizationId, organizationId), inArray(memberships.userId, userIds)))
    .orderBy(asc(attributes.createdAt), asc(attributes.id), asc(attributeOptions.ordinal));
}
