import { CalendarProviderError, type OAuthClient, type OAuthTokens } from '../calendar-types.js';
import { fromTransport, redact, retryAfterMs } from './errors.js';

/** Where Google answers: the consent page, the token endpoint, and the API host (Calendar v3 lives under /calendar/v3). */
export const GOOGLE_ENDPOINTS = {
  authorize: 'https://accounts.google.com/o/oauth2/v2/auth',
  token: 'https://oauth2.googleapis.com/token',
  api: 'https://www.googleapis.com',
};

/**
 * What svc asks for. calendar.events: read and write events (events.list, insert, patch, delete).
 * calendar.readonly: the calendar list and calendars.get, which events scopes do not cover. No
 * `openid email`: the account's address is the primary calendar's id (calendars/primary), so the
 * consent screen asks for nothing beyond the calendar.
 */
export const GOOGLE_SCOPES = ['https://www.googleapis.com/auth/calendar.events', 'https://www.googleapis.com/auth/calendar.readonly'];

export function authorizationUrl(client: OAuthClient, state: string, loginHint?: string): string {
  const url = new URL(client.endpoints.authorize);
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('redirect_uri', client.redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', GOOGLE_SCOPES.join(' '));
  // offline: a refresh token comes with the code. Google sends one only on a consent it showed, so a
  // user reconnecting (after a revoked token) would otherwise come back without one.
  url.searchParams.set('access_type', 'offline');
  url.searchParams.set('prompt', 'consent');
  url.searchParams.set('include_granted_scopes', 'true');
  url.searchParams.set('state', state);
  if (loginHint) url.searchParams.set('login_hint', loginHint);
  return url.href;
}

export async function exchangeCode(client: OAuthClient, code: string, fetchImpl: typeof fetch, now: number): Promise<OAuthTokens> {
  const answer = await tokenRequest(
    client,
    fetchImpl,
    'exchanging the authorization code',
    { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri },
    [code],
  );
  const refreshToken = stringField(answer, 'refresh_token');
  if (!refreshToken) {
    throw new CalendarProviderError('invalid_data', 'exchanging the authorization code: Google sent no refresh token (offline access was not granted)');
  }
  return tokensOf(answer, refreshToken, now, 'exchanging the authorization code');
}

/** New access token; Google normally keeps the refresh token, so the old one is kept unless a new one comes. */
export async function refreshTokens(client: OAuthClient, tokens: OAuthTokens, fetchImpl: typeof fetch, now: number): Promise<OAuthTokens> {
  const what = 'refreshing the access token';
  const answer = await tokenRequest(client, fetchImpl, what, { grant_type: 'refresh_token', refresh_token: tokens.refreshToken }, [tokens.refreshToken]);
  const fresh = tokensOf(answer, stringField(answer, 'refresh_token') ?? tokens.refreshToken, now, what);
  return { ...fresh, scope: fresh.scope ?? tokens.scope };
}

function stringField(record: Record<string, unknown>, name: string): string | null {
  const value = record[name];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

export function tokensOf(answer: Record<string, unknown>, refreshToken: string, now: number, what: string): OAuthTokens {
  const accessToken = stringField(answer, 'access_token');
  const expiresIn = typeof answer.expires_in === 'string' ? Number(answer.expires_in) : answer.expires_in;
  if (!accessToken || typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn <= 0) {
    throw new CalendarProviderError('invalid_data', `${what}: the answer lacks access_token or expires_in`);
  }
  return { accessToken, refreshToken, expiresAt: now + expiresIn * 1000, scope: stringField(answer, 'scope') };
}

/**
 * POST to the token endpoint (client credentials in the form, as Google's web-server flow shows).
 * The RFC 6749 error codes decide the kind: invalid_grant (code used or expired, refresh token
 * revoked) and invalid_client say the credentials are refused. Nothing sent or received is echoed:
 * codes, tokens and the client secret never reach a message.
 */
function tokenRequest(client: OAuthClient, fetchImpl: typeof fetch, what: string, grant: Record<string, string>, secrets: string[] = []): Promise<Record<string, unknown>> {
  const form = { ...grant, client_id: client.clientId, client_secret: client.clientSecret };
  return postTokenForm(client.endpoints.token, fetchImpl, what, form, [client.clientSecret, ...secrets]);
}

/** POST of a form to Google's token endpoint; its answer's JSON object, or the failure it stands for. */
export async function postTokenForm(tokenUrl: string, fetchImpl: typeof fetch, what: string, fields: Record<string, string>, hidden: string[]): Promise<Record<string, unknown>> {
  const form = new URLSearchParams(fields);
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    });
    text = await response.text();
  } catch (error) {
    throw fromTransport(error, what, hidden);
  }
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // A non-JSON answer is judged by its status below.
  }
  const record = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  if (response.ok) {
    if (!record) throw new CalendarProviderError('invalid_data', `${what}: the token endpoint answered ${response.status} without a JSON object`);
    return record;
  }
  const code = record ? stringField(record, 'error') : null;
  const line = redact(`${what}: HTTP ${response.status}${code ? ` (${code})` : ''}`, hidden);
  if (code === 'invalid_grant' || code === 'invalid_client' || code === 'unauthorized_client') {
    throw new CalendarProviderError('unauthorized', line);
  }
  if (response.status === 429) throw new CalendarProviderError('rate_limited', line, retryAfterMs(response.headers));
  if (response.status >= 500) throw new CalendarProviderError('unreachable', line);
  if (response.status === 401 || response.status === 403) throw new CalendarProviderError('unauthorized', line);
  throw new CalendarProviderError('invalid_data', line);
}
