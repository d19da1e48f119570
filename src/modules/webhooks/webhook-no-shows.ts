import type { Db } from '../../db/client.js';
import { insertJobs } from '../../jobs/jobs.repository.js';
import type { BookingRecord } from '../bookings/bookings.repository.js';
import { findNoShowSubscriptions, type WebhookAudience } from './webhook-deliveries.repository.js';
import { NO_SHOW_TRIGGERS, type NoShowTrigger, noShowDelayMs } from './webhook-triggers.js';

/** The job that checks one booking's video room for one subscription's no-show trigger (conferencing runs it). */
export const NO_SHOW_JOB = 'webhook.no-show';

export interface NoShowJobPayload {
  bookingUid: string;
  webhookId: number;
  trigger: NoShowTrigger;
  /** The booking's start when the check was scheduled, ISO 8601: a booking moved since is not checked. */
  start: string;
}

const isNoShowTrigger = (trigger: string): trigger is NoShowTrigger => (NO_SHOW_TRIGGERS as readonly string[]).includes(trigger);

/** A booking whose meeting is svc's built-in video: the only rooms whose joiners svc can learn of. */
export const hasBuiltInVideo = (record: BookingRecord) => typeof (record.booking.metadata as Record<string, unknown> | null)?.videoCallUrl === 'string';

/**
 * One check per subscription of the booking's audience listing a no-show trigger, at the booking's start
 * plus that subscription's delay, in the booking's transaction (the reference schedules them for the
 * subscribers of the time of booking). The dedupe key makes scheduling it again a no-op; a check whose
 * time is already past is not scheduled.
 */
export async function scheduleNoShowChecks(tx: Db, record: BookingRecord, audience: WebhookAudience, nowMs = Date.now()): Promise<void> {
  const { uid, startAt } = record.booking;
  const subscriptions = await findNoShowSubscriptions(tx, audience);
  const checks = subscriptions.flatMap((subscription) =>
    subscription.triggers.filter(isNoShowTrigger).map((trigger) => {
      const runAt = new Date(startAt.getTime() + noShowDelayMs(subscription.time, subscription.timeUnit));
      const payload: NoShowJobPayload = { bookingUid: uid, webhookId: subscription.id, trigger, start: startAt.toISOString() };
      return { kind: NO_SHOW_JOB, payload, runAt, dedupeKey: `no-show:${trigger}:${subscription.id}:${uid}:${startAt.getTime()}` };
    }),
  );
  await insertJobs(
    tx,
    checks.filter((check) => check.runAt.getTime() > nowMs),
  );
}
