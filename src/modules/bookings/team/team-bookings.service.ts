import type { Db } from '../../../db/client.js';
import { fieldRejected, forbidden, notFound } from '../../../lib/errors.js';
import { type BookingReference, referencesOfBooking } from '../details/booking-details.service.js';
import * as repo from '../bookings.repository.js';
import { listScopedBookings, type ListBookingsInput } from '../bookings.service.js';
import { findUsersForOrganization } from './team-bookings.repository.js';

/** The bookings of the team's event types, and of its managed event types' copies. */
export function listTeamBookings(db: Db, teamId: number, input: ListBookingsInput, now: number) {
  return listScopedBookings(db, { kind: 'team', teamId }, input, now);
}

/**
 * The organization's bookings; `userIds` keeps those these users host or attend, and must name
 * members of the organization (the reference's 400 when none exists, 403 when one is not a member).
 */
export async function listOrganizationBookings(db: Db, organizationId: number, input: ListBookingsInput & { userIds?: number[] | undefined }, now: number) {
  const { userIds, ...filters } = input;
  if (userIds === undefined) return listScopedBookings(db, { kind: 'organization', organizationId }, filters, now);
  const found = await findUsersForOrganization(db, organizationId, userIds);
  if (found.length === 0) throw fieldRejected('userIds', 'users_not_found', 'The requested users do not exist.', userIds.join(','));
  if (userIds.some((id) => !found.find((user) => user.id === id)?.member)) {
    throw forbidden('users_not_in_organization', 'You do not have permissions to fetch bookings for specified userIds');
  }
  const participants = { userIds, emails: found.flatMap((user) => (user.verifiedEmail ? [user.verifiedEmail] : [])) };
  return listScopedBookings(db, { kind: 'organization', organizationId }, { ...filters, participants }, now);
}

/** The organization's bookings the user hosts or attends (the caller checked that the user is in the organization). */
export async function listOrganizationUserBookings(db: Db, organizationId: number, userId: number, input: ListBookingsInput, now: number) {
  const [user] = await findUsersForOrganization(db, organizationId, [userId]);
  const participants = { userIds: [userId], emails: user?.verifiedEmail ? [user.verifiedEmail] : [] };
  return listScopedBookings(db, { kind: 'organization', organizationId }, { ...input, participants }, now);
}

/** The calendar events svc wrote for one of the team's bookings; a booking that is not the team's is a 404. */
export async function teamBookingReferences(db: Db, teamId: number, uid: string, type?: string): Promise<BookingReference[]> {
  const booking = await repo.findScopedBooking(db, { kind: 'team', teamId }, uid);
  if (!booking) throw notFound('booking_not_found', `Booking with uid ${uid} not found`);
  return referencesOfBooking(db, booking.id, type);
}
