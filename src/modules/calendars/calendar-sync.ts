// Busy time of connected calendars, kept in the store by jobs: the slot path reads only the store.
import { eq } from 'drizzle-orm';
import type { CalendarsConfig } from '../../app/config.js';
import type { ChangeFeed } from '../../db/change-feed.js';
import type { Database, Db } from '../../db/client.js';
import { calendarSources, users } from '../../db/schema.js';
import { insertJobs } from '../../jobs/jobs.repository.js';
import type { RecurringJob } from '../../jobs/runner.js';
import { CalendarProviderError, type ExternalBusyInterval } from '../../integrations/calendar-types.js';
import { expandBusyIntervals } from '../../integrations/ics/expand-busy.js';
import type { OutboundPolicy } from '../../integrations/outbound-fetch.js';
import type { SecretBox } from '../../lib/secrets.js';
import type { CalendarRead, CalendarReaders } from './calendar-readers.js';
import { queueCalendarBrokenMail } from '../mail/calendar-broken-mail.js';
import * as repo from './calendars.repository.js';
import { recordDelegationFailure } from './delegation-errors.js';
import { ensurePushChannel } from './calendar-push.js';

/** Names of the providers as their users know them (in the mail telling them a connection broke). */
const CONNECTION_APP_NAMES: Record<repo.CalendarConnectionRow['type'], string> = {
  'ics-feed_calendar': 'The ICS feed',
  apple_calendar: 'Apple Calendar',
  caldav_calendar: 'The CalDAV server',
  google_calendar: 'Google Calendar',
  office365_calendar: 'Outlook Calendar',
};

export const CALENDAR_SWEEP_JOB = 'calendar.sweep';

/** The sweep that queues due syncs: every minute, or every poll interval when that is shorter. */
export function calendarSweep(config: CalendarsConfig): RecurringJob {
  return { kind: CALENDAR_SWEEP_JOB, everyMs: Math.min(60_000, config.pollMs) };
}
export const CALENDAR_SYNC_JOB = 'calendar.sync';

const DAY = 86_400_000;
/** Busy time is kept from this far back (a query's buffers and notice reach a little into the past). */
const KEPT_PAST_MS = 2 * DAY;
/** Sync jobs one sweep queues at most (the rest wait for the next sweep). */
const SWEEP_BATCH = 500;
/** The first retries after a failure come sooner than the poll interval. */
const FIRST_RETRY_MS = 30_000;
/** Calendars read live before one booking at most (a large round-robin team relies on its syncs). */
const LIVE_CHECK_MAX_SOURCES = 20;

export interface CalendarSyncDeps {
  database: Database;
  secrets: SecretBox;
  config: { calendars: CalendarsConfig; allowPrivateWebhooks: boolean };
  readers: CalendarReaders;
  /** This process's change feed, when it has one: its own caches then drop at commit, not when the NOTIFY comes back. */
  changes?: ChangeFeed | undefined;
  /** The API's clock (SVC_NOW in tests and demos): the busy time kept is around it. Scheduling uses real time. */
  clock?: (() => number) | undefined;
  log?: { info(obj: object, msg: string): void; warn?(obj: object, msg: string): void } | undefined;
}

/**
 * One transaction whose `busyTimeChanged(userId)` reaches every process's availability cache on commit
 * (this one's at once when it has a change feed).
 */
export function calendarTransaction<T>(
  deps: Pick<CalendarSyncDeps, 'database' | 'changes'>,
  work: (tx: Db, busyTimeChanged: (userId: number) => Promise<void>) => Promise<T>,
): Promise<T> {
  if (deps.changes) return deps.changes.transaction(deps.database, (tx, announce) => work(tx, (userId) => announce({ kind: 'calendarBusy', userId })));
  return deps.database.transaction((tx) => work(tx, (userId) => repo.announceCalendarBusyChange(tx, userId)));
}

export function outboundPolicy(config: CalendarSyncDeps['config']): OutboundPolicy {
  return { allowPrivate: config.allowPrivateWebhooks, timeoutMs: config.calendars.requestTimeoutMs, maxResponseBytes: config.calendars.maxResponseBytes };
}

/** Queues a sync job for every calendar whose next sync is due (one per calendar and due time). */
export async function sweepDueCalendars(database: Database, now: Date): Promise<number> {
  const due = await repo.listDueSources(database.db, now, SWEEP_BATCH);
  await insertJobs(
    database.db,
    due.map((source) => ({ kind: CALENDAR_SYNC_JOB, payload: { sourceId: source.id, poll: true }, maxAttempts: 1, dedupeKey: `${CALENDAR_SYNC_JOB}:${source.id}@${source.nextSyncAt.getTime()}` })),
  );
  return due.length;
}

/** The part of time a sync stores: the past two days to `syncDays` ahead. */
export function syncWindow(config: CalendarsConfig, now: number): { from: number; to: number } {
  return { from: now - KEPT_PAST_MS, to: now + config.syncDays * DAY };
}

export type SyncOutcome = 'synced' | 'unchanged' | 'failed' | 'skipped';

/** Why a calendar is read: `live` before a booking (within a deadline), `poll` because its next sync was due. */
export interface SyncTrigger {
  live?: { timeoutMs: number } | null;
  poll?: boolean;
}

/**
 * Reads one calendar and stores its busy time. Provider calls happen outside any transaction; the
 * write (busy time, sync state) is one transaction that tells every process's cache. A failure is
 * recorded, never thrown: the calendar's owner turns unavailable once failures outlast the grace
 * period, and credentials the provider refuses mark the connection invalid at once.
 */
export async function syncCalendarSource(deps: CalendarSyncDeps, sourceId: number, now: number, { live = null, poll = false }: SyncTrigger = {}): Promise<SyncOutcome> {
  const { database, config } = deps;
  const found = await repo.findSourceForSync(database.db, sourceId);
  if (!found) return 'skipped';
  const { source, connection } = found;
  const nextSyncAt = new Date(now + config.calendars.pollMs);
  if (connection.invalid || !source.selected) {
    await database.db.update(calendarSources).set({ nextSyncAt }).where(eq(calendarSources.id, source.id));
    return 'skipped';
  }
  const reader = deps.readers[connection.type];
  const window = syncWindow(config.calendars, deps.clock?.() ?? now);
  // The stored window moves a day at most before everything is read again: recurring events are
  // expanded over the window, so a moved window needs the whole calendar.
  const storedTo = source.syncedTo?.getTime() ?? -Infinity;
  const wantFull = storedTo < window.to - DAY || source.syncedFrom === null;
  let read: CalendarRead;
  let zone: string;
  try {
    if (!reader) throw new CalendarProviderError('unreachable', `svc cannot read ${connection.type} connections`);
    const credentials = JSON.parse(deps.secrets.open(connection.credentialsSealed)) as unknown;
    const saveCredentials = async (renewed: unknown) => repo.saveCredentials(database.db, connection.id, deps.secrets.seal(JSON.stringify(renewed)));
    const policy = outboundPolicy(config);
    read = await reader.read(credentials, source.externalId, wantFull ? {} : source.syncState, { policy: live ? { ...policy, timeoutMs: Math.min(policy.timeoutMs, live.timeoutMs) } : policy, window, saveCredentials });
    zone = await ownerZone(database, source.userId);
  } catch (error) {
    // A live read cut short by its own deadline says nothing of the calendar: the scheduled syncs judge it.
    if (!live) await recordFailure(deps, found, error, now);
    return 'failed';
  }
  const expandOver = read.full ? window : { from: source.syncedFrom!.getTime(), to: storedTo };
  const intervals: (ExternalBusyInterval & { objectKey: string })[] = [];
  let skippedEvents = 0;
  try {
    for (const object of read.objects) {
      const expanded = expandBusyIntervals(object.ics, expandOver, zone);
      skippedEvents += expanded.skipped.length;
      for (const interval of expanded.intervals) intervals.push({ ...interval, objectKey: object.key });
    }
    // Intervals a provider gave directly are kept within the stored span, as expanded ones are.
    for (const event of read.events ?? []) {
      for (const interval of event.intervals) {
        const start = Math.max(interval.start, expandOver.from);
        const end = Math.min(interval.end, expandOver.to);
        if (end > start) intervals.push({ ...interval, start, end, objectKey: event.key });
      }
    }
  } catch (error) {
    await recordFailure(deps, found, error, now);
    return 'failed';
  }
  const events = read.events ?? [];
  const changed = read.full || read.objects.length > 0 || events.length > 0 || read.removed.length > 0;
  await calendarTransaction(deps, async (tx, busyTimeChanged) => {
    const locked = await repo.lockSource(tx, source.id);
    if (!locked) return;
    if (changed) {
      const keys = read.full ? null : [...read.objects.map((object) => object.key), ...events.map((event) => event.key), ...read.removed];
      await repo.replaceBusyTimes(tx, source, keys, intervals);
    }
    await repo.recordSyncSuccess(tx, source.id, new Date(now), {
      syncState: read.state,
      syncedFrom: new Date(expandOver.from),
      syncedTo: new Date(expandOver.to),
      name: read.name ?? undefined,
      nextSyncAt,
    });
    if (changed || locked.degraded) await busyTimeChanged(source.userId);
  });
  if (!live) {
    // A poll of a watched calendar finding changes means no notification came for them (push syncs read
    // them seconds after they happen); a whole read says nothing of that.
    const next = await ensurePushChannel(deps, found, now, { silent: poll && changed && !read.full });
    if (next !== nextSyncAt.getTime()) await database.db.update(calendarSources).set({ nextSyncAt: new Date(next) }).where(eq(calendarSources.id, source.id));
  }
  // Events svc could not read are skipped, not fatal: their count says a calendar is read only in part.
  deps.log?.info({ calendarSourceId: source.id, type: connection.type, full: read.full, objects: read.objects.length, removed: read.removed.length, skippedEvents }, 'calendar synced');
  return changed ? 'synced' : 'unchanged';
}

async function ownerZone(database: Database, userId: number): Promise<string> {
  const [user] = await database.db.select({ timeZone: users.timeZone }).from(users).where(eq(users.id, userId));
  return user?.timeZone ?? 'UTC';
}

/**
 * Before a booking is written: the hosts' selected calendars are read again now (in parallel, each within
 * `timeoutMs`), so an event added since the last sync is seen. A calendar that does not answer in time
 * keeps the busy time stored (at most one poll interval old); nothing is recorded as a failure.
 */
export async function refreshBeforeBooking(
  deps: CalendarSyncDeps,
  userIds: readonly number[],
  live: { timeoutMs: number; mayRead: LiveReadThrottle },
): Promise<SyncOutcome[]> {
  if (live.timeoutMs <= 0 || userIds.length === 0) return [];
  const now = Date.now();
  const sourceIds = (await repo.liveCheckedSources(deps.database.db, userIds, LIVE_CHECK_MAX_SOURCES)).filter((sourceId) => live.mayRead(sourceId, now));
  return Promise.all(sourceIds.map((sourceId) => syncCalendarSource(deps, sourceId, now, { live: { timeoutMs: live.timeoutMs } })));
}

/** Whether a source may be read live now (and, if so, notes that it is). */
export type LiveReadThrottle = (sourceId: number, now: number) => boolean;

/**
 * Anyone may ask for a booking, and each ask would read the hosts' calendars: a process reads one
 * calendar live at most once per `intervalMs`, so what a flood of attempts sends a provider is bounded.
 */
export function liveReadThrottle(intervalMs: number): LiveReadThrottle {
  const readAt = new Map<number, number>();
  return (sourceId, now) => {
    const last = readAt.get(sourceId);
    if (last !== undefined && now - last < intervalMs) return false;
    if (readAt.size >= 10_000) readAt.clear();
    readAt.set(sourceId, now);
    return true;
  };
}

/**
 * Marks a connection whose credentials the provider refused, and mails its owner (once per breakage). A
 * connection of a delegation credential is the organization's to mend: its webhooks hear of it instead,
 * and the credential tries the member again later.
 */
export async function flagConnectionInvalid(tx: Db, connection: repo.CalendarConnectionRow, calendarName: string, now: number, failure = 'unauthorized'): Promise<void> {
  if (!(await repo.markConnectionInvalid(tx, connection.id, new Date(now)))) return;
  const owner = await repo.findOwner(tx, connection.userId);
  if (!owner) return;
  if (connection.delegationCredentialId) {
    await recordDelegationFailure(tx, connection.delegationCredentialId, { id: connection.userId, email: owner.email }, failure, now);
    return;
  }
  await queueCalendarBrokenMail(tx, { owner, calendarName, appName: CONNECTION_APP_NAMES[connection.type] });
}

async function recordFailure(deps: CalendarSyncDeps, found: { source: repo.CalendarSourceRow; connection: repo.CalendarConnectionRow }, error: unknown, now: number): Promise<void> {
  const { source, connection } = found;
  const { calendars } = deps.config;
  const providerError = error instanceof CalendarProviderError ? error : null;
  const message = providerError ? `${providerError.kind}: ${providerError.message}` : `error: ${error instanceof Error ? error.message : String(error)}`;
  const failingSince = source.failingSince ?? new Date(now);
  const unauthorized = providerError?.kind === 'unauthorized';
  const degraded = unauthorized || source.lastSyncedAt === null || now - failingSince.getTime() >= calendars.failureGraceMs;
  const failures = Math.max(1, Math.round((now - failingSince.getTime()) / FIRST_RETRY_MS) + 1);
  const backoff = Math.min(calendars.pollMs, FIRST_RETRY_MS * 2 ** Math.min(10, failures - 1));
  const retryIn = Math.max(backoff, providerError?.retryAfterMs ?? 0);
  await calendarTransaction(deps, async (tx, busyTimeChanged) => {
    await repo.recordSyncFailure(tx, source.id, { failingSince, message: message.slice(0, 500), degraded, nextSyncAt: new Date(now + retryIn) });
    if (unauthorized) await flagConnectionInvalid(tx, connection, source.name, now, message);
    if (degraded !== source.degraded || unauthorized) await busyTimeChanged(source.userId);
  });
  deps.log?.warn?.({ calendarSourceId: source.id, type: connection.type, failure: message, degraded, retryInMs: retryIn }, 'calendar sync failed');
}

