import type { CalendarEventInput, ExternalCalendar, ExternalEventBusy, ExternalEventsRead, OAuthSession, WrittenEvent } from '../calendar-types.js';
import { ianaZoneOfTzid, WINDOWS_ZONES } from '../ics/ics-zones.js';
import { epochOfWallClock, formatWithOffset, utcTime } from '../../scheduling/zones.js';
import { apiUrl, expectJson, followLink, graphCall, graphErrorCode, linkInside, secretsOf, statusError } from './client.js';
import { objectField, providerError, stringField } from '../provider-errors.js';

/** Pages followed in one listing or delta round before the answer is taken as broken (a link loop). */
const MAX_PAGES = 1000;
/** Events per delta page asked for (Graph may send fewer). */
const DELTA_PAGE_SIZE = 100;

export async function accountEmail(session: OAuthSession): Promise<string> {
  const what = 'reading the account (/me)';
  const me = expectJson(session, await graphCall(session, { method: 'GET', url: apiUrl(session, '/me?$select=mail,userPrincipalName'), what }), what);
  // `mail` is empty for some accounts (personal ones, mailboxes without an SMTP address set): the
  // sign-in name is an address too.
  const address = stringField(me, 'mail') || stringField(me, 'userPrincipalName');
  if (!address) throw providerError('invalid_data', `${what}: neither mail nor userPrincipalName`, secretsOf(session));
  return address;
}

export async function listCalendars(session: OAuthSession): Promise<ExternalCalendar[]> {
  const what = 'listing calendars';
  const calendars: ExternalCalendar[] = [];
  let url = apiUrl(session, '/me/calendars?$select=id,name,isDefaultCalendar,canEdit');
  for (let page = 0; ; page++) {
    if (page === MAX_PAGES) throw providerError('invalid_data', `${what}: more than ${MAX_PAGES} pages`, secretsOf(session));
    const body = expectJson(session, await graphCall(session, { method: 'GET', url, what }), what);
    for (const item of valueArray(session, body, what)) {
      const id = stringField(item, 'id');
      if (!id) throw providerError('invalid_data', `${what}: a calendar without an id`, secretsOf(session));
      const zone = stringField(item, 'timeZone');
      calendars.push({
        externalId: id,
        name: stringField(item, 'name') ?? '',
        primary: item.isDefaultCalendar === true,
        // Missing canEdit is read as "may not edit": svc then does not offer the calendar for writes.
        readOnly: item.canEdit !== true,
        timeZone: zone ? ianaZoneOfTzid(zone) : null,
      });
    }
    const next = body['@odata.nextLink'];
    if (next === undefined || next === null) return calendars;
    url = followLink(session, next, what);
  }
}

function valueArray(session: OAuthSession, body: Record<string, unknown>, what: string): Record<string, unknown>[] {
  const value = body.value;
  if (!Array.isArray(value) || value.some((item) => item === null || typeof item !== 'object' || Array.isArray(item))) {
    throw providerError('invalid_data', `${what}: the answer has no "value" array of objects`, secretsOf(session));
  }
  return value as Record<string, unknown>[];
}

// ---------------------------------------------------------------------------------------------------
// Reading busy time: calendarView delta

/**
 * What svc keeps between reads of one calendar. A delta link belongs to the calendar and window of the
 * round that made it (Graph encodes startDateTime/endDateTime into its token), so both are kept too: a
 * read for another window starts a new full round instead of following a link about the old one.
 */
interface DeltaState {
  v: 1;
  calendarId: string;
  from: number;
  to: number;
  deltaLink: string;
}

function parseState(state: string | null, calendarId: string, window: { from: number; to: number }): DeltaState | null {
  if (state === null) return null;
  try {
    const parsed = JSON.parse(state) as Partial<DeltaState>;
    if (parsed.v === 1 && parsed.calendarId === calendarId && parsed.from === window.from && parsed.to === window.to && typeof parsed.deltaLink === 'string') return parsed as DeltaState;
  } catch {
    // A state this code did not write (or an older format): read fully.
  }
  return null;
}

/**
 * Busy time of one calendar in [from, to) through `calendarView/delta`: the first round walks
 * @odata.nextLink pages to the @odata.deltaLink (every event of the window); later reads follow that
 * link and get what changed since, deletions as `@removed`. The v1.0 reference names
 * `/me/calendarView/delta` (the default calendar); the per-calendar form used here is the one the delta
 * guide describes for "some other specified calendar". Graph answers each occurrence of a recurring
 * series as its own event (own id), which is the key; a series master, which Graph may send along, has
 * no time of its own and is skipped.
 *
 * Expired delta links (Outlook keeps a limited cache of them): 410 Gone, or a 4xx with code
 * syncStateNotFound / resyncRequired. Those are answered with a full read.
 */
export async function readEvents(
  session: OAuthSession,
  calendarId: string,
  window: { from: number; to: number },
  state: string | null,
): Promise<ExternalEventsRead> {
  const previous = parseState(state, calendarId, window);
  // A link under another API base (the configuration changed) is not followed: read fully.
  if (previous && linkInside(session, previous.deltaLink)) {
    const changes = await deltaRound(session, followLink(session, previous.deltaLink, 'reading calendar changes'), 'reading calendar changes');
    if (changes !== 'expired') return { full: false, events: changes.events, removed: changes.removed, state: stateOf(calendarId, window, changes.deltaLink) };
  }
  const what = 'reading calendar events';
  const first = apiUrl(
    session,
    `/me/calendars/${encodeURIComponent(calendarId)}/calendarView/delta?startDateTime=${encodeURIComponent(new Date(window.from).toISOString())}&endDateTime=${encodeURIComponent(new Date(window.to).toISOString())}`,
  );
  // A skip token can expire in the middle of a round too: one new round, then it counts as a failure.
  for (let attempt = 0; attempt < 2; attempt++) {
    const round = await deltaRound(session, first, what);
    if (round !== 'expired') return { full: true, events: round.events, removed: [], state: stateOf(calendarId, window, round.deltaLink) };
  }
  throw providerError('unreachable', `${what}: the delta round expired twice in a row`, secretsOf(session));
}

function stateOf(calendarId: string, window: { from: number; to: number }, deltaLink: string): string {
  const state: DeltaState = { v: 1, calendarId, from: window.from, to: window.to, deltaLink };
  return JSON.stringify(state);
}

interface DeltaRound {
  events: ExternalEventBusy[];
  removed: string[];
  deltaLink: string;
}

const EXPIRED_DELTA_CODES = new Set(['syncstatenotfound', 'resyncrequired', 'syncstateinvalid']);

async function deltaRound(session: OAuthSession, firstUrl: string, what: string): Promise<DeltaRound | 'expired'> {
  // Later entries for an id replace earlier ones (Graph may repeat an event within a round).
  const events = new Map<string, ExternalEventBusy>();
  const removed = new Set<string>();
  let url = firstUrl;
  for (let page = 0; ; page++) {
    if (page === MAX_PAGES) throw providerError('invalid_data', `${what}: more than ${MAX_PAGES} pages`, secretsOf(session));
    const answer = await graphCall(session, { method: 'GET', url, what, prefer: [`odata.maxpagesize=${DELTA_PAGE_SIZE}`] });
    if (answer.status === 410) return 'expired';
    // Exchange spells some codes with an "Error" prefix (ErrorSyncStateNotFound).
    const code = graphErrorCode(answer)?.toLowerCase().replace(/^error/, '') ?? '';
    if (answer.status >= 400 && answer.status < 500 && EXPIRED_DELTA_CODES.has(code)) return 'expired';
    const body = expectJson(session, answer, what);
    for (const item of valueArray(session, body, what)) {
      const id = stringField(item, 'id');
      if (!id) throw providerError('invalid_data', `${what}: an event without an id`, secretsOf(session));
      if (item['@removed'] !== undefined) {
        events.delete(id);
        removed.add(id);
        continue;
      }
      const busy = eventBusy(session, item, id, what);
      if (!busy) continue;
      removed.delete(id);
      events.set(id, busy);
    }
    const deltaLink = body['@odata.deltaLink'];
    if (deltaLink !== undefined && deltaLink !== null) return { events: [...events.values()], removed: [...removed], deltaLink: followLink(session, deltaLink, what) };
    const next = body['@odata.nextLink'];
    if (next === undefined || next === null) throw providerError('invalid_data', `${what}: a delta page with neither nextLink nor deltaLink`, secretsOf(session));
    url = followLink(session, next, what);
  }
}

/**
 * Whether the event makes the calendar busy, as Outlook's own free/busy does: `showAs` free and
 * workingElsewhere (the person works, elsewhere) leave it free; busy, tentative, oof and unknown
 * (the reference's Office 365 adapter counts the same ones) make it busy. An event the organizer
 * cancelled, or one the owner declined, makes nothing busy even if it stays in the calendar.
 */
function eventBusy(session: OAuthSession, event: Record<string, unknown>, id: string, what: string): ExternalEventBusy | null {
  if (event.type === 'seriesMaster') return null;
  const showAs = stringField(event, 'showAs')?.toLowerCase();
  const response = stringField(objectField(event, 'responseStatus'), 'response')?.toLowerCase();
  const busy = event.isCancelled !== true && showAs !== 'free' && showAs !== 'workingelsewhere' && response !== 'declined';
  if (!busy) return { key: id, intervals: [] };
  const span = eventSpan(session, event, what);
  if (span.end <= span.start) return { key: id, intervals: [] };
  return { key: id, intervals: [{ start: span.start, end: span.end, uid: uidOfEvent(event) }] };
}

/**
 * The event's [start, end) in epoch ms. Timed events come in UTC (the request says
 * outlook.timezone="UTC"; any zone Graph names is honoured all the same). All-day events come as
 * midnight to midnight whatever the preferred zone (Graph does that by design): the dates are the
 * event's, and the instants are those midnights in the zone the event was made in
 * (originalStartTimeZone, a Windows or IANA name), which is where Outlook itself places it: an all-day
 * event from Berlin blocks the Berlin day, 23 hours on the day clocks go forward. An unknown zone (a
 * legacy custom zone, "tzone://Microsoft/Custom") falls back to UTC midnights.
 */
function eventSpan(session: OAuthSession, event: Record<string, unknown>, what: string): { start: number; end: number } {
  const start = objectField(event, 'start');
  const end = objectField(event, 'end');
  const startText = stringField(start, 'dateTime');
  const endText = stringField(end, 'dateTime');
  const startWall = startText === null ? null : wallClockOf(startText);
  const endWall = endText === null ? null : wallClockOf(endText);
  if (startWall === null || endWall === null) throw providerError('invalid_data', `${what}: an event without readable start and end times`, secretsOf(session));
  if (event.isAllDay === true) {
    const zone = ianaZoneOfTzid(stringField(event, 'originalStartTimeZone') ?? '') ?? 'UTC';
    return { start: epochOfWallClock(zone, startOfDay(startWall)), end: epochOfWallClock(zone, startOfDay(endWall)) };
  }
  const startZone = ianaZoneOfTzid(stringField(start, 'timeZone') ?? 'UTC');
  const endZone = ianaZoneOfTzid(stringField(end, 'timeZone') ?? 'UTC');
  if (!startZone || !endZone) throw providerError('invalid_data', `${what}: an event time in a zone svc does not know`, secretsOf(session));
  return { start: epochOfWallClock(startZone, startWall), end: epochOfWallClock(endZone, endWall) };
}

/** "2016-12-09T20:30:00.0000000" (Graph's dateTime: no offset, up to 7 fraction digits) as a UTC-based wall clock. */
function wallClockOf(text: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?$/.exec(text.trim());
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction] = match;
  const wall = utcTime(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second ?? 0));
  return wall + Math.floor(Number(`0.${fraction ?? '0'}`) * 1000);
}

function startOfDay(wall: number): number {
  return Math.floor(wall / 86_400_000) * 86_400_000;
}

/** svc's UID of an event it wrote (from the transactionId it set), else Graph's iCalUId. */
function uidOfEvent(event: Record<string, unknown>): string | null {
  const transactionId = stringField(event, 'transactionId');
  return (transactionId && uidOfTransactionId(transactionId)) || stringField(event, 'iCalUId');
}

// ---------------------------------------------------------------------------------------------------
// Writing booking events

/**
 * Graph's `iCalUId` is read-only (Graph makes its own), so the booking's UID cannot be the event's UID
 * as with CalDAV. It travels in `transactionId` instead: Graph's guard against a repeated create ("to
 * avoid redundant POST operations in case of client retries"), which may be set once, at creation,
 * and comes back on reads. Made of the UID and SEQUENCE, a job that retries a create it may already
 * have done (a timeout after Graph stored the event) sends the same one and does not make a second
 * event; reads take the UID back out of it, so svc recognises its own events in busy time.
 */
export function transactionIdOf(uid: string, sequence: number): string {
  return `svc1:${sequence}:${uid}`;
}

export function uidOfTransactionId(transactionId: string): string | null {
  const match = /^svc1:\d+:([\s\S]+)$/.exec(transactionId);
  return match?.[1] ?? null;
}

// Windows zone names are what Graph takes everywhere; of IANA names it documents only a list.
const WINDOWS_NAME_OF_ZONE = new Map<string, string>();
for (const [windows, iana] of Object.entries(WINDOWS_ZONES)) {
  if (!WINDOWS_NAME_OF_ZONE.has(iana)) WINDOWS_NAME_OF_ZONE.set(iana, windows);
}

/**
 * The event's start and end in Graph's form: wall-clock time in the organizer's zone under its Windows
 * name, so Outlook shows the event in that zone; a zone without a Windows name svc knows is written in
 * UTC (the same instants, only Outlook's "original time zone" differs).
 */
function graphTime(epochMs: number, zone: string): { dateTime: string; timeZone: string } {
  const windows = zone === 'UTC' || zone === 'Etc/UTC' ? undefined : WINDOWS_NAME_OF_ZONE.get(zone);
  if (!windows) return { dateTime: new Date(epochMs).toISOString().slice(0, 19), timeZone: 'UTC' };
  return { dateTime: formatWithOffset(epochMs, zone).slice(0, 19), timeZone: windows };
}

/**
 * The event body. There are no `attendees`: Exchange mails an invitation to every attendee of an event
 * created or changed through Graph, and that "can't be configured"; svc sends its own invitations, so
 * the attendees are named in the text instead, and the event stays an appointment in the host's
 * calendar (no meeting requests, updates or cancellations from Microsoft). The reference sets attendees
 * and its users get two invitations.
 */
function eventFields(event: CalendarEventInput): Record<string, unknown> {
  const people = event.attendees.map((attendee) => (attendee.name ? `${attendee.name} <${attendee.email}>` : attendee.email));
  const text = [event.description ?? '', people.length > 0 ? `Attendees:\n${people.join('\n')}` : ''].filter((part) => part !== '').join('\n\n');
  return {
    subject: event.title,
    body: { contentType: 'text', content: text },
    start: graphTime(event.start, event.timeZone),
    end: graphTime(event.end, event.timeZone),
    location: { displayName: event.location ?? '' },
    showAs: 'busy',
    sensitivity: event.private ? 'private' : 'normal',
  };
}

function writtenEvent(session: OAuthSession, body: Record<string, unknown>, headers: Headers, what: string): WrittenEvent {
  const id = stringField(body, 'id');
  if (!id) throw providerError('invalid_data', `${what}: the answer has no event id`, secretsOf(session));
  return { id, etag: stringField(body, '@odata.etag') ?? headers.get('etag') };
}

export async function insertEvent(session: OAuthSession, calendarId: string, event: CalendarEventInput): Promise<WrittenEvent> {
  const what = 'creating an event';
  const answer = await graphCall(session, {
    method: 'POST',
    url: apiUrl(session, `/me/calendars/${encodeURIComponent(calendarId)}/events`),
    what,
    json: { ...eventFields(event), transactionId: transactionIdOf(event.uid, event.sequence) },
  });
  // 201 for a new event; a repeated transactionId may be answered with the stored one.
  return writtenEvent(session, expectJson(session, answer, what, [200, 201]), answer.headers, what);
}

export async function updateEvent(session: OAuthSession, calendarId: string, eventId: string, event: CalendarEventInput): Promise<WrittenEvent> {
  const what = 'updating an event';
  const answer = await graphCall(session, {
    method: 'PATCH',
    url: apiUrl(session, `/me/calendars/${encodeURIComponent(calendarId)}/events/${encodeURIComponent(eventId)}`),
    what,
    json: eventFields(event),
  });
  return writtenEvent(session, expectJson(session, answer, what), answer.headers, what);
}

export async function deleteEvent(session: OAuthSession, calendarId: string, eventId: string): Promise<void> {
  const what = 'deleting an event';
  const answer = await graphCall(session, {
    method: 'DELETE',
    url: apiUrl(session, `/me/calendars/${encodeURIComponent(calendarId)}/events/${encodeURIComponent(eventId)}`),
    what,
  });
  // Gone already (the user deleted it, or an earlier attempt did): what was asked for is done.
  if (answer.status === 204 || answer.status === 200 || answer.status === 404 || answer.status === 410) return;
  throw statusError(session, answer, what);
}
