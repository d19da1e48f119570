import { and, asc, desc, eq, lt, ne, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { bookingCalendarEvents, bookings, calendarConnections, type CalendarConnectionType, calendarEventLeases, calendarSources, destinationCalendars } from '../../db/schema.js';

export type BookingCalendarEventRow = typeof bookingCalendarEvents.$inferSelect;

/** Connection types svc writes bookings into (an ICS feed is read-only). */
export const WRITABLE_TYPES: readonly CalendarConnectionType[] = ['apple_calendar', 'caldav_calendar', 'google_calendar', 'office365_calendar'];

/** WRITABLE_TYPES as an SQL list, for `type in (...)`. */
export const WRITABLE_TYPES_SQL = sql.raw(WRITABLE_TYPES.map((type) => `'${type}'`).join(', '));

/** A managed user whose platform client turned calendar events off (areCalendarEventsEnabled false): svc writes none for them. */
const calendarEventsOff = (userId: SQL) =>
  sql`exists (select 1 from platform_managed_users pm join platform_oauth_clients pc on pc.id = pm.client_id where pm.user_id = ${userId} and not pc.are_calendar_events_enabled)`;

/**
 * Whether a booking event may change calendar events, as a one-row query run within the event's insert
 * (column `calendar_write`): one of the users holds a writable connection, or events were written
 * for the booking's icsUid before (they must move or go).
 */
export function calendarWriteInterestQuery(userIds: readonly number[], icsUid: string): SQL {
  return sql`select (exists (select 1 from ${calendarConnections} cw where cw.user_id = any(${sql.param([...userIds])}::int[]) and cw.type in (${WRITABLE_TYPES_SQL}) and not cw.invalid
      and not ${calendarEventsOff(sql`cw.user_id`)})
    or exists (select 1 from ${bookingCalendarEvents} ew where ew.ics_uid = ${icsUid})) as calendar_write`;
}

/**
 * Takes the write lease of an icsUid for `ms` (free, or its holder's time is up). Returns whether this
 * holder has it.
 */
export async function acquireEventLease(db: Db, icsUid: string, holder: string, now: Date, ms: number): Promise<boolean> {
  const until = new Date(now.getTime() + ms);
  const rows = await db
    .insert(calendarEventLeases)
    .values({ icsUid, holder, leasedUntil: until })
    .onConflictDoUpdate({ target: calendarEventLeases.icsUid, set: { holder, leasedUntil: until }, setWhere: lt(calendarEventLeases.leasedUntil, now) })
    .returning({ holder: calendarEventLeases.holder });
  return rows[0]?.holder === holder;
}

export async function releaseEventLease(db: Db, icsUid: string, holder: string): Promise<void> {
  await db.delete(calendarEventLeases).where(and(eq(calendarEventLeases.icsUid, icsUid), eq(calendarEventLeases.holder, holder)));
}

/** The booking that now carries an icsUid: the last of a reschedule chain. */
export async function latestBookingWithIcsUid(db: Db, icsUid: string) {
  const [row] = await db.select().from(bookings).where(eq(bookings.icsUid, icsUid)).orderBy(desc(bookings.id)).limit(1);
  return row;
}

/** A writable calendar of a user, with its connection and whether it was chosen as a destination. */
export interface WritableCalendar {
  sourceId: number;
  userId: number;
  externalId: string;
  name: string;
  isPrimary: boolean;
  connectionId: number;
  type: CalendarConnectionType;
  invalid: boolean;
  credentialsSealed: string;
  /** Chosen for this event type's bookings. */
  forEventType: boolean;
  /** Chosen for all the user's bookings. */
  forUser: boolean;
}

/**
 * The calendars of these users svc could write into, in connection order, primary calendars first. A
 * managed user whose client turned calendar events off has none: events written before go with their
 * booking's next change.
 */
export async function writableCalendarsOf(db: Db, userIds: readonly number[], eventTypeId: number | null): Promise<WritableCalendar[]> {
  if (userIds.length === 0) return [];
  const result = await db.execute(sql`
    select s.id as "sourceId", s.user_id as "userId", s.external_id as "externalId", s.name, s.is_primary as "isPrimary",
      c.id as "connectionId", c.type, c.invalid, c.credentials_sealed as "credentialsSealed",
      exists (select 1 from ${destinationCalendars} d where d.source_id = s.id and d.user_id = s.user_id and d.event_type_id = ${eventTypeId ?? -1}) as "forEventType",
      exists (select 1 from ${destinationCalendars} d where d.source_id = s.id and d.user_id = s.user_id and d.event_type_id is null) as "forUser"
    from ${calendarSources} s join ${calendarConnections} c on c.id = s.connection_id
    where s.user_id = any(${sql.param([...userIds])}::int[]) and c.type in (${WRITABLE_TYPES_SQL}) and not s.read_only and not ${calendarEventsOff(sql`s.user_id`)}
    order by c.id, s.is_primary desc, s.id`);
  return (result as unknown as { rows: WritableCalendar[] }).rows;
}

/** An event svc wrote into one of the user's calendars of this kind, by the provider's event id. */
export async function findWrittenEvent(db: Db, userId: number, type: CalendarConnectionType, eventId: string): Promise<BookingCalendarEventRow | undefined> {
  const [row] = await db
    .select()
    .from(bookingCalendarEvents)
    .where(and(eq(bookingCalendarEvents.userId, userId), eq(bookingCalendarEvents.type, type), eq(bookingCalendarEvents.eventId, eventId)))
    .limit(1);
  return row;
}

export async function listEventRefs(db: Db, icsUid: string): Promise<BookingCalendarEventRow[]> {
  return db.select().from(bookingCalendarEvents).where(eq(bookingCalendarEvents.icsUid, icsUid)).orderBy(asc(bookingCalendarEvents.id));
}

export async function saveEventRef(db: Db, row: Omit<BookingCalendarEventRow, 'id' | 'createdAt' | 'updatedAt'>): Promise<void> {
  const { icsUid: _icsUid, userId: _userId, ...changes } = row;
  await db
    .insert(bookingCalendarEvents)
    .values(row)
    .onConflictDoUpdate({ target: [bookingCalendarEvents.icsUid, bookingCalendarEvents.userId, bookingCalendarEvents.note], set: { ...changes, updatedAt: sql`now()` } });
}

/** The references follow the booking that now carries their icsUid (a reschedule's successor). */
export async function moveEventRefs(db: Db, icsUid: string, bookingId: number): Promise<void> {
  await db.update(bookingCalendarEvents).set({ bookingId }).where(and(eq(bookingCalendarEvents.icsUid, icsUid), ne(bookingCalendarEvents.bookingId, bookingId)));
}

export async function deleteEventRef(db: Db, id: number): Promise<void> {
  await db.delete(bookingCalendarEvents).where(eq(bookingCalendarEvents.id, id));
}

/** The events written for a booking, as its references list them. */
