import type { AppContext } from '../../app/context.js';
import type { Db } from '../../db/client.js';
import { fieldRejected, notFound } from '../../lib/errors.js';
import { END_OF_TIME, utcTime } from '../../scheduling/zones.js';
import * as repo from './bookings.repository.js';
import type { BookingListFilter, BookingListScope, BookingRecord, CalendarCheckTarget, ListStatus } from './bookings.repository.js';

/** Hosts whose calendars are read live before one booking at most (a large round-robin team relies on its syncs). */
const LIVE_CHECKED_HOSTS = 10;

/**
 * Before a booking is written (created, rescheduled, reassigned): the hosts' connected calendars are
 * read again, outside the booking's transaction and locks, so an event added since the last sync counts.
 */
export async function readHostCalendarsLive(ctx: Pick<AppContext, 'config' | 'database' | 'refreshCalendarsBeforeBooking'>, target: CalendarCheckTarget): Promise<void> {
  if (ctx.config.calendars.liveCheckMs <= 0) return;
  await ctx.refreshCalendarsBeforeBooking(await repo.calendarHostsOfTarget(ctx.database.db, target, LIVE_CHECKED_HOSTS));
}

/** A booking by its uid, or every occurrence of the series when the uid is a recurringBookingUid. */
export async function getBooking(db: Db, uid: string): Promise<{ records: BookingRecord[]; series: boolean }> {
  const row = await repo.findBookingByUid(db, uid);
  if (row) return { records: await repo.loadRecords(db, [row]), series: false };
  const series = await repo.findSeriesBookings(db, uid);
  if (series.length === 0) throw notFound('booking_not_found', `Booking with uid=${uid} was not found in the database`);
  return { records: await repo.loadRecords(db, series), series: true };
}

export interface ListBookingsInput extends Omit<BookingListFilter, 'scope' | 'now' | 'order'> {
  sort: { start?: 'asc' | 'desc' | undefined; end?: 'asc' | 'desc' | undefined; created?: 'asc' | 'desc' | undefined; updated?: 'asc' | 'desc' | undefined };
}

const INSTANT_FILTERS = ['afterStart', 'beforeEnd', 'afterCreatedAt', 'beforeCreatedAt', 'afterUpdatedAt', 'beforeUpdatedAt'] as const;
const FIRST_STORABLE = utcTime(1, 0, 1);

/**
 * Date filters moved into the range bookings can hold (0001-01-01 to END_OF_TIME): the same bookings
 * match, and the database is never handed a year it cannot read (year 0, or 10000 and later).
 */
function storableBounds(filters: Pick<BookingListFilter, (typeof INSTANT_FILTERS)[number]>): Partial<BookingListFilter> {
  const bounded: Partial<BookingListFilter> = {};
  for (const name of INSTANT_FILTERS) {
    const value = filters[name];
    if (value !== undefined) bounded[name] = Math.min(Math.max(value, FIRST_STORABLE), END_OF_TIME);
  }
  return bounded;
}

/** With one status and no sort, past and cancelled bookings come newest first, as in the reference. */
function orderOf(input: ListBookingsInput): BookingListFilter['order'] {
  const { sort } = input;
  if (sort.start) return { column: 'start', direction: sort.start };
  if (sort.end) return { column: 'end', direction: sort.end };
  if (sort.created) return { column: 'created', direction: sort.created };
  if (sort.updated) return { column: 'updated', direction: sort.updated };
  const only: ListStatus | undefined = input.statuses?.length === 1 ? input.statuses[0] : undefined;
  return { column: 'start', direction: only === 'past' || only === 'cancelled' ? 'desc' : 'asc' };
}

/** The caller's bookings: those they host and those they attend (by their verified email). */
export async function listBookings(db: Db, caller: { id: number; verifiedEmail: string | null }, input: ListBookingsInput, now: number) {
  return listScopedBookings(db, { kind: 'user', userId: caller.id, email: caller.verifiedEmail }, input, now);
}

/** One page of the bookings a scope holds (a user's, a team's, an organization's) that match the filters. */
export async function listScopedBookings(db: Db, scope: BookingListScope, input: ListBookingsInput, now: number) {
  const { sort: _sort, ...filters } = input;
  // The reference's handler refuses event type filters that name nothing (getEventTypeIdsFromEventTypeIdsFilter).
  if (filters.eventTypeIds && !(await repo.anyEventTypeExists(db, filters.eventTypeIds))) {
    throw fieldRejected('eventTypeIds', 'event_types_not_found', 'The requested event-types do not exist.', filters.eventTypeIds.join(','));
  }
  const { rows, total } = await repo.listBookings(db, { ...filters, ...storableBounds(filters), scope, now, order: orderOf(input) });
  return { records: await repo.loadRecords(db, rows), total };
}
