import ipaddr from 'ipaddr.js';
import type { LoginLimits } from '../../app/config.js';
import type { Database, Db } from '../../db/client.js';
import { lockLoginAttempt } from '../../db/locks.js';
import { sha256Hex } from '../../lib/crypto.js';
import type { UserRecord } from '../users/users.repository.js';
import { verifyPasswordLogin } from './auth.service.js';
import * as repo from './login-failures.repository.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** An account's failures count for a day (until a success); an address's for an hour. */
const ACCOUNT_WINDOW_MS = 24 * HOUR_MS;
const CLIENT_WINDOW_MS = HOUR_MS;
/** The wait after the last free failure; it doubles with each further failure, up to the longest. */
const FIRST_WAIT_MS = MINUTE_MS;
const LONGEST_WAIT_MS = HOUR_MS;

export type PasswordLoginOutcome =
  | { kind: 'loggedIn'; user: UserRecord }
  | { kind: 'refused' }
  /** Too many failures: the password was not checked. */
  | { kind: 'waiting'; retryAfterMs: number };

export interface PasswordLoginAttempt {
  email: string;
  password: string;
  clientIp: string;
}

/** The account an attempt counts against, the same whether or not a user has this email. */
function loginAccountKey(email: string): string {
  return sha256Hex(email.trim().toLowerCase());
}

/** The address an attempt counts against: an IPv6 client is one /64 (what one subscriber is usually given). */
function loginClientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`;
}

/** How long after its latest failure a key with `failures` failures waits: 1 minute past the free ones, doubling, at most an hour. */
function waitAfterFailures(failures: number, freeFailures: number): number {
  if (failures < freeFailures) return 0;
  return Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(failures - freeFailures, 32));
}

function remainingWait(count: repo.FailureCount, freeFailures: number, now: Date): number {
  if (!count.latest) return 0;
  return Math.max(0, count.latest.getTime() + waitAfterFailures(count.failures, freeFailures) - now.getTime());
}

/**
 * The web login with its limits. An attempt is counted as a failure before the password is checked,
 * under the account's and the address's locks, so attempts sent at once are counted one after the other
 * and none slips past the limit; a success then deletes the account's failures. While either limit makes
 * the attempt wait, the password is not checked at all (no scrypt, no user lookup): the answer cannot
 * tell a right password from a wrong one, nor a known email from an unknown one, and costs no CPU.
 */
export async function attemptPasswordLogin(database: Database, limits: LoginLimits, attempt: PasswordLoginAttempt, now: Date): Promise<PasswordLoginOutcome> {
  const accountKey = loginAccountKey(attempt.email);
  const clientKey = loginClientKey(attempt.clientIp);
  const retryAfterMs = await database.transaction(async (tx) => {
    await lockLoginAttempt(tx, accountKey, clientKey);
    const wait = Math.max(
      remainingWait(await repo.countFailures(tx, { accountKey }, new Date(now.getTime() - ACCOUNT_WINDOW_MS)), limits.failuresPerAccount, now),
      remainingWait(await repo.countFailures(tx, { clientKey }, new Date(now.getTime() - CLIENT_WINDOW_MS)), limits.failuresPerIp, now),
    );
    if (wait === 0) await repo.insertFailure(tx, { accountKey, clientKey, failedAt: now });
    return wait;
  });
  if (retryAfterMs > 0) return { kind: 'waiting', retryAfterMs };
  const user = await verifyPasswordLogin(database, attempt.email, attempt.password);
  if (!user) return { kind: 'refused' };
  await repo.deleteFailuresOfAccount(database.db, accountKey);
  return { kind: 'loggedIn', user };
}

/** Housekeeping: failures older than the longest window count for nothing. */
export function deleteExpiredLoginFailures(db: Db, now: Date, limit: number): Promise<number> {
  return repo.deleteFailuresBefore(db, new Date(now.getTime() - ACCOUNT_WINDOW_MS), limit);
}
