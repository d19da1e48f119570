import { randomUUID } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import type { Database, Db } from '../../db/client.js';
import { insertJob, insertJobs } from '../../jobs/jobs.repository.js';
import { attemptsSpanning } from '../../jobs/runner.js';
import type { BookingEventListener, RecordedBookingEvent } from '../bookings/booking-events.js';
import type { BookingRecord } from '../bookings/bookings.repository.js';
import * as repo from './webhook-deliveries.repository.js';
import type { MatchedSubscription, PayloadContext, WebhookAudience } from './webhook-deliveries.repository.js';
import { scheduleMeetingJob } from './webhook-meetings.js';
import { hasBuiltInVideo, scheduleNoShowChecks } from './webhook-no-shows.js';
import { NO_SHOW_TRIGGERS } from './webhook-triggers.js';
import { bookingPayload, noShowPayload, renderBody } from './webhook-payload.js';

/** The job that sends one delivery (payload `{deliveryId}`). */
export const WEBHOOK_DELIVERY_JOB = 'webhook.deliver';

/**
 * Attempts per delivery: with the runner's default backoff (10 s doubling, capped at 1 h between
 * attempts) the retries span at least 24 hours (33 attempts, the last about 24.6 h after the first).
 */
export const WEBHOOK_MAX_ATTEMPTS = attemptsSpanning(24 * 3_600_000);

const MEETING_TRIGGERS = ['MEETING_STARTED', 'MEETING_ENDED'] as const;

export interface WebhookEvent {
  trigger: string;
  createdAt: Date;
  bookingEventId: number | null;
  payload: Record<string, unknown>;
}

/**
 * Queues `event` for each subscription, inside the caller's transaction: a delivery row holding the
 * exact body (rendered now, so every retry sends the same bytes under the same `webhook-id`) and a job
 * that sends it. Both commit with the change or not at all.
 */
export async function emitWebhookEvent(tx: Db, event: WebhookEvent, subscriptions: MatchedSubscription[]): Promise<void> {
  if (subscriptions.length === 0) return;
  const createdAt = event.createdAt.toISOString();
  const rows = subscriptions.map((subscription) => {
    const rendered = renderBody(event.trigger, createdAt, event.payload, subscription.payloadTemplate);
    return {
      uid: randomUUID(),
      webhookId: subscription.id,
      bookingEventId: event.bookingEventId,
      trigger: event.trigger,
      body: rendered.body,
      contentType: rendered.contentType,
      // A template that cannot be rendered (stored before templates were checked): logged as failed, not sent.
      ...(rendered.templateError ? { status: 'failed' as const, lastError: rendered.templateError } : {}),
    };
  });
  const inserted = await repo.insertDeliveries(tx, rows);
  const failed = new Set<string>(rows.filter((row) => row.status === 'failed').map((row) => row.uid));
  const sendable = inserted.filter((delivery) => !failed.has(delivery.uid));
  await insertJobs(
    tx,
    sendable.map((delivery) => ({ kind: WEBHOOK_DELIVERY_JOB, payload: { deliveryId: delivery.id }, maxAttempts: WEBHOOK_MAX_ATTEMPTS })),
  );
}

/**
 * Whose subscriptions a booking's events reach: the organizer's own webhooks, its event type's, and
 * those of every organization where the organizer holds an accepted membership (as the reference's
 * getOrgIdFromMemberOrTeamId, which counts accepted memberships only), resolved inside the
 * subscriptions query, the team's of a team event type, and the OAuth client's that manages the
 * organizer (platform), also resolved inside the query. `alsoUserIds` count as organizers too.
 */
export function bookingAudience(record: BookingRecord, alsoUserIds: readonly number[] = []): WebhookAudience {
  const { booking } = record;
  const userIds = [...new Set([booking.userId, ...alsoUserIds])];
  return {
    userIds,
    eventTypeIds: booking.eventTypeId === null ? [] : [booking.eventTypeId],
    teamIds: record.eventType?.teamId == null ? [] : [record.eventType.teamId],
    organizationIds: [],
    organizationMemberIds: userIds,
    oauthClientIds: [],
    managedUserIds: userIds,
  };
}


/** Booked, confirmed, or rescheduled to an accepted booking: its meeting start and end are due. */
const becomesAccepted = (trigger: string, record: BookingRecord) =>
  (trigger === 'BOOKING_CREATED' || trigger === 'BOOKING_RESCHEDULED') && record.booking.status === 'accepted';

/**
 * The triggers a booking event may concern: its own, and the meeting ones when the booking has just
 * become accepted (with the no-show ones when its meeting is the built-in video).
 */
function triggersOf(trigger: string, record: BookingRecord): string[] {
  if (!becomesAccepted(trigger, record)) return [trigger];
  return hasBuiltInVideo(record) ? [trigger, ...MEETING_TRIGGERS, ...NO_SHOW_TRIGGERS] : [trigger, ...MEETING_TRIGGERS];
}

/**
 * Whether anyone of the event's audience listens, as a query recordBookingEvent runs within the event's
 * own insert: one row whatever the number of subscriptions.
 */
export function bookingSubscriptionsQuery(trigger: string, record: BookingRecord, alsoUserIds: readonly number[] = []): SQL | null {
  // svc's own history entries (guests added, location changed) have no webhook trigger.
  if (trigger === 'GUESTS_ADDED' || trigger === 'LOCATION_CHANGED') return null;
  const interest = repo.subscriptionInterestQuery(bookingAudience(record, alsoUserIds), triggersOf(trigger, record));
  if (!interest || trigger === 'BOOKING_NO_SHOW_UPDATED') return interest;
  // What the payload shows of the organizer and event type, read by the same statement: no round trip of its own.
  return repo.withPayloadContext(interest, record.booking.userId, record.booking.eventTypeId);
}

/** The job that makes one booking event's deliveries (payload FanOutPayload). */
export const WEBHOOK_FANOUT_JOB = 'webhook.fanout';

/** A booking event as its deliveries are made from it, after its transaction. */
export interface FanOutPayload {
  trigger: string;
  bookingEventId: number;
  createdAt: string;
  /** The webhook payload, built as the booking was when the event was recorded. */
  payload: Record<string, unknown>;
  audience: WebhookAudience;
}

/**
 * The webhooks of one booking event (called by recordBookingEvent in the booking's transaction), given
 * the row of bookingSubscriptionsQuery. When someone listens, the payload is built now (the booking as
 * the event left it) and one fan-out job is queued with it: the deliveries, one per subscription, are
 * made by that job, so a booking costs the same with one subscriber or a thousand, and the event is
 * still recorded (and so never lost) in the booking's transaction. When the booking has just become
 * accepted, its MEETING_STARTED / MEETING_ENDED jobs are scheduled too, if a subscription of the
 * audience listens for them now (as the reference schedules them for the subscribers of the time), and
 * on the built-in video its no-show checks.
 */
export async function emitBookingWebhooks(tx: Db, event: RecordedBookingEvent, interestRows: Record<string, unknown>[]): Promise<void> {
  const { trigger, record } = event;
  const triggers = triggersOf(trigger, record);
  const interested = repo.interestedTriggers(interestRows, triggers);
  if (interested.has(trigger)) {
    const payload =
      trigger === 'BOOKING_NO_SHOW_UPDATED'
        ? noShowPayload(record, event.extra)
        : bookingPayload(trigger, record, event.extra, await payloadContextOf(tx, record, interestRows));
    const fanOut: FanOutPayload = { trigger, bookingEventId: event.bookingEventId, createdAt: event.createdAt.toISOString(), payload, audience: bookingAudience(record, event.alsoUserIds) };
    await insertJob(tx, { kind: WEBHOOK_FANOUT_JOB, payload: fanOut, maxAttempts: WEBHOOK_MAX_ATTEMPTS, dedupeKey: `fanout:${event.bookingEventId}` });
  }
  if (!becomesAccepted(trigger, record)) return;
  for (const meeting of MEETING_TRIGGERS) {
    if (interested.has(meeting)) await scheduleMeetingJob(tx, meeting, record.booking);
  }
  if (NO_SHOW_TRIGGERS.some((noShow) => interested.has(noShow))) await scheduleNoShowChecks(tx, record, bookingAudience(record, event.alsoUserIds));
}

/** The payload context bookingSubscriptionsQuery read with the event, or (rows from elsewhere) read now. */
function payloadContextOf(tx: Db, record: BookingRecord, interestRows: Record<string, unknown>[]): Promise<PayloadContext> | PayloadContext {
  const row = interestRows[0];
  if (row && 'payload_context' in row) return repo.parsePayloadContext(row.payload_context);
  return repo.loadPayloadContext(tx, record.booking.userId, record.booking.eventTypeId);
}

/**
 * The fan-out job: a delivery (and its send job) for each subscription of the event's audience that
 * lists its trigger, in one transaction. Run twice, it makes no second delivery for a subscription.
 */
export async function fanOutBookingEvent(database: Database, job: FanOutPayload): Promise<void> {
  await database.transaction(async (tx) => {
    const subscriptions = await repo.findSubscriptions(tx, job.audience, [job.trigger]);
    await emitWebhookEvent(tx, { trigger: job.trigger, createdAt: new Date(job.createdAt), bookingEventId: job.bookingEventId, payload: job.payload }, subscriptions);
  });
}

/** How booking events reach webhook subscriptions: what the app hands to the booking services. */
export const bookingWebhooks: BookingEventListener = { audienceQuery: bookingSubscriptionsQuery, hear: emitBookingWebhooks };
