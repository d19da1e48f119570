/**
 * Who may act on a user's own resources and on bookings: the rules every service asks, kept beside the
 * organization and team rules (tenant-access.ts) so there is one module that says who may act. Services
 * ask these where they hold the resource (inside their transaction) and answer with the reference's
 * refusal for that route. Team scheduling extends them with hosts and team roles.
 */
import type { BookingRecord, BookingRow } from '../bookings/bookings.repository.js';

export interface Actor {
  id: number;
  role: 'USER' | 'ADMIN';
}

/** A schedule is its owner's alone (a team's schedule belongs to no user). */
export function ownsSchedule(userId: number, schedule: { userId: number | null }): boolean {
  return schedule.userId === userId;
}

/** A personal event type: its owner manages it and its webhooks. */
export function ownsEventType(userId: number | null, eventType: { userId: number | null }): boolean {
  return userId !== null && eventType.userId === userId;
}

/** Reserving with credentials is for the event type's hosts. */
export function hostsEventType(userId: number, hosts: readonly { userId: number }[]): boolean {
  return hosts.some((host) => host.userId === userId);
}

/** A user's webhook subscription: its owner, and the system admin (the reference's IsUserWebhookGuard). */
export function mayManageUserWebhook(caller: Actor, ownerUserId: number): boolean {
  return ownerUserId === caller.id || caller.role === 'ADMIN';
}

/** The booking's organizer (its host). */
export function isBookingOrganizer(booking: BookingRow, userId: number | null): boolean {
  return userId !== null && booking.userId === userId;
}

/** An attendee (booker or guest) signed in with the verified email they booked with. */
export function isBookingAttendee(record: BookingRecord, email: string | null): boolean {
  if (email === null) return false;
  const lowered = email.toLowerCase();
  return record.attendees.some((attendee) => attendee.email.toLowerCase() === lowered);
}
