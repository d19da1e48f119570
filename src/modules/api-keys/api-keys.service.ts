import type { ChangeFeed } from '../../db/change-feed.js';
import type { Database, Db } from '../../db/client.js';
import { generateApiKey, hashApiKey } from '../../lib/crypto.js';
import { fieldRejected, unauthorized } from '../../lib/errors.js';
import * as repo from './api-keys.repository.js';

const DAY_MS = 86_400_000;

export interface ApiKeyValidity {
  /** Days until expiry (default 30); ignored when `neverExpires`. */
  daysValid?: number | undefined;
  neverExpires?: boolean | undefined;
}

export function apiKeyExpiry(validity: ApiKeyValidity, now = new Date()): Date | null {
  if (validity.neverExpires) return null;
  return new Date(now.getTime() + (validity.daysValid ?? 30) * DAY_MS);
}

/** Stores a key for `userId` (only its hash) and returns the key, which is shown exactly once. */
export async function issueApiKey(
  db: Db,
  userId: number,
  options: ApiKeyValidity & { name?: string | null; presetKey?: string },
): Promise<string> {
  const apiKey = options.presetKey ?? generateApiKey();
  await repo.insertApiKey(db, { userId, hashedKey: hashApiKey(apiKey), name: options.name ?? null, expiresAt: apiKeyExpiry(options) });
  return apiKey;
}

export async function apiKeyExists(db: Db, hashedKey: string): Promise<boolean> {
  return (await repo.findApiKeyIdByHash(db, hashedKey)) !== undefined;
}

/** Replaces the calling key with a new one; the old key stops working on every process. */
export async function refreshApiKey(
  deps: { database: Database; changes: ChangeFeed },
  caller: { userId: number; hashedKey: string },
  validity: ApiKeyValidity,
): Promise<string> {
  if (validity.daysValid && validity.neverExpires) {
    throw fieldRejected('apiKeyNeverExpires', 'api_key_validity_conflict', 'Cannot set both apiKeyDaysValid and apiKeyNeverExpires. It has to be either or none of them.', true);
  }
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    const old = await repo.deleteApiKeyByHash(tx, caller.hashedKey);
    if (!old) throw unauthorized('invalid_api_key', 'Your api key is not valid');
    await announce({ kind: 'credential', hash: caller.hashedKey });
    return issueApiKey(tx, caller.userId, { ...validity, name: old.name });
  });
}
