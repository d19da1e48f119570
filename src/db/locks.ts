import { sql } from 'drizzle-orm';
import type { Db } from './client.js';

/**
 * Every advisory lock class of svc (the first key of pg_advisory_xact_lock), in one place so that no two
 * share a number: two classes with one number make unrelated writes wait on each other.
 */
export const LOCK_CLASSES = {
  /** "This host's time": taken by every write that must see the host's busy time unchanged. */
  hostTime: 0x5376_0001,
  /** "This team event type's bookings": round-robin choices and its limits are decided under it. */
  eventTypeBookings: 0x5376_0002,
  /** "This team's bookings": its own booking limits count bookings of all its event types. */
  teamBookings: 0x5376_0003,
  /** One web-login account (the hash of the email as typed), and one client address. */
  loginAccount: 0x5376_0004,
  loginClient: 0x5376_0005,
  /** One owner's webhook subscriptions. */
  webhookOwner: 0x5376_0006,
  /** One caller's verification codes, and one address or number's. */
  verificationCaller: 0x5376_0010,
  verificationDestination: 0x5376_0011,
} as const;

const HOST_TIME_LOCK = LOCK_CLASSES.hostTime;
const EVENT_TYPE_BOOKINGS_LOCK = LOCK_CLASSES.eventTypeBookings;
const TEAM_BOOKINGS_LOCK = LOCK_CLASSES.teamBookings;
const LOGIN_ACCOUNT_LOCK = LOCK_CLASSES.loginAccount;
const LOGIN_CLIENT_LOCK = LOCK_CLASSES.loginClient;

/*
 * Order of locks, the same for every writer so that none waits on another in a cycle: a team's, then
 * one event type's, then hosts' in id order. Hosts locked later in a transaction are only ever tried
 * (`tryLockHostTime`), never waited for.
 */

/**
 * Transaction-scoped advisory locks on the hosts' time, in id order, in one statement. Whoever holds
 * them re-reads busy time, checks, and writes before anyone else can: this is what makes "check, then
 * insert" safe across many API processes.
 */
export async function lockHostTime(tx: Db, userIds: readonly number[]): Promise<void> {
  const ids = [...new Set(userIds)].sort((a, b) => a - b);
  if (ids.length === 1) await tx.execute(sql`select pg_advisory_xact_lock(${HOST_TIME_LOCK}, ${ids[0]!})`);
  else if (ids.length > 1) {
    // The subquery's order is the order the locks are taken in.
    await tx.execute(sql`select count(pg_advisory_xact_lock(${HOST_TIME_LOCK}, id)) from (select unnest(${`{${ids.join(',')}}`}::int[]) as id order by 1) as hosts`);
  }
}

/** Takes one host's lock only if nobody else holds it right now (transaction-scoped locks cannot be given back early). */
export async function tryLockHostTime(tx: Db, userId: number): Promise<boolean> {
  const result = await tx.execute(sql`select pg_try_advisory_xact_lock(${HOST_TIME_LOCK}, ${userId}) as locked`);
  return (result as unknown as { rows: { locked: boolean }[] }).rows[0]!.locked;
}

/**
 * Tries the hosts' locks in the given order, one at a time, and stops at the first it gets: that host,
 * or null when others hold every one. One statement however many are tried (the recursive query takes
 * the next lock only while none was got yet).
 */
export async function tryLockFirstHostTime(tx: Db, userIds: readonly number[]): Promise<number | null> {
  if (userIds.length === 0) return null;
  if (userIds.length === 1) return (await tryLockHostTime(tx, userIds[0]!)) ? userIds[0]! : null;
  const result = await tx.execute(sql`
    with recursive tried(n, id, locked) as (
      select 0, null::int, false
      union all
      select n + 1, (${`{${userIds.join(',')}}`}::int[])[n + 1], pg_try_advisory_xact_lock(${HOST_TIME_LOCK}, (${`{${userIds.join(',')}}`}::int[])[n + 1])
      from tried where not locked and n < ${userIds.length}
    )
    select id from tried where locked`);
  return (result as unknown as { rows: { id: number }[] }).rows[0]?.id ?? null;
}

export async function lockEventTypeBookings(tx: Db, eventTypeId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${EVENT_TYPE_BOOKINGS_LOCK}, ${eventTypeId})`);
}

export async function lockTeamBookings(tx: Db, teamId: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${TEAM_BOOKINGS_LOCK}, ${teamId})`);
}

/**
 * Transaction-scoped locks on one login attempt's account and client address, in that order (a login
 * transaction takes no other lock), so attempts racing each other are counted one after the other.
 */
export async function lockLoginAttempt(tx: Db, accountKey: string, clientKey: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${LOGIN_ACCOUNT_LOCK}, hashtext(${accountKey}))`);
  await tx.execute(sql`select pg_advisory_xact_lock(${LOGIN_CLIENT_LOCK}, hashtext(${clientKey}))`);
}
