// The Google Calendar adapter: Calendar API v3 and Google's OAuth 2.0 over plain HTTP through the
// session's `fetch` (outboundFetch in svc: deadlines, size caps, the address guard). Not
// @googleapis/calendar: the adapter needs about six calls (the token endpoint, calendarList,
// calendars.get, events list/insert/patch/delete), little to write and one dependency fewer; the
// library has its own HTTP stack (gaxios) into which svc's guarded fetch would have to be threaded;
// and tests point the base URLs at a local server that speaks the documented API
// (test/support/fake-google.ts).
import { CalendarProviderError, type ExternalCalendar, type OAuthCalendarAdapter, type OAuthSession } from '../calendar-types.js';
import { isIanaTimeZone } from '../../lib/time-zones.js';
import { callApi, expectOk, itemsOf, MAX_PAGES, optionalString, requiredString } from './client.js';
import { authorizationUrl, exchangeCode } from './oauth.js';
import { readEvents } from './read.js';
import { stopWatching, watchEvents } from './watch.js';
import { deleteEvent, insertEvent, updateEvent } from './write.js';

/** The primary calendar's id is the account's address (for Gmail and Workspace accounts alike). */
async function accountEmail(session: OAuthSession): Promise<string> {
  const what = 'GET calendars/primary';
  const body = expectOk(await callApi(session, { method: 'GET', path: '/calendars/primary', what }), what);
  const id = requiredString(body, 'id', what);
  if (!/^[^\s@]+@[^\s@]+$/.test(id)) throw new CalendarProviderError('invalid_data', `${what}: the primary calendar's id is not an e-mail address`);
  return id;
}

/** Writers and owners may add events; readers and freeBusyReaders may not. */
const WRITABLE_ROLES = new Set(['owner', 'writer']);

async function listCalendars(session: OAuthSession): Promise<ExternalCalendar[]> {
  const what = 'GET users/me/calendarList';
  const calendars: ExternalCalendar[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await callApi(session, { method: 'GET', path: '/users/me/calendarList', query: { maxResults: '250', pageToken }, what });
    const body = expectOk(answer, what);
    for (const item of itemsOf(body, what)) {
      const externalId = requiredString(item, 'id', `${what}: an entry`);
      const zone = optionalString(item, 'timeZone', what);
      calendars.push({
        externalId,
        name: optionalString(item, 'summaryOverride', what) || optionalString(item, 'summary', what) || externalId,
        primary: item.primary === true,
        readOnly: !WRITABLE_ROLES.has(String(item.accessRole)),
        timeZone: zone && isIanaTimeZone(zone) ? zone : null,
      });
    }
    const next = optionalString(body, 'nextPageToken', what);
    if (!next) return calendars;
    pageToken = next;
  }
  throw new CalendarProviderError('invalid_data', `${what}: more than ${MAX_PAGES} pages`);
}

export const googleCalendar: OAuthCalendarAdapter = {
  authorizationUrl,
  exchangeCode,
  accountEmail,
  listCalendars,
  readEvents,
  insertEvent,
  updateEvent,
  deleteEvent,
  watchEvents,
  stopWatching,
};
