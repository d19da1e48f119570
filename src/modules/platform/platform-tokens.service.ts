import { randomBytes, randomUUID } from 'node:crypto';
import type { ChangeEvent } from '../../db/change-feed.js';
import type { Db } from '../../db/client.js';
import { hashToken } from '../../lib/crypto.js';
import * as repo from './platform-tokens.repository.js';

type Announce = (event: ChangeEvent) => Promise<void>;

/** As the reference: an access token lives 60 minutes (to the minute), a refresh token a year (to the day). */
const ACCESS_TOKEN_MINUTES = 60;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** What the create, refresh and force-refresh routes answer (expiry times in epoch milliseconds). */
export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  accessTokenExpiresAt: number;
  refreshTokenExpiresAt: number;
}

/** How a refresh ended: a new pair, or a refusal (a reused token has revoked its family by then). */
export type RefreshOutcome =
  | { kind: 'refreshed'; tokens: TokenPair }
  | { kind: 'refused'; reason: 'invalid_refresh_token' | 'refresh_token_expired' | 'refresh_token_reused'; message: string };

/** 256 random bits as 64 hex characters: never mistaken for an API key (`svc_...`). */
const newToken = () => randomBytes(32).toString('hex');

function accessExpiry(now: Date): Date {
  const at = now.getTime() + ACCESS_TOKEN_MINUTES * MINUTE_MS;
  return new Date(at - (at % MINUTE_MS));
}

function refreshExpiry(now: Date): Date {
  const next = new Date(now);
  next.setUTCFullYear(next.getUTCFullYear() + 1);
  return new Date(next.getTime() - (next.getTime() % DAY_MS));
}

/** Issues a token pair; a new family unless `familyId` continues one (a refresh). */
export async function issueTokens(tx: Db, grant: { clientId: string; userId: number; familyId?: string }, now: Date): Promise<TokenPair> {
  const accessToken = newToken();
  const refreshToken = newToken();
  const accessExpiresAt = accessExpiry(now);
  const refreshExpiresAt = refreshExpiry(now);
  await repo.insertTokenPair(tx, {
    clientId: grant.clientId,
    userId: grant.userId,
    familyId: grant.familyId ?? randomUUID(),
    accessHash: hashToken(accessToken),
    accessExpiresAt,
    refreshHash: hashToken(refreshToken),
    refreshExpiresAt,
  });
  return { accessToken, refreshToken, accessTokenExpiresAt: accessExpiresAt.getTime(), refreshTokenExpiresAt: refreshExpiresAt.getTime() };
}

async function announceRevoked(announce: Announce, accessHashes: string[]): Promise<void> {
  for (const hash of accessHashes) await announce({ kind: 'credential', hash });
}

/**
 * Exchanges a refresh token for a new pair in the same family (rotation). A token that was already
 * exchanged is a sign it leaked: every token of its family is revoked, in this transaction, and the
 * refresh is refused.
 */
export async function refreshTokens(tx: Db, announce: Announce, clientId: string, refreshToken: string, now: Date): Promise<RefreshOutcome> {
  const row = await repo.lockRefreshToken(tx, hashToken(refreshToken));
  if (!row || row.clientId !== clientId) return { kind: 'refused', reason: 'invalid_refresh_token', message: 'Invalid refresh token' };
  if (row.rotatedAt !== null) {
    await announceRevoked(announce, await repo.deleteFamily(tx, row.familyId));
    return {
      kind: 'refused',
      reason: 'refresh_token_reused',
      message: 'Invalid refresh token: it was already exchanged, so every token issued from it has been revoked. Get new tokens with force-refresh.',
    };
  }
  if (row.expiresAt.getTime() <= now.getTime()) return { kind: 'refused', reason: 'refresh_token_expired', message: 'Invalid refresh token: it has expired' };
  await repo.markRotated(tx, row.id, now);
  return { kind: 'refreshed', tokens: await issueTokens(tx, { clientId, userId: row.userId, familyId: row.familyId }, now) };
}

/** A new pair for a user whose tokens were lost: every earlier token the client holds for the user stops working. */
export async function forceRefreshTokens(tx: Db, announce: Announce, clientId: string, userId: number, now: Date): Promise<TokenPair> {
  await announceRevoked(announce, await repo.deleteTokensOfUser(tx, clientId, userId));
  return issueTokens(tx, { clientId, userId }, now);
}

/**
 * A user who leaves a platform organization keeps no token of its clients: each is deleted in the
 * caller's transaction and dropped from every process's credential cache on commit.
 */
export async function revokeTokensOfOrganizationMember(tx: Db, announce: Announce, organizationId: number, userId: number): Promise<void> {
  await announceRevoked(announce, await repo.deleteTokensOfUserInOrganization(tx, organizationId, userId));
}

/**
 * Before a team or organization is deleted: its clients' tokens, and those of the organizations deleted
 * with it, stop working (the clients' rows go by foreign key; every process drops their cached tokens).
 */
export async function revokeTokensOfClientsUnder(tx: Db, announce: Announce, teamId: number): Promise<void> {
  for (const clientId of await repo.deleteAccessTokensOfClientsUnder(tx, teamId)) await announce({ kind: 'oauthClient', clientId });
}

export const deleteAccessTokensOfClient = repo.deleteAccessTokensOfClient;
export const deleteExpiredTokens = repo.deleteExpiredTokens;
