import { claimResponse, linkResponse } from '../../routing-forms/routing-forms.service.js';
import { withOnlyHosts } from '../../slots/slot-listing.service.js';
import { randomUUID } from 'node:crypto';
import type { AddedBooking, ChangeEvent } from '../../../db/change-feed.js';
import type { Db } from '../../../db/client.js';
import { badRequest, invalidField } from '../../../lib/errors.js';
import { occurrenceStarts } from '../../../scheduling/recurrence.js';
import { explainUnavailable, findSlot } from '../../../scheduling/slot-check.js';
import type { Slot } from '../../../scheduling/slot-query.js';
import type { EventTypeRow } from '../../event-types/event-types.repository.js';
import { assertLinkOf, useLinkForBooking } from '../../event-types/private-links.service.js';
import type { OutsideMailTally } from '../../mail/mail-budget.js';
import type { AvailabilityCache } from '../../slots/availability-cache.js';
import { consumeReservation } from '../../slots/slot-reservations.service.js';
import { assertEndsInTime, buildSlotQuery, type SlotEventType, type SlotHost } from '../../slots/slots.service.js';
import { findCoHosts, insertCoHosts } from '../hosts/booking-hosts.repository.js';
import { chooseHosts, lockBookingScope, spreadsBookings } from '../hosts/team-hosts.service.js';
import { bookingUnavailable } from './booking-errors.js';
import { assertHasHosts, bookableEventType, type BookingTarget, hostUser } from './booking-profile.js';
import { assertMayBook, bookerStanding, bookingLength, needsConfirmation, occurrenceCount } from './booking-request-rules.js';
import { type BookingEventListener, recordBookingEvent } from '../booking-events.js';
import { deferUntilMeeting, holdDailyRoom, needsProviderMeeting } from '../../conferencing/booking-meetings.service.js';
import { type BuiltInVideo, withMeetingLink } from '../../conferencing/built-in-video.js';
import { bookingResponses, type LocationChoice, resolveLocation } from './booking-responses.js';
import { bookingTitle } from './booking-title.js';
import { holdPayment, type PreparedPayment } from '../../payments/checkout.service.js';
import * as repo from '../bookings.repository.js';
import { type AttendeeRow, type BookingRecord, type BookingRow, bookingPaymentOf } from '../bookings.repository.js';

export type { BookingTarget };

export interface CreateBookingInput {
  /** null: the private link names the event type. */
  target: BookingTarget | null;
  /** svc: a private link of the event type; the booking uses it up by one. */
  privateLinkId?: string | undefined;
  start: number;
  attendee: { name: string; email?: string | undefined; timeZone: string; phoneNumber?: string | undefined; language?: string | undefined };
  bookingFieldsResponses: Record<string, unknown>;
  guests: string[];
  location?: LocationChoice | undefined;
  metadata: Record<string, string | number | boolean>;
  lengthInMinutes?: number | undefined;
  recurrenceCount?: number | undefined;
  instant?: boolean | undefined;
  reservationUid?: string | undefined;
  /** A routing form response this booking follows: its hosts are among the members it was routed to. */
  routing?: { responseId: number; teamMemberIds: number[] } | undefined;
  /** A paid event type's payment page, opened before the booking's transaction (payments/checkout.service.ts). */
  payment?: PreparedPayment | undefined;
}

export interface CreatedBookings {
  /** One booking, or every occurrence of a recurring one. */
  records: BookingRecord[];
  recurring: boolean;
  /** Seated event types: the seat just taken, and whether attendees may be shown. */
  seated: { seatUid: string; showAttendees: boolean } | null;
}

export interface BookingContext {
  tx: Db;
  /** Who hears of the booking events it records (the webhook subscriptions). */
  listener: BookingEventListener;
  announce: (event: ChangeEvent) => Promise<void>;
  now: number;
  /** The authenticated caller, if any. */
  callerId: number | null;
  /**
   * Event-type settings may come from the availability cache (kept coherent by the change feed, so no
   * staler than an unlocked read of the row); busy time is always re-read under the hosts' locks.
   */
  cache?: AvailabilityCache | null | undefined;
  /** Set for a request without credentials: counts what it mails to people other than the hosts. */
  mailTally?: OutsideMailTally | null | undefined;
  /** Where the built-in video app's rooms live (SVC_VIDEO_URL, or Daily's SVC_DAILY_ROOM_URL). */
  video: BuiltInVideo;
}

const YIELD_EVERY_OCCURRENCES = 5;
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Books an event type: checks the request against the event type, then, holding its hosts' time
 * locks, asks the slot engine whether each start is bookable right now (the listing's own
 * computation) and writes. A second booker at a seated slot takes a seat of the existing booking.
 */
export async function createBooking(ctx: BookingContext, input: CreateBookingInput): Promise<CreatedBookings> {
  const { tx, now } = ctx;
  const link = input.privateLinkId === undefined ? null : await useLinkForBooking(tx, input.privateLinkId, now);
  const bookable = await bookableEventType(tx, input.target ?? { kind: 'id', eventTypeId: link!.eventTypeId }, ctx.cache ?? null);
  const { eventType, organizer } = bookable;
  if (link) assertLinkOf(link, eventType.id);
  // Following a routing form response: only the members it was routed to take the booking (checked and locked until it commits).
  const slotEventType = input.routing ? withOnlyHosts(bookable.slotEventType, await claimResponse(tx, input.routing, eventType)) : bookable.slotEventType;
  const team = slotEventType.team !== null;
  await assertMayBook(tx, eventType, slotEventType.hosts, ctx.callerId);
  assertHasHosts(eventType, slotEventType);
  if (input.instant) {
    const message = team
      ? 'Instant meetings are not supported: svc has no video meeting server to start one.'
      : 'Instant bookings are only supported for team event types, not individual user event types.';
    throw badRequest('instant_not_supported', message, { property: 'instant' });
  }
  const length = bookingLength(eventType, input.lengthInMinutes);
  const count = occurrenceCount(eventType, input.recurrenceCount);
  const seatsPerTimeSlot = eventType.seatsPerTimeSlot;
  if (seatsPerTimeSlot !== null && input.guests.length > 0) throw invalidField('guests', 'cannot be added to a seat of a seated event type', input.guests);
  const location = resolveLocation(eventType.locations, input.location, eventType.id);
  const responses = bookingResponses(eventType.bookingFields, input, location, eventType.id);
  // A paid event type's booking waits for its payment, holding its time (payments.service.ts confirms it).
  const paid = eventType.price > 0;
  const status = paid || needsConfirmation(eventType.confirmationPolicy, input.start, now) ? 'pending' : 'accepted';

  const starts = count > 1 ? occurrenceStarts(input.start, eventType.recurrence!, count, slotEventType.organizerTimeZone) : [input.start];
  assertEndsInTime('start', starts.length === count ? starts : [Number.NaN], length, input.start);

  // Round robin: which hosts are free is read before the event type's lock, which takes its bookings
  // one at a time: every host chosen is read again under its own lock (`recheck`), so this read only
  // ranks them. Not with a booker limit (counted under the lock) or seats (a seat is joined unread).
  const readsFirst = slotEventType.team?.schedulingType === 'roundRobin' && !eventType.bookerActiveBookingsLimit && seatsPerTimeSlot === null;
  // Being re-read, it may as well come from the availability cache (unless a reservation of the booker's must be left out).
  const early = readsFirst && !input.reservationUid ? (ctx.cache ?? null) : null;
  const spread = spreadsBookings(slotEventType, !!eventType.bookerActiveBookingsLimit);
  if (!readsFirst) await lockBookingScope(tx, slotEventType);
  const standing = await bookerStanding(tx, eventType, input.attendee.email, now);
  const recurringBookingUid = count > 1 || input.recurrenceCount !== undefined ? randomUUID() : null;

  const request = (start: number, index: number): SlotRequest => ({
    start,
    length,
    now,
    reservationUid: input.reservationUid,
    bookerLimit: standing.bookerLimit,
    existingUid: standing.existingUid,
    occurrence: recurringBookingUid ? index : undefined,
  });
  const slots: Slot[] = [];
  for (const [index, start] of starts.entries()) {
    // On the embedded store every statement runs on this thread and resolves without a trip through
    // the event loop: a long series would hold every other request (/health included) until it ends.
    if (index > 0 && index % YIELD_EVERY_OCCURRENCES === 0) await yieldToEventLoop();
    slots.push(await bookableSlot(tx, slotEventType, request(start, index), early));
  }
  if (readsFirst) await lockBookingScope(tx, slotEventType, [], { spread });
  const joins = (slot: Slot) => seatsPerTimeSlot !== null && slot.seats?.bookingUid;
  const newSlots = slots.filter((slot) => !joins(slot));
  const recheck = async (hosts: SlotHost[]) => {
    for (const [index, slot] of newSlots.entries()) {
      if (!(await slotWith(tx, { ...slotEventType, hosts }, request(slot.start, index)))) return false;
    }
    return true;
  };
  const hostIds = newSlots.length === 0 ? [] : await chooseHosts(tx, slotEventType, newSlots, { now, recheck, spread, cache: ctx.cache });
  if (hostIds === null || (newSlots.length > 0 && hostIds.length === 0)) throw bookingUnavailable('not_available', { start: input.start, team });
  const organizerHost = organizer ?? (hostIds[0] === undefined ? undefined : await hostUser(tx, ctx.cache ?? null, hostIds[0]));

  // New bookings are presented from what was just written; a joined seated booking is re-read for its other seats.
  const records: BookingRecord[] = [];
  const host = organizerHost && { id: organizerHost.id, name: organizerHost.name, email: organizerHost.email, username: organizerHost.username, timeZone: organizerHost.timeZone };
  const seating = seatsPerTimeSlot === null ? null : { showAttendees: eventType.seatsShowAttendees };
  let seatUid: string | null = null;
  const inserted = new Set<number>();
  const owningTeam = await repo.owningTeamOf(tx, eventType);
  const payment = paid ? await holdPayment(tx, eventType, input.payment) : null;
  const coHosts = await findCoHosts(tx, hostIds.slice(1));
  for (const [index, slot] of slots.entries()) {
    if (index > 0 && index % YIELD_EVERY_OCCURRENCES === 0) await yieldToEventLoop();
    const start = slot.start;
    if (joins(slot)) {
      const joined = await repo.findBookingByUid(tx, slot.seats!.bookingUid!);
      seatUid = (await addSeat(tx, joined!, input, responses)).seatUid!;
      records.push(...(await repo.loadRecords(tx, [joined!])));
      continue;
    }
    const { dailyRoom, ...linked } = withMeetingLink(location?.value ?? null, input.metadata, ctx.video);
    const booking = await repo.insertBooking(tx, {
      uid: payment ? input.payment!.bookingUid : randomUUID(),
      paymentId: payment?.id ?? null,
      eventTypeId: eventType.id,
      userId: host!.id,
      title: bookingTitle({
        eventTypeTitle: eventType.title,
        customName: eventType.settings.customName,
        organizerName: host!.name ?? host!.username ?? host!.email,
        attendeeName: input.attendee.name,
        location: location?.value ?? '',
        durationMinutes: length,
      }),
      description: typeof responses.notes === 'string' ? responses.notes : '',
      startAt: new Date(start),
      endAt: new Date(slot.end),
      status,
      ...linked,
      responses: seatsPerTimeSlot === null ? responses : {},
      recurringBookingUid,
    });
    inserted.add(booking.id);
    if (dailyRoom) await holdDailyRoom(tx, booking, dailyRoom);
    await insertCoHosts(tx, booking, hostIds.slice(1));
    let attendees: AttendeeRow[];
    if (seating) {
      const seat = await addSeat(tx, booking, input, responses);
      seatUid = seat.seatUid;
      attendees = [seat];
    } else attendees = await repo.insertAttendees(tx, attendeesOf(booking.id, input));
    records.push({ booking, attendees, host: host!, coHosts, eventType: { id: eventType.id, slug: eventType.slug, teamId: owningTeam }, seating, payment: payment && bookingPaymentOf(payment) });
  }
  const released = input.reservationUid ? await consumeReservation(tx, input.reservationUid, eventType.id, input.start, now) : [];
  if (input.routing) await linkResponse(tx, input.routing.responseId, records[0]!.booking.uid);
  // New bookings without seats (nothing else of the hosts changed) are added to this process's cached busy time as they are.
  const added = seating || released.length > 0 ? undefined : records.map(({ booking }) => addedBooking(eventType, booking));
  for (const userId of new Set([records[0]!.booking.userId, ...hostIds, ...released])) await ctx.announce({ kind: 'busyTime', userId, added });

  for (const [index, record] of records.entries()) {
    // Each event renders the booking and its webhook bodies: the series yields here as it does above.
    if (index > 0 && index % YIELD_EVERY_OCCURRENCES === 0) await yieldToEventLoop();
    const extra = seatUid ? { seatUid } : {};
    // Nobody is told of a booking until it is paid but the payment's subscribers (no mail, no meeting yet).
    if (paid) {
      await recordBookingEvent(ctx, 'BOOKING_PAYMENT_INITIATED', record, { paymentId: payment!.id }, [], { silent: true });
      continue;
    }
    const trigger = status === 'pending' ? 'BOOKING_REQUESTED' : 'BOOKING_CREATED';
    // A provider's meeting is made by a job after commit, which records the event once the link is known.
    if (inserted.has(record.booking.id) && needsProviderMeeting(record.booking.location)) await deferUntilMeeting(ctx.tx, record, { trigger, extra }, ctx.mailTally);
    else await recordBookingEvent(ctx, trigger, record, extra, [], { tally: ctx.mailTally });
  }
  const showAttendees = eventType.seatsShowAttendees || ctx.callerId === eventType.userId;
  return { records, recurring: recurringBookingUid !== null, seated: seatUid ? { seatUid, showAttendees } : null };
}

/** A new booking as the busy-time read (busy-blocks.repository.ts listBusyBlocks) and the round-robin standings would find it. */
function addedBooking(eventType: EventTypeRow, booking: BookingRow): AddedBooking {
  return {
    block: {
      start: booking.startAt.getTime(),
      end: booking.endAt.getTime(),
      bufferBefore: eventType.beforeEventBuffer,
      bufferAfter: eventType.afterEventBuffer,
      source: 'booking',
      eventTypeId: booking.eventTypeId,
      pending: booking.status === 'pending',
      // A booking awaiting (or holding) its payment keeps its time whatever the confirmation policy says.
      blocksWhilePending: booking.paymentId !== null || (eventType.confirmationPolicy?.blockUnconfirmedBookingsInBooker ?? false),
      seatsTaken: 1,
      bookingUid: booking.uid,
    },
    createdAt: booking.createdAt.getTime(),
    announcedAt: performance.now(),
  };
}

interface SlotRequest {
  start: number;
  length: number;
  now: number;
  reservationUid?: string | undefined;
  bookerLimit: { maximumActiveBookings: number; activeBookings: number } | null;
  existingUid?: string | undefined;
  occurrence?: number | undefined;
}

function slotQueryFor(tx: Db, eventType: SlotEventType, request: SlotRequest, cache: AvailabilityCache | null = null) {
  return buildSlotQuery(
    tx,
    eventType,
    { from: request.start, to: request.start + 1, duration: request.length, now: request.now, exceptReservationUid: request.reservationUid, bookerLimit: request.bookerLimit },
    cache,
  );
}

/**
 * The engine's slot at `start`, read inside the locks (or, with `cache`, before them: the hosts it
 * names are read again under theirs), or the reference's error for why there is none.
 */
async function bookableSlot(tx: Db, eventType: SlotEventType, request: SlotRequest, cache: AvailabilityCache | null = null): Promise<Slot> {
  const query = await slotQueryFor(tx, eventType, request, cache);
  const slot = findSlot(query, request.start);
  if (slot) return slot;
  const reason = explainUnavailable(query, request.start);
  throw bookingUnavailable(reason, { start: request.start, occurrence: request.occurrence, existingBookingUid: request.existingUid, team: eventType.team !== null });
}

/** Whether `start` is still a slot of the event type (with only the given hosts), read again under their locks. */
async function slotWith(tx: Db, eventType: SlotEventType, request: SlotRequest): Promise<boolean> {
  return findSlot(await slotQueryFor(tx, eventType, request), request.start) !== null;
}

function attendeesOf(bookingId: number, input: CreateBookingInput): repo.NewAttendee[] {
  const { attendee } = input;
  const booker: repo.NewAttendee = {
    bookingId,
    name: attendee.name,
    email: attendee.email ?? '',
    timeZone: attendee.timeZone,
    locale: attendee.language ?? null,
    phoneNumber: attendee.phoneNumber ?? null,
  };
  const bookerEmail = (attendee.email ?? '').toLowerCase();
  const guests = [...new Set(input.guests.map((email) => email.toLowerCase()))].filter((email) => email !== bookerEmail);
  return [booker, ...guests.map((email) => ({ bookingId, name: email, email, timeZone: attendee.timeZone, isGuest: true }))];
}

/** A seat: the booker as an attendee of the seated booking, with their own answers and metadata. */
async function addSeat(tx: Db, booking: BookingRow, input: CreateBookingInput, responses: Record<string, unknown>): Promise<AttendeeRow> {
  const { email: _email, ...seatResponses } = responses;
  const [booker] = attendeesOf(booking.id, input);
  const [seat] = await repo.insertAttendees(tx, [{ ...booker!, seatUid: randomUUID(), seatResponses, seatMetadata: input.metadata }]);
  return seat!;
}
