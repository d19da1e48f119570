// Zoom's adapters against a local Zoom (test/support/fake-zoom.ts): OAuth (the code exchanged with the client
// in HTTP Basic, refresh tokens rotated, the account read, failures typed) and meetings (create, move, delete,
// on a session whose tokens are refreshed when they run out or are revoked).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CalendarProviderError, type OAuthClient, type OAuthSession, type OAuthTokens } from '../../src/integrations/calendar-types.js';
import { createMeeting, deleteMeeting, updateMeeting } from '../../src/integrations/zoom/meetings.js';
import { accountEmail, authorizationUrl, exchangeCode, refreshTokens } from '../../src/integrations/zoom/oauth.js';
import { type FakeZoom, startFakeZoom } from '../support/fake-zoom.js';

const REDIRECT = 'https://svc.example.test/v2/conferencing/zoom/oauth/callback';

describe('Zoom OAuth adapter', () => {
  let zoom: FakeZoom;
  let client: OAuthClient;
  before(async () => {
    zoom = await startFakeZoom({ clientId: 'zoom-client', clientSecret: 'zoom-secret-value', redirectUri: REDIRECT, email: 'ada@zoom.example' });
    client = { clientId: 'zoom-client', clientSecret: 'zoom-secret-value', redirectUri: REDIRECT, endpoints: zoom.endpoints };
  });
  after(() => zoom.close());

  async function codeFor(state: string): Promise<string> {
    const page = await fetch(authorizationUrl(client, state), { redirect: 'manual' });
    assert.equal(page.status, 302);
    const back = new URL(page.headers.get('location')!);
    assert.equal(back.searchParams.get('state'), state);
    return back.searchParams.get('code')!;
  }

  test('code for tokens, the account, a refresh that rotates the refresh token', async () => {
    const now = Date.UTC(2026, 10, 29, 10);
    const tokens = await exchangeCode(client, await codeFor('s1'), fetch, now);
    assert.equal(tokens.expiresAt, now + 3599_000);
    assert.equal(await accountEmail(client, tokens.accessToken, fetch), 'ada@zoom.example');
    const renewed = await refreshTokens(client, tokens.refreshToken, fetch, now);
    assert.notEqual(renewed.refreshToken, tokens.refreshToken);
    await assert.rejects(refreshTokens(client, tokens.refreshToken, fetch, now), (error: unknown) => error instanceof CalendarProviderError && error.kind === 'unauthorized');
    assert.deepEqual(zoom.tokenGrants, ['authorization_code', 'refresh_token', 'refresh_token']);
  });

  test('a wrong client secret, a used code and a bad token are refused with the secret kept out of the message', async () => {
    const code = await codeFor('s2');
    const wrong = { ...client, clientSecret: 'not-the-secret' };
    await assert.rejects(exchangeCode(wrong, code, fetch, Date.now()), (error: unknown) => error instanceof CalendarProviderError && error.kind === 'unauthorized' && !error.message.includes('not-the-secret'));
    await exchangeCode(client, code, fetch, Date.now());
    await assert.rejects(exchangeCode(client, code, fetch, Date.now()), (error: unknown) => error instanceof CalendarProviderError && error.kind === 'unauthorized' && !error.message.includes(code));
    await assert.rejects(accountEmail(client, 'eyJ.not-a-token', fetch), (error: unknown) => error instanceof CalendarProviderError && error.kind === 'unauthorized');
  });
  test('meetings: created at the booking\'s time in UTC, moved with the same link, deleted (twice is fine)', async () => {
    const saved: OAuthTokens[] = [];
    const tokens = await exchangeCode(client, await codeFor('s3'), fetch, Date.now());
    const session: OAuthSession = { client, tokens, fetch, now: () => Date.now(), onTokens: async (renewed) => void saved.push(renewed) };
    // 2026-03-29 10:30 in Kathmandu (+05:45) is 04:45Z, on Europe's spring-forward day.
    const start = Date.UTC(2026, 2, 29, 4, 45);
    const meeting = await createMeeting(session, { topic: 'Consultation between Ada and Bea', start, end: start + 45 * 60_000, timeZone: 'Asia/Kathmandu', agenda: 'Notes' });
    const stored = zoom.meetings.get(meeting.id)!;
    assert.deepEqual([stored.startTime, stored.duration, stored.timezone, stored.topic, stored.agenda], ['2026-03-29T04:45:00Z', 45, 'Asia/Kathmandu', 'Consultation between Ada and Bea', 'Notes']);
    assert.equal(meeting.joinUrl, stored.joinUrl);
    assert.equal(meeting.password, stored.password);

    // The token is revoked early: the call refreshes once and goes through; the new tokens are handed back to be stored.
    zoom.expireAccessTokens();
    await updateMeeting(session, meeting.id, { topic: 'Moved', start: start + 3_600_000, end: start + 3_600_000 + 30 * 60_000, timeZone: 'Asia/Kathmandu' });
    assert.deepEqual([zoom.meetings.get(meeting.id)!.startTime, zoom.meetings.get(meeting.id)!.duration, zoom.meetings.get(meeting.id)!.joinUrl], ['2026-03-29T05:45:00Z', 30, meeting.joinUrl]);
    assert.equal(saved.length, 1);
    assert.equal(session.tokens, saved[0]);

    await deleteMeeting(session, meeting.id);
    assert.equal(zoom.meetings.has(meeting.id), false);
    await deleteMeeting(session, meeting.id);
    await assert.rejects(updateMeeting(session, meeting.id, { topic: 'Gone', start, end: start + 60_000, timeZone: 'UTC' }), (error: unknown) => error instanceof CalendarProviderError && error.kind === 'not_found');
  });

  test('meetings: a rate limit and a server failure are typed for the retry; a grant withdrawn is unauthorized', async () => {
    const tokens = await exchangeCode(client, await codeFor('s4'), fetch, Date.now());
    const session: OAuthSession = { client, tokens, fetch, now: () => Date.now(), onTokens: async () => {} };
    const input = { topic: 'Call', start: Date.UTC(2026, 11, 31, 23, 30), end: Date.UTC(2027, 0, 1, 0, 30), timeZone: 'UTC' };
    zoom.failNextMeetingCall(429);
    await assert.rejects(createMeeting(session, input), (error: unknown) => error instanceof CalendarProviderError && error.kind === 'rate_limited');
    zoom.failNextMeetingCall(500);
    await assert.rejects(createMeeting(session, input), (error: unknown) => error instanceof CalendarProviderError && error.kind === 'unreachable');
    const made = await createMeeting(session, input);
    assert.equal(zoom.meetings.get(made.id)!.startTime, '2026-12-31T23:30:00Z');
    assert.equal(zoom.meetings.get(made.id)!.duration, 60);
    // The access token revoked and the refresh token already used elsewhere: nothing works until the user connects again.
    await refreshTokens(client, session.tokens.refreshToken, fetch, Date.now());
    zoom.expireAccessTokens();
    await assert.rejects(createMeeting(session, input), (error: unknown) => error instanceof CalendarProviderError && error.kind === 'unauthorized' && !error.message.includes(session.tokens.refreshToken));
  });
});
