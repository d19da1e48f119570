// The conferencing apps the API installs (spec 2.1.4: the built-in video app, installed for everyone, and
// three others), with the reference's path slugs, credential types and location names.
import type { Config } from '../../app/config.js';
import type { OAuthClient, OAuthTokens } from '../../integrations/calendar-types.js';
import { microsoftCalendar } from '../../integrations/microsoft/index.js';
import { authorizationUrl as microsoftAuthorizationUrl, exchangeCode as microsoftExchangeCode } from '../../integrations/microsoft/oauth.js';
import * as zoom from '../../integrations/zoom/oauth.js';
import type { ConferencingAppType } from '../../db/schema.js';
import type { INSTALLABLE_INTEGRATIONS } from '../event-types/locations.js';

export type InstallableApp = 'google-meet' | 'zoom' | 'msteams';
/** `daily-video` is the reference's slug of its built-in video; svc's built-in answers to it and to `svc-video`. */
export const BUILT_IN_SLUGS = ['daily-video', 'svc-video'] as const;
export type OAuthApp = Exclude<InstallableApp, 'google-meet'>;

export const INSTALLABLE_APPS: Record<InstallableApp, { type: ConferencingAppType; name: string }> = {
  'google-meet': { type: 'google_video', name: 'Google Meet' },
  zoom: { type: 'zoom_video', name: 'Zoom' },
  msteams: { type: 'office365_video', name: 'Microsoft Teams' },
};

export const isInstallable = (app: string): app is InstallableApp => Object.hasOwn(INSTALLABLE_APPS, app);

/** The route that installs the app (`base`: `/v2` for a user, a team's path for a team). */
export const connectRoute = (app: InstallableApp, base = '/v2') =>
  app === 'google-meet' ? `POST ${base}/conferencing/google-meet/connect` : `GET ${base}/conferencing/${app}/oauth/auth-url (the consent page)`;
export const isOAuthApp = (app: string): app is OAuthApp => app === 'zoom' || app === 'msteams';

/** Online meetings for the signed-in user (Graph's delegated permission), and the account's address. */
export const TEAMS_SCOPES = 'offline_access OnlineMeetings.ReadWrite User.Read';

/** How each OAuth app is consented to and its code traded, with svc's registration at the provider. */
export interface ConferencingOAuth {
  authorizationUrl(state: string): string;
  exchangeCode(code: string, fetchImpl: typeof fetch, now: number): Promise<OAuthTokens>;
  accountEmail(tokens: OAuthTokens, fetchImpl: typeof fetch, now: number): Promise<string>;
}

/** svc's registration at the app's provider, with the callback address; null when the operator registered none. */
export function conferencingClient(config: Pick<Config, 'appUrl' | 'zoom' | 'calendars'>, app: OAuthApp): OAuthClient | null {
  const registration = app === 'zoom' ? config.zoom : config.calendars.microsoft;
  return registration && { ...registration, redirectUri: `${config.appUrl.replace(/\/+$/, '')}/v2/conferencing/${app}/oauth/callback` };
}

/** Location integrations whose meetings a provider makes, by the app that makes them (Google Meet: with the host's Google Calendar event). */
export const MEETING_INTEGRATIONS = { zoom: 'zoom', 'office365-video': 'msteams', 'google-meet': 'google-meet' } as const satisfies Record<(typeof INSTALLABLE_INTEGRATIONS)[number], InstallableApp>;
export type MeetingIntegration = keyof typeof MEETING_INTEGRATIONS;
export const isMeetingIntegration = (integration: string): integration is MeetingIntegration => Object.hasOwn(MEETING_INTEGRATIONS, integration);

/** The integration a booking location names (`integrations:zoom`) when a provider makes its meeting. */
export function meetingIntegrationOf(location: string | null): MeetingIntegration | null {
  const integration = location?.startsWith('integrations:') ? location.slice('integrations:'.length) : null;
  return integration !== null && isMeetingIntegration(integration) ? integration : null;
}

/** svc's app at the provider, with the callback address; null when the operator registered none. */
export function conferencingOAuth(config: Pick<Config, 'appUrl' | 'zoom' | 'calendars'>, app: OAuthApp): ConferencingOAuth | null {
  const client = conferencingClient(config, app);
  if (!client) return null;
  if (app === 'zoom') {
    return {
      authorizationUrl: (state) => zoom.authorizationUrl(client, state),
      exchangeCode: (code, fetchImpl, now) => zoom.exchangeCode(client, code, fetchImpl, now),
      accountEmail: (tokens, fetchImpl) => zoom.accountEmail(client, tokens.accessToken, fetchImpl),
    };
  }
  return {
    authorizationUrl: (state) => microsoftAuthorizationUrl(client, state, undefined, TEAMS_SCOPES),
    exchangeCode: (code, fetchImpl, now) => microsoftExchangeCode(client, code, fetchImpl, now, TEAMS_SCOPES),
    // The tokens are fresh: the session never needs to refresh them.
    accountEmail: (tokens, fetchImpl, now) => microsoftCalendar.accountEmail({ client, tokens, fetch: fetchImpl, now: () => now, onTokens: async () => {} }),
  };
}
