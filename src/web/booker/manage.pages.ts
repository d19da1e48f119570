// A booking's own pages, the links every booking mail carries: /booking/{uid} (the confirmation after
// booking, and where a booking is seen and managed), its cancel form (?cancel=true), its calendar file,
// and /reschedule/{uid} (the booking page's picker for a new time). Reads and changes go through the
// public API, as the booker's own calls would.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { DomainError } from '../../lib/errors.js';
import { invitationIcs } from '../../modules/mail/invitation.js';
import { findBookingByUid } from '../../modules/bookings/bookings.repository.js';
import { bookingPageEventType } from '../../modules/event-types/booking-page.service.js';
import { field, html, sendErrorPage, sendPage } from '../layout.js';
import { PAGE_TAGS } from '../page-guards.js';
import { apiError, BOOKINGS_VERSION, type BookerApi } from './booker-api.js';
import { BOOKER_SCRIPT_PATH } from './booker-script.js';
import { type BookerTexts, bookerTexts } from './booker-texts.js';
import { type BookerPage, showBooker, submitBooking } from './booker.pages.js';
import { alertBox, isTimeZone, whenLabel } from './booker-views.js';
import { formatMoney } from '../../modules/payments/currencies.js';

type Booking = Record<string, any>;

const Uid = Type.Object({ bookingUid: Type.String({ minLength: 1, maxLength: 255 }) });
const schema = (summary: string, description: string) => ({ tags: PAGE_TAGS, summary, description, params: Uid, produces: ['text/html'] });

async function readBooking(api: BookerApi, request: FastifyRequest, uid: string): Promise<{ status: number; booking: Booking | null; message: string }> {
  const answer = await api(request, { method: 'GET', path: `/v2/bookings/${encodeURIComponent(uid)}`, version: BOOKINGS_VERSION });
  if (answer.status !== 200) return { status: answer.status, booking: null, message: apiError(answer).message };
  const data = answer.body.data;
  return { status: 200, booking: Array.isArray(data) ? data[0] : data, message: '' };
}

/** "20270405T090000Z", as calendar links take instants. */
const compact = (iso: string) => new Date(iso).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

function calendarLinks(booking: Booking, where: string, texts: BookerTexts) {
  const google = new URL('https://calendar.google.com/calendar/render');
  google.search = new URLSearchParams({ action: 'TEMPLATE', text: booking.title, dates: `${compact(booking.start)}/${compact(booking.end)}`, details: booking.description ?? '', location: where }).toString();
  const outlook = new URL('https://outlook.live.com/calendar/0/deeplink/compose');
  outlook.search = new URLSearchParams({ path: '/calendar/action/compose', rru: 'addevent', subject: booking.title, startdt: booking.start, enddt: booking.end, body: booking.description ?? '', location: where }).toString();
  return html`<h2>${texts.addToCalendar}</h2>
<ul>
<li><a href="${google.href}" rel="noopener" target="_blank">${texts.google}</a></li>
<li><a href="${outlook.href}" rel="noopener" target="_blank">${texts.outlook}</a></li>
<li><a href="/booking/${booking.uid}/ics" download>${texts.ics}</a></li>
</ul>`;
}

function headingOf(booking: Booking, flags: { created: boolean; rescheduled: boolean }, texts: BookerTexts): string {
  if (booking.status === 'cancelled' || booking.status === 'rejected') return texts.cancelledTitle;
  if (booking.payment?.status === 'awaiting') return texts.payToConfirm;
  if (flags.rescheduled) return texts.rescheduled;
  if (flags.created) return booking.status === 'pending' ? texts.requested : texts.scheduled;
  return booking.title;
}

/** What an embedding page is told (README, "Booking pages"): no attendee details, only the booking's facts. */
const embedEvent = (booking: Booking, type: string) =>
  html`<div id="booker-event" hidden data-type="${type}" data-booking="${JSON.stringify({ uid: booking.uid, title: booking.title, startTime: booking.start, endTime: booking.end, status: booking.status, eventTypeId: booking.eventTypeId ?? null })}"></div>`;

function bookingBody(booking: Booking, request: FastifyRequest, texts: BookerTexts, now: number, alert: string | null, cancelling: boolean) {
  const q = (request.query ?? {}) as Record<string, unknown>;
  const attendee = booking.attendees?.[0];
  const tzAsked = field(q, 'tz');
  const tz = isTimeZone(tzAsked) ? tzAsked : (attendee?.timeZone ?? 'UTC');
  const hour12 = field(q, 'h') !== '24';
  const host = booking.hosts?.[0];
  const closed = booking.status === 'cancelled' || booking.status === 'rejected';
  const over = Date.parse(booking.end) <= now;
  const link = typeof booking.meetingUrl === 'string' && /^https?:\/\//.test(booking.meetingUrl) ? booking.meetingUrl : null;
  const where = link ?? (typeof booking.location === 'string' && !booking.location.startsWith('integrations:') ? booking.location : '');
  const people = [...(booking.hosts ?? []).map((person: any) => person.name || person.email), ...(booking.attendees ?? []).map((person: any) => person.name)];
  const payment = booking.payment as { status: string; amount: number; currency: string; paymentLink: string | null; expiresAt: string | null } | undefined;
  const amount = payment ? formatMoney(payment.amount, payment.currency, texts.lang) : '';
  // A paid event type's booking waits for its payment first: the page is where the booker pays (Stripe's page).
  const awaiting = payment?.status === 'awaiting' && !closed && payment.paymentLink && payment.expiresAt ? { link: payment.paymentLink, until: payment.expiresAt } : null;
  const returned = field(q, 'payment');
  const state = awaiting
    ? html`${returned === 'paid' ? html`<p class="notice" role="status">${texts.paymentProcessing}</p>` : returned === 'cancelled' ? html`<p class="alert" role="status">${texts.paymentNotCompleted}</p>` : html``}
<p class="notice">${texts.payNotice(amount, whenLabel(awaiting.until, tz, hour12, texts.lang))}</p>
<p><a id="pay-link" class="button" href="${awaiting.link}" target="_top" rel="noopener">${texts.payButton(amount)}</a></p>`
    : booking.status === 'cancelled' && payment?.status === 'expired'
      ? html`<p class="alert" role="status">${texts.released}</p>`
      : booking.status === 'pending'
        ? html`<p class="notice" role="status">${texts.waiting}</p>`
        : booking.status === 'cancelled'
          ? html`<p class="alert" role="status">${texts.cancelled}</p>`
          : booking.status === 'rejected'
            ? html`<p class="alert" role="status">${texts.rejected}</p>`
            : over
              ? html`<p role="status">${texts.past}</p>`
              : html``;
  const rows = [
    html`<tr><th scope="row">${texts.what}</th><td>${booking.title}</td></tr>`,
    html`<tr><th scope="row">${texts.when}</th><td><span id="your-time">${texts.yourTime}: ${whenLabel(booking.start, tz, hour12, texts.lang)}</span>${host?.timeZone && host.timeZone !== tz ? html`<br><span id="host-time">${texts.hostTime}: ${whenLabel(booking.start, host.timeZone, hour12, texts.lang)}</span>` : html``}</td></tr>`,
    html`<tr><th scope="row">${texts.who}</th><td>${people.join(', ')}</td></tr>`,
    ...(payment ? [html`<tr><th scope="row">${texts.payment}</th><td id="payment-state">${amount} · ${texts.paymentStatus[payment.status] ?? payment.status}</td></tr>`] : []),
    ...(where ? [html`<tr><th scope="row">${texts.location}</th><td>${link && !closed ? html`<a id="meeting-link" href="${link}" rel="noopener">${texts.join}</a> <code>${link}</code>` : where}</td></tr>`] : []),
  ];
  // Unpaid, a booking cannot be moved (the API refuses): only cancelled.
  const rescheduleLink = awaiting ? html`` : html`<a id="reschedule-link" href="/reschedule/${booking.uid}?tz=${encodeURIComponent(tz)}">${texts.reschedule}</a> · `;
  const manage =
    closed || over
      ? html``
      : html`<h2>${texts.manage}</h2><p>${rescheduleLink}<a id="cancel-link" href="/booking/${booking.uid}?cancel=true&amp;tz=${encodeURIComponent(tz)}">${texts.cancel}</a></p>`;
  const flags = { created: field(q, 'new') === '1', rescheduled: field(q, 'rescheduled') === '1', cancelled: field(q, 'cancelled') === '1' };
  const event = flags.created ? embedEvent(booking, 'bookingSuccessful') : flags.rescheduled ? embedEvent(booking, 'rescheduleBookingSuccessful') : flags.cancelled ? embedEvent(booking, 'bookingCancelled') : html``;
  const cancelForm =
    cancelling && !closed && !over
      ? html`<section aria-labelledby="cancel-heading"><h2 id="cancel-heading">${texts.cancelTitle}</h2>
<form method="post" action="/booking/${booking.uid}/cancel?tz=${encodeURIComponent(tz)}">
<label for="cancellationReason">${texts.cancellationReason}</label><textarea id="cancellationReason" name="cancellationReason" rows="3"></textarea>
<button type="submit">${texts.cancelConfirm}</button> <a href="/booking/${booking.uid}?tz=${encodeURIComponent(tz)}">${texts.keep}</a>
</form></section>`
      : html``;
  return {
    title: headingOf(booking, flags, texts),
    body: html`${alertBox(alert)}${state}<table>${rows}</table>${closed || over || awaiting ? html`` : calendarLinks(booking, where, texts)}${cancelForm}${manage}${event}`,
  };
}

export function registerManagePages(app: App, ctx: AppContext, api: BookerApi): void {
  // A refused cancellation shows the cancel form again, whatever the query says.
  const show = async (request: FastifyRequest, reply: FastifyReply, alert: string | null = null, status = 200, cancelling = field(request.query, 'cancel') === 'true') => {
    const texts = bookerTexts(request.headers['accept-language']);
    const { bookingUid } = request.params as { bookingUid: string };
    const read = await readBooking(api, request, bookingUid);
    if (!read.booking) return sendErrorPage(reply, read.status, 'This booking is not available', read.message);
    const page = bookingBody(read.booking, request, texts, ctx.clock(), alert, cancelling);
    return sendPage(reply, status, { ...page, script: BOOKER_SCRIPT_PATH, frameAncestors: ctx.config.embedOrigins, lang: texts.lang });
  };

  app.get('/booking/:bookingUid', { config: { access: access.public() }, schema: schema('A booking', 'svc web page: the booking (GET /v2/bookings/{uid}) in the booker\'s time zone and the host\'s, its meeting link, add-to-calendar links, and links to reschedule or cancel it (?cancel=true: the cancel form).') }, (request, reply) => show(request, reply));

  app.post('/booking/:bookingUid/cancel', { config: { access: access.public() }, schema: schema('Cancel a booking', 'svc web page: cancels the booking (POST /v2/bookings/{uid}/cancel) with the reason given.') }, async (request, reply) => {
    const { bookingUid } = request.params as { bookingUid: string };
    const reason = field(request.body, 'cancellationReason')?.trim();
    const answer = await api(request, { method: 'POST', path: `/v2/bookings/${encodeURIComponent(bookingUid)}/cancel`, version: BOOKINGS_VERSION, body: reason ? { cancellationReason: reason } : {} });
    if (answer.status === 200) {
      const tz = field(request.query, 'tz');
      return reply.redirect(`/booking/${encodeURIComponent(bookingUid)}?cancelled=1${tz ? `&tz=${encodeURIComponent(tz)}` : ''}`, 303);
    }
    const texts = bookerTexts(request.headers['accept-language']);
    return show(request, reply, `${texts.notChanged} ${apiError(answer).message}`, answer.status, true);
  });

  app.get('/booking/:bookingUid/ics', { config: { access: access.public() }, schema: { ...schema('A booking\'s calendar file', 'The booking as an iCalendar file (text/calendar), with the UID of its mailed invitations.'), produces: ['text/calendar'] } }, async (request, reply) => {
    const { bookingUid } = request.params as { bookingUid: string };
    const read = await readBooking(api, request, bookingUid);
    if (!read.booking) return sendErrorPage(reply, read.status, 'This booking is not available', read.message);
    const booking = read.booking;
    const row = await findBookingByUid(ctx.database.db, booking.uid);
    const link = typeof booking.meetingUrl === 'string' && /^https?:\/\//.test(booking.meetingUrl) ? booking.meetingUrl : null;
    const ics = invitationIcs({
      method: null,
      uid: row?.icsUid ?? booking.uid,
      sequence: row?.icsSequence ?? 0,
      stamp: new Date(ctx.clock()),
      start: new Date(booking.start),
      end: new Date(booking.end),
      summary: booking.title,
      description: booking.description ?? '',
      location: link ?? (typeof booking.location === 'string' && !booking.location.startsWith('integrations:') ? booking.location : null),
      tentative: booking.status === 'pending',
      organizer: { name: booking.hosts?.[0]?.name ?? null, email: booking.hosts?.[0]?.email ?? 'unknown@invalid' },
      attendees: (booking.attendees ?? []).map((attendee: any) => ({ name: attendee.name, email: attendee.email, accepted: true })),
    });
    return reply.header('Content-Type', 'text/calendar; charset=utf-8').header('Content-Disposition', `attachment; filename="${booking.uid}.ics"`).header('Cache-Control', 'no-store').send(ics);
  });

  const reschedulePage = async (request: FastifyRequest, reply: FastifyReply, submit: boolean) => {
    const texts = bookerTexts(request.headers['accept-language']);
    const { bookingUid } = request.params as { bookingUid: string };
    const read = await readBooking(api, request, bookingUid);
    if (!read.booking) return sendErrorPage(reply, read.status, 'This booking is not available', read.message);
    const booking = read.booking;
    if (booking.status === 'cancelled' || booking.status === 'rejected') return sendErrorPage(reply, 410, texts.cancelledTitle, booking.status === 'rejected' ? texts.rejected : texts.cancelled);
    if (typeof booking.eventTypeId !== 'number') return sendErrorPage(reply, 404, 'This booking is not available', 'This booking has no event type to pick a new time from.');
    try {
      const eventType = await bookingPageEventType(ctx.database.db, ctx.config, { kind: 'booked', eventTypeId: booking.eventTypeId }, ctx.clock());
      const page: BookerPage = { path: `/reschedule/${encodeURIComponent(booking.uid)}`, eventType, reschedule: booking };
      return submit ? submitBooking({ ctx, api }, request, reply, page) : showBooker({ ctx, api }, request, reply, page);
    } catch (error) {
      if (error instanceof DomainError) return sendErrorPage(reply, 404, 'This page is not available', error.message);
      throw error;
    }
  };
  const description = 'svc web page: the booking page\'s picker for a new time for this booking (its own time counts as free); posting it moves the booking (POST /v2/bookings/{uid}/reschedule).';
  app.get('/reschedule/:bookingUid', { config: { access: access.public() }, schema: schema('Reschedule a booking', description) }, (request, reply) => reschedulePage(request, reply, false));
  app.post('/reschedule/:bookingUid', { config: { access: access.public() }, schema: schema('Reschedule a booking: move it', description) }, (request, reply) => reschedulePage(request, reply, true));
}
