// The reference's unified calendar events: an event svc wrote into a host's Google calendar (a booking
// reference's eventUid), read from and changed in Google directly, in one provider-neutral shape.
import type { Static } from 'typebox';
import { CalendarProviderError } from '../../integrations/calendar-types.js';
import { getGoogleEvent, patchGoogleEventFields } from '../../integrations/google/index.js';
import { badRequest, invalidField, notFound } from '../../lib/errors.js';
import { isIanaTimeZone } from '../../lib/time-zones.js';
import * as eventsRepo from './calendar-events.repository.js';
import { oauthClientOf, type OAuthCredentials, oauthSession } from './calendar-oauth.js';
import { flagConnectionInvalid, outboundPolicy } from './calendar-sync.js';
import { findConnection, findOwner, saveCredentials } from './calendars.repository.js';
import type { CalendarsDeps } from './calendars.service.js';
import { googlePatchOf, presentGoogleEvent } from './unified-events.presenter.js';
import type { UnifiedEvent, UpdateUnifiedEventBody } from './unified-events.schemas.js';

type Output = Static<typeof UnifiedEvent>;

const eventNotFound = (eventUid: string) => notFound('calendar_event_not_found', `Calendar event ${eventUid} not found`);

/** Only Google calendars, as in the reference; any other app is refused by name. */
function assertGoogle(calendar: string): void {
  if (calendar !== 'google') throw invalidField('calendar', 'must be google: unified calendar events are served for Google Calendar only', calendar);
}

/**
 * A Google session on the connection that holds the event, if the event is one svc wrote into a calendar
 * of the caller's (another user's event, or one svc did not write, is not found).
 */
async function openEvent(deps: CalendarsDeps, userId: number, eventUid: string) {
  const written = await eventsRepo.findWrittenEvent(deps.database.db, userId, 'google_calendar', eventUid);
  const connection = written && (await findConnection(deps.database.db, written.connectionId));
  if (!written || !connection) throw eventNotFound(eventUid);
  const client = oauthClientOf(deps.config, 'google_calendar');
  if (connection.invalid || !client) throw badRequest('calendar_connection_invalid', 'The Google Calendar connection holding this event needs to be connected again');
  const credentials = JSON.parse(deps.secrets.open(connection.credentialsSealed)) as OAuthCredentials;
  const session = oauthSession(client, credentials, outboundPolicy(deps.config), async (renewed) =>
    saveCredentials(deps.database.db, connection.id, deps.secrets.seal(JSON.stringify(renewed))),
  );
  /** Runs a provider call; its failures become the API's answers (a refused token also flags the connection). */
  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof CalendarProviderError)) throw error;
      if (error.kind === 'not_found') throw eventNotFound(eventUid);
      if (error.kind === 'unauthorized') await deps.database.transaction((tx) => flagConnectionInvalid(tx, connection, written.calendarExternalId, Date.now()));
      throw badRequest('calendar_provider_failed', `Google Calendar did not answer as expected (${error.kind}): ${error.message}`);
    }
  };
  // Events without a zone of their own are shown in their owner's.
  const zone = (await findOwner(deps.database.db, userId))?.timeZone ?? 'UTC';
  return { session, calendarId: written.calendarExternalId, call, zone };
}

/** GET /v2/calendars/{calendar}/event/{eventUid}: the event as the calendar holds it now. */
export async function getUnifiedEvent(deps: CalendarsDeps, userId: number, calendar: string, eventUid: string): Promise<Output> {
  assertGoogle(calendar);
  const opened = await openEvent(deps, userId, eventUid);
  const event = await opened.call(() => getGoogleEvent(opened.session, opened.calendarId, eventUid));
  return presentGoogleEvent(event, opened.zone);
}

/**
 * PATCH /v2/calendars/{calendar}/events/{eventUid}: changes the event in the calendar (attendees are
 * replaced whole). The booking is not changed: its next change writes the fields svc owns again.
 */
export async function updateUnifiedEvent(deps: CalendarsDeps, userId: number, calendar: string, eventUid: string, update: Static<typeof UpdateUnifiedEventBody>): Promise<Output> {
  assertGoogle(calendar);
  for (const side of ['start', 'end'] as const) {
    const zone = update[side]?.timeZone;
    if (zone !== undefined && !isIanaTimeZone(zone)) throw invalidField(`${side}.timeZone`, 'must be an IANA time zone', zone);
  }
  const opened = await openEvent(deps, userId, eventUid);
  const current = await opened.call(() => getGoogleEvent(opened.session, opened.calendarId, eventUid));
  const fields = googlePatchOf(update, current);
  if (fields.start || fields.end) {
    const before = presentGoogleEvent(current, opened.zone);
    const instant = (side: 'start' | 'end') => Date.parse((fields[side] as { dateTime?: string } | undefined)?.dateTime ?? before[side].time);
    if (!(instant('end') > instant('start'))) throw invalidField('end', 'must be after start', update.end?.time ?? null);
  }
  const changed = await opened.call(() => patchGoogleEventFields(opened.session, opened.calendarId, eventUid, fields));
  return presentGoogleEvent(changed, opened.zone);
}
