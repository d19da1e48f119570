import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import { CHANGES_CHANNEL, formatChange } from '../../db/change-feed.js';
import type { Db } from '../../db/client.js';
import { calendarBusyTimes, calendarConnections, type CalendarConnectionType, calendarSources, type CalendarSyncState, destinationCalendars, users } from '../../db/schema.js';
import type { ExternalBusyInterval, ExternalCalendar } from '../../integrations/calendar-types.js';
import { WRITABLE_TYPES } from './calendar-events.repository.js';

export type CalendarConnectionRow = typeof calendarConnections.$inferSelect;
export type CalendarSourceRow = typeof calendarSources.$inferSelect;

const DAY = 86_400_000;

export async function insertConnection(
  db: Db,
  row: { userId: number; type: CalendarConnectionType; appId: string; credentialsSealed: string; accountEmail?: string | null },
): Promise<CalendarConnectionRow> {
  const [connection] = await db.insert(calendarConnections).values(row).returning();
  return connection!;
}

/** A delegated connection, unless the member already has one of the credential (null then). */
export async function insertDelegatedConnection(
  db: Db,
  row: { userId: number; type: CalendarConnectionType; appId: string; credentialsSealed: string; delegationCredentialId: string; accountEmail: string },
): Promise<CalendarConnectionRow | null> {
  const [connection] = await db.insert(calendarConnections).values(row).onConflictDoNothing().returning();
  return connection ?? null;
}

export async function insertSources(
  db: Db,
  connection: CalendarConnectionRow,
  calendars: readonly ExternalCalendar[],
  nextSyncAt: Date,
  selected: (calendar: ExternalCalendar) => boolean = () => true,
): Promise<CalendarSourceRow[]> {
  if (calendars.length === 0) return [];
  return db
    .insert(calendarSources)
    .values(
      calendars.map((calendar) => ({
        connectionId: connection.id,
        userId: connection.userId,
        externalId: calendar.externalId,
        name: calendar.name,
        isPrimary: calendar.primary,
        readOnly: calendar.readOnly,
        timeZone: calendar.timeZone,
        selected: selected(calendar),
        nextSyncAt,
      })),
    )
    .returning();
}

export async function listConnectionsOf(db: Db, userId: number, type?: CalendarConnectionType): Promise<CalendarConnectionRow[]> {
  return db
    .select()
    .from(calendarConnections)
    .where(and(eq(calendarConnections.userId, userId), type ? eq(calendarConnections.type, type) : undefined))
    .orderBy(asc(calendarConnections.id));
}

export async function listSourcesOf(db: Db, userId: number): Promise<CalendarSourceRow[]> {
  return db.select().from(calendarSources).where(eq(calendarSources.userId, userId)).orderBy(asc(calendarSources.connectionId), asc(calendarSources.id));
}

export async function findSourceForSync(db: Db, sourceId: number): Promise<{ source: CalendarSourceRow; connection: CalendarConnectionRow } | undefined> {
  const [row] = await db
    .select({ source: calendarSources, connection: calendarConnections })
    .from(calendarSources)
    .innerJoin(calendarConnections, eq(calendarConnections.id, calendarSources.connectionId))
    .where(eq(calendarSources.id, sourceId));
  return row;
}

/** Locks a source row for its sync's write (two syncs of one calendar must not interleave their replace). */
export async function lockSource(db: Db, sourceId: number): Promise<CalendarSourceRow | undefined> {
  const [row] = await db.select().from(calendarSources).where(eq(calendarSources.id, sourceId)).for('update');
  return row;
}

export async function deleteConnections(db: Db, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) await db.delete(calendarConnections).where(inArray(calendarConnections.id, [...ids]));
}

/** Sources whose next sync is due, oldest first (the sweep queues a sync job for each). */
export async function listDueSources(db: Db, now: Date, limit: number): Promise<{ id: number; nextSyncAt: Date }[]> {
  return db
    .select({ id: calendarSources.id, nextSyncAt: calendarSources.nextSyncAt })
    .from(calendarSources)
    .where(lte(calendarSources.nextSyncAt, now))
    .orderBy(asc(calendarSources.nextSyncAt))
    .limit(limit);
}

/** Intervals cut into pieces of at most a day (the table's check; the busy query relies on it). */
export function piecesOf<T extends ExternalBusyInterval>(intervals: readonly T[]): T[] {
  const pieces: T[] = [];
  for (const interval of intervals) {
    for (let start = interval.start; start < interval.end; start += DAY) pieces.push({ ...interval, start, end: Math.min(interval.end, start + DAY) });
  }
  return pieces;
}

/** The UID of a booking's private note event is the booking's with this after it. */
export const PRIVATE_NOTE_UID_SUFFIX = '-note';
const bookingUidOf = (uid: string) => (uid.endsWith(PRIVATE_NOTE_UID_SUFFIX) ? uid.slice(0, -PRIVATE_NOTE_UID_SUFFIX.length) : uid);

/** Rows inserted per statement: far under PostgreSQL's 65,535 parameters at 6 a row. */
const INSERT_BATCH = 2_000;

/**
 * Replaces the busy time the source holds under `objectKeys` (all of it when null) with `intervals`,
 * leaving out events whose UID is one of the owner's bookings, or a private note of one: svc wrote those,
 * and the booking is busy on its own (and must not block its own reschedule).
 */
export async function replaceBusyTimes(
  db: Db,
  source: Pick<CalendarSourceRow, 'id' | 'userId'>,
  objectKeys: readonly string[] | null,
  intervals: readonly (ExternalBusyInterval & { objectKey: string })[],
): Promise<void> {
  const removed = await db
    .delete(calendarBusyTimes)
    .where(and(eq(calendarBusyTimes.sourceId, source.id), objectKeys === null ? undefined : inArray(calendarBusyTimes.objectKey, [...objectKeys])))
    .returning({ startAt: calendarBusyTimes.startAt });
  const uids = [...new Set(intervals.map((interval) => interval.uid).filter((uid): uid is string => uid !== null).map(bookingUidOf))];
  const own = uids.length === 0 ? new Set<string>() : await ownBookingUids(db, source.userId, uids);
  const rows = piecesOf(intervals.filter((interval) => interval.uid === null || !own.has(bookingUidOf(interval.uid))))
    .map((piece) => ({ sourceId: source.id, userId: source.userId, objectKey: piece.objectKey, uid: piece.uid, startAt: new Date(piece.start), endAt: new Date(piece.end) }));
  for (let index = 0; index < rows.length; index += INSERT_BATCH) await db.insert(calendarBusyTimes).values(rows.slice(index, index + INSERT_BATCH));
  const touched = objectKeys === null ? null : new Set([...removed, ...rows].map((row) => utcDate(row.startAt)));
  await rebuildBusyDays(db, [source.id], touched && [...touched]);
}

const utcDate = (instant: Date) => instant.toISOString().slice(0, 10);

/**
 * Writes calendar_busy_days again from calendar_busy_times for the sources' given UTC dates (every date
 * when null). Pieces are listed by start, so a date's spans read in order.
 */
export async function rebuildBusyDays(db: Db, sourceIds: readonly number[], days: readonly string[] | null): Promise<void> {
  if (sourceIds.length === 0 || days?.length === 0) return;
  const pieceDay = sql`(t.start_at at time zone 'UTC')::date`;
  await db.execute(sql`delete from calendar_busy_days where source_id in ${sourceIds}${days === null ? sql`` : sql` and day in ${days}`}`);
  await db.execute(sql`
    insert into calendar_busy_days (source_id, user_id, day, spans)
    select t.source_id, t.user_id, ${pieceDay},
      string_agg(float8send(round(date_part('epoch', t.start_at) * 1000)) || float8send(round(date_part('epoch', t.end_at) * 1000)), ''::bytea order by t.start_at, t.end_at)
    from calendar_busy_times t
    where t.source_id in ${sourceIds}${days === null ? sql`` : sql` and ${pieceDay} in ${days}`}
    group by 1, 2, 3`);
}

async function ownBookingUids(db: Db, userId: number, uids: readonly string[]): Promise<Set<string>> {
  const result = await db.execute(sql`
    select distinct b.ics_uid from bookings b join booking_hosts bh on bh.booking_id = b.id
    where bh.user_id = ${userId} and b.ics_uid in ${uids}`);
  return new Set((result as unknown as { rows: { ics_uid: string }[] }).rows.map((row) => row.ics_uid));
}

export interface SyncSuccess {
  syncState: CalendarSyncState;
  syncedFrom: Date;
  syncedTo: Date;
  name?: string | undefined;
  nextSyncAt: Date;
}

export async function recordSyncSuccess(db: Db, sourceId: number, now: Date, outcome: SyncSuccess): Promise<void> {
  await db
    .update(calendarSources)
    .set({
      syncState: outcome.syncState,
      syncedFrom: outcome.syncedFrom,
      syncedTo: outcome.syncedTo,
      lastSyncedAt: now,
      failingSince: null,
      failure: null,
      degraded: false,
      nextSyncAt: outcome.nextSyncAt,
      ...(outcome.name ? { name: outcome.name } : {}),
    })
    .where(eq(calendarSources.id, sourceId));
}

export async function recordSyncFailure(db: Db, sourceId: number, failure: { failingSince: Date; message: string; degraded: boolean; nextSyncAt: Date }): Promise<void> {
  await db
    .update(calendarSources)
    .set({ failingSince: failure.failingSince, failure: failure.message, degraded: failure.degraded, nextSyncAt: failure.nextSyncAt })
    .where(eq(calendarSources.id, sourceId));
}

export async function findConnection(db: Db, connectionId: number): Promise<CalendarConnectionRow | undefined> {
  const [row] = await db.select().from(calendarConnections).where(eq(calendarConnections.id, connectionId));
  return row;
}

/** A connection made again (the account connected anew): new credentials, valid, its owner not yet told of a breakage. */
export async function renewConnection(db: Db, connectionId: number, credentialsSealed: string, accountEmail: string): Promise<CalendarConnectionRow> {
  const [row] = await db
    .update(calendarConnections)
    .set({ credentialsSealed, accountEmail, invalid: false, ownerToldAt: null, updatedAt: sql`now()` })
    .where(eq(calendarConnections.id, connectionId))
    .returning();
  return row!;
}

/** Stores credentials a provider renewed (an OAuth refresh). */
export async function saveCredentials(db: Db, connectionId: number, credentialsSealed: string): Promise<void> {
  await db.update(calendarConnections).set({ credentialsSealed, updatedAt: sql`now()` }).where(eq(calendarConnections.id, connectionId));
}

/** Flags the connection invalid; true the first time (its owner is to be told then, once). */
export async function markConnectionInvalid(db: Db, connectionId: number, now: Date): Promise<boolean> {
  const told = await db
    .update(calendarConnections)
    .set({ invalid: true, ownerToldAt: now, updatedAt: now })
    .where(and(eq(calendarConnections.id, connectionId), isNull(calendarConnections.ownerToldAt)))
    .returning({ id: calendarConnections.id });
  if (told.length > 0) return true;
  await db.update(calendarConnections).set({ invalid: true }).where(eq(calendarConnections.id, connectionId));
  return false;
}

export async function findOwner(db: Db, userId: number): Promise<{ email: string; name: string | null; timeZone: string; locale: string | null } | undefined> {
  const [owner] = await db.select({ email: users.email, name: users.name, timeZone: users.timeZone, locale: users.locale }).from(users).where(eq(users.id, userId));
  return owner;
}

/** A calendar selected again is read before it counts (its busy time may be old): unknown until then. */
export async function setSourceSelected(db: Db, sourceId: number, selected: boolean, now: Date): Promise<void> {
  await db
    .update(calendarSources)
    .set(selected ? { selected, nextSyncAt: now, syncedFrom: null, syncedTo: null, syncState: {} } : { selected })
    .where(eq(calendarSources.id, sourceId));
}

/** Tells every process the user's calendar busy time changed (their caches drop it), on commit. */
export async function announceCalendarBusyChange(db: Db, userId: number): Promise<void> {
  await db.execute(sql`select pg_notify(${CHANGES_CHANNEL}, ${formatChange({ kind: 'calendarBusy', userId })})`);
}

export interface StoredBusyInterval {
  start: number;
  end: number;
  sourceId: number;
}

/** The user's stored busy time from selected calendars overlapping [from, to), pieces joined again. */
export async function listBusyIntervals(db: Db, userId: number, from: number, to: number, sourceIds: readonly number[] | null): Promise<StoredBusyInterval[]> {
  const result = await db.execute(sql`
    select c.source_id, (extract(epoch from c.start_at) * 1000)::float8 as start_ms, (extract(epoch from c.end_at) * 1000)::float8 as end_ms
    from calendar_busy_times c join calendar_sources s on s.id = c.source_id
    where c.user_id = ${userId} and ${sourceIds === null ? sql`s.selected` : sourceIds.length === 0 ? sql`false` : sql`c.source_id in ${sourceIds}`}
      and c.end_at > ${new Date(from).toISOString()}::timestamptz and c.end_at < ${new Date(to).toISOString()}::timestamptz + interval '24 hours'
      and c.start_at < ${new Date(to).toISOString()}::timestamptz
    order by c.start_at, c.end_at`);
  return (result as unknown as { rows: { source_id: number; start_ms: number; end_ms: number }[] }).rows.map((row) => ({ sourceId: row.source_id, start: row.start_ms, end: row.end_ms }));
}

/** The user's destination for all their bookings (the calendar's source id), if they chose one. */
export async function findUserDestination(db: Db, userId: number): Promise<number | null> {
  const [row] = await db.select({ sourceId: destinationCalendars.sourceId }).from(destinationCalendars).where(and(eq(destinationCalendars.userId, userId), isNull(destinationCalendars.eventTypeId)));
  return row?.sourceId ?? null;
}

export async function setUserDestination(db: Db, userId: number, sourceId: number): Promise<void> {
  await db.delete(destinationCalendars).where(and(eq(destinationCalendars.userId, userId), isNull(destinationCalendars.eventTypeId)));
  await db.insert(destinationCalendars).values({ userId, sourceId });
}

/** Where the owner's bookings of one event type are written (before their own destination). */
export async function setEventTypeDestination(db: Db, userId: number, eventTypeId: number, sourceId: number): Promise<void> {
  await db.delete(destinationCalendars).where(and(eq(destinationCalendars.userId, userId), eq(destinationCalendars.eventTypeId, eventTypeId)));
  await db.insert(destinationCalendars).values({ userId, eventTypeId, sourceId });
}

/** The destination each of these event types' owners chose for it, as the API names it. */
export async function eventTypeDestinations(db: Db, eventTypeIds: readonly number[]): Promise<Map<number, { integration: string; externalId: string }>> {
  if (eventTypeIds.length === 0) return new Map();
  const result = await db.execute(sql`
    select d.event_type_id, c.type, s.external_id
    from ${destinationCalendars} d join event_types et on et.id = d.event_type_id and et.user_id = d.user_id
      join ${calendarSources} s on s.id = d.source_id join ${calendarConnections} c on c.id = s.connection_id
    where d.event_type_id in ${[...eventTypeIds]}`);
  const rows = (result as unknown as { rows: { event_type_id: number; type: string; external_id: string }[] }).rows;
  return new Map(rows.map((row) => [Number(row.event_type_id), { integration: row.type, externalId: row.external_id }]));
}

/** The user's calendars an API caller names by integration (the connection's type) and externalId. */
export async function findNamedCalendars(
  db: Db,
  userId: number,
  integration: string,
  externalId: string,
): Promise<{ id: number; externalId: string; connectionId: number; readOnly: boolean; delegationCredentialId: string | null }[]> {
  return db
    .select({
      id: calendarSources.id,
      externalId: calendarSources.externalId,
      connectionId: calendarSources.connectionId,
      readOnly: calendarSources.readOnly,
      delegationCredentialId: calendarConnections.delegationCredentialId,
    })
    .from(calendarSources)
    .innerJoin(calendarConnections, eq(calendarConnections.id, calendarSources.connectionId))
    .where(and(eq(calendarSources.userId, userId), sql`${calendarConnections.type}::text = ${integration}`, eq(calendarSources.externalId, externalId)))
    .orderBy(asc(calendarConnections.id));
}

/** Selected calendars of these users on valid connections, at most `limit` (the live check before a booking). */
export async function liveCheckedSources(db: Db, userIds: readonly number[], limit: number): Promise<number[]> {
  const rows = await db
    .select({ id: calendarSources.id })
    .from(calendarSources)
    .innerJoin(calendarConnections, eq(calendarConnections.id, calendarSources.connectionId))
    .where(and(inArray(calendarSources.userId, [...userIds]), eq(calendarSources.selected, true), eq(calendarConnections.invalid, false)))
    .orderBy(asc(calendarSources.id))
    .limit(limit);
  return rows.map((row) => row.id);
}

/** Whether the user has a valid connection svc writes bookings into. */
export async function hasWritableConnection(db: Db, userId: number): Promise<boolean> {
  const [row] = await db
    .select({ id: calendarConnections.id })
    .from(calendarConnections)
    .where(and(eq(calendarConnections.userId, userId), eq(calendarConnections.invalid, false), inArray(calendarConnections.type, [...WRITABLE_TYPES])))
    .limit(1);
  return row !== undefined;
}

