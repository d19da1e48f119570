import { CalendarProviderError } from '../calendar-types.js';
import { OutboundError, type OutboundPolicy } from '../outbound-fetch.js';
import {
  type CalDavCredentials,
  type CalDavObject,
  type Session,
  XMLNS,
  absolute,
  asArray,
  collectionUrl,
  dav,
  expectMultistatus,
  precondition,
  providerError,
  readObjects,
  session,
  statusError,
  textOf,
} from './client.js';

export interface CalDavSyncState {
  /** RFC 6578 sync token, when the server has sync-collection. */
  syncToken: string | null;
  /** The calendar's getctag (calendarserver.org), compared when there is no sync-collection. */
  ctag: string | null;
}

export interface CalDavSyncResult {
  state: CalDavSyncState;
  /** true: `upserted` is the whole calendar, and the caller replaces everything it held for it. */
  full: boolean;
  upserted: CalDavObject[];
  /** Absolute URLs of objects gone since the last sync (empty when `full`). */
  removed: string[];
}

/** Objects per calendar-multiget: bounds each answer on large calendars (halved when one exceeds the policy's size cap). */
const MULTIGET_BATCH = 250;
/** Multigets in flight at once. */
const MULTIGET_PARALLEL = 2;
/** sync-collection pages followed when a server truncates its answer (507 on the collection). */
const MAX_SYNC_PAGES = 50;

const GETETAG_AND_DATA = { 'd:getetag': {}, 'c:calendar-data': {} };

/** Whether a failure was an answer over the policy's size cap (a smaller request may fit). */
function tooLarge(error: unknown): boolean {
  return error instanceof CalendarProviderError && error.cause instanceof OutboundError && error.cause.reason === 'too_large';
}

async function multigetBatch(s: Session, url: string, hrefs: string[]): Promise<{ objects: CalDavObject[]; missing: string[] }> {
  const what = `REPORT calendar-multiget on ${url}`;
  const body = { 'c:calendar-multiget': { _attributes: XMLNS, 'd:prop': GETETAG_AND_DATA, 'd:href': hrefs.map((href) => ({ _text: href })) } };
  try {
    const answer = expectMultistatus(s, await dav(s, url, 'REPORT', '1', body, what), what);
    return readObjects(s, answer, url, what);
  } catch (error) {
    if (!tooLarge(error) || hrefs.length === 1) throw error;
    // Large events (attachments, long descriptions): halve the batch until the answers fit.
    const half = Math.ceil(hrefs.length / 2);
    const [a, b] = [await multigetBatch(s, url, hrefs.slice(0, half)), await multigetBatch(s, url, hrefs.slice(half))];
    return { objects: [...a.objects, ...b.objects], missing: [...a.missing, ...b.missing] };
  }
}

async function multiget(s: Session, url: string, hrefs: string[]): Promise<{ objects: CalDavObject[]; missing: string[] }> {
  const batches: string[][] = [];
  for (let i = 0; i < hrefs.length; i += MULTIGET_BATCH) batches.push(hrefs.slice(i, i + MULTIGET_BATCH));
  const objects: CalDavObject[] = [];
  const missing: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const read = await multigetBatch(s, url, batches[next++]!);
      objects.push(...read.objects);
      missing.push(...read.missing);
    }
  };
  await Promise.all(Array.from({ length: Math.min(MULTIGET_PARALLEL, batches.length) }, worker));
  return { objects, missing };
}

interface SyncReport {
  token: string;
  /** Server hrefs (as written) of members added or changed. */
  changed: string[];
  /** Absolute URLs of members removed. */
  removed: string[];
}

/** RFC 6578 sync-collection from `token` (null: the initial sync, every member); 'invalid-token' when the server no longer knows it. */
async function syncReport(s: Session, url: string, token: string | null): Promise<SyncReport | 'invalid-token'> {
  const what = `REPORT sync-collection on ${url}`;
  const changed = new Map<string, string>();
  const removed = new Set<string>();
  let current = token;
  for (let page = 0; page < MAX_SYNC_PAGES; page++) {
    const body = {
      'd:sync-collection': {
        _attributes: XMLNS,
        'd:sync-token': current ? { _text: current } : {},
        'd:sync-level': { _text: '1' },
        'd:prop': { 'd:getetag': {} },
      },
    };
    const answer = await dav(s, url, 'REPORT', '0', body, what);
    const named = precondition(answer);
    if (current && (answer.status === 409 || ((answer.status === 403 || answer.status === 400) && named === 'valid-sync-token'))) {
      return 'invalid-token';
    }
    if (answer.status !== 207) throw statusError(s, answer, what);
    expectMultistatus(s, answer, what);
    const next = textOf(answer.multistatus?.syncToken);
    if (!next) throw providerError(s, 'invalid_data', `${what}: the answer carries no sync-token`);
    let truncated = false;
    for (const response of answer.responses) {
      const href = String(response.href);
      const full = absolute(href, url);
      if (response.status === 507) {
        truncated = true;
        continue;
      }
      // Sub-collections and the calendar itself are not events.
      if (full === url || full.endsWith('/')) continue;
      if (response.status === 404 || response.status === 410) {
        changed.delete(full);
        removed.add(full);
      } else if (response.ok) {
        removed.delete(full);
        changed.set(full, href);
      }
    }
    current = next;
    if (!truncated) return { token: next, changed: [...changed.values()], removed: [...removed] };
  }
  throw providerError(s, 'invalid_data', `${what}: still truncated after ${MAX_SYNC_PAGES} pages`);
}

async function fullBySync(s: Session, url: string, ctag: string | null): Promise<CalDavSyncResult> {
  const report = await syncReport(s, url, null);
  if (report === 'invalid-token') throw providerError(s, 'invalid_data', `REPORT sync-collection on ${url}: the initial sync was refused`);
  const { objects } = await multiget(s, url, report.changed);
  return { state: { syncToken: report.token, ctag }, full: true, upserted: objects, removed: [] };
}

/**
 * What changed in a calendar since `state`. With sync-collection (RFC 6578) only the changes are
 * fetched: one REPORT when nothing changed, and calendar-multiget for what did; a token the server no
 * longer knows (DAV:valid-sync-token) means a full resync. Without it, the getctag is compared (one
 * PROPFIND when unchanged) and any change lists the whole calendar again. Objects are returned as the
 * server holds them (any component type, VEVENTs among them); turning them into busy time is the
 * caller's.
 */
export async function syncCalendar(
  creds: CalDavCredentials,
  calendarUrl: string,
  state: CalDavSyncState,
  policy: OutboundPolicy,
): Promise<CalDavSyncResult> {
  const s = session(creds, policy);
  const url = collectionUrl(s, calendarUrl);
  if (state.syncToken) {
    const report = await syncReport(s, url, state.syncToken);
    if (report === 'invalid-token') return fullBySync(s, url, state.ctag);
    if (report.changed.length === 0 && report.removed.length === 0) {
      return { state: { syncToken: report.token, ctag: state.ctag }, full: false, upserted: [], removed: [] };
    }
    const { objects, missing } = await multiget(s, url, report.changed);
    // Removed between the sync report and the multiget: gone as well.
    return { state: { syncToken: report.token, ctag: state.ctag }, full: false, upserted: objects, removed: [...report.removed, ...missing] };
  }

  const what = `PROPFIND sync-token and getctag on ${url}`;
  const body = { 'd:propfind': { _attributes: XMLNS, 'd:prop': { 'd:sync-token': {}, 'cs:getctag': {}, 'd:supported-report-set': {} } } };
  const answer = expectMultistatus(s, await dav(s, url, 'PROPFIND', '0', body, what), what);
  const props = (answer.responses[0]?.props ?? {}) as Record<string, unknown>;
  const ctag = textOf(props.getctag);
  if (supportsSync(props)) return fullBySync(s, url, ctag);
  if (ctag !== null && ctag === state.ctag) return { state: { syncToken: null, ctag }, full: false, upserted: [], removed: [] };

  const listWhat = `REPORT calendar-query on ${url}`;
  const query = {
    'c:calendar-query': {
      _attributes: XMLNS,
      'd:prop': { 'd:getetag': {} },
      'c:filter': { 'c:comp-filter': { _attributes: { name: 'VCALENDAR' }, 'c:comp-filter': { _attributes: { name: 'VEVENT' } } } },
    },
  };
  const listing = expectMultistatus(s, await dav(s, url, 'REPORT', '1', query, listWhat), listWhat);
  const hrefs = listing.responses.filter((r) => r.ok && absolute(String(r.href), url) !== url).map((r) => String(r.href));
  const { objects } = await multiget(s, url, hrefs);
  return { state: { syncToken: null, ctag }, full: true, upserted: objects, removed: [] };
}

/** sync-collection among the reports the calendar supports; a sync-token alone counts when the server lists no reports. */
function supportsSync(props: Record<string, unknown>): boolean {
  const reports = props.supportedReportSet;
  if (reports && typeof reports === 'object') {
    return asArray((reports as Record<string, unknown>).supportedReport).some((entry) => {
      const report = (entry as { report?: unknown } | undefined)?.report;
      return !!report && typeof report === 'object' && 'syncCollection' in report;
    });
  }
  return textOf(props.syncToken) !== null;
}

/** iCalendar UTC form (RFC 5545 DATE-TIME with Z) of an instant, widened to whole seconds. */
function utc(ms: number, round: (n: number) => number): string {
  return new Date(round(ms / 1000) * 1000).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/**
 * The calendar's events that overlap [from, to) (epoch ms), by a calendar-query with a time-range
 * filter: the server applies it to each occurrence of a recurring event. For the live check before a
 * booking is written; the caller's policy carries its short timeout.
 */
export async function fetchWindow(creds: CalDavCredentials, calendarUrl: string, from: number, to: number, policy: OutboundPolicy): Promise<CalDavObject[]> {
  if (!Number.isFinite(from) || !Number.isFinite(to) || from >= to) throw new RangeError(`fetchWindow needs from < to, got ${from} and ${to}`);
  const s = session(creds, policy);
  const url = collectionUrl(s, calendarUrl);
  const what = `REPORT calendar-query (time-range) on ${url}`;
  const body = {
    'c:calendar-query': {
      _attributes: XMLNS,
      'd:prop': GETETAG_AND_DATA,
      'c:filter': {
        'c:comp-filter': {
          _attributes: { name: 'VCALENDAR' },
          'c:comp-filter': { _attributes: { name: 'VEVENT' }, 'c:time-range': { _attributes: { start: utc(from, Math.floor), end: utc(to, Math.ceil) } } },
        },
      },
    },
  };
  const answer = expectMultistatus(s, await dav(s, url, 'REPORT', '1', body, what), what);
  return readObjects(s, answer, url, what).objects;
}
