// Microsoft Teams meetings against the local Microsoft (test/support/fake-microsoft.ts): consent for online
// meetings, a meeting created at the booking's time, moved with the same link, deleted; the refresh keeps
// the Teams permission; a token without it is refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CalendarProviderError, type OAuthClient, type OAuthSession } from '../../src/integrations/calendar-types.js';
import { createOnlineMeeting, deleteOnlineMeeting, updateOnlineMeeting } from '../../src/integrations/microsoft/online-meetings.js';
import { authorizationUrl, exchangeCode, refreshTokens } from '../../src/integrations/microsoft/oauth.js';
import { TEAMS_SCOPES } from '../../src/modules/conferencing/conferencing-apps.js';
import { type FakeMicrosoft, startFakeMicrosoft } from '../support/fake-microsoft.js';

const REDIRECT = 'https://svc.example.test/v2/conferencing/msteams/oauth/callback';

describe('Microsoft Teams meetings', () => {
  let microsoft: FakeMicrosoft;
  let client: OAuthClient;
  before(async () => {
    microsoft = await startFakeMicrosoft({ clientId: 'teams-client', clientSecret: 'teams-secret-value', redirectUri: REDIRECT });
    client = { clientId: 'teams-client', clientSecret: 'teams-secret-value', redirectUri: REDIRECT, endpoints: microsoft.endpoints };
  });
  after(() => microsoft.close());

  async function sessionFor(scopes: string): Promise<OAuthSession> {
    const page = await fetch(authorizationUrl(client, 'state', undefined, scopes), { redirect: 'manual' });
    const code = new URL(page.headers.get('location')!).searchParams.get('code')!;
    const tokens = await exchangeCode(client, code, fetch, Date.now(), scopes);
    const session: OAuthSession = { client, tokens, fetch, now: () => microsoft.now(), onTokens: async () => {} };
    session.renew = () => refreshTokens(client, session.tokens.refreshToken, fetch, microsoft.now(), scopes);
    return session;
  }

  test('created, moved with the same join link, deleted; a refresh past the hour keeps the permission', async () => {
    const session = await sessionFor(TEAMS_SCOPES);
    // 2026-10-25 01:30Z: Europe's autumn change (Berlin goes from +2 to +1 at 01:00Z).
    const start = Date.UTC(2026, 9, 25, 1, 30);
    const meeting = await createOnlineMeeting(session, { subject: 'Consultation', start, end: start + 3_600_000 });
    const stored = microsoft.onlineMeetings.get(meeting.id)!;
    assert.deepEqual([stored.start, stored.end, stored.subject, stored.joinWebUrl], [start, start + 3_600_000, 'Consultation', meeting.joinUrl]);
    microsoft.advanceClock(2 * 3_600_000);
    await updateOnlineMeeting(session, meeting.id, { subject: 'Moved', start: start + 86_400_000, end: start + 86_400_000 + 1_800_000 });
    assert.deepEqual([microsoft.onlineMeetings.get(meeting.id)!.start, microsoft.onlineMeetings.get(meeting.id)!.joinWebUrl], [start + 86_400_000, meeting.joinUrl]);
    assert.equal(microsoft.tokenGrants.at(-1), 'refresh_token');
    await deleteOnlineMeeting(session, meeting.id);
    assert.equal(microsoft.onlineMeetings.has(meeting.id), false);
    await deleteOnlineMeeting(session, meeting.id);
  });

  test("a connection consented for calendars only cannot make meetings (unauthorized: the user must consent again)", async () => {
    const session = await sessionFor('offline_access Calendars.ReadWrite User.Read');
    await assert.rejects(createOnlineMeeting(session, { subject: 'Call', start: Date.UTC(2027, 0, 1), end: Date.UTC(2027, 0, 1, 1) }), (error: unknown) => error instanceof CalendarProviderError && error.kind === 'unauthorized');
  });
});
