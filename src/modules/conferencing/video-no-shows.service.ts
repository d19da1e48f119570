// The no-show triggers of the built-in video on Daily (AFTER_HOSTS_SVC_VIDEO_NO_SHOW,
// AFTER_GUESTS_SVC_VIDEO_NO_SHOW): when a subscription's delay after the booking's start has passed, the
// room's sessions are read from Daily and compared with the booking's hosts. A host counts as joined when
// a participant carries their user id, which only a host link (/video/{uid}, signed in) gives them; a
// guest joined when any other participant did. As the reference: one delivery per absent host, one when
// no guest joined; the organizer's absence sets the booking's `absentHost`, the guests' their `absent`.
import type { Config } from '../../app/config.js';
import type { Database, Db } from '../../db/client.js';
import { type DailySession, listSessions } from '../../integrations/daily/client.js';
import { findBookingByUid, hasBookingEvent, insertBookingEvent, loadRecords, lockBookingByUid, type BookingRecord, updateBooking } from '../bookings/bookings.repository.js';
import { setAttendeesAbsent } from '../bookings/details/booking-details.repository.js';
import { emitWebhookEvent } from '../webhooks/webhook-emission.js';
import type { NoShowJobPayload } from '../webhooks/webhook-no-shows.js';
import { type NoShowParticipant, videoNoShowPayload } from '../webhooks/webhook-payload.js';
import { noShowDelayMs } from '../webhooks/webhook-triggers.js';
import { findWebhookById, type WebhookRow } from '../webhooks/webhooks.repository.js';
import { findMeetingOfBooking } from './booking-meetings.repository.js';
import { dailyAccount } from './daily-account.js';

export interface NoShowDeps {
  database: Database;
  config: Pick<Config, 'daily' | 'allowPrivateWebhooks' | 'calendars'>;
}

export interface NoShowVerdict {
  absentHosts: { id: number; email: string }[];
  guestJoined: boolean;
  participants: NoShowParticipant[];
}

/** Who of the booking's hosts joined the room, and whether anyone else did (pure: sessions as Daily lists them). */
export function noShowVerdict(record: BookingRecord, sessions: DailySession[]): NoShowVerdict {
  const hosts = [{ id: record.host.id, email: record.host.email }, ...record.coHosts.map((host) => ({ id: host.id, email: host.email }))];
  const hostById = new Map(hosts.map((host) => [String(host.id), host]));
  const joined = sessions.flatMap((session) => session.participants);
  const joinedIds = new Set(joined.flatMap((participant) => (participant.userId === null ? [] : [participant.userId])));
  return {
    absentHosts: hosts.filter((host) => !joinedIds.has(String(host.id))),
    guestJoined: joined.some((participant) => participant.userId === null || !hostById.has(participant.userId)),
    participants: joined.map((participant) => {
      const host = participant.userId === null ? undefined : hostById.get(participant.userId);
      return { user_id: participant.userId, user_name: participant.userName, join_time: participant.joinTime, duration: participant.duration, ...(host ? { email: host.email } : {}) };
    }),
  };
}

/**
 * What the room of a booking on Daily shows of who joined (read from Daily, outside any transaction), for
 * the workflows' no-show triggers; null when svc has no Daily account or the booking no Daily room.
 */
export async function readNoShowVerdict(deps: NoShowDeps, record: BookingRecord): Promise<NoShowVerdict | null> {
  const account = dailyAccount(deps.config);
  if (!account) return null;
  const room = await findMeetingOfBooking(deps.database.db, record.booking.id);
  if (room?.type !== 'daily_video') return null;
  return noShowVerdict(record, await listSessions(account, room.externalId));
}

/** The booking as the check may still concern it: accepted, at the start it was scheduled for. */
const stillDue = (booking: { status: string; startAt: Date } | undefined, payload: NoShowJobPayload) =>
  booking !== undefined && booking.status === 'accepted' && booking.startAt.toISOString() === payload.start;

const listens = (webhook: WebhookRow | undefined, payload: NoShowJobPayload): webhook is WebhookRow =>
  webhook !== undefined && webhook.active && webhook.triggers.includes(payload.trigger);

/**
 * The job: reads the room's sessions from Daily (outside any transaction; a failure retries the job), then
 * in one transaction, with the booking locked, records the check in the booking's history (a re-run after a
 * crash finds it and does nothing), queues the deliveries to that one subscription and marks who was absent.
 * Nothing happens for a booking cancelled, moved or no longer on a Daily room, or a subscription gone or
 * no longer listening.
 */
export async function runNoShowJob(deps: NoShowDeps, payload: NoShowJobPayload): Promise<void> {
  const { db } = deps.database;
  const account = dailyAccount(deps.config);
  const booking = await findBookingByUid(db, payload.bookingUid);
  if (!account || !stillDue(booking, payload) || !listens(await findWebhookById(db, payload.webhookId), payload)) return;
  const room = await findMeetingOfBooking(db, booking!.id);
  if (room?.type !== 'daily_video') return;
  const sessions = await listSessions(account, room.externalId);
  await deps.database.transaction(async (tx) => {
    const locked = await lockBookingByUid(tx, payload.bookingUid);
    const webhook = await findWebhookById(tx, payload.webhookId);
    if (!stillDue(locked, payload) || !listens(webhook, payload)) return;
    if (await hasBookingEvent(tx, payload.bookingUid, payload.trigger, { webhookId: payload.webhookId })) return;
    const [record] = await loadRecords(tx, [locked!]);
    await recordCheck(tx, record!, webhook, payload, noShowVerdict(record!, sessions));
  });
}

async function recordCheck(tx: Db, record: BookingRecord, webhook: WebhookRow, payload: NoShowJobPayload, verdict: NoShowVerdict): Promise<void> {
  const { booking } = record;
  const hostsCheck = payload.trigger === 'AFTER_HOSTS_SVC_VIDEO_NO_SHOW';
  const absentHostEmails = verdict.absentHosts.map((host) => host.email);
  const event = await insertBookingEvent(tx, {
    bookingId: booking.id,
    bookingUid: booking.uid,
    trigger: payload.trigger,
    userId: booking.userId,
    eventTypeId: booking.eventTypeId,
    payload: { webhookId: webhook.id, ...(hostsCheck ? { absentHosts: absentHostEmails } : { guestJoined: verdict.guestJoined }) },
  });
  const recipients = hostsCheck ? absentHostEmails : verdict.guestJoined ? [] : [undefined];
  if (recipients.length === 0) return;
  const rescheduledBy = booking.rescheduledFromUid ? ((await findBookingByUid(tx, booking.rescheduledFromUid))?.rescheduledByEmail ?? null) : null;
  const check = {
    by: new Date(booking.startAt.getTime() + noShowDelayMs(webhook.time, webhook.timeUnit)),
    participants: verdict.participants,
    rescheduledBy,
    webhook: { id: webhook.id, subscriberUrl: webhook.subscriberUrl, active: webhook.active, triggers: webhook.triggers, payloadTemplate: webhook.payloadTemplate, time: webhook.time, timeUnit: webhook.timeUnit },
  };
  const subscription = [{ id: webhook.id, triggers: webhook.triggers, payloadTemplate: webhook.payloadTemplate }];
  for (const hostEmail of recipients) {
    const eventPayload = videoNoShowPayload(payload.trigger, record, { ...check, ...(hostEmail ? { hostEmail } : {}) });
    await emitWebhookEvent(tx, { trigger: payload.trigger, createdAt: event.createdAt, bookingEventId: event.id, payload: eventPayload }, subscription);
  }
  if (hostsCheck) {
    if (verdict.absentHosts.some((host) => host.id === booking.userId)) await updateBooking(tx, booking.id, { absentHost: true });
  } else {
    await setAttendeesAbsent(tx, booking.id, record.attendees.map((attendee) => attendee.id), true);
  }
}
