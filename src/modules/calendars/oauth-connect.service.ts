// Google and Microsoft calendars connected through OAuth: the consent page's URL with a sealed state,
// and the provider's callback that stores the connection.
import { CalendarProviderError, type ExternalCalendar } from '../../integrations/calendar-types.js';
import { outboundFetch } from '../../integrations/outbound-fetch.js';
import { badRequest } from '../../lib/errors.js';
import { openState, sealState } from '../../lib/sealed-state.js';
import { OAUTH_ADAPTERS, oauthClientOf, type OAuthConnectionType, type OAuthCredentials, oauthSession } from './calendar-oauth.js';
import { calendarTransaction, outboundPolicy, syncCalendarSource } from './calendar-sync.js';
import * as repo from './calendars.repository.js';
import { CALENDAR_APPS, type CalendarsDeps, type ConnectionView, syncDeps, viewOf } from './calendars.service.js';

const CONNECT_STATE_PURPOSE = 'calendar-connect';

interface ConnectState {
  userId: number;
  type: OAuthConnectionType;
  redir: string | null;
}

function requireOAuthClient(deps: CalendarsDeps, type: OAuthConnectionType) {
  const client = oauthClientOf(deps.config, type);
  const variable = type === 'google_calendar' ? 'GOOGLE' : 'MICROSOFT';
  if (!client) throw badRequest('calendar_app_not_configured', `This svc has no ${CALENDAR_APPS[type].name} app: its operator sets SVC_${variable}_CLIENT_ID and SVC_${variable}_CLIENT_SECRET`);
  return client;
}

/**
 * GET /v2/calendars/{google|office365}/connect: the provider's consent page, with a state svc sealed
 * (the user, the provider, where to send them back, an expiry): the callback trusts nothing else.
 */
export function oauthConnectUrl(deps: CalendarsDeps, userId: number, type: OAuthConnectionType, redir: string | null): { authUrl: string } {
  const client = requireOAuthClient(deps, type);
  const state: ConnectState = { userId, type, redir };
  return { authUrl: OAUTH_ADAPTERS[type].authorizationUrl(client, sealState(deps.secrets, CONNECT_STATE_PURPOSE, state)) };
}

function openConnectState(deps: CalendarsDeps, sealed: string, type: OAuthConnectionType): ConnectState {
  const state = openState<ConnectState>(deps.secrets, CONNECT_STATE_PURPOSE, sealed);
  if (!state || state.type !== type) {
    throw badRequest('calendar_state_invalid', 'Invalid or expired state: start again from GET /v2/calendars/{calendar}/connect');
  }
  return state;
}

/**
 * GET /v2/calendars/{google|office365}/save: the provider's callback. The code is traded for tokens, the
 * account and its calendars are read, and only then is anything stored: one connection per account
 * (connecting an account again renews its tokens and clears `invalid`), its primary calendar selected
 * and read at once. Returns where to send the user (the `redir` given to connect), if anywhere.
 */
export async function saveOAuthCalendar(deps: CalendarsDeps, type: OAuthConnectionType, input: { state: string; code: string }): Promise<{ redir: string | null; connection: ConnectionView }> {
  const state = openConnectState(deps, input.state, type);
  const client = requireOAuthClient(deps, type);
  const adapter = OAUTH_ADAPTERS[type];
  const policy = outboundPolicy(deps.config);
  let credentials: OAuthCredentials;
  let calendars: ExternalCalendar[];
  try {
    const tokens = await adapter.exchangeCode(client, input.code, outboundFetch(policy), Date.now());
    const session = oauthSession(client, { tokens, email: '' }, policy, async () => {});
    const email = await adapter.accountEmail(session);
    calendars = await adapter.listCalendars(session);
    credentials = { tokens: session.tokens, email };
  } catch (error) {
    const why = error instanceof CalendarProviderError ? `${error.kind}: ${error.message}` : 'the provider did not answer';
    throw badRequest('calendar_connect_failed', `Could not connect ${CALENDAR_APPS[type].name}: ${why}`);
  }
  const sealed = deps.secrets.seal(JSON.stringify(credentials));
  const now = Date.now();
  const { connection, sources } = await calendarTransaction(deps, async (tx, busyTimeChanged) => {
    const same = (await repo.listConnectionsOf(tx, state.userId, type)).find((row) => (JSON.parse(deps.secrets.open(row.credentialsSealed)) as OAuthCredentials).email === credentials.email);
    let row: repo.CalendarConnectionRow;
    let known = new Set<string>();
    if (same) {
      row = await repo.renewConnection(tx, same.id, sealed, credentials.email);
      known = new Set((await repo.listSourcesOf(tx, state.userId)).filter((source) => source.connectionId === same.id).map((source) => source.externalId));
    } else {
      row = await repo.insertConnection(tx, { userId: state.userId, type, appId: CALENDAR_APPS[type].appId, credentialsSealed: sealed, accountEmail: credentials.email });
    }
    const added = await repo.insertSources(tx, row, calendars.filter((calendar) => !known.has(calendar.externalId)), new Date(now), (calendar) => calendar.primary && !same);
    await busyTimeChanged(state.userId);
    return { connection: row, sources: added };
  });
  for (const source of sources) if (source.selected) await syncCalendarSource(syncDeps(deps), source.id, now);
  return { redir: state.redir, connection: viewOf(connection) };
}
