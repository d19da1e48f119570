import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { eventTypePrivateLinks, eventTypes } from '../../db/schema.js';

export type PrivateLinkRow = typeof eventTypePrivateLinks.$inferSelect;

/** A link with the slug of its event type (its booking URL names both). */
export interface PrivateLinkWithSlug {
  link: PrivateLinkRow;
  slug: string;
}

/** What a link write sets: exactly one of the two limits, the other null. */
export interface PrivateLinkLimits {
  expiresAt: Date | null;
  maxUsageCount: number | null;
}

const withSlug = { link: eventTypePrivateLinks, slug: eventTypes.slug };

export async function insertPrivateLink(tx: Db, eventTypeId: number, secret: { hash: string; sealed: string }, limits: PrivateLinkLimits): Promise<PrivateLinkRow> {
  const [row] = await tx.insert(eventTypePrivateLinks).values({ eventTypeId, linkHash: secret.hash, linkSealed: secret.sealed, ...limits }).returning();
  return row!;
}

/** The event type's links, oldest first. */
export async function listPrivateLinks(db: Db, eventTypeId: number): Promise<PrivateLinkWithSlug[]> {
  return db
    .select(withSlug)
    .from(eventTypePrivateLinks)
    .innerJoin(eventTypes, eq(eventTypes.id, eventTypePrivateLinks.eventTypeId))
    .where(eq(eventTypePrivateLinks.eventTypeId, eventTypeId))
    .orderBy(asc(eventTypePrivateLinks.id));
}

/** One link of the event type, by the hash of its id, locked until the transaction ends. */
export async function lockPrivateLinkOf(tx: Db, eventTypeId: number, hash: string): Promise<PrivateLinkWithSlug | undefined> {
  const [row] = await tx
    .select(withSlug)
    .from(eventTypePrivateLinks)
    .innerJoin(eventTypes, eq(eventTypes.id, eventTypePrivateLinks.eventTypeId))
    .where(and(eq(eventTypePrivateLinks.eventTypeId, eventTypeId), eq(eventTypePrivateLinks.linkHash, hash)))
    .for('update', { of: eventTypePrivateLinks });
  return row;
}

/** A link by the hash of its id, whatever its event type. */
export async function findPrivateLink(db: Db, hash: string): Promise<PrivateLinkRow | undefined> {
  const [row] = await db.select().from(eventTypePrivateLinks).where(eq(eventTypePrivateLinks.linkHash, hash));
  return row;
}

/** The same, locked: bookings through one link count their uses one after the other. */
export async function lockPrivateLink(tx: Db, hash: string): Promise<PrivateLinkRow | undefined> {
  const [row] = await tx.select().from(eventTypePrivateLinks).where(eq(eventTypePrivateLinks.linkHash, hash)).for('update');
  return row;
}

export async function updatePrivateLinkLimits(tx: Db, id: number, limits: PrivateLinkLimits): Promise<PrivateLinkRow> {
  const [row] = await tx.update(eventTypePrivateLinks).set(limits).where(eq(eventTypePrivateLinks.id, id)).returning();
  return row!;
}

export async function countPrivateLinkUse(tx: Db, id: number): Promise<void> {
  await tx.update(eventTypePrivateLinks).set({ usageCount: sql`${eventTypePrivateLinks.usageCount} + 1` }).where(eq(eventTypePrivateLinks.id, id));
}

export async function deletePrivateLink(tx: Db, id: number): Promise<void> {
  await tx.delete(eventTypePrivateLinks).where(eq(eventTypePrivateLinks.id, id));
}
