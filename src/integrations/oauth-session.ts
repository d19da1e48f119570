// Calls on an OAuth session's access token, refreshed before it runs out and once more when the provider
// answers 401 (a token revoked or expired early); shared by the providers' clients.
import type { OAuthSession, OAuthTokens } from './calendar-types.js';

/** Refresh when the access token has less than this left: a call must not start with a token that dies on the way. */
const REFRESH_MARGIN_MS = 60_000;

// One refresh at a time per session: parallel calls that all find the token expired share it, so a
// rotated refresh token is not spent twice.
const refreshing = new WeakMap<OAuthSession, Promise<void>>();

/**
 * Replaces the session's tokens unless `staleAccessToken` was already replaced (by a parallel call). The
 * new tokens are handed to `onTokens` (sealed and stored) before the session uses them.
 */
async function refreshSession(session: OAuthSession, staleAccessToken: string, refresh: () => Promise<OAuthTokens>): Promise<void> {
  if (session.tokens.accessToken !== staleAccessToken) return;
  let running = refreshing.get(session);
  if (!running) {
    running = (async () => {
      const tokens = await refresh();
      await session.onTokens(tokens);
      session.tokens = tokens;
    })().finally(() => refreshing.delete(session));
    refreshing.set(session, running);
  }
  await running;
}

/**
 * `send` with the session's token: refreshed first when it is about to expire, and, when the answer is 401
 * (a token revoked or expired early), refreshed once and `send` repeated once; a token another call of the
 * session refreshed meanwhile is tried without refreshing again, and a call that has just refreshed does
 * not refresh twice. The last answer comes back whatever it is, for the caller to judge. `refresh` gets new
 * tokens (a refresh grant, or a service account's new grant). Shared by the Google, Microsoft and Zoom clients.
 */
export async function callWithFreshToken<T extends { status: number }>(session: OAuthSession, refresh: () => Promise<OAuthTokens>, send: (accessToken: string) => Promise<T>): Promise<T> {
  let refreshed = false;
  if (session.tokens.expiresAt - session.now() <= REFRESH_MARGIN_MS) {
    await refreshSession(session, session.tokens.accessToken, refresh);
    refreshed = true;
  }
  const used = session.tokens.accessToken;
  const answer = await send(used);
  if (answer.status !== 401) return answer;
  if (session.tokens.accessToken !== used) return send(session.tokens.accessToken);
  if (refreshed) return answer;
  await refreshSession(session, used, refresh);
  return send(session.tokens.accessToken);
}
