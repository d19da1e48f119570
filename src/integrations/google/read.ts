import { isIanaTimeZone } from '../../lib/time-zones.js';
import { zonedToEpoch } from '../../scheduling/zones.js';
import {
  CalendarProviderError,
  type ExternalBusyInterval,
  type ExternalEventBusy,
  type ExternalEventsRead,
  type OAuthSession,
} from '../calendar-types.js';
import { callApi, expectOk, itemsOf, MAX_PAGES, optionalString, requiredString, segment } from './client.js';

const DAY_MS = 86_400_000;

/**
 * How far past the asked window a full read looks. A sync token only stands for the range the read
 * that made it covered (below), so a window that slides forward a little every day would otherwise
 * need a full read on every call; with this margin it needs one a week.
 */
export const READ_AHEAD_MS = 7 * DAY_MS;

/** Google's largest events.list page. */
const PAGE_SIZE = '2500';

/**
 * Sync tokens and windows. events.list refuses timeMin/timeMax together with syncToken, but a full
 * read restricted by timeMin/timeMax still ends with a nextSyncToken (Google's sync guide restricts
 * its own first read by timeMin). An incremental read then brings every event changed since, wherever
 * it lies in time (with singleEvents, every changed instance of a series), not only those in the first
 * read's range, and it brings nothing about events that were outside that range and did not change.
 * So the state remembers the range its token covers, and:
 *  - an incremental read is made only while the asked window lies inside that range; otherwise (the
 *    window moved past its end) the read is full again;
 *  - intervals are clipped to the covered range, and a changed event wholly outside it is reported
 *    with no intervals (so an event moved out of the range stops counting) rather than dropped;
 *  - a full read covers [from, to + READ_AHEAD_MS) and reports everything in it, so `events` may hold
 *    intervals after `window.to`.
 */
interface SyncState {
  v: 1;
  syncToken: string;
  from: number;
  to: number;
}

function parseState(state: string | null): SyncState | null {
  if (!state) return null;
  try {
    const parsed = JSON.parse(state) as Partial<SyncState>;
    if (parsed.v !== 1 || typeof parsed.syncToken !== 'string' || !parsed.syncToken) return null;
    if (!Number.isFinite(parsed.from) || !Number.isFinite(parsed.to)) return null;
    return parsed as SyncState;
  } catch {
    return null;
  }
}

interface ListedEvents {
  items: Record<string, unknown>[];
  /** The calendar's zone as events.list reports it (the zone all-day events are days in). */
  timeZone: string | null;
  nextSyncToken: string | null;
}

/** events.list over every page; 'gone' when Google no longer accepts the sync token (410). */
async function listEvents(session: OAuthSession, calendarId: string, query: Record<string, string>): Promise<ListedEvents | 'gone'> {
  const what = `GET events of calendar ${calendarId}`;
  const items: Record<string, unknown>[] = [];
  let timeZone: string | null = null;
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await callApi(session, {
      method: 'GET',
      path: `/calendars/${segment(calendarId)}/events`,
      query: { ...query, singleEvents: 'true', maxResults: PAGE_SIZE, pageToken },
      what,
    });
    if (answer.status === 410 && query.syncToken !== undefined) return 'gone';
    const body = expectOk(answer, what);
    items.push(...itemsOf(body, what));
    timeZone ??= optionalString(body, 'timeZone', what);
    const next = optionalString(body, 'nextPageToken', what);
    if (!next) return { items, timeZone, nextSyncToken: optionalString(body, 'nextSyncToken', what) };
    pageToken = next;
  }
  throw new CalendarProviderError('invalid_data', `${what}: more than ${MAX_PAGES} pages`);
}

export async function readEvents(
  session: OAuthSession,
  calendarId: string,
  window: { from: number; to: number },
  state: string | null,
): Promise<ExternalEventsRead> {
  const saved = parseState(state);
  if (saved && window.from >= saved.from && window.to <= saved.to) {
    const changes = await listEvents(session, calendarId, { syncToken: saved.syncToken });
    if (changes !== 'gone') return incrementalRead(changes, saved, calendarId);
  }
  const range = { from: window.from, to: window.to + READ_AHEAD_MS };
  const listed = await listEvents(session, calendarId, { timeMin: new Date(range.from).toISOString(), timeMax: new Date(range.to).toISOString() });
  if (listed === 'gone') throw new CalendarProviderError('not_found', `GET events of calendar ${calendarId}: HTTP 410`);
  const events = new Map<string, ExternalEventBusy>();
  for (const item of listed.items) {
    const id = requiredString(item, 'id', `an event of calendar ${calendarId}`);
    // Only cancelled instances of a series come back without showDeleted; they hold no time.
    if (item.status === 'cancelled') continue;
    events.set(id, { key: id, intervals: busyIntervals(item, id, listed.timeZone, range) });
  }
  return { full: true, events: [...events.values()], removed: [], state: stateOf(listed.nextSyncToken, range) };
}

function incrementalRead(changes: ListedEvents, saved: SyncState, calendarId: string): ExternalEventsRead {
  const events = new Map<string, ExternalEventBusy>();
  const removed = new Set<string>();
  for (const item of changes.items) {
    const id = requiredString(item, 'id', `an event of calendar ${calendarId}`);
    // A deleted event comes back as {id, status: "cancelled"} and little else.
    if (item.status === 'cancelled') {
      events.delete(id);
      removed.add(id);
      continue;
    }
    removed.delete(id);
    events.set(id, { key: id, intervals: busyIntervals(item, id, changes.timeZone, saved) });
  }
  // With no new token (Google always sends one on the last page), the next read is a full one.
  const state = changes.nextSyncToken ? stateOf(changes.nextSyncToken, saved) : null;
  return { full: false, events: [...events.values()], removed: [...removed], state };
}

function stateOf(syncToken: string | null, range: { from: number; to: number }): string | null {
  if (!syncToken) return null;
  const state: SyncState = { v: 1, syncToken, from: range.from, to: range.to };
  return JSON.stringify(state);
}

/**
 * The busy time of one (non-cancelled) event, clipped to `range`: none when it is free
 * (transparency "transparent") or the calendar's own attendee entry declined it.
 */
function busyIntervals(item: Record<string, unknown>, id: string, calendarZone: string | null, range: { from: number; to: number }): ExternalBusyInterval[] {
  const what = `event ${id}`;
  const start = timeOf(item.start, what, 'start', calendarZone);
  const end = timeOf(item.end, what, 'end', calendarZone);
  if (item.transparency === 'transparent' || declinedBySelf(item.attendees)) return [];
  const from = Math.max(start, range.from);
  const to = Math.min(end, range.to);
  if (to <= from) return [];
  const uid = optionalString(item, 'iCalUID', what);
  return [{ start: from, end: to, uid }];
}

function declinedBySelf(attendees: unknown): boolean {
  if (!Array.isArray(attendees)) return false;
  return attendees.some((attendee: unknown) => {
    if (!attendee || typeof attendee !== 'object') return false;
    const entry = attendee as { self?: unknown; responseStatus?: unknown };
    return entry.self === true && entry.responseStatus === 'declined';
  });
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * An event's start or end: `dateTime` (RFC 3339 with an offset) is an instant; `date` (all-day,
 * the end exclusive) is that day's midnight in the event's zone if it names one, else the calendar's,
 * so a day of 23 or 25 hours across a DST change is exactly that long.
 */
function timeOf(value: unknown, what: string, name: 'start' | 'end', calendarZone: string | null): number {
  if (!value || typeof value !== 'object') throw new CalendarProviderError('invalid_data', `${what}: ${name} is missing`);
  const time = value as { dateTime?: unknown; date?: unknown; timeZone?: unknown };
  if (typeof time.dateTime === 'string') {
    const at = Date.parse(time.dateTime);
    if (!Number.isFinite(at) || !/(Z|[+-]\d{2}:\d{2})$/i.test(time.dateTime)) {
      throw new CalendarProviderError('invalid_data', `${what}: ${name}.dateTime is not an RFC 3339 time with an offset`);
    }
    return at;
  }
  const date = typeof time.date === 'string' ? DATE.exec(time.date) : null;
  if (!date) throw new CalendarProviderError('invalid_data', `${what}: ${name} has neither dateTime nor date`);
  const zone =
    typeof time.timeZone === 'string' && isIanaTimeZone(time.timeZone) ? time.timeZone : calendarZone && isIanaTimeZone(calendarZone) ? calendarZone : 'UTC';
  return zonedToEpoch(zone, Number(date[1]), Number(date[2]), Number(date[3]), 0);
}
