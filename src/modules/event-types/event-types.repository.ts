import { and, asc, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { eventTypes, users } from '../../db/schema.js';

export type EventTypeRow = typeof eventTypes.$inferSelect;
/** Every column an event-type write sets (the state of the event type without its identity). */
export type EventTypeState = Omit<EventTypeRow, 'id' | 'userId' | 'createdAt' | 'updatedAt'>;

/** The owner as event-type outputs show it (`users[]`). */
export type EventTypeOwner = Pick<typeof users.$inferSelect, 'id' | 'name' | 'username' | 'avatarUrl' | 'weekStart' | 'metadata'>;

const ownerColumns = {
  id: users.id,
  name: users.name,
  username: users.username,
  avatarUrl: users.avatarUrl,
  weekStart: users.weekStart,
  metadata: users.metadata,
};

export async function insertEventType(db: Db, userId: number, state: EventTypeState): Promise<EventTypeRow> {
  const [row] = await db.insert(eventTypes).values({ ...state, userId }).returning();
  return row!;
}

export async function findEventTypeById(db: Db, id: number): Promise<EventTypeRow | undefined> {
  const [row] = await db.select().from(eventTypes).where(eq(eventTypes.id, id));
  return row;
}

/** Locks the row: concurrent updates of one event type apply one after the other. */
export async function lockEventType(db: Db, id: number): Promise<EventTypeRow | undefined> {
  const [row] = await db.select().from(eventTypes).where(eq(eventTypes.id, id)).for('update');
  return row;
}

export async function isSlugTaken(db: Db, userId: number, slug: string, exceptId?: number): Promise<boolean> {
  const conditions = [eq(eventTypes.userId, userId), sql`lower(${eventTypes.slug}) = lower(${slug})`];
  if (exceptId !== undefined) conditions.push(ne(eventTypes.id, exceptId));
  const [row] = await db.select({ id: eventTypes.id }).from(eventTypes).where(and(...conditions)).limit(1);
  return row !== undefined;
}

export interface EventTypeFilter {
  includeHidden: boolean;
  slug?: string | undefined;
  order: 'asc' | 'desc';
  /** A page of the list (none: all of it). */
  page?: { skip: number; take: number } | undefined;
}

/** Creation order is id order (ids are assigned in insertion order). */
export async function listEventTypesOfUser(db: Db, userId: number, filter: EventTypeFilter): Promise<EventTypeRow[]> {
  const conditions = [eq(eventTypes.userId, userId)];
  if (!filter.includeHidden) conditions.push(eq(eventTypes.hidden, false));
  if (filter.slug !== undefined) conditions.push(sql`lower(${eventTypes.slug}) = lower(${filter.slug})`);
  const ordered = db
    .select()
    .from(eventTypes)
    .where(and(...conditions))
    .orderBy(filter.order === 'desc' ? desc(eventTypes.id) : asc(eventTypes.id));
  return filter.page ? ordered.offset(filter.page.skip).limit(filter.page.take) : ordered;
}

export async function updateEventType(db: Db, id: number, state: EventTypeState): Promise<EventTypeRow> {
  const [row] = await db.update(eventTypes).set({ ...state, updatedAt: sql`now()` }).where(eq(eventTypes.id, id)).returning();
  return row!;
}

export async function deleteEventType(db: Db, id: number): Promise<void> {
  await db.delete(eventTypes).where(eq(eventTypes.id, id));
}

export async function findOwner(db: Db, userId: number): Promise<EventTypeOwner | undefined> {
  const [row] = await db.select(ownerColumns).from(users).where(eq(users.id, userId));
  return row;
}

export async function findOwnerByUsername(db: Db, username: string): Promise<EventTypeOwner | undefined> {
  const [row] = await db.select(ownerColumns).from(users).where(sql`lower(${users.username}) = lower(${username})`);
  return row;
}

/** Users of a dynamic group event, in the order the usernames were given; unknown names are skipped. */
export async function findOwnersByUsernames(db: Db, usernames: string[]): Promise<EventTypeOwner[]> {
  const lowered = usernames.map((name) => name.toLowerCase());
  if (lowered.length === 0) return [];
  const rows = await db.select(ownerColumns).from(users).where(inArray(sql`lower(${users.username})`, lowered));
  const byName = new Map(rows.map((row) => [row.username!.toLowerCase(), row]));
  return [...new Set(lowered)].flatMap((name) => byName.get(name) ?? []);
}

/** The organizer of a booking, as booking outputs and notifications show them. */
export interface BookingOrganizer {
  id: number;
  name: string | null;
  email: string;
  username: string | null;
  timeZone: string;
}

const organizerColumns = { id: users.id, name: users.name, email: users.email, username: users.username, timeZone: users.timeZone };

export async function findEventTypeWithOrganizer(
  db: Db,
  by: { id: number } | { username: string; slug: string },
): Promise<{ eventType: EventTypeRow; organizer: BookingOrganizer } | undefined> {
  const where =
    'id' in by
      ? eq(eventTypes.id, by.id)
      : and(sql`lower(${users.username}) = lower(${by.username})`, sql`lower(${eventTypes.slug}) = lower(${by.slug})`);
  const [row] = await db.select({ eventType: eventTypes, organizer: organizerColumns }).from(eventTypes).innerJoin(users, eq(users.id, eventTypes.userId)).where(where);
  return row;
}
