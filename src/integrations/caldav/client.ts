import { type DAVResponse, davRequest } from 'tsdav';
import { CalendarProviderError } from '../calendar-types.js';
import { OutboundError, type OutboundPolicy, outboundFetch } from '../outbound-fetch.js';

/** A CalDAV account reached with HTTP Basic authentication (an app-specific password for iCloud). */
export interface CalDavCredentials {
  serverUrl: string;
  username: string;
  password: string;
}

/** Apple iCloud's CalDAV server: discovery starts here and is sent on to the account's own host. */
export const ICLOUD_CALDAV_URL = 'https://caldav.icloud.com';

/** One calendar object resource: its absolute URL, its ETag as the server wrote it, its iCalendar text. */
export interface CalDavObject {
  href: string;
  etag: string | null;
  data: string;
}

export const NS = {
  d: 'DAV:',
  c: 'urn:ietf:params:xml:ns:caldav',
  cs: 'http://calendarserver.org/ns/',
  ca: 'http://apple.com/ns/ical/',
} as const;

export const XMLNS = { 'xmlns:d': NS.d, 'xmlns:c': NS.c, 'xmlns:cs': NS.cs, 'xmlns:ca': NS.ca };

export interface Session {
  fetch: typeof fetch;
  authorization: string;
  password: string;
}

/** What a request got back: the HTTP exchange, and the multistatus as tsdav parsed it (if it was one). */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** tsdav's reading of each DAV:response (names camelCased, namespaces dropped); [] if none. */
  responses: DAVResponse[];
  /** The parsed DAV:multistatus element, or null when the body was not one. */
  multistatus: Record<string, unknown> | null;
}

export function session(creds: CalDavCredentials, policy: OutboundPolicy): Session {
  const guarded = outboundFetch(policy);
  const authorization = `Basic ${Buffer.from(`${creds.username}:${creds.password}`, 'utf8').toString('base64')}`;
  return { fetch: guarded, authorization, password: creds.password };
}

/**
 * An absolute http(s) URL without user information (credentials travel only in the Authorization
 * header, and a URL is what error messages show).
 */
export function cleanUrl(s: Session, input: string, base?: string): URL {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    throw providerError(s, 'invalid_data', 'the calendar server address is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw providerError(s, 'invalid_data', `not an http(s) URL: ${url.protocol}`);
  url.username = '';
  url.password = '';
  url.hash = '';
  return url;
}

/** A collection's URL ends in "/": member hrefs resolve under it. */
export function collectionUrl(s: Session, input: string): string {
  const url = cleanUrl(s, input);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url.href;
}

export function providerError(s: Session, kind: CalendarProviderError['kind'], message: string, retryAfterMs?: number): CalendarProviderError {
  // Nothing svc writes holds the password, but a server's words or a URL might echo it.
  const safe = s.password.length >= 3 ? message.split(s.password).join('[redacted]') : message;
  return new CalendarProviderError(kind, safe, retryAfterMs);
}

function fromOutbound(s: Session, error: unknown, what: string): CalendarProviderError {
  if (error instanceof CalendarProviderError) return error;
  if (error instanceof OutboundError) {
    const kind =
      error.reason === 'refused_address'
        ? 'refused_address'
        : error.reason === 'too_large' || error.reason === 'bad_url'
          ? 'invalid_data'
          : 'unreachable';
    const mapped = providerError(s, kind, `${what}: ${error.message}`);
    mapped.cause = error;
    return mapped;
  }
  return providerError(s, 'unreachable', `${what}: ${error instanceof Error ? error.message : String(error)}`);
}

/** A request tsdav sends as given (PUT, DELETE) through the guarded fetch; transport failures become provider errors. */
export async function send(s: Session, what: string, call: (fetch: typeof globalThis.fetch, authorization: string) => Promise<Response>): Promise<Answer> {
  let response: Response;
  let text: string;
  try {
    response = await call(s.fetch, s.authorization);
    text = await response.text();
  } catch (error) {
    throw fromOutbound(s, error, what);
  }
  return { status: response.status, headers: response.headers, text, responses: [], multistatus: null };
}

/**
 * A WebDAV request with an XML body (tsdav builds it from `body` and reads the multistatus). The
 * exchange itself is kept as well: tsdav's answer does not tell a server error from a response
 * element's status, nor carry headers such as Retry-After.
 */
export async function dav(
  s: Session,
  url: string,
  method: 'PROPFIND' | 'REPORT',
  depth: '0' | '1',
  body: Record<string, unknown>,
  what: string,
): Promise<Answer> {
  let exchange: { status: number; headers: Headers; text: string } | null = null;
  const recording = (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await s.fetch(input, init);
    const text = await response.text();
    exchange = { status: response.status, headers: response.headers, text };
    const nullBody = response.status === 204 || response.status === 304;
    return new Response(nullBody ? null : text, { status: response.status, statusText: response.statusText, headers: response.headers });
  }) as typeof fetch;
  let responses: DAVResponse[];
  try {
    responses = await davRequest({
      url,
      init: { method, headers: { depth, authorization: s.authorization, 'content-type': 'application/xml; charset=utf-8' }, body },
      fetch: recording,
    });
  } catch (error) {
    throw fromOutbound(s, error, what);
  }
  const got = exchange as { status: number; headers: Headers; text: string } | null;
  if (!got) throw providerError(s, 'unreachable', `${what}: no answer`);
  const raw = responses[0]?.raw as { multistatus?: Record<string, unknown> } | undefined;
  const multistatus = raw && typeof raw === 'object' && raw.multistatus && typeof raw.multistatus === 'object' ? raw.multistatus : null;
  return { ...got, responses: multistatus ? responses.filter((r) => r.href !== undefined && r.href !== null) : [], multistatus };
}

/** A 207 whose body is a DAV:multistatus, or invalid_data. */
export function expectMultistatus(s: Session, answer: Answer, what: string): Answer {
  if (answer.status !== 207) throw statusError(s, answer, what);
  if (!answer.multistatus) throw providerError(s, 'invalid_data', `${what}: the answer is not a DAV:multistatus document`);
  return answer;
}

/** The DAV:error precondition a 403/409 names (e.g. "valid-sync-token", "no-uid-conflict"), if any. */
export function precondition(answer: Answer): string | null {
  const match = /<(?:[A-Za-z][\w.-]*:)?error\b[^>]*>\s*<(?:[A-Za-z][\w.-]*:)?([A-Za-z][\w.-]*)/.exec(answer.text);
  return match?.[1] ?? null;
}

export function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * The failure an unexpected HTTP status stands for. 403 is a refusal of the credentials unless the
 * server names a precondition (a read-only calendar, data it rejects): flagging the whole connection
 * invalid for those would be wrong. Other 4xx say the server will not take what was sent, so a retry
 * would fail the same way: invalid_data.
 */
export function statusError(s: Session, answer: Answer, what: string): CalendarProviderError {
  const { status } = answer;
  const line = `${what}: HTTP ${status}`;
  if (status === 401) return providerError(s, 'unauthorized', `${line} (credentials refused)`);
  if (status === 403) {
    const named = precondition(answer);
    return named ? providerError(s, 'invalid_data', `${line} (precondition ${named})`) : providerError(s, 'unauthorized', `${line} (access refused)`);
  }
  if (status === 404 || status === 410) return providerError(s, 'not_found', line);
  const wait = retryAfterMs(answer.headers);
  if (status === 429) return providerError(s, 'rate_limited', line, wait);
  if (status === 503 && wait !== undefined) return providerError(s, 'rate_limited', line, wait);
  if (status >= 500 || status < 200) return providerError(s, 'unreachable', line);
  if (status >= 300 && status < 400) return providerError(s, 'unreachable', `${line} (a redirect that could not be followed)`);
  return providerError(s, 'invalid_data', line);
}

/** Text content of a parsed element: tsdav turns numeric-looking text into numbers, and CDATA stays wrapped. */
export function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return textOf(value[0]);
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if ('_cdata' in record) return textOf(record._cdata);
    if ('_text' in record) return textOf(record._text);
  }
  return null;
}

/** The first DAV:href inside a parsed property (calendar-home-set and the like). */
export function hrefIn(value: unknown): string | null {
  if (!value || typeof value !== 'object') return null;
  const inner = Array.isArray(value) ? value[0] : value;
  if (!inner || typeof inner !== 'object') return null;
  return textOf((inner as Record<string, unknown>).href);
}

export function asArray<T>(value: T | T[] | undefined | null): T[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** Absolute URL of a member the server named (hrefs are usually paths). */
export function absolute(href: string, base: string): string {
  return new URL(href, base).href;
}

/** Calendar objects from a multiget or calendar-query answer; 404 members are listed apart. */
export function readObjects(s: Session, answer: Answer, base: string, what: string): { objects: CalDavObject[]; missing: string[] } {
  const objects: CalDavObject[] = [];
  const missing: string[] = [];
  for (const response of answer.responses) {
    const href = absolute(String(response.href), base);
    if (response.status === 404 || response.status === 410) {
      missing.push(href);
      continue;
    }
    if (!response.ok) throw providerError(s, 'invalid_data', `${what}: ${href} answered ${response.status}`);
    if (href === base) continue;
    const props = (response.props ?? {}) as Record<string, unknown>;
    const data = textOf(props.calendarData);
    if (data === null) throw providerError(s, 'invalid_data', `${what}: ${href} came without calendar-data`);
    objects.push({ href, etag: textOf(props.getetag), data });
  }
  return { objects, missing };
}
