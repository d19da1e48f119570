import { CalendarProviderError, type OAuthSession } from '../calendar-types.js';
import { callWithFreshToken } from '../oauth-session.js';
import { fromTransport, statusFailure } from './errors.js';
import { refreshTokens } from './oauth.js';

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Under /calendar/v3, path segments already encoded. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Names the call in error messages (no query string: page and sync tokens stay out of them). */
  what: string;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  /** The parsed JSON body; null when there was none or it was not JSON. */
  body: unknown;
}

function secretsOf(session: OAuthSession): string[] {
  return [session.client.clientSecret, session.tokens.accessToken, session.tokens.refreshToken];
}

function apiUrl(session: OAuthSession, request: ApiRequest): string {
  const url = new URL(`${session.client.endpoints.api.replace(/\/+$/, '')}/calendar/v3${request.path}`);
  for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

async function send(session: OAuthSession, request: ApiRequest, accessToken: string): Promise<ApiAnswer> {
  const headers: Record<string, string> = { authorization: `Bearer ${accessToken}`, accept: 'application/json' };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  let text: string;
  try {
    response = await session.fetch(apiUrl(session, request), {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    text = await response.text();
  } catch (error) {
    throw fromTransport(error, request.what, secretsOf(session));
  }
  let body: unknown = null;
  if (text.length > 0) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  return { status: response.status, headers: response.headers, body };
}

/**
 * A Calendar API call with the session's token, refreshed as callWithFreshToken does (Google also answers
 * 401 for a token revoked before its expiry). Any status comes back; `expectOk` or the caller judge it.
 */
export async function callApi(session: OAuthSession, request: ApiRequest): Promise<ApiAnswer> {
  const refresh = () => (session.renew ? session.renew() : refreshTokens(session.client, session.tokens, session.fetch, session.now()));
  return callWithFreshToken(session, refresh, (accessToken) => send(session, request, accessToken));
}

/** A 2xx answer with a JSON object body, or the failure the status stands for. */
export function expectOk(answer: ApiAnswer, what: string): Record<string, unknown> {
  if (answer.status < 200 || answer.status >= 300) throw statusFailure(answer.status, answer.headers, answer.body, what);
  return objectBody(answer.body, what);
}

export function objectBody(body: unknown, what: string): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new CalendarProviderError('invalid_data', `${what}: the answer is not a JSON object`);
  return body as Record<string, unknown>;
}

/** `items` of a list answer (absent means none, as Google leaves it out of empty pages). */
export function itemsOf(page: Record<string, unknown>, what: string): Record<string, unknown>[] {
  if (page.items === undefined) return [];
  if (!Array.isArray(page.items)) throw new CalendarProviderError('invalid_data', `${what}: items is not a list`);
  return page.items.map((item: unknown) => objectBody(item, `${what}: an item`));
}

export function optionalString(record: Record<string, unknown>, name: string, what: string): string | null {
  const value = record[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new CalendarProviderError('invalid_data', `${what}: ${name} is not a string`);
  return value;
}

export function requiredString(record: Record<string, unknown>, name: string, what: string): string {
  const value = optionalString(record, name, what);
  if (!value) throw new CalendarProviderError('invalid_data', `${what}: ${name} is missing`);
  return value;
}

/** Pages a list answer offers at most before svc gives up on it (2,500 events a page for events.list). */
export const MAX_PAGES = 200;

/** The path segment of a calendar or event id (calendar ids are e-mail addresses, event ids may hold '_'). */
export const segment = (id: string): string => encodeURIComponent(id);
