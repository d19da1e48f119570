import type { ChangeEvent, ChangeSubscriber } from '../../db/change-feed.js';
import type { CredentialKind } from '../../http/access.js';
import type { Principal } from './principal.js';

interface Entry {
  principal: Principal;
  /** When the credential itself stops being valid (null: never). */
  credentialExpiresAt: Date | null;
  cachedUntil: number;
}

const MAX_ENTRIES = 50_000;
const KINDS: readonly CredentialKind[] = ['apiKey', 'accessToken', 'oauthClient'];

/**
 * Entries are keyed by kind as well as hash: an API key's hash is the SHA-256 of its text after `svc_`,
 * which is also the hash of that bare text sent as an access token.
 */
const entryKey = (kind: CredentialKind, hash: string) => `${kind}:${hash}`;

/**
 * Short-lived cache of resolved credentials. Every change to a user or a credential is announced
 * through the change feed and drops the affected entries on every process; while the feed is down
 * the cache is switched off, so it can never serve a revoked key from a missed notification.
 */
export class CredentialCache implements ChangeSubscriber {
  private readonly entries = new Map<string, Entry>();
  /** Entry keys by user, to drop a user's credentials when the user changes. */
  private readonly keysByUser = new Map<number, Set<string>>();
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

  get(kind: CredentialKind, hash: string, now: number): Entry | undefined {
    if (!this.active) return undefined;
    const key = entryKey(kind, hash);
    const entry = this.entries.get(key);
    if (entry && entry.cachedUntil <= now) {
      this.remove(key, entry);
      return undefined;
    }
    return entry;
  }

  set(principal: Principal, credentialExpiresAt: Date | null, now: number): void {
    if (!this.active) return;
    if (this.entries.size >= MAX_ENTRIES) this.clear();
    const key = entryKey(principal.kind, principal.credentialHash);
    this.entries.set(key, { principal, credentialExpiresAt, cachedUntil: now + this.ttlMs });
    let keys = this.keysByUser.get(principal.user.id);
    if (!keys) this.keysByUser.set(principal.user.id, (keys = new Set()));
    keys.add(key);
  }

  invalidate(event: ChangeEvent): void {
    if (event.kind === 'credential') {
      for (const kind of KINDS) {
        const key = entryKey(kind, event.hash);
        const entry = this.entries.get(key);
        if (entry) this.remove(key, entry);
      }
      return;
    }
    if (event.kind !== 'user') return;
    for (const key of this.keysByUser.get(event.userId) ?? []) this.entries.delete(key);
    this.keysByUser.delete(event.userId);
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.keysByUser.get(entry.principal.user.id)?.delete(key);
  }

  private clear(): void {
    this.entries.clear();
    this.keysByUser.clear();
  }
}
