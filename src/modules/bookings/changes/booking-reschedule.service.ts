import { randomUUID } from 'node:crypto';
import type { Db } from '../../../db/client.js';
import { badRequest, conflict, notFound } from '../../../lib/errors.js';
import { explainUnavailable, findSlot } from '../../../scheduling/slot-check.js';
import type { Slot } from '../../../scheduling/slot-query.js';
import { type EventTypeSettings } from '../../event-types/event-type-model.js';
import { type EventTypeRow, findEventTypeById } from '../../event-types/event-types.repository.js';
import { assertEndsInTime, buildSlotQuery, resolveSlotTarget, type SlotEventType } from '../../slots/slots.service.js';
import * as changes from './booking-changes.repository.js';
import { announceHosts, bookingNotFound, callerIsOrganizer, type ChangeContext, hostIds, isClosed, MINUTE, settingsOf } from './booking-changes.service.js';
import type { CreatedBookings } from '../create/booking-create.service.js';
import { needsConfirmation } from '../create/booking-request-rules.js';
import { bookingUnavailable } from '../create/booking-errors.js';
import { insertCoHosts } from '../hosts/booking-hosts.repository.js';
import { chooseHosts, lockBookingScope } from '../hosts/team-hosts.service.js';
import { recordBookingEvent } from '../booking-events.js';
import { awaitsPayment } from '../../payments/payments.service.js';
import * as repo from '../bookings.repository.js';
import type { AttendeeRow, BookingRow } from '../bookings.repository.js';
import { holdDailyRoom } from '../../conferencing/booking-meetings.service.js';
import { ownMeetingOfSeat } from '../../conferencing/built-in-video.js';

export interface RescheduleInput {
  uid: string;
  start: number;
  rescheduledBy?: string | undefined;
  reschedulingReason?: string | undefined;
  seatUid?: string | undefined;
}

function assertReschedulable(ctx: ChangeContext, old: BookingRow, settings: EventTypeSettings): void {
  const { uid } = old;
  if (old.rescheduledToUid !== null) {
    throw badRequest(
      'booking_already_rescheduled',
      `Can't reschedule booking with uid=${uid} because it has been cancelled and rescheduled already to booking with uid=${old.rescheduledToUid}. You probably want to reschedule ${old.rescheduledToUid} instead by passing it within the request URL.`,
    );
  }
  if (isClosed(old) && !settings.allowReschedulingCancelledBookings) {
    throw badRequest('booking_cancelled', `Can't reschedule booking with uid=${uid} because it has been cancelled. Please provide uid of a booking that is not cancelled.`);
  }
  if (old.endAt.getTime() < ctx.now && !settings.allowReschedulingPastBookings) {
    throw badRequest('booking_ended', `Can't reschedule booking with uid=${uid} because it has already ended.`);
  }
  if (callerIsOrganizer(ctx, old)) return;
  if (settings.disableRescheduling) throw badRequest('rescheduling_disabled', 'This event type does not allow rescheduling');
  const notice = settings.minimumRescheduleNotice;
  if (notice !== null && old.startAt.getTime() - ctx.now < notice * MINUTE) {
    throw badRequest('reschedule_notice', `Rescheduling is not allowed within ${notice} minutes before the event`);
  }
}

/** The engine's slot at `start` (read inside the locks), or the same error POST /v2/bookings gives. */
async function slotAt(tx: Db, eventType: SlotEventType, start: number, duration: number, now: number, ignoreBookingUid: string | undefined): Promise<Slot> {
  const query = await buildSlotQuery(tx, eventType, { from: start, to: start + 1, duration, now, ignoreBookingUid });
  const slot = findSlot(query, start);
  if (slot) return slot;
  throw bookingUnavailable(explainUnavailable(query, start), { start });
}

/**
 * Hosts of the booking a reschedule makes, organizer first: a personal event type's owner; a
 * collective type's hosts; for round robin, the booking's own host when still free and the event type
 * says so (`rescheduleWithSameRoundRobinHost`), else the round-robin choice, re-checked under locks.
 */
async function newHosts(
  tx: Db,
  eventType: SlotEventType,
  slot: Slot,
  options: { now: number; length: number; ignoreBookingUid: string | undefined; old: BookingRow; sameHost: boolean },
): Promise<number[]> {
  if (!eventType.team) return [slot.hostIds.includes(options.old.userId) ? options.old.userId : (slot.hostIds[0] ?? options.old.userId)];
  const recheck = async (hosts: SlotEventType['hosts']) => {
    const query = await buildSlotQuery(tx, { ...eventType, hosts }, { from: slot.start, to: slot.start + 1, duration: options.length, now: options.now, ignoreBookingUid: options.ignoreBookingUid });
    return findSlot(query, slot.start) !== null;
  };
  const hostIds = await chooseHosts(tx, eventType, [slot], { now: options.now, recheck, preferredHostId: options.sameHost ? options.old.userId : null });
  if (!hostIds || hostIds.length === 0) throw bookingUnavailable('not_available', { start: slot.start, team: true });
  return hostIds;
}

/** The old length while the event type still offers it, else the event length. */
function lengthOf(old: BookingRow, eventType: EventTypeRow): number {
  const length = Math.round((old.endAt.getTime() - old.startAt.getTime()) / MINUTE);
  return length === eventType.lengthInMinutes || eventType.lengthInMinutesOptions.includes(length) ? length : eventType.lengthInMinutes;
}

async function seatOf(tx: Db, old: BookingRow, seatUid: string): Promise<AttendeeRow> {
  const seat = await repo.findAttendeeBySeatUid(tx, seatUid);
  if (!seat) throw notFound('seat_not_found', `Seat with uid=${seatUid} does not exist.`);
  if (seat.bookingId !== old.id) throw badRequest('seat_not_in_booking', 'Invalid seatUid: this seat does not belong to this booking.');
  return seat;
}

/**
 * Moves a booking (or one seat of it) to a new start the engine offers right now, as a new booking
 * linked both ways to the old one. A seat joins the seated booking already at the new start, if any.
 */
export async function rescheduleBooking(ctx: ChangeContext, input: RescheduleInput): Promise<CreatedBookings> {
  const { tx, now } = ctx;
  const found = await repo.findBookingByUid(tx, input.uid);
  if (!found) throw bookingNotFound(input.uid);
  const eventType = found.eventTypeId === null ? undefined : await findEventTypeById(tx, found.eventTypeId);
  if (!eventType) throw notFound('event_type_not_found', `Event type of booking with uid=${input.uid} not found.`);
  const slotEventType = await resolveSlotTarget(tx, { kind: 'eventTypeId', eventTypeId: eventType.id });
  await lockBookingScope(tx, slotEventType, [found.userId]);
  const old = (await repo.lockBookingByUid(tx, input.uid))!;
  assertReschedulable(ctx, old, settingsOf(eventType));
  if (await awaitsPayment(tx, old)) throw badRequest('booking_awaiting_payment', `Booking with uid=${old.uid} waits for its payment: it can be rescheduled once paid.`);
  const seated = eventType.seatsPerTimeSlot !== null;
  const seat = input.seatUid === undefined ? null : await seatOf(tx, old, input.seatUid);
  if (seated && !seat && !callerIsOrganizer(ctx, old)) {
    throw badRequest(
      'seat_uid_required',
      `Booking with uid=${old.uid} is a seated booking which means you have to provide seatUid in the request body to specify which seat specifically you want to reschedule.`,
    );
  }
  const [oldRecord] = await repo.loadRecords(tx, [old]);
  const attendees = oldRecord!.attendees;
  const organizer = oldRecord!.host;
  // The old booking stops holding its time only when everyone in it moves.
  const movesAll = seat === null || attendees.length === 1;
  const length = lengthOf(old, eventType);
  assertEndsInTime('start', [input.start], length, input.start);
  const slot = await slotAt(tx, slotEventType, input.start, length, now, movesAll ? old.uid : undefined);
  const joining = seated && slot.seats?.bookingUid ? await repo.findBookingByUid(tx, slot.seats.bookingUid) : undefined;
  const moving = seat ? 1 : attendees.length;
  if (joining && slot.seats && slot.seats.booked + moving > slot.seats.total) {
    throw conflict('booking_seats_full', 'No more seats left at this seated booking.', { property: 'start', start: new Date(input.start).toISOString() });
  }

  const ignoreBookingUid = movesAll ? old.uid : undefined;
  const hostIds = joining ? [] : await newHosts(tx, slotEventType, slot, { now, length, ignoreBookingUid, old, sameHost: eventType.rescheduleWithSameRoundRobinHost });
  const rescheduledByEmail = input.rescheduledBy ?? null;
  const reschedulingReason = input.reschedulingReason ?? null;
  const targetUid = joining?.uid ?? randomUUID();
  // A seat moving into a booking of its own leaves the old booking's meeting to the seats that stay.
  const ownMeeting = seat && !joining && ctx.video ? ownMeetingOfSeat(seat.seatResponses, old.metadata, ctx.video) : null;
  // Before the insert: two accepted bookings of a host may never overlap, not even inside one transaction.
  if (movesAll) await repo.updateBooking(tx, old.id, { status: 'cancelled', rescheduledToUid: targetUid, rescheduledByEmail, reschedulingReason });
  const byOrganizer = rescheduledByEmail !== null && rescheduledByEmail.toLowerCase() === organizer.email.toLowerCase();
  const target =
    joining ??
    (await repo.insertBooking(tx, {
      uid: targetUid,
      eventTypeId: old.eventTypeId,
      userId: hostIds[0]!,
      title: old.title,
      description: old.description,
      startAt: new Date(input.start),
      endAt: new Date(slot.end),
      status: !byOrganizer && needsConfirmation(eventType.confirmationPolicy, input.start, now) ? 'pending' : 'accepted',
      location: ownMeeting?.location ?? old.location,
      metadata: ownMeeting?.metadata ?? old.metadata,
      responses: reschedulingReason === null ? old.responses : { ...old.responses, rescheduledReason: reschedulingReason },
      recurringBookingUid: old.recurringBookingUid,
      // A paid booking's new time is paid for already: the payment follows it (a refund goes to it).
      paymentId: old.paymentId,
      icsUid: old.icsUid,
      icsSequence: old.icsSequence + 1,
      rescheduledFromUid: old.uid,
      rescheduledByEmail,
      reschedulingReason,
    }));
  if (!joining) await insertCoHosts(tx, target, hostIds.slice(1));
  if (ownMeeting?.dailyRoom) await holdDailyRoom(tx, target, ownMeeting.dailyRoom);
  if (seated) {
    await changes.moveAttendees(tx, seat ? [seat.id] : attendees.map((attendee) => attendee.id), target.id);
  } else {
    const copies = attendees.map(({ name, email, timeZone, locale, phoneNumber, isGuest }) => ({ bookingId: target.id, name, email, timeZone, locale, phoneNumber, isGuest }));
    await repo.insertAttendees(tx, copies);
  }
  await announceHosts(ctx, [old, target]);

  const [record] = await repo.loadRecords(tx, [target]);
  await recordBookingEvent(ctx, 'BOOKING_RESCHEDULED', record!, {
    rescheduleUid: old.uid,
    rescheduleStartTime: old.startAt.toISOString(),
    rescheduleEndTime: old.endAt.toISOString(),
    rescheduledBy: rescheduledByEmail,
    ...(seat ? { seatUid: seat.seatUid } : {}),
  }, [], { tally: ctx.mailTally });
  const showAttendees = eventType.seatsShowAttendees || ctx.caller?.id === eventType.userId;
  return { records: [record!], recurring: false, seated: seat ? { seatUid: seat.seatUid!, showAttendees } : null };
}
