import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../../http/app.js';
import type { AppContext } from '../../../app/context.js';
import type { ChangeEvent } from '../../../db/change-feed.js';
import type { Db } from '../../../db/client.js';
import { access } from '../../../http/access.js';
import { Envelope, ok } from '../../../http/envelope.js';
import { runMutation } from '../../../http/mutation.js';
import { chargeAnonymousMail, newOutsideMailTally } from '../../mail/mail-budget.js';
import { builtInVideoOf } from '../../conferencing/built-in-video.js';
import { cancelBooking, type ChangeContext } from './booking-changes.service.js';
import { confirmBooking, declineBooking } from './booking-decisions.service.js';
import { reassignBooking, type ReassignInput } from './booking-reassign.service.js';
import { rescheduleBooking } from './booking-reschedule.service.js';
import { BookingData_2024_08_13, BookingUidParams, ReassignedBooking_2024_08_13, ReassignToUserBody, ReassignToUserParams } from '../bookings.schemas.js';
import { presentReassignedBooking } from '../bookings.presenter.js';
import { readHostCalendarsLive } from '../bookings.service.js';
import { bookingVariant, bookingWriteHeaders, newRouteHeaders, routeExistsForVersion } from '../bookings.versions.js';

/** Every route here writes, so each takes Idempotency-Key. */
const headers = bookingWriteHeaders;
const SeatUid = Type.String({ minLength: 1, maxLength: 100, description: 'Seated bookings: the seat (attendee) to act on' });

const CancelBookingBody = Type.Object({
  cancellationReason: Type.Optional(Type.String({ maxLength: 1000, description: 'Required when the organizer cancels' })),
  cancelSubsequentBookings: Type.Optional(Type.Boolean({ description: 'Recurring bookings: also cancel every later occurrence' })),
  seatUid: Type.Optional(SeatUid),
});

const RescheduleBookingBody = Type.Object({
  start: Type.String({ format: 'date-time', description: 'New start, ISO 8601: one of the slots GET /v2/slots lists (with bookingUidToReschedule)' }),
  rescheduledBy: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'Who reschedules; the organizer\'s email confirms at once a booking that needs confirmation' })),
  reschedulingReason: Type.Optional(Type.String({ maxLength: 1000 })),
  seatUid: Type.Optional(SeatUid),
  emailVerificationCode: Type.Optional(Type.String({ maxLength: 100, description: 'Accepted for compatibility; svc does not verify booker emails yet' })),
});

const DeclineBookingBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1000, description: 'Why the organizer declines' })) });

const Output = Envelope(BookingData_2024_08_13);

function changeContext(ctx: AppContext, request: FastifyRequest, tx: Db, announce: (event: ChangeEvent) => Promise<void>): ChangeContext {
  const user = request.principal?.user;
  return { tx, listener: ctx.bookingEvents, announce, now: ctx.clock(), caller: user ? { id: user.id, email: user.email } : null, mailTally: user ? null : newOutsideMailTally(), video: builtInVideoOf(ctx.config) };
}

/** What a request without credentials mailed to people other than the hosts, charged to its budgets. */
async function chargeMail(ctx: AppContext, request: FastifyRequest, change: ChangeContext, cancellation: boolean): Promise<void> {
  if (change.mailTally) await chargeAnonymousMail(change.tx, change.mailTally, { ip: request.ip, now: change.now, limits: ctx.config.mailLimits, cancellation });
}

const viewerOf = (request: FastifyRequest) => request.principal?.user.id ?? null;

async function reassign(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, input: ReassignInput) {
  await readHostCalendarsLive(ctx, { kind: 'booking', uid: input.uid });
  return runMutation(ctx, request, reply, async (tx, announce) => {
    const systemAdmin = request.principal?.user.role === 'ADMIN';
    const reassigned = await reassignBooking({ ...changeContext(ctx, request, tx, announce), systemAdmin }, input);
    return { status: 200, body: ok(presentReassignedBooking(reassigned)) };
  });
}

const REASSIGN_RULES =
  'Round-robin bookings only (400 otherwise), upcoming and not cancelled or rejected. The booking\'s organizer, a host of its event type, or an admin or owner of its team or organization may reassign (403 otherwise). The booking keeps its uid and time; subscriptions of BOOKING_REASSIGNED (svc\'s own trigger) of both hosts, the event type and the team hear of it. Needs svc-api-version 2024-08-13 (404 without it). Send Idempotency-Key to make retries safe.';

export function registerBookingChangeRoutes(app: App, ctx: AppContext): void {
  const tags = ['Bookings'];

  // Public; a token sent with it must cover BOOKING_WRITE (a managed user's client may lack it).
  app.post('/v2/bookings/:bookingUid/cancel', {
    config: { access: access.publicOrUser('BOOKING_WRITE') },
    schema: {
      tags,
      summary: 'Cancel a booking',
      description:
        'Anyone holding the uid may cancel, as in the reference; the organizer must give a reason. A recurringBookingUid cancels every upcoming occurrence; cancelSubsequentBookings cancels this occurrence and the later ones. Seated bookings: seatUid cancels one seat; only the organizer cancels the whole booking. Send Idempotency-Key to make retries safe.',
      headers,
      params: BookingUidParams,
      body: CancelBookingBody,
      response: { 200: Output },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx, announce) => {
        const body = request.body ?? {};
        const change = changeContext(ctx, request, tx, announce);
        const found = await cancelBooking(change, { uid: request.params.bookingUid, ...body });
        await chargeMail(ctx, request, change, true);
        return { status: 200, body: ok(bookingVariant(request.apiVersion).presentFound(found, viewerOf(request))) };
      }),
  });

  app.post('/v2/bookings/:bookingUid/reschedule', {
    config: { access: access.publicOrUser('BOOKING_WRITE') },
    schema: {
      tags,
      summary: 'Reschedule a booking',
      description:
        'Books the new start (checked like POST /v2/bookings, the old booking\'s time excluded) as a new booking and cancels the old one: the old gets rescheduledToUid, the new rescheduledFromUid. Seated bookings: seatUid moves one seat. Send Idempotency-Key to make retries safe.',
      headers,
      params: BookingUidParams,
      body: RescheduleBookingBody,
      response: { 201: Output },
    },
    handler: async (request, reply) => {
      await readHostCalendarsLive(ctx, { kind: 'booking', uid: request.params.bookingUid });
      return runMutation(ctx, request, reply, async (tx, announce) => {
        const { start, rescheduledBy, reschedulingReason, seatUid } = request.body;
        const input = { uid: request.params.bookingUid, start: Date.parse(start), rescheduledBy, reschedulingReason, seatUid };
        const change = changeContext(ctx, request, tx, announce);
        const created = await rescheduleBooking(change, input);
        await chargeMail(ctx, request, change, false);
        return { status: 201, body: ok(bookingVariant(request.apiVersion).presentCreated(created, viewerOf(request))) };
      });
    },
  });

  app.post('/v2/bookings/:bookingUid/confirm', {
    config: { access: access.user('BOOKING_WRITE') },
    schema: {
      tags,
      summary: 'Confirm a booking',
      description:
        'The organizer accepts a pending booking (every pending occurrence of a recurring one), provided its time is still free: 409 when another booking took it meanwhile.',
      headers,
      params: BookingUidParams,
      response: { 200: Output },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx, announce) => {
        const found = await confirmBooking(changeContext(ctx, request, tx, announce), request.params.bookingUid);
        return { status: 200, body: ok(bookingVariant(request.apiVersion).presentFound(found, viewerOf(request))) };
      }),
  });

  app.post('/v2/bookings/:bookingUid/reassign', {
    config: { access: access.user('BOOKING_WRITE') },
    onRequest: routeExistsForVersion,
    schema: {
      tags,
      summary: 'Reassign a booking to auto-selected host',
      description: `Hands the booking to the round-robin host a new booking at its time would get (ranked by weights, priority and least recent booking), among those free then, the current host excluded: 400 when none is. ${REASSIGN_RULES}`,
      headers: newRouteHeaders,
      params: BookingUidParams,
      response: { 200: Envelope(ReassignedBooking_2024_08_13) },
    },
    handler: (request, reply) => reassign(ctx, request, reply, { uid: request.params.bookingUid }),
  });

  app.post('/v2/bookings/:bookingUid/reassign/:userId', {
    config: { access: access.user('BOOKING_WRITE') },
    onRequest: routeExistsForVersion,
    schema: {
      tags,
      summary: 'Reassign a booking to a specific host',
      description: `Hands the booking to userId, a round-robin (not fixed) host of its event type (400 otherwise, 404 for an unknown user) who must be free at its time (400 otherwise). ${REASSIGN_RULES}`,
      headers: newRouteHeaders,
      params: ReassignToUserParams,
      body: ReassignToUserBody,
      response: { 200: Envelope(ReassignedBooking_2024_08_13) },
    },
    handler: (request, reply) => reassign(ctx, request, reply, { uid: request.params.bookingUid, toUserId: request.params.userId, reason: request.body?.reason }),
  });

  app.post('/v2/bookings/:bookingUid/decline', {
    config: { access: access.user('BOOKING_WRITE') },
    schema: {
      tags,
      summary: 'Decline a booking',
      description: 'The organizer rejects a pending booking (every pending occurrence of a recurring one).',
      headers,
      params: BookingUidParams,
      body: DeclineBookingBody,
      response: { 200: Output },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx, announce) => {
        const reason = request.body?.reason;
        const found = await declineBooking(changeContext(ctx, request, tx, announce), request.params.bookingUid, reason);
        return { status: 200, body: ok(bookingVariant(request.apiVersion).presentFound(found, viewerOf(request))) };
      }),
  });
}
