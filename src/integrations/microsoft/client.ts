import type { CalendarProviderError, OAuthSession } from '../calendar-types.js';
import { jsonObject, objectField, providerError, retryAfterMs, stringField, transportError } from '../provider-errors.js';
import { callWithFreshToken } from '../oauth-session.js';
import { refreshTokens } from './oauth.js';

/** What a Graph request got back. */
export interface GraphAnswer {
  status: number;
  headers: Headers;
  /** The body as a JSON object, or null (empty, not JSON, not an object). */
  body: Record<string, unknown> | null;
}

export interface GraphRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** An absolute URL inside the API base (see `apiUrl` and `followLink`). */
  url: string;
  /** Says what the call was for in error messages (never a URL: delta links carry state tokens). */
  what: string;
  json?: unknown;
  /** Preferences besides outlook.timezone="UTC", which every call sends. */
  prefer?: string[];
}

/** The Graph v1.0 URL of `path` (which starts with "/"). */
export function apiUrl(session: OAuthSession, path: string): string {
  if (session.mailbox && /^\/me(?=[/?]|$)/.test(path)) return `${apiBase(session)}/users/${encodeURIComponent(session.mailbox)}${path.slice(3)}`;
  return `${apiBase(session)}${path}`;
}

function apiBase(session: OAuthSession): string {
  return `${session.client.endpoints.api.replace(/\/+$/, '')}/v1.0`;
}

/**
 * A nextLink or deltaLink Graph handed back, followed only when it stays under the configured API base:
 * the bearer token goes with it, and must not be sent to any other host.
 */
export function followLink(session: OAuthSession, link: unknown, what: string): string {
  if (!linkInside(session, link)) throw providerError('invalid_data', `${what}: a paging link outside the Graph API base`, secretsOf(session));
  return link;
}

export function linkInside(session: OAuthSession, link: unknown): link is string {
  const base = apiBase(session);
  return typeof link === 'string' && (link.startsWith(`${base}/`) || link.startsWith(`${base}?`));
}

export function secretsOf(session: OAuthSession): string[] {
  return [session.tokens.accessToken, session.tokens.refreshToken, session.client.clientSecret];
}

/**
 * One Graph call with the session's token: refreshed first when it is about to expire, and once more
 * (then the call repeated once) when Graph answers 401. Statuses other than 401 come back as they are
 * for the caller to judge; a second 401 is `unauthorized`.
 */
export async function graphCall(session: OAuthSession, request: GraphRequest): Promise<GraphAnswer> {
  const refresh = () => (session.renew ? session.renew() : refreshTokens(session.client, session.tokens.refreshToken, session.fetch, session.now()));
  const answer = await callWithFreshToken(session, refresh, (accessToken) => send(session, request, accessToken));
  if (answer.status === 401) throw statusError(session, answer, request.what);
  return answer;
}

async function send(session: OAuthSession, request: GraphRequest, accessToken: string): Promise<GraphAnswer> {
  const headers = new Headers({
    authorization: `Bearer ${accessToken}`,
    accept: 'application/json',
    // UTC times in every event read or written back (Graph's default too, but said, not assumed).
    prefer: ['outlook.timezone="UTC"', ...(request.prefer ?? [])].join(', '),
  });
  if (request.json !== undefined) headers.set('content-type', 'application/json');
  try {
    const response = await session.fetch(request.url, {
      method: request.method,
      headers,
      body: request.json === undefined ? undefined : JSON.stringify(request.json),
    });
    return { status: response.status, headers: response.headers, body: jsonObject(await response.text()) };
  } catch (error) {
    throw transportError(error, request.what, secretsOf(session));
  }
}

/** Graph's error code ({"error":{"code":...}}), e.g. InvalidAuthenticationToken, syncStateNotFound. */
export function graphErrorCode(answer: GraphAnswer): string | null {
  return stringField(objectField(answer.body, 'error'), 'code');
}

/**
 * The failure a status stands for. 403 is Graph refusing the token's rights (a scope not granted,
 * access withdrawn): the connection needs the user again. Other 4xx say Graph will not take what was
 * sent, so a retry would fail the same way.
 */
export function statusError(session: OAuthSession, answer: GraphAnswer, what: string): CalendarProviderError {
  const { status } = answer;
  const error = objectField(answer.body, 'error');
  const code = stringField(error, 'code');
  const message = stringField(error, 'message');
  const line = `${what}: HTTP ${status}${code ? ` ${code}` : ''}${message ? `: ${message.slice(0, 200)}` : ''}`;
  const secrets = secretsOf(session);
  if (status === 401 || status === 403) return providerError('unauthorized', line, secrets);
  if (status === 404 || status === 410) return providerError('not_found', line, secrets);
  if (status === 429 || status === 503) return providerError('rate_limited', line, secrets, retryAfterMs(answer.headers, session.now()));
  if (status >= 500 || status < 200) return providerError('unreachable', line, secrets);
  if (status >= 300 && status < 400) return providerError('unreachable', `${line} (a redirect that could not be followed)`, secrets);
  return providerError('invalid_data', line, secrets);
}

/** The answer's JSON object, when the status is one of `ok`; otherwise the status's failure. */
export function expectJson(session: OAuthSession, answer: GraphAnswer, what: string, ok: number[] = [200]): Record<string, unknown> {
  if (!ok.includes(answer.status)) throw statusError(session, answer, what);
  if (!answer.body) throw providerError('invalid_data', `${what}: the answer is not a JSON object`, secretsOf(session));
  return answer.body;
}
