import { and, asc, eq, getTableColumns, gt, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { bookingAttendees, bookingCalendarEvents, bookingEvents, bookingHosts, bookings, eventTypes, type PaymentStatus, payments, users } from '../../db/schema.js';

export type BookingRow = typeof bookings.$inferSelect;
export type NewBooking = Omit<typeof bookings.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>;
export type AttendeeRow = typeof bookingAttendees.$inferSelect;
export type NewAttendee = Omit<typeof bookingAttendees.$inferInsert, 'id' | 'createdAt'>;

/** The organizer as booking outputs show it. */
export interface BookingHost {
  id: number;
  name: string | null;
  email: string;
  username: string | null;
  timeZone: string;
}

/** A host of a booking besides its organizer (a collective booking's other hosts, round robin's fixed or chosen ones). */
export interface BookingCoHost {
  id: number;
  name: string | null;
  email: string;
  timeZone: string;
  locale: string | null;
}

/** What a booking of a paid event type charges, as its outputs show it. */
export interface BookingPayment {
  id: number;
  uid: string;
  status: PaymentStatus;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
  /** Stripe's payment page, while it awaits payment. */
  checkoutUrl: string | null;
  holdUntil: string;
  paidAt: string | null;
  refundedAmount: number | null;
  refundedAt: string | null;
}

export function bookingPaymentOf(row: typeof payments.$inferSelect): BookingPayment {
  const iso = (date: Date | null) => date && date.toISOString();
  return {
    id: row.id,
    uid: row.uid,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    checkoutUrl: row.checkoutUrl,
    holdUntil: row.holdUntil.toISOString(),
    paidAt: iso(row.paidAt),
    refundedAmount: row.refundedAmount,
    refundedAt: iso(row.refundedAt),
  };
}

/** A booking with everything its outputs show. */
export interface BookingRecord {
  booking: BookingRow;
  attendees: AttendeeRow[];
  host: BookingHost;
  /** The other hosts, by user id. */
  coHosts: BookingCoHost[];
  /** `teamId`: the team whose event type it is (a managed copy's: its parent's team). */
  eventType: { id: number; slug: string; teamId: number | null } | null;
  /** Set for bookings of a seated event type. */
  seating: { showAttendees: boolean } | null;
  /** Set for bookings of a paid event type. */
  payment: BookingPayment | null;
}

export async function insertBooking(db: Db, booking: NewBooking): Promise<BookingRow> {
  const [row] = await db.insert(bookings).values(booking).returning();
  return row!;
}

export async function insertAttendees(db: Db, attendees: NewAttendee[]): Promise<AttendeeRow[]> {
  if (attendees.length === 0) return [];
  return db.insert(bookingAttendees).values(attendees).returning();
}

export async function updateBooking(db: Db, id: number, changes: Partial<NewBooking>): Promise<BookingRow> {
  const [row] = await db.update(bookings).set({ ...changes, updatedAt: sql`now()` }).where(eq(bookings.id, id)).returning();
  return row!;
}

export async function findBookingById(db: Db, id: number): Promise<BookingRow | undefined> {
  const [row] = await db.select().from(bookings).where(eq(bookings.id, id));
  return row;
}

/** `share`: locked against changes until the transaction ends (a change waits, and this waits for one under way). */
export async function findBookingsByIds(db: Db, ids: number[], lock?: 'share'): Promise<BookingRow[]> {
  if (ids.length === 0) return [];
  const query = db.select().from(bookings).where(inArray(bookings.id, ids));
  return lock ? query.for(lock) : query;
}

export async function findBookingByUid(db: Db, uid: string): Promise<BookingRow | undefined> {
  const [row] = await db.select().from(bookings).where(eq(bookings.uid, uid));
  return row;
}

/** Locks the booking row: changes to one booking apply one after the other. */
export async function lockBookingByUid(db: Db, uid: string): Promise<BookingRow | undefined> {
  const [row] = await db.select().from(bookings).where(eq(bookings.uid, uid)).for('update');
  return row;
}

export async function findSeriesBookings(db: Db, recurringBookingUid: string): Promise<BookingRow[]> {
  return db.select().from(bookings).where(eq(bookings.recurringBookingUid, recurringBookingUid)).orderBy(asc(bookings.startAt));
}

/** The team an event type belongs to: its own, or for a member's managed copy its parent's. */
// Spelled out: drizzle leaves selected columns unqualified, which the subquery would read as its own.
const owningTeamId = sql<number | null>`coalesce(event_types.team_id, (select parent.team_id from event_types parent where parent.id = event_types.parent_id))`;

/** The team of an event type row (one read only for a managed copy). */
export async function owningTeamOf(db: Db, eventType: { id: number; teamId: number | null; parentId: number | null }): Promise<number | null> {
  if (eventType.teamId !== null || eventType.parentId === null) return eventType.teamId;
  const [row] = await db.select({ teamId: owningTeamId }).from(eventTypes).where(eq(eventTypes.id, eventType.id));
  return row?.teamId ?? null;
}

/** An attendee row as JSON (every column, by its property name), for `a` a booking_attendees row. */
const attendeeJson = sql.raw(
  `json_build_object(${Object.entries(getTableColumns(bookingAttendees))
    .map(([property, column]) => `'${property}', a."${column.name}"`)
    .join(', ')})`,
);

const paymentJson = sql.raw(
  `json_build_object('id', p.id, 'uid', p.uid, 'status', p.status, 'amount', p.amount, 'currency', p.currency, 'checkoutUrl', p.checkout_url,
    'holdUntil', p.hold_until, 'paidAt', p.paid_at, 'refundedAmount', p.refunded_amount, 'refundedAt', p.refunded_at)`,
);

interface RecordEventType {
  id: number;
  slug: string;
  teamId: number | null;
  seatsPerTimeSlot: number | null;
  seatsShowAttendees: boolean;
}

/** Bookings with their attendees, organizer and event type, in the order of `rows`. */
export async function loadRecords(db: Db, rows: BookingRow[]): Promise<BookingRecord[]> {
  if (rows.length === 0) return [];
  const ids = sql.param(rows.map((row) => row.id));
  const hostIds = sql.param([...new Set(rows.map((row) => row.userId))]);
  const typeIds = sql.param([...new Set(rows.flatMap((row) => (row.eventTypeId === null ? [] : [row.eventTypeId])))]);
  // Only bookings of paid event types read payments: the statement of a page without one is unchanged.
  const paymentIds = [...new Set(rows.flatMap((row) => (row.paymentId === null ? [] : [row.paymentId])))];
  // One statement, its parts as JSON: a page of bookings costs one round trip, not one per table.
  const result = (await db.execute(sql`select
    (select coalesce(json_agg(${attendeeJson} order by a.id), '[]'::json) from ${bookingAttendees} a where a.booking_id = any(${ids}::int[])) as attendees,
    (select coalesce(json_agg(json_build_object('id', u.id, 'name', u.name, 'email', u.email, 'username', u.username, 'timeZone', u.time_zone)), '[]'::json)
      from ${users} u where u.id = any(${hostIds}::int[])) as hosts,
    (select coalesce(json_agg(json_build_object('bookingId', bh.booking_id, 'id', u.id, 'name', u.name, 'email', u.email, 'timeZone', u.time_zone,
        'locale', u.locale) order by u.id), '[]'::json)
      from ${bookingHosts} bh join ${bookings} b on b.id = bh.booking_id join ${users} u on u.id = bh.user_id
      where bh.booking_id = any(${ids}::int[]) and bh.user_id <> b.user_id) as co_hosts,
    (select coalesce(json_agg(json_build_object('id', et.id, 'slug', et.slug, 'teamId', coalesce(et.team_id, parent.team_id),
        'seatsPerTimeSlot', et.seats_per_time_slot, 'seatsShowAttendees', et.seats_show_attendees)), '[]'::json)
      from ${eventTypes} et left join ${eventTypes} parent on parent.id = et.parent_id where et.id = any(${typeIds}::int[])) as types
    ${paymentIds.length === 0 ? sql`` : sql`, (select json_agg(${paymentJson}) from ${payments} p where p.id = any(${sql.param(paymentIds)}::int[])) as payments`}`)) as unknown as {
    rows: [{ attendees: (Omit<AttendeeRow, 'createdAt'> & { createdAt: string })[]; hosts: BookingHost[]; co_hosts: (BookingCoHost & { bookingId: number })[]; types: RecordEventType[]; payments?: BookingPayment[] | null }];
  };
  const { attendees, hosts, co_hosts: coHosts, types } = result.rows[0];
  // JSON prints instants in the session's zone: outputs show them in UTC, as every other instant.
  const utc = (instant: string | null) => instant && new Date(instant).toISOString();
  const paymentById = new Map(
    (result.rows[0].payments ?? []).map((payment) => [
      payment.id,
      { ...payment, holdUntil: utc(payment.holdUntil)!, paidAt: utc(payment.paidAt), refundedAt: utc(payment.refundedAt) },
    ]),
  );
  const hostById = new Map(hosts.map((host) => [host.id, host]));
  const typeById = new Map(types.map((type) => [type.id, type]));
  const attendeesOf = new Map<number, AttendeeRow[]>();
  for (const attendee of attendees) {
    attendeesOf.set(attendee.bookingId, [...(attendeesOf.get(attendee.bookingId) ?? []), { ...attendee, createdAt: new Date(attendee.createdAt) }]);
  }
  const coHostsOf = new Map<number, BookingCoHost[]>();
  for (const { bookingId, ...coHost } of coHosts) coHostsOf.set(bookingId, [...(coHostsOf.get(bookingId) ?? []), coHost]);
  return rows.map((booking) => {
    const type = booking.eventTypeId === null ? undefined : typeById.get(booking.eventTypeId);
    return {
      booking,
      attendees: attendeesOf.get(booking.id) ?? [],
      coHosts: coHostsOf.get(booking.id) ?? [],
      host: hostById.get(booking.userId) ?? { id: booking.userId, name: null, email: 'unknown', username: null, timeZone: 'UTC' },
      eventType: type ? { id: type.id, slug: type.slug, teamId: type.teamId } : null,
      seating: type && type.seatsPerTimeSlot !== null ? { showAttendees: type.seatsShowAttendees } : null,
      payment: booking.paymentId === null ? null : (paymentById.get(booking.paymentId) ?? null),
    };
  });
}

export async function findAttendeeBySeatUid(db: Db, seatUid: string): Promise<AttendeeRow | undefined> {
  const [row] = await db.select().from(bookingAttendees).where(eq(bookingAttendees.seatUid, seatUid));
  return row;
}

export async function deleteAttendee(db: Db, id: number): Promise<void> {
  await db.delete(bookingAttendees).where(eq(bookingAttendees.id, id));
}

/** Upcoming accepted or pending bookings of an event type made by the booker with this email, and the first of them. */
export async function activeBookingsOfBooker(db: Db, eventTypeId: number, email: string, now: number): Promise<{ count: number; firstUid: string | null }> {
  const [row] = await db
    .select({ count: sql<number>`count(distinct ${bookings.id})::int`, firstUid: sql<string | null>`min(${bookings.uid})` })
    .from(bookings)
    .innerJoin(bookingAttendees, eq(bookingAttendees.bookingId, bookings.id))
    .where(
      and(
        eq(bookings.eventTypeId, eventTypeId),
        inArray(bookings.status, ['accepted', 'pending']),
        gt(bookings.endAt, new Date(now)),
        eq(bookingAttendees.isGuest, false),
        sql`lower(${bookingAttendees.email}) = lower(${email})`,
      ),
    );
  return { count: row?.count ?? 0, firstUid: row?.firstUid ?? null };
}

export * from './bookings-list.repository.js';

export type NewBookingEvent = Omit<typeof bookingEvents.$inferInsert, 'id' | 'createdAt'>;

/** A value read in a booking event's statement: `with` joins its WITH clause, `value` is selected once. */
export interface EventStatementPart {
  with: SQL;
  value: SQL;
}

/**
 * Records a booking event. `alongside` (a query that does not depend on the event, such as the webhook
 * subscriptions that want it) runs in the same statement: its rows come back with the event's id.
 * `part` (the change's mail audience) is read by the same statement too, and comes back as `partValue`.
 */
export async function insertBookingEvent(
  db: Db,
  event: NewBookingEvent,
  alongside: SQL | null = null,
  part: EventStatementPart | null = null,
): Promise<{ id: number; createdAt: Date; alongside: Record<string, unknown>[]; partValue: unknown }> {
  if (!alongside && !part) {
    const [row] = await db.insert(bookingEvents).values(event).returning({ id: bookingEvents.id, createdAt: bookingEvents.createdAt });
    return { ...row!, alongside: [], partValue: null };
  }
  const result = await db.execute(sql`
    with event as (
      insert into ${bookingEvents} (booking_id, booking_uid, trigger, user_id, event_type_id, payload)
      values (${event.bookingId}, ${event.bookingUid}, ${event.trigger}, ${event.userId}, ${event.eventTypeId ?? null}, ${JSON.stringify(event.payload)}::jsonb)
      returning id, created_at
    )${part ? sql`, ${part.with}, statement_part as (select ${part.value} as part_value)` : sql``}
    select event.id as event_id, (extract(epoch from event.created_at) * 1000)::float8 as event_created_ms${part ? sql`, statement_part.part_value` : sql``}${alongside ? sql`, alongside.*` : sql``}
    from event${part ? sql` cross join statement_part` : sql``}${alongside ? sql` left join (${alongside}) alongside on true` : sql``}`);
  const rows = (result as unknown as { rows: Record<string, unknown>[] }).rows;
  const alongsideRows = !alongside ? [] : part ? rows.map(({ part_value: _part, ...row }) => row) : rows;
  return { id: Number(rows[0]!.event_id), createdAt: new Date(Number(rows[0]!.event_created_ms)), alongside: alongsideRows, partValue: rows[0]!.part_value ?? null };
}

/**
 * Whether the booking already has an event of this trigger (a job re-run after a crash records nothing
 * twice); with `containing`, one whose payload holds those fields.
 */
export async function hasBookingEvent(db: Db, bookingUid: string, trigger: string, containing?: Record<string, unknown>): Promise<boolean> {
  const [row] = await db
    .select({ id: bookingEvents.id })
    .from(bookingEvents)
    .where(and(eq(bookingEvents.bookingUid, bookingUid), eq(bookingEvents.trigger, trigger), containing ? sql`${bookingEvents.payload} @> ${JSON.stringify(containing)}::jsonb` : undefined))
    .limit(1);
  return row !== undefined;
}


/** The events svc wrote into calendars for a booking (its references), oldest first. */
export async function listCalendarEventsOfBooking(db: Db, bookingId: number) {
  return db
    .select({ id: bookingCalendarEvents.id, type: bookingCalendarEvents.type, icsUid: bookingCalendarEvents.icsUid, eventId: bookingCalendarEvents.eventId, calendarExternalId: bookingCalendarEvents.calendarExternalId })
    .from(bookingCalendarEvents)
    // A host's private note event is theirs, not a reference of the booking.
    .where(and(eq(bookingCalendarEvents.bookingId, bookingId), eq(bookingCalendarEvents.note, false)))
    .orderBy(asc(bookingCalendarEvents.id));
}

export type CalendarCheckTarget =
  | { kind: 'id'; eventTypeId: number }
  | { kind: 'slug'; username: string; eventTypeSlug: string }
  | { kind: 'team'; teamSlug: string; eventTypeSlug: string }
  /** A booking being rescheduled or reassigned: its event type's hosts. */
  | { kind: 'booking'; uid: string };

/**
 * Hosts of the event type a booking names who read connected calendars (selected, on a valid
 * connection), at most `limit`: whose calendars are read live before the booking is written.
 */
export async function calendarHostsOfTarget(db: Db, target: CalendarCheckTarget, limit: number): Promise<number[]> {
  const named =
    target.kind === 'id'
      ? sql`select et.id, et.user_id from event_types et where et.id = ${target.eventTypeId}`
      : target.kind === 'slug'
        ? sql`select et.id, et.user_id from event_types et join users u on u.id = et.user_id where lower(u.username) = lower(${target.username}) and et.slug = ${target.eventTypeSlug}`
        : target.kind === 'team'
          ? sql`select et.id, et.user_id from event_types et join teams t on t.id = et.team_id where t.slug = ${target.teamSlug} and et.slug = ${target.eventTypeSlug}`
          : sql`select et.id, et.user_id from event_types et join bookings b on b.event_type_id = et.id where b.uid = ${target.uid}`;
  const result = await db.execute(sql`
    with named as (${named}),
    hosts as (select user_id as id from named where user_id is not null
      union select h.user_id from event_type_hosts h where h.event_type_id in (select id from named))
    select distinct s.user_id from calendar_sources s join calendar_connections c on c.id = s.connection_id
    where s.user_id in (select id from hosts) and s.selected and not c.invalid
    limit ${limit}`);
  return (result as unknown as { rows: { user_id: number }[] }).rows.map((row) => Number(row.user_id));
}
