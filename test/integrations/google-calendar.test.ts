// The Google Calendar adapter over real HTTP against the local fake of Google's documented API
// (test/support/fake-google.ts): the OAuth round trip and refreshes, calendar list and event reads
// with paging, sync tokens and their expiry, busy rules (all-day days across DST, free, declined,
// cancelled, recurring instances), event writes with a retried insert, and the failures each status
// maps to. The session fetch is svc's outboundFetch, as in production.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  type CalendarEventInput,
  type CalendarFailureKind,
  CalendarProviderError,
  type ExternalEventsRead,
  type OAuthClient,
  type OAuthSession,
  type OAuthTokens,
} from '../../src/integrations/calendar-types.js';
import { GOOGLE_ENDPOINTS, GOOGLE_SCOPES, googleCalendar, READ_AHEAD_MS } from '../../src/integrations/google/index.js';
import { outboundFetch } from '../../src/integrations/outbound-fetch.js';
import { type FakeGoogle, startFakeGoogle } from '../support/fake-google.js';

const CLIENT_ID = 'svc-test.apps.googleusercontent.com';
const CLIENT_SECRET = 'GOCSPX-not-a-real-secret-9f3k';
const REDIRECT_URI = 'https://svc.example/v2/calendars/google/callback';
const ALICE = 'alice@example.com';
const policy = { allowPrivate: true, timeoutMs: 5000, maxResponseBytes: 5_000_000 };
const guardedFetch = outboundFetch(policy);
const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

let google: FakeGoogle;
/** Every token the fake issued in this file: none may appear in an error message. */
const issuedSecrets = new Set<string>([CLIENT_SECRET]);

before(async () => {
  google = await startFakeGoogle({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  google.addAccount(ALICE, 'America/New_York');
  google.addAccount('bob@example.com', 'Europe/Berlin');
});
after(async () => google?.close());

function oauthClient(endpoints = google.endpoints): OAuthClient {
  return { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI, endpoints };
}

interface TestSession extends OAuthSession {
  stored: OAuthTokens[];
  /** Added to the real clock by now(). */
  shift: number;
}

function sessionWith(tokens: OAuthTokens, client = oauthClient()): TestSession {
  const session: TestSession = {
    client,
    tokens,
    stored: [],
    shift: 0,
    fetch: guardedFetch,
    now: () => Date.now() + session.shift,
    async onTokens(next) {
      session.stored.push(next);
      issuedSecrets.add(next.accessToken).add(next.refreshToken);
    },
  };
  return session;
}

/** The consent round trip as a browser makes it: the redirect's code and state. */
async function consent(loginHint?: string, state = `state-${Math.random()}`): Promise<{ code: string; state: string; location: URL }> {
  const page = await fetch(googleCalendar.authorizationUrl(oauthClient(), state, loginHint), { redirect: 'manual' });
  assert.equal(page.status, 302);
  const location = new URL(page.headers.get('location')!);
  return { code: location.searchParams.get('code')!, state: location.searchParams.get('state')!, location };
}

async function connect(loginHint = ALICE): Promise<TestSession> {
  const { code } = await consent(loginHint);
  const tokens = await googleCalendar.exchangeCode(oauthClient(), code, guardedFetch, Date.now());
  issuedSecrets.add(tokens.accessToken).add(tokens.refreshToken);
  return sessionWith(tokens);
}

/** Rejects with a CalendarProviderError of `kind` whose message shows no secret. */
async function rejectsWith(promise: Promise<unknown>, kind: CalendarFailureKind): Promise<CalendarProviderError> {
  const error = await promise.then(
    () => assert.fail(`expected a ${kind} failure`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof CalendarProviderError, `not a CalendarProviderError: ${String(error)}`);
  assert.equal(error.kind, kind, error.message);
  for (const secret of issuedSecrets) assert.ok(!error.message.includes(secret), `the message shows a secret: ${error.message}`);
  return error;
}

const keysOf = (read: ExternalEventsRead) => read.events.map((event) => event.key).sort();
const busyOf = (read: ExternalEventsRead, key: string) => read.events.find((event) => event.key === key)?.intervals;

describe('Google OAuth', () => {
  test('the production endpoints and the scopes svc asks for', () => {
    assert.deepEqual(GOOGLE_ENDPOINTS, {
      authorize: 'https://accounts.google.com/o/oauth2/v2/auth',
      token: 'https://oauth2.googleapis.com/token',
      api: 'https://www.googleapis.com',
    });
    assert.deepEqual(GOOGLE_SCOPES, ['https://www.googleapis.com/auth/calendar.events', 'https://www.googleapis.com/auth/calendar.readonly']);
  });

  test('the consent URL asks for offline access with a consent prompt, and carries state and login_hint', () => {
    const url = new URL(googleCalendar.authorizationUrl(oauthClient(GOOGLE_ENDPOINTS), 'st&te=1', 'alice@example.com'));
    assert.equal(`${url.origin}${url.pathname}`, GOOGLE_ENDPOINTS.authorize);
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: GOOGLE_SCOPES.join(' '),
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      state: 'st&te=1',
      login_hint: 'alice@example.com',
    });
    assert.equal(new URL(googleCalendar.authorizationUrl(oauthClient(), 's')).searchParams.has('login_hint'), false);
  });

  test('round trip: the redirect brings the same state and a code, which is traded once for tokens', async () => {
    const { code, state, location } = await consent('bob@example.com', 'opaque-state-42');
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI);
    assert.equal(state, 'opaque-state-42');
    assert.equal(google.authorizations.at(-1)?.login_hint, 'bob@example.com');
    const now = Date.now();
    const tokens = await googleCalendar.exchangeCode(oauthClient(), code, guardedFetch, now);
    issuedSecrets.add(tokens.accessToken).add(tokens.refreshToken);
    assert.match(tokens.accessToken, /^ya29\./);
    assert.match(tokens.refreshToken, /^1\/\/0g/);
    assert.equal(tokens.expiresAt, now + 3599 * 1000);
    assert.equal(tokens.scope, GOOGLE_SCOPES.join(' '));
    const grant = google.tokenGrants.at(-1)!;
    assert.deepEqual(
      { grant_type: grant.grant_type, code: grant.code, redirect_uri: grant.redirect_uri, client_id: grant.client_id },
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: CLIENT_ID },
    );
    // The tokens belong to the account that consented (login_hint chose Bob).
    assert.equal(await googleCalendar.accountEmail(sessionWith(tokens)), 'bob@example.com');
    // A code works once: Google answers invalid_grant to a second exchange.
    const error = await rejectsWith(googleCalendar.exchangeCode(oauthClient(), code, guardedFetch, now), 'unauthorized');
    assert.ok(!error.message.includes(code));
  });

  test('a wrong client secret is unauthorized, and the secret is not in the message', async () => {
    const { code } = await consent();
    const wrong = { ...oauthClient(), clientSecret: 'GOCSPX-wrong-secret-77' };
    const error = await rejectsWith(googleCalendar.exchangeCode(wrong, code, guardedFetch, Date.now()), 'unauthorized');
    assert.ok(!error.message.includes('GOCSPX-wrong-secret-77'));
    assert.match(error.message, /invalid_client/);
  });

  test('the account email is the primary calendar id', async () => {
    const session = await connect();
    assert.equal(await googleCalendar.accountEmail(session), ALICE);
    const request = google.apiRequests().at(-1)!;
    assert.equal(request.path, '/calendar/v3/calendars/primary');
    assert.equal(request.authorization, `Bearer ${session.tokens.accessToken}`);
  });

  test('a token expiring within 60 s is refreshed before the call; the refresh token is kept when Google sends none', async () => {
    const session = await connect();
    const first = session.tokens;
    session.shift = first.expiresAt - Date.now() - 30_000;
    const calledAt = session.now();
    await googleCalendar.accountEmail(session);
    const doneAt = session.now();
    assert.equal(session.stored.length, 1, 'onTokens called once');
    const [renewed] = session.stored;
    assert.notEqual(renewed!.accessToken, first.accessToken);
    assert.equal(renewed!.refreshToken, first.refreshToken);
    // expires_in counts from the session's clock.
    assert.ok(renewed!.expiresAt >= calledAt + 3599_000 && renewed!.expiresAt <= doneAt + 3599_000);
    assert.deepEqual(session.tokens, renewed);
    const grant = google.tokenGrants.at(-1)!;
    assert.deepEqual([grant.grant_type, grant.refresh_token], ['refresh_token', first.refreshToken]);
    // Only one API call, made with the new token.
    const calls = google.apiRequests().filter((request) => request.authorization?.endsWith(first.accessToken) || request.authorization?.endsWith(renewed!.accessToken));
    assert.deepEqual(
      calls.map((request) => request.authorization),
      [`Bearer ${renewed!.accessToken}`],
    );
  });

  test('parallel calls that find the token expiring share one refresh', async () => {
    const session = await connect();
    session.shift = session.tokens.expiresAt - Date.now() - 10_000;
    const grants = google.tokenGrants.length;
    const emails = await Promise.all([googleCalendar.accountEmail(session), googleCalendar.accountEmail(session), googleCalendar.listCalendars(session)]);
    assert.deepEqual(emails.slice(0, 2), [ALICE, ALICE]);
    assert.equal(google.tokenGrants.length - grants, 1);
    assert.equal(session.stored.length, 1);
  });

  test('a token still valid by the clock is not refreshed', async () => {
    const session = await connect();
    const grants = google.tokenGrants.length;
    await googleCalendar.accountEmail(session);
    assert.equal(google.tokenGrants.length, grants);
    assert.deepEqual(session.stored, []);
  });

  test('a 401 is answered by one refresh and one retry with the new token', async () => {
    const session = await connect();
    const old = session.tokens.accessToken;
    google.dropAccessTokens();
    const before = google.apiRequests().length;
    assert.equal(await googleCalendar.accountEmail(session), ALICE);
    const calls = google.apiRequests().slice(before);
    assert.equal(session.stored.length, 1);
    assert.deepEqual(
      calls.map((request) => request.authorization),
      [`Bearer ${old}`, `Bearer ${session.stored[0]!.accessToken}`],
    );
  });

  test('a refresh token Google rotates is the one handed on', async () => {
    const session = await connect();
    const original = session.tokens.refreshToken;
    google.options.rotateRefreshTokens = true;
    try {
      google.dropAccessTokens();
      await googleCalendar.listCalendars(session);
    } finally {
      google.options.rotateRefreshTokens = false;
    }
    assert.equal(session.stored.length, 1);
    assert.match(session.stored[0]!.refreshToken, /^1\/\/0g/);
    assert.notEqual(session.stored[0]!.refreshToken, original);
    assert.equal(session.tokens.refreshToken, session.stored[0]!.refreshToken);
    // The rotated-out token no longer works; the one handed on does.
    google.dropAccessTokens();
    await googleCalendar.accountEmail(session);
    assert.equal(session.stored.length, 2);
  });

  test('still 401 after the refresh: unauthorized, after exactly one refresh and two calls', async () => {
    const session = await connect();
    google.failNext(2, { status: 401 });
    const before = google.apiRequests().length;
    await rejectsWith(googleCalendar.listCalendars(session), 'unauthorized');
    assert.equal(google.apiRequests().length - before, 2);
    assert.equal(session.stored.length, 1);
  });

  test('a revoked refresh token (invalid_grant) is unauthorized, and onTokens is not called', async () => {
    const session = await connect();
    google.revokeAccess();
    const error = await rejectsWith(googleCalendar.listCalendars(session), 'unauthorized');
    assert.match(error.message, /invalid_grant/);
    assert.deepEqual(session.stored, []);
  });

  test('a 403 that is not a rate limit (scope not granted) is unauthorized', async () => {
    const session = await connect();
    google.failNext(1, { status: 403, reason: 'insufficientPermissions' });
    await rejectsWith(googleCalendar.listCalendars(session), 'unauthorized');
  });
});

describe('Google calendars and busy time', () => {
  const CAROL = 'carol@example.com';
  const WORK = 'work-cal@group.calendar.google.com';
  let session: TestSession;

  before(async () => {
    google.addAccount(CAROL, 'America/New_York');
    google.addCalendar(CAROL, { id: WORK, summary: 'Work', timeZone: 'America/New_York' });
    google.addCalendar(CAROL, { id: 'team@group.calendar.google.com', summary: 'Team', summaryOverride: 'My team', timeZone: 'Europe/Berlin', accessRole: 'writer' });
    google.addCalendar(CAROL, { id: 'holidays@group.v.calendar.google.com', summary: 'Holidays', timeZone: 'Asia/Kathmandu', accessRole: 'reader' });
    google.addCalendar(CAROL, { id: 'dave@example.com', summary: 'Dave', timeZone: 'UTC', accessRole: 'freeBusyReader' });
    session = await connect(CAROL);
  });

  test('the calendar list, over pages: override names, primary, read-only roles, zones', async () => {
    google.options.pageSizeCap = 2;
    const before = google.apiRequests().length;
    let calendars;
    try {
      calendars = await googleCalendar.listCalendars(session);
    } finally {
      delete google.options.pageSizeCap;
    }
    const pages = google.apiRequests().slice(before);
    assert.equal(pages.length, 3);
    assert.equal(pages[0]!.query.pageToken, undefined);
    assert.ok(pages[1]!.query.pageToken && pages[2]!.query.pageToken);
    assert.deepEqual(calendars, [
      { externalId: CAROL, name: CAROL, primary: true, readOnly: false, timeZone: 'America/New_York' },
      { externalId: WORK, name: 'Work', primary: false, readOnly: false, timeZone: 'America/New_York' },
      { externalId: 'team@group.calendar.google.com', name: 'My team', primary: false, readOnly: false, timeZone: 'Europe/Berlin' },
      { externalId: 'holidays@group.v.calendar.google.com', name: 'Holidays', primary: false, readOnly: true, timeZone: 'Asia/Kathmandu' },
      { externalId: 'dave@example.com', name: 'Dave', primary: false, readOnly: true, timeZone: 'UTC' },
    ]);
  });

  test('a full read over pages: busy intervals with the iCalUID, and the window asked with singleEvents', async () => {
    const calendar = 'full-read@group.calendar.google.com';
    google.addCalendar(CAROL, { id: calendar, summary: 'Full', timeZone: 'America/New_York' });
    const ids = [];
    for (let day = 1; day <= 5; day++) {
      const event = google.addEvent(calendar, {
        iCalUID: `uid-${day}@svc.example`,
        start: { dateTime: `2026-06-0${day}T09:00:00-04:00`, timeZone: 'America/New_York' },
        end: { dateTime: `2026-06-0${day}T10:30:00-04:00`, timeZone: 'America/New_York' },
      });
      ids.push(event.id);
    }
    // Outside the window (and its read-ahead): not listed.
    google.addEvent(calendar, { start: { dateTime: '2026-09-01T09:00:00Z' }, end: { dateTime: '2026-09-01T10:00:00Z' } });
    const window = { from: at('2026-06-01T00:00:00Z'), to: at('2026-06-30T00:00:00Z') };
    google.options.pageSizeCap = 2;
    const before = google.apiRequests().length;
    let read;
    try {
      read = await googleCalendar.readEvents(session, calendar, window, null);
    } finally {
      delete google.options.pageSizeCap;
    }
    const pages = google.apiRequests().slice(before);
    assert.equal(pages.length, 3);
    for (const page of pages) {
      assert.equal(page.query.singleEvents, 'true');
      assert.equal(page.query.timeMin, '2026-06-01T00:00:00.000Z');
      assert.equal(page.query.timeMax, new Date(window.to + READ_AHEAD_MS).toISOString());
      assert.equal(page.query.syncToken, undefined);
    }
    assert.equal(read.full, true);
    assert.deepEqual(read.removed, []);
    assert.ok(read.state);
    assert.deepEqual(keysOf(read), [...ids].sort());
    assert.deepEqual(busyOf(read, ids[2]!), [{ start: at('2026-06-03T13:00:00Z'), end: at('2026-06-03T14:30:00Z'), uid: 'uid-3@svc.example' }]);
  });

  test('all-day events are whole days of the calendar zone: 23 hours on the spring DST day, 25 on the autumn one', async () => {
    const calendar = 'allday@group.calendar.google.com';
    google.addCalendar(CAROL, { id: calendar, summary: 'All day', timeZone: 'America/New_York' });
    const spring = google.addEvent(calendar, { start: { date: '2026-03-08' }, end: { date: '2026-03-09' } });
    const autumn = google.addEvent(calendar, { start: { date: '2026-10-31' }, end: { date: '2026-11-02' } });
    const read = await googleCalendar.readEvents(session, calendar, { from: at('2026-03-01T00:00:00Z'), to: at('2026-12-01T00:00:00Z') }, null);
    const [springBusy] = busyOf(read, spring.id)!;
    assert.deepEqual([springBusy!.start, springBusy!.end], [at('2026-03-08T05:00:00Z'), at('2026-03-09T04:00:00Z')]);
    assert.equal(springBusy!.end - springBusy!.start, 23 * HOUR);
    const [autumnBusy] = busyOf(read, autumn.id)!;
    assert.deepEqual([autumnBusy!.start, autumnBusy!.end], [at('2026-10-31T04:00:00Z'), at('2026-11-02T05:00:00Z')]);
    assert.equal(autumnBusy!.end - autumnBusy!.start, 49 * HOUR);
  });

  test('free, declined and cancelled events hold no busy time; tentative and accepted ones do', async () => {
    const calendar = CAROL;
    const slot = (hour: number) => ({ start: { dateTime: `2026-07-01T${hour}:00:00Z` }, end: { dateTime: `2026-07-01T${hour}:30:00Z` } });
    const free = google.addEvent(calendar, { ...slot(10), transparency: 'transparent' });
    const invitation = {
      organizer: { email: 'erin@example.com' },
      attendees: [{ email: 'erin@example.com' }, { email: CAROL, responseStatus: 'declined' }],
    };
    const declined = google.addEvent(calendar, { ...slot(11), ...invitation });
    const accepted = google.addEvent(calendar, {
      ...slot(12),
      ...invitation,
      attendees: [
        { email: CAROL, responseStatus: 'accepted' },
        { email: 'frank@example.com', responseStatus: 'declined' },
      ],
    });
    const tentative = google.addEvent(calendar, { ...slot(13), status: 'tentative' });
    const cancelled = google.addEvent(calendar, slot(14));
    google.removeEvent(calendar, cancelled.id);
    const read = await googleCalendar.readEvents(session, calendar, { from: at('2026-07-01T00:00:00Z'), to: at('2026-07-02T00:00:00Z') }, null);
    assert.deepEqual(busyOf(read, free.id), []);
    assert.deepEqual(busyOf(read, declined.id), []);
    assert.deepEqual(busyOf(read, accepted.id)?.map((interval) => interval.start), [at('2026-07-01T12:00:00Z')]);
    assert.deepEqual(busyOf(read, tentative.id)?.map((interval) => interval.start), [at('2026-07-01T13:00:00Z')]);
    assert.equal(busyOf(read, cancelled.id), undefined);
  });

  test('an incremental read brings what changed since: new, moved, deleted (as removed), and nothing unchanged', async () => {
    const calendar = 'sync@group.calendar.google.com';
    google.addCalendar(CAROL, { id: calendar, summary: 'Sync', timeZone: 'America/New_York' });
    const hour = (iso: string) => ({ start: { dateTime: iso }, end: { dateTime: new Date(at(iso) + HOUR).toISOString() } });
    const kept = google.addEvent(calendar, hour('2026-08-03T14:00:00Z'));
    const moved = google.addEvent(calendar, hour('2026-08-04T14:00:00Z'));
    const deleted = google.addEvent(calendar, hour('2026-08-05T14:00:00Z'));
    const leaving = google.addEvent(calendar, hour('2026-08-06T14:00:00Z'));
    const window = { from: at('2026-08-01T00:00:00Z'), to: at('2026-09-01T00:00:00Z') };
    const first = await googleCalendar.readEvents(session, calendar, window, null);
    assert.deepEqual(keysOf(first), [kept.id, moved.id, deleted.id, leaving.id].sort());

    const added = google.addEvent(calendar, { ...hour('2026-08-07T14:00:00Z'), iCalUID: 'added@svc.example' });
    google.editEvent(calendar, moved.id, hour('2026-08-04T18:00:00Z'));
    google.removeEvent(calendar, deleted.id);
    // Moved far outside the range the token covers: it must stop counting, not linger.
    google.editEvent(calendar, leaving.id, hour('2031-01-01T10:00:00Z'));
    const before = google.apiRequests().length;
    const second = await googleCalendar.readEvents(session, calendar, window, first.state);
    const request = google.apiRequests().slice(before);
    assert.equal(request.length, 1);
    assert.equal(request[0]!.query.syncToken, JSON.parse(first.state!).syncToken);
    assert.equal(request[0]!.query.timeMin, undefined);
    assert.equal(request[0]!.query.singleEvents, 'true');
    assert.equal(second.full, false);
    assert.deepEqual(keysOf(second), [added.id, moved.id, leaving.id].sort());
    assert.deepEqual(busyOf(second, added.id), [{ start: at('2026-08-07T14:00:00Z'), end: at('2026-08-07T15:00:00Z'), uid: 'added@svc.example' }]);
    assert.deepEqual(busyOf(second, moved.id)?.map((interval) => interval.start), [at('2026-08-04T18:00:00Z')]);
    assert.deepEqual(busyOf(second, leaving.id), []);
    assert.deepEqual(second.removed, [deleted.id]);

    // The new state: nothing changed since, nothing comes.
    const third = await googleCalendar.readEvents(session, calendar, window, second.state);
    assert.deepEqual({ full: third.full, events: third.events, removed: third.removed }, { full: false, events: [], removed: [] });
  });

  test('a sync token Google no longer accepts (410) is answered with a full read', async () => {
    const calendar = 'gone@group.calendar.google.com';
    google.addCalendar(CAROL, { id: calendar, summary: 'Gone', timeZone: 'UTC' });
    const event = google.addEvent(calendar, { start: { dateTime: '2026-08-10T09:00:00Z' }, end: { dateTime: '2026-08-10T10:00:00Z' } });
    const window = { from: at('2026-08-01T00:00:00Z'), to: at('2026-09-01T00:00:00Z') };
    const first = await googleCalendar.readEvents(session, calendar, window, null);
    google.invalidateSyncTokens();
    const before = google.apiRequests().length;
    const second = await googleCalendar.readEvents(session, calendar, window, first.state);
    const requests = google.apiRequests().slice(before);
    assert.deepEqual(
      requests.map((request) => [request.query.syncToken !== undefined, request.query.timeMin !== undefined]),
      [
        [true, false],
        [false, true],
      ],
    );
    assert.equal(second.full, true);
    assert.deepEqual(keysOf(second), [event.id]);
    assert.ok(second.state && second.state !== first.state);
  });

  test('a state the adapter cannot read is answered with a full read', async () => {
    const read = await googleCalendar.readEvents(session, CAROL, { from: at('2026-07-01T00:00:00Z'), to: at('2026-07-02T00:00:00Z') }, 'not-a-state');
    assert.equal(read.full, true);
    assert.equal(google.apiRequests().at(-1)!.query.syncToken, undefined);
  });

  test('a window reaching past the range the token covers is read fully, without the token', async () => {
    const calendar = 'slide@group.calendar.google.com';
    google.addCalendar(CAROL, { id: calendar, summary: 'Slide', timeZone: 'UTC' });
    const window = { from: at('2026-08-01T00:00:00Z'), to: at('2026-09-01T00:00:00Z') };
    const first = await googleCalendar.readEvents(session, calendar, window, null);
    // Unchanged since the first read, but beyond its range: an incremental read would never bring it.
    const later = google.addEvent(calendar, { start: { dateTime: '2026-09-20T09:00:00Z' }, end: { dateTime: '2026-09-20T10:00:00Z' } });
    // Within the read-ahead the token still serves (and brings the new event as a change).
    const inside = await googleCalendar.readEvents(session, calendar, { from: window.from + 3 * 86_400_000, to: window.to + 3 * 86_400_000 }, first.state);
    assert.equal(inside.full, false);
    const before = google.apiRequests().length;
    const outside = await googleCalendar.readEvents(session, calendar, { from: window.from + 30 * 86_400_000, to: window.to + 30 * 86_400_000 }, inside.state);
    assert.equal(outside.full, true);
    assert.deepEqual(keysOf(outside), [later.id]);
    assert.equal(google.apiRequests().slice(before)[0]!.query.syncToken, undefined);
  });

  test('a weekly series is read as instances at 09:00 New York across DST, and a cancelled instance is removed', async () => {
    const calendar = 'series@group.calendar.google.com';
    google.addCalendar(CAROL, { id: calendar, summary: 'Series', timeZone: 'America/New_York' });
    const series = google.addEvent(calendar, {
      iCalUID: 'weekly@svc.example',
      start: { dateTime: '2026-03-01T09:00:00-05:00', timeZone: 'America/New_York' },
      end: { dateTime: '2026-03-01T10:00:00-05:00', timeZone: 'America/New_York' },
      recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
    });
    const window = { from: at('2026-03-01T00:00:00Z'), to: at('2026-04-01T00:00:00Z') };
    const first = await googleCalendar.readEvents(session, calendar, window, null);
    const keys = [`${series.id}_20260301T140000Z`, `${series.id}_20260308T130000Z`, `${series.id}_20260315T130000Z`];
    assert.deepEqual(keysOf(first), keys);
    assert.deepEqual(busyOf(first, keys[1]!), [{ start: at('2026-03-08T13:00:00Z'), end: at('2026-03-08T14:00:00Z'), uid: 'weekly@svc.example' }]);
    google.removeEvent(calendar, keys[1]!);
    const second = await googleCalendar.readEvents(session, calendar, window, first.state);
    assert.deepEqual(second.removed, [keys[1]]);
    assert.deepEqual(second.events, []);
  });

  test('429 with Retry-After in seconds, or as an HTTP date, is rate_limited with the wait', async () => {
    google.failNext(1, { status: 429, retryAfter: '7' });
    const seconds = await rejectsWith(googleCalendar.listCalendars(session), 'rate_limited');
    assert.equal(seconds.retryAfterMs, 7000);
    google.failNext(1, { status: 429, retryAfter: new Date(Date.now() + 30_000).toUTCString() });
    const dated = await rejectsWith(googleCalendar.listCalendars(session), 'rate_limited');
    assert.ok(dated.retryAfterMs! > 27_000 && dated.retryAfterMs! <= 30_000, String(dated.retryAfterMs));
  });

  test("Google's 403 rate limits (rateLimitExceeded, userRateLimitExceeded) are rate_limited, not unauthorized", async () => {
    google.failNext(1, { status: 403, reason: 'userRateLimitExceeded' });
    const user = await rejectsWith(googleCalendar.readEvents(session, CAROL, { from: at('2026-07-01T00:00:00Z'), to: at('2026-07-02T00:00:00Z') }, null), 'rate_limited');
    assert.equal(user.retryAfterMs, undefined);
    google.failNext(1, { status: 403, reason: 'rateLimitExceeded', retryAfter: '2' });
    const calendarLimit = await rejectsWith(googleCalendar.listCalendars(session), 'rate_limited');
    assert.equal(calendarLimit.retryAfterMs, 2000);
  });

  test('500 and 503 without Retry-After are unreachable; a refused connection too', async () => {
    google.failNext(1, { status: 500 });
    await rejectsWith(googleCalendar.listCalendars(session), 'unreachable');
    google.failNext(1, { status: 503 });
    await rejectsWith(googleCalendar.accountEmail(session), 'unreachable');
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const nowhere = sessionWith(session.tokens, oauthClient({ ...google.endpoints, api: `http://127.0.0.1:${port}` }));
    await rejectsWith(googleCalendar.listCalendars(nowhere), 'unreachable');
  });

  test('a calendar that is gone is not_found', async () => {
    await rejectsWith(googleCalendar.readEvents(session, 'nobody@group.calendar.google.com', { from: 0, to: 86_400_000 }, null), 'not_found');
  });
});

describe('Google answers that are not what the API documents', () => {
  let server: http.Server;
  let answer: { status: number; type: string; body: string };
  let session: TestSession;

  before(async () => {
    server = http.createServer((_req, res) => res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    session = sessionWith({ accessToken: 'ya29.odd', refreshToken: '1//0g-odd', expiresAt: Date.now() + HOUR, scope: null }, oauthClient({ ...google.endpoints, api }));
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const window = { from: at('2026-07-01T00:00:00Z'), to: at('2026-07-02T00:00:00Z') };

  test('a body that is not JSON is invalid_data', async () => {
    answer = { status: 200, type: 'text/html', body: '<html>Sign in</html>' };
    await rejectsWith(googleCalendar.readEvents(session, 'x', window, null), 'invalid_data');
  });

  test('an event without start or end, or without an id, is invalid_data', async () => {
    answer = { status: 200, type: 'application/json', body: JSON.stringify({ kind: 'calendar#events', items: [{ id: 'e1', status: 'confirmed' }] }) };
    await rejectsWith(googleCalendar.readEvents(session, 'x', window, null), 'invalid_data');
    answer = { status: 200, type: 'application/json', body: JSON.stringify({ items: [{ start: { dateTime: '2026-07-01T09:00:00Z' }, end: { dateTime: '2026-07-01T10:00:00Z' } }] }) };
    await rejectsWith(googleCalendar.readEvents(session, 'x', window, null), 'invalid_data');
  });

  test('a calendar list entry without an id is invalid_data; a primary calendar id that is no address too', async () => {
    answer = { status: 200, type: 'application/json', body: JSON.stringify({ items: [{ summary: 'x' }] }) };
    await rejectsWith(googleCalendar.listCalendars(session), 'invalid_data');
    answer = { status: 200, type: 'application/json', body: JSON.stringify({ id: 'primary-calendar' }) };
    await rejectsWith(googleCalendar.accountEmail(session), 'invalid_data');
  });
});

describe('Google event writes', () => {
  const HOST = 'host@example.com';
  let session: TestSession;

  before(async () => {
    google.addAccount(HOST, 'Europe/Berlin');
    google.addCalendar(HOST, { id: 'shared-ro@group.calendar.google.com', summary: 'Read only', accessRole: 'reader' });
    session = await connect(HOST);
  });

  const booking = (uid: string, changes: Partial<CalendarEventInput> = {}): CalendarEventInput => ({
    uid,
    sequence: 0,
    title: 'Intro call',
    description: 'Agenda: intro',
    location: 'https://meet.example/abc',
    start: at('2026-10-25T08:00:00Z'),
    end: at('2026-10-25T08:30:00Z'),
    timeZone: 'Europe/Berlin',
    organizer: { name: 'Host', email: HOST },
    attendees: [
      { name: 'Guest', email: 'guest@example.org' },
      { name: 'Host again', email: 'HOST@example.com' },
      { name: null, email: 'guest@example.org' },
    ],
    private: false,
    ...changes,
  });

  test('insert: iCalUID, sequence, texts, zoned times, the organizer once and first, no mail from Google', async () => {
    const written = await googleCalendar.insertEvent(session, HOST, booking('booking-1@svc.example'));
    const request = google.apiRequests().at(-1)!;
    assert.equal(request.method, 'POST');
    assert.equal(request.path, `/calendar/v3/calendars/${encodeURIComponent(HOST)}/events`);
    assert.equal(request.query.sendUpdates, 'none');
    const stored = google.event(HOST, written.id)!;
    assert.equal(written.etag, stored.etag);
    assert.equal(stored.iCalUID, 'booking-1@svc.example');
    assert.equal(stored.sequence, 0);
    assert.deepEqual([stored.summary, stored.description, stored.location], ['Intro call', 'Agenda: intro', 'https://meet.example/abc']);
    // 25 October 2026 is the day Berlin leaves summer time: 08:00Z is 09:00 at +01:00.
    assert.deepEqual(stored.start, { dateTime: '2026-10-25T09:00:00.000+01:00', timeZone: 'Europe/Berlin' });
    assert.equal(at(stored.end!.dateTime!), at('2026-10-25T08:30:00Z'));
    assert.deepEqual(
      stored.attendees!.map((attendee) => [attendee.email, attendee.responseStatus]),
      [
        [HOST, 'accepted'],
        ['guest@example.org', 'needsAction'],
      ],
    );
    assert.equal(stored.attendees![0]!.self, true);
  });

  test('update patches the fields svc owns and keeps the rest; delete cancels it, and deleting again succeeds', async () => {
    const written = await googleCalendar.insertEvent(session, HOST, booking('booking-2@svc.example'));
    google.editEvent(HOST, written.id, { colorId: '5' });
    const updated = await googleCalendar.updateEvent(
      session,
      HOST,
      written.id,
      booking('booking-2@svc.example', { sequence: 1, title: 'Intro call (moved)', description: null, start: at('2026-10-26T10:00:00Z'), end: at('2026-10-26T11:00:00Z') }),
    );
    const patch = google.apiRequests().at(-1)!;
    assert.deepEqual([patch.method, patch.query.sendUpdates], ['PATCH', 'none']);
    assert.equal(updated.id, written.id);
    assert.notEqual(updated.etag, written.etag);
    const stored = google.event(HOST, written.id)!;
    assert.deepEqual([stored.summary, stored.description, stored.sequence, stored.colorId], ['Intro call (moved)', '', 1, '5']);
    assert.equal(at(stored.start!.dateTime!), at('2026-10-26T10:00:00Z'));
    assert.equal(stored.visibility, 'default');

    // Made private (the event type hides event details), then shared again.
    await googleCalendar.updateEvent(session, HOST, written.id, booking('booking-2@svc.example', { sequence: 2, private: true }));
    assert.equal(google.event(HOST, written.id)!.visibility, 'private');
    await googleCalendar.updateEvent(session, HOST, written.id, booking('booking-2@svc.example', { sequence: 3 }));
    assert.equal(google.event(HOST, written.id)!.visibility, 'default');

    await googleCalendar.deleteEvent(session, HOST, written.id);
    const deletion = google.apiRequests().at(-1)!;
    assert.deepEqual([deletion.method, deletion.query.sendUpdates], ['DELETE', 'none']);
    assert.equal(google.event(HOST, written.id)!.status, 'cancelled');
    // Google answers 410 for a deleted event and 404 for one it never had: both are done.
    await googleCalendar.deleteEvent(session, HOST, written.id);
    assert.equal(google.apiRequests().at(-1)!.query.sendUpdates, 'none');
    await googleCalendar.deleteEvent(session, HOST, 'neverexisted0123');
  });

  test('updating an event that is gone is not_found', async () => {
    await rejectsWith(googleCalendar.updateEvent(session, HOST, 'neverexisted0123', booking('x@svc.example')), 'not_found');
  });

  test('a retried insert (409 duplicate iCalUID) updates the event that holds the UID instead of failing', async () => {
    const first = await googleCalendar.insertEvent(session, HOST, booking('booking-3@svc.example'));
    const before = google.apiRequests().length;
    const again = await googleCalendar.insertEvent(session, HOST, booking('booking-3@svc.example', { sequence: 1, title: 'Renamed' }));
    assert.equal(again.id, first.id);
    const calls = google.apiRequests().slice(before);
    assert.deepEqual(
      calls.map((request) => request.method),
      ['POST', 'GET', 'PATCH'],
    );
    assert.equal(calls[1]!.query.iCalUID, 'booking-3@svc.example');
    const holders = google.events(HOST).filter((event) => event.iCalUID === 'booking-3@svc.example');
    assert.equal(holders.length, 1);
    assert.deepEqual([holders[0]!.summary, holders[0]!.sequence], ['Renamed', 1]);
  });

  test('inserting again after the event was deleted in Google restores the event that holds the UID', async () => {
    const first = await googleCalendar.insertEvent(session, HOST, booking('booking-4@svc.example'));
    google.removeEvent(HOST, first.id);
    const again = await googleCalendar.insertEvent(session, HOST, booking('booking-4@svc.example', { sequence: 2 }));
    assert.equal(again.id, first.id);
    assert.equal(google.event(HOST, first.id)!.status, 'confirmed');
  });

  test('writing into a calendar the user may only read is invalid_data, not a refused connection', async () => {
    await rejectsWith(googleCalendar.insertEvent(session, 'shared-ro@group.calendar.google.com', booking('booking-5@svc.example')), 'invalid_data');
  });
});
