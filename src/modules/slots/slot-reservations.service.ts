import { randomUUID } from 'node:crypto';
import type { ChangeEvent, ChangeFeed } from '../../db/change-feed.js';
import type { Database, Db } from '../../db/client.js';
import { lockHostTime } from '../../db/locks.js';
import { type DomainError, fieldRejected, forbidden, notFound, unauthorized, unprocessable } from '../../lib/errors.js';
import { hostsEventType } from '../access/resource-policy.js';
import { explainUnavailable, findSlot, type UnavailableReason } from '../../scheduling/slot-check.js';
import * as repo from './slots.repository.js';
import { assertEndsInTime, buildSlotQuery, resolveSlotTarget, type SlotEventType } from './slots.service.js';

const MINUTE = 60_000;
const DEFAULT_RESERVATION_MINUTES = 5;

export interface ReserveSlotInput {
  eventTypeId: number;
  slotStart: number;
  slotDuration?: number | undefined;
  reservationDuration?: number | undefined;
}

export interface ReservationView {
  uid: string;
  eventTypeId: number;
  slotStart: number;
  slotEnd: number;
  slotDuration: number;
  /** Minutes the slot was held for by the last write. */
  reservationDuration: number;
  reservedUntil: number;
}

interface Deps {
  database: Database;
  changes: ChangeFeed;
  clock: () => number;
}

/** A held slot is busy time of its host: every process's slot listing must hear about it. */
const heldTimeOf = (userId: number): ChangeEvent => ({ kind: 'busyTime', userId });

function viewOf(row: repo.ReservationRow, reservationDuration: number): ReservationView {
  const slotStart = row.slotStart.getTime();
  const slotEnd = row.slotEnd.getTime();
  return {
    uid: row.uid,
    eventTypeId: row.eventTypeId,
    slotStart,
    slotEnd,
    slotDuration: Math.round((slotEnd - slotStart) / MINUTE),
    reservationDuration,
    reservedUntil: row.reservedUntil.getTime(),
  };
}

/** The event type to reserve on, if the caller may: anyone anonymously, or its owner with credentials. */
async function reservableEventType(db: Db, eventTypeId: number, callerId: number | null): Promise<SlotEventType> {
  let eventType: SlotEventType;
  try {
    eventType = await resolveSlotTarget(db, { kind: 'eventTypeId', eventTypeId });
  } catch {
    throw notFound('event_type_not_found', `Event Type with ID=${eventTypeId} not found`);
  }
  if (callerId !== null && !hostsEventType(callerId, eventType.hosts)) {
    throw forbidden(
      'not_event_type_member',
      "authenticated user is not owner of event type, does not have memberships in common with owner of the event type, nor does belong to event type's team or org.",
    );
  }
  return eventType;
}

/** The reference's rules and messages for `slotDuration`. */
function slotLength(eventType: SlotEventType, slotDuration: number | undefined): number {
  if (slotDuration === undefined) return eventType.lengthInMinutes;
  const options = eventType.lengthInMinutesOptions;
  if (options.length === 0) {
    throw fieldRejected('slotDuration', 'not_variable_length', "You passed 'slotDuration' but this event type is not a variable length event type.", slotDuration);
  }
  if (!options.includes(slotDuration)) {
    throw fieldRejected(
      'slotDuration',
      'length_not_allowed',
      `Provided 'slotDuration' is not one of the possible lengths for the event type. The possible lengths for this variable length event type are: ${options.join(', ')}`,
      slotDuration,
    );
  }
  return slotDuration;
}

function unavailable(reason: UnavailableReason, eventTypeId: number, slotStart: number): DomainError {
  const details = { property: 'slotStart' };
  switch (reason) {
    case 'booked':
      return unprocessable('slot_booked', "Can't reserve a slot if the event is already booked.", details);
    case 'reserved':
      return unprocessable('slot_reserved', 'This time slot is already reserved by another user. Please choose a different time.', details);
    case 'seats_full':
      return unprocessable('seats_full', `Booking with id=${eventTypeId} at ${new Date(slotStart).toISOString()} has no more seats left.`, details);
    case 'in_the_past':
      return unprocessable('slot_in_the_past', 'Attempting to reserve a slot in the past.', details);
    case 'too_soon':
    case 'outside_booking_window':
      return unprocessable(
        'slot_out_of_bounds',
        'The event type can\'t be booked at the "slotStart" time provided. This could be because it\'s too soon (violating the minimum booking notice) or too far in the future (outside the event\'s scheduling window).',
        details,
      );
    case 'booking_limit_reached':
      return unprocessable('booking_limit_reached', 'The event type has reached its booking limit for the period of "slotStart".', details);
    case 'booker_limit_reached':
      return unprocessable('booker_limit_reached', 'The booker has reached the maximum number of active bookings for this event type.', details);
    case 'out_of_office':
      return unprocessable('slot_unavailable', 'The host is out of office at "slotStart": fetch the available slots first.', { ...details, cause: reason });
    case 'not_available':
      return unprocessable('slot_unavailable', 'No slot of this event type starts at "slotStart": fetch the available slots first.', details);
  }
}

/**
 * Holds a slot: under the hosts' time locks, the slot must be one `GET /v2/slots` lists right now
 * (other live reservations included), then the reservation is written before the locks are released.
 */
async function holdSlot(tx: Db, eventType: SlotEventType, slotStart: number, length: number, now: number, exceptReservationUid?: string) {
  await lockHostTime(tx, eventType.hosts.map((host) => host.userId));
  const query = await buildSlotQuery(tx, eventType, { from: slotStart, to: slotStart + 1, duration: length, now, exceptReservationUid });
  const slot = findSlot(query, slotStart);
  if (!slot) throw unavailable(explainUnavailable(query, slotStart), eventType.id!, slotStart);
  return { slotEnd: slot.end, hostIds: heldHosts(eventType, slot.hostIds) };
}

/**
 * Whom a reservation holds of the hosts free at its slot: all of them, except that round robin needs
 * only its fixed hosts and the first free host of each group (the others stay bookable by others).
 */
function heldHosts(eventType: SlotEventType, free: readonly number[]): number[] {
  if (eventType.team?.schedulingType !== 'roundRobin') return [...free];
  const byId = new Map(eventType.hosts.map((host) => [host.userId, host]));
  const groups = new Set<string>();
  return free.filter((userId) => {
    const host = byId.get(userId);
    if (!host || host.fixed) return true;
    const group = host.groupId ?? '';
    if (groups.has(group)) return false;
    groups.add(group);
    return true;
  });
}

function assertMayChooseDuration(input: ReserveSlotInput, callerId: number | null): void {
  if (input.reservationDuration !== undefined && callerId === null) {
    throw unauthorized('reservation_duration_needs_auth', 'reservationDuration can only be used for authenticated requests - use access token, api key or OAuth credentials');
  }
}

export async function reserveSlot(deps: Deps, callerId: number | null, input: ReserveSlotInput): Promise<ReservationView> {
  assertMayChooseDuration(input, callerId);
  const now = deps.clock();
  const minutes = input.reservationDuration ?? DEFAULT_RESERVATION_MINUTES;
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    const eventType = await reservableEventType(tx, input.eventTypeId, callerId);
    const length = slotLength(eventType, input.slotDuration);
    assertEndsInTime('slotStart', [input.slotStart], length, input.slotStart);
    const { slotEnd, hostIds } = await holdSlot(tx, eventType, input.slotStart, length, now);
    for (const hostId of hostIds) await announce(heldTimeOf(hostId));
    await repo.deleteExpiredReservations(tx, now);
    const row = await repo.insertReservation(
      tx,
      { uid: randomUUID(), eventTypeId: input.eventTypeId, slotStart: new Date(input.slotStart), slotEnd: new Date(slotEnd), reservedUntil: new Date(now + minutes * MINUTE), createdAt: new Date(now) },
      hostIds,
    );
    return viewOf(row, minutes);
  });
}

export async function getReservation(deps: Deps, uid: string): Promise<ReservationView | null> {
  const row = await repo.findLiveReservation(deps.database.db, uid, deps.clock());
  return row ? viewOf(row, Math.round((row.reservedUntil.getTime() - row.createdAt.getTime()) / MINUTE)) : null;
}

/** Moves or extends a live reservation; the new slot must be free apart from this reservation itself. */
export async function updateReservation(deps: Deps, callerId: number | null, uid: string, input: ReserveSlotInput): Promise<ReservationView> {
  assertMayChooseDuration(input, callerId);
  const now = deps.clock();
  const minutes = input.reservationDuration ?? DEFAULT_RESERVATION_MINUTES;
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    const existing = await repo.findLiveReservation(tx, uid, now);
    if (!existing) throw notFound('reservation_not_found', `Slot with uid=${uid} not found`);
    const eventType = await reservableEventType(tx, input.eventTypeId, callerId);
    const length = slotLength(eventType, input.slotDuration);
    assertEndsInTime('slotStart', [input.slotStart], length, input.slotStart);
    const { slotEnd, hostIds } = await holdSlot(tx, eventType, input.slotStart, length, now, uid);
    const released = await repo.deleteReservation(tx, uid);
    for (const hostId of new Set([...released.map((row) => row.userId), ...hostIds])) await announce(heldTimeOf(hostId));
    const row = await repo.insertReservation(
      tx,
      { uid, eventTypeId: input.eventTypeId, slotStart: new Date(input.slotStart), slotEnd: new Date(slotEnd), reservedUntil: new Date(now + minutes * MINUTE), createdAt: existing.createdAt },
      hostIds,
    );
    return viewOf(row, minutes);
  });
}

/** Releases a reservation; releasing one that does not exist (or no longer does) also succeeds. */
export async function deleteReservation(deps: Deps, uid: string): Promise<void> {
  await deps.changes.transaction(deps.database, async (tx, announce) => {
    for (const row of await repo.deleteReservation(tx, uid)) await announce(heldTimeOf(row.userId));
  });
}

/**
 * Uses up a reservation its holder books with: it must hold this event type's slot at `slotStart`.
 * Returns the hosts it held (none: a stale or foreign uid simply holds nothing here), whose busy time
 * the caller announces.
 */
export async function consumeReservation(tx: Db, uid: string, eventTypeId: number, slotStart: number, now: number): Promise<number[]> {
  const reservation = await repo.findLiveReservation(tx, uid, now);
  if (!reservation || reservation.eventTypeId !== eventTypeId || reservation.slotStart.getTime() !== slotStart) return [];
  return (await repo.deleteReservation(tx, uid)).map((row) => row.userId);
}
