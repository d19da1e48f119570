import { timingSafeEqual } from 'node:crypto';
import type { Database } from '../../db/client.js';
import { platformScopes } from '../../http/scopes.js';
import { API_KEY_PREFIX, hashApiKey, hashPassword, hashToken, sha256Hex, verifyPassword } from '../../lib/crypto.js';
import { DomainError, unauthorized } from '../../lib/errors.js';
import { findAccessTokenWithUser, findApiKeyWithUser, findPlatformClientWithOwner, findUserWithPasswordHash, type PlatformClientFacts } from './auth.repository.js';
import type { UserRecord } from '../users/users.repository.js';
import type { CredentialCache } from './credential-cache.js';
import type { PlatformClientRef, Principal } from './principal.js';

const DAY_MS = 86_400_000;
/** Longer than any client id svc issues: such a header is not looked up. */
const MAX_CLIENT_ID_LENGTH = 64;

/** The reference compares API-key expiry by calendar date: a key expiring today still works today. */
export function isApiKeyExpired(expiresAt: Date | null, now: Date): boolean {
  if (!expiresAt) return false;
  return Math.floor(expiresAt.getTime() / DAY_MS) < Math.floor(now.getTime() / DAY_MS);
}

function accessTokenExpired(): DomainError {
  return new DomainError('token_expired', 'access_token_expired', 'ACCESS_TOKEN_IS_EXPIRED');
}

const clientRef = (client: PlatformClientFacts): PlatformClientRef => ({ id: client.id, organizationId: client.organizationId, redirectUris: client.redirectUris });

/**
 * Resolves a bearer token (API key or access token) to the calling user, through the credential cache.
 * API keys expire by the wall clock they were issued by; access tokens by `tokenNow`, the app's clock
 * they are issued by (tests move it).
 */
export async function authenticateBearer(
  database: Database,
  cache: CredentialCache,
  token: string,
  now = new Date(),
  tokenNow = now,
): Promise<Principal> {
  const isApiKey = token.startsWith(API_KEY_PREFIX);
  const hash = isApiKey ? hashApiKey(token) : hashToken(token);
  const cached = cache.get(isApiKey ? 'apiKey' : 'accessToken', hash, now.getTime());
  if (cached) {
    assertNotExpired(isApiKey, cached.credentialExpiresAt, isApiKey ? now : tokenNow);
    return cached.principal;
  }
  if (isApiKey) {
    const found = await findApiKeyWithUser(database.db, hash);
    if (!found) throw unauthorized('invalid_api_key', 'Your api key is not valid');
    assertNotExpired(true, found.expiresAt, now);
    const principal: Principal = { kind: 'apiKey', user: found.user, scopes: null, credentialHash: hash, client: null };
    cache.set(principal, found.expiresAt, now.getTime());
    return principal;
  }
  const found = await findAccessTokenWithUser(database.db, hash);
  if (!found) throw unauthorized('invalid_access_token', 'Invalid Access Token.');
  assertNotExpired(false, found.expiresAt, tokenNow);
  const principal: Principal = {
    kind: 'accessToken',
    user: found.user,
    // A managed user's token may do what its client's permissions allow; other tokens carry their own scopes.
    scopes: found.client ? platformScopes(found.client.permissions) : new Set(found.scopes),
    credentialHash: hash,
    client: found.client ? clientRef(found.client) : null,
  };
  cache.set(principal, found.expiresAt, now.getTime());
  return principal;
}

function assertNotExpired(isApiKey: boolean, expiresAt: Date | null, now: Date): void {
  if (isApiKey) {
    if (isApiKeyExpired(expiresAt, now)) throw unauthorized('api_key_expired', 'Your api key is expired');
  } else if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw accessTokenExpired();
  }
}

/** Compares two SHA-256 hex digests in constant time. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/**
 * Platform credentials (`x-svc-client-id` or the path's `:clientId`, with `x-svc-secret-key`): the
 * request acts as the client's organization's OWNER (else an ADMIN), as the reference's strategy.
 */
export async function authenticatePlatformClient(database: Database, clientId: string, secret: string): Promise<Principal> {
  const found = clientId.length <= MAX_CLIENT_ID_LENGTH ? await findPlatformClientWithOwner(database.db, clientId) : undefined;
  if (!found) throw unauthorized('oauth_client_not_found', `Client with ID ${clientId} not found`);
  if (!sameDigest(sha256Hex(secret), found.client.secretHash)) throw unauthorized('invalid_client_secret', 'Invalid client secret');
  if (!found.owner) throw unauthorized('oauth_client_without_owner', 'No owner ID found for this OAuth client');
  return {
    kind: 'oauthClient',
    user: found.owner,
    scopes: platformScopes(found.client.permissions),
    credentialHash: sha256Hex(found.client.id),
    client: clientRef(found.client),
  };
}

/** The serialized origin of a URL (scheme, host as punycode, port unless the default); null for none. */
function originOf(uri: string): string | null {
  try {
    const { origin } = new URL(uri);
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * The reference's origin rule (an exact redirect URI, or one with `*` wildcards), and the origin of any
 * redirect URI: a browser's `Origin` is scheme://host[:port] as the URL standard serializes it, never a
 * whole redirect URI with its path.
 */
export function isOriginAllowed(origin: string, redirectUris: readonly string[]): boolean {
  return redirectUris.some((allowed) => {
    if (!allowed.includes('*')) return origin === allowed || origin === originOf(allowed);
    const pattern = allowed.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
    return new RegExp(`^${pattern}$`).test(origin);
  });
}

/** A managed user's access token sent with an `Origin` must come from one of its client's redirect URIs. */
export function assertOriginAllowed(principal: Principal, origin: string | undefined): void {
  if (origin === undefined || principal.kind !== 'accessToken' || !principal.client) return;
  if (isOriginAllowed(origin, principal.client.redirectUris)) return;
  throw unauthorized(
    'origin_not_allowed',
    `Invalid request origin - add the origin '${origin}' to the 'redirectUris' of your OAuth client with ID '${principal.client.id}' (PATCH /v2/oauth-clients/${principal.client.id})`,
  );
}

/** Compared with when the email is unknown, so an unknown address takes as long as a wrong password. */
let decoyHash: Promise<string> | undefined;

/** The web login: the user with this email and password, or null (unknown email, no password, wrong password alike). */
export async function verifyPasswordLogin(database: Database, email: string, password: string): Promise<UserRecord | null> {
  const found = email.length <= 320 && password.length <= 256 ? await findUserWithPasswordHash(database.db, email.trim()) : undefined;
  if (!found?.passwordHash) {
    decoyHash ??= hashPassword('decoy password, never matched');
    await verifyPassword(password, await decoyHash);
    return null;
  }
  return (await verifyPassword(password, found.passwordHash)) ? found.user : null;
}
