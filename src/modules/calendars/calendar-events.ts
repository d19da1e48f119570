// Bookings written into their hosts' calendars: a booking event queues a job (in the booking's
// transaction), and the job brings the calendars in line with the booking as it then is.
import { createHash, randomUUID } from 'node:crypto';
import type { CalendarsConfig } from '../../app/config.js';
import type { Database, Db } from '../../db/client.js';
import { insertJob } from '../../jobs/jobs.repository.js';
import { attemptsSpanning, JobRetry } from '../../jobs/runner.js';
import { type CalendarEventInput, CalendarProviderError } from '../../integrations/calendar-types.js';
import type { SecretBox } from '../../lib/secrets.js';
import type { BookingEventListener, BookingChangeTrigger, BookingTrigger } from '../bookings/booking-events.js';
import { type BookingRecord, loadRecords } from '../bookings/bookings.repository.js';
import { bookingLinks, placeOf } from '../mail/booking-mail.render.js';
import { GOOGLE_MEET_LOCATION } from '../event-types/locations.js';
import { renderInviteTemplate, resolveInviteTemplate, standardDescription } from '../mail/invite-description.js';
import { loadInviteContext } from '../mail/mail.repository.js';
import * as repo from './calendar-events.repository.js';
import { flagConnectionInvalid, outboundPolicy } from './calendar-sync.js';
import type { CalendarWriters, WriterConnection } from './calendar-writers.js';
import { findConnection, PRIVATE_NOTE_UID_SUFFIX, saveCredentials } from './calendars.repository.js';

/** The job that writes one icsUid's events (payload `{icsUid}`). */
export const CALENDAR_WRITE_JOB = 'calendar.write';
/** Retries span a day (the runner's backoff), as webhook deliveries do. */
export const CALENDAR_WRITE_MAX_ATTEMPTS = attemptsSpanning(24 * 3_600_000);
/** How long one write may hold its icsUid (a job that dies frees it after this). */
const LEASE_MS = 120_000;
/** Another job writing the same icsUid: try again after it. */
const BUSY_RETRY_MS = 5_000;

/** Booking events that can change what a calendar shows. */
const WRITE_TRIGGERS: ReadonlySet<BookingTrigger | BookingChangeTrigger> = new Set([
  'BOOKING_CREATED',
  'BOOKING_REQUESTED',
  'BOOKING_RESCHEDULED',
  'BOOKING_CANCELLED',
  'BOOKING_REJECTED',
  'BOOKING_REASSIGNED',
  'GUESTS_ADDED',
  'LOCATION_CHANGED',
]);

/**
 * How booking events reach calendars: when a host (or a previous host) holds a writable connection,
 * or events were written for the booking before, the event's transaction queues a write job.
 */
export const calendarEventWrites: BookingEventListener = {
  audienceQuery(trigger, record, alsoUserIds) {
    if (!WRITE_TRIGGERS.has(trigger)) return null;
    const userIds = [record.booking.userId, ...record.coHosts.map((host) => host.id), ...alsoUserIds];
    return repo.calendarWriteInterestQuery(userIds, record.booking.icsUid);
  },
  async hear(tx, event, audience) {
    if (audience[0]?.calendar_write !== true) return;
    await insertJob(tx, {
      kind: CALENDAR_WRITE_JOB,
      payload: { icsUid: event.record.booking.icsUid },
      maxAttempts: CALENDAR_WRITE_MAX_ATTEMPTS,
      dedupeKey: `${CALENDAR_WRITE_JOB}:${event.bookingEventId}`,
    });
  },
};

export interface CalendarWriteDeps {
  database: Database;
  secrets: SecretBox;
  config: { calendars: CalendarsConfig; allowPrivateWebhooks: boolean; appUrl: string };
  writers: CalendarWriters;
  log?: { info(obj: object, msg: string): void; warn?(obj: object, msg: string): void } | undefined;
}

/**
 * A private note's text: the event type's privateNoteTemplate with {Attendee name}, {Event type title},
 * {Location}, {Host name}, {Event duration} and booking-field names filled in (a name it does not know is
 * left as written); the booker's notes when the template is empty.
 */
export function renderPrivateNote(template: string, values: { attendeeName: string; eventTypeTitle: string; location: string; organizerName: string; durationMinutes: number; responses: Record<string, unknown>; notes: string }): string {
  if (template.trim() === '') return values.notes;
  const named: Record<string, string> = {
    'Attendee name': values.attendeeName,
    'Event type title': values.eventTypeTitle,
    Location: values.location,
    'Host name': values.organizerName,
    'Event duration': `${values.durationMinutes} minutes`,
  };
  return template.replace(/\{([^{}\n]{1,100})\}/g, (whole, name: string) => {
    if (name in named) return named[name]!;
    const answer = values.responses[name];
    if (typeof answer === 'string' || typeof answer === 'number' || typeof answer === 'boolean') return String(answer);
    if (Array.isArray(answer)) return answer.map(String).join(', ');
    return whole;
  });
}

/**
 * The event every host's calendar shows for the booking: the invitation's content as the host reads it;
 * with the event type's private note on, the note event beside it (same times, no attendees, private).
 */
async function eventContent(db: Db, record: BookingRecord, appUrl: string): Promise<{ event: CalendarEventInput; note: CalendarEventInput | null }> {
  const { booking, host, coHosts, attendees } = record;
  const context = await loadInviteContext(db, { id: booking.id, eventTypeId: booking.eventTypeId, organizerId: booking.userId });
  const guests = new Set((Array.isArray(booking.responses.guests) ? booking.responses.guests : []).map((email) => String(email).toLowerCase()));
  const booker = attendees.find((attendee) => !guests.has(attendee.email.toLowerCase())) ?? attendees[0];
  const organizerName = host.name || host.email;
  const location = placeOf(booking.location);
  // hideCalendarNotes: the booker's notes are left out of the event (the mail to hosts still has them).
  // Blanked rather than dropped, so a template's {notes} placeholder empties instead of showing as written.
  const responses = context.hideCalendarNotes && 'notes' in booking.responses ? { ...booking.responses, notes: '' } : booking.responses;
  const values = {
    title: booking.title,
    eventTypeTitle: context.eventTypeTitle ?? booking.title,
    location: location ?? '',
    attendeeName: booker?.name ?? '',
    organizerName,
    durationMinutes: Math.round((booking.endAt.getTime() - booking.startAt.getTime()) / 60_000),
    manageLink: bookingLinks(appUrl, booking.uid).manage,
    responses,
    bookingFields: context.bookingFields,
  };
  const people = [`${organizerName} <${host.email}>`, ...coHosts.map((coHost) => `${coHost.name || coHost.email} <${coHost.email}>`), ...attendees.map((a) => `${a.name} <${a.email}>`)];
  const template = resolveInviteTemplate('host', context.invites, context.organizationInvites);
  const notes = context.hideCalendarNotes ? '' : (booking.description ?? '');
  const description = template === null ? standardDescription({ ...values, description: notes, people }, 'host') : renderInviteTemplate(template, values, 'host');
  const event: CalendarEventInput = {
    uid: booking.icsUid,
    sequence: booking.icsSequence,
    title: booking.title,
    description,
    location,
    start: booking.startAt.getTime(),
    end: booking.endAt.getTime(),
    timeZone: host.timeZone,
    organizer: { name: host.name, email: context.organizerAddress ?? host.email },
    attendees: [...coHosts.map(({ name, email }) => ({ name, email })), ...attendees.map(({ name, email }) => ({ name, email }))],
    private: context.hideCalendarEventDetails,
    // Until its Meet link is known, a Google Meet booking asks Google for one with its event.
    ...(booking.location === GOOGLE_MEET_LOCATION ? { conference: 'google-meet' as const } : {}),
  };
  if (context.privateNote === null) return { event, note: null };
  // The note is the hosts' own: the booker's notes stay in it even where hideCalendarNotes keeps them out of the event.
  const noteText = renderPrivateNote(context.privateNote, { ...values, responses: booking.responses, notes: booking.description ?? '' });
  return { event, note: { ...event, uid: `${booking.icsUid}${PRIVATE_NOTE_UID_SUFFIX}`, description: noteText, attendees: [], private: true } };
}

const contentHash = (calendar: string, event: CalendarEventInput) => createHash('sha256').update(JSON.stringify([calendar, event])).digest('base64url');

/** Where a host's events go: the event type's destination, else theirs, else their first writable connection's primary calendar. */
function destinationOf(calendars: repo.WritableCalendar[], userId: number): repo.WritableCalendar | null {
  const own = calendars.filter((calendar) => calendar.userId === userId);
  const chosen = own.find((calendar) => calendar.forEventType) ?? own.find((calendar) => calendar.forUser);
  if (chosen) return chosen.invalid ? null : chosen;
  return own.find((calendar) => !calendar.invalid && calendar.isPrimary) ?? own.find((calendar) => !calendar.invalid) ?? null;
}

/**
 * The write job: every host of the booking that now carries `icsUid` gets its event in their
 * destination calendar while the booking is accepted; events of hosts no longer on it, of a
 * destination no longer chosen, or of a booking cancelled, rejected or awaiting confirmation are
 * deleted. Unchanged events are not written again. Each provider call is followed by its own short
 * transaction recording it, so a retry after a failure picks up where this run stopped.
 */
/** The organizer's own event as this run left it: in which kind of calendar, and the meeting link its provider keeps with it. */
export interface OrganizerEvent {
  type: string;
  eventId: string;
  conferenceUrl: string | null;
}

export async function writeCalendarEvents(deps: CalendarWriteDeps, icsUid: string, now: number = Date.now()): Promise<{ organizer: OrganizerEvent | null }> {
  const { database } = deps;
  const db = database.db;
  const holder = randomUUID();
  if (!(await repo.acquireEventLease(db, icsUid, holder, new Date(now), LEASE_MS))) throw new JobRetry(`another job is writing the events of ${icsUid}`, BUSY_RETRY_MS);
  try {
    const booking = await repo.latestBookingWithIcsUid(db, icsUid);
    const refs = await repo.listEventRefs(db, icsUid);
    if (!booking) {
      // The bookings are gone (their user was deleted): their references went with them.
      return { organizer: null };
    }
    await repo.moveEventRefs(db, icsUid, booking.id);
    const [record] = await loadRecords(db, [booking]);
    const hostIds = booking.status === 'accepted' ? [booking.userId, ...record!.coHosts.map((host) => host.id)] : [];
    const calendars = await repo.writableCalendarsOf(db, [...new Set([...hostIds, ...refs.map((ref) => ref.userId)])], booking.eventTypeId);
    const content = hostIds.length > 0 ? await eventContent(db, record!, deps.config.appUrl) : null;
    const noteWanted = content?.note != null;
    const policy = outboundPolicy(deps.config);
    // Set by a failure a later run may get past (the provider unreachable, rate limited): the job is retried.
    let retryable: Error | null = null;

    const attempt = async (connectionId: number, calendarName: string, work: (connection: WriterConnection) => Promise<void>) => {
      const connection = await findConnection(db, connectionId);
      if (!connection || connection.invalid) return;
      const opened = {
        credentials: JSON.parse(deps.secrets.open(connection.credentialsSealed)) as unknown,
        saveCredentials: async (credentials: unknown) => saveCredentials(db, connectionId, deps.secrets.seal(JSON.stringify(credentials))),
      };
      try {
        await work(opened);
      } catch (error) {
        if (error instanceof CalendarProviderError && error.kind === 'unauthorized') {
          await database.transaction((tx) => flagConnectionInvalid(tx, connection, calendarName, Date.now()));
        } else if (error instanceof CalendarProviderError && error.kind === 'not_found') {
          // The calendar is gone: nothing can be written there until the host picks another.
        } else {
          retryable ??= error instanceof Error ? error : new Error(String(error));
        }
        deps.log?.warn?.({ icsUid, connectionId, error: error instanceof Error ? error.message : String(error) }, 'calendar event write failed');
      }
    };

    let organizer: OrganizerEvent | null = null;
    const wanted = new Map<number, repo.WritableCalendar>();
    for (const userId of hostIds) {
      const destination = destinationOf(calendars, userId);
      if (destination) wanted.set(userId, destination);
    }
    // Events no longer wanted where they are: deleted.
    for (const ref of refs) {
      const destination = wanted.get(ref.userId);
      if (destination && destination.connectionId === ref.connectionId && destination.externalId === ref.calendarExternalId && (!ref.note || noteWanted)) continue;
      const writer = deps.writers[ref.type];
      if (!writer) continue;
      await attempt(ref.connectionId, ref.calendarExternalId, async (connection) => {
        await writer.remove(connection, ref.calendarExternalId, { eventId: ref.eventId, etag: ref.etag }, policy);
        await repo.deleteEventRef(db, ref.id);
      });
    }
    // Events wanted: written where missing or changed.
    for (const [userId, destination] of wanted) {
      const writer = deps.writers[destination.type];
      if (!writer || !content) continue;
      const events: [boolean, CalendarEventInput][] = content.note ? [[false, content.event], [true, content.note]] : [[false, content.event]];
      for (const [note, event] of events) {
        const hash = contentHash(destination.externalId, event);
        const ref = refs.find(
          (candidate) => candidate.userId === userId && candidate.note === note && candidate.connectionId === destination.connectionId && candidate.calendarExternalId === destination.externalId,
        );
        // An event asking for a conference is written again until its link is known (the meeting job asks).
        if (ref && ref.contentHash === hash && !event.conference) continue;
        await attempt(destination.connectionId, destination.name, async (connection) => {
          const written = await writer.write(connection, destination.externalId, event, ref ? { eventId: ref.eventId, etag: ref.etag } : null, policy);
          if (userId === booking.userId && !note) organizer = { type: destination.type, eventId: written.id, conferenceUrl: written.conferenceUrl ?? null };
          await repo.saveEventRef(db, {
            icsUid,
            bookingId: booking.id,
            userId,
            connectionId: destination.connectionId,
            type: destination.type,
            calendarExternalId: destination.externalId,
            eventId: written.id,
            etag: written.etag,
            contentHash: hash,
            note,
          });
        });
      }
    }
    deps.log?.info({ icsUid, bookingId: booking.id, calendars: wanted.size }, 'calendar events written');
    // Assigned inside `attempt`, which control-flow analysis does not follow.
    const failed = retryable as Error | null;
    if (failed) {
      if (failed instanceof CalendarProviderError && failed.retryAfterMs !== undefined) throw new JobRetry(failed.message, failed.retryAfterMs);
      throw failed;
    }
    return { organizer };
  } finally {
    await repo.releaseEventLease(db, icsUid, holder);
  }
}
