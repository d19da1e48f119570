import type { AppContext } from '../../app/context.js';
import type { CalendarConnectionType } from '../../db/schema.js';
import { CalendarProviderError, type ExternalCalendar } from '../../integrations/calendar-types.js';
import { normalizeFeedUrl } from '../../integrations/ics/fetch-feed.js';
import { badRequest, DomainError, invalidField, notFound, unauthorized } from '../../lib/errors.js';
import { assertOutboundUrl } from '../../lib/outbound-address.js';
import { calendarReaders } from './calendar-oauth.js';
import { stopPushChannels } from './calendar-push.js';
import { CALENDAR_READERS } from './calendar-providers.js';
import { calendarTransaction, type CalendarSyncDeps, outboundPolicy, syncCalendarSource } from './calendar-sync.js';
import * as repo from './calendars.repository.js';

export type CalendarsDeps = Pick<AppContext, 'database' | 'secrets' | 'config' | 'clock' | 'changes'>;

/** The reference's app of each connection type (`appId`) and the integration's display name. */
export const CALENDAR_APPS: Record<CalendarConnectionType, { appId: string; name: string; slug: string }> = {
  'ics-feed_calendar': { appId: 'ics-feed', name: 'ICS Feed', slug: 'ics-feed' },
  apple_calendar: { appId: 'apple-calendar', name: 'Apple Calendar', slug: 'apple-calendar' },
  caldav_calendar: { appId: 'caldav-calendar', name: 'CalDav Server', slug: 'caldav-calendar' },
  google_calendar: { appId: 'google-calendar', name: 'Google Calendar', slug: 'google-calendar' },
  office365_calendar: { appId: 'office365-calendar', name: 'Outlook Calendar', slug: 'office365-calendar' },
};

/** How the reference's check messages name each kind ("Credentials for apple calendar not found."). */
const CHECK_LABELS: Record<CalendarConnectionType, string> = {
  'ics-feed_calendar': 'Ics Feed calendar',
  apple_calendar: 'apple calendar',
  caldav_calendar: 'caldav calendar',
  google_calendar: 'google calendar',
  office365_calendar: 'office365 calendar',
};

/** Feeds one connection may hold (each is read on every sync). */
export const MAX_ICS_FEEDS = 20;

/** A feed address can hold a secret token: errors about it do not repeat it (nor do the logs that carry them). */
function withoutValues(error: unknown): unknown {
  const errors = error instanceof DomainError ? (error.details?.errors as { value?: unknown }[] | undefined) : undefined;
  for (const entry of errors ?? []) delete entry.value;
  return error;
}

export function syncDeps(deps: CalendarsDeps): CalendarSyncDeps {
  return { database: deps.database, secrets: deps.secrets, config: deps.config, readers: calendarReaders(deps.config), clock: deps.clock, changes: deps.changes };
}

export interface ConnectionView {
  id: number;
  type: CalendarConnectionType;
  userId: number;
  teamId: null;
  appId: string;
  invalid: boolean;
}

export const viewOf = (row: repo.CalendarConnectionRow): ConnectionView => ({ id: row.id, type: row.type, userId: row.userId, teamId: null, appId: row.appId, invalid: row.invalid });

/**
 * POST /v2/calendars/ics-feed/save: the feeds are read before anything is stored (an unreadable feed
 * saves nothing), then stored as one connection (replacing the user's earlier feeds, as the
 * reference's upsert does) with one calendar per feed, and their busy time is synced at once.
 */
export async function saveIcsFeeds(deps: CalendarsDeps, userId: number, input: { urls: string[]; readOnly: boolean }): Promise<ConnectionView> {
  const reader = CALENDAR_READERS['ics-feed_calendar'];
  if (!reader) throw badRequest('calendar_provider_unavailable', 'ICS feeds cannot be read by this server');
  const urls: string[] = [];
  for (const [index, text] of input.urls.entries()) {
    try {
      urls.push((await assertOutboundUrl(normalizeFeedUrl(text), deps.config.allowPrivateWebhooks, `urls.${index}`)).href);
    } catch (error) {
      throw withoutValues(error);
    }
  }
  const unique = [...new Set(urls)];
  const calendars: ExternalCalendar[] = [];
  const policy = outboundPolicy(deps.config);
  for (const [index, url] of unique.entries()) {
    try {
      calendars.push(...(await reader.discover({ url }, policy)));
    } catch (error) {
      const why = error instanceof CalendarProviderError ? ` (${error.kind}: ${error.message})` : '';
      throw invalidField(`urls.${index}`, `could not be read as an ICS feed${why}`);
    }
  }
  const now = Date.now();
  const { connection, sources } = await calendarTransaction(deps, async (tx, busyTimeChanged) => {
    const earlier = await repo.listConnectionsOf(tx, userId, 'ics-feed_calendar');
    await repo.deleteConnections(tx, earlier.map((row) => row.id));
    const created = await repo.insertConnection(tx, {
      userId,
      type: 'ics-feed_calendar',
      appId: CALENDAR_APPS['ics-feed_calendar'].appId,
      credentialsSealed: deps.secrets.seal(JSON.stringify({ urls: unique, readOnly: input.readOnly })),
    });
    const rows = await repo.insertSources(tx, created, calendars, new Date(now));
    await busyTimeChanged(userId);
    return { connection: created, sources: rows };
  });
  for (const source of sources) await syncCalendarSource(syncDeps(deps), source.id, now);
  return viewOf(connection);
}

/**
 * POST /v2/calendars/apple/credentials (and svc's /caldav/credentials with a `serverUrl`): the account
 * is discovered before anything is stored (credentials the server refuses save nothing); its calendars
 * are stored with the primary one selected, and read at once.
 */
export async function saveCaldavAccount(
  deps: CalendarsDeps,
  userId: number,
  type: 'apple_calendar' | 'caldav_calendar',
  input: { serverUrl: string; username: string; password: string },
): Promise<ConnectionView> {
  if (input.username.length <= 1 || input.password.length <= 1) throw badRequest('calendar_credentials_empty', 'Username or password cannot be empty');
  let serverUrl: string;
  try {
    serverUrl = (await assertOutboundUrl(input.serverUrl, deps.config.allowPrivateWebhooks, 'serverUrl')).href;
  } catch (error) {
    throw withoutValues(error);
  }
  const credentials = { serverUrl, username: input.username, password: input.password };
  const reader = CALENDAR_READERS[type]!;
  let calendars: ExternalCalendar[];
  try {
    calendars = await reader.discover(credentials, outboundPolicy(deps.config));
  } catch (error) {
    const why = error instanceof CalendarProviderError ? `${error.kind}: ${error.message}` : 'the server did not answer as a CalDAV server';
    throw badRequest('calendar_connect_failed', `Could not add this ${type === 'apple_calendar' ? 'apple calendar' : 'CalDAV'} account: ${why}`);
  }
  const now = Date.now();
  const { connection, sources } = await calendarTransaction(deps, async (tx, busyTimeChanged) => {
    const created = await repo.insertConnection(tx, {
      userId,
      type,
      appId: CALENDAR_APPS[type].appId,
      credentialsSealed: deps.secrets.seal(JSON.stringify(credentials)),
      // An Apple ID, or a CalDAV user name that is an address.
      accountEmail: /^[^\s@]+@[^\s@]+$/.test(input.username) ? input.username : null,
    });
    // Only the primary calendar is read for busy time until the user selects others (POST /v2/selected-calendars).
    const rows = await repo.insertSources(tx, created, calendars, new Date(now), (calendar) => calendar.primary);
    // Unread calendars count as busy until their first read: every cache must know.
    await busyTimeChanged(userId);
    return { connection: created, sources: rows };
  });
  for (const source of sources) if (source.selected) await syncCalendarSource(syncDeps(deps), source.id, now);
  return viewOf(connection);
}

export interface SelectedCalendarView {
  userId: number;
  integration: string;
  externalId: string;
  credentialId: number;
}

/** POST and DELETE /v2/selected-calendars: whether one of the caller's calendars is read for busy time. */
export async function setCalendarSelected(
  deps: CalendarsDeps,
  userId: number,
  input: { integration: string; externalId: string; credentialId: number; delegationCredentialId?: string | undefined },
  selected: boolean,
): Promise<SelectedCalendarView> {
  const now = Date.now();
  const source = await calendarTransaction(deps, async (tx, busyTimeChanged) => {
    const connection = (await repo.listConnectionsOf(tx, userId)).find((row) => row.id === input.credentialId);
    if (!connection) throw notFound('calendar_connection_not_found', `Calendar connection with id ${input.credentialId} not found`);
    if (input.delegationCredentialId !== undefined && connection.delegationCredentialId !== input.delegationCredentialId) {
      throw invalidField('delegationCredentialId', `is not the delegation credential of connection ${connection.id}`, input.delegationCredentialId);
    }
    const found = (await repo.listSourcesOf(tx, userId)).find((row) => row.connectionId === connection.id && row.externalId === input.externalId && connection.type === input.integration);
    if (!found) {
      if (!selected) throw notFound('selected_calendar_not_found', 'No selected calendar found');
      throw invalidField('externalId', `must name a calendar of connection ${connection.id} (${connection.type})`, input.externalId);
    }
    if (!selected && !found.selected) throw notFound('selected_calendar_not_found', 'No selected calendar found');
    await repo.setSourceSelected(tx, found.id, selected, new Date(now));
    await busyTimeChanged(userId);
    return { ...found, connection };
  });
  if (!selected) await stopPushChannels(syncDeps(deps), source.connection, [source.id]);
  if (selected && !source.selected) await syncCalendarSource(syncDeps(deps), source.id, now);
  return { userId, integration: input.integration, externalId: source.externalId, credentialId: source.connectionId };
}

/** GET /v2/calendars/ics-feed/check and /{calendar}/check: the reference's answers for a missing or broken connection. */
export async function checkConnection(deps: CalendarsDeps, userId: number, type: CalendarConnectionType): Promise<void> {
  const label = CHECK_LABELS[type];
  const connections = await repo.listConnectionsOf(deps.database.db, userId, type);
  if (connections.length === 0) throw badRequest('calendar_not_connected', `Credentials for ${label} not found.`);
  const connection = connections.find((row) => !row.invalid);
  if (!connection) throw badRequest('calendar_credentials_invalid', `Invalid ${label === 'Ics Feed calendar' ? 'Ics Feed' : label} credentials.`);
  const sources = (await repo.listSourcesOf(deps.database.db, userId)).filter((source) => source.connectionId === connection.id && source.selected);
  const failing = sources.find((source) => source.degraded);
  if (failing) throw unauthorized('calendar_unreadable', `${label} cannot be read: ${failing.failure ?? 'not read yet'}`);
}

/** POST /v2/calendars/{calendar}/disconnect: the caller's own connection only. */
export async function disconnect(deps: CalendarsDeps, userId: number, connectionId: number, type: CalendarConnectionType): Promise<ConnectionView> {
  const existing = (await repo.listConnectionsOf(deps.database.db, userId)).find((row) => row.id === connectionId && row.type === type);
  if (existing) await stopPushChannels(syncDeps(deps), existing);
  return calendarTransaction(deps, async (tx, busyTimeChanged) => {
    const rows = await repo.listConnectionsOf(tx, userId);
    const connection = rows.find((row) => row.id === connectionId);
    // Another user's connection is answered as missing: its existence is not the caller's business.
    if (!connection) throw notFound('calendar_connection_not_found', `Calendar connection with id ${connectionId} not found`);
    if (connection.type !== type) throw badRequest('calendar_type_mismatch', `Calendar connection ${connectionId} is a ${connection.type} connection`);
    await repo.deleteConnections(tx, [connection.id]);
    await busyTimeChanged(userId);
    return viewOf(connection);
  });
}

export interface DestinationCalendarView {
  id: number;
  integration: string;
  externalId: string;
  primaryEmail: string | null;
  userId: number;
  eventTypeId: null;
  credentialId: number;
  delegationCredentialId: string | null;
  name: string;
  primary: boolean;
  readOnly: boolean;
  integrationTitle: string;
}

/**
 * PUT /v2/destination-calendars: where the caller's bookings are written from now on (bookings already
 * written move there with their next change). Only a writable calendar of one of their connections.
 */
export async function setDestinationCalendar(
  deps: CalendarsDeps,
  userId: number,
  input: { integration: CalendarConnectionType; externalId: string; delegationCredentialId?: string | undefined },
): Promise<SelectedCalendarView> {
  return deps.database.transaction(async (tx) => {
    const named = await repo.findNamedCalendars(tx, userId, input.integration, input.externalId);
    // A delegation credential named: only the calendar as that credential's connection holds it.
    const sources = input.delegationCredentialId === undefined ? named : named.filter((candidate) => candidate.delegationCredentialId === input.delegationCredentialId);
    const source = sources.find((candidate) => !candidate.readOnly);
    if (!source) {
      if (sources.length > 0) throw invalidField('externalId', 'names a read-only calendar: svc cannot write bookings into it', input.externalId);
      throw notFound('destination_calendar_not_found', `No connected ${input.integration} calendar with externalId ${input.externalId}`);
    }
    await repo.setUserDestination(tx, userId, source.id);
    return { userId, integration: input.integration, externalId: source.externalId, credentialId: source.connectionId };
  });
}

/** The calendar the user chose for their bookings (null: none chosen, bookings go to the first writable connection's primary calendar). */
function destinationOf(userId: number, connections: repo.CalendarConnectionRow[], sources: repo.CalendarSourceRow[], chosen: number | null): DestinationCalendarView | null {
  const source = sources.find((candidate) => candidate.id === chosen);
  const connection = source && connections.find((candidate) => candidate.id === source.connectionId);
  if (!source || !connection) return null;
  return {
    id: source.id,
    integration: connection.type,
    externalId: source.externalId,
    primaryEmail: connection.accountEmail,
    userId,
    eventTypeId: null,
    credentialId: connection.id,
    delegationCredentialId: connection.delegationCredentialId,
    name: source.name,
    primary: source.isPrimary,
    readOnly: source.readOnly,
    integrationTitle: CALENDAR_APPS[connection.type].name,
  };
}

export interface CalendarsView {
  connectedCalendars: {
    integration: { name: string; type: string; slug: string; title: string; variant: 'calendar'; categories: string[]; description: string; logo: string; publisher: string; url: string; email: string; locationOption: null };
    credentialId: number;
    delegationCredentialId: string | null;
    invalid: boolean;
    primary?: CalendarView | undefined;
    calendars: CalendarView[];
  }[];
  destinationCalendar: DestinationCalendarView | null;
}

export interface CalendarView {
  externalId: string;
  integration: string;
  name: string;
  primary: boolean | null;
  readOnly: boolean;
  isSelected: boolean;
  credentialId: number;
  delegationCredentialId: string | null;
  /** svc: how the calendar's sync stands. */
  sync: { lastSyncedAt: string | null; failingSince: string | null; failure: string | null; degraded: boolean };
}

/** GET /v2/calendars: every connection of the user with its calendars and how their sync stands. */
export async function listCalendars(deps: CalendarsDeps, userId: number): Promise<CalendarsView> {
  const connections = await repo.listConnectionsOf(deps.database.db, userId);
  const sources = await repo.listSourcesOf(deps.database.db, userId);
  const chosen = await repo.findUserDestination(deps.database.db, userId);
  return {
    connectedCalendars: connections.map((connection) => {
      const app = CALENDAR_APPS[connection.type];
      const calendars = sources
        .filter((source) => source.connectionId === connection.id)
        .map(
          (source): CalendarView => ({
            externalId: source.externalId,
            integration: connection.type,
            name: source.name,
            primary: source.isPrimary,
            readOnly: source.readOnly,
            isSelected: source.selected,
            credentialId: connection.id,
            delegationCredentialId: connection.delegationCredentialId,
            sync: {
              lastSyncedAt: source.lastSyncedAt?.toISOString() ?? null,
              failingSince: source.failingSince?.toISOString() ?? null,
              failure: source.failure,
              degraded: source.degraded,
            },
          }),
        );
      return {
        integration: {
          name: app.name,
          type: connection.type,
          slug: app.slug,
          title: app.name,
          variant: 'calendar' as const,
          categories: ['calendar'],
          description: app.name,
          logo: '',
          publisher: 'svc',
          url: '',
          email: '',
          locationOption: null,
        },
        credentialId: connection.id,
        delegationCredentialId: connection.delegationCredentialId,
        invalid: connection.invalid,
        primary: calendars.find((calendar) => calendar.primary),
        calendars,
      };
    }),
    destinationCalendar: destinationOf(userId, connections, sources, chosen),
  };
}
