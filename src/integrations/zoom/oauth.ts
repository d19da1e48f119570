// Zoom's OAuth 2.0 (a "General" OAuth app, user-managed): the consent page, the code exchanged for tokens
// with the client authenticated by HTTP Basic, refresh tokens rotated on every refresh, and the account
// read from the Zoom API's /users/me.
//
// Plain `fetch`, as for Google and Microsoft: a handful of documented calls, base URLs that tests point at
// a local server, and svc's guarded fetch (deadline, size cap, address policy) underneath.
import type { OAuthClient, OAuthTokens } from '../calendar-types.js';
import { postTokenForm } from '../oauth-token.js';
import { jsonObject, providerError, stringField, transportError } from '../provider-errors.js';

export const ZOOM_ENDPOINTS: OAuthClient['endpoints'] = Object.freeze({
  authorize: 'https://zoom.us/oauth/authorize',
  token: 'https://zoom.us/oauth/token',
  api: 'https://api.zoom.us/v2',
});

/** Zoom grants the scopes set on the app in its marketplace page; the consent URL names none. */
export function authorizationUrl(client: OAuthClient, state: string): string {
  const url = new URL(client.endpoints.authorize);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('redirect_uri', client.redirectUri);
  url.searchParams.set('state', state);
  return url.href;
}

const basicAuth = (client: OAuthClient) => ({ authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}` });

export function exchangeCode(client: OAuthClient, code: string, fetchImpl: typeof fetch, now: number): Promise<OAuthTokens> {
  const fields = { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri };
  return postTokenForm({ url: client.endpoints.token, fields, headers: basicAuth(client) }, fetchImpl, now, 'exchanging the authorization code', null, [client.clientSecret, code]);
}

/** Zoom rotates refresh tokens: the answer's replaces the one used, which stops working. */
export function refreshTokens(client: OAuthClient, refreshToken: string, fetchImpl: typeof fetch, now: number): Promise<OAuthTokens> {
  const fields = { grant_type: 'refresh_token', refresh_token: refreshToken };
  return postTokenForm({ url: client.endpoints.token, fields, headers: basicAuth(client) }, fetchImpl, now, 'refreshing the access token', null, [client.clientSecret, refreshToken]);
}

/** The account's address: GET /users/me. */
export async function accountEmail(client: OAuthClient, accessToken: string, fetchImpl: typeof fetch): Promise<string> {
  const what = 'reading the Zoom account';
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(`${client.endpoints.api}/users/me`, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } });
    text = await response.text();
  } catch (error) {
    throw transportError(error, what, [accessToken]);
  }
  const body = jsonObject(text);
  if (!response.ok) throw providerError(response.status === 401 ? 'unauthorized' : 'unreachable', `${what}: HTTP ${response.status}`, [accessToken]);
  const email = stringField(body, 'email');
  if (!email) throw providerError('invalid_data', `${what}: no email in /users/me`, [accessToken]);
  return email;
}
