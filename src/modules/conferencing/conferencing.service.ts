// Conferencing apps of a user or an organization's team: installing them (Google Meet on a Google Calendar connection; Zoom and
// Microsoft Teams through their consent pages), listing, choosing the default, disconnecting.
import type { AppContext } from '../../app/context.js';
import { CalendarProviderError } from '../../integrations/calendar-types.js';
import { outboundFetch } from '../../integrations/outbound-fetch.js';
import type { Db } from '../../db/client.js';
import { badRequest, invalidField, notFound } from '../../lib/errors.js';
import type { StoredLocation } from '../event-types/event-type-model.js';
import { BUILT_IN_VIDEO } from '../event-types/locations.js';
import { consentReturnAddress, openState, sealState } from '../../lib/sealed-state.js';
import { outboundPolicy } from '../calendars/calendar-sync.js';
import { BUILT_IN_SLUGS, conferencingOAuth, connectRoute, type ConferencingOAuth, INSTALLABLE_APPS, type InstallableApp, isInstallable, isMeetingIntegration, MEETING_INTEGRATIONS, type OAuthApp } from './conferencing-apps.js';
import { replaceLocationIntegration } from './booking-meetings.repository.js';
import * as repo from './conferencing.repository.js';
import type { AppOwner } from './conferencing.repository.js';

export type { AppOwner };

export type ConferencingDeps = Pick<AppContext, 'database' | 'secrets' | 'config' | 'changes'>;

export interface ConferencingAppView {
  id: number;
  type: string;
  userId: number | null;
  teamId: number | null;
  appId: string;
  invalid: boolean;
}

const viewOf = (row: repo.ConferencingAppRow): ConferencingAppView => ({ id: row.id, type: row.type, userId: row.userId, teamId: row.teamId, appId: row.appId, invalid: row.invalid });

const CONNECT_STATE_PURPOSE = 'conferencing-connect';

interface ConnectState {
  owner: AppOwner;
  app: OAuthApp;
  returnTo: string | null;
  onErrorReturnTo: string | null;
}

export async function listApps(deps: ConferencingDeps, owner: AppOwner): Promise<ConferencingAppView[]> {
  return (await repo.listApps(deps.database.db, owner)).map(viewOf);
}

/** The owner's row locked; a user or team deleted since the request began answers 404. */
async function lockOwner(tx: Parameters<typeof repo.lockOwner>[0], owner: AppOwner) {
  const row = await repo.lockOwner(tx, owner);
  if (!row) throw notFound(owner.kind === 'user' ? 'user_not_found' : 'team_not_found', owner.kind === 'user' ? 'user not found' : 'team not found');
  return row;
}

/** POST …/conferencing/google-meet/connect: Google Meet rides on the owner's Google Calendar connection. */
export async function connectGoogleMeet(deps: ConferencingDeps, owner: AppOwner, app: string): Promise<ConferencingAppView> {
  if (app !== 'google-meet') throw badRequest('invalid_conferencing_app', 'Invalid conferencing app. Available apps: GOOGLE_MEET.', { property: 'app', value: app });
  return deps.database.transaction(async (tx) => {
    await lockOwner(tx, owner);
    const calendars = await repo.googleCalendarStates(tx, owner);
    if (calendars.length === 0) throw badRequest('google_calendar_required', 'Google Meet requires a Google Calendar connection.');
    if (calendars.every((calendar) => calendar.invalid)) {
      throw badRequest('google_calendar_required', 'Google Meet requires a valid Google Calendar connection. Please reconnect Google Calendar.');
    }
    if (await repo.findApp(tx, owner, 'google_video')) throw badRequest('conferencing_app_connected', `Google Meet is already connected for this ${owner.kind}.`);
    return viewOf(await repo.saveApp(tx, owner, { type: 'google_video', appId: 'google-meet', credentialsSealed: null, accountEmail: null }));
  });
}

function requireOAuth(deps: ConferencingDeps, app: OAuthApp): ConferencingOAuth {
  const oauth = conferencingOAuth(deps.config, app);
  if (oauth) return oauth;
  const setting = app === 'zoom' ? 'SVC_ZOOM_CLIENT_ID and SVC_ZOOM_CLIENT_SECRET' : 'SVC_MICROSOFT_CLIENT_ID and SVC_MICROSOFT_CLIENT_SECRET';
  throw notFound('conferencing_app_not_configured', `${INSTALLABLE_APPS[app].name} app not found: this svc has none registered (its operator sets ${setting})`);
}

/**
 * GET …/conferencing/{zoom|msteams}/oauth/auth-url: the provider's consent page, with a state svc seals
 * (the owner, the app, where to send the browser after, an expiry): the callback trusts nothing else.
 */
export function oauthConnectUrl(deps: ConferencingDeps, owner: AppOwner, app: OAuthApp, query: { returnTo?: string | undefined; onErrorReturnTo?: string | undefined }): { url: string } {
  const oauth = requireOAuth(deps, app);
  const state: ConnectState = { owner, app, returnTo: consentReturnAddress(query.returnTo, 'returnTo'), onErrorReturnTo: consentReturnAddress(query.onErrorReturnTo, 'onErrorReturnTo') };
  return { url: oauth.authorizationUrl(sealState(deps.secrets, CONNECT_STATE_PURPOSE, state)) };
}

function openConnectState(deps: ConferencingDeps, sealed: string | undefined, app: OAuthApp, team: number | null): ConnectState {
  if (!sealed) throw badRequest('conferencing_state_invalid', 'Missing `state` query param', { property: 'state' });
  const state = openState<ConnectState>(deps.secrets, CONNECT_STATE_PURPOSE, sealed);
  // A team's callback route takes only that team's states (the provider always comes back to the user-level one).
  if (!state || state.app !== app || (team !== null && (state.owner.kind !== 'team' || state.owner.teamId !== team))) {
    throw badRequest('conferencing_state_invalid', 'Invalid `state` query param: start again from GET /v2/conferencing/{app}/oauth/auth-url', { property: 'state' });
  }
  return state;
}

export type CallbackOutcome = { redirect: string } | { connection: ConferencingAppView };

/**
 * GET /v2/conferencing/{zoom|msteams}/oauth/callback: the provider's redirect. The code is traded for
 * tokens and the account read before anything is stored; the browser then goes to `returnTo`, or to
 * `onErrorReturnTo` when the provider or the consent failed. A state svc did not seal is refused (400):
 * its addresses cannot be trusted.
 */
export async function saveOAuthApp(
  deps: ConferencingDeps,
  app: OAuthApp,
  query: { state?: string | undefined; code?: string | undefined; error?: string | undefined; error_description?: string | undefined },
  team: number | null = null,
): Promise<CallbackOutcome> {
  const state = openConnectState(deps, query.state, app, team);
  try {
    const connection = await exchangeAndStore(deps, app, state, query);
    return state.returnTo ? { redirect: state.returnTo } : { connection };
  } catch (error) {
    if (state.onErrorReturnTo) return { redirect: state.onErrorReturnTo };
    throw error;
  }
}

async function exchangeAndStore(deps: ConferencingDeps, app: OAuthApp, state: ConnectState, query: { code?: string | undefined; error?: string | undefined; error_description?: string | undefined }) {
  const name = INSTALLABLE_APPS[app].name;
  if (query.error) throw badRequest('conferencing_connect_failed', `Could not connect ${name}: the provider answered ${query.error}`);
  if (!query.code) throw badRequest('conferencing_connect_failed', `Could not connect ${name}: no code in the callback`, { property: 'code' });
  const oauth = requireOAuth(deps, app);
  const fetchImpl = outboundFetch(outboundPolicy(deps.config));
  let sealed: string;
  let accountEmail: string;
  try {
    const tokens = await oauth.exchangeCode(query.code, fetchImpl, Date.now());
    accountEmail = await oauth.accountEmail(tokens, fetchImpl, Date.now());
    sealed = deps.secrets.seal(JSON.stringify({ tokens, email: accountEmail }));
  } catch (error) {
    const why = error instanceof CalendarProviderError ? `${error.kind}: ${error.message}` : 'the provider did not answer';
    throw badRequest('conferencing_connect_failed', `Could not connect ${name}: ${why}`);
  }
  const { type } = INSTALLABLE_APPS[app];
  return deps.database.transaction(async (tx) => {
    await lockOwner(tx, state.owner);
    return viewOf(await repo.saveApp(tx, state.owner, { type, appId: app, credentialsSealed: sealed, accountEmail }));
  });
}

const DEFAULT_CHOICES = [...Object.keys(INSTALLABLE_APPS), ...BUILT_IN_SLUGS].join(', ');

/** POST …/conferencing/{app}/default: the built-in video, or an app the owner installed. */
export async function setDefaultApp(deps: ConferencingDeps, owner: AppOwner, app: string): Promise<void> {
  const builtIn = (BUILT_IN_SLUGS as readonly string[]).includes(app);
  if (!builtIn && !isInstallable(app)) throw badRequest('invalid_conferencing_app', `Invalid app, available apps are: ${DEFAULT_CHOICES}`, { property: 'app', value: app });
  await deps.database.transaction(async (tx) => {
    await lockOwner(tx, owner);
    if (!builtIn && !(await repo.findApp(tx, owner, INSTALLABLE_APPS[app as InstallableApp].type))) throw badRequest('conferencing_app_not_connected', `${app} not connected.`, { property: 'app', value: app });
    await repo.setDefault(tx, owner, app);
  });
}

/** GET …/conferencing/default: null until one is chosen (the built-in video is used then). */
export async function defaultApp(deps: ConferencingDeps, owner: AppOwner): Promise<{ appSlug: string } | null> {
  const app = await repo.findDefault(deps.database.db, owner);
  return app === null ? null : { appSlug: app };
}

/** DELETE …/conferencing/{app}/disconnect: the app goes, its tokens with it; a default naming it goes too. */
export async function disconnectApp(deps: ConferencingDeps, owner: AppOwner, app: string): Promise<void> {
  if (!isInstallable(app)) throw badRequest('invalid_conferencing_app', `Invalid app, available apps are: ${Object.keys(INSTALLABLE_APPS).join(', ')}`, { property: 'app', value: app });
  await deps.changes.transaction(deps.database, async (tx, announce) => {
    const locked = await lockOwner(tx, owner);
    const installed = await repo.findApp(tx, owner, INSTALLABLE_APPS[app].type);
    if (!installed) throw badRequest('conferencing_app_not_connected', `${app} not connected.`, { property: 'app', value: app });
    await repo.deleteApp(tx, installed.id);
    if (locked.defaultConferencingApp === app) await repo.setDefault(tx, owner, null);
    // Event types naming the app fall back to the built-in video, as in the reference.
    const integration = Object.entries(MEETING_INTEGRATIONS).find(([, slug]) => slug === app)?.[0];
    const changed = integration ? await replaceLocationIntegration(tx, owner, integration, BUILT_IN_VIDEO) : [];
    if (changed.length === 0) return;
    if (owner.kind === 'user') await announce({ kind: 'availability', userId: owner.userId });
    else for (const eventTypeId of changed) await announce({ kind: 'teamEventType', eventTypeId });
  });
}

/**
 * An event type may name an app only once its owner installed it (spec 2.1.4): a user's own, or, for a
 * team's event type, the team's. 400 naming the location otherwise.
 */
export async function assertLocationAppsInstalled(db: Db, owner: AppOwner, locations: readonly StoredLocation[] | undefined): Promise<void> {
  for (const [index, location] of (locations ?? []).entries()) {
    if (location.type !== 'integration' || !isMeetingIntegration(location.integration)) continue;
    const app = MEETING_INTEGRATIONS[location.integration];
    if (await repo.findApp(db, owner, INSTALLABLE_APPS[app].type)) continue;
    const [whose, base] = owner.kind === 'user' ? ['you have', '/v2'] : ['the team has', `/v2/organizations/{orgId}/teams/${owner.teamId}`];
    throw invalidField(`locations.${index}.integration`, `names ${location.integration}, which ${whose} not installed: connect ${INSTALLABLE_APPS[app].name} first (${connectRoute(app, base)})`, location.integration);
  }
}
