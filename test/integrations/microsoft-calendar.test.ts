// The Microsoft 365 calendar adapter against a local fake of the Microsoft identity platform and
// Microsoft Graph (test/support/fake-microsoft.ts), over real HTTP on loopback through svc's guarded
// fetch: the OAuth code flow and token refresh (rotation, 401s, revocation), calendars, busy time from
// calendarView delta (paging, all-day events, what counts as busy, incremental reads, expired delta
// links), event writes, and the failures the adapter maps.
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
import { MICROSOFT_ENDPOINTS, MICROSOFT_SCOPES, microsoftCalendar, transactionIdOf } from '../../src/integrations/microsoft/index.js';
import { outboundFetch } from '../../src/integrations/outbound-fetch.js';
import { freePort } from '../support/child-server.js';
import { type FakeMicrosoft, startFakeMicrosoft } from '../support/fake-microsoft.js';

const guardedFetch = outboundFetch({ allowPrivate: true, timeoutMs: 5000, maxResponseBytes: 5_000_000 });
const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

function clientOf(fake: FakeMicrosoft): OAuthClient {
  return { clientId: fake.clientId, clientSecret: fake.clientSecret, redirectUri: fake.redirectUri, endpoints: fake.endpoints };
}

/** The browser's part of the code flow: the fake consents at once and redirects back. */
async function consent(fake: FakeMicrosoft, state: string, loginHint?: string): Promise<URL> {
  const answer = await fetch(microsoftCalendar.authorizationUrl(clientOf(fake), state, loginHint), { redirect: 'manual' });
  assert.equal(answer.status, 302);
  return new URL(answer.headers.get('location')!);
}

interface Connection {
  session: OAuthSession;
  /** Tokens handed to onTokens, in order. */
  saved: OAuthTokens[];
  /** Added to the fake's clock for the session's `now`. */
  skew: { ms: number };
}

async function connect(fake: FakeMicrosoft): Promise<Connection> {
  const code = (await consent(fake, 'connect')).searchParams.get('code')!;
  const tokens = await microsoftCalendar.exchangeCode(clientOf(fake), code, guardedFetch, fake.now());
  const saved: OAuthTokens[] = [];
  const skew = { ms: 0 };
  const session: OAuthSession = {
    client: clientOf(fake),
    tokens,
    onTokens: async (next) => {
      saved.push(next);
    },
    fetch: guardedFetch,
    now: () => fake.now() + skew.ms,
  };
  return { session, saved, skew };
}

/** Rejects with a CalendarProviderError of `kind` whose message holds no token or secret. */
async function rejectsWith(promise: Promise<unknown>, kind: CalendarFailureKind, secrets: string[]): Promise<CalendarProviderError> {
  const error = await promise.then(
    () => assert.fail(`expected a ${kind} failure`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof CalendarProviderError, `not a CalendarProviderError: ${String(error)}`);
  assert.equal(error.kind, kind, error.message);
  for (const secret of secrets) assert.ok(!error.message.includes(secret), `the message shows a secret: ${error.message}`);
  return error;
}

const secretsOf = (connection: Connection, fake: FakeMicrosoft) => [
  connection.session.tokens.accessToken,
  connection.session.tokens.refreshToken,
  ...connection.saved.flatMap((tokens) => [tokens.accessToken, tokens.refreshToken]),
  fake.clientSecret,
];

/** key -> its intervals as [start, end] ISO strings, for readable comparisons. */
function busyByKey(read: ExternalEventsRead): Map<string, [string, string][]> {
  return new Map(read.events.map((event) => [event.key, event.intervals.map((interval) => [new Date(interval.start).toISOString(), new Date(interval.end).toISOString()] as [string, string])]));
}

function bookingEvent(overrides: Partial<CalendarEventInput> = {}): CalendarEventInput {
  return {
    uid: '3f1c2b9a-6d4e-4c1f-9a7b-2e5d8c0f1a2b',
    sequence: 0,
    title: 'Intro call between Megan and Alex',
    description: 'Talk about the roadmap.',
    location: 'https://meet.example/abc',
    start: at('2026-07-14T08:30:00Z'),
    end: at('2026-07-14T09:00:00Z'),
    timeZone: 'Europe/Berlin',
    organizer: { name: 'Megan Bowen', email: 'megan.bowen@contoso.example' },
    attendees: [
      { name: 'Alex Wilber', email: 'alex@fabrikam.example' },
      { name: null, email: 'sam@fabrikam.example' },
    ],
    private: false,
    ...overrides,
  };
}

test('the Microsoft endpoints and the scopes asked for', () => {
  assert.deepEqual(MICROSOFT_ENDPOINTS, {
    authorize: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    token: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    api: 'https://graph.microsoft.com',
  });
  assert.deepEqual(MICROSOFT_SCOPES.split(' ').sort(), ['Calendars.ReadWrite', 'User.Read', 'offline_access']);
});

test('the authorization URL: code flow answered in the query, the scopes, the state, the account picker unless a login hint names the account', () => {
  const client: OAuthClient = { clientId: 'app-id', clientSecret: 'app-secret-value', redirectUri: 'https://svc.example/cb', endpoints: MICROSOFT_ENDPOINTS };
  const url = new URL(microsoftCalendar.authorizationUrl(client, 'st@te/1'));
  assert.equal(`${url.origin}${url.pathname}`, MICROSOFT_ENDPOINTS.authorize);
  assert.deepEqual(Object.fromEntries(url.searchParams), {
    client_id: 'app-id',
    response_type: 'code',
    redirect_uri: 'https://svc.example/cb',
    response_mode: 'query',
    scope: MICROSOFT_SCOPES,
    state: 'st@te/1',
    prompt: 'select_account',
  });
  const hinted = new URL(microsoftCalendar.authorizationUrl(client, 's', 'megan@contoso.example'));
  assert.equal(hinted.searchParams.get('login_hint'), 'megan@contoso.example');
  assert.equal(hinted.searchParams.get('prompt'), null);
  assert.ok(!url.href.includes('app-secret-value'));
});

describe('Microsoft calendar adapter against the fake Microsoft', () => {
  let fake: FakeMicrosoft;

  before(async () => {
    fake = await startFakeMicrosoft({ pageSize: 3 });
  });
  after(async () => fake?.close());

  describe('OAuth', () => {
    test('round trip: consent comes back with the same state and a code, which is traded once for tokens', async () => {
      const back = await consent(fake, 'state-Ω 42');
      assert.equal(`${back.origin}${back.pathname}`, fake.redirectUri);
      assert.equal(back.searchParams.get('state'), 'state-Ω 42');
      const asked = fake.authorizeRequests.at(-1)!;
      assert.equal(asked.get('scope'), MICROSOFT_SCOPES);
      const code = back.searchParams.get('code')!;
      const now = fake.now();
      const tokens = await microsoftCalendar.exchangeCode(clientOf(fake), code, guardedFetch, now);
      assert.equal(tokens.expiresAt, now + 3599 * 1000);
      assert.ok(tokens.accessToken.length > 20);
      assert.ok(fake.refreshTokenWorks(tokens.refreshToken));
      assert.equal(tokens.scope, 'Calendars.ReadWrite User.Read');
      // A code is good for one exchange.
      await rejectsWith(microsoftCalendar.exchangeCode(clientOf(fake), code, guardedFetch, now), 'unauthorized', [code, fake.clientSecret]);
    });

    test('a wrong client secret is refused as unauthorized, the secret not shown', async () => {
      const code = (await consent(fake, 's')).searchParams.get('code')!;
      const wrong = { ...clientOf(fake), clientSecret: 'not-the-right-secret' };
      const error = await rejectsWith(microsoftCalendar.exchangeCode(wrong, code, guardedFetch, fake.now()), 'unauthorized', ['not-the-right-secret', code]);
      assert.match(error.message, /invalid_client/);
    });

    test('an access token expiring within a minute is refreshed first; the rotated refresh token is kept, the old one no longer works', async () => {
      const connection = await connect(fake);
      const original = connection.session.tokens;
      // 61 s left: used as it is.
      connection.skew.ms = original.expiresAt - fake.now() - 61_000;
      await microsoftCalendar.accountEmail(connection.session);
      assert.equal(connection.saved.length, 0);
      assert.equal(fake.requests.at(-1)!.accessToken, original.accessToken);
      // 30 s left: refreshed before the call.
      connection.skew.ms = original.expiresAt - fake.now() - 30_000;
      assert.equal(await microsoftCalendar.accountEmail(connection.session), 'megan.bowen@contoso.example');
      assert.equal(connection.saved.length, 1);
      const renewed = connection.saved[0]!;
      assert.equal(fake.tokenGrants.at(-1), 'refresh_token');
      assert.equal(fake.requests.at(-1)!.accessToken, renewed.accessToken);
      assert.notEqual(renewed.refreshToken, original.refreshToken);
      assert.deepEqual(connection.session.tokens, renewed);
      assert.ok(fake.refreshTokenWorks(renewed.refreshToken));
      assert.ok(!fake.refreshTokenWorks(original.refreshToken), 'the fake refuses the old refresh token');
      // expires_in counted from the session's clock.
      assert.ok(Math.abs(renewed.expiresAt - (connection.session.now() + 3599 * 1000)) < 2000);
    });

    test('a 401 is answered by one refresh and one retry', async () => {
      const connection = await connect(fake);
      const before = connection.session.tokens;
      fake.expireAccessTokens();
      const from = fake.requests.length;
      const calendars = await microsoftCalendar.listCalendars(connection.session);
      assert.ok(calendars.length > 0);
      assert.equal(connection.saved.length, 1);
      const [refused, ...retried] = fake.requests.slice(from).map((call) => call.accessToken);
      assert.equal(refused, before.accessToken);
      assert.ok(retried.length > 0 && retried.every((token) => token === connection.saved[0]!.accessToken));
    });

    test('a second 401 after the refresh is unauthorized: no second refresh, no third try', async () => {
      const connection = await connect(fake);
      fake.failNext(2, { status: 401 });
      const from = fake.requests.length;
      const grants = fake.tokenGrants.length;
      await rejectsWith(microsoftCalendar.accountEmail(connection.session), 'unauthorized', secretsOf(connection, fake));
      assert.equal(fake.requests.length - from, 2);
      assert.deepEqual(fake.tokenGrants.slice(grants), ['refresh_token']);
      assert.equal(connection.saved.length, 1);
    });

    test('calls in parallel that all meet an expired token share one refresh', async () => {
      const connection = await connect(fake);
      fake.expireAccessTokens();
      const grants = fake.tokenGrants.length;
      const emails = await Promise.all([1, 2, 3].map(() => microsoftCalendar.accountEmail(connection.session)));
      assert.deepEqual(emails, Array(3).fill('megan.bowen@contoso.example'));
      assert.deepEqual(fake.tokenGrants.slice(grants), ['refresh_token']);
      assert.equal(connection.saved.length, 1);
    });

    test('consent withdrawn: the refresh is refused (invalid_grant) and the call fails as unauthorized', async () => {
      const connection = await connect(fake);
      fake.revokeConsent();
      const error = await rejectsWith(microsoftCalendar.listCalendars(connection.session), 'unauthorized', secretsOf(connection, fake));
      assert.match(error.message, /invalid_grant/);
      assert.equal(connection.saved.length, 0);
    });

    test('the token endpoint busy: rate_limited with its Retry-After', async () => {
      const connection = await connect(fake);
      connection.skew.ms = connection.session.tokens.expiresAt - fake.now();
      fake.failNext(1, { status: 429, retryAfterSeconds: 12, target: 'token', code: 'temporarily_unavailable' });
      const error = await rejectsWith(microsoftCalendar.accountEmail(connection.session), 'rate_limited', secretsOf(connection, fake));
      assert.equal(error.retryAfterMs, 12_000);
    });
  });

  test('calendars: every page, the default one primary, the ones the user may not edit read-only', async () => {
    const other = await startFakeMicrosoft({ pageSize: 4 });
    try {
      for (let i = 1; i <= 8; i++) other.addCalendar({ name: `Team ${i}` });
      const shared = other.addCalendar({ name: 'Holidays (shared)', canEdit: false });
      const connection = await connect(other);
      const from = other.requests.length;
      const calendars = await microsoftCalendar.listCalendars(connection.session);
      assert.equal(calendars.length, 10);
      assert.equal(other.requests.length - from, 3, 'three pages of at most four');
      assert.deepEqual(calendars[0], { externalId: other.defaultCalendarId, name: 'Calendar', primary: true, readOnly: false, timeZone: null });
      assert.deepEqual(calendars.at(-1), { externalId: shared, name: 'Holidays (shared)', primary: false, readOnly: true, timeZone: null });
      assert.deepEqual(
        calendars.slice(1, -1).map((calendar) => [calendar.name, calendar.primary, calendar.readOnly]),
        Array.from({ length: 8 }, (_, i) => [`Team ${i + 1}`, false, false]),
      );
    } finally {
      await other.close();
    }
  });

  test('account address: mail, else the sign-in name', async () => {
    const personal = await startFakeMicrosoft({ user: { mail: null, userPrincipalName: 'alex@outlook.example' } });
    try {
      const connection = await connect(personal);
      assert.equal(await microsoftCalendar.accountEmail(connection.session), 'alex@outlook.example');
    } finally {
      await personal.close();
    }
  });

  describe('busy time', () => {
    const window = { from: at('2026-03-23T00:00:00Z'), to: at('2026-04-06T00:00:00Z') };
    let connection: Connection;
    let calendarId: string;

    before(async () => {
      connection = await connect(fake);
      calendarId = fake.addCalendar({ name: 'Busy time' });
    });

    test('a full read follows every page to the delta link, in UTC, with the page size asked for', async () => {
      const ids: string[] = [];
      for (let day = 0; day < 7; day++) {
        ids.push(fake.addEvent(calendarId, { subject: `Meeting ${day}`, start: at('2026-03-24T09:00:00Z') + day * 24 * HOUR, end: at('2026-03-24T10:15:00Z') + day * 24 * HOUR }));
      }
      // Outside the window: not read.
      fake.addEvent(calendarId, { start: at('2026-04-10T09:00:00Z'), end: at('2026-04-10T10:00:00Z') });
      const from = fake.requests.length;
      const read = await microsoftCalendar.readEvents(connection.session, calendarId, window, null);
      const calls = fake.requests.slice(from);
      assert.equal(calls.length, 3, 'seven events, three per page');
      assert.ok(calls.every((call) => call.prefer?.includes('outlook.timezone="UTC"') && call.prefer.includes('odata.maxpagesize=')));
      assert.equal(calls[0]!.query.get('startDateTime'), '2026-03-23T00:00:00.000Z');
      assert.equal(calls[0]!.query.get('endDateTime'), '2026-04-06T00:00:00.000Z');
      assert.ok(calls[1]!.query.has('$skiptoken'));
      assert.equal(read.full, true);
      assert.deepEqual(read.removed, []);
      assert.notEqual(read.state, null);
      assert.deepEqual(
        [...busyByKey(read)].sort(),
        ids.map((id, day) => [id, [[new Date(at('2026-03-24T09:00:00Z') + day * 24 * HOUR).toISOString(), new Date(at('2026-03-24T10:15:00Z') + day * 24 * HOUR).toISOString()]]]).sort(),
      );
      for (const id of ids) fake.removeEvent(id);
    });

    test('all-day events are the day of the zone they were made in: 23 hours in Berlin on 29 March 2026, 25 in New York on 1 November', async () => {
      const berlin = await startFakeMicrosoft();
      try {
        const own = await connect(berlin);
        const springForward = berlin.addEvent(berlin.defaultCalendarId, {
          subject: 'Offsite',
          allDay: { startDate: '2026-03-29', endDate: '2026-03-30', zone: 'Europe/Berlin' },
          originalStartTimeZone: 'W. Europe Standard Time',
        });
        const fallBack = berlin.addEvent(berlin.defaultCalendarId, {
          subject: 'Travel',
          allDay: { startDate: '2026-11-01', endDate: '2026-11-02', zone: 'America/New_York' },
        });
        const twoDays = berlin.addEvent(berlin.defaultCalendarId, {
          subject: 'Conference',
          allDay: { startDate: '2026-11-05', endDate: '2026-11-07', zone: 'Asia/Kathmandu' },
          originalStartTimeZone: 'Nepal Standard Time',
        });
        const custom = berlin.addEvent(berlin.defaultCalendarId, {
          subject: 'Legacy',
          allDay: { startDate: '2026-11-10', endDate: '2026-11-11', zone: 'UTC' },
          originalStartTimeZone: 'tzone://Microsoft/Custom',
        });
        const read = await microsoftCalendar.readEvents(own.session, berlin.defaultCalendarId, { from: at('2026-03-01T00:00:00Z'), to: at('2026-12-01T00:00:00Z') }, null);
        const busy = busyByKey(read);
        assert.deepEqual(busy.get(springForward), [['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']]);
        assert.deepEqual(busy.get(fallBack), [['2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z']]);
        assert.deepEqual(busy.get(twoDays), [['2026-11-04T18:15:00.000Z', '2026-11-06T18:15:00.000Z']]);
        assert.deepEqual(busy.get(custom), [['2026-11-10T00:00:00.000Z', '2026-11-11T00:00:00.000Z']], 'an unknown zone: UTC midnights');
      } finally {
        await berlin.close();
      }
    });

    test('busy: busy, tentative, oof, unknown; not busy: free, workingElsewhere, cancelled, declined; a series master is left out', async () => {
      const start = at('2026-03-30T13:00:00Z');
      const end = at('2026-03-30T14:00:00Z');
      const own = fake.addCalendar({ name: 'Show as' });
      const kinds = {
        busy: fake.addEvent(own, { start, end, showAs: 'busy' }),
        tentative: fake.addEvent(own, { start, end, showAs: 'tentative' }),
        oof: fake.addEvent(own, { start, end, showAs: 'oof' }),
        unknown: fake.addEvent(own, { start, end, showAs: 'unknown' }),
        accepted: fake.addEvent(own, { start, end, showAs: 'busy', response: 'accepted' }),
        free: fake.addEvent(own, { start, end, showAs: 'free' }),
        workingElsewhere: fake.addEvent(own, { start, end, showAs: 'workingElsewhere' }),
        cancelled: fake.addEvent(own, { start, end, showAs: 'busy', isCancelled: true }),
        declined: fake.addEvent(own, { start, end, showAs: 'busy', response: 'declined' }),
        master: fake.addEvent(own, { start, end, showAs: 'busy', type: 'seriesMaster' }),
      };
      const read = await microsoftCalendar.readEvents(connection.session, own, window, null);
      const busy = busyByKey(read);
      const hour: [string, string][] = [['2026-03-30T13:00:00.000Z', '2026-03-30T14:00:00.000Z']];
      for (const kind of ['busy', 'tentative', 'oof', 'unknown', 'accepted'] as const) assert.deepEqual(busy.get(kinds[kind]), hour, kind);
      for (const kind of ['free', 'workingElsewhere', 'cancelled', 'declined'] as const) assert.deepEqual(busy.get(kinds[kind]), [], kind);
      assert.equal(busy.has(kinds.master), false);
      // Events the user made carry Graph's iCalUId.
      const first = read.events.find((event) => event.key === kinds.busy)!;
      assert.equal(first.intervals[0]!.uid, fake.event(kinds.busy)!.iCalUId);
    });

    test('an incremental read brings what changed: edited, added, deleted, moved out of the window', async () => {
      const own = fake.addCalendar({ name: 'Changes' });
      const kept = fake.addEvent(own, { start: at('2026-03-25T09:00:00Z'), end: at('2026-03-25T10:00:00Z') });
      const edited = fake.addEvent(own, { start: at('2026-03-26T09:00:00Z'), end: at('2026-03-26T10:00:00Z') });
      const deleted = fake.addEvent(own, { start: at('2026-03-27T09:00:00Z'), end: at('2026-03-27T10:00:00Z') });
      const movedOut = fake.addEvent(own, { start: at('2026-03-28T09:00:00Z'), end: at('2026-03-28T10:00:00Z') });
      const madeFree = fake.addEvent(own, { start: at('2026-03-29T09:00:00Z'), end: at('2026-03-29T10:00:00Z') });
      const first = await microsoftCalendar.readEvents(connection.session, own, window, null);
      assert.deepEqual(first.events.map((event) => event.key).sort(), [kept, edited, deleted, movedOut, madeFree].sort());

      fake.editEvent(edited, { start: at('2026-03-26T15:00:00Z'), end: at('2026-03-26T16:30:00Z') });
      fake.removeEvent(deleted);
      fake.editEvent(movedOut, { start: at('2026-05-01T09:00:00Z'), end: at('2026-05-01T10:00:00Z') });
      fake.editEvent(madeFree, { showAs: 'free' });
      const added = fake.addEvent(own, { start: at('2026-04-01T07:00:00Z'), end: at('2026-04-01T07:45:00Z') });

      const from = fake.requests.length;
      const changes = await microsoftCalendar.readEvents(connection.session, own, window, first.state);
      assert.ok(fake.requests.slice(from)[0]!.query.has('$deltatoken'), 'the stored delta link was followed');
      assert.equal(changes.full, false);
      assert.deepEqual(
        [...busyByKey(changes)].sort(),
        [
          [edited, [['2026-03-26T15:00:00.000Z', '2026-03-26T16:30:00.000Z']]],
          [madeFree, []],
          [added, [['2026-04-01T07:00:00.000Z', '2026-04-01T07:45:00.000Z']]],
        ].sort(),
      );
      assert.deepEqual(changes.removed.sort(), [deleted, movedOut].sort());
      assert.notEqual(changes.state, first.state);

      const quiet = await microsoftCalendar.readEvents(connection.session, own, window, changes.state);
      assert.deepEqual(quiet, { full: false, events: [], removed: [], state: quiet.state });
    });

    test('a state from another window or another calendar starts a full read', async () => {
      const own = fake.addCalendar({ name: 'Moving window' });
      const late = fake.addEvent(own, { start: at('2026-04-08T09:00:00Z'), end: at('2026-04-08T10:00:00Z') });
      const first = await microsoftCalendar.readEvents(connection.session, own, window, null);
      assert.deepEqual(first.events, []);
      const moved = { from: window.from + 7 * 24 * HOUR, to: window.to + 7 * 24 * HOUR };
      const read = await microsoftCalendar.readEvents(connection.session, own, moved, first.state);
      assert.equal(read.full, true);
      assert.deepEqual([...busyByKey(read).keys()], [late]);
      const neighbour = fake.addCalendar({ name: 'Next door' });
      const next = fake.addEvent(neighbour, { start: at('2026-04-09T09:00:00Z'), end: at('2026-04-09T10:00:00Z') });
      const other = await microsoftCalendar.readEvents(connection.session, neighbour, moved, read.state);
      assert.equal(other.full, true);
      assert.deepEqual([...busyByKey(other).keys()], [next]);
    });

    for (const mode of ['gone', 'syncStateNotFound'] as const) {
      test(`an expired delta link (${mode === 'gone' ? '410 Gone' : '400 syncStateNotFound'}) is answered with a full read`, async () => {
        const own = fake.addCalendar({ name: `Expiring ${mode}` });
        const one = fake.addEvent(own, { start: at('2026-03-25T09:00:00Z'), end: at('2026-03-25T10:00:00Z') });
        const first = await microsoftCalendar.readEvents(connection.session, own, window, null);
        const two = fake.addEvent(own, { start: at('2026-03-26T09:00:00Z'), end: at('2026-03-26T10:00:00Z') });
        fake.expireDeltaTokens(mode);
        const read = await microsoftCalendar.readEvents(connection.session, own, window, first.state);
        assert.equal(read.full, true);
        assert.deepEqual(read.events.map((event) => event.key).sort(), [one, two].sort());
        assert.deepEqual(read.removed, []);
        // The new state works.
        const next = await microsoftCalendar.readEvents(connection.session, own, window, read.state);
        assert.equal(next.full, false);
      });
    }

    test('410 on a delta link is an expired link whatever error code comes with it', async () => {
      const own = fake.addCalendar({ name: 'Gone without a code' });
      const one = fake.addEvent(own, { start: at('2026-03-25T09:00:00Z'), end: at('2026-03-25T10:00:00Z') });
      const first = await microsoftCalendar.readEvents(connection.session, own, window, null);
      fake.failNext(1, { status: 410, code: 'Gone' });
      const read = await microsoftCalendar.readEvents(connection.session, own, window, first.state);
      assert.equal(read.full, true);
      assert.deepEqual([...busyByKey(read).keys()], [one]);
    });

    test('a calendar that is gone: not_found', async () => {
      await rejectsWith(microsoftCalendar.readEvents(connection.session, 'AAMkNoSuchCalendar=', window, null), 'not_found', secretsOf(connection, fake));
    });

    test('a paging link to another host is not followed (the token would go with it)', async () => {
      let contacted = 0;
      const elsewhere = http.createServer((_req, res) => {
        contacted += 1;
        res.end('{}');
      });
      await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
      try {
        const link = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/v1.0/me/calendarView/delta?$skiptoken=x`;
        fake.failNext(1, { status: 200, rawBody: JSON.stringify({ value: [], '@odata.nextLink': link }) });
        await rejectsWith(microsoftCalendar.readEvents(connection.session, calendarId, window, null), 'invalid_data', secretsOf(connection, fake));
        assert.equal(contacted, 0);
      } finally {
        await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
      }
    });
  });

  describe('failures', () => {
    let connection: Connection;
    before(async () => {
      connection = await connect(fake);
    });

    test('429 with Retry-After: rate_limited after that long', async () => {
      fake.failNext(1, { status: 429, retryAfterSeconds: 7 });
      const error = await rejectsWith(microsoftCalendar.listCalendars(connection.session), 'rate_limited', secretsOf(connection, fake));
      assert.equal(error.retryAfterMs, 7000);
      assert.match(error.message, /HTTP 429 TooManyRequests/);
    });

    test('503: rate_limited, with Retry-After when given', async () => {
      fake.failNext(1, { status: 503, retryAfterSeconds: 30 });
      assert.equal((await rejectsWith(microsoftCalendar.accountEmail(connection.session), 'rate_limited', [])).retryAfterMs, 30_000);
      fake.failNext(1, { status: 503 });
      assert.equal((await rejectsWith(microsoftCalendar.accountEmail(connection.session), 'rate_limited', [])).retryAfterMs, undefined);
    });

    test('500: unreachable', async () => {
      fake.failNext(1, { status: 500 });
      await rejectsWith(microsoftCalendar.readEvents(connection.session, fake.defaultCalendarId, { from: 0, to: HOUR }, null), 'unreachable', secretsOf(connection, fake));
    });

    test('403 (rights withdrawn): unauthorized, without a refresh', async () => {
      const grants = fake.tokenGrants.length;
      fake.failNext(1, { status: 403 });
      await rejectsWith(microsoftCalendar.listCalendars(connection.session), 'unauthorized', secretsOf(connection, fake));
      assert.equal(fake.tokenGrants.length, grants);
    });

    test("Graph's words are passed on without a token they echo", async () => {
      const token = connection.session.tokens.accessToken;
      fake.failNext(1, { status: 400, rawBody: JSON.stringify({ error: { code: 'BadRequest', message: `Bearer ${token} is malformed` } }) });
      const error = await rejectsWith(microsoftCalendar.accountEmail(connection.session), 'invalid_data', secretsOf(connection, fake));
      assert.match(error.message, /HTTP 400 BadRequest: Bearer \[redacted\] is malformed/);
    });

    test('nothing listening: unreachable', async () => {
      const port = await freePort();
      const session: OAuthSession = { ...connection.session, client: { ...connection.session.client, endpoints: { ...fake.endpoints, api: `http://127.0.0.1:${port}/graph` } } };
      await rejectsWith(microsoftCalendar.accountEmail(session), 'unreachable', secretsOf(connection, fake));
    });

    test('answers that are not what Graph sends: invalid_data', async () => {
      fake.failNext(1, { status: 200, rawBody: '<html>sign in</html>' });
      await rejectsWith(microsoftCalendar.listCalendars(connection.session), 'invalid_data', []);
      fake.failNext(1, { status: 200, rawBody: JSON.stringify({ value: [{ name: 'no id' }] }) });
      await rejectsWith(microsoftCalendar.listCalendars(connection.session), 'invalid_data', []);
      fake.failNext(1, { status: 200, rawBody: JSON.stringify({ value: [{ id: 'x', start: { dateTime: 'soon', timeZone: 'UTC' }, end: {} }], '@odata.deltaLink': `${fake.endpoints.api}/v1.0/x` }) });
      await rejectsWith(microsoftCalendar.readEvents(connection.session, fake.defaultCalendarId, { from: 0, to: HOUR }, null), 'invalid_data', []);
      fake.failNext(1, { status: 200, rawBody: JSON.stringify({ mail: null }) });
      await rejectsWith(microsoftCalendar.accountEmail(connection.session), 'invalid_data', []);
    });
  });

  describe('writing booking events', () => {
    let connection: Connection;
    let calendarId: string;
    before(async () => {
      connection = await connect(fake);
      calendarId = fake.addCalendar({ name: 'Bookings' });
    });

    test('insert: the booking in the organizer zone, attendees named in the text but not invited by Microsoft, the UID carried in transactionId', async () => {
      const event = bookingEvent();
      const written = await microsoftCalendar.insertEvent(connection.session, calendarId, event);
      const stored = fake.event(written.id)!;
      assert.equal(stored.calendarId, calendarId);
      assert.equal(stored.subject, event.title);
      assert.equal(stored.start, event.start);
      assert.equal(stored.end, event.end);
      assert.equal(stored.originalStartTimeZone, 'W. Europe Standard Time');
      assert.equal(stored.location, 'https://meet.example/abc');
      assert.deepEqual(stored.body, { contentType: 'text', content: 'Talk about the roadmap.\n\nAttendees:\nAlex Wilber <alex@fabrikam.example>\nsam@fabrikam.example' });
      assert.deepEqual(stored.attendees, []);
      assert.deepEqual(fake.invitationsSent, []);
      assert.equal(stored.transactionId, transactionIdOf(event.uid, event.sequence));
      assert.equal(written.etag, `W/"${stored.changeKey}"`);
      const post = fake.requests.findLast((call) => call.method === 'POST')!;
      assert.deepEqual((post.json as { start: unknown }).start, { dateTime: '2026-07-14T10:30:00', timeZone: 'W. Europe Standard Time' });

      // Read back, the busy interval carries the booking's UID, not Graph's iCalUId.
      const read = await microsoftCalendar.readEvents(connection.session, calendarId, { from: at('2026-07-01T00:00:00Z'), to: at('2026-08-01T00:00:00Z') }, null);
      assert.deepEqual(read.events, [{ key: written.id, intervals: [{ start: event.start, end: event.end, uid: event.uid }] }]);
      fake.removeEvent(written.id);
    });

    test('a retried insert does not make a second event: the first try stored it but its answer was lost', async () => {
      const event = bookingEvent({ uid: 'retried-booking@svc.example', start: at('2026-07-15T08:00:00Z'), end: at('2026-07-15T08:30:00Z') });
      fake.failNext(1, { status: 500, afterHandling: true });
      await rejectsWith(microsoftCalendar.insertEvent(connection.session, calendarId, event), 'unreachable', secretsOf(connection, fake));
      assert.equal(fake.events(calendarId).length, 1, 'the first try was stored');
      const written = await microsoftCalendar.insertEvent(connection.session, calendarId, event);
      const again = await microsoftCalendar.insertEvent(connection.session, calendarId, event);
      assert.deepEqual(
        fake.events(calendarId).map((stored) => stored.id),
        [written.id],
      );
      assert.equal(again.id, written.id);
      fake.removeEvent(written.id);
    });

    test('a zone Graph has no Windows name for here is written in UTC, at the same instants', async () => {
      const event = bookingEvent({ uid: 'toronto@svc.example', timeZone: 'America/Toronto' });
      const written = await microsoftCalendar.insertEvent(connection.session, calendarId, event);
      const stored = fake.event(written.id)!;
      assert.equal(stored.originalStartTimeZone, 'UTC');
      assert.deepEqual([stored.start, stored.end], [event.start, event.end]);
      fake.removeEvent(written.id);
    });

    test('update: the same event, moved and renamed, transactionId unchanged; a missing event is not_found', async () => {
      const event = bookingEvent({ uid: 'moved@svc.example' });
      const written = await microsoftCalendar.insertEvent(connection.session, calendarId, event);
      const changed = { ...event, sequence: 1, title: 'Moved call', start: at('2026-07-16T12:00:00Z'), end: at('2026-07-16T12:45:00Z'), location: null };
      const updated = await microsoftCalendar.updateEvent(connection.session, calendarId, written.id, changed);
      assert.equal(updated.id, written.id);
      assert.notEqual(updated.etag, written.etag);
      const stored = fake.event(written.id)!;
      assert.deepEqual([stored.subject, stored.start, stored.end, stored.location], ['Moved call', changed.start, changed.end, '']);
      assert.equal(stored.transactionId, transactionIdOf(event.uid, 0));
      assert.equal(stored.sensitivity, 'normal');
      assert.equal(fake.events(calendarId).length, 1);
      // Made private (the event type hides event details), then shared again.
      await microsoftCalendar.updateEvent(connection.session, calendarId, written.id, { ...changed, sequence: 2, private: true });
      assert.equal(fake.event(written.id)!.sensitivity, 'private');
      await microsoftCalendar.updateEvent(connection.session, calendarId, written.id, { ...changed, sequence: 3 });
      assert.equal(fake.event(written.id)!.sensitivity, 'normal');
      assert.deepEqual(fake.invitationsSent, []);
      fake.removeEvent(written.id);
      await rejectsWith(microsoftCalendar.updateEvent(connection.session, calendarId, written.id, changed), 'not_found', secretsOf(connection, fake));
    });

    test('delete: the event is gone; deleting it again succeeds', async () => {
      const written = await microsoftCalendar.insertEvent(connection.session, calendarId, bookingEvent({ uid: 'deleted@svc.example' }));
      await microsoftCalendar.deleteEvent(connection.session, calendarId, written.id);
      assert.equal(fake.event(written.id), undefined);
      const from = fake.requests.length;
      await microsoftCalendar.deleteEvent(connection.session, calendarId, written.id);
      assert.equal(fake.requests.length - from, 1, 'Graph was asked and answered 404');
    });
  });
});
