import type { AddedBooking, ChangeEvent, ChangeSubscriber } from '../../db/change-feed.js';
import { type Interval, normalizeIntervals } from '../../scheduling/intervals.js';
import type { BusyBlock, LimitBooking } from '../../scheduling/slot-query.js';
import { ByUserAndTeam } from './keyed-by-user.js';

/**
 * Why a host counts as busy throughout a range: its connected calendars cannot be trusted there
 * (credentials refused, reads failing past the grace period, never read yet, or beyond the range synced).
 */
export interface CalendarDegradation {
  reason: 'invalid_credentials' | 'sync_failing' | 'never_synced' | 'beyond_sync_range';
  /** Since when (epoch ms). */
  since: number;
}

/**
 * A busy block as read from the store; a reservation stops holding time at `liveUntil`; a block with
 * `degraded` stands for calendars that cannot be read.
 */
export type StoredBusyBlock = BusyBlock & { liveUntil?: number | undefined; degraded?: CalendarDegradation | undefined };

interface Range {
  from: number;
  to: number;
}

/**
 * A host's busy time: blocks, busy time without buffers, seats or states as bare intervals (the
 * engine's plainBusy: connected calendars), and times away (out of office: the engine's away), which
 * are kept with the bookings.
 */
export interface HostBusy {
  blocks: StoredBusyBlock[];
  plain: Interval[];
  away: Interval[];
}

type BusyPart = 'bookings' | 'calendars';
const BUSY_PARTS: readonly BusyPart[] = ['bookings', 'calendars'];

/** The hosts whose bookings (with reservations) and whose calendars a read covers. */
export interface BusyRead {
  bookings: number[];
  calendars: number[];
}

interface BusyEntry extends Range, HostBusy {
  /** performance.now() when it was stored. */
  storedAt: number;
}

interface LimitEntry extends Range {
  bookings: LimitBooking[];
}

/** A host's round-robin standing in an event type: its bookings made in the period, and when it was last booked. */
export interface HostStanding {
  userId: number;
  bookingsInPeriod: number;
  lastBookedAt: number | null;
}

/** Round-robin standings of an event type's hosts in one period, per host as loaded. */
interface StandingsEntry {
  periodStart: number;
  byUser: Map<number, { standing: HostStanding; storedAt: number }>;
}

/** Entries per map before it is emptied (a crude bound on memory; a refill costs one query). */
const MAX_ENTRIES = 20_000;
/** A host's cached busy range never grows past this; a wider request replaces it. */
const MAX_RANGE_MS = 400 * 86_400_000;
const covers = (entry: Range | undefined, from: number, to: number) => entry !== undefined && entry.from <= from && entry.to >= to;

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
  /** Bumped by every change; a value loaded while it moved is kept only if none of its users changed. */
  private version = 0;
  /** The version at each user's last change since `changesFloor` (values loaded before the floor are not kept). */
  private readonly changedAt = new Map<number, number>();
  private changesFloor = 0;
  /** The version at the last team, membership or team event-type change. */
  private teamsChangedAt = 0;
  private readonly profiles = new ByUserAndTeam<unknown>();
  /** Computed listings: they depend on busy time too. */
  private readonly listings = new ByUserAndTeam<KeptListing<unknown>>();
  private listedSlots = 0;
  /** Listings computed rather than served from a kept one (for tests and diagnostics). */
  computedListings = 0;
  /**
   * Busy time per host in two parts, each dropped by its own changes: bookings and reservations (with
   * the event types' buffers), and connected calendars (a sync or a calendar setting). A booking or a
   * schedule change then reads no calendar again, and a calendar's sync no booking.
   */
  private readonly busy: Record<BusyPart, Map<number, BusyEntry>> = { bookings: new Map(), calendars: new Map() };
  private readonly limits = new Map<number, LimitEntry>();
  private readonly limitTypesByUser = new Map<number, Set<number>>();
  private readonly standings = new Map<number, StandingsEntry>();
  private readonly standingTypesByUser = new Map<number, Set<number>>();

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
      this.teamsChangedAt = this.version;
      this.profiles.dropTeams();
      this.listings.dropTeams(dropListing);
      return;
    }
    const { userId } = event;
    this.noteChange(userId);
    this.listings.dropUser(userId, dropListing);
    if (event.kind === 'calendarBusy') {
      this.busy.calendars.delete(userId);
      return;
    }
    if (event.kind === 'user') this.busy.calendars.delete(userId);
    // A booking or reservation changes busy time only; settings stay cached.
    if (event.kind !== 'busyTime') this.profiles.dropUser(userId);
    for (const eventTypeId of this.limitTypesByUser.get(userId) ?? []) this.limits.delete(eventTypeId);
    this.limitTypesByUser.delete(userId);
    if (event.kind === 'busyTime' && event.added) this.addBookings(userId, event.added);
    else {
      this.busy.bookings.delete(userId);
      for (const eventTypeId of this.standingTypesByUser.get(userId) ?? []) this.standings.get(eventTypeId)?.byUser.delete(userId);
      this.standingTypesByUser.delete(userId);
    }
  }

  /**
   * New bookings of this process (and nothing else changed): added to the host's cached busy time and
   * to its standing in their event type, as reading them again would find them.
   */
  private addBookings(userId: number, added: readonly AddedBooking[]): void {
    // An entry stored after a booking was announced may have read it: dropped, not added to.
    const announcedAt = Math.min(...added.map((booking) => booking.announcedAt));
    const entry = this.busy.bookings.get(userId);
    if (entry && entry.storedAt > announcedAt) this.busy.bookings.delete(userId);
    else if (entry) {
      const inRange = added.filter(({ block }) => block.end > entry.from && block.start < entry.to).map(({ block }) => block);
      if (inRange.length > 0) entry.blocks = [...entry.blocks, ...inRange].sort(byFootprintStart);
    }
    for (const { block, createdAt } of added) {
      const standings = block.eventTypeId === null ? undefined : this.standings.get(block.eventTypeId);
      const kept = standings?.byUser.get(userId);
      if (!standings || !kept) continue;
      if (kept.storedAt > announcedAt) {
        standings.byUser.delete(userId);
        continue;
      }
      const { standing } = kept;
      const counted = {
        userId,
        bookingsInPeriod: standing.bookingsInPeriod + (createdAt >= standings.periodStart ? 1 : 0),
        lastBookedAt: standing.lastBookedAt === null ? createdAt : Math.max(standing.lastBookedAt, createdAt),
      };
      standings.byUser.set(userId, { standing: counted, storedAt: kept.storedAt });
    }
  }

  private noteChange(userId: number): void {
    if (this.changedAt.size >= MAX_ENTRIES) {
      this.changedAt.clear();
      this.changesFloor = this.version;
    }
    this.changedAt.set(userId, this.version);
  }

  /** Whether a value of these users (and of teams, if it depends on them) loaded at version `seen` may be kept. */
  private keepable(seen: number, userIds: readonly number[], dependsOnTeams = false): boolean {
    if (!this.enabled || seen < this.changesFloor || (dependsOnTeams && this.teamsChangedAt > seen)) return false;
    return userIds.every((userId) => (this.changedAt.get(userId) ?? -1) <= seen);
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
    if (value !== null && this.keepable(seen, usersOf(value), dependsOnTeams(value))) {
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
    if (this.keepable(seen, computed.userIds, computed.dependsOnTeams)) {
      const replaced = this.listings.get(key);
      if (replaced) this.listedSlots -= replaced.slots;
      if (this.listings.size >= MAX_ENTRIES || this.listedSlots + computed.slots > MAX_LISTED_SLOTS) this.clearListings();
      this.listings.set(key, computed, computed.userIds, computed.dependsOnTeams);
      this.listedSlots += computed.slots;
    }
    return computed.value;
  }

  /**
   * Busy time of each host overlapping [from, to), blocks still in effect at `now`. A host whose kept
   * range overlaps or touches the request has only the missing side(s) read and joined to it, so paging
   * through weeks reads each week once; otherwise exactly the request is read (a cold week costs a week).
   * Each part (bookings, calendars) is kept and read apart, in one `load` per range; kept intervals are
   * merged once, when stored.
   */
  async busyBlocks(
    userIds: readonly number[],
    range: Range,
    now: number,
    load: (userIds: BusyRead, range: Range) => Promise<Map<number, HostBusy>>,
  ): Promise<Map<number, LiveBusy>> {
    const reads = new Map<string, { range: Range; userIds: BusyRead }>();
    const planned: { part: BusyPart; userId: number; base: BusyEntry | undefined; next: Range }[] = [];
    const found: Record<BusyPart, Map<number, HostBusy>> = { bookings: new Map(), calendars: new Map() };
    const read = (part: BusyPart, userId: number, gap: Range) => {
      const key = `${gap.from}:${gap.to}`;
      const group = reads.get(key) ?? reads.set(key, { range: gap, userIds: { bookings: [], calendars: [] } }).get(key)!;
      group.userIds[part].push(userId);
    };
    for (const part of BUSY_PARTS) {
      for (const userId of userIds) {
        const entry = this.enabled ? this.busy[part].get(userId) : undefined;
        if (entry && covers(entry, range.from, range.to)) {
          found[part].set(userId, entry);
          continue;
        }
        const joined = entry && { from: Math.min(entry.from, range.from), to: Math.max(entry.to, range.to) };
        if (entry && joined && range.from <= entry.to && range.to >= entry.from && joined.to - joined.from <= MAX_RANGE_MS) {
          planned.push({ part, userId, base: entry, next: joined });
          if (range.from < entry.from) read(part, userId, { from: range.from, to: entry.from });
          if (range.to > entry.to) read(part, userId, { from: entry.to, to: range.to });
        } else {
          planned.push({ part, userId, base: undefined, next: range });
          read(part, userId, range);
        }
      }
    }
    const seen = this.version;
    const loaded: Map<number, HostBusy>[] = [];
    for (const group of reads.values()) loaded.push(await load(group.userIds, group.range));
    for (const part of BUSY_PARTS) if (this.enabled && this.busy[part].size + planned.length > MAX_ENTRIES) this.busy[part].clear();
    for (const { part, userId, base, next } of planned) {
      const blocks = base ? [...base.blocks] : [];
      const plain = base ? [...base.plain] : [];
      const away = base ? [...base.away] : [];
      for (const byUser of loaded) {
        const got = byUser.get(userId);
        if (!got) continue;
        // A block reaching into the kept range was read with it already (an interval read twice merges with itself).
        for (const block of got.blocks) if (partOf(block) === part && (!base || block.end <= base.from || block.start >= base.to)) blocks.push(block);
        if (part === 'calendars') for (const interval of got.plain) plain.push(interval);
        else for (const interval of got.away) away.push(interval);
      }
      const busy = { blocks: blocks.sort(byFootprintStart), plain: normalizeIntervals(plain), away: normalizeIntervals(away) };
      if (this.keepable(seen, [userId])) this.busy[part].set(userId, { ...next, ...busy, storedAt: performance.now() });
      found[part].set(userId, busy);
    }
    const result = new Map<number, LiveBusy>();
    for (const userId of userIds) {
      const bookings = found.bookings.get(userId)!;
      const calendars = found.calendars.get(userId)!;
      result.set(userId, { blocks: [...inEffectAt(bookings.blocks, now), ...calendars.blocks], plain: calendars.plain, away: bookings.away });
    }
    return result;
  }

  /**
   * Each host's round-robin standing in the event type's period starting at `periodStart`: kept per
   * host, dropped whenever that host's busy time changes (every booking change announces it) except
   * for a booking this process made, which is counted in; `load` reads the hosts missing, and
   * `empty` stands for a host it has no row for.
   */
  async hostStandings(
    eventTypeId: number,
    periodStart: number,
    userIds: readonly number[],
    load: (userIds: number[]) => Promise<Map<number, HostStanding>>,
    empty: (userId: number) => HostStanding,
  ): Promise<HostStanding[]> {
    let entry = this.enabled ? this.standings.get(eventTypeId) : undefined;
    if (entry && entry.periodStart !== periodStart) entry = undefined;
    const missing = userIds.filter((userId) => !entry?.byUser.has(userId));
    const seen = this.version;
    const loaded = missing.length === 0 ? new Map<number, HostStanding>() : await load(missing);
    if (this.enabled && missing.length > 0) {
      if (!entry) {
        if (this.standings.size >= MAX_ENTRIES) this.standings.clear();
        this.standings.set(eventTypeId, (entry = { periodStart, byUser: new Map() }));
      }
      for (const userId of missing) {
        if (!this.keepable(seen, [userId])) continue;
        entry.byUser.set(userId, { standing: loaded.get(userId) ?? empty(userId), storedAt: performance.now() });
        this.index(this.standingTypesByUser, userId, eventTypeId);
      }
    }
    return userIds.map((userId) => loaded.get(userId) ?? entry?.byUser.get(userId)?.standing ?? empty(userId));
  }

  /** Bookings counted by an event type's limits over [from, to); `hostIds` name whose changes drop them. */
  async limitBookings(eventTypeId: number, hostIds: readonly number[], range: Range, load: (range: Range) => Promise<LimitBooking[]>): Promise<LimitBooking[]> {
    const entry = this.enabled ? this.limits.get(eventTypeId) : undefined;
    if (entry && covers(entry, range.from, range.to)) return entry.bookings;
    const seen = this.version;
    const bookings = await load(range);
    if (this.keepable(seen, hostIds)) {
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
    this.changedAt.clear();
    this.changesFloor = this.version;
    this.standings.clear();
    this.standingTypesByUser.clear();
    this.profiles.clear();
    this.clearListings();
    this.busy.bookings.clear();
    this.busy.calendars.clear();
    this.limits.clear();
    this.limitTypesByUser.clear();
  }
}

const MINUTE = 60_000;

/**
 * Kept blocks are ordered by where their footprint starts (the block with its own buffer before): the
 * engine widens every footprint by the same query buffers, so the list it builds is already sorted and
 * is merged without a sort on every listing.
 */
function byFootprintStart(a: StoredBusyBlock, b: StoredBusyBlock): number {
  return a.start - a.bufferBefore * MINUTE - (b.start - b.bufferBefore * MINUTE);
}

/** A host's busy time at `now`: the blocks still in effect (a reservation runs out), and the intervals. */
export interface LiveBusy {
  blocks: BusyBlock[];
  plain: readonly Interval[];
  away: readonly Interval[];
}

function inEffectAt(blocks: readonly StoredBusyBlock[], now: number): StoredBusyBlock[] {
  return blocks.filter((block) => block.liveUntil === undefined || block.liveUntil > now);
}

/** Calendar blocks (a calendar that cannot be read) belong with the calendars' intervals. */
const partOf = (block: StoredBusyBlock): BusyPart => (block.source === 'calendar' ? 'calendars' : 'bookings');
