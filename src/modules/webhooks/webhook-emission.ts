import { randomUUID } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { insertJobs } from '../../jobs/jobs.repository.js';
import { attemptsSpanning } from '../../jobs/runner.js';
import type { BookingEventListener, RecordedBookingEvent } from '../bookings/booking-events.js';
import type { BookingRecord } from '../bookings/bookings.repository.js';
import * as repo from './webhook-deliveries.repository.js';
import type { MatchedSubscription, WebhookAudience } from './webhook-deliveries.repository.js';
import { scheduleMeetingJob } from './webhook-meetings.js';
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
 * The subscriptions a booking event may concern, as a query recordBookingEvent runs within the event's
 * own insert: those of the audience listing the trigger, or (when the booking becomes accepted)
 * MEETING_STARTED / MEETING_ENDED.
 */
export function bookingSubscriptionsQuery(trigger: string, record: BookingRecord, alsoUserIds: readonly number[] = []): SQL | null {
  return repo.subscriptionsQuery(bookingAudience(record, alsoUserIds), becomesAccepted(trigger, record) ? [trigger, ...MEETING_TRIGGERS] : [trigger]);
}

/**
 * The webhooks of one booking event (called by recordBookingEvent in the booking's transaction), given
 * the rows of bookingSubscriptionsQuery. When the booking has just become accepted, its
 * MEETING_STARTED / MEETING_ENDED jobs are scheduled too, if a subscription of the audience listens for
 * them now (as the reference schedules them for the subscribers of the time).
 */
export async function emitBookingWebhooks(tx: Db, event: RecordedBookingEvent, matchedRows: Record<string, unknown>[]): Promise<void> {
  const { trigger, record } = event;
  const becameAccepted = becomesAccepted(trigger, record);
  const subscriptions = repo.matchedSubscriptions(matchedRows);
  if (subscriptions.length === 0) return;

  const targets = subscriptions.filter((subscription) => subscription.triggers.includes(trigger));
  if (targets.length > 0) {
    const payload =
      trigger === 'BOOKING_NO_SHOW_UPDATED'
        ? noShowPayload(record, event.extra)
        : bookingPayload(trigger, record, event.extra, await repo.loadPayloadContext(tx, record.booking.userId, record.booking.eventTypeId));
    await emitWebhookEvent(tx, { trigger, createdAt: event.createdAt, bookingEventId: event.bookingEventId, payload }, targets);
  }
  if (!becameAccepted) return;
  for (const meeting of MEETING_TRIGGERS) {
    if (subscriptions.some((subscription) => subscription.triggers.includes(meeting))) await scheduleMeetingJob(tx, meeting, record.booking);
  }
}

/** How booking events reach webhook subscriptions: what the app hands to the booking services. */
export const bookingWebhooks: BookingEventListener = { audienceQuery: bookingSubscriptionsQuery, hear: emitBookingWebhooks };
