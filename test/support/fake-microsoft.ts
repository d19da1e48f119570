// A local Microsoft identity platform + Microsoft Graph v1.0 for the calendar adapter's tests: the subset
// svc uses, answering as Microsoft documents it (OAuth 2.0 authorization code flow on
// /common/oauth2/v2.0/{authorize,token}; /me; /me/onlineMeetings (Teams); /me/calendars; calendarView/delta with server-driven
// paging, delta links and @removed; event create with transactionId, update, delete; Graph's JSON
// error bodies). One mailbox, on 127.0.0.1, on a free port.
//
// Where it is stricter than Microsoft, on purpose:
// - A used refresh token stops working (Microsoft rotates refresh tokens but leaves the old ones valid
//   until they expire): a client that kept the old one fails here. `keepOldRefreshTokens` gives the
//   documented behaviour.
// - Times in a Prefer: outlook.timezone other than UTC are given for IANA and Windows names only.
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WINDOWS_ZONES } from '../../src/integrations/ics/ics-zones.js';

export interface FakeMicrosoftOptions {
  clientId?: string;
  clientSecret?: string;
  redirectUri?: string;
  /** expires_in of access tokens, seconds (Microsoft's are about an hour). */
  accessTokenLifetimeSeconds?: number;
  /** The most items one page holds, whatever odata.maxpagesize asks (server-driven paging). */
  pageSize?: number;
  user?: { mail: string | null; userPrincipalName: string; displayName?: string };
  keepOldRefreshTokens?: boolean;
  /**
   * An app registered in the organization's tenant with application permissions: the client credentials
   * grant at /login/{tenantId}/oauth2/v2.0/token gives app-only tokens, which reach the mailbox at
   * /users/{mail or userPrincipalName} (and not at /me, as Graph answers app-only tokens).
   */
  tenantApp?: { tenantId: string; clientId: string; clientSecret: string };
}

/** An event as the user would make it in Outlook (helpers below), in absolute time. */
export interface FakeEventInput {
  subject?: string;
  /** Epoch ms; for all-day events use `allDay` instead. */
  start?: number;
  end?: number;
  /** An all-day event: dates (end exclusive) and the zone whose midnights bound it. */
  allDay?: { startDate: string; endDate: string; zone: string };
  /** As Graph reports it (a Windows or IANA name); defaults to the all-day zone or "UTC". */
  originalStartTimeZone?: string;
  showAs?: 'free' | 'tentative' | 'busy' | 'oof' | 'workingElsewhere' | 'unknown';
  isCancelled?: boolean;
  /** The owner's response: organizer, accepted, tentativelyAccepted, declined, notResponded, none. */
  response?: string;
  type?: 'singleInstance' | 'occurrence' | 'exception' | 'seriesMaster';
  seriesMasterId?: string;
  iCalUId?: string;
}

export interface StoredEvent {
  id: string;
  calendarId: string;
  subject: string;
  body: { contentType: string; content: string };
  start: number;
  end: number;
  allDay: { startDate: string; endDate: string } | null;
  /** The zone start/end were written in (a Windows or IANA name, or UTC). */
  originalStartTimeZone: string;
  originalEndTimeZone: string;
  showAs: string;
  /** normal, personal, private or confidential (Graph's event.sensitivity). */
  sensitivity: string;
  isCancelled: boolean;
  response: string;
  type: string;
  seriesMasterId: string | null;
  iCalUId: string;
  transactionId: string | null;
  location: string;
  attendees: { emailAddress: { address: string; name?: string }; type: string }[];
  changeKey: string;
  createdDateTime: string;
  lastModifiedDateTime: string;
  /** The change sequence number of its last change (delta tokens remember one). */
  changedAt: number;
}

export interface OnlineMeeting {
  id: string;
  subject: string;
  start: number;
  end: number;
  joinWebUrl: string;
  joinMeetingId: string;
  passcode: string;
}

export interface FakeCalendar {
  id: string;
  name: string;
  isDefaultCalendar: boolean;
  canEdit: boolean;
}

/** What the next matching call answers instead of its own answer. */
export interface Failure {
  status: number;
  /** Retry-After, seconds. */
  retryAfterSeconds?: number;
  /** Graph's error code; a usual one for the status by default. */
  code?: string;
  /** Do the work first, then answer the failure (the client never learns it was done). */
  afterHandling?: boolean;
  /** Which server: Graph (default) or the token endpoint. */
  target?: 'api' | 'token';
  /** This exact body (sent as application/json) instead of an error body: for answers that break the protocol. */
  rawBody?: string;
}

export interface RecordedRequest {
  method: string;
  /** Path below the Graph base ("/v1.0/me/calendars"), or the login path. */
  path: string;
  query: URLSearchParams;
  prefer: string | null;
  accessToken: string | null;
  json: unknown;
}

export interface FakeMicrosoft {
  baseUrl: string;
  endpoints: { authorize: string; token: string; api: string };
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  defaultCalendarId: string;
  /** Every Graph request, in order. */
  requests: RecordedRequest[];
  /** Every token request's grant_type, in order. */
  tokenGrants: string[];
  /** Query parameters of every authorize request. */
  authorizeRequests: URLSearchParams[];
  /** Invitation mails Exchange would have sent (one per attendee of a created or changed event). */
  invitationsSent: string[];
  /** Subscriptions alive now (POST /subscriptions, after the notification URL answered the validation). */
  subscriptions: Map<string, { id: string; calendarId: string; notificationUrl: string; lifecycleNotificationUrl: string | null; clientState: string; expiration: number }>;
  /** Teams meetings of the user (POST /me/onlineMeetings), by id. */
  onlineMeetings: Map<string, OnlineMeeting>;
  /** Every change notification posted, with svc's answer (0: it could not be reached). */
  notificationsSent: { subscriptionId: string; changeType: string; status: number }[];
  /**
   * Posts a lifecycle notification of the subscription to its lifecycleNotificationUrl (none without one)
   * and answers svc's status; `subscriptionRemoved` removes the subscription first, as Graph does.
   */
  sendLifecycle(subscriptionId: string, lifecycleEvent: 'subscriptionRemoved' | 'reauthorizationRequired' | 'missed'): Promise<number | null>;
  now(): number;
  advanceClock(ms: number): void;
  failNext(count: number, failure: Failure): void;
  /** The user withdraws consent: every token stops working. */
  revokeConsent(): void;
  /** Access tokens stop working before their expires_in (revocation, clock skew). */
  expireAccessTokens(): void;
  /** Every delta and skip token issued so far expires; `mode` picks Graph's answer to them. */
  expireDeltaTokens(mode: 'gone' | 'syncStateNotFound'): void;
  addCalendar(calendar: { name: string; isDefaultCalendar?: boolean; canEdit?: boolean }): string;
  addEvent(calendarId: string, event: FakeEventInput): string;
  editEvent(eventId: string, changes: Partial<FakeEventInput>): void;
  removeEvent(eventId: string): void;
  event(eventId: string): StoredEvent | undefined;
  events(calendarId: string): StoredEvent[];
  /** Whether a refresh token is accepted by the token endpoint now. */
  refreshTokenWorks(token: string): boolean;
  close(): Promise<void>;
}

const LOGIN_PREFIX = '/login/common/oauth2/v2.0';
const GRAPH_PREFIX = '/graph';

interface DeltaToken {
  calendarId: string;
  from: number;
  to: number;
  /** skip: the rest of a round's entries; delta: changes after `seq`. */
  kind: 'skip' | 'delta';
  entries: string[];
  offset: number;
  seq: number;
  expired: 'gone' | 'syncStateNotFound' | null;
}

class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const random = (bytes = 18) => randomBytes(bytes).toString('base64url');

/** Graph-looking ids, with "+" and "/" in them as Outlook's (non-immutable) ids can have: clients must encode them. */
const outlookId = () => `AAMk${randomBytes(12).toString('base64')}+/${randomBytes(6).toString('base64')}=`;

export async function startFakeMicrosoft(options: FakeMicrosoftOptions = {}): Promise<FakeMicrosoft> {
  const clientId = options.clientId ?? '6731de76-14a6-49ae-97bc-6eba6914391e';
  const clientSecret = options.clientSecret ?? `secret~${random(24)}`;
  const redirectUri = options.redirectUri ?? 'https://svc.example/v2/calendars/office365/save';
  const lifetime = options.accessTokenLifetimeSeconds ?? 3599;
  const pageSize = options.pageSize ?? 10;
  const user = options.user ?? { mail: 'megan.bowen@contoso.example', userPrincipalName: 'meganb@contoso.onmicrosoft.example', displayName: 'Megan Bowen' };

  let clockOffset = 0;
  const now = () => Date.now() + clockOffset;
  let seq = 0;
  const codes = new Map<string, { redirectUri: string; scope: string; used: boolean }>();
  const accessTokens = new Map<string, { expiresAt: number; appOnly?: boolean; scope?: string }>();
  const onlineMeetings = new Map<string, OnlineMeeting>();
  const refreshTokens = new Map<string, { active: boolean; scope: string }>();
  const calendars: FakeCalendar[] = [];
  const events = new Map<string, StoredEvent>();
  const tombstones: { id: string; calendarId: string; deletedAt: number }[] = [];
  const transactions = new Map<string, string>();
  const deltaTokens = new Map<string, DeltaToken>();
  const failures: Failure[] = [];
  const requests: RecordedRequest[] = [];
  const tokenGrants: string[] = [];
  const authorizeRequests: URLSearchParams[] = [];
  const invitationsSent: string[] = [];
  const subscriptions = new Map<string, { id: string; calendarId: string; notificationUrl: string; lifecycleNotificationUrl: string | null; clientState: string; expiration: number }>();
  const notificationsSent: { subscriptionId: string; changeType: string; status: number }[] = [];

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, graphErrorBody('generalException', error instanceof Error ? error.message : String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const apiBase = `${baseUrl}${GRAPH_PREFIX}`;

  function addCalendar(calendar: { name: string; isDefaultCalendar?: boolean; canEdit?: boolean }): string {
    const id = outlookId();
    calendars.push({ id, name: calendar.name, isDefaultCalendar: calendar.isDefaultCalendar ?? false, canEdit: calendar.canEdit ?? true });
    return id;
  }
  const defaultCalendarId = addCalendar({ name: 'Calendar', isDefaultCalendar: true });

  // -------------------------------------------------------------------------------------------------
  // HTTP

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', baseUrl);
    const raw = await readBody(req);
    if (url.pathname === `${LOGIN_PREFIX}/authorize` && req.method === 'GET') return authorize(url, res);
    if (url.pathname === `${LOGIN_PREFIX}/token` && req.method === 'POST') return token(req, raw, res);
    if (options.tenantApp && url.pathname === `/login/${options.tenantApp.tenantId}/oauth2/v2.0/token` && req.method === 'POST') return appToken(raw, res);
    if (url.pathname.startsWith(`${GRAPH_PREFIX}/v1.0/`)) return graph(req, url, raw, res);
    sendJson(res, 404, graphErrorBody('ResourceNotFound', 'Resource not found.'));
  }

  function takeFailure(target: 'api' | 'token'): Failure | null {
    const index = failures.findIndex((failure) => (failure.target ?? 'api') === target);
    if (index < 0) return null;
    return failures.splice(index, 1)[0]!;
  }

  function sendFailure(res: http.ServerResponse, failure: Failure): void {
    const headers: Record<string, string> = {};
    if (failure.retryAfterSeconds !== undefined) headers['retry-after'] = String(failure.retryAfterSeconds);
    if (failure.rawBody !== undefined) {
      res.writeHead(failure.status, { 'content-type': 'application/json', ...headers });
      res.end(failure.rawBody);
      return;
    }
    if (failure.target === 'token') {
      const error = failure.code ?? (failure.status >= 500 ? 'temporarily_unavailable' : 'invalid_request');
      sendJson(res, failure.status, tokenErrorBody(error, 'AADSTS90033: A transient error has occurred. Please try again.', 90033), headers);
      return;
    }
    const defaults: Record<number, [string, string]> = {
      401: ['InvalidAuthenticationToken', 'Access token has expired or is not yet valid.'],
      403: ['ErrorAccessDenied', 'Access is denied. Check credentials and try again.'],
      429: ['TooManyRequests', 'Application is over its MailboxConcurrency limit.'],
      500: ['generalException', 'An unexpected error occurred.'],
      503: ['serviceNotAvailable', 'The service is temporarily unavailable.'],
    };
    const [code, message] = defaults[failure.status] ?? ['BadRequest', 'The request failed.'];
    if (failure.status === 401) headers['www-authenticate'] = bearerChallenge();
    sendJson(res, failure.status, graphErrorBody(failure.code ?? code, message), headers);
  }

  // -------------------------------------------------------------------------------------------------
  // Microsoft identity platform

  function authorize(url: URL, res: http.ServerResponse): void {
    authorizeRequests.push(url.searchParams);
    const params = url.searchParams;
    // Microsoft shows its own error page (no redirect) for an unknown app or an unregistered redirect URI.
    if (params.get('client_id') !== clientId) return sendHtml(res, 400, 'AADSTS700016: Application not found in the directory.');
    if (params.get('redirect_uri') !== redirectUri) return sendHtml(res, 400, 'AADSTS50011: The redirect URI specified in the request does not match.');
    const back = new URL(redirectUri);
    const state = params.get('state');
    if (params.get('response_type') !== 'code') {
      back.searchParams.set('error', 'unsupported_response_type');
      if (state !== null) back.searchParams.set('state', state);
      return redirect(res, back.href);
    }
    // The user signs in and consents to everything asked.
    const code = `M.C${random(32)}`;
    codes.set(code, { redirectUri, scope: params.get('scope') ?? '', used: false });
    back.searchParams.set('code', code);
    if (state !== null) back.searchParams.set('state', state);
    redirect(res, back.href);
  }

  function token(req: http.IncomingMessage, raw: string, res: http.ServerResponse): void {
    const failure = takeFailure('token');
    if (failure) return sendFailure(res, failure);
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return sendJson(res, 400, tokenErrorBody('invalid_request', "AADSTS900144: The request body must contain the following parameter: 'grant_type'.", 900144));
    }
    const form = new URLSearchParams(raw);
    const grant = form.get('grant_type') ?? '';
    tokenGrants.push(grant);
    if (form.get('client_id') !== clientId) {
      return sendJson(res, 400, tokenErrorBody('unauthorized_client', `AADSTS700016: Application with identifier '${form.get('client_id')}' was not found.`, 700016));
    }
    if (form.get('client_secret') !== clientSecret) {
      return sendJson(res, 401, tokenErrorBody('invalid_client', 'AADSTS7000215: Invalid client secret provided.', 7000215));
    }
    let scope: string;
    if (grant === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      if (!code) return sendJson(res, 400, tokenErrorBody('invalid_grant', 'AADSTS70008: The provided authorization code or refresh token has expired.', 70008));
      if (code.used) return sendJson(res, 400, tokenErrorBody('invalid_grant', 'AADSTS54005: OAuth2 Authorization code was already redeemed.', 54005));
      if (form.get('redirect_uri') !== code.redirectUri) {
        return sendJson(res, 400, tokenErrorBody('invalid_grant', 'AADSTS50148: The redirect_uri does not match the one in the authorization request.', 50148));
      }
      code.used = true;
      scope = code.scope;
    } else if (grant === 'refresh_token') {
      const presented = form.get('refresh_token') ?? '';
      const known = refreshTokens.get(presented);
      if (!known || !known.active) {
        return sendJson(res, 400, tokenErrorBody('invalid_grant', 'AADSTS70000: The provided value for the input parameter refresh_token is not valid.', 70000));
      }
      if (!options.keepOldRefreshTokens) known.active = false;
      scope = known.scope;
    } else {
      return sendJson(res, 400, tokenErrorBody('unsupported_grant_type', `AADSTS70003: The app requested an unsupported grant type '${grant}'.`, 70003));
    }
    const accessToken = `eyJ0eXAiOiJKV1Qi.${random(48)}`;
    accessTokens.set(accessToken, { expiresAt: now() + lifetime * 1000, scope });
    const answer: Record<string, unknown> = {
      token_type: 'Bearer',
      scope: scope
        .split(' ')
        .filter((name) => name !== 'offline_access' && name !== '')
        .join(' '),
      expires_in: lifetime,
      ext_expires_in: lifetime,
      access_token: accessToken,
    };
    if (scope.split(' ').includes('offline_access')) {
      const refreshToken = `M.R3_BAY.${random(64)}`;
      refreshTokens.set(refreshToken, { active: true, scope });
      answer.refresh_token = refreshToken;
    }
    sendJson(res, 200, answer);
  }

  function appToken(raw: string, res: http.ServerResponse): void {
    const app = options.tenantApp!;
    const form = new URLSearchParams(raw);
    const grant = form.get('grant_type') ?? '';
    tokenGrants.push(grant);
    if (grant !== 'client_credentials') return sendJson(res, 400, tokenErrorBody('unsupported_grant_type', `AADSTS70003: The app requested an unsupported grant type '${grant}'.`, 70003));
    if (form.get('client_id') !== app.clientId) {
      return sendJson(res, 400, tokenErrorBody('unauthorized_client', `AADSTS700016: Application with identifier '${form.get('client_id')}' was not found in the directory.`, 700016));
    }
    if (form.get('client_secret') !== app.clientSecret) return sendJson(res, 401, tokenErrorBody('invalid_client', 'AADSTS7000215: Invalid client secret provided.', 7000215));
    if (form.get('scope') !== 'https://graph.microsoft.com/.default') {
      return sendJson(res, 400, tokenErrorBody('invalid_scope', 'AADSTS1002012: The provided value for scope is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier.', 1002012));
    }
    const accessToken = `eyJ0eXAiOiJKV1Qi.app.${random(48)}`;
    accessTokens.set(accessToken, { expiresAt: now() + lifetime * 1000, appOnly: true });
    sendJson(res, 200, { token_type: 'Bearer', expires_in: lifetime, ext_expires_in: lifetime, access_token: accessToken });
  }

  // -------------------------------------------------------------------------------------------------
  // Microsoft Graph

  async function graph(req: http.IncomingMessage, url: URL, raw: string, res: http.ServerResponse): Promise<void> {
    const path = url.pathname.slice(GRAPH_PREFIX.length);
    const authorization = req.headers.authorization ?? '';
    const accessToken = /^Bearer (.+)$/i.exec(authorization)?.[1] ?? null;
    let json: unknown = null;
    if (raw !== '') {
      try {
        json = JSON.parse(raw);
      } catch {
        json = raw;
      }
    }
    const prefer = req.headers.prefer === undefined ? null : String(req.headers.prefer);
    requests.push({ method: req.method ?? 'GET', path, query: url.searchParams, prefer, accessToken, json });
    const failure = takeFailure('api');
    if (failure && !failure.afterHandling) return sendFailure(res, failure);
    try {
      const known = accessToken ? accessTokens.get(accessToken) : undefined;
      if (!known || known.expiresAt <= now()) {
        throw new GraphError(
          401,
          'InvalidAuthenticationToken',
          accessToken ? 'Access token has expired or is not yet valid.' : 'Access token is empty.',
          { 'www-authenticate': bearerChallenge() },
        );
      }
      const answer =
        path === '/v1.0/subscriptions' || path.startsWith('/v1.0/subscriptions/')
          ? await subscriptionRoute(req.method ?? 'GET', path, json, known.appOnly === true)
          : path === '/v1.0/me/onlineMeetings' || path.startsWith('/v1.0/me/onlineMeetings/')
            ? onlineMeetingRoute(req.method ?? 'GET', path, json, known.scope ?? '')
            : route(req.method ?? 'GET', mailboxPath(path, known.appOnly === true), url, json, prefer);
      if (failure) return sendFailure(res, failure);
      sendJson(res, answer.status, answer.body);
    } catch (error) {
      if (!(error instanceof GraphError)) throw error;
      sendJson(res, error.status, graphErrorBody(error.code, error.message), error.headers);
    }
  }

  /**
   * Online meetings of the signed-in user (Teams), as Graph documents them: the delegated permission
   * OnlineMeetings.ReadWrite, create with start, end and subject, PATCH, DELETE; the join link stays.
   */
  function onlineMeetingRoute(method: string, path: string, json: unknown, scope: string): { status: number; body: unknown } {
    if (!scope.split(' ').includes('OnlineMeetings.ReadWrite')) throw new GraphError(403, 'Forbidden', 'Application does not have permission to create online meetings on behalf of this user.');
    const id = path.split('/')[4];
    const fields = (json ?? {}) as { startDateTime?: unknown; endDateTime?: unknown; subject?: unknown };
    const parsed = (value: unknown) => (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN);
    const check = (meeting: OnlineMeeting) => {
      if (!Number.isFinite(meeting.start) || !Number.isFinite(meeting.end) || meeting.end <= meeting.start) throw new GraphError(400, 'BadRequest', 'Invalid meeting start or end time.');
    };
    const view = (meeting: OnlineMeeting) => ({
      id: meeting.id,
      subject: meeting.subject,
      startDateTime: new Date(meeting.start).toISOString(),
      endDateTime: new Date(meeting.end).toISOString(),
      joinUrl: meeting.joinWebUrl,
      joinWebUrl: meeting.joinWebUrl,
      joinMeetingIdSettings: { joinMeetingId: meeting.joinMeetingId, passcode: meeting.passcode },
    });
    if (id === undefined && method === 'POST') {
      const meeting: OnlineMeeting = {
        id: `MSpkYzE3${random(30)}`,
        subject: typeof fields.subject === 'string' ? fields.subject : '',
        start: parsed(fields.startDateTime),
        end: parsed(fields.endDateTime),
        joinWebUrl: `https://teams.microsoft.example/l/meetup-join/19%3ameeting_${random(24)}%40thread.v2/0`,
        joinMeetingId: String(Math.floor(100_000_000_000 + Math.random() * 800_000_000_000)),
        passcode: random(4),
      };
      check(meeting);
      onlineMeetings.set(meeting.id, meeting);
      return { status: 201, body: view(meeting) };
    }
    const meeting = id === undefined ? undefined : onlineMeetings.get(decodeURIComponent(id));
    if (!meeting) throw new GraphError(404, 'NotFound', 'The requested resource does not exist.');
    if (method === 'GET') return { status: 200, body: view(meeting) };
    if (method === 'DELETE') {
      onlineMeetings.delete(meeting.id);
      return { status: 204, body: null };
    }
    if (method === 'PATCH') {
      const changed = { ...meeting };
      if (fields.subject !== undefined) changed.subject = String(fields.subject);
      if (fields.startDateTime !== undefined) changed.start = parsed(fields.startDateTime);
      if (fields.endDateTime !== undefined) changed.end = parsed(fields.endDateTime);
      check(changed);
      onlineMeetings.set(meeting.id, changed);
      return { status: 200, body: view(changed) };
    }
    throw new GraphError(405, 'MethodNotAllowed', 'Method not allowed.');
  }

  /**
   * Subscriptions to a calendar's events, as Graph documents them: the resource names the calendar
   * (`me/...` with a delegated token, `users/{address}/...`), at most 4,230 minutes, and the notification
   * URL must echo a validation token (text/plain, 200) before the subscription exists.
   */
  async function subscriptionRoute(method: string, path: string, json: unknown, appOnly: boolean): Promise<{ status: number; body: unknown }> {
    const id = path.split('/')[3];
    if (id !== undefined) {
      const known = subscriptions.get(decodeURIComponent(id));
      if (!known) throw new GraphError(404, 'ResourceNotFound', 'The object was not found.');
      if (method === 'DELETE') {
        subscriptions.delete(known.id);
        return { status: 204, body: null };
      }
      throw new GraphError(405, 'MethodNotAllowed', 'Method not allowed.');
    }
    if (method !== 'POST') throw new GraphError(405, 'MethodNotAllowed', 'Method not allowed.');
    const body = (json ?? {}) as { changeType?: string; notificationUrl?: string; lifecycleNotificationUrl?: string; resource?: string; expirationDateTime?: string; clientState?: string };
    const match = /^(?:me|users\/([^/]+))\/calendars\/([^/]+)\/events$/.exec(body.resource ?? '');
    if (!match || !body.notificationUrl || !body.changeType) throw new GraphError(400, 'InvalidRequest', 'Subscription request is missing resource, notificationUrl or changeType.');
    if (appOnly && !match[1]) throw new GraphError(400, 'ExtensionError', 'Operation: Create; Exception: [/me is not valid with app-only authentication]');
    const calendar = calendarOf(decodeURIComponent(match[2]!));
    const expiration = Date.parse(body.expirationDateTime ?? '');
    if (!Number.isFinite(expiration) || expiration > now() + 4230 * 60_000) {
      throw new GraphError(400, 'ExtensionError', 'Subscription expiration can only be 4230 minutes in the future.');
    }
    // Both endpoints are validated, even when they are the same address.
    for (const address of [body.notificationUrl, ...(body.lifecycleNotificationUrl ? [body.lifecycleNotificationUrl] : [])]) {
      const validationToken = random(24);
      let echoed = '';
      try {
        const answer = await fetch(`${address}?validationToken=${encodeURIComponent(validationToken)}`, { method: 'POST', headers: { 'content-type': 'text/plain; charset=utf-8' } });
        echoed = answer.status === 200 ? await answer.text() : '';
      } catch {
        // unreachable
      }
      if (echoed !== validationToken) {
        throw new GraphError(400, 'ValidationError', 'Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request.');
      }
    }
    const subscription = {
      id: randomUUID(),
      calendarId: calendar.id,
      notificationUrl: body.notificationUrl,
      lifecycleNotificationUrl: body.lifecycleNotificationUrl ?? null,
      clientState: body.clientState ?? '',
      expiration,
    };
    subscriptions.set(subscription.id, subscription);
    return {
      status: 201,
      body: { id: subscription.id, resource: body.resource, changeType: body.changeType, clientState: body.clientState ?? null, notificationUrl: body.notificationUrl, expirationDateTime: new Date(expiration).toISOString() },
    };
  }

  async function sendLifecycle(subscriptionId: string, lifecycleEvent: 'subscriptionRemoved' | 'reauthorizationRequired' | 'missed'): Promise<number | null> {
    const subscription = subscriptions.get(subscriptionId);
    if (!subscription?.lifecycleNotificationUrl) return null;
    if (lifecycleEvent === 'subscriptionRemoved') subscriptions.delete(subscriptionId);
    const value = [
      { subscriptionId, subscriptionExpirationDateTime: new Date(subscription.expiration).toISOString(), tenantId: randomUUID(), clientState: subscription.clientState, lifecycleEvent },
    ];
    const answer = await fetch(subscription.lifecycleNotificationUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value }) });
    await answer.arrayBuffer();
    return answer.status;
  }

  function changed(calendarId: string, eventId: string, changeType: 'created' | 'updated' | 'deleted'): void {
    for (const subscription of subscriptions.values()) {
      if (subscription.calendarId !== calendarId || subscription.expiration <= now()) continue;
      setImmediate(() => {
        const value = [{ subscriptionId: subscription.id, clientState: subscription.clientState, changeType, resource: `Users/${user.userPrincipalName}/Events/${eventId}`, subscriptionExpirationDateTime: new Date(subscription.expiration).toISOString(), resourceData: { id: eventId } }];
        fetch(subscription.notificationUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value }) })
          .then((answer) => notificationsSent.push({ subscriptionId: subscription.id, changeType, status: answer.status }))
          .catch(() => notificationsSent.push({ subscriptionId: subscription.id, changeType, status: 0 }));
      });
    }
  }

  /** `/v1.0/users/{address}/...` of the mailbox's user is its `/me/...`; app-only tokens have no `/me`. */
  function mailboxPath(path: string, appOnly: boolean): string {
    const match = /^\/v1\.0\/users\/([^/?]+)(.*)$/.exec(path);
    if (!match) {
      if (appOnly && /^\/v1\.0\/me(\/|$)/.test(path)) throw new GraphError(400, 'BadRequest', '/me request is only valid with delegated authentication flow.');
      return path;
    }
    const address = decodeURIComponent(match[1]!).toLowerCase();
    if (address !== user.userPrincipalName.toLowerCase() && address !== user.mail?.toLowerCase()) throw new GraphError(404, 'ErrorInvalidUser', `The requested user '${address}' is invalid.`);
    return `/v1.0/me${match[2]}`;
  }

  function route(method: string, path: string, url: URL, json: unknown, prefer: string | null): { status: number; body: unknown } {
    const segments = path
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) => decodeURIComponent(segment));
    const [version, me, collection, id, sub, fn] = segments;
    if (version !== 'v1.0' || me !== 'me') throw new GraphError(400, 'BadRequest', `Resource not found for the segment '${segments[1] ?? ''}'.`);
    const query = lowerCaseQuery(url.searchParams);
    if (segments.length === 2 && method === 'GET') return { status: 200, body: selected({ '@odata.context': `${apiBase}/v1.0/$metadata#users/$entity`, id: 'b7c5d1e0-5c3a-4f55-9a55-2c1f1f1f1f1f', ...user }, query) };
    if (collection === 'calendars' && segments.length === 3 && method === 'GET') return listCalendars(query);
    if (collection === 'calendarView' && id === 'delta' && segments.length === 4 && method === 'GET') return delta(defaultCalendarId, query, prefer);
    if (collection === 'calendars' && id !== undefined) {
      const calendar = calendarOf(id);
      if (sub === 'calendarView' && fn === 'delta' && segments.length === 6 && method === 'GET') return delta(calendar.id, query, prefer);
      if (sub === 'events' && segments.length === 5 && method === 'POST') return createEvent(calendar, json, prefer);
      if (sub === 'events' && segments.length === 6) return eventItem(method, fn!, calendar, json, prefer);
    }
    if (collection === 'events' && id !== undefined && segments.length === 4) {
      const event = events.get(id);
      return eventItem(method, id, event ? calendarOf(event.calendarId) : null, json, prefer);
    }
    throw new GraphError(400, 'BadRequest', `Resource not found for the segment '${segments.at(-1) ?? ''}'.`);
  }

  function calendarOf(id: string): FakeCalendar {
    const calendar = calendars.find((candidate) => candidate.id === id);
    if (!calendar) throw new GraphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
    return calendar;
  }

  function listCalendars(query: Map<string, string>): { status: number; body: unknown } {
    const top = Math.min(Number(query.get('$top') ?? 10) || 10, pageSize);
    const skip = Number(query.get('$skip') ?? 0) || 0;
    const page = calendars.slice(skip, skip + top);
    const body: Record<string, unknown> = {
      '@odata.context': `${apiBase}/v1.0/$metadata#users('${user.userPrincipalName}')/calendars`,
      value: page.map((calendar) =>
        selected(
          {
            '@odata.etag': `W/"${random(9)}"`,
            id: calendar.id,
            name: calendar.name,
            color: 'auto',
            hexColor: '',
            isDefaultCalendar: calendar.isDefaultCalendar,
            changeKey: random(9),
            canShare: calendar.canEdit,
            canViewPrivateItems: true,
            canEdit: calendar.canEdit,
            allowedOnlineMeetingProviders: ['teamsForBusiness'],
            defaultOnlineMeetingProvider: 'teamsForBusiness',
            isTallyingResponses: true,
            isRemovable: !calendar.isDefaultCalendar,
            owner: { name: user.displayName ?? '', address: user.mail ?? user.userPrincipalName },
          },
          query,
        ),
      ),
    };
    if (skip + top < calendars.length) {
      const next = new URLSearchParams();
      const select = query.get('$select');
      if (select) next.set('$select', select);
      next.set('$top', String(top));
      next.set('$skip', String(skip + top));
      body['@odata.nextLink'] = `${apiBase}/v1.0/me/calendars?${next.toString()}`;
    }
    return { status: 200, body };
  }

  // calendarView/delta: a first request lists the window's events, page by page (skip tokens), and
  // ends with a delta token; a delta token lists what changed after it.
  function delta(calendarId: string, query: Map<string, string>, prefer: string | null): { status: number; body: unknown } {
    const skipToken = query.get('$skiptoken');
    const deltaTokenValue = query.get('$deltatoken');
    let state: DeltaToken;
    if (skipToken !== undefined || deltaTokenValue !== undefined) {
      const known = deltaTokens.get((skipToken ?? deltaTokenValue)!);
      if (!known) throw new GraphError(400, 'BadRequest', 'The delta token is malformed.');
      if (known.expired === 'gone') {
        const location = `${apiBase}/v1.0/me/calendars/${encodeURIComponent(known.calendarId)}/calendarView/delta?$deltatoken=`;
        throw new GraphError(410, 'resyncRequired', 'Resync required. Replace any local cache with the server version.', { location });
      }
      if (known.expired === 'syncStateNotFound') throw new GraphError(400, 'syncStateNotFound', 'The sync state could not be found.');
      if (known.kind === 'skip') state = known;
      else state = { ...known, kind: 'skip', entries: changedSince(known), offset: 0, seq };
    } else {
      const from = parseQueryTime(query.get('startdatetime'));
      const to = parseQueryTime(query.get('enddatetime'));
      if (from === null || to === null) {
        throw new GraphError(400, 'ErrorInvalidParameter', 'This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.');
      }
      const inWindow = [...events.values()]
        .filter((event) => event.calendarId === calendarId && overlaps(event, from, to))
        .sort((a, b) => a.start - b.start || a.id.localeCompare(b.id));
      state = { calendarId, from, to, kind: 'skip', entries: inWindow.map((event) => event.id), offset: 0, seq, expired: null };
    }
    const size = Math.max(1, Math.min(preferredPageSize(prefer) ?? pageSize, pageSize));
    const page = state.entries.slice(state.offset, state.offset + size);
    const zone = preferredZone(prefer);
    const value = page.map((id) => {
      const event = events.get(id);
      if (!event || event.calendarId !== state.calendarId) return { '@odata.type': '#microsoft.graph.event', id, '@removed': { reason: 'deleted' } };
      if (!overlaps(event, state.from, state.to)) return { '@odata.type': '#microsoft.graph.event', id, '@removed': { reason: 'deleted' } };
      return { '@odata.type': '#microsoft.graph.event', ...representation(event, zone) };
    });
    const link = `${apiBase}/v1.0/me/calendars/${encodeURIComponent(state.calendarId)}/calendarView/delta`;
    const body: Record<string, unknown> = { '@odata.context': `${apiBase}/v1.0/$metadata#Collection(event)` };
    const rest = state.offset + size;
    if (rest < state.entries.length) {
      const next = random();
      deltaTokens.set(next, { ...state, offset: rest });
      body['@odata.nextLink'] = `${link}?$skiptoken=${next}`;
    } else {
      const next = random();
      deltaTokens.set(next, { calendarId: state.calendarId, from: state.from, to: state.to, kind: 'delta', entries: [], offset: 0, seq: state.seq, expired: null });
      body['@odata.deltaLink'] = `${link}?$deltatoken=${next}`;
    }
    body.value = value;
    return { status: 200, body };
  }

  /** Ids changed or deleted after the token's sequence number: changed events in the window come whole, the rest as removed. */
  function changedSince(token: DeltaToken): string[] {
    const changed = [...events.values()].filter((event) => event.calendarId === token.calendarId && event.changedAt > token.seq).map((event) => event.id);
    const deleted = tombstones.filter((tomb) => tomb.calendarId === token.calendarId && tomb.deletedAt > token.seq).map((tomb) => tomb.id);
    return [...new Set([...changed, ...deleted])];
  }

  function createEvent(calendar: FakeCalendar, json: unknown, prefer: string | null): { status: number; body: unknown } {
    if (!calendar.canEdit) throw new GraphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
    const input = eventJson(json);
    if ('iCalUId' in input) throw new GraphError(400, 'ErrorInvalidProperty', "The property 'iCalUId' is read-only and cannot be set.");
    const transactionId = typeof input.transactionId === 'string' ? input.transactionId : null;
    if (transactionId !== null) {
      const existing = events.get(transactions.get(transactionId) ?? '');
      if (existing) return { status: 201, body: representation(existing, preferredZone(prefer)) };
    }
    const times = timesOf(input, null);
    const stamp = new Date(now()).toISOString();
    const event: StoredEvent = {
      id: outlookId(),
      calendarId: calendar.id,
      subject: typeof input.subject === 'string' ? input.subject : '',
      body: bodyOf(input.body) ?? { contentType: 'text', content: '' },
      ...times,
      showAs: typeof input.showAs === 'string' ? input.showAs : 'busy',
      sensitivity: sensitivityOf(input.sensitivity) ?? 'normal',
      isCancelled: false,
      response: 'organizer',
      type: 'singleInstance',
      seriesMasterId: null,
      iCalUId: `040000008200E00074C5B7101A82E008${randomBytes(28).toString('hex').toUpperCase()}`,
      transactionId,
      location: locationOf(input.location) ?? '',
      attendees: attendeesOf(input.attendees) ?? [],
      changeKey: random(12),
      createdDateTime: stamp,
      lastModifiedDateTime: stamp,
      changedAt: ++seq,
    };
    events.set(event.id, event);
    changed(event.calendarId, event.id, 'created');
    if (transactionId !== null) transactions.set(transactionId, event.id);
    for (const attendee of event.attendees) invitationsSent.push(attendee.emailAddress.address);
    return { status: 201, body: representation(event, preferredZone(prefer)) };
  }

  function eventItem(method: string, id: string, calendar: FakeCalendar | null, json: unknown, prefer: string | null): { status: number; body: unknown } {
    const event = events.get(id);
    if (!event || !calendar || event.calendarId !== calendar.id) throw new GraphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
    if (method === 'GET') return { status: 200, body: representation(event, preferredZone(prefer)) };
    if (!calendar.canEdit) throw new GraphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
    if (method === 'DELETE') {
      deleteStored(event);
      return { status: 204, body: null };
    }
    if (method !== 'PATCH') throw new GraphError(405, 'ErrorInvalidRequest', 'The OData request is not supported.');
    const input = eventJson(json);
    if ('transactionId' in input && input.transactionId !== event.transactionId) {
      throw new GraphError(400, 'ErrorInvalidRequest', 'The transactionId of an event cannot be changed.');
    }
    if ('iCalUId' in input) throw new GraphError(400, 'ErrorInvalidProperty', "The property 'iCalUId' is read-only and cannot be set.");
    if ('subject' in input && typeof input.subject === 'string') event.subject = input.subject;
    const body = bodyOf(input.body);
    if (body) event.body = body;
    const location = locationOf(input.location);
    if (location !== null) event.location = location;
    if (typeof input.showAs === 'string') event.showAs = input.showAs;
    const sensitivity = sensitivityOf(input.sensitivity);
    if (sensitivity) event.sensitivity = sensitivity;
    if ('start' in input || 'end' in input) Object.assign(event, timesOf(input, event));
    const attendees = attendeesOf(input.attendees);
    if (attendees) {
      event.attendees = attendees;
      for (const attendee of attendees) invitationsSent.push(attendee.emailAddress.address);
    }
    touch(event);
    return { status: 200, body: representation(event, preferredZone(prefer)) };
  }

  function timesOf(input: Record<string, unknown>, current: StoredEvent | null): Pick<StoredEvent, 'start' | 'end' | 'allDay' | 'originalStartTimeZone' | 'originalEndTimeZone'> {
    const start = input.start === undefined && current ? { instant: current.start, zone: current.originalStartTimeZone } : timeOf(input.start, 'start');
    const end = input.end === undefined && current ? { instant: current.end, zone: current.originalEndTimeZone } : timeOf(input.end, 'end');
    if (end.instant < start.instant) throw new GraphError(400, 'ErrorInvalidRequest', 'The end time of an event must be after its start.');
    return { start: start.instant, end: end.instant, allDay: null, originalStartTimeZone: start.zone, originalEndTimeZone: end.zone };
  }

  function representation(event: StoredEvent, zone: { name: string; iana: string }): Record<string, unknown> {
    // All-day events come back midnight to midnight whatever zone is preferred, as Graph sends them.
    const start = event.allDay ? `${event.allDay.startDate}T00:00:00.0000000` : graphDateTime(event.start, zone.iana);
    const end = event.allDay ? `${event.allDay.endDate}T00:00:00.0000000` : graphDateTime(event.end, zone.iana);
    return {
      '@odata.etag': `W/"${event.changeKey}"`,
      id: event.id,
      createdDateTime: event.createdDateTime,
      lastModifiedDateTime: event.lastModifiedDateTime,
      changeKey: event.changeKey,
      categories: [],
      transactionId: event.transactionId,
      originalStartTimeZone: event.originalStartTimeZone,
      originalEndTimeZone: event.originalEndTimeZone,
      iCalUId: event.iCalUId,
      reminderMinutesBeforeStart: 15,
      isReminderOn: true,
      hasAttachments: false,
      subject: event.subject,
      bodyPreview: event.body.content.slice(0, 255),
      importance: 'normal',
      sensitivity: event.sensitivity,
      isAllDay: event.allDay !== null,
      isCancelled: event.isCancelled,
      isOrganizer: event.response === 'organizer',
      responseRequested: true,
      seriesMasterId: event.seriesMasterId,
      showAs: event.showAs,
      type: event.type,
      webLink: `https://outlook.office365.com/owa/?itemid=${encodeURIComponent(event.id)}&exvsurl=1&path=/calendar/item`,
      onlineMeetingUrl: null,
      isOnlineMeeting: false,
      onlineMeetingProvider: 'unknown',
      recurrence: null,
      responseStatus: { response: event.response, time: '0001-01-01T00:00:00Z' },
      body: event.body,
      start: { dateTime: start, timeZone: zone.name },
      end: { dateTime: end, timeZone: zone.name },
      location: { displayName: event.location, locationType: 'default', uniqueIdType: 'unknown' },
      locations: event.location ? [{ displayName: event.location, locationType: 'default' }] : [],
      attendees: event.attendees.map((attendee) => ({ ...attendee, status: { response: 'none', time: '0001-01-01T00:00:00Z' } })),
      organizer: { emailAddress: { name: user.displayName ?? '', address: user.mail ?? user.userPrincipalName } },
    };
  }

  function touch(event: StoredEvent): void {
    event.changeKey = random(12);
    event.lastModifiedDateTime = new Date(now()).toISOString();
    event.changedAt = ++seq;
    changed(event.calendarId, event.id, 'updated');
  }

  function deleteStored(event: StoredEvent): void {
    events.delete(event.id);
    tombstones.push({ id: event.id, calendarId: event.calendarId, deletedAt: ++seq });
    changed(event.calendarId, event.id, 'deleted');
  }

  // -------------------------------------------------------------------------------------------------
  // What the user does in Outlook

  function storedFromInput(calendarId: string, input: FakeEventInput, current: StoredEvent | null): Omit<StoredEvent, 'id' | 'changeKey' | 'createdDateTime' | 'lastModifiedDateTime' | 'changedAt'> {
    const allDay = input.allDay ?? (input.start === undefined && current?.allDay ? { ...current.allDay, zone: current.originalStartTimeZone } : undefined);
    let start: number;
    let end: number;
    let zone: string;
    if (allDay) {
      const iana = ianaOf(allDay.zone);
      if (!iana) throw new Error(`unknown zone ${allDay.zone}`);
      start = wallToEpoch(iana, Date.parse(`${allDay.startDate}T00:00:00Z`));
      end = wallToEpoch(iana, Date.parse(`${allDay.endDate}T00:00:00Z`));
      zone = input.originalStartTimeZone ?? allDay.zone;
    } else {
      start = input.start ?? current?.start ?? Number.NaN;
      end = input.end ?? current?.end ?? Number.NaN;
      zone = input.originalStartTimeZone ?? current?.originalStartTimeZone ?? 'UTC';
      if (!Number.isFinite(start) || !Number.isFinite(end)) throw new Error('an event needs start and end (or allDay)');
    }
    return {
      calendarId,
      subject: input.subject ?? current?.subject ?? 'Busy',
      body: current?.body ?? { contentType: 'html', content: '' },
      start,
      end,
      allDay: allDay ? { startDate: allDay.startDate, endDate: allDay.endDate } : null,
      originalStartTimeZone: zone,
      originalEndTimeZone: zone,
      showAs: input.showAs ?? current?.showAs ?? 'busy',
      sensitivity: current?.sensitivity ?? 'normal',
      isCancelled: input.isCancelled ?? current?.isCancelled ?? false,
      response: input.response ?? current?.response ?? 'organizer',
      type: input.type ?? current?.type ?? 'singleInstance',
      seriesMasterId: input.seriesMasterId ?? current?.seriesMasterId ?? null,
      iCalUId: input.iCalUId ?? current?.iCalUId ?? `040000008200E00074C5B7101A82E008${randomBytes(28).toString('hex').toUpperCase()}`,
      transactionId: current?.transactionId ?? null,
      location: current?.location ?? '',
      attendees: current?.attendees ?? [],
    };
  }

  return {
    baseUrl,
    subscriptions,
    onlineMeetings,
    notificationsSent,
    sendLifecycle,
    endpoints: { authorize: `${baseUrl}${LOGIN_PREFIX}/authorize`, token: `${baseUrl}${LOGIN_PREFIX}/token`, api: apiBase },
    clientId,
    clientSecret,
    redirectUri,
    defaultCalendarId,
    requests,
    tokenGrants,
    authorizeRequests,
    invitationsSent,
    now,
    advanceClock(ms) {
      clockOffset += ms;
    },
    failNext(count, failure) {
      for (let i = 0; i < count; i++) failures.push(failure);
    },
    revokeConsent() {
      for (const known of refreshTokens.values()) known.active = false;
      accessTokens.clear();
    },
    expireAccessTokens() {
      for (const known of accessTokens.values()) known.expiresAt = now();
    },
    expireDeltaTokens(mode) {
      for (const known of deltaTokens.values()) known.expired = mode;
    },
    addCalendar,
    addEvent(calendarId, input) {
      calendarOf(calendarId);
      const stamp = new Date(now()).toISOString();
      const event: StoredEvent = {
        id: outlookId(),
        ...storedFromInput(calendarId, input, null),
        changeKey: random(12),
        createdDateTime: stamp,
        lastModifiedDateTime: stamp,
        changedAt: ++seq,
      };
      events.set(event.id, event);
      changed(event.calendarId, event.id, 'created');
      return event.id;
    },
    editEvent(eventId, changes) {
      const event = events.get(eventId);
      if (!event) throw new Error(`no event ${eventId}`);
      Object.assign(event, storedFromInput(event.calendarId, changes, event));
      touch(event);
    },
    removeEvent(eventId) {
      const event = events.get(eventId);
      if (!event) throw new Error(`no event ${eventId}`);
      deleteStored(event);
    },
    event: (eventId) => events.get(eventId),
    events: (calendarId) => [...events.values()].filter((event) => event.calendarId === calendarId),
    refreshTokenWorks: (value) => refreshTokens.get(value)?.active === true,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---------------------------------------------------------------------------------------------------
// Helpers

/** Graph's sensitivity enum; anything else is refused as Graph refuses an unknown enum value. */
function sensitivityOf(value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value === 'string' && ['normal', 'personal', 'private', 'confidential'].includes(value)) return value;
  throw new GraphError(400, 'RequestBodyRead', `Requested value '${String(value)}' was not found.`);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 4_000_000) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (status === 204 || body === null) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; odata.metadata=minimal; odata.streaming=true; charset=utf-8', 'request-id': random(12), ...headers });
  res.end(text);
}

function sendHtml(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!DOCTYPE html><html><body><p>Sorry, but we're having trouble signing you in.</p><p>${message}</p></body></html>`);
}

function redirect(res: http.ServerResponse, location: string): void {
  res.writeHead(302, { location });
  res.end();
}

function graphErrorBody(code: string, message: string): unknown {
  return { error: { code, message, innerError: { date: new Date().toISOString().slice(0, 19), 'request-id': random(12), 'client-request-id': random(12) } } };
}

function tokenErrorBody(error: string, description: string, aadsts: number): unknown {
  return {
    error,
    error_description: `${description}\r\nTrace ID: ${random(12)}\r\nCorrelation ID: ${random(12)}\r\nTimestamp: ${new Date().toISOString()}`,
    error_codes: [aadsts],
    timestamp: new Date().toISOString(),
    trace_id: random(12),
    correlation_id: random(12),
  };
}

function bearerChallenge(): string {
  return 'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000"';
}

/** OData query option names are case-insensitive (the delta guide writes startdatetime). */
function lowerCaseQuery(params: URLSearchParams): Map<string, string> {
  const map = new Map<string, string>();
  for (const [name, value] of params) map.set(name.toLowerCase(), value);
  return map;
}

function selected(record: Record<string, unknown>, query: Map<string, string>): Record<string, unknown> {
  const select = query.get('$select');
  if (!select) return record;
  const keep = new Set(['id', '@odata.etag', '@odata.context', ...select.split(',').map((name) => name.trim())]);
  return Object.fromEntries(Object.entries(record).filter(([name]) => keep.has(name)));
}

function overlaps(event: StoredEvent, from: number, to: number): boolean {
  return event.start < to && event.end > from;
}

/** startDateTime/endDateTime: ISO 8601, with an offset or Z, or without (then UTC). */
function parseQueryTime(value: string | undefined): number | null {
  if (!value) return null;
  const withZone = /(Z|[+-]\d{2}:\d{2})$/.test(value) ? value : `${value}Z`;
  const parsed = Date.parse(withZone);
  return Number.isNaN(parsed) ? null : parsed;
}

function preferences(prefer: string | null): Map<string, string> {
  const map = new Map<string, string>();
  for (const match of (prefer ?? '').matchAll(/([\w.]+)\s*=\s*("([^"]*)"|[^,\s]+)/g)) map.set(match[1]!.toLowerCase(), match[3] ?? match[2]!);
  return map;
}

function preferredPageSize(prefer: string | null): number | null {
  const value = preferences(prefer).get('odata.maxpagesize');
  return value && /^\d+$/.test(value) ? Number(value) : null;
}

function preferredZone(prefer: string | null): { name: string; iana: string } {
  const name = preferences(prefer).get('outlook.timezone');
  if (!name) return { name: 'UTC', iana: 'UTC' };
  const iana = ianaOf(name);
  if (!iana) throw new GraphError(400, 'TimeZoneNotSupportedException', `A valid TimeZone value must be specified. The following TimeZone value is not supported: '${name}'.`);
  return { name, iana };
}

function ianaOf(name: string): string | null {
  if (name === 'UTC') return 'UTC';
  const windows = WINDOWS_ZONES[name];
  if (windows) return windows;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return name.includes('/') ? name : null;
  } catch {
    return null;
  }
}

function offsetMs(zone: string, epoch: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(epoch));
  const part = (type: string) => Number(parts.find((candidate) => candidate.type === type)!.value);
  const asUtc = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return asUtc - Math.floor(epoch / 1000) * 1000;
}

function wallToEpoch(zone: string, wall: number): number {
  const guess = wall - offsetMs(zone, wall);
  return wall - offsetMs(zone, guess);
}

function graphDateTime(epoch: number, zone: string): string {
  return `${new Date(epoch + offsetMs(zone, epoch)).toISOString().slice(0, 19)}.0000000`;
}

function eventJson(json: unknown): Record<string, unknown> {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new GraphError(400, 'RequestBodyRead', 'The request body is not a JSON object.');
  return json as Record<string, unknown>;
}

function timeOf(value: unknown, which: string): { instant: number; zone: string } {
  const record = value as { dateTime?: unknown; timeZone?: unknown } | undefined;
  if (!record || typeof record.dateTime !== 'string' || typeof record.timeZone !== 'string') {
    throw new GraphError(400, 'ErrorInvalidRequest', `Your request can't be completed. The ${which} of the event is missing.`);
  }
  const iana = ianaOf(record.timeZone);
  if (!iana) throw new GraphError(400, 'TimeZoneNotSupportedException', `A valid TimeZone value must be specified. The following TimeZone value is not supported: '${record.timeZone}'.`);
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?)$/.exec(record.dateTime);
  if (!match) throw new GraphError(400, 'ErrorInvalidRequest', `Cannot convert the literal '${record.dateTime}' to the expected type 'Edm.DateTime'.`);
  const wall = Date.parse(`${record.dateTime.slice(0, 19).padEnd(19, ':00')}Z`);
  return { instant: wallToEpoch(iana, wall), zone: record.timeZone };
}

function bodyOf(value: unknown): { contentType: string; content: string } | null {
  const record = value as { contentType?: unknown; content?: unknown } | undefined;
  if (!record || typeof record.content !== 'string') return null;
  return { contentType: typeof record.contentType === 'string' ? record.contentType.toLowerCase() : 'text', content: record.content };
}

function locationOf(value: unknown): string | null {
  const record = value as { displayName?: unknown } | undefined;
  return record && typeof record.displayName === 'string' ? record.displayName : null;
}

function attendeesOf(value: unknown): StoredEvent['attendees'] | null {
  if (!Array.isArray(value)) return null;
  return value.map((attendee: { emailAddress?: { address?: unknown; name?: unknown }; type?: unknown }) => {
    if (typeof attendee?.emailAddress?.address !== 'string') throw new GraphError(400, 'ErrorInvalidRecipients', 'An attendee has no email address.');
    return {
      emailAddress: { address: attendee.emailAddress.address, ...(typeof attendee.emailAddress.name === 'string' ? { name: attendee.emailAddress.name } : {}) },
      type: typeof attendee.type === 'string' ? attendee.type : 'required',
    };
  });
}
