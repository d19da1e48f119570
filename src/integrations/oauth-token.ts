// The OAuth 2.0 token endpoint (RFC 6749 sections 4.1.3 and 6) as the providers svc connects to answer
// it: a form POST, a JSON answer with a bearer access token, its lifetime and (mostly) a refresh token.
import type { CalendarFailureKind, OAuthTokens } from './calendar-types.js';
import { jsonObject, providerError, retryAfterMs, stringField, transportError } from './provider-errors.js';

/**
 * Errors of the token endpoint that mean the grant itself is gone or needs the user: a revoked or
 * expired refresh token, consent withdrawn, a code already used (invalid_grant), a policy asking for
 * sign-in again (Microsoft's interaction_required and its kin), or svc's own client credentials refused.
 */
const REFUSALS = new Set(['invalid_grant', 'interaction_required', 'consent_required', 'login_required', 'invalid_client', 'unauthorized_client']);

export interface TokenRequest {
  url: string;
  fields: Record<string, string>;
  /** Client authentication in a header (HTTP Basic) instead of the form. */
  headers?: Record<string, string>;
  /** What of a failure's body is worth a log line (never its free text): Microsoft's AADSTS number, say. */
  detail?: (body: Record<string, unknown> | null) => string;
}

/** `previousRefreshToken` '': none is expected (client credentials grants); null: one must come. */
export async function postTokenForm(
  request: TokenRequest,
  fetchImpl: typeof fetch,
  now: number,
  what: string,
  previousRefreshToken: string | null,
  secrets: string[],
): Promise<OAuthTokens> {
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...request.headers },
      body: new URLSearchParams(request.fields).toString(),
    });
    text = await response.text();
  } catch (error) {
    throw transportError(error, what, secrets);
  }
  const body = jsonObject(text);
  if (!response.ok) {
    const code = stringField(body, 'error');
    const line = `${what}: HTTP ${response.status}${code ? ` ${code}` : ''}${request.detail?.(body) ?? ''}`;
    const kind = tokenFailureKind(response.status, code);
    throw providerError(kind, line, secrets, kind === 'rate_limited' ? retryAfterMs(response.headers, now) : undefined);
  }
  const accessToken = stringField(body, 'access_token');
  const expiresIn = Number(body?.expires_in);
  const tokenType = stringField(body, 'token_type');
  if (!body || !accessToken || !Number.isFinite(expiresIn) || expiresIn <= 0 || (tokenType !== null && tokenType.toLowerCase() !== 'bearer')) {
    throw providerError('invalid_data', `${what}: the token endpoint's answer lacks a bearer access_token with expires_in`, [...secrets, ...(accessToken ? [accessToken] : [])]);
  }
  const refreshToken = stringField(body, 'refresh_token') || previousRefreshToken;
  if (refreshToken === null) {
    throw providerError('invalid_data', `${what}: no refresh_token in the answer (offline_access not granted?)`, [...secrets, accessToken]);
  }
  return { accessToken, refreshToken, expiresAt: now + expiresIn * 1000, scope: stringField(body, 'scope') };
}

function tokenFailureKind(status: number, code: string | null): CalendarFailureKind {
  if (code !== null && REFUSALS.has(code)) return 'unauthorized';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 429 || status === 503) return 'rate_limited';
  if (status >= 500 || code === 'temporarily_unavailable') return 'unreachable';
  // invalid_request, invalid_scope, unsupported_grant_type: svc's registration or request is wrong.
  return 'invalid_data';
}
