import type { App } from '../../http/app.js';
import type { AppContext } from '../../app/context.js';
import type { CalendarConnectionType } from '../../db/schema.js';
import { access } from '../../http/access.js';
import { Envelope, ok } from '../../http/envelope.js';
import { principalOf } from '../../http/request-guard.js';
import { badRequest, invalidField } from '../../lib/errors.js';
import { isIanaTimeZone } from '../../lib/time-zones.js';
import { parseWindowBound } from '../slots/slots.versions.js';
import { ICLOUD_CALDAV_URL } from '../../integrations/caldav/index.js';
import {
  BusyTimesOutput,
  BusyTimesQuery,
  CaldavCredentialsBody,
  CalendarParams,
  CalendarsOutput,
  ConnectOutput,
  ConnectQuery,
  DestinationCalendarBody,
  DestinationCalendarSetOutput,
  ConnectionOutput,
  DisconnectBody,
  SaveIcsFeedBody,
  SaveQuery,
  SelectedCalendarBody,
  SelectedCalendarOutput,
  SelectedCalendarQuery,
} from './calendars.schemas.js';
import { isOAuthType } from './calendar-oauth.js';
import { checkConnection, disconnect, listCalendars, saveCaldavAccount, saveIcsFeeds, setCalendarSelected, setDestinationCalendar } from './calendars.service.js';
import { busyTimes } from './busy-times.service.js';
import { oauthConnectUrl, saveOAuthCalendar } from './oauth-connect.service.js';
import { UnifiedEvent, UnifiedEventParams, UpdateUnifiedEventBody } from './unified-events.schemas.js';
import { getUnifiedEvent, updateUnifiedEvent } from './unified-events.service.js';

const ConnectionEnvelope = Envelope(ConnectionOutput);

const tags = ['Calendars'];

/** The reference's `:calendar` path values, and svc's `caldav` (any CalDAV server). */
const CALENDAR_TYPES: Record<string, CalendarConnectionType> = {
  google: 'google_calendar',
  office365: 'office365_calendar',
  apple: 'apple_calendar',
  caldav: 'caldav_calendar',
  'ics-feed': 'ics-feed_calendar',
};

function connectionTypeOf(calendar: string): CalendarConnectionType {
  const type = CALENDAR_TYPES[calendar];
  if (!type) throw badRequest('unknown_calendar', `Invalid calendar type, available calendars are: ${Object.keys(CALENDAR_TYPES).join(', ')}`);
  return type;
}

/** `calendarsToLoad[0][credentialId]=1&calendarsToLoad[0][externalId]=...` from the raw query string. */
function calendarsToLoadOf(rawUrl: string): { credentialId: number; externalId: string }[] {
  const params = new URLSearchParams(rawUrl.includes('?') ? rawUrl.slice(rawUrl.indexOf('?') + 1) : '');
  const byIndex = new Map<number, { credentialId?: string; externalId?: string }>();
  for (const [key, value] of params) {
    const match = /^calendarsToLoad\[(\d{1,3})\]\[(credentialId|externalId)\]$/.exec(key);
    if (!match) continue;
    const index = Number(match[1]);
    const entry = byIndex.get(index) ?? {};
    entry[match[2] as 'credentialId' | 'externalId'] = value;
    byIndex.set(index, entry);
  }
  return [...byIndex.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, entry]) => {
      const credentialId = Number(entry.credentialId);
      if (!entry.credentialId || !Number.isInteger(credentialId) || credentialId < 1) throw invalidField(`calendarsToLoad.${index}.credentialId`, 'must be a positive integer', entry.credentialId);
      if (!entry.externalId) throw invalidField(`calendarsToLoad.${index}.externalId`, 'should not be empty', entry.externalId);
      return { credentialId, externalId: entry.externalId };
    });
}

export function registerCalendarRoutes(app: App, ctx: AppContext): void {
  app.get('/v2/calendars', {
    config: { access: access.user('APPS_READ') },
    schema: {
      tags,
      summary: 'Get all calendars',
      description: 'Your connected calendars, each with its calendars, which of them are read for busy time (`isSelected`), and (svc) how each one’s sync stands.',
      response: { 200: Envelope(CalendarsOutput) },
    },
    handler: async (request) => ok(await listCalendars(ctx, principalOf(request).user.id)),
  });

  app.post('/v2/calendars/ics-feed/save', {
    config: { access: access.user('APPS_WRITE') },
    schema: {
      tags,
      summary: 'Save an ICS feed',
      description:
        'Reads each feed before saving (a feed that cannot be read saves nothing), then keeps its busy time in sync (every SVC_CALENDAR_POLL_MS, 5 minutes by default). Saving again replaces your earlier feeds. Addresses inside your network are refused unless svc runs with SVC_ALLOW_PRIVATE_WEBHOOKS=1.',
      body: SaveIcsFeedBody,
      response: { 201: Envelope(ConnectionOutput) },
    },
    handler: async (request, reply) =>
      reply.status(201).send(ok(await saveIcsFeeds(ctx, principalOf(request).user.id, { urls: request.body.urls, readOnly: request.body.readOnly ?? true }))),
  });

  app.get('/v2/calendars/ics-feed/check', {
    config: { access: access.user('APPS_READ') },
    schema: { tags, summary: 'Check an ICS feed', response: { 200: { type: 'object', properties: { status: { type: 'string', enum: ['success'] } }, required: ['status'] } } },
    handler: async (request) => {
      await checkConnection(ctx, principalOf(request).user.id, 'ics-feed_calendar');
      return { status: 'success' as const };
    },
  });

  app.get('/v2/calendars/busy-times', {
    config: { access: access.user('APPS_READ') },
    schema: {
      tags,
      summary: 'Get busy times',
      description: 'The busy time svc keeps of your calendars (what slots are computed with), read from its store: no calendar provider is called.',
      querystring: BusyTimesQuery,
      response: { 200: Envelope(BusyTimesOutput) },
    },
    handler: async (request) => {
      const { loggedInUsersTz: zone, dateFrom, dateTo } = request.query;
      if (!isIanaTimeZone(zone)) throw invalidField('loggedInUsersTz', 'must be a valid IANA time zone', zone);
      const calendarsToLoad = calendarsToLoadOf(request.raw.url ?? '');
      if (!dateFrom || !dateTo) return ok([]);
      const from = parseWindowBound(dateFrom, zone, 'start');
      const to = parseWindowBound(dateTo, zone, 'end');
      if (to <= from) throw invalidField('dateTo', 'must be after dateFrom', dateTo);
      if (to - from > 400 * 86_400_000) throw invalidField('dateTo', 'must be at most 400 days after dateFrom', dateTo);
      return ok(await busyTimes(ctx, principalOf(request).user.id, { from, to, calendarsToLoad }));
    },
  });

  app.get('/v2/calendars/:calendar/connect', {
    config: { access: access.user('APPS_WRITE') },
    schema: {
      tags,
      summary: 'Get OAuth connect URL',
      description:
        "`google` or `office365`: the provider's consent page. Its callback (GET /v2/calendars/{calendar}/save) stores the connection for the caller and sends them to `redir`. The page's state is sealed by svc and good for 15 minutes.",
      params: CalendarParams,
      querystring: ConnectQuery,
      response: { 200: ConnectOutput },
    },
    handler: async (request) => {
      const type = connectionTypeOf(request.params.calendar);
      if (!isOAuthType(type)) throw badRequest('unknown_calendar', 'Invalid calendar type, available calendars are: google, office365');
      return { status: 'success' as const, data: oauthConnectUrl(ctx, principalOf(request).user.id, type, request.query.redir ?? null) };
    },
  });

  app.get('/v2/calendars/:calendar/save', {
    // The provider sends the user's browser here: who connects is the sealed state's user.
    config: { access: access.public() },
    schema: {
      tags,
      summary: 'Save Google or Outlook calendar credentials',
      description: "The OAuth callback: trades the code for tokens, reads the account's calendars and stores the connection (its primary calendar selected), then redirects (301) to the `redir` given to connect, or answers 200.",
      params: CalendarParams,
      querystring: SaveQuery,
      response: { 200: ConnectionEnvelope },
    },
    handler: async (request, reply) => {
      const type = connectionTypeOf(request.params.calendar);
      if (!isOAuthType(type)) throw badRequest('unknown_calendar', 'Invalid calendar type, available calendars are: google, office365');
      const saved = await saveOAuthCalendar(ctx, type, request.query);
      if (saved.redir) return reply.redirect(saved.redir, 301);
      return ok(saved.connection);
    },
  });

  app.post('/v2/calendars/:calendar/credentials', {
    config: { access: access.user('APPS_WRITE') },
    schema: {
      tags,
      summary: 'Save Apple calendar credentials',
      description:
        '`apple`: an Apple ID and an app-specific password for iCloud. svc: `caldav` with a `serverUrl` connects any CalDAV server. The account is read before anything is saved; its primary calendar is then read for busy time (select others with POST /v2/selected-calendars).',
      params: CalendarParams,
      body: CaldavCredentialsBody,
      response: { 201: { type: 'object', properties: { status: { type: 'string', enum: ['success'] } }, required: ['status'] } },
    },
    handler: async (request, reply) => {
      const type = connectionTypeOf(request.params.calendar);
      if (type !== 'apple_calendar' && type !== 'caldav_calendar') throw badRequest('unknown_calendar', 'Invalid calendar type, available calendars are: apple, caldav');
      const serverUrl = request.body.serverUrl ?? (type === 'apple_calendar' ? ICLOUD_CALDAV_URL : undefined);
      if (!serverUrl) throw invalidField('serverUrl', 'should not be empty');
      await saveCaldavAccount(ctx, principalOf(request).user.id, type, { serverUrl, username: request.body.username, password: request.body.password });
      return reply.status(201).send({ status: 'success' as const });
    },
  });

  app.get('/v2/calendars/:calendar/check', {
    config: { access: access.user('APPS_READ') },
    schema: { tags, summary: 'Check a calendar connection', params: CalendarParams, response: { 200: { type: 'object', properties: { status: { type: 'string', enum: ['success'] } }, required: ['status'] } } },
    handler: async (request) => {
      await checkConnection(ctx, principalOf(request).user.id, connectionTypeOf(request.params.calendar));
      return { status: 'success' as const };
    },
  });

  app.post('/v2/calendars/:calendar/disconnect', {
    config: { access: access.user('APPS_WRITE') },
    schema: { tags, summary: 'Disconnect a calendar', params: CalendarParams, body: DisconnectBody, response: { 200: Envelope(ConnectionOutput) } },
    handler: async (request) => {
      const type = connectionTypeOf(request.params.calendar);
      return ok(await disconnect(ctx, principalOf(request).user.id, request.body.id, type));
    },
  });

  const unifiedTags = ['Svc Unified Calendars'];
  app.get('/v2/calendars/:calendar/event/:eventUid', {
    config: { access: access.user('APPS_READ') },
    schema: {
      tags: unifiedTags,
      summary: 'Get meeting details from calendar',
      description:
        'An event svc wrote into one of your Google calendars for a booking (`eventUid`: the booking reference\'s), read from Google now: times with their zone, attendees with their answers, conference entry points. 404 for an event of someone else\'s or one svc did not write.',
      params: UnifiedEventParams,
      response: { 200: Envelope(UnifiedEvent) },
    },
    handler: async (request) => ok(await getUnifiedEvent(ctx, principalOf(request).user.id, request.params.calendar, request.params.eventUid)),
  });

  app.patch('/v2/calendars/:calendar/events/:eventUid', {
    config: { access: access.user('APPS_WRITE') },
    schema: {
      tags: unifiedTags,
      summary: 'Update meeting details in calendar',
      description:
        'Changes the event in your Google calendar (Google sends no mail of it): title, description, start and end (a time without a zone keeps the event\'s), status, and attendees, which replace the list whole. The booking itself is not changed, and its next change writes the fields svc owns again.',
      params: UnifiedEventParams,
      body: UpdateUnifiedEventBody,
      response: { 200: Envelope(UnifiedEvent) },
    },
    handler: async (request) => ok(await updateUnifiedEvent(ctx, principalOf(request).user.id, request.params.calendar, request.params.eventUid, request.body)),
  });

  app.put('/v2/destination-calendars', {
    config: { access: access.user('APPS_WRITE') },
    schema: {
      tags: ['Destination Calendars'],
      summary: 'Update destination calendars',
      description:
        'The calendar your bookings are written into (as events with the booking invitation’s UID): one of your connected, writable calendars. Without one, the primary calendar of your first writable connection. Events already written move with their booking’s next change.',
      body: DestinationCalendarBody,
      response: { 200: Envelope(DestinationCalendarSetOutput) },
    },
    handler: async (request) => ok(await setDestinationCalendar(ctx, principalOf(request).user.id, request.body)),
  });

  app.post('/v2/selected-calendars', {
    config: { access: access.user('APPS_WRITE') },
    schema: { tags: ['Selected Calendars'], summary: 'Add a selected calendar', description: 'Reads one of your calendars for busy time from now on (it is read at once).', body: SelectedCalendarBody, response: { 201: Envelope(SelectedCalendarOutput) } },
    handler: async (request, reply) => {
      return reply.status(201).send(ok(await setCalendarSelected(ctx, principalOf(request).user.id, request.body, true)));
    },
  });

  app.delete('/v2/selected-calendars', {
    config: { access: access.user('APPS_WRITE') },
    schema: { tags: ['Selected Calendars'], summary: 'Delete a selected calendar', description: 'Stops reading one of your calendars for busy time.', querystring: SelectedCalendarQuery, response: { 200: Envelope(SelectedCalendarOutput) } },
    handler: async (request) => {
      return ok(await setCalendarSelected(ctx, principalOf(request).user.id, request.query, false));
    },
  });
}
