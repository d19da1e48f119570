import type { ChangeEvent, ChangeFeed, ChangeSubscriber } from '../../db/change-feed.js';
import type { Database, Db } from '../../db/client.js';

/** Entries before the cache is emptied (a crude bound on memory; a refill costs one query). */
const MAX_ENTRIES = 20_000;

/**
 * Reads of organizations and teams that every request of their routes repeats (the caller's
 * memberships for the access check, a team's member list), kept in memory. Any write to teams,
 * memberships, profiles or roles announces a `tenancy` change and empties it here and in every other
 * process; a `user` change does too, since member lists show user fields. Writes are rare, reads many.
 *
 * As in the availability cache, a read that raced with a change is not kept (every change bumps
 * `version`, and a value is stored only if the version is the one seen before reading), and nothing is
 * cached while the change feed is down.
 */
export class TenancyCache implements ChangeSubscriber {
  private enabled = false;
  private version = 0;
  private readonly entries = new Map<string, unknown>();

  enable(): void {
    this.clear();
    this.enabled = true;
  }

  disable(): void {
    this.enabled = false;
    this.clear();
  }

  invalidate(event: ChangeEvent): void {
    if (event.kind === 'tenancy' || event.kind === 'user') this.clear();
  }

  /** The value under `key`, loading (and keeping, if nothing changed meanwhile) on a miss. */
  async read<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (!this.enabled) return load();
    if (this.entries.has(key)) return this.entries.get(key) as T;
    const seen = this.version;
    const value = await load();
    if (this.enabled && seen === this.version) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }

  private clear(): void {
    this.version += 1;
    this.entries.clear();
  }
}

/**
 * Runs a write to teams, organizations, memberships, profiles or roles in one transaction that
 * announces a `tenancy` change on commit, so every process drops what its TenancyCache holds. `work`
 * may announce further changes (credentials the write revokes).
 */
export function tenancyWrite<T>(
  deps: { database: Database; changes: ChangeFeed },
  work: (tx: Db, announce: (event: ChangeEvent) => Promise<void>) => Promise<T>,
): Promise<T> {
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    const result = await work(tx, announce);
    await announce({ kind: 'tenancy' });
    return result;
  });
}
