// callWithFreshToken, which the Google, Microsoft and Zoom clients share: when tokens are refreshed, how
// often, in which order they are stored and used, and what a 401 does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { OAuthSession, OAuthTokens } from '../../src/integrations/calendar-types.js';
import { callWithFreshToken } from '../../src/integrations/oauth-session.js';

const NOW = Date.UTC(2026, 10, 29, 12);

function sessionWith(expiresAt: number) {
  const stored: string[] = [];
  let issued = 0;
  const session: OAuthSession = {
    client: { clientId: 'c', clientSecret: 's', redirectUri: 'https://svc.example.test/cb', endpoints: { authorize: '', token: '', api: '' } },
    tokens: { accessToken: 'token-0', refreshToken: 'refresh-0', expiresAt, scope: null },
    fetch: (() => Promise.reject(new Error('no network here'))) as typeof fetch,
    now: () => NOW,
    onTokens: async (tokens) => {
      // Stored before the session uses them.
      assert.notEqual(session.tokens.accessToken, tokens.accessToken);
      stored.push(tokens.accessToken);
    },
  };
  const refresh = async (): Promise<OAuthTokens> => {
    issued += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { accessToken: `token-${issued}`, refreshToken: `refresh-${issued}`, expiresAt: NOW + 3_600_000, scope: null };
  };
  return { session, refresh, stored, refreshes: () => issued };
}

/** An API that answers 401 to the tokens in `refused`. */
const api = (refused: Set<string>, seen: string[]) => async (token: string) => {
  seen.push(token);
  return { status: refused.has(token) ? 401 : 200 };
};

describe('callWithFreshToken', () => {
  test('a token about to expire is refreshed (and stored) before the call; a valid one is used as it is', async () => {
    const expiring = sessionWith(NOW + 30_000);
    const seen: string[] = [];
    assert.equal((await callWithFreshToken(expiring.session, expiring.refresh, api(new Set(), seen))).status, 200);
    assert.deepEqual(seen, ['token-1']);
    assert.deepEqual(expiring.stored, ['token-1']);
    const valid = sessionWith(NOW + 3_600_000);
    assert.equal((await callWithFreshToken(valid.session, valid.refresh, api(new Set(), []))).status, 200);
    assert.equal(valid.refreshes(), 0);
  });

  test('a 401 refreshes once and repeats the call once; a second 401 comes back', async () => {
    const revoked = sessionWith(NOW + 3_600_000);
    const seen: string[] = [];
    assert.equal((await callWithFreshToken(revoked.session, revoked.refresh, api(new Set(['token-0']), seen))).status, 200);
    assert.deepEqual(seen, ['token-0', 'token-1']);
    const refused = sessionWith(NOW + 3_600_000);
    const again: string[] = [];
    assert.equal((await callWithFreshToken(refused.session, refused.refresh, api(new Set(['token-0', 'token-1']), again))).status, 401);
    assert.deepEqual(again, ['token-0', 'token-1']);
    assert.equal(refused.refreshes(), 1);
  });

  test('a call that has just refreshed does not refresh again on a 401', async () => {
    const expiring = sessionWith(NOW);
    const seen: string[] = [];
    assert.equal((await callWithFreshToken(expiring.session, expiring.refresh, api(new Set(['token-1']), seen))).status, 401);
    assert.deepEqual(seen, ['token-1']);
    assert.equal(expiring.refreshes(), 1);
  });

  test('parallel calls share one refresh; a 401 after another call refreshed retries with its token', async () => {
    const expiring = sessionWith(NOW);
    const seen: string[] = [];
    const answers = await Promise.all([1, 2, 3].map(() => callWithFreshToken(expiring.session, expiring.refresh, api(new Set(), seen))));
    assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200]);
    assert.equal(expiring.refreshes(), 1, 'a rotated refresh token is spent once');
    assert.deepEqual(seen, ['token-1', 'token-1', 'token-1']);

    const racing = sessionWith(NOW + 3_600_000);
    const order: string[] = [];
    // The first call's 401 arrives after the second call has already refreshed.
    const slow = callWithFreshToken(racing.session, racing.refresh, async (token) => {
      order.push(`slow:${token}`);
      if (token === 'token-0') {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return { status: 401 };
      }
      return { status: 200 };
    });
    const fast = callWithFreshToken(racing.session, racing.refresh, async (token) => {
      order.push(`fast:${token}`);
      return { status: token === 'token-0' ? 401 : 200 };
    });
    assert.deepEqual([(await slow).status, (await fast).status], [200, 200]);
    assert.equal(racing.refreshes(), 1);
    assert.deepEqual(order, ['slow:token-0', 'fast:token-0', 'fast:token-1', 'slow:token-1']);
  });
});
