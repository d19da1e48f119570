import type { BookingRecord, BookingRow } from './bookings.repository.js';

/**
 * Who may act on a booking. Personal event types have one host, the organizer; team roles join these
 * checks when teams exist.
 */
export function isOrganizer(booking: BookingRow, userId: number | null): boolean {
  return userId !== null && booking.userId === userId;
}

/** An attendee (booker or guest) signed in with the email they booked with. */
export function isAttendee(record: BookingRecord, email: string | null): boolean {
  if (email === null) return false;
  const lowered = email.toLowerCase();
  return record.attendees.some((attendee) => attendee.email.toLowerCase() === lowered);
}
