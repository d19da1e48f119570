import type { ReassignedBooking } from './changes/booking-reassign.service.js';
import type { AttendeeRow, BookingCoHost, BookingPayment, BookingRecord } from './bookings.repository.js';

/** Uppercase statuses inside svc would be the reference's database form; the REST output is lowercase. */
const iso = (date: Date) => date.toISOString();

function presentAttendee(attendee: AttendeeRow) {
  return {
    name: attendee.name,
    email: attendee.email,
    displayEmail: displayEmailOf(attendee.email),
    timeZone: attendee.timeZone,
    language: attendee.locale ?? 'en',
    absent: attendee.absent,
    ...(attendee.phoneNumber ? { phoneNumber: attendee.phoneNumber } : {}),
  };
}

/**
 * The booking's other hosts are among its attendees, after the booker and guests, as the reference
 * writes them (its createBooking adds `evt.team.members` to the attendee rows).
 */
function presentCoHost(coHost: BookingCoHost) {
  return {
    name: coHost.name ?? '',
    email: coHost.email,
    displayEmail: displayEmailOf(coHost.email),
    timeZone: coHost.timeZone,
    language: coHost.locale ?? 'en',
    absent: false,
  };
}

/** Fields only set by a cancellation or a reschedule are left out until then, as the reference does. */
function optionalFields(booking: BookingRecord['booking']) {
  const fields: Record<string, string> = {};
  if (booking.cancellationReason !== null) fields.cancellationReason = booking.cancellationReason;
  if (booking.cancelledByEmail !== null) fields.cancelledByEmail = booking.cancelledByEmail;
  if (booking.reschedulingReason !== null) fields.reschedulingReason = booking.reschedulingReason;
  if (booking.rescheduledByEmail !== null) fields.rescheduledByEmail = booking.rescheduledByEmail;
  if (booking.rescheduledFromUid !== null) fields.rescheduledFromUid = booking.rescheduledFromUid;
  if (booking.rescheduledToUid !== null) fields.rescheduledToUid = booking.rescheduledToUid;
  if (booking.recurringBookingUid !== null) fields.recurringBookingUid = booking.recurringBookingUid;
  return fields;
}

function presentCommon(record: BookingRecord) {
  const { booking, host, eventType } = record;
  return {
    id: booking.id,
    uid: booking.uid,
    title: booking.title,
    description: booking.description,
    hosts: [{ id: host.id, name: host.name, email: host.email, displayEmail: displayEmailOf(host.email), username: host.username ?? 'unknown', timeZone: host.timeZone }],
    status: booking.status,
    ...optionalFields(booking),
    start: iso(booking.startAt),
    end: iso(booking.endAt),
    duration: Math.round((booking.endAt.getTime() - booking.startAt.getTime()) / 60_000),
    eventTypeId: booking.eventTypeId,
    eventType,
    location: booking.location ?? '',
    // Deprecated, but always sent by the reference, as a copy of the location.
    meetingUrl: booking.location ?? '',
    absentHost: booking.absentHost,
    createdAt: iso(booking.createdAt),
    updatedAt: iso(booking.updatedAt),
    rating: booking.rating,
    icsUid: booking.icsUid,
    ...(record.payment ? { payment: presentPayment(record.payment) } : {}),
  };
}

/** svc: what a paid event type's booking charges; the payment page and the hold's end only while it awaits payment. */
function presentPayment(payment: BookingPayment) {
  const awaiting = payment.status === 'awaiting';
  return {
    uid: payment.uid,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    paymentLink: awaiting ? payment.checkoutUrl : null,
    expiresAt: awaiting ? payment.holdUntil : null,
    paidAt: payment.paidAt,
    refundedAmount: payment.refundedAmount,
    refundedAt: payment.refundedAt,
  };
}

/** `BookingOutput_2024_08_13` (`RecurringBookingOutput` when it belongs to a series). */
export function presentBooking(record: BookingRecord) {
  const guests = record.booking.responses.guests;
  return {
    ...presentCommon(record),
    attendees: [...record.attendees.map(presentAttendee), ...record.coHosts.map(presentCoHost)],
    ...(Array.isArray(guests) && guests.length > 0 ? { guests: guests as string[] } : {}),
    metadata: record.booking.metadata,
    bookingFieldsResponses: withDisplayAddresses(record.booking.responses),
  };
}

/** The answers with the booker's and guests' addresses as shown (`displayEmail`, `displayGuests`), as the reference adds them. */
function withDisplayAddresses(responses: Record<string, unknown>): Record<string, unknown> {
  const { email, guests } = responses;
  return {
    ...responses,
    ...(typeof email === 'string' ? { displayEmail: displayEmailOf(email) } : {}),
    ...(Array.isArray(guests) ? { displayGuests: guests.map((guest) => (typeof guest === 'string' ? displayEmailOf(guest) : guest)) } : {}),
  };
}

/**
 * A seated booking: each attendee is a seat with its own answers; the booking has no top-level
 * answers. Attendees are shown to the organizer, or to anyone when the event type shows attendees.
 * Other hosts hold no seat and are not listed among them.
 */
export function presentSeatedBooking(record: BookingRecord, showAttendees: boolean) {
  return {
    ...presentCommon(record),
    attendees: showAttendees
      ? record.attendees.map((attendee) => ({
          ...presentAttendee(attendee),
          seatUid: attendee.seatUid ?? '',
          bookingFieldsResponses: attendee.seatResponses ?? {},
          metadata: attendee.seatMetadata ?? {},
        }))
      : [],
  };
}

/**
 * The address to show: the reference's getDisplayEmail drops the `+` and 25-character OAuth client id
 * its managed users' addresses carry (svc stores them alike: `alice+c...@example.com`).
 */
export const displayEmailOf = (email: string) => email.replace(/\+[a-zA-Z0-9]{25}/, '');

/** `ReassignBookingOutput_2024_08_13`: the new host, a missing name as the reference's "unknown". */
export function presentReassignedBooking(reassigned: ReassignedBooking) {
  const { id, name, email } = reassigned.reassignedTo;
  return { bookingUid: reassigned.bookingUid, reassignedTo: { id, name: name || 'unknown', email, displayEmail: displayEmailOf(email) } };
}
