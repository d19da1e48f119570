import { createHash } from 'node:crypto';
import { CalendarProviderError } from '../../integrations/calendar-types.js';
import { fetchIcsFeed } from '../../integrations/ics/fetch-feed.js';
import { expandBusyIntervals } from '../../integrations/ics/expand-busy.js';
import { type CalDavCredentials, discoverCalendars, syncCalendar } from '../../integrations/caldav/index.js';
import type { CalendarReader, CalendarReaders } from './calendar-readers.js';

/** An ICS connection's sealed credentials: the feed addresses (they can carry secret tokens). */
interface IcsCredentials {
  urls?: string[];
  /** One feed, when discovering before a connection exists. */
  url?: string;
}

/**
 * A feed's calendar id: not its address, which can carry a secret token and is never shown back
 * (the reference shows it).
 */
export function icsFeedId(url: string): string {
  return `ics-feed:${createHash('sha256').update(url).digest('hex').slice(0, 24)}`;
}

/**
 * ICS feeds: each feed is one calendar, read whole, again only when its ETag or Last-Modified
 * changed (a 304 costs the provider nothing).
 */
const icsFeedReader: CalendarReader = {
  async discover(credentials, policy) {
    const { url } = credentials as IcsCredentials;
    if (!url) throw new CalendarProviderError('invalid_data', 'no feed address');
    const answer = await fetchIcsFeed(url, { etag: null, lastModified: null }, policy);
    if (answer.kind !== 'changed') throw new CalendarProviderError('invalid_data', 'the feed answered without content');
    // Parsed once here so that a feed svc cannot read is refused when it is saved, not at its first sync.
    const { calendarName } = expandBusyIntervals(answer.text, { from: 0, to: 1 }, 'UTC');
    return [{ externalId: icsFeedId(url), name: calendarName ?? new URL(url).hostname, primary: false, readOnly: true, timeZone: null }];
  },
  async read(credentials, externalId, state, { policy }) {
    const { urls = [] } = credentials as IcsCredentials;
    const url = urls.find((candidate) => icsFeedId(candidate) === externalId);
    if (!url) throw new CalendarProviderError('not_found', 'the feed is no longer part of its connection');
    const answer = await fetchIcsFeed(url, { etag: state.etag ?? null, lastModified: state.lastModified ?? null }, policy);
    if (answer.kind === 'unchanged') return { full: false, objects: [], removed: [], state };
    return {
      full: true,
      objects: [{ key: '', ics: answer.text }],
      removed: [],
      state: { etag: answer.etag, lastModified: answer.lastModified },
    };
  },
};

/**
 * CalDAV (Apple iCloud and any CalDAV server): the calendars of the account, each read incrementally
 * (RFC 6578 sync-collection, else when its ctag changed), objects keyed by their href.
 */
const caldavReader: CalendarReader = {
  async discover(credentials, policy) {
    return (await discoverCalendars(credentials as CalDavCredentials, policy)).calendars;
  },
  async read(credentials, externalId, state, { policy }) {
    const result = await syncCalendar(credentials as CalDavCredentials, externalId, { syncToken: state.syncToken ?? null, ctag: state.ctag ?? null }, policy);
    return {
      full: result.full,
      objects: result.upserted.map((object) => ({ key: object.href, ics: object.data })),
      removed: result.removed,
      state: { syncToken: result.state.syncToken, ctag: result.state.ctag },
    };
  },
};

/** How svc reads each kind of connection it can make. */
export const CALENDAR_READERS: CalendarReaders = {
  'ics-feed_calendar': icsFeedReader,
  apple_calendar: caldavReader,
  caldav_calendar: caldavReader,
};
