import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { BusyBlock } from '../scheduling/slot-query.js';
import type { Database, Db } from './client.js';

/** One channel carries every change that a process-local cache must hear about. */
export const CHANGES_CHANNEL = 'svc_changes';

/**
 * What changed:
 * - `user`: a user record (profile, default schedule, deletion): cached credentials and availability of the user;
 * - `credential`: one API key or token;
 * - `availability`: the settings a user's slots are computed from (schedules, event types);
 * - `busyTime`: a user's bookings or reservations, and nothing else;
 * - `tenancy`: any team, organization, membership, profile or role (rare writes: every cached access
 *   decision and team read is dropped);
 * - `teamEventType`: a team event type's settings or hosts;
 * - `oauthClient`: a platform OAuth client (its redirect URIs, its deletion): every cached credential of it.
 */
export type ChangeEvent =
  | { kind: 'tenancy' }
  | { kind: 'user'; userId: number }
  | { kind: 'credential'; hash: string }
  | { kind: 'availability'; userId: number }
  | { kind: 'busyTime'; userId: number; added?: readonly AddedBooking[] | undefined }
  /** The user's connected calendars: their busy time, selection, connections or health. */
  | { kind: 'calendarBusy'; userId: number }
  | { kind: 'teamEventType'; eventTypeId: number }
  | { kind: 'oauthClient'; clientId: string };

/**
 * A booking the writing process just made, as its host's busy time and round-robin standing count it:
 * its own caches add it rather than read the host again. Never sent: other processes drop the host's
 * entries as for any busyTime change.
 */
export interface AddedBooking {
  block: BusyBlock & { eventTypeId: number | null };
  /** When the booking was made (round robin counts bookings by it). */
  createdAt: number;
  /**
   * performance.now() when it was announced, before its commit: an entry a cache stored later may
   * have read it already, so the cache drops such an entry instead of adding the booking twice.
   */
  announcedAt: number;
}

export function formatChange(event: ChangeEvent): string {
  if (event.kind === 'tenancy') return 'tenancy:*';
  if (event.kind === 'teamEventType') return `teamEventType:${event.eventTypeId}`;
  if (event.kind === 'oauthClient') return `oauthClient:${event.clientId}`;
  return event.kind === 'credential' ? `credential:${event.hash}` : `${event.kind}:${event.userId}`;
}

/** The sending process's mark after the change (`busyTime:7@1a2b3c4d`), if any. */
const ORIGIN = /@([0-9a-f]{8})$/;

export function originOf(payload: string): string | null {
  return ORIGIN.exec(payload)?.[1] ?? null;
}

export function parseChange(payload: string): ChangeEvent | null {
  const [kind, value] = payload.replace(ORIGIN, '').split(':', 2);
  if (!value) return null;
  if (kind === 'credential') return { kind, hash: value };
  if (kind === 'tenancy') return { kind };
  if (kind === 'oauthClient') return { kind, clientId: value };
  if (kind === 'teamEventType' && /^\d+$/.test(value)) return { kind, eventTypeId: Number(value) };
  if ((kind === 'user' || kind === 'availability' || kind === 'busyTime' || kind === 'calendarBusy') && /^\d+$/.test(value)) return { kind, userId: Number(value) };
  return null;
}

/** A process-local cache kept coherent by the feed. */
export interface ChangeSubscriber {
  invalidate(event: ChangeEvent): void;
  /** The feed is (re)connected: anything cached before may be stale. */
  enable(): void;
  /** The feed is down: a change could be missed, so nothing may be served from the cache. */
  disable(): void;
}

export interface FeedLog {
  warn(obj: object, msg: string): void;
}

/**
 * Changes announced inside a transaction reach every svc process through PostgreSQL NOTIFY, which is
 * delivered only on commit; the writing process also applies them itself right after its commit, so
 * its next request never sees the old state (and skips the echo of its own notification: what a
 * booking it made adds to a cached entry would otherwise be dropped again). A subscriber is enabled
 * only while the listener is connected, so a missed notification can never leave a stale entry being
 * served. Processes sharing a database must run the same svc version: one before the origin mark reads
 * a marked notification as malformed and ignores it.
 */
export class ChangeFeed {
  private readonly subscribers: ChangeSubscriber[] = [];
  /** Marks this process's notifications: it applied them itself on commit, so their echo is skipped. */
  private readonly origin = randomBytes(4).toString('hex');
  private stopFeed: (() => Promise<void>) | null = null;

  subscribe(subscriber: ChangeSubscriber): void {
    this.subscribers.push(subscriber);
  }

  /** Applies a committed change to this process's caches. */
  apply(event: ChangeEvent): void {
    for (const subscriber of this.subscribers) subscriber.invalidate(event);
  }

  /**
   * Runs `work` in one transaction; the changes it announces are sent to every process on commit and
   * applied here right after it.
   */
  async transaction<T>(database: Database, work: (tx: Db, announce: (event: ChangeEvent) => Promise<void>) => Promise<T>): Promise<T> {
    const announced: ChangeEvent[] = [];
    const result = await database.transaction((tx) =>
      work(tx, async (event) => {
        announced.push(event);
        await tx.execute(sql`select pg_notify(${CHANGES_CHANNEL}, ${`${formatChange(event)}@${this.origin}`})`);
      }),
    );
    for (const event of announced) this.apply(event);
    return result;
  }

  /** Listens for other processes' changes, reconnecting with backoff; subscribers are off while it is down. */
  async start(database: Database, log: FeedLog): Promise<void> {
    let stopped = false;
    let unlisten: (() => Promise<void>) | null = null;
    let retryTimer: NodeJS.Timeout | null = null;
    let attempt = 0;
    const setEnabled = (enabled: boolean) => {
      for (const subscriber of this.subscribers) {
        if (enabled) subscriber.enable();
        else subscriber.disable();
      }
    };
    const onMessage = (payload: string) => {
      if (originOf(payload) === this.origin) return;
      const event = parseChange(payload);
      if (event) this.apply(event);
    };
    const onLost = () => {
      setEnabled(false);
      if (stopped) return;
      log.warn({}, 'change feed lost; caches disabled until it reconnects');
      const stale = unlisten;
      unlisten = null;
      void stale?.();
      scheduleConnect();
    };
    const connect = async () => {
      try {
        unlisten = await database.listen(CHANGES_CHANNEL, onMessage, onLost);
        attempt = 0;
        setEnabled(true);
      } catch (error) {
        setEnabled(false);
        log.warn({ err: error }, 'cannot listen for changes; caches disabled');
        scheduleConnect();
      }
    };
    const scheduleConnect = () => {
      if (stopped || retryTimer) return;
      const delay = Math.min(30_000, 250 * 2 ** attempt++);
      retryTimer = setTimeout(() => {
        retryTimer = null;
        void connect();
      }, delay);
      retryTimer.unref();
    };
    await connect();
    this.stopFeed = async () => {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      setEnabled(false);
      await unlisten?.();
    };
  }

  async stop(): Promise<void> {
    await this.stopFeed?.();
    this.stopFeed = null;
  }
}
