import { isIanaTimeZone } from '../../lib/time-zones.js';
import type { ExternalCalendar } from '../calendar-types.js';
import type { OutboundPolicy } from '../outbound-fetch.js';
import {
  type Answer,
  type CalDavCredentials,
  type Session,
  XMLNS,
  absolute,
  asArray,
  cleanUrl,
  collectionUrl,
  dav,
  expectMultistatus,
  hrefIn,
  providerError,
  session,
  textOf,
} from './client.js';

export interface CalDavDiscovery {
  principalUrl: string;
  homeUrl: string;
  calendars: ExternalCalendar[];
}

function propfindBody(props: Record<string, unknown>): Record<string, unknown> {
  return { 'd:propfind': { _attributes: XMLNS, 'd:prop': props } };
}

function firstProps(answer: Answer): Record<string, unknown> {
  return (answer.responses[0]?.props ?? {}) as Record<string, unknown>;
}

/** The principal the credentials stand for: asked of the server URL, then of its /.well-known/caldav (RFC 6764). */
async function findPrincipal(s: Session, serverUrl: string): Promise<string> {
  const body = propfindBody({ 'd:current-user-principal': {} });
  const candidates = [cleanUrl(s, serverUrl).href, cleanUrl(s, '/.well-known/caldav', serverUrl).href];
  for (const [index, url] of candidates.entries()) {
    const answer = await dav(s, url, 'PROPFIND', '0', body, `PROPFIND current-user-principal on ${url}`);
    const last = index === candidates.length - 1;
    // A server may keep CalDAV under a path and answer nothing useful at the root.
    if (!last && [404, 405, 501].includes(answer.status)) continue;
    expectMultistatus(s, answer, `PROPFIND current-user-principal on ${url}`);
    const href = hrefIn(firstProps(answer).currentUserPrincipal);
    if (href) return absolute(href, url);
    if (last) break;
  }
  throw providerError(s, 'not_found', `no CalDAV principal found at ${cleanUrl(s, serverUrl).origin}`);
}

/** Whether the server says this collection takes VEVENTs (no supported-calendar-component-set means any component, RFC 4791 5.2.3). */
function takesEvents(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (typeof value !== 'object') return false;
  return asArray((value as Record<string, unknown>).comp).some((comp) => {
    const attributes = (comp as { _attributes?: Record<string, unknown> } | undefined)?._attributes;
    return String(attributes?.name ?? '').toUpperCase() === 'VEVENT';
  });
}

/**
 * Read-only unless the privileges the server lists allow writing events: DAV:all, DAV:write, or both
 * DAV:bind (new events) and DAV:write-content (changed ones). A server that lists none is taken as
 * writable; a write it refuses tells the caller then.
 */
function readOnlyFrom(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false;
  const granted = new Set<string>();
  for (const privilege of asArray((value as Record<string, unknown>).privilege)) {
    if (privilege && typeof privilege === 'object') for (const name of Object.keys(privilege)) granted.add(name);
  }
  if (granted.size === 0) return false;
  return !(granted.has('all') || granted.has('write') || (granted.has('bind') && granted.has('writeContent')));
}

/** An IANA zone from calendar-timezone-id (RFC 7809) or the TZID of the VTIMEZONE in calendar-timezone. */
function zoneFrom(props: Record<string, unknown>): string | null {
  const candidates = [textOf(props.calendarTimezoneId)];
  const vtimezone = textOf(props.calendarTimezone);
  if (vtimezone) candidates.push(/^TZID(?:;[^:\r\n]*)?:(.+?)\r?$/m.exec(vtimezone)?.[1]?.trim() ?? null);
  for (const candidate of candidates) {
    if (!candidate) continue;
    // Some clients write TZIDs with a vendor prefix ("/mozilla.org/20050126_1/Europe/Berlin").
    const name = candidate.replace(/^\/[^/]+\/[^/]+\//, '');
    if (isIanaTimeZone(name)) return name;
  }
  return null;
}

function lastSegment(url: string): string {
  const raw = new URL(url).pathname.split('/').filter(Boolean).pop() ?? url;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function sameCollection(a: string, b: string): boolean {
  const trim = (url: string) => (url.endsWith('/') ? url : `${url}/`);
  try {
    return trim(new URL(a).href) === trim(new URL(b).href);
  } catch {
    return false;
  }
}

/** RFC 6638's schedule-default-calendar-URL on the scheduling inbox, where the server keeps one. */
async function defaultCalendar(s: Session, inboxUrl: string): Promise<string | null> {
  const body = propfindBody({ 'c:schedule-default-calendar-URL': {} });
  const answer = await dav(s, inboxUrl, 'PROPFIND', '0', body, `PROPFIND schedule-default-calendar-URL on ${inboxUrl}`);
  // Only a hint: a server that will not say leaves the rule to "first calendar".
  if (answer.status !== 207) return null;
  const href = hrefIn(firstProps(answer).scheduleDefaultCalendarURL);
  return href ? absolute(href, inboxUrl) : null;
}

/**
 * The account's principal, its calendar-home-set, and the calendars there that hold events.
 *
 * `primary` is the calendar the server names as its default for new events (RFC 6638
 * schedule-default-calendar-URL, asked only when the principal has a scheduling inbox); when it names
 * none, the first calendar in the order returned: by the Apple calendar-order property where calendars
 * carry it (iCloud does), otherwise as the server listed them.
 */
export async function discoverCalendars(creds: CalDavCredentials, policy: OutboundPolicy): Promise<CalDavDiscovery> {
  const s = session(creds, policy);
  const principalUrl = await findPrincipal(s, creds.serverUrl);

  const homeAnswer = expectMultistatus(
    s,
    await dav(s, principalUrl, 'PROPFIND', '0', propfindBody({ 'c:calendar-home-set': {}, 'c:schedule-inbox-URL': {} }), `PROPFIND calendar-home-set on ${principalUrl}`),
    `PROPFIND calendar-home-set on ${principalUrl}`,
  );
  const principalProps = firstProps(homeAnswer);
  const homeHref = hrefIn(principalProps.calendarHomeSet);
  if (!homeHref) throw providerError(s, 'not_found', `the principal ${principalUrl} names no calendar-home-set`);
  const homeUrl = collectionUrl(s, absolute(homeHref, principalUrl));
  const inboxHref = hrefIn(principalProps.scheduleInboxURL);

  const listing = expectMultistatus(
    s,
    await dav(
      s,
      homeUrl,
      'PROPFIND',
      '1',
      propfindBody({
        'd:resourcetype': {},
        'd:displayname': {},
        'd:current-user-privilege-set': {},
        'c:supported-calendar-component-set': {},
        'c:calendar-timezone': {},
        'c:calendar-timezone-id': {},
        'ca:calendar-order': {},
      }),
      `PROPFIND the calendars in ${homeUrl}`,
    ),
    `PROPFIND the calendars in ${homeUrl}`,
  );

  const found: { calendar: ExternalCalendar; order: number | null }[] = [];
  for (const response of listing.responses) {
    if (!response.ok) continue;
    const url = collectionUrl(s, absolute(String(response.href), homeUrl));
    if (sameCollection(url, homeUrl)) continue;
    const props = (response.props ?? {}) as Record<string, unknown>;
    const types = props.resourcetype;
    if (!types || typeof types !== 'object' || !('calendar' in types)) continue;
    if (!takesEvents(props.supportedCalendarComponentSet)) continue;
    const segment = lastSegment(url);
    const order = Number(textOf(props.calendarOrder));
    found.push({
      calendar: {
        externalId: url,
        name: textOf(props.displayname)?.trim() || segment,
        primary: false,
        readOnly: readOnlyFrom(props.currentUserPrivilegeSet),
        timeZone: zoneFrom(props),
      },
      order: textOf(props.calendarOrder) !== null && Number.isFinite(order) ? order : null,
    });
  }
  // Stable: calendars without an order keep the server's order, after those with one.
  found.sort((a, b) => (a.order === b.order ? 0 : a.order === null ? 1 : b.order === null ? -1 : a.order - b.order));
  const calendars = found.map((entry) => entry.calendar);

  const named = inboxHref ? await defaultCalendar(s, absolute(inboxHref, principalUrl)) : null;
  const primary = (named && calendars.find((calendar) => sameCollection(calendar.externalId, named))) || calendars[0];
  if (primary) primary.primary = true;
  return { principalUrl, homeUrl, calendars };
}
