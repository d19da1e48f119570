import type { Database } from '../../db/client.js';
import { API_KEY_PREFIX, hashApiKey, hashToken } from '../../lib/crypto.js';
import { DomainError, unauthorized } from '../../lib/errors.js';
import { findAccessTokenWithUser, findApiKeyWithUser } from './auth.repository.js';
import type { CredentialCache } from './credential-cache.js';
import type { Principal } from './principal.js';

const DAY_MS = 86_400_000;

/** The reference compares API-key expiry by calendar date: a key expiring today still works today. */
export function isApiKeyExpired(expiresAt: Date | null, now: Date): boolean {
  if (!expiresAt) return false;
  return Math.floor(expiresAt.getTime() / DAY_MS) < Math.floor(now.getTime() / DAY_MS);
}

function accessTokenExpired(): DomainError {
  return new DomainError('token_expired', 'access_token_expired', 'ACCESS_TOKEN_IS_EXPIRED');
}

/** Resolves a bearer token (API key or access token) to the calling user, through the credential cache. */
export async function authenticateBearer(
  database: Database,
  cache: CredentialCache,
  token: string,
  now = new Date(),
): Promise<Principal> {
  const isApiKey = token.startsWith(API_KEY_PREFIX);
  const hash = isApiKey ? hashApiKey(token) : hashToken(token);
  const cached = cache.get(isApiKey ? 'apiKey' : 'accessToken', hash, now.getTime());
  if (cached) {
    assertNotExpired(isApiKey, cached.credentialExpiresAt, now);
    return cached.principal;
  }
  if (isApiKey) {
    const found = await findApiKeyWithUser(database.db, hash);
    if (!found) throw unauthorized('invalid_api_key', 'Your api key is not valid');
    assertNotExpired(true, found.expiresAt, now);
    const principal: Principal = { kind: 'apiKey', user: found.user, scopes: null, credentialHash: hash, clientId: null };
    cache.set(principal, found.expiresAt, now.getTime());
    return principal;
  }
  const found = await findAccessTokenWithUser(database.db, hash);
  if (!found) throw unauthorized('invalid_access_token', 'Invalid Access Token.');
  assertNotExpired(false, found.expiresAt, now);
  const principal: Principal = {
    kind: 'accessToken',
    user: found.user,
    scopes: new Set(found.scopes),
    credentialHash: hash,
    clientId: found.clientId,
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
