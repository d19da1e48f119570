import type { JobsConfig } from '../app/config.js';
import type { Db } from '../db/client.js';
import { cleanUpExpiredKeys } from '../modules/idempotency/idempotency.service.js';
import { deleteExpiredLoginFailures } from '../modules/auth/login-failures.service.js';
import { deleteExpiredGrants } from '../modules/oauth/oauth.repository.js';
import { deleteEndedMessages } from '../modules/mail/mail.repository.js';
import { deleteEndedMailBudgets } from '../modules/mail/mail-budget.repository.js';
import { deleteExpiredTokens } from '../modules/platform/platform-tokens.service.js';
import { deleteExpiredSessions } from '../web/web-sessions.repository.js';
import { deleteEndedDeliveries } from '../modules/webhooks/webhook-deliveries.repository.js';
import { deleteEndedTextMessages } from '../modules/text-messages/text-messages.repository.js';
import { deleteExpiredVerificationCodes, deleteExpiredVerificationFailures } from '../modules/verified-resources/verified-resources.service.js';
import { deleteEndedReminders } from '../modules/workflows/workflow-reminders.repository.js';
import { deleteStripeEventsBefore } from '../modules/payments/payments.repository.js';
import { deleteFinishedJobs, refreshStatistics } from './jobs.repository.js';
import type { RecurringJob } from './runner.js';

/** The hourly job that deletes what has outlived its retention. */
export const HOUSEKEEPING: RecurringJob = { kind: 'housekeeping', everyMs: 3_600_000 };

const DAY_MS = 86_400_000;
/** Rows per delete statement: each batch is its own short statement, not one long lock over a backlog. */
const DELETE_BATCH = 5000;

async function deleteInBatches(deleteBatch: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch(DELETE_BATCH);
    total += deleted;
    if (deleted < DELETE_BATCH) return total;
  }
}

export interface HousekeepingResult {
  webhookDeliveries: number;
  /** Sent and failed mail, kept as long as webhook deliveries. */
  mailMessages: number;
  jobs: number;
  platformTokens: number;
  /** Third-party OAuth codes and refresh tokens, and web sessions. */
  oauthGrants: number;
  /** Web login failures older than the longest window of the login limits. */
  loginFailures: number;
  /** Mail-budget windows that are over. */
  mailBudgets: number;
  /** Sent and failed text messages, and workflow reminders sent, dropped or failed, kept as long as mail. */
  textMessages: number;
  workflowReminders: number;
  /** Verification codes past their use, and wrong codes that no longer count. */
  verificationCodes: number;
  /** Ids of Stripe events acted on more than 30 days ago (Stripe redelivers for three days). */
  stripeEvents: number;
}

/** Stripe redelivers an event for up to three days; its id is kept ten times that. */
const STRIPE_EVENT_KEPT_MS = 30 * DAY_MS;

/** An expired managed-user access token still answers 498 (not 401) for this long. */
const EXPIRED_ACCESS_TOKEN_KEPT_MS = DAY_MS;

/**
 * Deletes expired Idempotency-Keys, webhook deliveries and mail messages that ended more than
 * `webhookDeliveryRetentionDays` ago (with their attempt logs), jobs that finished more than
 * `retentionDays` ago, managed users' expired tokens, web login failures that no longer count, ended text
 * messages and workflow reminders (as mail), verification codes and wrong codes that no longer count, and
 * the ids of Stripe events acted on a month ago.
 * Pending work is never touched. With `refreshStatistics` (the embedded store), ANALYZEs the database.
 */
export async function runHousekeeping(
  db: Db,
  retention: Pick<JobsConfig, 'retentionDays' | 'webhookDeliveryRetentionDays'>,
  now: Date,
  options: { refreshStatistics?: boolean } = {},
): Promise<HousekeepingResult> {
  await cleanUpExpiredKeys(db, now);
  const deliveriesBefore = new Date(now.getTime() - retention.webhookDeliveryRetentionDays * DAY_MS);
  const jobsBefore = new Date(now.getTime() - retention.retentionDays * DAY_MS);
  const result = {
    webhookDeliveries: await deleteInBatches((limit) => deleteEndedDeliveries(db, deliveriesBefore, limit)),
    mailMessages: await deleteInBatches((limit) => deleteEndedMessages(db, deliveriesBefore, limit)),
    jobs: await deleteInBatches((limit) => deleteFinishedJobs(db, jobsBefore, limit)),
    platformTokens: await deleteInBatches((limit) => deleteExpiredTokens(db, new Date(now.getTime() - EXPIRED_ACCESS_TOKEN_KEPT_MS), now, limit)),
    // Used codes are kept a day past expiry, so a late replay is still recognised (and revokes).
    oauthGrants:
      (await deleteInBatches((limit) => deleteExpiredGrants(db, new Date(now.getTime() - DAY_MS), limit))) + (await deleteExpiredSessions(db, now)),
    loginFailures: await deleteInBatches((limit) => deleteExpiredLoginFailures(db, now, limit)),
    mailBudgets: await deleteEndedMailBudgets(db, now),
    textMessages: await deleteInBatches((limit) => deleteEndedTextMessages(db, deliveriesBefore, limit)),
    workflowReminders: await deleteInBatches((limit) => deleteEndedReminders(db, deliveriesBefore, limit)),
    verificationCodes:
      (await deleteInBatches((limit) => deleteExpiredVerificationCodes(db, now, limit))) + (await deleteInBatches((limit) => deleteExpiredVerificationFailures(db, now, limit))),
    stripeEvents: await deleteInBatches((limit) => deleteStripeEventsBefore(db, new Date(now.getTime() - STRIPE_EVENT_KEPT_MS), limit)),
  };
  // The embedded store runs no autovacuum: without this its planner never has statistics (a page's
  // lookups by id planned as scans, sorts of rows an index holds in order).
  if (options.refreshStatistics) await refreshStatistics(db);
  return result;
}
