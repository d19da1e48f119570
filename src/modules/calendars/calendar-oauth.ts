// Google and Microsoft calendars: connected through OAuth (a consent page, a callback with a code),
// read and written through their adapters with tokens refreshed as they expire.
import type { CalendarsConfig, OAuthAppConfig } from '../../app/config.js';
import type { CalendarConnectionType, WorkspacePlatformSlug } from '../../db/schema.js';
import { CalendarProviderError, type OAuthCalendarAdapter, type OAuthClient, type OAuthSession, type OAuthTokens } from '../../integrations/calendar-types.js';
import { googleCalendar, type GoogleServiceAccountKey, serviceAccountTokens } from '../../integrations/google/index.js';
import { appOnlyTokens, microsoftCalendar, tenantTokenUrl } from '../../integrations/microsoft/index.js';
import { outboundFetch, type OutboundPolicy } from '../../integrations/outbound-fetch.js';
import { CALENDAR_READERS } from './calendar-providers.js';
import type { CalendarReader, CalendarReaders } from './calendar-readers.js';
import { CALENDAR_WRITERS, type CalendarWriter, type CalendarWriters } from './calendar-writers.js';

export type OAuthConnectionType = Extract<CalendarConnectionType, 'google_calendar' | 'office365_calendar'>;

export const OAUTH_ADAPTERS: Record<OAuthConnectionType, OAuthCalendarAdapter> = {
  google_calendar: googleCalendar,
  office365_calendar: microsoftCalendar,
};

/** The `:calendar` path value of each, as the callback's address spells it. */
export const OAUTH_PATH_NAMES: Record<OAuthConnectionType, string> = { google_calendar: 'google', office365_calendar: 'office365' };

export const isOAuthType = (type: CalendarConnectionType): type is OAuthConnectionType => type in OAUTH_ADAPTERS;

/** A Microsoft 365 app registered in the organization's tenant (its client secret in `private_key`, as the reference names it). */
export interface MicrosoftAppKey {
  private_key: string;
  tenant_id: string;
  client_id: string;
}

export type ServiceAccountKey = GoogleServiceAccountKey | MicrosoftAppKey;

/** A connection made by an organization's delegation credential: its key, copied (sealed) into each connection. */
export interface DelegatedGrant {
  credentialId: string;
  platform: WorkspacePlatformSlug;
  key: ServiceAccountKey;
}

/** What an OAuth connection keeps sealed: the tokens, and the account they belong to. */
export interface OAuthCredentials {
  tokens: OAuthTokens;
  email: string;
  /** Set on a delegated connection: tokens are granted to the organization's key, never refreshed. */
  delegation?: DelegatedGrant | undefined;
}

export const DELEGATED_TYPES: Record<WorkspacePlatformSlug, OAuthConnectionType> = { google: 'google_calendar', office365: 'office365_calendar' };

/** A first access token of a delegated connection for `email` (and the one asked again whenever it runs out). */
export function delegatedTokens(tokenUrl: string, grant: Omit<DelegatedGrant, 'credentialId'>, email: string, fetchImpl: typeof fetch, now: number): Promise<OAuthTokens> {
  if (grant.platform === 'google') return serviceAccountTokens(grant.key as GoogleServiceAccountKey, email, tokenUrl, fetchImpl, now);
  const key = grant.key as MicrosoftAppKey;
  return appOnlyTokens({ clientId: key.client_id, clientSecret: key.private_key }, tenantTokenUrl(tokenUrl, key.tenant_id), fetchImpl, now);
}

/** The provider's endpoints without an app of svc's: a delegated connection's session. */
export function endpointsClient(config: { calendars: CalendarsConfig }, type: OAuthConnectionType): OAuthClient {
  return { clientId: '', clientSecret: '', redirectUri: '', endpoints: type === 'google_calendar' ? config.calendars.endpoints.google : config.calendars.endpoints.microsoft };
}

/** svc's app at the provider with its callback address, or null when svc has none there (not configured). */
export function oauthClientOf(config: { calendars: CalendarsConfig; appUrl: string }, type: OAuthConnectionType): OAuthClient | null {
  const app: OAuthAppConfig | null = type === 'google_calendar' ? config.calendars.google : config.calendars.microsoft;
  if (!app) return null;
  return { clientId: app.clientId, clientSecret: app.clientSecret, endpoints: app.endpoints, redirectUri: `${config.appUrl.replace(/\/+$/, '')}/v2/calendars/${OAUTH_PATH_NAMES[type]}/save` };
}

/**
 * A session on a connection's tokens; renewed tokens are stored (sealed) before they are used. A
 * delegated connection's tokens are granted to the organization's key (Graph then acts on the member's
 * mailbox by address).
 */
export function oauthSession(client: OAuthClient, credentials: OAuthCredentials, policy: OutboundPolicy, saveCredentials: (credentials: unknown) => Promise<void>): OAuthSession {
  const session: OAuthSession = {
    client,
    tokens: credentials.tokens,
    fetch: outboundFetch(policy),
    now: () => Date.now(),
    onTokens: async (tokens) => {
      session.tokens = tokens;
      await saveCredentials({ ...credentials, tokens } satisfies OAuthCredentials);
    },
  };
  const grant = credentials.delegation;
  if (grant) {
    session.renew = () => delegatedTokens(client.endpoints.token, grant, credentials.email, session.fetch, session.now());
    if (grant.platform === 'office365') session.mailbox = credentials.email;
  }
  return session;
}

/** Readers and writers of an OAuth provider, for the configuration's app (a connection without one fails as unreachable). */
export function oauthProviders(config: { calendars: CalendarsConfig; appUrl: string }, type: OAuthConnectionType): { reader: CalendarReader; writer: CalendarWriter } {
  const adapter = OAUTH_ADAPTERS[type];
  const clientOrFail = (credentials: unknown): OAuthClient => {
    if ((credentials as OAuthCredentials).delegation) return endpointsClient(config, type);
    const client = oauthClientOf(config, type);
    if (!client) throw new Error(`svc has no ${OAUTH_PATH_NAMES[type]} app configured (SVC_${type === 'google_calendar' ? 'GOOGLE' : 'MICROSOFT'}_CLIENT_ID)`);
    return client;
  };
  return {
    reader: {
      async discover(credentials, policy) {
        return adapter.listCalendars(oauthSession(clientOrFail(credentials), credentials as OAuthCredentials, policy, async () => {}));
      },
      async read(credentials, externalId, state, context) {
        const session = oauthSession(clientOrFail(credentials), credentials as OAuthCredentials, context.policy, context.saveCredentials);
        const read = await adapter.readEvents(session, externalId, context.window, state.syncToken ?? null);
        return { full: read.full, objects: [], events: read.events, removed: read.removed, state: { syncToken: read.state } };
      },
      async watch(credentials, externalId, request, context) {
        return adapter.watchEvents(oauthSession(clientOrFail(credentials), credentials as OAuthCredentials, context.policy, context.saveCredentials), externalId, request);
      },
      async stopWatching(credentials, channel, context) {
        await adapter.stopWatching(oauthSession(clientOrFail(credentials), credentials as OAuthCredentials, context.policy, context.saveCredentials), channel);
      },
    },
    writer: {
      async write(connection, calendarExternalId, event, existing, policy) {
        const session = oauthSession(clientOrFail(connection.credentials), connection.credentials as OAuthCredentials, policy, connection.saveCredentials);
        if (!existing) return adapter.insertEvent(session, calendarExternalId, event);
        try {
          return await adapter.updateEvent(session, calendarExternalId, existing.eventId, event);
        } catch (error) {
          // Deleted in the calendar meanwhile: the booking still stands, so its event comes back.
          if (error instanceof CalendarProviderError && error.kind === 'not_found') return adapter.insertEvent(session, calendarExternalId, event);
          throw error;
        }
      },
      async remove(connection, calendarExternalId, event, policy) {
        const session = oauthSession(clientOrFail(connection.credentials), connection.credentials as OAuthCredentials, policy, connection.saveCredentials);
        await adapter.deleteEvent(session, calendarExternalId, event.eventId);
      },
    },
  };
}

/** Every kind of connection svc reads, OAuth ones with the configuration's apps. */
export function calendarReaders(config: { calendars: CalendarsConfig; appUrl: string }): CalendarReaders {
  return { ...CALENDAR_READERS, google_calendar: oauthProviders(config, 'google_calendar').reader, office365_calendar: oauthProviders(config, 'office365_calendar').reader };
}

/** Every kind of connection svc writes bookings into. */
export function calendarWriters(config: { calendars: CalendarsConfig; appUrl: string }): CalendarWriters {
  return { ...CALENDAR_WRITERS, google_calendar: oauthProviders(config, 'google_calendar').writer, office365_calendar: oauthProviders(config, 'office365_calendar').writer };
}
