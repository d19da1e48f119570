// Payment work done by jobs: the end of an unpaid booking's hold, closing Stripe's payment page, refunds.
// Stripe is called here, after the transaction that decided it committed, and again on a retry.
import { ChangeFeed } from '../../db/change-feed.js';
import type { Database } from '../../db/client.js';
import { createRefund, expireCheckoutSession, retrieveCheckoutSession, type StripeConfig, StripeProviderError } from '../../integrations/stripe/client.js';
import { type JobHandler, JobRetry } from '../../jobs/runner.js';
import type { InfoLog } from '../mail/mail-transport.js';
import type { BookingEventListener } from '../bookings/booking-events.js';
import * as repo from './payments.repository.js';
import { confirmPaidSession, releaseUnpaid } from './payments.service.js';

export interface PaymentJobDeps {
  database: Database;
  stripe: StripeConfig | null;
  listener: BookingEventListener;
  /** The process's change feed (`svc serve`); a worker announces through a feed of its own. */
  changes?: ChangeFeed | undefined;
  log?: InfoLog | undefined;
}

/** A Stripe failure worth trying again: thrown for the runner's backoff (or Stripe's Retry-After). */
function retryLater(what: string, error: StripeProviderError): never {
  if (error.retryAfterMs !== undefined) throw new JobRetry(`${what}: ${error.message}`, error.retryAfterMs);
  throw new Error(`${what}: ${error.message}`);
}

/**
 * `payment.release` at the end of the hold: an unpaid booking lets its time go. Stripe is asked first: a
 * page paid in time whose event has not arrived yet (Stripe retries late ones for days) confirms the
 * booking instead; when Stripe does not answer, the hold ends all the same (a payment arriving later is
 * refunded).
 */
export function createReleaseHandler(deps: PaymentJobDeps): JobHandler {
  const changes = deps.changes ?? new ChangeFeed();
  return async (payload: { paymentId: number }) => {
    const payment = await repo.findPayment(deps.database.db, payload.paymentId);
    if (!payment || payment.status !== 'awaiting') return;
    const session = deps.stripe ? await retrieveCheckoutSession(deps.stripe, payment.accountId, payment.checkoutSessionId).catch(() => null) : null;
    await changes.transaction(deps.database, async (tx, announce) => {
      const scope = { tx, listener: deps.listener, announce };
      if (session?.paymentStatus !== 'paid') return void (await releaseUnpaid(scope, payment.id, { closePage: true }));
      const paid = { sessionId: payment.checkoutSessionId, paymentUid: payment.uid, account: payment.accountId, paymentIntentId: session.paymentIntentId };
      await confirmPaidSession(scope, paid, Date.now());
    });
  };
}

/** `payment.expire-session`: Stripe's page of a released, cancelled or never-booked payment closed, so nobody pays it. */
export function createExpireSessionHandler(deps: PaymentJobDeps): JobHandler {
  return async (payload: { accountId: string; sessionId: string }) => {
    if (!deps.stripe) return;
    try {
      await expireCheckoutSession(deps.stripe, payload.accountId, payload.sessionId);
    } catch (error) {
      if (!(error instanceof StripeProviderError) || !error.permanent) throw error instanceof StripeProviderError ? retryLater(`closing ${payload.sessionId}`, error) : error;
      deps.log?.info({ sessionId: payload.sessionId, error: error.message }, 'payment page not closed; Stripe refused');
    }
  };
}

type RefundPayload = { paymentId: number } | { accountId: string; paymentIntentId: string };

/**
 * `payment.refund`: the whole payment back to the booker. A payment svc knows is marked refunded; one
 * for a page no booking took (`accountId`, `paymentIntentId`) is only refunded. Stripe refusing for good
 * (already refunded in its dashboard, say) ends the job: the refusal is logged and a known payment marked.
 */
export function createRefundHandler(deps: PaymentJobDeps): JobHandler {
  return async (payload: RefundPayload, job) => {
    if (!deps.stripe) return;
    const payment = 'paymentId' in payload ? await repo.findPayment(deps.database.db, payload.paymentId) : null;
    if (payment && payment.status !== 'refunding') return;
    const accountId = payment?.accountId ?? ('accountId' in payload ? payload.accountId : null);
    const paymentIntentId = payment ? payment.paymentIntentId : 'paymentIntentId' in payload ? payload.paymentIntentId : null;
    if (!accountId || !paymentIntentId) {
      deps.log?.info({ payload }, 'refund not possible: no payment intent known');
      return;
    }
    try {
      const refund = await createRefund(deps.stripe, {
        accountId,
        paymentIntentId,
        // Stripe keeps an answer per key, a 500 included, for a day: each attempt has its own key. A whole
        // payment cannot be refunded twice (the second answers charge_already_refunded).
        idempotencyKey: `svc-refund-${paymentIntentId}-${job.attempts}`,
        metadata: payment ? { paymentUid: payment.uid } : { reason: 'no booking took this payment' },
      });
      if (payment) await repo.updatePayment(deps.database.db, payment.id, { status: 'refunded', refundId: refund.id, refundedAmount: refund.amount, refundedAt: new Date() });
    } catch (error) {
      if (!(error instanceof StripeProviderError)) throw error;
      const alreadyRefunded = error.code === 'charge_already_refunded';
      if (!error.permanent && job.attempts < job.maxAttempts) retryLater(`refunding ${paymentIntentId}`, error);
      if (payment && alreadyRefunded) await repo.updatePayment(deps.database.db, payment.id, { status: 'refunded', refundedAt: new Date() });
      deps.log?.info({ paymentIntentId, error: error.message, alreadyRefunded }, 'refund not made');
    }
  };
}
