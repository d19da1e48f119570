// Meetings made for bookings by the job runner, never under a booking's lock (the providers' side is in
// meeting-providers.ts). A new booking on an app's location (Zoom, Microsoft Teams, Google Meet) is
// written with the app's name as its location and a job: the job makes the meeting, puts its link on the
// booking (location, metadata.videoCallUrl) and only then records the booking's event, so its mail,
// webhooks and calendar events carry the link. When the provider fails, the event is recorded with the
// location the booking had, the organizer is told, and the job keeps trying; a meeting made later reaches
// everyone as a location change. A built-in Daily room's link is made with the booking and the room by a
// job. Rescheduling moves the meeting with the booking; cancelling or leaving the location deletes it.
import type { Db } from '../../db/client.js';
import { createRoom } from '../../integrations/daily/client.js';
import { insertJob } from '../../jobs/jobs.repository.js';
import { attemptsSpanning } from '../../jobs/runner.js';
import { type BookingEventListener, recordBookingChange, recordBookingEvent } from '../bookings/booking-events.js';
import { type BookingRecord, type BookingRow, findBookingById, findBookingByUid, hasBookingEvent, loadRecords, lockBookingByUid, updateBooking } from '../bookings/bookings.repository.js';
import { type OutsideMailTally, tallyOutsideMail } from '../mail/mail-budget.js';
import { queueMeetingFailedMail } from '../mail/meeting-failed-mail.js';
import { connectRoute, INSTALLABLE_APPS, MEETING_INTEGRATIONS, meetingIntegrationOf } from './conferencing-apps.js';
import * as repo from './booking-meetings.repository.js';
import { dailyAccount } from './daily-account.js';
import { type BookingMeetingDeps, detailsOf, googleMeetOf, MeetingAppMissing, PROVIDERS, reachOf, ROOM_GRACE_MS, withApp } from './meeting-providers.js';

export type { BookingMeetingDeps };

/** The job that makes, moves or deletes a booking's meeting. */
export const BOOKING_MEETING_JOB = 'conferencing.meeting';
/** A provider that fails is tried for a day (the runner's backoff), as calendar writes are. */
export const BOOKING_MEETING_MAX_ATTEMPTS = attemptsSpanning(24 * 3_600_000);

export type BookingMeetingJob =
  /** The built-in video's Daily room of a booking, named and linked when the booking was made. */
  | { action: 'room'; meetingId: number }
  | {
      action: 'create';
      bookingUid: string;
      /** The new booking's event, recorded once the meeting is made (or could not be). */
      deferred?: { trigger: 'BOOKING_CREATED' | 'BOOKING_REQUESTED'; extra: Record<string, unknown> } | undefined;
    }
  | { action: 'update' | 'delete'; meetingId: number };

const isLive = (booking: BookingRow) => booking.status === 'accepted' || booking.status === 'pending';

/**
 * Called by booking creation in its transaction for a new booking whose location needs a provider's
 * meeting: queues the job that makes it and records the booking's event. A request without credentials
 * is charged now for the mail the event will send (each attendee told), as if it were sent now.
 */
export async function deferUntilMeeting(
  tx: Db,
  record: BookingRecord,
  deferred: { trigger: 'BOOKING_CREATED' | 'BOOKING_REQUESTED'; extra: Record<string, unknown> },
  tally: OutsideMailTally | null | undefined,
): Promise<void> {
  if (tally) {
    const toGuests = record.booking.status === 'accepted';
    const guests = record.attendees.filter((attendee) => attendee.isGuest).length;
    tallyOutsideMail(tally, record.booking.eventTypeId, { toBooker: record.attendees.length - guests, toGuests: toGuests ? guests : 0 });
  }
  await queueMeetingJob(tx, { action: 'create', bookingUid: record.booking.uid, deferred }, `create:${record.booking.uid}`);
}

export const needsProviderMeeting = (location: string | null) => meetingIntegrationOf(location) !== null;

async function queueMeetingJob(tx: Db, payload: BookingMeetingJob, key: string): Promise<void> {
  await insertJob(tx, { kind: BOOKING_MEETING_JOB, payload, maxAttempts: BOOKING_MEETING_MAX_ATTEMPTS, dedupeKey: `${BOOKING_MEETING_JOB}:${key}` });
}

export async function runBookingMeetingJob(deps: BookingMeetingDeps, payload: BookingMeetingJob, job: { attempts: number; maxAttempts: number }): Promise<void> {
  if (payload.action === 'create') return createBookingMeeting(deps, payload, job);
  const { db } = deps.database;
  const meeting = await repo.findMeeting(db, payload.meetingId);
  if (!meeting) return;
  const reach = await reachOf(deps, meeting);
  if (payload.action === 'delete') {
    // Out of reach (the app disconnected since), the meeting is forgotten.
    try {
      await reach?.remove();
    } catch (error) {
      if (!(error instanceof MeetingAppMissing)) throw error;
    }
    await repo.deleteMeetingRow(db, meeting.id);
    return;
  }
  const booking = await findBookingById(db, meeting.bookingId);
  if (!booking || meeting.deleting) return;
  if (payload.action === 'room') {
    const account = dailyAccount(deps.config);
    if (!account) return;
    const room = await createRoom(account, meeting.externalId, booking.endAt.getTime() + ROOM_GRACE_MS);
    await repo.updateMeeting(db, meeting.id, { providerId: room.id, startAt: booking.startAt, endAt: booking.endAt });
    return;
  }
  if (!reach || (booking.startAt.getTime() === meeting.startAt.getTime() && booking.endAt.getTime() === meeting.endAt.getTime())) return;
  const [record] = await loadRecords(db, [booking]);
  try {
    await reach.update(detailsOf(record!));
  } catch (error) {
    if (error instanceof MeetingAppMissing) return;
    throw error;
  }
  await repo.updateMeeting(db, meeting.id, { startAt: booking.startAt, endAt: booking.endAt });
}

/**
 * Called by booking creation in its transaction for a booking on the built-in video with Daily: the
 * room's name and link are the booking's already; the row that remembers it and the job that creates it
 * at Daily go in with the booking.
 */
export async function holdDailyRoom(tx: Db, booking: BookingRow, name: string): Promise<void> {
  const meeting = await repo.insertMeeting(tx, {
    bookingId: booking.id,
    type: 'daily_video',
    userId: booking.userId,
    externalId: name,
    joinUrl: booking.location!,
    startAt: booking.startAt,
    endAt: booking.endAt,
  });
  await queueMeetingJob(tx, { action: 'room', meetingId: meeting.id }, `room:${meeting.id}`);
}

/**
 * Makes the booking's meeting. On success the link goes on the booking and its deferred event is recorded
 * (or, when the event went out earlier without a link, a location change). On failure the deferred event
 * is recorded with the location as it is and the organizer told, once; the job is retried unless no retry
 * can help (no app, tokens refused) or this was its last attempt.
 */
async function createBookingMeeting(deps: BookingMeetingDeps, payload: Extract<BookingMeetingJob, { action: 'create' }>, job: { attempts: number; maxAttempts: number }): Promise<void> {
  const { database } = deps;
  const scope = (tx: Db) => ({ tx, listener: deps.listener });
  const booking = await findBookingByUid(database.db, payload.bookingUid);
  if (!booking) return;
  // A booking cancelled or moved before its meeting was made never announces its creation: its mail
  // would tell of a booking that no longer stands.
  if (!isLive(booking)) return;
  const integration = meetingIntegrationOf(booking.location);
  if (!integration || (await repo.findMeetingOfBooking(database.db, booking.id))) {
    // The location changed before the meeting was made: the event goes out as the booking is.
    await database.transaction(async (tx) => recordDeferred(scope(tx), payload, booking.uid));
    return;
  }
  const slug = MEETING_INTEGRATIONS[integration];
  const { type, name } = INSTALLABLE_APPS[slug];
  // A Meet conference comes with the host's calendar event, written for accepted bookings only: a
  // booking awaiting confirmation gets it when confirmed (bookingMeetingUpkeep).
  if (slug === 'google-meet' && booking.status !== 'accepted') {
    await database.transaction(async (tx) => recordDeferred(scope(tx), payload, booking.uid));
    return;
  }
  const [record] = await loadRecords(database.db, [booking]);
  let made: { id: string; joinUrl: string } | null = null;
  let failure: unknown = null;
  const app = await repo.findMeetingApp(database.db, type, booking.userId, record!.eventType?.teamId ?? null);
  try {
    if (!app) throw new MeetingAppMissing(`${name} is not connected for the organizer or the event type's team`);
    made = slug === 'google-meet' ? await googleMeetOf(deps, booking) : await withApp(deps, app, slug, (session) => PROVIDERS[slug].create(session, detailsOf(record!)));
  } catch (error) {
    failure = error;
  }

  if (made && app) {
    const meeting = made;
    const kept = await database.transaction(async (tx) => {
      const locked = await lockBookingByUid(tx, booking.uid);
      if (!locked || !isLive(locked) || locked.location !== booking.location) return false;
      await repo.insertMeeting(tx, {
        bookingId: locked.id,
        type,
        userId: app.userId,
        teamId: app.teamId,
        externalId: meeting.id,
        joinUrl: meeting.joinUrl,
        startAt: locked.startAt,
        endAt: locked.endAt,
      });
      const updated = await updateBooking(tx, locked.id, { location: meeting.joinUrl, metadata: { ...locked.metadata, videoCallUrl: meeting.joinUrl } });
      const [current] = await loadRecords(tx, [updated]);
      if (!(await recordDeferred(scope(tx), payload, booking.uid, current!))) await recordBookingChange(scope(tx), 'locationChanged', current!);
      return true;
    });
    // The booking moved on while the meeting was being made: the meeting is not wanted (a Meet goes with
    // its calendar event, which the booking's change takes out of the calendar).
    if (!kept && slug !== 'google-meet') await withApp(deps, app, slug, (session) => PROVIDERS[slug].remove(session, meeting.id)).catch(() => undefined);
    return;
  }

  const permanent = failure instanceof MeetingAppMissing;
  const retrying = !permanent && job.attempts < job.maxAttempts;
  const reason = failure instanceof Error ? failure.message : String(failure);
  deps.log?.warn?.({ bookingUid: booking.uid, app: slug, attempt: job.attempts, error: reason }, 'booking meeting could not be made');
  await database.transaction(async (tx) => {
    const told = await recordDeferred(scope(tx), payload, booking.uid);
    // Told when the booking's event goes out without the link (or, for a meeting asked for later, on the
    // first attempt), and again when svc stops trying.
    if (told || (!payload.deferred && job.attempts === 1) || !retrying) {
      await queueMeetingFailedMail(tx, {
        organizer: { email: record!.host.email, name: record!.host.name, timeZone: record!.host.timeZone },
        booking: { uid: booking.uid, title: booking.title, startAt: booking.startAt },
        app: { name, connect: connectRoute(slug) },
        reason,
        retrying,
      });
    }
  });
  if (retrying) throw failure;
}

/**
 * Records the booking's deferred event, unless there is none or it was recorded already; answers whether
 * it recorded it. `current` is the booking as the caller's transaction holds it.
 */
async function recordDeferred(scope: { tx: Db; listener: BookingEventListener }, payload: Extract<BookingMeetingJob, { action: 'create' }>, uid: string, current?: BookingRecord): Promise<boolean> {
  const { deferred } = payload;
  if (!deferred) return false;
  const { tx } = scope;
  const locked = current?.booking ?? (await lockBookingByUid(tx, uid));
  if (!locked || !isLive(locked) || (await hasBookingEvent(tx, uid, deferred.trigger))) return false;
  const record = current ?? (await loadRecords(tx, [locked]))[0]!;
  await recordBookingEvent(scope, deferred.trigger, record, deferred.extra);
  return true;
}

/** Whether the booking may hold a provider's meeting: only one with a video link does. */
const mayHoldMeeting = (booking: BookingRow) => typeof booking.metadata.videoCallUrl === 'string';

/**
 * Keeps meetings in line with their bookings, in the transaction of each booking change: a cancelled or
 * declined booking's meeting is deleted; a rescheduled booking takes the old one's meeting, moved to the
 * new time; a location changed away from the meeting deletes it.
 */
export const bookingMeetingUpkeep: BookingEventListener = {
  audienceQuery: () => null,
  async hear(tx, event) {
    const { booking } = event.record;
    switch (event.trigger) {
      case 'BOOKING_CANCELLED':
      case 'BOOKING_REJECTED': {
        if (booking.status !== 'cancelled' && booking.status !== 'rejected') return;
        if (!mayHoldMeeting(booking)) return;
        const meeting = await repo.findMeetingOfBooking(tx, booking.id);
        if (meeting) await deleteLater(tx, meeting.id);
        return;
      }
      case 'BOOKING_RESCHEDULED': {
        // Only a booking with a video link, or one whose app still has to make it, has a meeting to move.
        if (!mayHoldMeeting(booking) && !needsProviderMeeting(booking.location)) return;
        const from = booking.rescheduledFromUid;
        const old = from === null ? undefined : await findBookingByUid(tx, from);
        const meeting = old && mayHoldMeeting(old) ? await repo.findMeetingOfBooking(tx, old.id) : undefined;
        if (meeting && old!.status === 'cancelled' && booking.location === meeting.joinUrl) {
          await repo.updateMeeting(tx, meeting.id, { bookingId: booking.id });
          await queueMeetingJob(tx, { action: 'update', meetingId: meeting.id }, `update:${event.bookingEventId}`);
        } else if (needsProviderMeeting(booking.location)) {
          await queueMeetingJob(tx, { action: 'create', bookingUid: booking.uid }, `create:${booking.uid}`);
        }
        return;
      }
      case 'BOOKING_CREATED': {
        // A booking confirmed after waiting: one whose meeting was not made while it waited (Google
        // Meet's, or a failed one) gets it now. Bookings accepted at once had theirs made by the job that
        // records this event.
        if (!needsProviderMeeting(booking.location) || !(await hasBookingEvent(tx, booking.uid, 'BOOKING_REQUESTED'))) return;
        await queueMeetingJob(tx, { action: 'create', bookingUid: booking.uid }, `create:${booking.uid}:confirmed`);
        return;
      }
      case 'LOCATION_CHANGED': {
        // Not gated on the video link: a new location drops it from the metadata.
        const meeting = await repo.findMeetingOfBooking(tx, booking.id);
        if (meeting && booking.location !== meeting.joinUrl) await deleteLater(tx, meeting.id);
        return;
      }
      default:
    }
  },
};

async function deleteLater(tx: Db, meetingId: number): Promise<void> {
  await repo.updateMeeting(tx, meetingId, { deleting: true });
  await queueMeetingJob(tx, { action: 'delete', meetingId }, `delete:${meetingId}`);
}
