// What a booking request must satisfy before any slot is checked: who may book, the length, the
// number of occurrences, whether it waits for confirmation and the booker's standing.
import type { Db } from '../../../db/client.js';
import { fieldRejected, forbidden, invalidField, unauthorized } from '../../../lib/errors.js';
import { loadTenancy } from '../../access/access.repository.js';
import { hostsEventType, ownsEventType } from '../../access/resource-policy.js';
import type { ConfirmationPolicy } from '../../event-types/event-type-model.js';
import type { EventTypeRow } from '../../event-types/event-types.repository.js';
import * as repo from '../bookings.repository.js';

const MINUTE = 60_000;

/** Whether the caller is an admin or owner of the event type's team, or of that team's organization. */
async function administersTeamOf(tx: Db, eventType: EventTypeRow, callerId: number): Promise<boolean> {
  if (eventType.teamId === null) return false;
  const tenancy = await loadTenancy(tx, callerId, [eventType.teamId]);
  return [...tenancy.held.values()].some((held) => held.accepted && held.role !== 'MEMBER');
}

export async function assertMayBook(tx: Db, eventType: EventTypeRow, hosts: readonly { userId: number }[], callerId: number | null): Promise<void> {
  if (!eventType.bookingRequiresAuthentication) return;
  if (callerId === null) {
    throw unauthorized(
      'booking_requires_authentication',
      'checkBookingRequiresAuthentication - request must be authenticated by passing credentials belonging to event type owner, host or team or org admin or owner.',
    );
  }
  if (!ownsEventType(callerId, eventType) && !hostsEventType(callerId, hosts) && !(await administersTeamOf(tx, eventType, callerId))) {
    throw forbidden(
      'booking_requires_authentication',
      'checkBookingRequiresAuthentication - user is not authorized to access this event type. User has to be either event type owner, host, team admin or owner or org admin or owner.',
    );
  }
}

/** The reference's rules for `lengthInMinutes`. */
export function bookingLength(eventType: EventTypeRow, requested: number | undefined): number {
  if (requested === undefined) return eventType.lengthInMinutes;
  const options = eventType.lengthInMinutesOptions;
  if (options.length === 0) {
    throw fieldRejected('lengthInMinutes', 'not_variable_length', "Can't specify 'lengthInMinutes' because event type does not have multiple possible lengths. Please, remove the 'lengthInMinutes' field from the request.", requested);
  }
  if (!options.includes(requested)) {
    throw fieldRejected('lengthInMinutes', 'length_not_allowed', `Provided 'lengthInMinutes' is not one of the possible lengths for the event type. The possible lengths are: ${options.join(', ')}`, requested);
  }
  return requested;
}

export function occurrenceCount(eventType: EventTypeRow, requested: number | undefined): number {
  if (requested === undefined) return eventType.recurrence?.occurrences ?? 1;
  if (!eventType.recurrence) throw invalidField('recurrenceCount', 'applies only to recurring event types, and this one does not recur', requested);
  if (requested > eventType.recurrence.occurrences) {
    throw fieldRejected('recurrenceCount', 'recurrence_count_too_high', "Provided recurrence count is higher than the event type's recurring event count.", requested);
  }
  return requested;
}

/** Whether a booking at `start` made `now` waits for the organizer's confirmation. */
export function needsConfirmation(policy: ConfirmationPolicy | null, start: number, now: number): boolean {
  if (!policy) return false;
  if (policy.type === 'always' || !policy.noticeThreshold) return true;
  const { unit, count } = policy.noticeThreshold;
  return start - now < count * (unit === 'hours' ? 60 : 1) * MINUTE;
}

/** The booker against `bookerActiveBookingsLimit`: their active bookings, and one to offer rescheduling. */
export async function bookerStanding(tx: Db, eventType: EventTypeRow, email: string | undefined, now: number) {
  const limit = eventType.bookerActiveBookingsLimit;
  if (!limit || email === undefined) return { bookerLimit: null, existingUid: undefined };
  const active = await repo.activeBookingsOfBooker(tx, eventType.id, email, now);
  return {
    bookerLimit: { maximumActiveBookings: limit.maximumActiveBookings, activeBookings: active.count },
    existingUid: limit.offerReschedule ? (active.firstUid ?? undefined) : undefined,
  };
}

