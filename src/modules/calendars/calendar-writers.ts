import type { CalendarConnectionType } from '../../db/schema.js';
import { type CalendarEventInput, CalendarProviderError, type WrittenEvent } from '../../integrations/calendar-types.js';
import { type CalDavCredentials, deleteEvent, putEvent, replaceEvent } from '../../integrations/caldav/index.js';
import type { OutboundPolicy } from '../../integrations/outbound-fetch.js';
import { invitationIcs } from '../mail/invitation.js';

/** A connection as a writer uses it: its opened credentials, and how to store them when a provider renews them. */
export interface WriterConnection {
  credentials: unknown;
  saveCredentials(credentials: unknown): Promise<void>;
}

/**
 * How svc writes booking events into one kind of connection (an adapter of src/integrations behind
 * it). `existing` is the event svc wrote there before, if any. A write replaces whatever the calendar
 * holds under the booking's UID: the booking in svc is what the event must show.
 */
export interface CalendarWriter {
  write(connection: WriterConnection, calendarExternalId: string, event: CalendarEventInput, existing: { eventId: string; etag: string | null } | null, policy: OutboundPolicy): Promise<WrittenEvent>;
  remove(connection: WriterConnection, calendarExternalId: string, event: { eventId: string; etag: string | null }, policy: OutboundPolicy): Promise<void>;
}

export type CalendarWriters = Partial<Record<CalendarConnectionType, CalendarWriter>>;

/** The event as a CalDAV calendar stores it: the invitation's VEVENT without METHOD, same UID and SEQUENCE. */
function storedEventIcs(event: CalendarEventInput, now: Date): string {
  return invitationIcs({
    method: null,
    uid: event.uid,
    sequence: event.sequence,
    stamp: now,
    start: new Date(event.start),
    end: new Date(event.end),
    summary: event.title,
    description: event.description ?? '',
    location: event.location,
    tentative: false,
    organizer: event.organizer,
    attendees: event.attendees.map((attendee) => ({ ...attendee, accepted: true })),
    private: event.private,
  });
}

const lostRace = (error: unknown) => error instanceof CalendarProviderError && error.kind === 'conflict';

/**
 * CalDAV (iCloud and other servers): the event is the resource `<uid>.ics` of the calendar. A write
 * that meets a changed or already existing resource (the host edited it, or a retried job wrote it)
 * is made again on the resource's current ETag.
 */
const caldavWriter: CalendarWriter = {
  async write(connection, calendarExternalId, event, existing, policy) {
    const creds = connection.credentials as CalDavCredentials;
    const ics = storedEventIcs(event, new Date());
    try {
      const written = await putEvent(creds, calendarExternalId, { uid: event.uid, ics, etag: existing?.etag ?? null }, policy);
      return { id: written.href, etag: written.etag };
    } catch (error) {
      if (!lostRace(error)) throw error;
      const written = await replaceEvent(creds, calendarExternalId, { uid: event.uid, ics }, policy);
      return { id: written.href, etag: written.etag };
    }
  },
  async remove(connection, _calendarExternalId, event, policy) {
    const creds = connection.credentials as CalDavCredentials;
    try {
      await deleteEvent(creds, event.eventId, event.etag, policy);
    } catch (error) {
      if (!lostRace(error)) throw error;
      await deleteEvent(creds, event.eventId, null, policy);
    }
  },
};

/** How svc writes into each kind of connection it can write to. */
export const CALENDAR_WRITERS: CalendarWriters = {
  apple_calendar: caldavWriter,
  caldav_calendar: caldavWriter,
};
