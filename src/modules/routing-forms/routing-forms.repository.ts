import { and, asc, desc, eq, gte, inArray, lte, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { eventTypes, routingFormResponses, routingForms } from '../../db/schema.js';

export type RoutingFormRow = typeof routingForms.$inferSelect;
export type ResponseRow = typeof routingFormResponses.$inferSelect;
export type NewRoutingForm = Omit<typeof routingForms.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>;

export async function insertForm(db: Db, form: NewRoutingForm): Promise<RoutingFormRow> {
  const [row] = await db.insert(routingForms).values(form).returning();
  return row!;
}

export async function findForm(db: Db, id: string): Promise<RoutingFormRow | undefined> {
  const [row] = await db.select().from(routingForms).where(eq(routingForms.id, id));
  return row;
}

export async function lockForm(db: Db, id: string): Promise<RoutingFormRow | undefined> {
  const [row] = await db.select().from(routingForms).where(eq(routingForms.id, id)).for('update');
  return row;
}

export async function updateForm(db: Db, id: string, changes: Partial<NewRoutingForm>): Promise<RoutingFormRow> {
  const [row] = await db.update(routingForms).set({ ...changes, updatedAt: sql`now()` }).where(eq(routingForms.id, id)).returning();
  return row!;
}

export async function deleteForm(db: Db, id: string): Promise<void> {
  await db.delete(routingForms).where(eq(routingForms.id, id));
}

export interface ListFilter {
  sortCreatedAt?: 'asc' | 'desc' | undefined;
  sortUpdatedAt?: 'asc' | 'desc' | undefined;
  afterCreatedAt?: Date | undefined;
  beforeCreatedAt?: Date | undefined;
  afterUpdatedAt?: Date | undefined;
  beforeUpdatedAt?: Date | undefined;
  skip: number;
  take: number;
}

function windowOf(table: typeof routingForms | typeof routingFormResponses, filter: ListFilter): SQL[] {
  const where: SQL[] = [];
  if (filter.afterCreatedAt) where.push(gte(table.createdAt, filter.afterCreatedAt));
  if (filter.beforeCreatedAt) where.push(lte(table.createdAt, filter.beforeCreatedAt));
  if (filter.afterUpdatedAt) where.push(gte(table.updatedAt, filter.afterUpdatedAt));
  if (filter.beforeUpdatedAt) where.push(lte(table.updatedAt, filter.beforeUpdatedAt));
  return where;
}

function orderOf(table: typeof routingForms | typeof routingFormResponses, filter: ListFilter): SQL[] {
  const order: SQL[] = [];
  if (filter.sortCreatedAt) order.push(filter.sortCreatedAt === 'desc' ? desc(table.createdAt) : asc(table.createdAt));
  if (filter.sortUpdatedAt) order.push(filter.sortUpdatedAt === 'desc' ? desc(table.updatedAt) : asc(table.updatedAt));
  return order;
}

/** Forms of the organization's teams (`teamIds`: of those teams only). */
export async function listForms(db: Db, scope: { organizationId: number; teamIds?: number[] | undefined }, filter: ListFilter): Promise<RoutingFormRow[]> {
  return db
    .select()
    .from(routingForms)
    .where(and(eq(routingForms.organizationId, scope.organizationId), scope.teamIds?.length ? inArray(routingForms.teamId, scope.teamIds) : undefined, ...windowOf(routingForms, filter)))
    .orderBy(...orderOf(routingForms, filter), asc(routingForms.position), asc(routingForms.createdAt), asc(routingForms.id))
    .offset(filter.skip)
    .limit(filter.take);
}

/** Ids of the team's event types a route may send answers to (not managed templates). */
export async function routableEventTypeIds(db: Db, teamId: number): Promise<Set<number>> {
  const rows = await db
    .select({ id: eventTypes.id })
    .from(eventTypes)
    .where(and(eq(eventTypes.teamId, teamId), sql`coalesce(${eventTypes.schedulingType}, 'collective') <> 'managed'`));
  return new Set(rows.map((row) => row.id));
}

export async function insertResponse(db: Db, response: Omit<typeof routingFormResponses.$inferInsert, 'id' | 'createdAt' | 'updatedAt' | 'formFillerId'>): Promise<ResponseRow> {
  const [row] = await db.insert(routingFormResponses).values(response).returning();
  return row!;
}

export async function findResponse(db: Db, formId: string, id: number): Promise<ResponseRow | undefined> {
  const [row] = await db.select().from(routingFormResponses).where(and(eq(routingFormResponses.formId, formId), eq(routingFormResponses.id, id)));
  return row;
}

/** A response and its form's team, locked: a booking uses it at most once. */
export async function lockResponse(db: Db, id: number): Promise<(ResponseRow & { teamId: number }) | undefined> {
  const [row] = await db
    .select({ response: routingFormResponses, teamId: routingForms.teamId })
    .from(routingFormResponses)
    .innerJoin(routingForms, eq(routingForms.id, routingFormResponses.formId))
    .where(eq(routingFormResponses.id, id))
    .for('update', { of: routingFormResponses });
  return row && { ...row.response, teamId: row.teamId };
}

export async function updateResponse(db: Db, id: number, changes: Partial<Pick<ResponseRow, 'response' | 'routedToBookingUid'>>): Promise<ResponseRow> {
  const [row] = await db.update(routingFormResponses).set({ ...changes, updatedAt: sql`now()` }).where(eq(routingFormResponses.id, id)).returning();
  return row!;
}

export async function listResponses(db: Db, formId: string, filter: ListFilter & { routedToBookingUid?: string | undefined }): Promise<ResponseRow[]> {
  return db
    .select()
    .from(routingFormResponses)
    .where(
      and(
        eq(routingFormResponses.formId, formId),
        filter.routedToBookingUid === undefined ? undefined : eq(routingFormResponses.routedToBookingUid, filter.routedToBookingUid),
        ...windowOf(routingFormResponses, filter),
      ),
    )
    .orderBy(...orderOf(routingFormResponses, filter), asc(routingFormResponses.id))
    .offset(filter.skip)
    .limit(filter.take);
}


export async function markNoEventSent(db: Db, id: number, webhookId: number): Promise<void> {
  await db.update(routingFormResponses).set({ noEventWebhookIds: sql`array_append(${routingFormResponses.noEventWebhookIds}, ${webhookId}::int)` }).where(eq(routingFormResponses.id, id));
}
