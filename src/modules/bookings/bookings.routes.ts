import type { App } from '../../http/app.js';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import { versionHeaderSchema } from '../../http/api-version.js';
import { Envelope, ok } from '../../http/envelope.js';
import { runMutation } from '../../http/mutation.js';
import { principalOf } from '../../http/request-guard.js';
import { chargeAnonymousMail, newOutsideMailTally } from '../mail/mail-budget.js';
import { registerBookingChangeRoutes } from './changes/booking-changes.routes.js';
import { createBooking } from './create/booking-create.service.js';
import { openBookingCheckout } from './create/booking-checkout.js';
import { abandonCheckout } from '../payments/checkout.service.js';
import { registerBookingDetailRoutes } from './details/booking-details.routes.js';
import { BookingData_2024_08_13, BookingsListOutput_2024_08_13, BookingsQuery_2024_08_13, BookingUidParams, CreateBookingBody_2024_08_13 } from './bookings.schemas.js';
import { getBooking, listBookings, readHostCalendarsLive } from './bookings.service.js';
import { bookingVariant } from './bookings.versions.js';
import { builtInVideoOf } from '../conferencing/built-in-video.js';

export const bookingsVersionHeader = versionHeaderSchema('2024-08-13');
/** Write routes also take Idempotency-Key. */
export const bookingsMutationHeaders = versionHeaderSchema('2024-08-13', 'Send 2024-08-13', { idempotent: true });

export function registerBookingRoutes(app: App, ctx: AppContext): void {
  const tags = ['Bookings'];

  app.post('/v2/bookings', {
    config: { access: access.publicOrUser() },
    schema: {
      tags,
      summary: 'Create a booking',
      description:
        'Books a start GET /v2/slots lists (checked again under the hosts\' locks). Recurring event types book the series (an array); on a seated event type a second booker takes a seat. Send Idempotency-Key to make retries safe.',
      headers: bookingsMutationHeaders,
      body: CreateBookingBody_2024_08_13,
      response: { 201: Envelope(BookingData_2024_08_13) },
    },
    handler: async (request, reply) => {
      const variant = bookingVariant(request.apiVersion);
      const input = variant.toCreateInput(request.body);
      if (input.target) await readHostCalendarsLive(ctx, input.target);
      const payment = await openBookingCheckout(ctx, input);
      // A payment page no committed booking took (a refusal, a replayed request) is closed again.
      let taken = false;
      try {
        await runMutation(ctx, request, reply, async (tx, announce) => {
          const callerId = request.principal?.user.id ?? null;
          const mailTally = request.principal ? null : newOutsideMailTally();
          const created = await createBooking({ tx, listener: ctx.bookingEvents, announce, now: ctx.clock(), callerId, cache: ctx.availability, mailTally, video: builtInVideoOf(ctx.config) }, { ...input, payment: payment ?? undefined });
          if (mailTally) await chargeAnonymousMail(tx, mailTally, { ip: request.ip, now: ctx.clock(), limits: ctx.config.mailLimits, cancellation: false });
          return { status: 201, body: ok(variant.presentCreated(created, callerId)) };
        });
        taken = reply.getHeader('idempotent-replayed') === undefined;
      } finally {
        if (payment && !taken) await abandonCheckout(ctx.database.db, payment);
      }
      return reply;
    },
  });

  app.get('/v2/bookings', {
    config: { access: access.user('BOOKING_READ') },
    schema: { tags, summary: 'Get all bookings', description: "Bookings you host or attend, and those of the event types of the teams you are an ADMIN or OWNER of (within your organization, if you have one). teamsIds (or teamId) keeps those of the teams' event types.", headers: bookingsVersionHeader, querystring: BookingsQuery_2024_08_13, response: { 200: BookingsListOutput_2024_08_13 } },
    handler: async (request) => {
      const variant = bookingVariant(request.apiVersion);
      const { user } = principalOf(request);
      const input = variant.toListInput(request.query);
      const { records, total } = await listBookings(ctx.database.db, user, input, ctx.clock());
      return { status: 'success' as const, ...variant.presentPage(records, total, input, user.id) };
    },
  });

  app.get('/v2/bookings/:bookingUid', {
    config: { access: access.publicOrUser('BOOKING_READ') },
    schema: {
      tags,
      summary: 'Get a booking',
      description: 'Anyone holding the uid may read the booking, as in the reference. A recurringBookingUid gives every occurrence.',
      headers: bookingsVersionHeader,
      params: BookingUidParams,
      response: { 200: Envelope(BookingData_2024_08_13) },
    },
    handler: async (request) => {
      const found = await getBooking(ctx.database.db, request.params.bookingUid);
      return ok(bookingVariant(request.apiVersion).presentFound(found, request.principal?.user.id ?? null));
    },
  });

  registerBookingChangeRoutes(app, ctx);
  registerBookingDetailRoutes(app, ctx);
}
