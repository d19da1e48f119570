import type { ChangeEvent, ChangeSubscriber } from '../../db/change-feed.js';
import type { Principal } from './principal.js';

interface Entry {
  principal: Principal;
  /** When the credential itself stops being valid (null: never). */
  credentialExpiresAt: Date | null;
  cachedUntil: number;
}

const MAX_ENTRIES = 50_000;

/**
 * Short-lived cache of resolved credentials. Every change to a user or a credential is announced
 * through the change feed and drops the affected entries on every process; while the feed is down
 * the cache is switched off, so it can never serve a revoked key from a missed notification.
 */
export class CredentialCache implements ChangeSubscriber {
  private readonly entries = new Map<string, Entry>();
  private readonly hashesByUser = new Map<number, Set<string>>();
  private enabled = false;

  constructor(private readonly ttlMs: number) {}

  get active(): boolean {
    return this.enabled && this.ttlMs > 0;
  }

  /** Called when the invalidation channel is (re)connected: anything cached before may be stale. */
  enable(): void {
    this.clear();
    this.enabled = true;
  }

  disable(): void {
    this.enabled = false;
    this.clear();
  }

  get(hash: string, now: number): Entry | undefined {
    if (!this.active) return undefined;
    const entry = this.entries.get(hash);
    if (entry && entry.cachedUntil <= now) {
      this.remove(hash, entry);
      return undefined;
    }
    return entry;
  }

  set(hash: string, principal: Principal, credentialExpiresAt: Date | null, now: number): void {
    if (!this.active) return;
    if (this.entries.size >= MAX_ENTRIES) this.clear();
    this.entries.set(hash, { principal, credentialExpiresAt, cachedUntil: now + this.ttlMs });
    let hashes = this.hashesByUser.get(principal.user.id);
    if (!hashes) this.hashesByUser.set(principal.user.id, (hashes = new Set()));
    hashes.add(hash);
  }

  invalidate(event: ChangeEvent): void {
    if (event.kind === 'credential') {
      const entry = this.entries.get(event.hash);
      if (entry) this.remove(event.hash, entry);
      return;
    }
    if (event.kind !== 'user') return;
    for (const hash of this.hashesByUser.get(event.userId) ?? []) this.entries.delete(hash);
    this.hashesByUser.delete(event.userId);
  }

  private remove(hash: string, entry: Entry): void {
    this.entries.delete(hash);
    this.hashesByUser.get(entry.principal.user.id)?.delete(hash);
  }

  private clear(): void {
    this.entries.clear();
    this.hashesByUser.clear();
  }
}
