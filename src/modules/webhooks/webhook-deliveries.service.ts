import type { Database, Db } from '../../db/client.js';
import { expeditePendingJob, insertJob } from '../../jobs/jobs.repository.js';
import { conflict, notFound } from '../../lib/errors.js';
import type { UserRecord } from '../users/users.repository.js';
import * as repo from './webhook-deliveries.repository.js';
import type { AttemptRow, DeliveryRow } from './webhook-deliveries.repository.js';
import { WEBHOOK_DELIVERY_JOB, WEBHOOK_MAX_ATTEMPTS } from './webhook-emission.js';
import { assertWebhookReachable, eventTypeScope, userScope } from './webhooks.service.js';

/** Which subscription's log: a user's own webhook, or a webhook of one of the caller's event types. */
export type WebhookScope = { kind: 'user'; webhookId: number } | { kind: 'eventType'; eventTypeId: number; webhookId: number };

export interface DeliveryView {
  delivery: DeliveryRow;
  attempts: AttemptRow[];
}

/**
 * The subscription, if the caller may reach it, with the same answers as the subscription routes
 * (the reference's guards): a missing webhook or event type is a 404; someone else's webhook or event
 * type, or a webhook of another event type, a 403; an event-type route naming a user webhook, a 400.
 */
async function reachableWebhook(db: Db, caller: UserRecord, scope: WebhookScope): Promise<number> {
  const webhookScope = scope.kind === 'user' ? userScope(caller) : await eventTypeScope(db, caller, scope.eventTypeId);
  await assertWebhookReachable(db, webhookScope, scope.webhookId);
  return scope.webhookId;
}

async function withAttempts(db: Db, deliveries: DeliveryRow[]): Promise<DeliveryView[]> {
  const attempts = await repo.attemptsOf(
    db,
    deliveries.map((delivery) => delivery.id),
  );
  return deliveries.map((delivery) => ({ delivery, attempts: attempts.filter((attempt) => attempt.deliveryId === delivery.id) }));
}

/** A subscription's deliveries, newest first, each with its attempts. */
export async function listDeliveries(db: Db, caller: UserRecord, scope: WebhookScope, page: { take: number; skip: number }): Promise<DeliveryView[]> {
  const webhookId = await reachableWebhook(db, caller, scope);
  return withAttempts(db, await repo.listDeliveries(db, webhookId, page.take, page.skip));
}

/**
 * Sends a delivery again: the same uid (`webhook-id`) and the same body. A delivered or failed one is
 * queued anew with a full set of attempts; a pending one (waiting for its next retry) is tried now
 * instead of at its backed-off time, without a second job.
 */
export async function resendDelivery(database: Database, caller: UserRecord, scope: WebhookScope, deliveryUid: string): Promise<DeliveryView> {
  return database.transaction(async (tx) => {
    const webhookId = await reachableWebhook(tx, caller, scope);
    const found = await repo.lockDelivery(tx, webhookId, deliveryUid);
    if (!found) throw notFound('webhook_delivery_not_found', `Delivery ${deliveryUid} of webhook ${webhookId} not found`);
    const job = { kind: WEBHOOK_DELIVERY_JOB, payload: { deliveryId: found.id }, maxAttempts: WEBHOOK_MAX_ATTEMPTS };
    let delivery = found;
    if (found.status === 'pending') {
      const pending = await expeditePendingJob(tx, WEBHOOK_DELIVERY_JOB, { deliveryId: found.id });
      if (pending === 'running') {
        throw conflict('webhook_delivery_in_progress', `Delivery ${deliveryUid} is being attempted right now; resend it once that attempt has finished.`);
      }
      // Pending without a job (its last attempt could not be recorded): queue it again.
      if (pending === 'none') await insertJob(tx, job);
    } else {
      delivery = await repo.reopenDelivery(tx, found.id);
      await insertJob(tx, job);
    }
    const [view] = await withAttempts(tx, [delivery]);
    return view!;
  });
}
