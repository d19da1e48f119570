// Which event type a booking request names and how it is booked: its row, its slot rules and, for a
// personal event type, its organizer, read through the availability cache when one is given.
import type { Db } from '../../../db/client.js';
import { badRequest, DomainError, notFound, unprocessable } from '../../../lib/errors.js';
import { type BookingOrganizer, type EventTypeRow, findEventTypeById } from '../../event-types/event-types.repository.js';
import { ownerExists } from '../../event-types/event-types.service.js';
import type { AvailabilityCache } from '../../slots/availability-cache.js';
import { findBookingProfile, keptSlotEventType, organizationUserExists, resolveSlotTarget, type SlotEventType, type SlotTarget } from '../../slots/slots.service.js';
import { findHostUsers } from '../hosts/booking-hosts.repository.js';
import type { BookingHost } from '../bookings.repository.js';

export type BookingTarget =
  | { kind: 'id'; eventTypeId: number }
  | { kind: 'slug'; username: string; eventTypeSlug: string; organizationSlug?: string | undefined }
  | { kind: 'team'; teamSlug: string; eventTypeSlug: string; organizationSlug?: string | undefined };

/** An event type to book with its slot rules; `organizer` is known up front only for personal event types. */
export type BookingProfile = { eventType: EventTypeRow; organizer: BookingOrganizer | null; slotEventType: SlotEventType };

function cachedBookingProfile(tx: Db, cache: AvailabilityCache | null, key: string, by: Parameters<typeof findBookingProfile>[1]): Promise<BookingProfile | null> {
  const load = async () => (await findBookingProfile(tx, by)) ?? null;
  return cache ? cache.profile(`booking:${key}`, load, (profile) => [profile.organizer.id]) : load();
}

/**
 * A team event type: its row, and its hosts as the slot engine sees them, through the cache when
 * given (every change of a team event type is announced as one).
 */
async function teamBookingProfile(tx: Db, target: SlotTarget, cache: AvailabilityCache | null): Promise<BookingProfile | null> {
  const slotEventType = await resolveSlotTarget(tx, target, cache);
  const id = slotEventType.id;
  if (id === null || !slotEventType.team) return null;
  const load = async () => (await findEventTypeById(tx, id)) ?? null;
  const eventType = cache ? await cache.profile(`booking:team:${id}`, load, () => [], () => true) : await load();
  return eventType && { eventType, organizer: null, slotEventType };
}

/** A booking's organizer among a team event type's hosts, through the cache when given (user changes are announced). */
export async function hostUser(tx: Db, cache: AvailabilityCache | null, userId: number): Promise<BookingHost | undefined> {
  const load = async () => (await findHostUsers(tx, [userId]))[0] ?? null;
  return (cache ? await cache.profile(`host:${userId}`, load, () => [userId]) : await load()) ?? undefined;
}

export async function bookableEventType(tx: Db, target: BookingTarget, cache: AvailabilityCache | null): Promise<BookingProfile> {
  if (target.kind === 'team') {
    const { teamSlug, eventTypeSlug, organizationSlug } = target;
    const missing = () =>
      notFound('event_type_not_found', `Event type with slug ${eventTypeSlug} belonging to team ${teamSlug}${organizationSlug === undefined ? '' : ` within organization ${organizationSlug}`} not found.`);
    const found = await teamBookingProfile(tx, { kind: 'teamEventType', teamSlug, eventTypeSlug, organizationSlug }, cache).catch((error: unknown) => {
      // The slots' wording of a missing event type is not the bookings' (the reference's errors service names the slugs).
      throw error instanceof DomainError && error.reason === 'event_type_not_found' ? missing() : error;
    });
    if (!found) throw missing();
    return found;
  }
  if (target.kind === 'id') {
    const byId = { kind: 'eventTypeId', eventTypeId: target.eventTypeId } as const;
    // A team event type the cache knows skips the lookup of a personal one.
    const knownTeam = cache && keptSlotEventType(cache, byId)?.team;
    const found =
      (knownTeam ? null : await cachedBookingProfile(tx, cache, `id:${target.eventTypeId}`, { id: target.eventTypeId })) ??
      (await teamBookingProfile(tx, byId, cache).catch(() => null));
    if (!found) throw notFound('event_type_not_found', `Event type with id ${target.eventTypeId} not found.`);
    return found;
  }
  const { username, eventTypeSlug, organizationSlug } = target;
  // A name within an organization is its profile's, which no announced change covers: read each time.
  const found = await cachedBookingProfile(tx, organizationSlug === undefined ? cache : null, `slug:${username.toLowerCase()}/${eventTypeSlug.toLowerCase()}`, { username, slug: eventTypeSlug, organizationSlug });
  if (found) return found;
  const exists = organizationSlug === undefined ? await ownerExists(tx, username) : await organizationUserExists(tx, username, organizationSlug);
  if (!exists) throw notFound('user_not_found', `User with username ${username} not found`);
  const within = organizationSlug === undefined ? '' : ` within organization ${organizationSlug}`;
  throw notFound('event_type_not_found', `Event type with slug ${eventTypeSlug} belonging to user ${username}${within} not found.`);
}

/**
 * The reference's refusals of event types nobody can host: a managed event type's parent (a template:
 * its members' copies are booked), and a collective or round-robin one without hosts.
 */
export function assertHasHosts(eventType: EventTypeRow, slotEventType: SlotEventType): void {
  if (eventType.schedulingType === 'managed') {
    throw badRequest(
      'managed_event_type_parent',
      `Event type with id=${eventType.id} is the parent managed event type that can't be booked. You have to provide the child event type id aka id of event type that has been assigned to one of the users.`,
      { property: 'eventTypeId' },
    );
  }
  if (slotEventType.hosts.length === 0) {
    throw unprocessable(
      'event_type_no_hosts',
      `Can't book this team event type because it has no hosts. Please, add at least 1 host to event type with id=${eventType.id} belonging to team with id=${eventType.teamId} and try again.`,
      { property: 'eventTypeId' },
    );
  }
}
