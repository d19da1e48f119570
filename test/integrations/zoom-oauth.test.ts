// Zoom's OAuth adapter against a local Zoom (test/support/fake-zoom.ts): the code exchanged with the client
// in HTTP Basic, refresh tokens rotated (the used one stops working), the account read, failures typed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CalendarProviderError, type OAuthClient } from '../../src/integrations/calendar-types.js';
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
});
