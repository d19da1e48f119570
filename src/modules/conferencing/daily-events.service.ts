// Daily's webhooks (docs.daily.co, "Webhooks"): each request is signed with the webhook's HMAC secret
// (SVC_DAILY_WEBHOOK_SECRET, base64): X-Webhook-Signature is base64(HMAC-SHA256(secret, timestamp + "." +
// raw body)), X-Webhook-Timestamp the timestamp. A signed event is stored as a job and answered at once
// (Daily gives up on a slow endpoint); the job turns a recording or transcript made in a booking's room
// into the booking's RECORDING_READY or RECORDING_TRANSCRIPTION_GENERATED, with Daily's download link.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../app/config.js';
import type { Database } from '../../db/client.js';
import { recordingLink, transcriptLink } from '../../integrations/daily/client.js';
import { insertJob } from '../../jobs/jobs.repository.js';
import { notFound, unauthorized } from '../../lib/errors.js';
import { type BookingEventListener, recordBookingEvent } from '../bookings/booking-events.js';
import { findBookingById, hasBookingEvent, loadRecords, lockBookingByUid } from '../bookings/bookings.repository.js';
import { findDailyRoom } from './booking-meetings.repository.js';
import { dailyAccount } from './daily-account.js';

export const DAILY_EVENT_JOB = 'conferencing.daily-event';
/** A signed request older (or further ahead) than this is refused: a captured request cannot be replayed later. */
const SIGNATURE_TOLERANCE_S = 300;

/** The body Daily posts to check an endpoint when its webhook is created: answered 200, nothing done. */
const isVerificationRequest = (raw: string) => /^\s*\{\s*"test"\s*:\s*"test"\s*\}\s*$/.test(raw);

export interface DailyEventDeps {
  database: Database;
  config: Pick<Config, 'daily' | 'allowPrivateWebhooks' | 'calendars'>;
  listener: BookingEventListener;
}

/** Checks the signature, then queues the event; 401 for anything svc cannot verify, 404 when no secret is set. */
export async function receiveDailyEvent(deps: Pick<DailyEventDeps, 'database' | 'config'>, raw: string, headers: { signature: string; timestamp: string }, nowMs: number): Promise<void> {
  const secret = deps.config.daily?.webhookSecret;
  if (!secret) throw notFound('daily_webhook_not_configured', 'This svc takes no Daily webhooks (SVC_DAILY_WEBHOOK_SECRET is not set)');
  if (isVerificationRequest(raw)) return;
  const timestamp = Number(headers.timestamp);
  if (!/^\d{1,12}$/.test(headers.timestamp) || Math.abs(nowMs / 1000 - timestamp) > SIGNATURE_TOLERANCE_S) {
    throw unauthorized('daily_webhook_signature_invalid', 'X-Webhook-Timestamp is missing or not within 5 minutes of now');
  }
  const expected = createHmac('sha256', secret).update(`${headers.timestamp}.${raw}`).digest();
  const given = Buffer.from(headers.signature, 'base64');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw unauthorized('daily_webhook_signature_invalid', 'X-Webhook-Signature does not match the body');
  let event: { type?: unknown; id?: unknown; payload?: unknown };
  try {
    event = JSON.parse(raw) as typeof event;
  } catch {
    return;
  }
  if (typeof event.type !== 'string' || typeof event.id !== 'string' || !event.payload || typeof event.payload !== 'object') return;
  if (event.type !== 'recording.ready-to-download' && event.type !== 'transcript.ready-to-download') return;
  // Daily retries an event it thinks was not received: its id keeps it to one job.
  await insertJob(deps.database.db, { kind: DAILY_EVENT_JOB, payload: { type: event.type, payload: event.payload }, dedupeKey: `${DAILY_EVENT_JOB}:${event.id.slice(0, 200)}` });
}

const text = (record: Record<string, unknown>, name: string) => (typeof record[name] === 'string' ? (record[name] as string) : null);

/** The job: the room's booking hears of its recording or transcript (once per recording or transcript). */
export async function runDailyEventJob(deps: DailyEventDeps, job: { type: string; payload: Record<string, unknown> }): Promise<void> {
  const account = dailyAccount(deps.config);
  const roomName = text(job.payload, 'room_name');
  if (!account || !roomName) return;
  const room = await findDailyRoom(deps.database.db, roomName);
  if (!room) return;
  const recording = job.type === 'recording.ready-to-download';
  const id = text(job.payload, recording ? 'recording_id' : 'id');
  if (!id) return;
  const link = recording ? await recordingLink(account, id) : await transcriptLink(account, id);
  const trigger = recording ? 'RECORDING_READY' : 'RECORDING_TRANSCRIPTION_GENERATED';
  await deps.database.transaction(async (tx) => {
    // The booking's lock puts two jobs of one recording (Daily sent the event twice) one after the other.
    const found = await findBookingById(tx, room.bookingId);
    const booking = found && (await lockBookingByUid(tx, found.uid));
    if (!booking) return;
    const [record] = await loadRecords(tx, [booking]);
    const extra = recording ? { downloadLink: link, recordingId: id } : { transcription: [link], transcriptId: id };
    // One event per recording or transcript, also when the job runs again after a crash.
    const key = recording ? 'recordingId' : 'transcriptId';
    if (await hasBookingEvent(tx, booking.uid, trigger, { [key]: id })) return;
    await recordBookingEvent({ tx, listener: deps.listener }, trigger, record!, extra);
  });
}
