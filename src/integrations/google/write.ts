import { formatWithOffset } from '../../scheduling/zones.js';
import type { CalendarEventInput, OAuthSession, WrittenEvent } from '../calendar-types.js';
import { callApi, expectOk, itemsOf, optionalString, requiredString, segment } from './client.js';
import { statusFailure } from './errors.js';

// sendUpdates=none on every write: svc mails its own invitations (same UID and SEQUENCE), so
// Google must not send a second set.
const QUIET = { sendUpdates: 'none' };

const eventsPath = (calendarId: string) => `/calendars/${segment(calendarId)}/events`;
const eventPath = (calendarId: string, eventId: string) => `${eventsPath(calendarId)}/${segment(eventId)}`;

/**
 * The fields svc owns. The organizer leads the attendee list, as accepted, once: Google makes the
 * calendar's owner the organizer whatever is sent, and in another host's calendar the list is where
 * the organizer shows. A booker or host listed twice (or also the organizer) is listed once.
 */
function eventFields(event: CalendarEventInput): Record<string, unknown> {
  const attendees: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  const add = (person: { name: string | null; email: string }, organizer: boolean) => {
    const key = person.email.trim().toLowerCase();
    if (!key || seen.has(key)) return;
    seen.add(key);
    attendees.push({
      email: person.email.trim(),
      ...(person.name ? { displayName: person.name } : {}),
      ...(organizer ? { responseStatus: 'accepted' } : {}),
    });
  };
  add(event.organizer, true);
  for (const attendee of event.attendees) add(attendee, false);
  return {
    summary: event.title,
    // Empty strings, not nulls: on a patch they clear what an earlier write set.
    description: event.description ?? '',
    location: event.location ?? '',
    start: { dateTime: formatWithOffset(event.start, event.timeZone), timeZone: event.timeZone },
    end: { dateTime: formatWithOffset(event.end, event.timeZone), timeZone: event.timeZone },
    attendees,
    sequence: event.sequence,
    // `default` on every write, so an event made private earlier is shared again.
    visibility: event.private ? 'private' : 'default',
  };
}

function writtenOf(body: Record<string, unknown>, what: string): WrittenEvent {
  return { id: requiredString(body, 'id', what), etag: optionalString(body, 'etag', what), conferenceUrl: optionalString(body, 'hangoutLink', what) };
}

/**
 * A Meet conference asked of Google with the event (conferenceDataVersion=1). The requestId is the
 * booking's UID: a write retried after a lost answer asks for the same conference, which Google makes
 * once. Without the flag nothing is sent, and Google keeps the conference the event has.
 */
function conferenceRequest(event: CalendarEventInput): { body: Record<string, unknown>; query: Record<string, string> } {
  if (event.conference !== 'google-meet') return { body: {}, query: {} };
  return {
    body: { conferenceData: { createRequest: { requestId: event.uid, conferenceSolutionKey: { type: 'hangoutsMeet' } } } },
    query: { conferenceDataVersion: '1' },
  };
}

/**
 * events.insert with the booking's UID as iCalUID. Google keeps an iCalUID taken in a calendar even
 * after the event is deleted and answers 409 "duplicate" to a second insert (a retried job, an
 * insert whose answer was lost): the event holding it is then found and updated, and restored if
 * it was deleted.
 */
export async function insertEvent(session: OAuthSession, calendarId: string, event: CalendarEventInput): Promise<WrittenEvent> {
  const what = `POST event into calendar ${calendarId}`;
  const conference = conferenceRequest(event);
  const answer = await callApi(session, {
    method: 'POST',
    path: eventsPath(calendarId),
    query: { ...QUIET, ...conference.query },
    body: { ...eventFields(event), iCalUID: event.uid, ...conference.body },
    what,
  });
  if (answer.status !== 409) return writtenOf(expectOk(answer, what), what);
  const existing = await findByUid(session, calendarId, event.uid);
  if (!existing) throw statusFailure(answer.status, answer.headers, answer.body, `${what} (no event of that iCalUID to update)`);
  return patchEvent(session, calendarId, existing, event, true);
}

/** The event of `uid` in the calendar, a live one before a deleted one; null when none is listed. */
async function findByUid(session: OAuthSession, calendarId: string, uid: string): Promise<string | null> {
  const what = `GET events of calendar ${calendarId} by iCalUID`;
  const answer = await callApi(session, {
    method: 'GET',
    path: eventsPath(calendarId),
    query: { iCalUID: uid, showDeleted: 'true' },
    what,
  });
  const items = itemsOf(expectOk(answer, what), what);
  const match = items.find((item) => item.status !== 'cancelled') ?? items[0];
  return match ? requiredString(match, 'id', what) : null;
}

/**
 * events.patch with every field svc owns: fields the user added in Google (reminders, a colour, a
 * Meet link) stay, which a full update would drop.
 */
async function patchEvent(session: OAuthSession, calendarId: string, eventId: string, event: CalendarEventInput, restore: boolean): Promise<WrittenEvent> {
  const what = `PATCH event ${eventId} of calendar ${calendarId}`;
  const conference = conferenceRequest(event);
  const answer = await callApi(session, {
    method: 'PATCH',
    path: eventPath(calendarId, eventId),
    query: { ...QUIET, ...conference.query },
    body: { ...eventFields(event), ...(restore ? { status: 'confirmed' } : {}), ...conference.body },
    what,
  });
  return writtenOf(expectOk(answer, what), what);
}

export function updateEvent(session: OAuthSession, calendarId: string, eventId: string, event: CalendarEventInput): Promise<WrittenEvent> {
  return patchEvent(session, calendarId, eventId, event, false);
}

/** events.get: the event as Google stores it (a deleted one has status `cancelled`). */
export async function getEvent(session: OAuthSession, calendarId: string, eventId: string): Promise<Record<string, unknown>> {
  const what = `GET event ${eventId} of calendar ${calendarId}`;
  return expectOk(await callApi(session, { method: 'GET', path: eventPath(calendarId, eventId), what }), what);
}

/** events.patch with fields as Google names them (no mail from Google); the event as it now is. */
export async function patchEventFields(session: OAuthSession, calendarId: string, eventId: string, fields: Record<string, unknown>): Promise<Record<string, unknown>> {
  const what = `PATCH event ${eventId} of calendar ${calendarId}`;
  return expectOk(await callApi(session, { method: 'PATCH', path: eventPath(calendarId, eventId), query: QUIET, body: fields, what }), what);
}

/** Google answers 410 for an event deleted before and 404 for one it never had: both mean done. */
export async function deleteEvent(session: OAuthSession, calendarId: string, eventId: string): Promise<void> {
  const what = `DELETE event ${eventId} of calendar ${calendarId}`;
  const answer = await callApi(session, { method: 'DELETE', path: eventPath(calendarId, eventId), query: QUIET, what });
  if ((answer.status >= 200 && answer.status < 300) || answer.status === 404 || answer.status === 410) return;
  throw statusFailure(answer.status, answer.headers, answer.body, what);
}
