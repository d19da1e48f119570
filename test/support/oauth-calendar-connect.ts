// The consent round trip of a Google or Microsoft calendar as a browser makes it, against the local
// provider servers: svc's connect URL, the provider's page, its redirect to svc's callback.
import assert from 'node:assert/strict';
import type { TestApp } from './test-app.js';

type ProviderEndpoints = { authorize: string; token: string; api: string };

/** svc's settings for its app at a local provider server (SVC_GOOGLE_* or SVC_MICROSOFT_*). */
export function oauthAppEnv(provider: 'GOOGLE' | 'MICROSOFT', app: { clientId: string; clientSecret: string; endpoints: ProviderEndpoints }): Record<string, string> {
  return {
    [`SVC_${provider}_CLIENT_ID`]: app.clientId,
    [`SVC_${provider}_CLIENT_SECRET`]: app.clientSecret,
    [`SVC_${provider}_AUTHORIZE_URL`]: app.endpoints.authorize,
    [`SVC_${provider}_TOKEN_URL`]: app.endpoints.token,
    [`SVC_${provider}_API_URL`]: app.endpoints.api,
  };
}

export async function connectOAuthCalendar(api: TestApp, appUrl: string, calendar: 'google' | 'office365', key: string): Promise<{ callback: URL; saved: Response }> {
  const connectAnswer = await api.request('GET', `/v2/calendars/${calendar}/connect?isDryRun=false&redir=${encodeURIComponent('https://app.example.test/done')}`, { key });
  assert.equal(connectAnswer.status, 200, connectAnswer.text);
  const consent = await fetch(connectAnswer.body.data.authUrl, { redirect: 'manual' });
  assert.equal(consent.status, 302);
  const callback = new URL(consent.headers.get('location')!);
  assert.equal(`${callback.origin}${callback.pathname}`, `${appUrl}/v2/calendars/${calendar}/save`);
  const saved = await fetch(`${api.baseUrl}${callback.pathname}${callback.search}`, { redirect: 'manual' });
  return { callback, saved };
}
