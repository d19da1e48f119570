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
  /** Entry keys by platform OAuth client, to drop its tokens when the client changes. */
  private readonly keysByClient = new Map<string, Set<string>>();
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
    addTo(this.keysByUser, principal.user.id, key);
    if (principal.client) addTo(this.keysByClient, principal.client.id, key);
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
    const keys = event.kind === 'user' ? this.keysByUser.get(event.userId) : event.kind === 'oauthClient' ? this.keysByClient.get(event.clientId) : undefined;
    for (const key of [...(keys ?? [])]) {
      const entry = this.entries.get(key);
      if (entry) this.remove(key, entry);
    }
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    removeFrom(this.keysByUser, entry.principal.user.id, key);
    if (entry.principal.client) removeFrom(this.keysByClient, entry.principal.client.id, key);
  }

  private clear(): void {
    this.entries.clear();
    this.keysByUser.clear();
    this.keysByClient.clear();
  }
}

function addTo<K>(index: Map<K, Set<string>>, owner: K, key: string): void {
  let keys = index.get(owner);
  if (!keys) index.set(owner, (keys = new Set()));
  keys.add(key);
}

function removeFrom<K>(index: Map<K, Set<string>>, owner: K, key: string): void {
  const keys = index.get(owner);
  keys?.delete(key);
  if (keys?.size === 0) index.delete(owner);
}
