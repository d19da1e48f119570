// The consent round trip of a Google or Microsoft calendar as a browser makes it, against the local
// provider servers: svc's connect URL, the provider's page, its redirect to svc's callback.
import assert from 'node:assert/strict';
import { type FakeGoogle, startFakeGoogle } from './fake-google.js';
import { type FakeMicrosoft, startFakeMicrosoft } from './fake-microsoft.js';
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

/**
 * Local Google (one account, `googleAccount`) and Microsoft (one mailbox, `microsoftMail`) servers with
 * svc's apps registered at both, and the settings that point svc at them.
 */
export async function startCalendarProviders(options: { microsoftRedirectUri: string; microsoftMail: string; googleAccount?: string }): Promise<{ google: FakeGoogle; microsoft: FakeMicrosoft; env: Record<string, string> }> {
  const google = await startFakeGoogle({ clientId: 'svc-google-client', clientSecret: 'google-client-secret' });
  google.addAccount(options.googleAccount ?? 'ada@gmail.example', 'Europe/London');
  const microsoft = await startFakeMicrosoft({
    clientId: 'svc-microsoft-client',
    clientSecret: 'microsoft-client-secret',
    redirectUri: options.microsoftRedirectUri,
    user: { mail: options.microsoftMail, userPrincipalName: options.microsoftMail },
  });
  const env = {
    ...oauthAppEnv('GOOGLE', { clientId: 'svc-google-client', clientSecret: 'google-client-secret', endpoints: google.endpoints }),
    ...oauthAppEnv('MICROSOFT', { clientId: 'svc-microsoft-client', clientSecret: 'microsoft-client-secret', endpoints: microsoft.endpoints }),
  };
  return { google, microsoft, env };
}
