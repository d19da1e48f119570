import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { ChangeEvent } from '../../db/change-feed.js';
import type { Db } from '../../db/client.js';
import { hashToken, sha256Hex } from '../../lib/crypto.js';
import { sameDigest } from '../auth/auth.service.js';
import { isScope, parseScopeParameter } from './oauth-scopes.js';
import * as repo from './oauth.repository.js';
import type { OAuthClientRecord } from './oauth.repository.js';
import type { TokenRequest } from './oauth-token-request.js';

type Announce = (event: ChangeEvent) => Promise<void>;

/** Access tokens live 30 minutes (spec 5.3), codes at most 10 minutes (RFC 6749 4.1.2), refresh tokens 30 days. */
export const ACCESS_TOKEN_SECONDS = 1800;
const CODE_MS = 10 * 60_000;
const REFRESH_TOKEN_MS = 30 * 86_400_000;

const newSecretValue = () => randomBytes(32).toString('base64url');
/** Access and refresh tokens: 256 random bits as hex, never mistaken for an API key (`svc_...`). */
const newToken = () => randomBytes(32).toString('hex');

/** The query of `GET /auth/oauth2/authorize`, and the hidden fields of the consent form. */
export interface AuthorizationParams {
  client_id?: string | undefined;
  redirect_uri?: string | undefined;
  state?: string | undefined;
  scope?: string | undefined;
  response_type?: string | undefined;
  code_challenge?: string | undefined;
  code_challenge_method?: string | undefined;
}

/** The issuer identifier (RFC 8414 `issuer`, RFC 9207 `iss`): APP_URL without a trailing slash. */
export const oauthIssuer = (appUrl: string) => appUrl.replace(/\/+$/, '');

/** Where an authorization response goes and what it echoes: the checked redirect URI, `state`, and `iss`. */
export interface ResponseTarget {
  redirectUri: string;
  state: string | undefined;
  issuer: string;
}

/** A valid request: what the consent screen shows and the code is bound to. */
export interface AuthorizationGrant extends ResponseTarget {
  client: OAuthClientRecord;
  scopes: string[];
  codeChallenge: string | null;
}

/**
 * Spec 7.1: until the client and its redirect URI are known good, errors are shown to the user (`page`:
 * never redirect to an unchecked address); after, they go back to the client (`redirect`).
 */
export type AuthorizationCheck =
  | { kind: 'page'; reason: string; message: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'valid'; grant: AuthorizationGrant };

/** `redirectUri` with the given query parameters added (its own query kept). */
export function redirectTo(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * The error redirect of RFC 6749 4.1.2.1, with `state` echoed and `iss` (RFC 9207: a client talking to
 * several authorization servers can tell which one answered).
 */
export function errorRedirect(target: ResponseTarget, error: string, description: string): { kind: 'redirect'; location: string } {
  return { kind: 'redirect', location: redirectTo(target.redirectUri, { error, error_description: description, state: target.state, iss: target.issuer }) };
}

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export async function checkAuthorizationRequest(db: Db, params: AuthorizationParams, issuer: string): Promise<AuthorizationCheck> {
  const clientId = params.client_id?.trim();
  if (!clientId) return { kind: 'page', reason: 'client_id_missing', message: 'The client_id parameter is required.' };
  const client = clientId.length <= 64 ? await repo.findClient(db, clientId) : undefined;
  if (!client) return { kind: 'page', reason: 'client_not_found', message: `There is no OAuth client with the client_id ${clientId}.` };
  if (client.status !== 'approved') {
    return { kind: 'page', reason: 'client_not_approved', message: `The OAuth client ${client.name} has not been approved by the administrator yet, so it cannot be authorized.` };
  }
  const redirectUri = params.redirect_uri;
  // Exact string comparison: no prefix, case or normalization leeway (an open redirect otherwise).
  if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
    return { kind: 'page', reason: 'redirect_uri_mismatch', message: 'The redirect_uri does not match any redirect URI registered for this client.' };
  }
  const target: ResponseTarget = { redirectUri, state: params.state, issuer };
  const scope = params.scope?.trim();
  if (!scope) return { kind: 'page', reason: 'scope_missing', message: 'The scope parameter is required for this client.' };
  if (params.response_type !== undefined && params.response_type !== 'code') {
    return errorRedirect(target, 'unsupported_response_type', 'Only the authorization code flow (response_type=code) is supported.');
  }
  const scopes = parseScopeParameter(scope);
  if (scopes.some((name) => !isScope(name))) return errorRedirect(target, 'invalid_scope', 'Requested scope is not a recognized scope.');
  if (scopes.some((name) => !client.scopes.includes(name))) {
    return errorRedirect(target, 'invalid_request', "Requested scope exceeds the client's registered scopes.");
  }
  const challenge = params.code_challenge || undefined;
  const method = params.code_challenge_method || undefined;
  if (method !== undefined && method !== 'S256') {
    return errorRedirect(target, 'invalid_request', 'code_challenge_method must be S256 (plain is not accepted).');
  }
  if (challenge === undefined && client.clientType === 'public') {
    return errorRedirect(target, 'invalid_request', 'code_challenge (PKCE, method S256) is required for public clients.');
  }
  if (challenge !== undefined && !S256_CHALLENGE.test(challenge)) {
    return errorRedirect(target, 'invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters).');
  }
  return { kind: 'valid', grant: { ...target, client, scopes, codeChallenge: challenge ?? null } };
}

/** Issues a single-use code for a consented request; returns where the browser goes next. */
export async function issueAuthorizationCode(tx: Db, grant: AuthorizationGrant, userId: number, now: Date): Promise<string> {
  const code = newSecretValue();
  await repo.insertAuthorizationCode(tx, {
    hashedCode: hashToken(code),
    clientId: grant.client.id,
    userId,
    redirectUri: grant.redirectUri,
    scopes: grant.scopes,
    codeChallenge: grant.codeChallenge,
    familyId: randomUUID(),
    expiresAt: new Date(now.getTime() + CODE_MS),
  });
  return redirectTo(grant.redirectUri, { code, state: grant.state, iss: grant.issuer });
}

/** The RFC 6749 5.2 error answer of the token, revocation and introspection endpoints. */
export interface OAuthError {
  kind: 'error';
  status: 400 | 401;
  error: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_scope' | 'unsupported_token_type';
  description: string;
}

/**
 * The reference answers `invalid_client` and `unauthorized_client` with 401, everything else with 400; its
 * `error_description` is a reason code (`OAuthService`'s `{ reason }`), which svc's descriptions follow.
 */
const oauthError = (error: OAuthError['error'], description: string): OAuthError => ({
  kind: 'error',
  status: error === 'invalid_client' || error === 'unauthorized_client' ? 401 : 400,
  error,
  description,
});

export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
  refresh_token: string;
  expires_in: number;
  scope: string;
}

/** Parameters of a token, revocation or introspection request (form or JSON body), and HTTP Basic credentials. */
export type TokenParams = Record<string, string | undefined>;
export interface BasicCredentials {
  clientId: string;
  secret: string;
}

/**
 * RFC 6749 2.3: the client named, proven by its secret if it is confidential (compared in constant
 * time). A public client has no secret: one sent is refused too. The client's review status is checked
 * later (`clientStatusError`), as the reference does.
 */
async function findAuthenticatedClient(db: Db, clientId: string, secret: string | undefined): Promise<OAuthClientRecord | OAuthError> {
  const client = clientId.length <= 64 ? await repo.findClient(db, clientId) : undefined;
  if (!client) return oauthError('invalid_client', 'client_not_found');
  return clientSecretError(client, secret) ?? client;
}

function clientSecretError(client: OAuthClientRecord, secret: string | undefined): OAuthError | null {
  const proven =
    client.clientType === 'confidential'
      ? secret !== undefined && secret !== '' && client.secretHash !== null && sameDigest(sha256Hex(secret), client.secretHash)
      : secret === undefined || secret === '';
  return proven ? null : oauthError('invalid_client', 'invalid_client_credentials');
}

/** Only an approved client may exchange or introspect; a rejected one has lost its tokens already. */
function clientStatusError(client: OAuthClientRecord): OAuthError | null {
  if (client.status === 'rejected') return oauthError('unauthorized_client', 'client_rejected');
  if (client.status !== 'approved') return oauthError('unauthorized_client', 'client_not_approved');
  return null;
}

/**
 * Client authentication of the revocation and introspection endpoints (RFC 7009 2.1, RFC 7662 2.1):
 * `client_id` and `client_secret` in the body or HTTP Basic, and an approved client.
 */
export async function authenticateClient(db: Db, params: TokenParams, basic: BasicCredentials | null): Promise<OAuthClientRecord | OAuthError> {
  if (basic && params.client_id !== undefined && params.client_id !== basic.clientId) return oauthError('invalid_request', 'client_id does not match the HTTP Basic credentials');
  const clientId = basic?.clientId ?? params.client_id;
  if (!clientId) return oauthError('invalid_request', 'client_id is required');
  const client = await findAuthenticatedClient(db, clientId, basic?.secret ?? params.client_secret);
  if ('kind' in client) return client;
  return clientStatusError(client) ?? client;
}

async function revokeFamily(tx: Db, announce: Announce, familyId: string): Promise<void> {
  for (const hash of await repo.deleteFamily(tx, familyId)) await announce({ kind: 'credential', hash });
}

async function issueTokens(tx: Db, grant: { clientId: string; userId: number; familyId: string; scopes: string[]; accessScopes?: string[] }, now: Date): Promise<TokenResponse> {
  const accessToken = newToken();
  const refreshToken = newToken();
  const accessScopes = grant.accessScopes ?? grant.scopes;
  await repo.insertGrantTokens(tx, {
    clientId: grant.clientId,
    userId: grant.userId,
    familyId: grant.familyId,
    accessHash: hashToken(accessToken),
    accessScopes,
    accessExpiresAt: new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000),
    refreshHash: hashToken(refreshToken),
    refreshScopes: grant.scopes,
    refreshExpiresAt: new Date(now.getTime() + REFRESH_TOKEN_MS),
  });
  return { access_token: accessToken, token_type: 'bearer', refresh_token: refreshToken, expires_in: ACCESS_TOKEN_SECONDS, scope: accessScopes.join(' ') };
}

const base64UrlSha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/** RFC 7636 4.6, and its downgrade rule: a verifier is accepted only for a code issued with a challenge. */
function pkceError(codeChallenge: string | null, verifier: string | undefined): OAuthError | null {
  if (codeChallenge === null) return verifier ? oauthError('invalid_grant', 'pkce_verification_failed') : null;
  if (!verifier) return oauthError('invalid_request', 'pkce_missing_parameters_or_invalid_method');
  const matches = CODE_VERIFIER.test(verifier) && sameDigest(Buffer.from(base64UrlSha256(verifier)).toString('hex'), Buffer.from(codeChallenge).toString('hex'));
  return matches ? null : oauthError('invalid_grant', 'pkce_verification_failed');
}

async function exchangeCode(tx: Db, announce: Announce, client: OAuthClientRecord, params: TokenParams, now: Date): Promise<TokenResponse | OAuthError> {
  const code = await repo.lockAuthorizationCode(tx, hashToken(params.code ?? ''));
  if (!code || code.clientId !== client.id) return oauthError('invalid_grant', 'code_invalid_or_expired');
  if (code.usedAt !== null) {
    // RFC 6749 4.1.2: a replayed code means it leaked; what was issued from it is revoked.
    await revokeFamily(tx, announce, code.familyId);
    return oauthError('invalid_grant', 'code_invalid_or_expired');
  }
  if (code.expiresAt.getTime() <= now.getTime()) return oauthError('invalid_grant', 'code_invalid_or_expired');
  // RFC 6749 4.1.3: the redirect URI of this authorization, not just any of the client's.
  if (code.redirectUri !== params.redirect_uri) return oauthError('invalid_grant', 'redirect_uri_mismatch');
  const refused = clientStatusError(client) ?? pkceError(code.codeChallenge, params.code_verifier);
  if (refused) return refused;
  await repo.markCodeUsed(tx, code.id, now);
  return issueTokens(tx, { clientId: client.id, userId: code.userId, familyId: code.familyId, scopes: code.scopes }, now);
}

async function exchangeRefreshToken(tx: Db, announce: Announce, client: OAuthClientRecord, params: TokenParams, now: Date): Promise<TokenResponse | OAuthError> {
  const row = await repo.lockRefreshToken(tx, hashToken(params.refresh_token ?? ''));
  if (!row || row.expiresAt.getTime() <= now.getTime()) return oauthError('invalid_grant', 'invalid_refresh_token');
  if (row.clientId !== client.id) return oauthError('invalid_grant', 'client_id_mismatch');
  const refused = clientStatusError(client);
  if (refused) return refused;
  if (row.rotatedAt !== null) {
    // Presented again after it was exchanged: it leaked, so the whole authorization goes.
    await revokeFamily(tx, announce, row.familyId);
    return oauthError('invalid_grant', 'refresh_token_revoked');
  }
  let accessScopes = row.scopes;
  if (params.scope !== undefined && params.scope.trim() !== '') {
    const requested = parseScopeParameter(params.scope);
    // RFC 6749 6: a refresh may narrow the scopes, never widen them.
    if (requested.some((name) => !row.scopes.includes(name))) return oauthError('invalid_scope', 'scope_exceeds_grant');
    accessScopes = requested;
  }
  await repo.markRefreshRotated(tx, row.id, now);
  return issueTokens(tx, { clientId: client.id, userId: row.userId, familyId: row.familyId, scopes: row.scopes, accessScopes }, now);
}

/**
 * The token endpoint (RFC 6749 4.1.3 and 6) after `readTokenRequest`, in the reference's order: the
 * client, the redirect URI among the client's, the client's secret, then the grant. A refusal may have
 * revoked tokens: the caller commits either way.
 */
export async function exchangeToken(tx: Db, announce: Announce, request: TokenRequest, now: Date): Promise<TokenResponse | OAuthError> {
  const client = request.clientId.length <= 64 ? await repo.findClient(tx, request.clientId) : undefined;
  if (!client) return oauthError('invalid_client', 'client_not_found');
  if (request.grantType === 'authorization_code' && !client.redirectUris.includes(request.params.redirect_uri ?? '')) {
    return oauthError('invalid_grant', 'redirect_uri_mismatch');
  }
  const unauthenticated = clientSecretError(client, request.secret);
  if (unauthenticated) return unauthenticated;
  return request.grantType === 'authorization_code' ? exchangeCode(tx, announce, client, request.params, now) : exchangeRefreshToken(tx, announce, client, request.params, now);
}

/**
 * RFC 7009: revokes a refresh token with its whole authorization (RFC 7009 2.1's SHOULD) or one access
 * token. Tokens of other clients and unknown tokens are left alone, and the answer is the same.
 */
export async function revokeToken(tx: Db, announce: Announce, client: OAuthClientRecord, params: TokenParams): Promise<OAuthError | null> {
  const token = params.token;
  if (!token) return oauthError('invalid_request', 'token is required.');
  const hint = params.token_type_hint;
  if (hint !== undefined && hint !== 'access_token' && hint !== 'refresh_token') {
    return oauthError('unsupported_token_type', 'token_type_hint must be access_token or refresh_token.');
  }
  const hash = hashToken(token);
  const refresh = await repo.findRefreshToken(tx, hash);
  if (refresh && refresh.clientId === client.id) {
    await revokeFamily(tx, announce, refresh.familyId);
    return null;
  }
  const access = await repo.findAccessToken(tx, hash);
  if (access && access.clientId === client.id) {
    await repo.deleteAccessToken(tx, access.id);
    await announce({ kind: 'credential', hash });
  }
  return null;
}

export type Introspection = { active: false } | {
  active: true;
  scope: string;
  client_id: string;
  sub: string;
  token_type: 'Bearer' | 'refresh_token';
  exp: number;
  iat: number;
  iss: string;
};

/** RFC 7662: what a token is, told only to the client it was issued to (others hear `active: false`). */
export async function introspectToken(db: Db, client: OAuthClientRecord, params: TokenParams, issuer: string, now: Date): Promise<Introspection | OAuthError> {
  const token = params.token;
  if (!token) return oauthError('invalid_request', 'token is required.');
  const hash = hashToken(token);
  const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
  const access = params.token_type_hint === 'refresh_token' ? undefined : await repo.findAccessToken(db, hash);
  if (access && access.clientId === client.id && access.expiresAt.getTime() > now.getTime()) {
    return { active: true, scope: access.scopes.join(' '), client_id: client.id, sub: String(access.userId), token_type: 'Bearer', exp: seconds(access.expiresAt), iat: seconds(access.createdAt), iss: issuer };
  }
  const refresh = await repo.findRefreshToken(db, hash);
  if (refresh && refresh.clientId === client.id && refresh.rotatedAt === null && refresh.expiresAt.getTime() > now.getTime()) {
    return { active: true, scope: refresh.scopes.join(' '), client_id: client.id, sub: String(refresh.userId), token_type: 'refresh_token', exp: seconds(refresh.expiresAt), iat: seconds(refresh.createdAt), iss: issuer };
  }
  return { active: false };
}
