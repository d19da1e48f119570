import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { bookingHosts, users } from '../../../db/schema.js';
import type { BookingStatus } from '../../../db/schema/bookings.js';
import type { BookingCoHost, BookingHost } from '../bookings.repository.js';

/**
 * The hosts of a booking besides its organizer (whose row the insert trigger writes). Their rows
 * carry the booking's time and status, so the exclusion constraint protects them too.
 */
export async function insertCoHosts(db: Db, booking: { id: number; startAt: Date; endAt: Date; status: BookingStatus }, userIds: readonly number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.insert(bookingHosts).values(userIds.map((userId) => ({ bookingId: booking.id, userId, startAt: booking.startAt, endAt: booking.endAt, status: booking.status })));
}

/**
 * Puts `toUserId` in `fromUserId`'s place among a booking's co-hosts (a reassignment that keeps the
 * organizer); the exclusion constraint checks the new host's time.
 */
export async function replaceCoHost(db: Db, bookingId: number, fromUserId: number, toUserId: number): Promise<void> {
  await db
    .update(bookingHosts)
    .set({ userId: toUserId })
    .where(and(eq(bookingHosts.bookingId, bookingId), eq(bookingHosts.userId, fromUserId)));
}

/** Every host (organizer and co-hosts) of the given bookings. */
export async function listHostIdsOfBookings(db: Db, bookingIds: readonly number[]): Promise<number[]> {
  if (bookingIds.length === 0) return [];
  const rows = await db.selectDistinct({ userId: bookingHosts.userId }).from(bookingHosts).where(inArray(bookingHosts.bookingId, [...bookingIds]));
  return rows.map((row) => row.userId);
}

export async function findHostUsers(db: Db, userIds: readonly number[]): Promise<BookingHost[]> {
  if (userIds.length === 0) return [];
  return db
    .select({ id: users.id, name: users.name, email: users.email, username: users.username, timeZone: users.timeZone })
    .from(users)
    .where(inArray(users.id, [...userIds]));
}

/** Hosts of a booking besides its organizer, as its outputs list them (by user id, as loadRecords does). */
export async function findCoHosts(db: Db, userIds: readonly number[]): Promise<BookingCoHost[]> {
  if (userIds.length === 0) return [];
  return db
    .select({ id: users.id, name: users.name, email: users.email, timeZone: users.timeZone, locale: users.locale })
    .from(users)
    .where(inArray(users.id, [...userIds]))
    .orderBy(asc(users.id));
}

export interface HostStandingRow {
  userId: number;
  bookingsInPeriod: number;
  lastBookedAt: number | null;
}

/**
 * Each host's accepted and pending bookings of the event type made since `periodStart`, and when they
 * last took one: what round robin weighs hosts by. Read host by host from the host's own bookings
 * (`offset 0` keeps the planner from driving it by the event type instead, whose bookings outnumber
 * one host's as the team grows). Hosts without such a booking have no row.
 */
export async function listHostStandings(db: Db, eventTypeId: number, userIds: readonly number[], periodStart: number): Promise<HostStandingRow[]> {
  if (userIds.length === 0) return [];
  const result = await db.execute(sql`
    select u.id as "userId", s.in_period as "bookingsInPeriod", s.last_booked as "lastBookedAt"
    from unnest(${`{${userIds.join(',')}}`}::int[]) as u(id)
    cross join lateral (
      select count(*) filter (where b.created_at >= ${new Date(periodStart).toISOString()}::timestamptz)::int as in_period,
        (extract(epoch from max(b.created_at)) * 1000)::float8 as last_booked
      from (select booking_id from booking_hosts where user_id = u.id and status in ('accepted', 'pending') offset 0) bh
      join bookings b on b.id = bh.booking_id
      where b.event_type_id = ${eventTypeId} and b.status in ('accepted', 'pending')
    ) s
    where s.last_booked is not null
  `);
  return (result as unknown as { rows: HostStandingRow[] }).rows;
}
