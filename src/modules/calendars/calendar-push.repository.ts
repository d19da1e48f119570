// Push channels of connected calendars (SQL of calendar-push.ts).
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { calendarConnections, type CalendarConnectionType, calendarPushChannels, calendarSources } from '../../db/schema.js';

export type PushChannelRow = typeof calendarPushChannels.$inferSelect;

export async function listPushChannels(db: Db, sourceId: number): Promise<PushChannelRow[]> {
  return db.select().from(calendarPushChannels).where(eq(calendarPushChannels.sourceId, sourceId)).orderBy(asc(calendarPushChannels.id));
}

export async function insertPushChannel(db: Db, row: { sourceId: number; channelId: string; resourceId: string | null; tokenHash: string; expiresAt: Date }): Promise<number> {
  const [inserted] = await db.insert(calendarPushChannels).values(row).returning({ id: calendarPushChannels.id });
  return inserted!.id;
}

/** The provider's answer: its id of the channel (Graph's subscription id), its resource id and end. */
export async function confirmPushChannel(db: Db, id: number, opened: { channelId: string; resourceId: string | null; expiresAt: Date }): Promise<void> {
  await db.update(calendarPushChannels).set(opened).where(eq(calendarPushChannels.id, id));
}

/** Graph asked for the subscription to be authorized again: the next read replaces it. */
export async function markPushChannelForRenewal(db: Db, id: number): Promise<void> {
  await db.update(calendarPushChannels).set({ renew: true }).where(eq(calendarPushChannels.id, id));
}

/** When the calendar may next ask its provider for a channel (null: at its next read). */
export async function setPushRetryAt(db: Db, sourceId: number, at: Date | null): Promise<void> {
  await db.update(calendarSources).set({ pushRetryAt: at }).where(eq(calendarSources.id, sourceId));
}

export async function deletePushChannel(db: Db, id: number): Promise<void> {
  await db.delete(calendarPushChannels).where(eq(calendarPushChannels.id, id));
}

/** A channel by the id notifications name, with its calendar's connection type (selected calendars of valid connections only). */
export async function findPushChannel(db: Db, channelId: string): Promise<(PushChannelRow & { type: CalendarConnectionType }) | undefined> {
  const [row] = await db
    .select({ channel: calendarPushChannels, type: calendarConnections.type })
    .from(calendarPushChannels)
    .innerJoin(calendarSources, eq(calendarSources.id, calendarPushChannels.sourceId))
    .innerJoin(calendarConnections, eq(calendarConnections.id, calendarSources.connectionId))
    .where(and(eq(calendarPushChannels.channelId, channelId), eq(calendarSources.selected, true), eq(calendarConnections.invalid, false)));
  return row ? { ...row.channel, type: row.type } : undefined;
}

/** Push channels of a connection's calendars (of `sourceIds` only, when given). */
export async function listPushChannelsOfConnection(db: Db, connectionId: number, sourceIds?: readonly number[]): Promise<PushChannelRow[]> {
  const rows = await db
    .select({ channel: calendarPushChannels })
    .from(calendarPushChannels)
    .innerJoin(calendarSources, eq(calendarSources.id, calendarPushChannels.sourceId))
    .where(and(eq(calendarSources.connectionId, connectionId), sourceIds ? inArray(calendarPushChannels.sourceId, [...sourceIds]) : undefined));
  return rows.map((row) => row.channel);
}
