// The providers of the conferencing apps on loopback, with the settings that point svc at them: Google
// and Microsoft (test/support/oauth-calendar-connect.ts; Teams is Microsoft's) and Zoom (fake-zoom.ts).
import type { FakeGoogle } from './fake-google.js';
import type { FakeMicrosoft } from './fake-microsoft.js';
import { type FakeZoom, startFakeZoom } from './fake-zoom.js';
import { startCalendarProviders } from './oauth-calendar-connect.js';

export interface ConferencingProviders {
  google: FakeGoogle;
  microsoft: FakeMicrosoft;
  zoom: FakeZoom;
  /** svc's settings for all three, with APP_URL. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** `appUrl` is svc's public address: the providers send the browser back to its callbacks there. */
export async function startConferencingProviders(appUrl: string): Promise<ConferencingProviders> {
  const { google, microsoft, env } = await startCalendarProviders({ microsoftRedirectUri: `${appUrl}/v2/conferencing/msteams/oauth/callback`, microsoftMail: 'ada@outlook.example' });
  const zoom = await startFakeZoom({ clientId: 'svc-zoom-client', clientSecret: 'zoom-client-secret', redirectUri: `${appUrl}/v2/conferencing/zoom/oauth/callback`, email: 'ada@zoom.example' });
  return {
    google,
    microsoft,
    zoom,
    env: {
      APP_URL: appUrl,
      ...env,
      SVC_ZOOM_CLIENT_ID: 'svc-zoom-client',
      SVC_ZOOM_CLIENT_SECRET: 'zoom-client-secret',
      SVC_ZOOM_AUTHORIZE_URL: zoom.endpoints.authorize,
      SVC_ZOOM_TOKEN_URL: zoom.endpoints.token,
      SVC_ZOOM_API_URL: zoom.endpoints.api,
    },
    async close() {
      await Promise.all([google.close(), microsoft.close(), zoom.close()]);
    },
  };
}
