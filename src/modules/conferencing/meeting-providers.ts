// What svc does with a booking's meeting at each provider: Zoom and Microsoft Teams through the owner's
// installed app (its sealed tokens, renewed as they run out), Daily rooms through svc's own key, Google Meet
// through the host's Google Calendar event. Used by the meeting jobs (booking-meetings.service.ts).
import type { Config } from '../../app/config.js';
import type { Database } from '../../db/client.js';
import type { ConferencingAppType, MeetingType } from '../../db/schema.js';
import { CalendarProviderError, type OAuthSession, type OAuthTokens } from '../../integrations/calendar-types.js';
import { deleteRoom, setRoomExpiry } from '../../integrations/daily/client.js';
import { createOnlineMeeting, deleteOnlineMeeting, updateOnlineMeeting } from '../../integrations/microsoft/online-meetings.js';
import { outboundFetch } from '../../integrations/outbound-fetch.js';
import { createMeeting, deleteMeeting, updateMeeting } from '../../integrations/zoom/meetings.js';
import type { SecretBox } from '../../lib/secrets.js';
import type { BookingEventListener } from '../bookings/booking-events.js';
import type { BookingRecord, BookingRow } from '../bookings/bookings.repository.js';
import { type CalendarWriteDeps, writeCalendarEvents } from '../calendars/calendar-events.js';
import { outboundPolicy } from '../calendars/calendar-sync.js';
import { conferencingClient, INSTALLABLE_APPS, type OAuthApp } from './conferencing-apps.js';
import * as repo from './booking-meetings.repository.js';
import { dailyAccount } from './daily-account.js';

export interface BookingMeetingDeps {
  database: Database;
  secrets: SecretBox;
  config: Pick<Config, 'appUrl' | 'zoom' | 'calendars' | 'allowPrivateWebhooks' | 'daily'>;
  /** Who hears of the booking events the jobs record (the app's listeners). */
  listener: BookingEventListener;
  /** Google Meet links are made by writing the host's calendar event. */
  calendarWrites: CalendarWriteDeps;
  log?: { info(obj: object, msg: string): void; warn?(obj: object, msg: string): void } | undefined;
}

/** What a provider is told of the booking. */
export interface MeetingDetails {
  title: string;
  start: number;
  end: number;
  timeZone: string;
  description: string;
}

/** What each app does with a booking's meeting, through its adapter. */
interface MeetingProvider {
  create(session: OAuthSession, details: MeetingDetails): Promise<{ id: string; joinUrl: string }>;
  update(session: OAuthSession, id: string, details: MeetingDetails): Promise<void>;
  remove(session: OAuthSession, id: string): Promise<void>;
}

const zoomDetails = (details: MeetingDetails) => ({ topic: details.title, start: details.start, end: details.end, timeZone: details.timeZone, agenda: details.description });
const teamsDetails = (details: MeetingDetails) => ({ subject: details.title, start: details.start, end: details.end });

export const PROVIDERS: Record<OAuthApp, MeetingProvider> = {
  zoom: {
    create: (session, details) => createMeeting(session, zoomDetails(details)),
    update: (session, id, details) => updateMeeting(session, id, zoomDetails(details)),
    remove: deleteMeeting,
  },
  msteams: {
    create: (session, details) => createOnlineMeeting(session, teamsDetails(details)),
    update: (session, id, details) => updateOnlineMeeting(session, id, teamsDetails(details)),
    remove: deleteOnlineMeeting,
  },
};

export const appOfType = (type: MeetingType): OAuthApp | null => (type === 'zoom_video' ? 'zoom' : type === 'office365_video' ? 'msteams' : null);

/** A failure no retry gets past: no app to make the meeting with, or its tokens refused. */
export class MeetingAppMissing extends Error {}

/** The app's session: its sealed tokens opened, renewed ones sealed and stored again. */
function sessionOf(deps: BookingMeetingDeps, app: repo.ConferencingAppRow, slug: OAuthApp): OAuthSession {
  const client = conferencingClient(deps.config, slug);
  if (!client) throw new MeetingAppMissing(`this svc has no ${INSTALLABLE_APPS[slug].name} app registered`);
  if (app.invalid || !app.credentialsSealed) throw new MeetingAppMissing(`${INSTALLABLE_APPS[slug].name} refused svc's access; it must be connected again`);
  const sealed = JSON.parse(deps.secrets.open(app.credentialsSealed)) as { tokens: OAuthTokens; email?: string };
  return {
    client,
    tokens: sealed.tokens,
    fetch: outboundFetch(outboundPolicy(deps.config)),
    now: () => Date.now(),
    onTokens: (tokens) => repo.saveAppCredentials(deps.database.db, app.id, deps.secrets.seal(JSON.stringify({ ...sealed, tokens }))),
  };
}

/** Runs a provider call; a refusal of the app's tokens marks the app invalid (its owner must connect again). */
export async function withApp<T>(deps: BookingMeetingDeps, app: repo.ConferencingAppRow, slug: OAuthApp, call: (session: OAuthSession) => Promise<T>): Promise<T> {
  const session = sessionOf(deps, app, slug);
  try {
    return await call(session);
  } catch (error) {
    if (error instanceof CalendarProviderError && error.kind === 'unauthorized') {
      await repo.flagAppInvalid(deps.database.db, app.id);
      throw new MeetingAppMissing(`${INSTALLABLE_APPS[slug].name} refused svc's access; it must be connected again`);
    }
    throw error;
  }
}

export function detailsOf(record: BookingRecord): MeetingDetails {
  const { booking, host } = record;
  return { title: booking.title, start: booking.startAt.getTime(), end: booking.endAt.getTime(), timeZone: host.timeZone, description: booking.description ?? '' };
}

/** A Daily room stays joinable this long after its booking's end (a meeting that runs over). */
export const ROOM_GRACE_MS = 24 * 3_600_000;


/**
 * How a made meeting is moved and deleted: a Daily room by svc's key, an app's meeting by its owner's
 * app; null when nothing can reach it (the app disconnected since, no Daily key any more) or nothing
 * needs to (a Meet goes with its calendar event).
 */
export async function reachOf(deps: BookingMeetingDeps, meeting: repo.BookingMeetingRow): Promise<{ update(details: MeetingDetails): Promise<void>; remove(): Promise<void> } | null> {
  if (meeting.type === 'daily_video') {
    const account = dailyAccount(deps.config);
    return account && { update: async (details) => void (await setRoomExpiry(account, meeting.externalId, details.end + ROOM_GRACE_MS)), remove: () => deleteRoom(account, meeting.externalId) };
  }
  const slug = appOfType(meeting.type);
  const app = slug && (await repo.findOwnedApp(deps.database.db, repo.ownerOfMeeting(meeting), meeting.type as ConferencingAppType));
  if (!slug || !app) return null;
  return {
    update: (details) => withApp(deps, app, slug, (session) => PROVIDERS[slug].update(session, meeting.externalId, details)),
    remove: () => withApp(deps, app, slug, (session) => PROVIDERS[slug].remove(session, meeting.externalId)),
  };
}

/**
 * A Google Meet link: the calendar write job's work run now, its event in the organizer's Google
 * calendar asking Google for a conference; the event's id stands for the meeting.
 */
export async function googleMeetOf(deps: BookingMeetingDeps, booking: BookingRow): Promise<{ id: string; joinUrl: string }> {
  const { organizer } = await writeCalendarEvents(deps.calendarWrites, booking.icsUid);
  if (!organizer || organizer.type !== 'google_calendar') {
    throw new MeetingAppMissing("Google Meet needs the organizer's bookings written into a Google calendar, and none of theirs is connected and writable");
  }
  if (!organizer.conferenceUrl) throw new Error('Google wrote the event without a Meet link');
  return { id: organizer.eventId, joinUrl: organizer.conferenceUrl };
}

