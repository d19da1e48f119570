// What happened in a booking's built-in video room, as Daily keeps it: its meeting sessions, recordings
// and transcripts, read from Daily's REST API when asked (the reference does the same), with download
// links Daily signs for a limited time. Only rooms on Daily have any: Jitsi rooms keep nothing.
import type { Config } from '../../app/config.js';
import type { Database } from '../../db/client.js';
import { CalendarProviderError } from '../../integrations/calendar-types.js';
import { createMeetingToken, type DailyAccount, type DailySession, listRecordings, listSessions, listTranscripts, recordingLink, transcriptLink } from '../../integrations/daily/client.js';
import { badRequest, forbidden, notFound } from '../../lib/errors.js';
import { isBookingOrganizer } from '../access/resource-policy.js';
import { findBookingByUid, loadRecords } from '../bookings/bookings.repository.js';
import { managesEventType } from '../bookings/changes/booking-reassign.repository.js';
import { findEventTypeById } from '../event-types/event-types.repository.js';
import * as repo from './booking-meetings.repository.js';
import { dailyAccount } from './daily-account.js';
import { ROOM_GRACE_MS } from './meeting-providers.js';

export interface VideoDeps {
  database: Database;
  config: Pick<Config, 'daily' | 'allowPrivateWebhooks' | 'calendars'>;
}

/** Who asks: the system admin may read every booking's, as the reference's access service lets them. */
export interface VideoCaller {
  id: number;
  systemAdmin: boolean;
}

/** A session as the API shows it: a participant's unknown id or name is left out. */
export type ConferencingSession = Omit<DailySession, 'participants'> & { participants: { userId?: string; userName?: string; joinTime: number; duration: number }[] };

export interface BookingRecording {
  id: string;
  roomName: string;
  startTs: number;
  status: string;
  maxParticipants?: number;
  duration: number;
  shareToken: string;
  downloadLink?: string;
  error?: string;
}

/**
 * The booking's Daily room, for its organizer, a host of its event type, an admin or owner of its team
 * or organization, or the system admin (the reference's check); null when it has none (another location, Jitsi rooms).
 */
async function roomOf(deps: VideoDeps, caller: VideoCaller, uid: string): Promise<{ room: repo.BookingMeetingRow; account: DailyAccount } | null> {
  const { db } = deps.database;
  const booking = await findBookingByUid(db, uid);
  if (!booking) throw notFound('booking_not_found', `Booking with uid=${uid} was not found in the database`);
  const callerId = caller.id;
  if (!caller.systemAdmin && !isBookingOrganizer(booking, callerId)) {
    const eventType = booking.eventTypeId === null ? undefined : await findEventTypeById(db, booking.eventTypeId);
    if (!eventType || !(await managesEventType(db, callerId, eventType))) {
      throw forbidden('not_booking_organizer', 'User is not authorized to access this booking. User must be the booking organizer, a host of its event type, a team admin or owner, or an org admin or owner.');
    }
  }
  const room = await repo.findMeetingOfBooking(db, booking.id);
  const account = dailyAccount(deps.config);
  return room?.type === 'daily_video' && account ? { room, account } : null;
}

/** Daily not answering is a 400 naming it (as calendar_provider_failed), never a 500. */
async function fromDaily<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof CalendarProviderError) throw badRequest('video_provider_failed', `Daily did not answer as expected: ${error.message}`);
    throw error;
  }
}

/** GET /v2/bookings/{uid}/conferencing-sessions. */
export async function conferencingSessions(deps: VideoDeps, caller: VideoCaller, uid: string): Promise<ConferencingSession[]> {
  const found = await roomOf(deps, caller, uid);
  if (!found) return [];
  const sessions = await fromDaily(() => listSessions(found.account, found.room.externalId));
  return sessions.map((session) => ({
    id: session.id,
    room: session.room,
    startTime: session.startTime,
    duration: session.duration,
    ongoing: session.ongoing,
    maxParticipants: session.maxParticipants,
    participants: session.participants.map((participant) => ({
      ...(participant.userId === null ? {} : { userId: participant.userId }),
      ...(participant.userName === null ? {} : { userName: participant.userName }),
      joinTime: participant.joinTime,
      duration: participant.duration,
    })),
  }));
}

/** GET /v2/bookings/{uid}/recordings: each finished recording with its download link. */
export async function bookingRecordings(deps: VideoDeps, caller: VideoCaller, uid: string): Promise<BookingRecording[]> {
  const found = await roomOf(deps, caller, uid);
  if (!found) return [];
  const recordings = await fromDaily(() => listRecordings(found.account, found.room.externalId));
  const out: BookingRecording[] = [];
  for (const recording of recordings) {
    const base: BookingRecording = {
      id: recording.id,
      roomName: recording.roomName,
      startTs: recording.startTs,
      status: recording.status,
      ...(recording.maxParticipants === null ? {} : { maxParticipants: recording.maxParticipants }),
      duration: recording.duration,
      shareToken: recording.shareToken ?? '',
    };
    if (recording.status !== 'finished') {
      out.push(base);
      continue;
    }
    try {
      out.push({ ...base, downloadLink: await recordingLink(found.account, recording.id) });
    } catch (error) {
      out.push({ ...base, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return out;
}

/** GET /v2/bookings/{uid}/transcripts: download links of the room's finished transcripts (valid 1 h). */
export async function bookingTranscripts(deps: VideoDeps, caller: VideoCaller, uid: string): Promise<string[]> {
  const found = await roomOf(deps, caller, uid);
  if (!found?.room.providerId) return [];
  const { account, room } = found;
  const ids = await fromDaily(() => listTranscripts(account, room.providerId!));
  return fromDaily(() => Promise.all(ids.map((id) => transcriptLink(account, id))));
}

/**
 * Where a host joins the booking's built-in video (the page /video/{uid}, signed in): on Daily, the room
 * with a meeting token carrying the host's user id, so the room's sessions tell the host from the guests
 * (what the no-show triggers read); a Jitsi room as it is (it knows no one). Only the organizer and the
 * booking's other hosts get one: anyone else is refused, the guests have their link in the invitation.
 */
export async function hostVideoLink(deps: VideoDeps, user: { id: number; name: string | null; email: string }, uid: string): Promise<string> {
  const { db } = deps.database;
  const booking = await findBookingByUid(db, uid);
  if (!booking) throw notFound('booking_not_found', `Booking with uid=${uid} was not found in the database`);
  const [record] = await loadRecords(db, [booking]);
  if (booking.userId !== user.id && !record!.coHosts.some((host) => host.id === user.id)) {
    throw forbidden('not_booking_host', 'This link is for the hosts of the booking. Guests join with the link in their invitation.');
  }
  if (booking.status === 'cancelled' || booking.status === 'rejected') throw badRequest('booking_not_active', `This booking is ${booking.status}: its video room is closed.`);
  const room = await repo.findMeetingOfBooking(db, booking.id);
  const account = dailyAccount(deps.config);
  if (room?.type === 'daily_video' && account) {
    const token = await fromDaily(() =>
      createMeetingToken(account, { room: room.externalId, userId: String(user.id), userName: user.name || user.email, isOwner: true, expiresAt: booking.endAt.getTime() + ROOM_GRACE_MS }),
    );
    return `${room.joinUrl}?t=${encodeURIComponent(token)}`;
  }
  const link = booking.metadata.videoCallUrl;
  if (typeof link !== 'string') throw notFound('booking_has_no_video', 'This booking does not meet on the built-in video.');
  return link;
}
