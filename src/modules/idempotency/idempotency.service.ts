import { createHash } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { unprocessable } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/secrets.js';
import * as repo from './idempotency.repository.js';
import type { KeyClaim } from './idempotency.repository.js';

/** How long a key answers retries. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

/** The job earlier versions queued to remove expired keys; the hourly housekeeping job does it now. */
export const IDEMPOTENCY_CLEANUP_JOB = 'idempotency.cleanup';

export async function cleanUpExpiredKeys(db: Db, now: Date): Promise<void> {
  await repo.deleteExpiredKeys(db, now);
}

export interface MutationResponse {
  status: number;
  body: unknown;
}

/** Stable JSON: the same body with keys in another order is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${canonical(body ?? null)}`).digest('hex');
}

/**
 * Stored responses are sealed: they may hold secrets shown once (a webhook's secret, an API key, a
 * client secret), which must not lie in the table in clear.
 */
interface SealedBody {
  sealed: string;
}

const isSealed = (body: unknown): body is SealedBody => typeof body === 'object' && body !== null && typeof (body as SealedBody).sealed === 'string';

/**
 * Runs `work` once per key: inside the caller's transaction the key is claimed, the work done and its
 * response stored, so the response exists exactly when the effects do. A retry with the same request
 * gets the stored response (`replayed`); the same key with a different request is a 422.
 */
export async function runIdempotent(
  tx: Db,
  claim: KeyClaim,
  now: Date,
  box: SecretBox,
  work: () => Promise<MutationResponse>,
): Promise<MutationResponse & { replayed: boolean }> {
  let existing = await repo.claimKey(tx, claim, new Date(now.getTime() + IDEMPOTENCY_TTL_MS));
  if (existing && existing.expiresAt <= now) {
    await repo.deleteKey(tx, claim);
    existing = await repo.claimKey(tx, claim, new Date(now.getTime() + IDEMPOTENCY_TTL_MS));
  }
  if (existing) {
    if (existing.fingerprint !== claim.fingerprint) {
      throw unprocessable('idempotency_key_reused', 'This Idempotency-Key was already used with a different request; use a new key for a new request.', {
        property: 'Idempotency-Key',
      });
    }
    // Rows written before responses were sealed hold the body itself (they expire within 24 hours).
    const body = isSealed(existing.responseBody) ? (JSON.parse(box.open(existing.responseBody.sealed)) as unknown) : existing.responseBody;
    return { status: existing.responseStatus, body, replayed: true };
  }
  const response = await work();
  const sealed: SealedBody = { sealed: box.seal(JSON.stringify(response.body ?? null)) };
  await repo.storeResponse(tx, claim, response.status, sealed);
  return { ...response, replayed: false };
}
