import type { ChangeEvent, ChangeSubscriber } from '../../db/change-feed.js';
import type { BusyBlock, LimitBooking } from '../../scheduling/slot-query.js';

/** A busy block as read from the store; a reservation stops holding time at `liveUntil`. */
export type StoredBusyBlock = BusyBlock & { liveUntil?: number | undefined };

interface Range {
  from: number;
  to: number;
}

interface BusyEntry extends Range {
  blocks: StoredBusyBlock[];
}

interface LimitEntry extends Range {
  bookings: LimitBooking[];
}

/** Entries per map before it is emptied (a crude bound on memory; a refill costs one query). */
const MAX_ENTRIES = 20_000;
/** A host's cached busy range never grows past this; a wider request replaces it. */
const MAX_RANGE_MS = 400 * 86_400_000;

const covers = (entry: Range | undefined, from: number, to: number) => entry !== undefined && entry.from <= from && entry.to >= to;

/** Values under string keys, each dropped when one of its users changes or, if it depends on them, any team. */
class ByUserAndTeam<V> {
  private readonly values = new Map<string, V>();
  private readonly keysByUser = new Map<number, Set<string>>();
  private readonly teamKeys = new Set<string>();

  get size(): number {
    return this.values.size;
  }

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  set(key: string, value: V, userIds: readonly number[], dependsOnTeams: boolean): void {
    this.values.set(key, value);
    for (const userId of userIds) {
      let keys = this.keysByUser.get(userId);
      if (!keys) this.keysByUser.set(userId, (keys = new Set()));
      keys.add(key);
    }
    if (dependsOnTeams) this.teamKeys.add(key);
  }

  dropUser(userId: number, onDrop?: (value: V) => void): void {
    for (const key of this.keysByUser.get(userId) ?? []) this.drop(key, onDrop);
    this.keysByUser.delete(userId);
  }

  dropTeams(onDrop?: (value: V) => void): void {
    for (const key of this.teamKeys) this.drop(key, onDrop);
    this.teamKeys.clear();
  }

  clear(): void {
    this.values.clear();
    this.keysByUser.clear();
    this.teamKeys.clear();
  }

  private drop(key: string, onDrop?: (value: V) => void): void {
    const value = this.values.get(key);
    if (value === undefined) return;
    this.values.delete(key);
    onDrop?.(value);
  }
}

/** A computed slot listing as kept: `slots` is how many slots it holds (the cache's memory bound counts them). */
export interface KeptListing<T> {
  value: T;
  userIds: readonly number[];
  dependsOnTeams: boolean;
  slots: number;
}

/** Slots kept in computed listings, all told, before they are all dropped (a crude bound on memory). */
const MAX_LISTED_SLOTS = 500_000;

/**
 * What `GET /v2/slots` reads on every request (the event type with its schedules, the hosts' busy
 * time, the bookings its limits count) and the listings it computed from them, kept in memory and
 * dropped per user whenever the change feed says that user's availability changed, here or in any
 * other process.
 *
 * A read that raced with a change is not kept: every change bumps `version`, and a loaded value is
 * stored only if the version is still the one seen before loading. While the feed is down nothing is
 * cached at all. Writes that must see the store as it is (reservations, bookings) never read here.
 */
export class AvailabilityCache implements ChangeSubscriber {
  private enabled = false;
  private version = 0;
  private readonly profiles = new ByUserAndTeam<unknown>();
  /** Computed listings: they depend on busy time too. */
  private readonly listings = new ByUserAndTeam<KeptListing<unknown>>();
  private listedSlots = 0;
  /** Listings computed rather than served from a kept one (for tests and diagnostics). */
  computedListings = 0;
  private readonly busy = new Map<number, BusyEntry>();
  private readonly limits = new Map<number, LimitEntry>();
  private readonly limitTypesByUser = new Map<number, Set<number>>();

  get active(): boolean {
    return this.enabled;
  }

  enable(): void {
    this.clear();
    this.enabled = true;
  }

  disable(): void {
    this.enabled = false;
    this.clear();
  }

  invalidate(event: ChangeEvent): void {
    if (event.kind === 'credential' || event.kind === 'oauthClient') return;
    this.version++;
    const dropListing = (listing: KeptListing<unknown>) => (this.listedSlots -= listing.slots);
    // Memberships, teams and team event types decide who hosts a team event type: its profile goes.
    if (event.kind === 'tenancy' || event.kind === 'teamEventType') {
      this.profiles.dropTeams();
      this.listings.dropTeams(dropListing);
      return;
    }
    const { userId } = event;
    // A booking or reservation changes busy time only; settings stay cached.
    if (event.kind !== 'busyTime') this.profiles.dropUser(userId);
    this.listings.dropUser(userId, dropListing);
    this.busy.delete(userId);
    for (const eventTypeId of this.limitTypesByUser.get(userId) ?? []) this.limits.delete(eventTypeId);
    this.limitTypesByUser.delete(userId);
  }

  /**
   * A value found under `key`, or `load`ed and kept (only if found); `usersOf` names whose changes drop
   * it, and `dependsOnTeams` whether team, membership and team event-type changes drop it too.
   */
  async profile<T>(key: string, load: () => Promise<T | null>, usersOf: (value: T) => readonly number[], dependsOnTeams: (value: T) => boolean = () => false): Promise<T | null> {
    const cached = this.enabled ? this.profiles.get(key) : undefined;
    if (cached !== undefined) return cached as T;
    const seen = this.version;
    const value = await load();
    if (value !== null && this.enabled && seen === this.version) {
      if (this.profiles.size >= MAX_ENTRIES) this.profiles.clear();
      this.profiles.set(key, value, usersOf(value), dependsOnTeams(value));
    }
    return value;
  }

  /** The value kept under `key`, if any, without loading it. */
  keptProfile<T>(key: string): T | undefined {
    return this.enabled ? (this.profiles.get(key) as T | undefined) : undefined;
  }

  /**
   * A listing kept under `key` that `reusable` accepts, else `compute`d and kept (if it can be): it is
   * dropped when one of its users changes (busy time included) or, if it depends on them, any team.
   */
  async listing<T>(key: string, reusable: (value: T) => boolean, compute: () => Promise<KeptListing<T>>): Promise<T> {
    const kept = this.enabled ? (this.listings.get(key) as KeptListing<T> | undefined) : undefined;
    if (kept && reusable(kept.value)) return kept.value;
    const seen = this.version;
    const computed = await compute();
    this.computedListings++;
    if (this.enabled && seen === this.version) {
      const replaced = this.listings.get(key);
      if (replaced) this.listedSlots -= replaced.slots;
      if (this.listings.size >= MAX_ENTRIES || this.listedSlots + computed.slots > MAX_LISTED_SLOTS) this.clearListings();
      this.listings.set(key, computed, computed.userIds, computed.dependsOnTeams);
      this.listedSlots += computed.slots;
    }
    return computed.value;
  }

  /** Busy blocks of each host overlapping [from, to) that are still in effect at `now`. */
  async busyBlocks(
    userIds: readonly number[],
    range: Range,
    now: number,
    load: (userIds: number[], range: Range) => Promise<Map<number, StoredBusyBlock[]>>,
  ): Promise<Map<number, BusyBlock[]>> {
    const result = new Map<number, BusyBlock[]>();
    const missing: number[] = [];
    for (const userId of userIds) {
      const entry = this.enabled ? this.busy.get(userId) : undefined;
      if (entry && covers(entry, range.from, range.to)) result.set(userId, live(entry.blocks, now));
      else missing.push(userId);
    }
    if (missing.length === 0) return result;
    // Grow an existing range rather than trading one window for another.
    const grown = missing.reduce<Range>((acc, userId) => {
      const entry = this.busy.get(userId);
      if (!entry || Math.max(entry.to, acc.to) - Math.min(entry.from, acc.from) > MAX_RANGE_MS) return acc;
      return { from: Math.min(entry.from, acc.from), to: Math.max(entry.to, acc.to) };
    }, range);
    const seen = this.version;
    const loaded = await load(missing, grown);
    const keep = this.enabled && seen === this.version;
    if (keep && this.busy.size + missing.length > MAX_ENTRIES) this.busy.clear();
    for (const userId of missing) {
      const blocks = loaded.get(userId) ?? [];
      if (keep) this.busy.set(userId, { ...grown, blocks });
      result.set(userId, live(blocks, now));
    }
    return result;
  }

  /** Bookings counted by an event type's limits over [from, to); `hostIds` name whose changes drop them. */
  async limitBookings(eventTypeId: number, hostIds: readonly number[], range: Range, load: (range: Range) => Promise<LimitBooking[]>): Promise<LimitBooking[]> {
    const entry = this.enabled ? this.limits.get(eventTypeId) : undefined;
    if (entry && covers(entry, range.from, range.to)) return entry.bookings;
    const seen = this.version;
    const bookings = await load(range);
    if (this.enabled && seen === this.version) {
      if (this.limits.size >= MAX_ENTRIES) this.limits.clear();
      this.limits.set(eventTypeId, { ...range, bookings });
      for (const userId of hostIds) this.index(this.limitTypesByUser, userId, eventTypeId);
    }
    return bookings;
  }

  private index<K>(map: Map<number, Set<K>>, userId: number, key: K): void {
    let keys = map.get(userId);
    if (!keys) map.set(userId, (keys = new Set()));
    keys.add(key);
  }

  private clearListings(): void {
    this.listings.clear();
    this.listedSlots = 0;
  }

  private clear(): void {
    this.version++;
    this.profiles.clear();
    this.clearListings();
    this.busy.clear();
    this.limits.clear();
    this.limitTypesByUser.clear();
  }
}

function live(blocks: readonly StoredBusyBlock[], now: number): BusyBlock[] {
  return blocks.filter((block) => block.liveUntil === undefined || block.liveUntil > now);
}
