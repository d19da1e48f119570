import type { ChangeEvent } from '../../../db/change-feed.js';
import type { Db } from '../../../db/client.js';
import { lockHostTime } from '../../../db/locks.js';
import { badRequest, fieldRejected, forbidden, notFound, unauthorized } from '../../../lib/errors.js';
import type { OutsideMailTally } from '../../mail/mail-budget.js';
import { DEFAULT_SETTINGS, type EventTypeSettings } from '../../event-types/event-type-model.js';
import { type EventTypeRow, findEventTypeById } from '../../event-types/event-types.repository.js';
import * as changes from './booking-changes.repository.js';
import { listHostIdsOfBookings } from '../hosts/booking-hosts.repository.js';
import { type BookingEventListener, recordBookingEvent } from '../booking-events.js';
import { isBookingOrganizer as isOrganizer } from '../../access/resource-policy.js';
import type { BuiltInVideo } from '../../conferencing/built-in-video.js';
import { settleOnClose } from '../../payments/payments.service.js';
import * as repo from '../bookings.repository.js';
import type { BookingRecord, BookingRow } from '../bookings.repository.js';

export const MINUTE = 60_000;
const NOT_A_HOST = 'User not a host of this event or an admin of the booking user';

export interface ChangeContext {
  tx: Db;
  /** Who hears of the booking events the change records (the webhook subscriptions). */
  listener: BookingEventListener;
  announce: (event: ChangeEvent) => Promise<void>;
  now: number;
  /** The authenticated caller, if any. */
  caller: { id: number; email: string } | null;
  /** Set for a request without credentials: counts what it mails to people other than the hosts. */
  mailTally?: OutsideMailTally | null | undefined;
  /** Where built-in video rooms live: a seat moved into a booking of its own gets a room of its own. */
  video?: BuiltInVideo | undefined;
}

/** A booking, or every occurrence of its series (presented like GET /v2/bookings/{uid}). */
export interface FoundBookings {
  records: BookingRecord[];
  series: boolean;
}

export const isClosed = (booking: BookingRow) => booking.status === 'cancelled' || booking.status === 'rejected';
export const bookingNotFound = (uid: string) => notFound('booking_not_found', `Booking with uid=${uid} was not found in the database`);
export const callerIsOrganizer = (ctx: ChangeContext, booking: BookingRow) => isOrganizer(booking, ctx.caller?.id ?? null);
export const hostIds = (rows: { userId: number }[]) => rows.map((row) => row.userId);

export async function eventTypeOf(tx: Db, booking: BookingRow): Promise<EventTypeRow | null> {
  if (booking.eventTypeId === null) return null;
  return (await findEventTypeById(tx, booking.eventTypeId)) ?? null;
}

/** Settings stored before a key existed read as the reference's default. */
export const settingsOf = (eventType: EventTypeRow | null): EventTypeSettings => ({ ...DEFAULT_SETTINGS, ...eventType?.settings });

/** Tells the availability cache that every host of these bookings (co-hosts too) changed. */
export async function announceHosts(ctx: ChangeContext, rows: BookingRow[]): Promise<void> {
  const coHosts = await listHostIdsOfBookings(ctx.tx, rows.map((row) => row.id));
  for (const userId of new Set([...hostIds(rows), ...coHosts])) await ctx.announce({ kind: 'busyTime', userId });
}

export async function seriesRecords(tx: Db, recurringBookingUid: string): Promise<FoundBookings> {
  return { records: await repo.loadRecords(tx, await repo.findSeriesBookings(tx, recurringBookingUid)), series: true };
}

export interface CancelInput {
  uid: string;
  cancellationReason?: string | undefined;
  cancelSubsequentBookings?: boolean | undefined;
  seatUid?: string | undefined;
}

function assertMayCancel(ctx: ChangeContext, booking: BookingRow, eventType: EventTypeRow | null, reason: string | undefined): void {
  const organizer = callerIsOrganizer(ctx, booking);
  if (settingsOf(eventType).disableCancelling && !organizer) throw badRequest('cancelling_disabled', 'This event type does not allow cancellations');
  if (organizer && !reason?.trim()) throw fieldRejected('cancellationReason', 'cancellation_reason_required', 'Cancellation reason is required when you are the host', reason);
}

/** Only the organizer may cancel a whole seated booking; the seats' bookers cancel their own seat. */
function assertSeatedHost(ctx: ChangeContext, booking: BookingRow, eventType: EventTypeRow | null): void {
  if (eventType?.seatsPerTimeSlot == null || callerIsOrganizer(ctx, booking)) return;
  if (ctx.caller === null) throw unauthorized('not_booking_host', NOT_A_HOST);
  throw forbidden('not_booking_host', NOT_A_HOST);
}

async function markCancelled(ctx: ChangeContext, rows: BookingRow[], reason: string | undefined): Promise<BookingRecord[]> {
  const before = await repo.loadRecords(ctx.tx, rows);
  const updated: BookingRow[] = [];
  for (const { booking, attendees } of before) {
    const booker = attendees.find((attendee) => !attendee.isGuest);
    const cancelledByEmail = ctx.caller?.email ?? booker?.email ?? null;
    updated.push(await repo.updateBooking(ctx.tx, booking.id, { status: 'cancelled', cancellationReason: reason ?? null, cancelledByEmail }));
  }
  await announceHosts(ctx, updated);
  const records = await repo.loadRecords(ctx.tx, updated);
  // Guests who were never told of the booking (it was waiting for confirmation) are not told it is off;
  // nobody is told of one that was never paid for (nobody was told of it).
  const wasAccepted = new Set(rows.filter((row) => row.status === 'accepted').map((row) => row.id));
  const wasUnpaid = new Set(before.filter((record) => record.payment?.status === 'awaiting').map((record) => record.booking.id));
  for (const record of records) {
    await settleOnClose(ctx.tx, record, callerIsOrganizer(ctx, record.booking) ? 'host' : 'attendee', ctx.now);
    const mail = { toGuests: wasAccepted.has(record.booking.id), tally: ctx.mailTally, silent: wasUnpaid.has(record.booking.id) };
    await recordBookingEvent(ctx, 'BOOKING_CANCELLED', record, { cancellationReason: reason ?? null }, [], mail);
  }
  return records;
}

/**
 * Cancels a booking, one seat of it, this and the later occurrences of its series, or (by
 * recurringBookingUid) every upcoming occurrence. Under the host's time lock, so a booking being
 * checked at the same moment sees the time freed only once this commits.
 */
export async function cancelBooking(ctx: ChangeContext, input: CancelInput): Promise<FoundBookings> {
  const { tx, now } = ctx;
  const found = await repo.findBookingByUid(tx, input.uid);
  if (!found) return cancelSeries(ctx, input);
  const seriesUid = found.recurringBookingUid;
  if (input.cancelSubsequentBookings && seriesUid === null) {
    throw badRequest('booking_not_recurring', `Booking with bookingUid=${input.uid} is not part of a recurring booking.`);
  }
  const series = input.cancelSubsequentBookings ? await repo.findSeriesBookings(tx, seriesUid!) : [found];
  await lockHostTime(tx, hostIds(series));
  const booking = (await repo.lockBookingByUid(tx, input.uid))!;
  if (isClosed(booking)) {
    throw badRequest('booking_already_cancelled', `Can't cancel booking with uid=${input.uid} because it has been cancelled already. Please provide uid of a booking that is not cancelled.`);
  }
  if (booking.endAt.getTime() < now) throw badRequest('booking_ended', 'Cannot cancel a booking that has already ended');
  const eventType = await eventTypeOf(tx, booking);
  assertMayCancel(ctx, booking, eventType, input.cancellationReason);
  if (input.seatUid !== undefined) return cancelSeat(ctx, booking, input.seatUid, input.cancellationReason);
  assertSeatedHost(ctx, booking, eventType);
  if (!input.cancelSubsequentBookings) return { records: await markCancelled(ctx, [booking], input.cancellationReason), series: false };
  const later = (await repo.findSeriesBookings(tx, seriesUid!)).filter((row) => row.startAt >= booking.startAt && !isClosed(row));
  await markCancelled(ctx, later, input.cancellationReason);
  return seriesRecords(tx, seriesUid!);
}

async function cancelSeries(ctx: ChangeContext, input: CancelInput): Promise<FoundBookings> {
  const { tx, now } = ctx;
  const series = await repo.findSeriesBookings(tx, input.uid);
  if (series.length === 0) throw bookingNotFound(input.uid);
  if (input.cancelSubsequentBookings) {
    throw badRequest(
      'series_uid_with_cancel_subsequent',
      'Cannot cancel subsequent bookings for recurring event - you have to provide uid of one of the individual bookings of a recurring booking.',
    );
  }
  await lockHostTime(tx, hostIds(series));
  const fresh = await repo.findSeriesBookings(tx, input.uid);
  const eventType = await eventTypeOf(tx, fresh[0]!);
  assertMayCancel(ctx, fresh[0]!, eventType, input.cancellationReason);
  assertSeatedHost(ctx, fresh[0]!, eventType);
  const upcoming = fresh.filter((row) => row.startAt.getTime() >= now);
  const open = upcoming.filter((row) => !isClosed(row));
  if (open.length === 0 && upcoming.length > 0) {
    throw badRequest('booking_already_cancelled', `Can't cancel booking with uid=${input.uid} because it has been cancelled already. Please provide uid of a booking that is not cancelled.`);
  }
  if (open.length === 0) throw badRequest('booking_ended', 'Cannot cancel a booking that has already ended');
  await markCancelled(ctx, open, input.cancellationReason);
  return seriesRecords(tx, input.uid);
}

/** Removes one seat; the booking is cancelled with its last seat. */
async function cancelSeat(ctx: ChangeContext, booking: BookingRow, seatUid: string, reason: string | undefined): Promise<FoundBookings> {
  const { tx } = ctx;
  const seat = await repo.findAttendeeBySeatUid(tx, seatUid);
  if (!seat) throw badRequest('seat_not_found', 'Invalid seatUid: this seat does not exist or has already been cancelled.');
  if (seat.bookingId !== booking.id) throw badRequest('seat_not_in_booking', 'Invalid seatUid: this seat does not belong to this booking.');
  await repo.deleteAttendee(tx, seat.id);
  let row = booking;
  if ((await changes.countAttendees(tx, booking.id)) === 0) {
    row = await repo.updateBooking(tx, booking.id, { status: 'cancelled', cancellationReason: reason ?? null, cancelledByEmail: ctx.caller?.email ?? seat.email });
  }
  await announceHosts(ctx, [row]);
  const records = await repo.loadRecords(tx, [row]);
  await recordBookingEvent(ctx, 'BOOKING_CANCELLED', records[0]!, { cancellationReason: reason ?? null, seatUid, attendeeEmail: seat.email }, [], {
    removedAttendee: { name: seat.name, email: seat.email, timeZone: seat.timeZone, locale: seat.locale },
    tally: ctx.mailTally,
  });
  return { records, series: false };
}
