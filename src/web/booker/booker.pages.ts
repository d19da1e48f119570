import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { DomainError } from '../../lib/errors.js';
import { type BookingPageEventType, type BookingPageTarget, bookingPageEventType } from '../../modules/event-types/booking-page.service.js';
import { field, fieldList, html, sendErrorPage, sendPage } from '../layout.js';
import { PAGE_TAGS } from '../page-guards.js';
import { apiError, type ApiAnswer, BOOKINGS_VERSION, type BookerApi, SLOTS_VERSION } from './booker-api.js';
import { BOOKER_SCRIPT, BOOKER_SCRIPT_PATH } from './booker-script.js';
import { type BookerTexts, bookerTexts } from './booker-texts.js';
import { formatMoney } from '../../modules/payments/currencies.js';
import {
  alertBox,
  bookingForm,
  daySection,
  dayContent,
  daysInMonth,
  factsLine,
  type FormField,
  isTimeZone,
  localDay,
  type LocationChoice,
  monthOf,
  monthTable,
  type PickerState,
  settingsForm,
  type Slot,
  whenLabel,
} from './booker-views.js';

/** First path segments that are svc's own: a user with such a username has no page at /{username}/{slug}. */
const RESERVED = new Set(['v2', 'auth', 'settings', 'docs', 'teams', 'team', 'd', 'booking', 'reschedule', 'video', 'org', 'api', '.well-known']);

/** API answers that mean the time is no longer free: the picker is shown again with fresh times. */
const TAKEN = new Set(['slot_booked', 'slot_unavailable', 'slot_reserved', 'no_available_host', 'not_available', 'host_unavailable', 'booking_seats_full', 'booking_limit_reached']);

const DOMAIN_STATUS: Record<DomainError['kind'], number> = { bad_request: 400, unauthorized: 401, token_expired: 401, forbidden: 403, not_found: 404, conflict: 409, unprocessable: 422, too_many_requests: 429, unavailable: 503 };

export interface BookerDeps {
  ctx: AppContext;
  api: BookerApi;
}

/** A booking being rescheduled, as GET /v2/bookings/{uid} printed it. */
type BookingOutput = Record<string, any>;

interface BookerPage {
  path: string;
  eventType: BookingPageEventType;
  reschedule: BookingOutput | null;
}

const query = (request: FastifyRequest) => (request.query ?? {}) as Record<string, unknown>;

function pickerState(request: FastifyRequest, page: BookerPage, now: Date, source: Record<string, unknown> = query(request)): PickerState & { lengths: number[]; today: string } {
  const output = page.eventType.output;
  const tzAsked = field(source, 'tz');
  const tz = isTimeZone(tzAsked) ? tzAsked : (page.reschedule?.attendees?.[0]?.timeZone ?? 'UTC');
  const today = localDay(now, tz);
  const lengths: number[] = Array.isArray(output.lengthInMinutesOptions) && output.lengthInMinutesOptions.length > 0 ? output.lengthInMinutesOptions : [output.lengthInMinutes];
  const askedLength = Number(field(source, 'duration'));
  const duration = lengths.length > 1 ? (lengths.includes(askedLength) ? askedLength : output.lengthInMinutes) : null;
  // Rescheduling starts at the booking's own day (when it is still ahead).
  const current = page.reschedule && Date.parse(page.reschedule.start) > now.getTime() ? localDay(new Date(page.reschedule.start), tz) : null;
  const askedDate = field(source, 'date') ?? (field(source, 'month') ? undefined : (current ?? undefined));
  const date = askedDate && /^\d{4}-\d{2}-\d{2}$/.test(askedDate) ? askedDate : null;
  const askedMonth = field(source, 'month');
  let month = askedMonth && /^\d{4}-(0[1-9]|1[0-2])$/.test(askedMonth) ? askedMonth : date ? monthOf(date) : monthOf(today);
  if (month < monthOf(today)) month = monthOf(today);
  return { path: page.path, tz, hour12: field(source, 'h') !== '24', month, date: date && monthOf(date) === month ? date : null, duration, lengths, today };
}

async function monthSlots(deps: BookerDeps, request: FastifyRequest, page: BookerPage, state: PickerState & { today: string }): Promise<ApiAnswer> {
  const start = state.month === monthOf(state.today) ? state.today : `${state.month}-01`;
  return deps.api(request, {
    method: 'GET',
    path: '/v2/slots',
    version: SLOTS_VERSION,
    query: {
      ...page.eventType.apiTarget,
      start,
      end: `${state.month}-${String(daysInMonth(state.month)).padStart(2, '0')}`,
      timeZone: state.tz,
      duration: state.duration ?? undefined,
      bookingUidToReschedule: page.reschedule?.uid,
    },
  });
}

function locationChoices(output: Record<string, any>, texts: BookerTexts): LocationChoice[] {
  const locations: Record<string, any>[] = Array.isArray(output.locations) ? output.locations : [];
  return locations.map((location, index) => {
    const type = String(location.type);
    const detail = type === 'address' && location.public !== false ? location.address : type === 'integration' ? null : type === 'link' && location.public !== false ? location.link : null;
    const asks = type === 'attendeeAddress' ? 'address' : type === 'attendeePhone' ? 'phone' : type === 'attendeeDefined' ? 'location' : undefined;
    return { value: String(index), label: [texts.where[type] ?? type, detail].filter(Boolean).join(': '), ...(asks ? { asks } : {}) };
  });
}

function pageFacts(page: BookerPage, state: PickerState, texts: BookerTexts) {
  const { output, hostNames, teamName } = page.eventType;
  const where = locationChoices(output, texts).map((choice) => choice.label);
  const hosts = teamName ? `${teamName}${hostNames.length ? ` (${hostNames.join(', ')})` : ''}` : hostNames.join(', ');
  const price = typeof output.price === 'number' && output.price > 0 ? formatMoney(output.price, output.currency, texts.lang) : '';
  return html`${factsLine([texts.hostedBy(hosts), texts.minutes(state.duration ?? output.lengthInMinutes), price, where.join(', ')])}
${output.description ? html`<p>${output.description}</p>` : html``}
${page.reschedule ? html`<p class="notice">${texts.currentTime(whenLabel(page.reschedule.start, state.tz, state.hour12, texts.lang))}</p>` : html``}`;
}

interface ShowOptions {
  status?: number;
  alert?: string | null;
  values?: Record<string, string>;
  /** Show the form for this start (a failed submission), whatever the query says. */
  slot?: string | null;
  source?: Record<string, unknown>;
}

async function showBooker(deps: BookerDeps, request: FastifyRequest, reply: FastifyReply, page: BookerPage, options: ShowOptions = {}): Promise<FastifyReply> {
  const texts = bookerTexts(request.headers['accept-language']);
  const state = pickerState(request, page, new Date(deps.ctx.clock()), options.source);
  const title = page.reschedule ? texts.rescheduleTitle(page.eventType.output.title) : page.eventType.output.title;
  const common = { title, script: BOOKER_SCRIPT_PATH, frameAncestors: deps.ctx.config.embedOrigins, wide: true, lang: texts.lang };
  const slotAsked = options.slot === undefined ? field(query(request), 'slot') : options.slot;
  if (slotAsked && !Number.isNaN(Date.parse(slotAsked))) {
    const form = bookingForm({
      state,
      slot: slotAsked,
      fields: (page.eventType.output.bookingFields ?? []) as FormField[],
      locations: locationChoices(page.eventType.output, texts),
      values: options.values ?? {},
      idempotencyKey: randomUUID(),
      rescheduling: page.reschedule !== null,
      texts,
    });
    return sendPage(reply, options.status ?? 200, { ...common, body: html`${pageFacts(page, state, texts)}${alertBox(options.alert ?? null)}${form}` });
  }
  const answer = await monthSlots(deps, request, page, state);
  if (answer.status !== 200) return sendErrorPage(reply, answer.status, 'The times could not be shown', apiError(answer).message);
  const slots = (answer.body.data ?? {}) as Record<string, Slot[]>;
  const days = Object.keys(slots).sort();
  const chosen = { ...state, date: state.date ?? days[0] ?? null };
  if (field(query(request), 'partial') === 'day') {
    return reply.status(200).header('Content-Type', 'text/html; charset=utf-8').header('Cache-Control', 'no-store').header('X-Content-Type-Options', 'nosniff').send(dayContent(chosen, slots, texts).text);
  }
  const weekStart = page.eventType.output.team?.weekStart ?? page.eventType.output.users?.[0]?.weekStart ?? 'Sunday';
  const body = html`${pageFacts(page, chosen, texts)}
${alertBox(options.alert ?? null)}
${settingsForm(chosen, state.lengths, texts)}
<div class="picker" data-booker-tz="${state.tz}">
${monthTable(chosen, slots, weekStart, texts, state.today)}
${daySection(chosen, slots, texts)}
</div>`;
  return sendPage(reply, options.status ?? 200, { ...common, body });
}

/** The form's answers as the booking API takes them. */
function bookingBody(page: BookerPage, form: Record<string, unknown>, state: PickerState, texts: BookerTexts): Record<string, unknown> {
  const output = page.eventType.output;
  const fields = ((output.bookingFields ?? []) as FormField[]).filter((bookingField) => bookingField.hidden !== true);
  const text = (name: string) => (field(form, name) ?? '').trim();
  const responses: Record<string, unknown> = {};
  let phoneNumber: string | undefined;
  for (const bookingField of fields) {
    if (bookingField.isDefault) continue;
    const name = `f-${bookingField.slug}`;
    const value =
      bookingField.type === 'multiselect' || bookingField.type === 'checkbox'
        ? fieldList(form, name)
        : bookingField.type === 'boolean'
          ? field(form, name) === 'true'
          : bookingField.type === 'number' && text(name) !== ''
            ? Number(text(name))
            : bookingField.type === 'multiemail'
              ? text(name).split(/[\s,;]+/).filter(Boolean)
              : text(name);
    if (value === '' || (Array.isArray(value) && value.length === 0)) continue;
    responses[bookingField.slug] = value;
  }
  const phoneField = fields.find((bookingField) => bookingField.slug === 'attendeePhoneNumber');
  if (phoneField && text('f-attendeePhoneNumber')) phoneNumber = text('f-attendeePhoneNumber');
  if (text('notes')) responses.notes = text('notes');
  const name = text('name') || [text('firstName'), text('lastName')].filter(Boolean).join(' ');
  const locations: Record<string, any>[] = Array.isArray(output.locations) ? output.locations : [];
  const chosen = locations[Number(field(form, 'location') ?? 0)] ?? null;
  const detail = text('locationDetail');
  const location = chosen
    ? {
        type: chosen.type,
        ...(chosen.type === 'integration' ? { integration: chosen.integration } : {}),
        ...(chosen.type === 'attendeeAddress' && detail ? { address: detail } : {}),
        ...(chosen.type === 'attendeePhone' && detail ? { phone: detail } : {}),
        ...(chosen.type === 'attendeeDefined' && detail ? { location: detail } : {}),
      }
    : undefined;
  const guests = text('guests').split(/[\s,;]+/).filter(Boolean);
  return {
    start: field(form, 'slot'),
    attendee: { name, ...(text('email') ? { email: text('email') } : {}), timeZone: state.tz, language: texts.lang, ...(phoneNumber ? { phoneNumber } : {}) },
    ...page.eventType.apiTarget,
    ...(Object.keys(responses).length ? { bookingFieldsResponses: responses } : {}),
    ...(guests.length ? { guests } : {}),
    // The first location is the API's default: it is named only when the booker had a choice or gave a place.
    ...(location && (locations.length > 1 || detail) ? { location } : {}),
    ...(state.duration !== null ? { lengthInMinutes: state.duration } : {}),
  };
}

/** Values to put back in the form after a refusal (every field as text). */
function formValues(form: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of Object.keys(form)) values[name] = fieldList(form, name).join('\n');
  return values;
}

async function submitBooking(deps: BookerDeps, request: FastifyRequest, reply: FastifyReply, page: BookerPage): Promise<FastifyReply> {
  const form = (request.body ?? {}) as Record<string, unknown>;
  const texts = bookerTexts(request.headers['accept-language']);
  const state = pickerState(request, page, new Date(deps.ctx.clock()));
  const slot = field(form, 'slot') ?? '';
  const idempotencyKey = field(form, 'idem');
  const answer = page.reschedule
    ? await deps.api(request, {
        method: 'POST',
        path: `/v2/bookings/${encodeURIComponent(page.reschedule.uid)}/reschedule`,
        version: BOOKINGS_VERSION,
        idempotencyKey,
        body: { start: slot, ...(field(form, 'rescheduleReason')?.trim() ? { reschedulingReason: field(form, 'rescheduleReason')!.trim() } : {}) },
      })
    : await deps.api(request, { method: 'POST', path: '/v2/bookings', version: BOOKINGS_VERSION, idempotencyKey, body: bookingBody(page, form, state, texts) });
  if (answer.status === 201 || answer.status === 200) {
    const created = Array.isArray(answer.body.data) ? answer.body.data[0] : answer.body.data;
    const params = new URLSearchParams({ tz: state.tz, h: state.hour12 ? '12' : '24', [page.reschedule ? 'rescheduled' : 'new']: '1' });
    return reply.redirect(`/booking/${encodeURIComponent(created.uid)}?${params}`, 303);
  }
  const error = apiError(answer);
  if (error.reason && TAKEN.has(error.reason) && !Number.isNaN(Date.parse(slot))) {
    const source = { ...query(request), date: localDay(new Date(slot), state.tz), month: monthOf(localDay(new Date(slot), state.tz)) };
    return showBooker(deps, request, reply, page, { status: answer.status, alert: `${texts.taken} (${error.message})`, slot: null, source });
  }
  return showBooker(deps, request, reply, page, { status: answer.status, alert: `${texts.notSent} ${error.message}`, values: formValues(form), slot });
}

/** An event type's page from its path; a refusal becomes an error page. */
async function withEventType(deps: BookerDeps, reply: FastifyReply, target: BookingPageTarget, run: (eventType: BookingPageEventType) => Promise<FastifyReply>): Promise<FastifyReply> {
  try {
    const eventType = await bookingPageEventType(deps.ctx.database.db, deps.ctx.config, target, deps.ctx.clock());
    return await run(eventType);
  } catch (error) {
    if (error instanceof DomainError) return sendErrorPage(reply, DOMAIN_STATUS[error.kind], 'This page is not available', error.message);
    throw error;
  }
}

const Segment = Type.String({ minLength: 1, maxLength: 255 });
const BookerQuery = Type.Object({
  tz: Type.Optional(Type.String({ maxLength: 64, description: 'The booker\'s time zone (IANA); the page finds the browser\'s' })),
  h: Type.Optional(Type.String({ maxLength: 2, description: '12 or 24 (hours)' })),
  month: Type.Optional(Type.String({ maxLength: 7, description: 'YYYY-MM shown' })),
  date: Type.Optional(Type.String({ maxLength: 10, description: 'YYYY-MM-DD whose times are shown' })),
  duration: Type.Optional(Type.String({ maxLength: 4, description: 'A length of lengthInMinutesOptions' })),
  slot: Type.Optional(Type.String({ maxLength: 64, description: 'A start: the booking form for it' })),
  partial: Type.Optional(Type.String({ maxLength: 8, description: 'day: only the day\'s times (the page\'s script)' })),
});

const pageSchema = (summary: string, description: string, params: Record<string, typeof Segment>) => ({
  tags: PAGE_TAGS,
  summary,
  description,
  params: Type.Object(params),
  querystring: BookerQuery,
  produces: ['text/html'],
});

/** The booking pages: `/{username}/{slug}`, `/team/{teamSlug}/{slug}`, `/org/{orgSlug}/team/{teamSlug}/{slug}`, private links `/d/{linkId}/{slug}`. */
export function registerBookerPages(app: App, ctx: AppContext, api: BookerApi): void {
  const deps: BookerDeps = { ctx, api };
  const routes: { url: string; summary: string; params: Record<string, typeof Segment>; target: (params: Record<string, string>) => BookingPageTarget | null }[] = [
    {
      url: '/:username/:slug',
      summary: "A user's booking page",
      params: { username: Segment, slug: Segment },
      target: (params) => (RESERVED.has(params.username!.toLowerCase()) ? null : { kind: 'user', username: params.username!, slug: params.slug! }),
    },
    { url: '/team/:teamSlug/:slug', summary: "A team's booking page", params: { teamSlug: Segment, slug: Segment }, target: (params) => ({ kind: 'team', teamSlug: params.teamSlug!, slug: params.slug! }) },
    {
      url: '/org/:orgSlug/team/:teamSlug/:slug',
      summary: "An organization team's booking page",
      params: { orgSlug: Segment, teamSlug: Segment, slug: Segment },
      target: (params) => ({ kind: 'team', teamSlug: params.teamSlug!, slug: params.slug!, organizationSlug: params.orgSlug! }),
    },
    { url: '/d/:linkId/:slug', summary: 'A private link\'s booking page', params: { linkId: Segment, slug: Segment }, target: (params) => ({ kind: 'link', linkId: params.linkId!, slug: params.slug! }) },
  ];
  for (const route of routes) {
    const description = 'svc web page: the event type, a month of days with free times in the booker\'s time zone, a day\'s times, and the booking form built from its booking fields; posting it books through POST /v2/bookings.';
    const handle = (submit: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
      const target = route.target(request.params as Record<string, string>);
      if (!target) return reply.callNotFound();
      const path = request.url.split('?')[0]!;
      return withEventType(deps, reply, target, (eventType) => (submit ? submitBooking : showBooker)(deps, request, reply, { path, eventType, reschedule: null }));
    };
    app.get(route.url, { config: { access: access.public() }, schema: pageSchema(route.summary, description, route.params) }, handle(false));
    app.post(route.url, { config: { access: access.public() }, schema: { ...pageSchema(`${route.summary}: book`, 'svc web page: books the chosen time with the form\'s answers (POST /v2/bookings).', route.params) } }, handle(true));
  }

  app.get('/booker.js', { config: { access: access.public() }, schema: { tags: PAGE_TAGS, summary: 'The booking pages\' script', produces: ['text/javascript'] } }, async (_request, reply) =>
    reply.header('Content-Type', 'text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=31536000, immutable').header('X-Content-Type-Options', 'nosniff').send(BOOKER_SCRIPT),
  );
}

export { showBooker, submitBooking, type BookerPage };
