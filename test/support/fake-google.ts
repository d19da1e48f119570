// A local stand-in for Google's OAuth 2.0 endpoints and the part of Calendar API v3 the Google
// adapter uses, on 127.0.0.1 (port 0), answering as Google documents: the consent page (consents at
// once and redirects with `code` and `state`), the token endpoint (authorization_code and
// refresh_token grants, client checked, refresh tokens revocable, access tokens expiring),
// calendarList, calendars.get, and events list / get / insert / patch / update / delete with
// pageToken paging, nextSyncToken on the last page, syncToken reads of changes (deletions as
// cancelled), 410 fullSyncRequired for a token it no longer knows, 409 for an iCalUID already taken
// (even by a deleted event), 410 for deleting a deleted event, and singleEvents expanding an RRULE
// (ical.js) in the event's zone. Errors use Google's JSON error body. Tests act as the user in
// Google's UI through the helpers (addEvent, editEvent, removeEvent) and switch failures on with
// failNext.
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import ICAL from 'ical.js';
import { formatWithOffset, offsetMinutes, zonedToEpoch } from '../../src/scheduling/zones.js';

export const SCOPE_EVENTS = 'https://www.googleapis.com/auth/calendar.events';
export const SCOPE_READONLY = 'https://www.googleapis.com/auth/calendar.readonly';
const SCOPE_FULL = 'https://www.googleapis.com/auth/calendar';

export type AccessRole = 'owner' | 'writer' | 'reader' | 'freeBusyReader';

/** An event resource as Google stores and returns it (the fields this fake reads are typed). */
export interface GoogleEvent {
  id: string;
  status?: 'confirmed' | 'tentative' | 'cancelled';
  iCalUID?: string;
  summary?: string;
  description?: string;
  location?: string;
  transparency?: 'opaque' | 'transparent';
  start?: EventTime;
  end?: EventTime;
  recurrence?: string[];
  recurringEventId?: string;
  originalStartTime?: EventTime;
  attendees?: { email: string; displayName?: string; responseStatus?: string; self?: boolean; organizer?: boolean; optional?: boolean }[];
  organizer?: { email: string; displayName?: string; self?: boolean };
  sequence?: number;
  etag?: string;
  [field: string]: unknown;
}

export interface EventTime {
  dateTime?: string;
  date?: string;
  timeZone?: string;
}

export interface FakeGoogleOptions {
  clientId: string;
  clientSecret: string;
  /** expires_in of the access tokens it issues (Google: 3599). */
  accessTokenLifetimeSeconds?: number;
  /** The most items a page holds whatever maxResults asks: Google may give fewer than asked. */
  pageSizeCap?: number;
  /** Refresh grants answer a new refresh token as well (Google normally does not). */
  rotateRefreshTokens?: boolean;
}

export interface CalendarInit {
  id: string;
  summary: string;
  summaryOverride?: string;
  timeZone?: string;
  accessRole?: AccessRole;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | null;
  body: unknown;
}

export interface Failure {
  status: 401 | 403 | 429 | 500 | 503;
  /** Retry-After header, seconds or an HTTP date. */
  retryAfter?: string;
  /** errors[0].reason (defaults: authError, rateLimitExceeded, backendError). */
  reason?: string;
}

interface Calendar {
  id: string;
  summary: string;
  timeZone: string;
  owner: string;
  events: Map<string, StoredEvent>;
}

interface StoredEvent {
  resource: GoogleEvent;
  changedAt: number;
}

interface Caller {
  email: string;
  scopes: Set<string>;
}

interface Account {
  email: string;
  list: { calendarId: string; accessRole: AccessRole; summaryOverride?: string; primary: boolean }[];
}

interface Page {
  items: GoogleEvent[] | Record<string, unknown>[];
  offset: number;
  size: number;
  head: Record<string, unknown>;
  nextSyncToken?: string;
}

/** Instances generated at most per series (Google expands unbounded series lazily; svc reads windows). */
const MAX_INSTANCES = 1000;
const HORIZON_MS = 400 * 86_400_000;

class GoogleError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly domain = 'global',
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const token = (prefix: string) => `${prefix}${randomBytes(18).toString('base64url')}`;
const base32hex = () => Array.from(randomBytes(20), (byte) => '0123456789abcdefghijklmnopqrstuv'[byte % 32]).join('');
const clone = <T>(value: T): T => structuredClone(value);

export class FakeGoogle {
  readonly requests: RecordedRequest[] = [];
  /** Query parameters of every visit to the consent page. */
  readonly authorizations: Record<string, string>[] = [];
  /** Forms posted to the token endpoint (grant_type and the rest). */
  readonly tokenGrants: Record<string, string>[] = [];
  url = '';
  private server: http.Server;
  private clock = 1;
  /** Meet conferences made by createRequests (conferenceDataVersion=1). */
  conferencesMade = 0;
  private calendars = new Map<string, Calendar>();
  private accounts = new Map<string, Account>();
  private codes = new Map<string, { email: string; redirectUri: string; scope: string; offline: boolean; used: boolean }>();
  private refreshTokens = new Map<string, { email: string; scope: string; revoked: boolean }>();
  private accessTokens = new Map<string, { email: string; scope: string; expiresAt: number }>();
  private syncTokens = new Map<string, { calendarId: string; since: number }>();
  private pages = new Map<string, Page>();
  private failures: { failure: Failure; on: 'api' | 'token' }[] = [];
  /** events.watch channels open now, by channel id. */
  readonly channels = new Map<string, { id: string; resourceId: string; calendarId: string; address: string; token: string; expiration: number; sent: number }>();
  /** Every notification posted to a channel's address, with svc's answer (0: it could not be reached). */
  readonly notificationsSent: { channelId: string; state: string; status: number }[] = [];
  /** Service accounts a workspace admin authorized for domain-wide delegation: client_email -> key and domain. */
  private serviceAccounts = new Map<string, { publicKeyPem: string; clientId: string; domain: string; scopes: string[] }>();

  constructor(readonly options: FakeGoogleOptions) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  get endpoints(): { authorize: string; token: string; api: string } {
    return { authorize: `${this.url}/o/oauth2/v2/auth`, token: `${this.url}/token`, api: this.url };
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---- the world as a test sets it up (what the user does in Google's UI) ----

  /** An account with its primary calendar, whose id is the address. */
  addAccount(email: string, timeZone = 'UTC'): void {
    this.calendars.set(email, { id: email, summary: email, timeZone, owner: email, events: new Map() });
    this.accounts.set(email, { email, list: [{ calendarId: email, accessRole: 'owner', primary: true }] });
  }

  /**
   * A service account (its public key) the workspace of `domain` authorized for domain-wide delegation
   * with `scopes` (the admin console's client id and OAuth scopes).
   */
  authorizeServiceAccount(account: { clientEmail: string; clientId: string; publicKeyPem: string; domain: string; scopes?: string[] }): void {
    this.serviceAccounts.set(account.clientEmail, { publicKeyPem: account.publicKeyPem, clientId: account.clientId, domain: account.domain, scopes: account.scopes ?? [SCOPE_EVENTS, SCOPE_READONLY] });
  }

  /** The workspace admin removes the service account's delegation: its grants are refused, its tokens stop working. */
  withdrawServiceAccount(clientEmail: string): void {
    this.serviceAccounts.delete(clientEmail);
    this.accessTokens.clear();
  }

  /** A calendar in the account's list: its own (owner) or one shared with it. */
  addCalendar(email: string, init: CalendarInit): void {
    if (!this.calendars.has(init.id)) {
      this.calendars.set(init.id, { id: init.id, summary: init.summary, timeZone: init.timeZone ?? 'UTC', owner: email, events: new Map() });
    }
    this.account(email).list.push({ calendarId: init.id, accessRole: init.accessRole ?? 'owner', summaryOverride: init.summaryOverride, primary: false });
  }

  addEvent(calendarId: string, event: Omit<GoogleEvent, 'id'> & { id?: string }): GoogleEvent {
    return clone(this.insert(this.calendar(calendarId), event));
  }

  /** Changes fields of an event or of one instance of a series (which then becomes an exception). */
  editEvent(calendarId: string, eventId: string, changes: Partial<GoogleEvent>): GoogleEvent {
    return clone(this.patch(this.calendar(calendarId), eventId, changes, false));
  }

  /** Deletes an event, a whole series (by its id) or one instance of it. */
  removeEvent(calendarId: string, eventId: string): void {
    this.remove(this.calendar(calendarId), eventId);
  }

  /** The stored resource (a deleted one too, with status "cancelled"), or undefined. */
  event(calendarId: string, eventId: string): GoogleEvent | undefined {
    const stored = this.calendar(calendarId).events.get(eventId);
    return stored ? clone(stored.resource) : undefined;
  }

  events(calendarId: string): GoogleEvent[] {
    return [...this.calendar(calendarId).events.values()].map((stored) => clone(stored.resource));
  }

  /** Every sync token stops working (Google: expiry, ACL changes): the next syncToken read is 410. */
  invalidateSyncTokens(): void {
    this.syncTokens.clear();
  }

  /** The user removed svc's access: the refresh tokens answer invalid_grant, the access tokens 401. */
  revokeAccess(): void {
    for (const entry of this.refreshTokens.values()) entry.revoked = true;
    this.accessTokens.clear();
  }

  /** Access tokens stop working before their expiry (as after a password change): API calls answer 401. */
  dropAccessTokens(): void {
    this.accessTokens.clear();
  }

  /** The next `count` API calls (or token requests) answer `failure`. */
  failNext(count: number, failure: Failure, on: 'api' | 'token' = 'api'): void {
    for (let i = 0; i < count; i++) this.failures.push({ failure, on });
  }

  apiRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.path.startsWith('/calendar/v3/'));
  }

  // ---- HTTP ----

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const text = await readBody(req);
    const query = Object.fromEntries(url.searchParams);
    let body: unknown = null;
    if (text) {
      try {
        body = (req.headers['content-type'] ?? '').includes('application/json') ? JSON.parse(text) : Object.fromEntries(new URLSearchParams(text));
      } catch {
        body = text;
      }
    }
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname, query, authorization: req.headers.authorization ?? null, body });
    try {
      if (url.pathname === '/o/oauth2/v2/auth' && req.method === 'GET') return this.authorize(query, res);
      if (url.pathname === '/token' && req.method === 'POST') return this.tokenEndpoint(body as Record<string, string>, res);
      if (url.pathname.startsWith('/calendar/v3/')) {
        const failure = this.takeFailure('api');
        if (failure) throw failureError(failure);
        const caller = this.authenticate(req.headers.authorization);
        return json(res, 200, this.api(req.method ?? 'GET', url.pathname.slice('/calendar/v3'.length), query, body, caller), req.method === 'DELETE');
      }
      throw new GoogleError(404, 'notFound', 'Not Found');
    } catch (error) {
      if (!(error instanceof GoogleError)) {
        json(res, 500, { error: { errors: [{ domain: 'global', reason: 'backendError', message: String(error) }], code: 500, message: 'Backend Error' } });
        return;
      }
      res.writeHead(error.status, { 'content-type': 'application/json; charset=UTF-8', ...error.headers });
      res.end(JSON.stringify({ error: { errors: [{ domain: error.domain, reason: error.reason, message: error.message }], code: error.status, message: error.message } }));
    }
  }

  private takeFailure(on: 'api' | 'token'): Failure | null {
    const index = this.failures.findIndex((entry) => entry.on === on);
    if (index < 0) return null;
    const [entry] = this.failures.splice(index, 1);
    return entry!.failure;
  }

  private authorize(query: Record<string, string>, res: http.ServerResponse): void {
    this.authorizations.push(query);
    const problem =
      query.client_id !== this.options.clientId
        ? 'invalid_client'
        : !query.redirect_uri || query.response_type !== 'code' || !query.scope
          ? 'invalid_request'
          : null;
    // Google shows an error page to the user, it does not redirect.
    if (problem) return void res.writeHead(400, { 'content-type': 'text/html' }).end(`<h1>Error 400: ${problem}</h1>`);
    const email = (query.login_hint && this.accounts.has(query.login_hint) ? query.login_hint : [...this.accounts.keys()][0]) ?? '';
    const code = token('4/0A');
    this.codes.set(code, { email, redirectUri: query.redirect_uri!, scope: query.scope!, offline: query.access_type === 'offline', used: false });
    const target = new URL(query.redirect_uri!);
    if (query.state !== undefined) target.searchParams.set('state', query.state);
    target.searchParams.set('code', code);
    target.searchParams.set('scope', query.scope!);
    res.writeHead(302, { location: target.href }).end();
  }

  private tokenEndpoint(form: Record<string, string> | null, res: http.ServerResponse): void {
    const grant = form && typeof form === 'object' ? form : {};
    this.tokenGrants.push({ ...grant });
    const fail = (status: number, error: string, description: string) => json(res, status, { error, error_description: description });
    const failure = this.takeFailure('token');
    if (failure) {
      const headers: Record<string, string> = failure.retryAfter ? { 'retry-after': failure.retryAfter } : {};
      res.writeHead(failure.status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ error: failure.reason ?? 'internal_failure' }));
      return;
    }
    const lifetime = this.options.accessTokenLifetimeSeconds ?? 3599;
    const issue = (email: string, scope: string) => {
      const accessToken = token('ya29.');
      this.accessTokens.set(accessToken, { email, scope, expiresAt: Date.now() + lifetime * 1000 });
      return { access_token: accessToken, expires_in: lifetime, scope, token_type: 'Bearer' };
    };
    if (grant.grant_type === 'urn:ietf:params:oauth:grant-type:jwt-bearer') return this.serviceAccountGrant(grant.assertion ?? '', res, issue);
    if (grant.client_id !== this.options.clientId || grant.client_secret !== this.options.clientSecret) return fail(401, 'invalid_client', 'Unauthorized');
    if (grant.grant_type === 'authorization_code') {
      const code = this.codes.get(grant.code ?? '');
      if (!code || code.used || code.redirectUri !== grant.redirect_uri) return fail(400, 'invalid_grant', 'Bad Request');
      code.used = true;
      const answer: Record<string, unknown> = issue(code.email, code.scope);
      if (code.offline) {
        const refreshToken = token('1//0g');
        this.refreshTokens.set(refreshToken, { email: code.email, scope: code.scope, revoked: false });
        answer.refresh_token = refreshToken;
      }
      return json(res, 200, answer);
    }
    if (grant.grant_type === 'refresh_token') {
      const entry = this.refreshTokens.get(grant.refresh_token ?? '');
      if (!entry || entry.revoked) return fail(400, 'invalid_grant', 'Token has been expired or revoked.');
      const answer: Record<string, unknown> = issue(entry.email, entry.scope);
      if (this.options.rotateRefreshTokens) {
        entry.revoked = true;
        const next = token('1//0g');
        this.refreshTokens.set(next, { ...entry, revoked: false });
        answer.refresh_token = next;
      }
      return json(res, 200, answer);
    }
    fail(400, 'unsupported_grant_type', 'Invalid grant_type');
  }

  /** RFC 7523 as Google checks it: signature by the account's key, audience, lifetime, and the workspace's authorization of the subject's domain. */
  private serviceAccountGrant(assertion: string, res: http.ServerResponse, issue: (email: string, scope: string) => Record<string, unknown>): void {
    const fail = (status: number, error: string, description: string) => json(res, status, { error, error_description: description });
    const [header, claimsPart, signature] = assertion.split('.');
    if (!header || !claimsPart || !signature) return fail(400, 'invalid_grant', 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe');
    let claims: { iss?: string; sub?: string; scope?: string; aud?: string; iat?: number; exp?: number };
    try {
      claims = JSON.parse(Buffer.from(claimsPart, 'base64url').toString('utf8'));
    } catch {
      return fail(400, 'invalid_grant', 'Invalid JWT payload');
    }
    const account = this.serviceAccounts.get(claims.iss ?? '');
    if (!account) return fail(400, 'invalid_grant', 'Invalid grant: account not found');
    if (!verify('RSA-SHA256', Buffer.from(`${header}.${claimsPart}`), createPublicKey(account.publicKeyPem), Buffer.from(signature, 'base64url'))) {
      return fail(400, 'invalid_grant', 'Invalid JWT Signature.');
    }
    const nowSeconds = Date.now() / 1000;
    if (claims.aud !== `${this.url}/token` || !claims.iat || !claims.exp || claims.exp <= nowSeconds || claims.exp - claims.iat > 3600) {
      return fail(400, 'invalid_grant', 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.');
    }
    const scopes = (claims.scope ?? '').split(' ').filter(Boolean);
    const subject = claims.sub ?? '';
    if (!subject.toLowerCase().endsWith(`@${account.domain}`) || scopes.length === 0 || !scopes.every((scope) => account.scopes.includes(scope))) {
      return fail(401, 'unauthorized_client', 'Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.');
    }
    if (!this.accounts.has(subject)) return fail(400, 'invalid_grant', 'Invalid email or User ID');
    json(res, 200, issue(subject, scopes.join(' ')));
  }

  private authenticate(header: string | undefined): Caller {
    const presented = /^Bearer (\S+)$/.exec(header ?? '')?.[1];
    const entry = presented ? this.accessTokens.get(presented) : undefined;
    if (!entry || entry.expiresAt <= Date.now()) {
      throw new GoogleError(401, 'authError', 'Invalid Credentials', 'global', { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' });
    }
    return { email: entry.email, scopes: new Set(entry.scope.split(' ')) };
  }

  private api(method: string, path: string, query: Record<string, string>, body: unknown, caller: Caller): unknown {
    const { email } = caller;
    const account = this.account(email);
    const requireScope = (write: boolean, listing = false) => {
      const allowed = listing ? [SCOPE_READONLY, SCOPE_FULL] : write ? [SCOPE_EVENTS, SCOPE_FULL] : [SCOPE_EVENTS, SCOPE_READONLY, SCOPE_FULL];
      if (!allowed.some((scope) => caller.scopes.has(scope))) throw new GoogleError(403, 'insufficientPermissions', 'Insufficient Permission');
    };
    if (path === '/users/me/calendarList' && method === 'GET') {
      requireScope(false, true);
      return this.calendarList(account, query);
    }
    if (path === '/channels/stop' && method === 'POST') {
      const { id, resourceId } = objectOf(body) as { id?: string; resourceId?: string };
      const channel = this.channels.get(String(id));
      if (!channel || channel.resourceId !== resourceId) throw new GoogleError(404, 'notFound', `Channel '${id}' not found for project`);
      this.channels.delete(channel.id);
      return null;
    }
    const watch = /^\/calendars\/([^/]+)\/events\/watch$/.exec(path);
    if (watch && method === 'POST') {
      requireScope(false);
      const calendarId = decodeURIComponent(watch[1]!) === 'primary' ? email : decodeURIComponent(watch[1]!);
      if (!account.list.some((item) => item.calendarId === calendarId)) throw new GoogleError(404, 'notFound', 'Not Found');
      return this.openChannel(calendarId, objectOf(body));
    }
    const match = /^\/calendars\/([^/]+)(\/events(?:\/([^/]+))?)?$/.exec(path);
    if (!match) throw new GoogleError(404, 'notFound', 'Not Found');
    const calendarId = decodeURIComponent(match[1]!) === 'primary' ? email : decodeURIComponent(match[1]!);
    const entry = account.list.find((item) => item.calendarId === calendarId);
    const calendar = this.calendars.get(calendarId);
    if (!entry || !calendar) throw new GoogleError(404, 'notFound', 'Not Found');
    if (!match[2]) {
      if (method !== 'GET') throw new GoogleError(405, 'httpMethodNotAllowed', 'Method Not Allowed');
      requireScope(false, true);
      return { kind: 'calendar#calendar', etag: `"${this.clock}"`, id: calendar.id, summary: calendar.summary, timeZone: calendar.timeZone };
    }
    const eventId = match[3] ? decodeURIComponent(match[3]) : null;
    const write = method !== 'GET';
    requireScope(write);
    if (write && entry.accessRole !== 'owner' && entry.accessRole !== 'writer') {
      throw new GoogleError(403, 'requiredAccessLevel', 'You need to have writer access to this calendar.');
    }
    if (!eventId && method === 'GET') return this.list(calendar, entry.accessRole, query);
    if (!eventId && method === 'POST') return this.insert(calendar, this.withConference(objectOf(body), query, null));
    if (eventId && method === 'GET') {
      const stored = calendar.events.get(eventId) ?? this.materialize(calendar, eventId);
      if (!stored) throw new GoogleError(404, 'notFound', 'Not Found');
      return stored.resource;
    }
    if (eventId && method === 'PATCH') return this.patch(calendar, eventId, this.withConference(objectOf(body), query, calendar.events.get(eventId)?.resource ?? null), false);
    if (eventId && method === 'PUT') return this.patch(calendar, eventId, this.withConference(objectOf(body), query, calendar.events.get(eventId)?.resource ?? null), true);
    if (eventId && method === 'DELETE') {
      this.remove(calendar, eventId);
      return null;
    }
    throw new GoogleError(405, 'httpMethodNotAllowed', 'Method Not Allowed');
  }

  /** events.watch: Google checks the address is https unless told otherwise; this fake takes http on loopback too. */
  private openChannel(calendarId: string, request: Record<string, unknown>): unknown {
    const { id, type, address, token: channelToken, expiration } = request as { id?: string; type?: string; address?: string; token?: string; expiration?: string };
    if (!id || type !== 'web_hook' || !address) throw new GoogleError(400, 'required', 'Required');
    if (this.channels.has(id)) throw new GoogleError(400, 'channelIdNotUnique', `Channel id ${id} not unique`);
    const longest = Date.now() + 7 * 86_400_000;
    const channel = { id, resourceId: token('res-'), calendarId, address, token: channelToken ?? '', expiration: Math.min(Number(expiration ?? longest) || longest, longest), sent: 0 };
    this.channels.set(id, channel);
    setImmediate(() => void this.notify(channel, 'sync'));
    return { kind: 'api#channel', id, resourceId: channel.resourceId, resourceUri: `${this.url}/calendar/v3/calendars/${encodeURIComponent(calendarId)}/events?alt=json`, token: channel.token, expiration: String(channel.expiration) };
  }

  private async notify(channel: { id: string; resourceId: string; address: string; token: string; expiration: number; sent: number }, state: 'sync' | 'exists'): Promise<void> {
    const headers: Record<string, string> = {
      'x-goog-channel-id': channel.id,
      'x-goog-resource-id': channel.resourceId,
      'x-goog-resource-state': state,
      'x-goog-message-number': String(++channel.sent),
      'x-goog-channel-expiration': new Date(channel.expiration).toUTCString(),
    };
    if (channel.token) headers['x-goog-channel-token'] = channel.token;
    let status = 0;
    try {
      status = (await fetch(channel.address, { method: 'POST', headers })).status;
    } catch {
      // unreachable: Google retries with backoff; this fake records it and moves on
    }
    this.notificationsSent.push({ channelId: channel.id, state, status });
  }

  private calendarList(account: Account, query: Record<string, string>): unknown {
    const items = account.list.map((entry) => {
      const calendar = this.calendars.get(entry.calendarId)!;
      return {
        kind: 'calendar#calendarListEntry',
        etag: `"${this.clock}"`,
        id: calendar.id,
        summary: calendar.summary,
        ...(entry.summaryOverride ? { summaryOverride: entry.summaryOverride } : {}),
        timeZone: calendar.timeZone,
        accessRole: entry.accessRole,
        ...(entry.primary ? { primary: true } : {}),
      };
    });
    return this.page(query, Math.min(Number(query.maxResults ?? 100), 250), items, { kind: 'calendar#calendarList', etag: `"${this.clock}"` });
  }

  /** The first page of `items` (or the page `pageToken` names), with nextPageToken while more remain. */
  private page(query: Record<string, string>, size: number, items: Page['items'], head: Record<string, unknown>, nextSyncToken?: string): unknown {
    let page: Page;
    if (query.pageToken) {
      const found = this.pages.get(query.pageToken);
      if (!found) throw new GoogleError(400, 'invalid', 'Invalid page token value.');
      page = found;
    } else {
      page = { items, offset: 0, size: Math.max(1, Math.min(size, this.options.pageSizeCap ?? Infinity)), head, nextSyncToken };
    }
    const slice = page.items.slice(page.offset, page.offset + page.size);
    const rest = page.offset + page.size < page.items.length;
    const answer: Record<string, unknown> = { ...page.head, items: slice };
    if (rest) {
      const next = token('pg');
      this.pages.set(next, { ...page, offset: page.offset + page.size });
      answer.nextPageToken = next;
    } else if (page.nextSyncToken) {
      answer.nextSyncToken = page.nextSyncToken;
    }
    return answer;
  }

  private list(calendar: Calendar, accessRole: AccessRole, query: Record<string, string>): unknown {
    const single = query.singleEvents === 'true';
    const showDeleted = query.showDeleted === 'true';
    const size = Math.min(Number(query.maxResults ?? 250), 2500);
    const head = {
      kind: 'calendar#events',
      etag: `"${this.clock}"`,
      summary: calendar.summary,
      updated: new Date().toISOString(),
      timeZone: calendar.timeZone,
      accessRole,
      defaultReminders: [],
    };
    const newSyncToken = () => {
      const issued = token('CPj');
      this.syncTokens.set(issued, { calendarId: calendar.id, since: this.clock });
      return issued;
    };
    if (query.pageToken) return this.page(query, size, [], head);
    if (query.syncToken !== undefined) {
      const restricted = ['iCalUID', 'orderBy', 'privateExtendedProperty', 'q', 'sharedExtendedProperty', 'timeMin', 'timeMax', 'updatedMin'];
      if (restricted.some((name) => query[name] !== undefined)) throw new GoogleError(400, 'invalid', 'Sync token cannot be used with other request restrictions.');
      if (query.showDeleted === 'false') throw new GoogleError(400, 'invalid', 'The showDeleted parameter cannot be false with a sync token.');
      const known = this.syncTokens.get(query.syncToken);
      if (!known || known.calendarId !== calendar.id) throw new GoogleError(410, 'fullSyncRequired', 'Sync token is no longer valid, a full sync is required.');
      const changed = [...calendar.events.values()].filter((stored) => stored.changedAt > known.since);
      return this.page(query, size, this.changedItems(calendar, changed, single), head, newSyncToken());
    }
    const timeMin = query.timeMin !== undefined ? rfc3339(query.timeMin, 'timeMin') : -Infinity;
    const timeMax = query.timeMax !== undefined ? rfc3339(query.timeMax, 'timeMax') : Infinity;
    if (timeMax <= timeMin) throw new GoogleError(400, 'timeRangeEmpty', 'The specified time range is empty.', 'calendar');
    const items: GoogleEvent[] = [];
    for (const stored of calendar.events.values()) {
      const event = stored.resource;
      if (query.iCalUID !== undefined && event.iCalUID !== query.iCalUID) continue;
      if (single && event.recurrence) {
        if (event.status !== 'cancelled') items.push(...this.instances(calendar, event, timeMin, timeMax));
        continue;
      }
      if (event.status === 'cancelled' && !showDeleted) continue;
      if (event.status !== 'cancelled' && !overlaps(event, calendar.timeZone, timeMin, timeMax)) continue;
      items.push(clone(event));
    }
    return this.page(query, size, items, head, query.iCalUID === undefined ? newSyncToken() : undefined);
  }

  /** What a syncToken read returns for changed events: with singleEvents, a changed series as its instances. */
  private changedItems(calendar: Calendar, changed: StoredEvent[], single: boolean): GoogleEvent[] {
    const items: GoogleEvent[] = [];
    for (const { resource: event } of changed) {
      if (single && event.recurrence) {
        const instances = this.instances(calendar, event, -Infinity, Date.now() + HORIZON_MS);
        items.push(...(event.status === 'cancelled' ? instances.map((instance) => cancelledStub(instance)) : instances));
        continue;
      }
      items.push(event.status === 'cancelled' ? cancelledStub(event) : clone(event));
    }
    return items;
  }

  // ---- storage ----

  /**
   * conferenceData as Google treats it: ignored (the stored one kept) unless the request says
   * conferenceDataVersion=1; then a createRequest (hangoutsMeet) makes a Meet conference, once per
   * requestId, and sets hangoutLink.
   */
  private withConference(input: Record<string, unknown>, query: Record<string, string>, current: GoogleEvent | null): Record<string, unknown> {
    const { conferenceData, hangoutLink: _ignored, ...rest } = input;
    const kept = current?.conferenceData === undefined ? {} : { conferenceData: current.conferenceData, hangoutLink: current.hangoutLink };
    if (query.conferenceDataVersion !== '1' || conferenceData === undefined) return { ...rest, ...kept };
    const request = (conferenceData as { createRequest?: { requestId?: string; conferenceSolutionKey?: { type?: string } } }).createRequest;
    if (!request) return { ...rest, ...kept };
    if (request.conferenceSolutionKey?.type !== 'hangoutsMeet' || !request.requestId) throw new GoogleError(400, 'invalid', 'Invalid conference type value.');
    const existing = current?.conferenceData as { createRequest?: { requestId?: string } } | undefined;
    if (existing?.createRequest?.requestId === request.requestId) return { ...rest, ...kept };
    this.conferencesMade += 1;
    const code = [3, 4, 3].map((length) => Array.from({ length }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(Math.random() * 26)]).join('')).join('-');
    const uri = `https://meet.google.com/${code}`;
    return {
      ...rest,
      hangoutLink: uri,
      conferenceData: {
        createRequest: { requestId: request.requestId, conferenceSolutionKey: { type: 'hangoutsMeet' }, status: { statusCode: 'success' } },
        entryPoints: [{ entryPointType: 'video', uri, label: uri.slice('https://'.length) }],
        conferenceSolution: { key: { type: 'hangoutsMeet' }, name: 'Google Meet' },
        conferenceId: code,
      },
    };
  }

  private insert(calendar: Calendar, input: Record<string, unknown>): GoogleEvent {
    const event = input as Partial<GoogleEvent>;
    checkTimes(event);
    const id = typeof event.id === 'string' ? event.id : base32hex();
    const taken = [...calendar.events.values()].some(
      ({ resource }) => resource.id === id || (event.iCalUID !== undefined && resource.iCalUID === event.iCalUID && !resource.recurringEventId),
    );
    if (taken) throw new GoogleError(409, 'duplicate', 'The requested identifier already exists.');
    const now = new Date().toISOString();
    const resource: GoogleEvent = {
      kind: 'calendar#event',
      ...clone(event),
      id,
      status: event.status ?? 'confirmed',
      iCalUID: event.iCalUID ?? `${id}@google.com`,
      sequence: event.sequence ?? 0,
      htmlLink: `https://www.google.com/calendar/event?eid=${id}`,
      created: now,
      creator: { email: calendar.owner, self: true },
      // Google makes the calendar the organizer of what is inserted; a test may add an invitation.
      organizer: event.organizer ?? { email: calendar.id, self: true },
      eventType: 'default',
    };
    this.store(calendar, resource);
    return resource;
  }

  private patch(calendar: Calendar, eventId: string, changes: Record<string, unknown>, replace: boolean): GoogleEvent {
    const stored = calendar.events.get(eventId) ?? this.materialize(calendar, eventId);
    if (!stored) throw new GoogleError(404, 'notFound', 'Not Found');
    const current = stored.resource;
    // What a write cannot change.
    const kept: Partial<GoogleEvent> = {};
    for (const field of ['kind', 'id', 'iCalUID', 'created', 'creator', 'organizer', 'htmlLink', 'eventType', 'recurringEventId', 'originalStartTime']) {
      kept[field] = current[field];
    }
    const next = (replace ? { status: 'confirmed', ...clone(changes), ...kept } : { ...current, ...clone(changes), ...kept }) as GoogleEvent;
    for (const key of Object.keys(next)) if (next[key] === undefined) delete next[key];
    checkTimes(next);
    this.store(calendar, next);
    return next;
  }

  private remove(calendar: Calendar, eventId: string): void {
    const stored = calendar.events.get(eventId) ?? this.materialize(calendar, eventId);
    if (!stored) throw new GoogleError(404, 'notFound', 'Not Found');
    if (stored.resource.status === 'cancelled') throw new GoogleError(410, 'deleted', 'Resource has been deleted');
    this.store(calendar, { ...stored.resource, status: 'cancelled' });
    if (stored.resource.recurrence) {
      for (const other of calendar.events.values()) {
        if (other.resource.recurringEventId === eventId && other.resource.status !== 'cancelled') this.store(calendar, { ...other.resource, status: 'cancelled' });
      }
    }
  }

  private store(calendar: Calendar, resource: GoogleEvent): void {
    this.clock += 1;
    resource.etag = `"${this.clock}"`;
    resource.updated = new Date().toISOString();
    markSelf(resource, calendar.owner);
    calendar.events.set(resource.id, { resource, changedAt: this.clock });
    for (const channel of this.channels.values()) {
      if (channel.calendarId === calendar.id && channel.expiration > Date.now()) setImmediate(() => void this.notify(channel, 'exists'));
    }
  }

  /** An instance of a series as a stored exception (the first edit or deletion of that instance). */
  private materialize(calendar: Calendar, instanceId: string): StoredEvent | undefined {
    const cut = instanceId.lastIndexOf('_');
    const master = cut > 0 ? calendar.events.get(instanceId.slice(0, cut))?.resource : undefined;
    if (!master?.recurrence || master.status === 'cancelled') return undefined;
    const instance = this.instances(calendar, master, -Infinity, Date.now() + HORIZON_MS).find((item) => item.id === instanceId);
    if (!instance) return undefined;
    this.store(calendar, instance);
    return calendar.events.get(instanceId);
  }

  /**
   * The instances of a series starting before `until` and ending after `from`, exceptions left out
   * (they are stored events of their own). The RRULE is stepped on the wall clock of the event's zone,
   * so a 09:00 weekly meeting stays at 09:00 across a DST change.
   */
  private instances(calendar: Calendar, master: GoogleEvent, from: number, until: number): GoogleEvent[] {
    const rule = master.recurrence?.find((line) => line.startsWith('RRULE:'));
    if (!rule || !master.start || !master.end) return [];
    const allDay = master.start.date !== undefined;
    const zone = master.start.timeZone ?? calendar.timeZone;
    const startMs = epochOf(master.start, calendar.timeZone);
    const lengthMs = epochOf(master.end, calendar.timeZone) - startMs;
    const wall = new Date(startMs + (allDay ? 0 : offsetMinutes(zone, startMs) * 60_000));
    const dtstart = allDay
      ? ICAL.Time.fromDateString(master.start.date!)
      : ICAL.Time.fromData({
          year: wall.getUTCFullYear(),
          month: wall.getUTCMonth() + 1,
          day: wall.getUTCDate(),
          hour: wall.getUTCHours(),
          minute: wall.getUTCMinutes(),
          second: wall.getUTCSeconds(),
          isDate: false,
        });
    const iterator = ICAL.Recur.fromString(rule.slice('RRULE:'.length)).iterator(dtstart);
    const { recurrence: _recurrence, ...fields } = master;
    const out: GoogleEvent[] = [];
    for (let count = 0; count < MAX_INSTANCES; count++) {
      const next = iterator.next();
      if (!next) break;
      const at = allDay
        ? zonedToEpoch(calendar.timeZone, next.year, next.month, next.day, 0)
        : zonedToEpoch(zone, next.year, next.month, next.day, next.hour * 60 + next.minute) + next.second * 1000;
      if (at >= until) break;
      const end = at + lengthMs;
      if (end <= from) continue;
      const id = `${master.id}_${allDay ? next.toString().replace(/-/g, '') : new Date(at).toISOString().replace(/[-:]|\.\d{3}/g, '')}`;
      if (calendar.events.has(id)) continue;
      const start: EventTime = allDay ? { date: next.toString() } : { dateTime: rfc3339Of(at, zone), timeZone: zone };
      const endTime: EventTime = allDay ? { date: addDays(next.toString(), Math.round(lengthMs / 86_400_000)) } : { dateTime: rfc3339Of(end, zone), timeZone: zone };
      out.push({ ...clone(fields), id, recurringEventId: master.id, originalStartTime: start, start, end: endTime });
    }
    return out;
  }

  private account(email: string): Account {
    const account = this.accounts.get(email);
    if (!account) throw new Error(`no account ${email}`);
    return account;
  }

  private calendar(id: string): Calendar {
    const calendar = this.calendars.get(id);
    if (!calendar) throw new Error(`no calendar ${id}`);
    return calendar;
  }
}

export async function startFakeGoogle(options: FakeGoogleOptions): Promise<FakeGoogle> {
  return new FakeGoogle(options).start();
}

function failureError(failure: Failure): GoogleError {
  const headers: Record<string, string> = failure.retryAfter ? { 'retry-after': failure.retryAfter } : {};
  if (failure.status === 401) return new GoogleError(401, failure.reason ?? 'authError', 'Invalid Credentials', 'global', headers);
  if (failure.status === 403 || failure.status === 429) {
    const reason = failure.reason ?? 'rateLimitExceeded';
    const usage = /RateLimit|quota/i.test(reason);
    return new GoogleError(failure.status, reason, usage ? 'Rate Limit Exceeded' : 'Forbidden', usage ? 'usageLimits' : 'global', headers);
  }
  return new GoogleError(failure.status, failure.reason ?? 'backendError', 'Backend Error', 'global', headers);
}

function json(res: http.ServerResponse, status: number, body: unknown, empty = false): void {
  if (empty) return void res.writeHead(204).end();
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function objectOf(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new GoogleError(400, 'parseError', 'Parse Error');
  return body as Record<string, unknown>;
}

/** timeMin/timeMax: RFC 3339 with a mandatory offset. */
function rfc3339(value: string, name: string): number {
  const at = Date.parse(value);
  if (!/(Z|[+-]\d{2}:\d{2})$/i.test(value) || !Number.isFinite(at)) throw new GoogleError(400, 'invalid', `Invalid value for: ${name}`);
  return at;
}

function rfc3339Of(at: number, zone: string): string {
  return formatWithOffset(at, zone).replace(/\.\d{3}(?=[+-])/, '');
}

function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

/** An all-day date is the calendar's midnight; a dateTime names its instant. */
function epochOf(time: EventTime, calendarZone: string): number {
  if (time.dateTime !== undefined) return Date.parse(time.dateTime);
  const [year, month, day] = (time.date ?? '').split('-').map(Number) as [number, number, number];
  return zonedToEpoch(calendarZone, year, month, day, 0);
}

function overlaps(event: GoogleEvent, calendarZone: string, timeMin: number, timeMax: number): boolean {
  if (!event.start || !event.end) return false;
  return epochOf(event.end, calendarZone) > timeMin && epochOf(event.start, calendarZone) < timeMax;
}

function checkTimes(event: Partial<GoogleEvent>): void {
  for (const name of ['start', 'end'] as const) {
    const time = event[name];
    if (!time || (time.dateTime === undefined && time.date === undefined)) throw new GoogleError(400, 'required', `Missing ${name} time.`);
    if (time.dateTime !== undefined && !Number.isFinite(Date.parse(time.dateTime))) throw new GoogleError(400, 'invalid', `Invalid ${name} time.`);
    if (time.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(time.date)) throw new GoogleError(400, 'invalid', `Invalid ${name} time.`);
  }
  const start = event.start!;
  const end = event.end!;
  const startKey = start.dateTime !== undefined ? Date.parse(start.dateTime) : Date.parse(start.date!);
  const endKey = end.dateTime !== undefined ? Date.parse(end.dateTime) : Date.parse(end.date!);
  if (endKey < startKey) throw new GoogleError(400, 'timeRangeEmpty', 'The specified time range is empty.', 'calendar');
}

/** The calendar owner's attendee entry carries self, the organizer's entry organizer. */
function markSelf(event: GoogleEvent, owner: string): void {
  if (!event.attendees) return;
  event.attendees = event.attendees.map((attendee) => {
    const email = attendee.email.toLowerCase();
    const organizer = email === (event.organizer?.email ?? '').toLowerCase();
    return {
      ...attendee,
      responseStatus: attendee.responseStatus ?? 'needsAction',
      ...(email === owner.toLowerCase() ? { self: true } : {}),
      ...(organizer ? { organizer: true } : {}),
    };
  });
}

/** A deleted event in a sync read: little beyond its id and status. */
function cancelledStub(event: GoogleEvent): GoogleEvent {
  return {
    kind: 'calendar#event',
    etag: event.etag,
    id: event.id,
    status: 'cancelled',
    ...(event.recurringEventId ? { recurringEventId: event.recurringEventId, originalStartTime: event.originalStartTime } : {}),
  };
}
