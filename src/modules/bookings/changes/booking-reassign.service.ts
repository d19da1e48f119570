import { lockHostTime } from '../../../db/locks.js';
import { badRequest, forbidden, notFound } from '../../../lib/errors.js';
import { explainUnavailable, findSlot } from '../../../scheduling/slot-check.js';
import type { Slot, SlotQuery } from '../../../scheduling/slot-query.js';
import type { EventTypeRow } from '../../event-types/event-types.repository.js';
import { buildSlotQuery, resolveSlotTarget, type SlotEventType, type SlotHost } from '../../slots/slots.service.js';
import { bookingNotFound, callerIsOrganizer, type ChangeContext, eventTypeOf, isClosed, MINUTE } from './booking-changes.service.js';
import { recordBookingEvent } from '../booking-events.js';
import { findHostUsers, listHostIdsOfBookings, replaceCoHost } from '../hosts/booking-hosts.repository.js';
import { managesEventType } from './booking-reassign.repository.js';
import { bookingTitle } from '../create/booking-title.js';
import * as repo from '../bookings.repository.js';
import type { BookingHost, BookingRow } from '../bookings.repository.js';
import { chooseHosts, lockBookingScope } from '../hosts/team-hosts.service.js';

export interface ReassignContext extends ChangeContext {
  /** The caller is svc's system administrator (the reference's isSystemAdmin). */
  systemAdmin: boolean;
}

export interface ReassignInput {
  uid: string;
  /** The host to hand the booking to; undefined: the next round-robin host, ranked as for a new booking. */
  toUserId?: number | undefined;
  reason?: string | undefined;
}

export interface ReassignedBooking {
  bookingUid: string;
  reassignedTo: BookingHost;
}

const NO_PERMISSION = 'You do not have permission to reassign this booking';
const NO_OTHER_HOST = "Can't reassign the booking because no other host is available at that time.";
/** The booking's time was bookable when it was made: only the hosts' freedom is asked again. */
const REASSIGN_RULES = { minimumBookingNotice: 0, bookingWindow: null, onlyShowFirstAvailableSlot: false };

const notValidHost = (userId: number) =>
  badRequest(
    'invalid_round_robin_host',
    `User with id=${userId} is not a valid Round Robin host - the user to which you reassign this booking must be one of the booking hosts. Fetch the booking using following endpoint and select id of one of the hosts: https://cal.com/docs/api-reference/v2/bookings/get-a-booking`,
  );

/** The reference's EventTypeAccessService: the system admin, the event type's owner, its hosts, and its team's or organization's admins. */
async function assertMayReassign(ctx: ReassignContext, booking: BookingRow, eventType: EventTypeRow): Promise<void> {
  const caller = ctx.caller;
  if (caller === null) throw forbidden('not_booking_manager', NO_PERMISSION);
  if (ctx.systemAdmin || callerIsOrganizer(ctx, booking) || eventType.userId === caller.id) return;
  if (await managesEventType(ctx.tx, caller.id, eventType)) return;
  throw forbidden('not_booking_manager', NO_PERMISSION);
}

function assertReassignable(booking: BookingRow, now: number): void {
  const { uid } = booking;
  if (isClosed(booking)) {
    throw badRequest('booking_cancelled', `Can't reassign booking with uid=${uid} because it has been ${booking.status}. Please provide uid of a booking that is not cancelled.`);
  }
  if (booking.startAt.getTime() <= now) throw badRequest('booking_started', `Can't reassign booking with uid=${uid} because it has already started.`);
}

const groupOf = (host: SlotHost | undefined) => host?.groupId ?? null;

/**
 * The round-robin host the booking gives up and the group its successor comes from: the one in the
 * target's group, else the organizer when they are not a fixed host, else the first round-robin
 * co-host in host order. A booking's organizer who is no longer a host counts as its round-robin host.
 */
function hostToReplace(eventType: SlotEventType, booking: BookingRow, bookingHostIds: ReadonlySet<number>, target: SlotHost | null): number | undefined {
  const byId = new Map(eventType.hosts.map((host) => [host.userId, host]));
  const roundRobin = (userId: number) => byId.get(userId)?.fixed !== true;
  const coHosts = eventType.hosts.filter((host) => host.userId !== booking.userId && bookingHostIds.has(host.userId)).map((host) => host.userId);
  const candidates = [booking.userId, ...coHosts].filter(roundRobin);
  if (target === null) return candidates[0];
  return candidates.find((userId) => groupOf(byId.get(userId)) === groupOf(target));
}

/**
 * Hands a round-robin booking to another host of its event type, keeping its time: to `toUserId`, or
 * to the best-ranked host of the same group (src/scheduling/round-robin.ts) free at that time. The
 * successor's freedom is read under the locks a new booking takes; the organizer change is an update
 * of the booking, which its host rows follow (drizzle/0013), so the exclusion constraint backs it.
 */
export async function reassignBooking(ctx: ReassignContext, input: ReassignInput): Promise<ReassignedBooking> {
  const { tx, now } = ctx;
  const found = await repo.findBookingByUid(tx, input.uid);
  if (!found) throw bookingNotFound(input.uid);
  const eventType = await eventTypeOf(tx, found);
  if (!eventType) throw badRequest('event_type_not_found', `Event type with id=${found.eventTypeId} was not found in the database`);
  await assertMayReassign(ctx, found, eventType);
  let targetUser: BookingHost | undefined;
  if (input.toUserId !== undefined) {
    [targetUser] = await findHostUsers(tx, [input.toUserId]);
    if (!targetUser) throw notFound('user_not_found', `User with id=${input.toUserId} was not found in the database`);
  }
  if (eventType.teamId === null || eventType.schedulingType !== 'roundRobin') {
    throw badRequest('booking_not_round_robin', `Booking with uid=${input.uid} is not a round robin booking: only bookings of round robin team event types can be reassigned.`);
  }
  const slotEventType = await resolveSlotTarget(tx, { kind: 'eventTypeId', eventTypeId: eventType.id });
  const target = targetUser ? (slotEventType.hosts.find((host) => host.userId === targetUser.id) ?? null) : null;
  if (targetUser && !target) throw notValidHost(targetUser.id);
  if (target?.fixed) throw badRequest('fixed_host', `User with id=${target.userId} is a fixed host of this event type: they attend every booking of it, so none can be reassigned to them.`);

  // The event type's lock keeps every other change of its bookings' hosts out. Only the successor's
  // time is locked (freeing the previous host's time needs no lock): the named one now, the chosen one
  // by chooseHosts. The booking row is locked last, as cancel and confirm lock it after host locks.
  await lockBookingScope(tx, slotEventType);
  if (target) await lockHostTime(tx, [target.userId]);
  const booking = (await repo.findBookingByUid(tx, input.uid))!;
  assertReassignable(booking, now);
  const bookingHostIds = new Set(await listHostIdsOfBookings(tx, [booking.id]));
  const replaced = hostToReplace(slotEventType, booking, bookingHostIds, target);
  if (target && replaced === target.userId) return { bookingUid: booking.uid, reassignedTo: targetUser! };
  if (target && (replaced === undefined || bookingHostIds.has(target.userId))) throw notValidHost(target.userId);
  if (replaced === undefined) throw badRequest('no_available_host', NO_OTHER_HOST);

  const freeAt = freedomCheck(ctx, slotEventType, booking);
  let successorId: number;
  if (target) {
    const { query, slot } = await freeAt([target]);
    if (!slot) {
      throw badRequest('host_unavailable', `User with id=${target.userId} either already has booking at this time or is not available.`, {
        start: booking.startAt.toISOString(),
        cause: explainUnavailable(query, booking.startAt.getTime()),
      });
    }
    successorId = target.userId;
  } else {
    successorId = await chooseSuccessor(ctx, slotEventType, replaced, bookingHostIds, freeAt);
  }
  // A cancellation or a decision may have come first.
  const locked = (await repo.lockBookingByUid(tx, input.uid))!;
  assertReassignable(locked, now);
  return handOver(ctx, { booking: locked, eventType, replaced, successorId, reason: input.reason });
}

type FreedomCheck = (hosts: SlotHost[]) => Promise<{ query: SlotQuery; slot: Slot | null }>;

/** Whether round-robin hosts (each on their own) could take the booking's time, the booking itself set aside. */
function freedomCheck(ctx: ReassignContext, eventType: SlotEventType, booking: BookingRow): FreedomCheck {
  const start = booking.startAt.getTime();
  const duration = Math.round((booking.endAt.getTime() - start) / MINUTE);
  const rules = { ...eventType.rules, ...REASSIGN_RULES };
  return async (hosts) => {
    const roundRobin = hosts.map((host) => ({ ...host, fixed: false }));
    const query = await buildSlotQuery(ctx.tx, { ...eventType, rules, hosts: roundRobin }, { from: start, to: start + 1, duration, now: ctx.now, ignoreBookingUid: booking.uid });
    return { query, slot: findSlot(query, start) };
  };
}

/** The best-ranked host of the replaced host's group who is free then and not already on the booking, locked as chooseHosts locks. */
async function chooseSuccessor(ctx: ReassignContext, eventType: SlotEventType, replaced: number, bookingHostIds: ReadonlySet<number>, freeAt: FreedomCheck): Promise<number> {
  const group = groupOf(eventType.hosts.find((host) => host.userId === replaced));
  const members = eventType.hosts.filter((host) => !host.fixed && groupOf(host) === group);
  const candidates = members.filter((host) => !bookingHostIds.has(host.userId));
  if (candidates.length === 0) throw badRequest('no_available_host', NO_OTHER_HOST);
  const { slot } = await freeAt(candidates);
  if (!slot) throw badRequest('no_available_host', NO_OTHER_HOST);
  const free = { ...slot, hostIds: slot.hostIds.filter((userId) => !bookingHostIds.has(userId)) };
  const chosen = await chooseHosts(ctx.tx, { ...eventType, hosts: members }, [free], {
    now: ctx.now,
    recheck: async (hosts) => (await freeAt(hosts)).slot !== null,
  });
  if (!chosen || chosen.length === 0) throw badRequest('no_available_host', NO_OTHER_HOST);
  return chosen[0]!;
}

/** A host as BOOKING_REASSIGNED's payload names them. */
const presentUser = (user: BookingHost) => ({ id: user.id, name: user.name, email: user.email });

interface HandOver {
  booking: BookingRow;
  eventType: EventTypeRow;
  replaced: number;
  successorId: number;
  reason: string | undefined;
}

/**
 * Writes the change: a new organizer (retitled for them, as the reference does) or a new co-host, then
 * tells the availability cache about both hosts and records BOOKING_REASSIGNED for both to hear.
 */
async function handOver(ctx: ReassignContext, change: HandOver): Promise<ReassignedBooking> {
  const { tx } = ctx;
  const { booking, eventType, replaced, successorId } = change;
  const users = await findHostUsers(tx, [replaced, successorId]);
  const previous = users.find((user) => user.id === replaced);
  const successor = users.find((user) => user.id === successorId)!;
  let updated: BookingRow;
  if (replaced === booking.userId) {
    const [before] = await repo.loadRecords(tx, [booking]);
    const booker = before!.attendees.find((attendee) => !attendee.isGuest);
    const title = booker
      ? bookingTitle({
          eventTypeTitle: eventType.title,
          customName: eventType.settings.customName,
          organizerName: successor.name ?? successor.username ?? successor.email,
          attendeeName: booker.name,
          location: booking.location ?? '',
          durationMinutes: Math.round((booking.endAt.getTime() - booking.startAt.getTime()) / MINUTE),
        })
      : booking.title;
    updated = await repo.updateBooking(tx, booking.id, { userId: successorId, title });
  } else {
    await replaceCoHost(tx, booking.id, replaced, successorId);
    updated = await repo.updateBooking(tx, booking.id, {});
  }
  for (const userId of [replaced, successorId]) await ctx.announce({ kind: 'busyTime', userId });
  const [record] = await repo.loadRecords(tx, [updated]);
  await recordBookingEvent(
    ctx,
    'BOOKING_REASSIGNED',
    record!,
    {
      reassignedFrom: previous ? presentUser(previous) : { id: replaced, name: null, email: null },
      reassignedTo: presentUser(successor),
      reassignReason: change.reason ?? null,
      reassignedBy: ctx.caller ? { id: ctx.caller.id, email: ctx.caller.email } : null,
    },
    [replaced, successorId],
  );
  return { bookingUid: booking.uid, reassignedTo: successor };
}
