import type { OAuthClient, OAuthTokens } from '../calendar-types.js';
import { postTokenForm } from '../oauth-token.js';
import { stringField } from '../provider-errors.js';

/** The Microsoft identity platform (v2.0, "common": work, school and personal accounts) and Microsoft Graph. */
export const MICROSOFT_ENDPOINTS: OAuthClient['endpoints'] = Object.freeze({
  authorize: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
  token: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
  api: 'https://graph.microsoft.com',
});

/**
 * offline_access: the token endpoint hands out a refresh token only with it. Calendars.ReadWrite: list
 * calendars, read their events, write booking events (it includes Calendars.Read). User.Read: `/me`,
 * for the account's address.
 */
export const MICROSOFT_SCOPES = 'offline_access Calendars.ReadWrite User.Read';

/**
 * The consent page. `prompt=select_account` shows the account picker, so someone signed in to several
 * Microsoft accounts chooses which calendar to connect; with a login hint the account is already named
 * and the picker is left out. Consent is asked by Microsoft whenever a scope is not yet granted, so
 * `prompt=consent` is not needed: unlike Google, Microsoft returns a refresh token on every code
 * exchange that includes offline_access.
 */
export function authorizationUrl(client: OAuthClient, state: string, loginHint?: string, scopes = MICROSOFT_SCOPES): string {
  const url = new URL(client.endpoints.authorize);
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', client.redirectUri);
  url.searchParams.set('response_mode', 'query');
  url.searchParams.set('scope', scopes);
  url.searchParams.set('state', state);
  if (loginHint) url.searchParams.set('login_hint', loginHint);
  else url.searchParams.set('prompt', 'select_account');
  return url.href;
}

export function exchangeCode(client: OAuthClient, code: string, fetchImpl: typeof fetch, now: number, scopes = MICROSOFT_SCOPES): Promise<OAuthTokens> {
  return tokenRequest(client, { scope: scopes, grant_type: 'authorization_code', code, redirect_uri: client.redirectUri }, fetchImpl, now, 'exchanging the authorization code', null, [code]);
}

/**
 * New tokens for a refresh token. Microsoft sends a new refresh token with each refresh and asks
 * clients to keep only the newest (it does not revoke the old one itself): the answer's replaces it,
 * and the old one is kept only if an answer should ever come without one.
 */
export function refreshTokens(client: OAuthClient, refreshToken: string, fetchImpl: typeof fetch, now: number, scopes = MICROSOFT_SCOPES): Promise<OAuthTokens> {
  return tokenRequest(client, { scope: scopes, grant_type: 'refresh_token', refresh_token: refreshToken }, fetchImpl, now, 'refreshing the access token', refreshToken, [refreshToken]);
}

function tokenRequest(
  client: OAuthClient,
  grant: Record<string, string>,
  fetchImpl: typeof fetch,
  now: number,
  what: string,
  previousRefreshToken: string | null,
  grantSecrets: string[],
): Promise<OAuthTokens> {
  const form = { client_id: client.clientId, client_secret: client.clientSecret, ...grant };
  return postTokenForm({ url: client.endpoints.token, fields: form, detail: aadstsOf }, fetchImpl, now, what, previousRefreshToken, [client.clientSecret, ...grantSecrets]);
}

/**
 * An app-only token (the client credentials grant) of an app registered in an organization's tenant
 * with application permissions (Calendars.ReadWrite): it reads and writes the tenant's mailboxes at
 * `/users/{address}`. `tokenUrl` is the tenant's token endpoint. No refresh token: the grant is simply
 * asked again.
 */
export function appOnlyTokens(app: { clientId: string; clientSecret: string }, tokenUrl: string, fetchImpl: typeof fetch, now: number): Promise<OAuthTokens> {
  const form = { client_id: app.clientId, client_secret: app.clientSecret, scope: 'https://graph.microsoft.com/.default', grant_type: 'client_credentials' };
  return postTokenForm({ url: tokenUrl, fields: form, detail: aadstsOf }, fetchImpl, now, 'granting an app-only token', '', [app.clientSecret]);
}

/** The token endpoint of one tenant: the configured endpoint's `common` (or `organizations`) segment replaced. */
export function tenantTokenUrl(tokenUrl: string, tenantId: string): string {
  const url = new URL(tokenUrl);
  url.pathname = url.pathname.replace(/\/(common|organizations|consumers)(?=\/oauth2\/)/, `/${encodeURIComponent(tenantId)}`);
  return url.href;
}

/** The AADSTS number Microsoft gives with an error (it names the reason), without the free text. */
function aadstsOf(body: Record<string, unknown> | null): string {
  const codes = body?.error_codes;
  if (Array.isArray(codes) && typeof codes[0] === 'number') return ` (AADSTS${codes[0]})`;
  const match = /AADSTS\d+/.exec(stringField(body, 'error_description') ?? '');
  return match ? ` (${match[0]})` : '';
}
