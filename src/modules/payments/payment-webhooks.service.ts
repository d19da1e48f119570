// Stripe's events, as its Connect webhook endpoint posts them to svc: verified against the endpoint's
// signing secret (a forged or replayed-after-five-minutes event is refused), acted on once by event id
// (Stripe delivers at least once), each in one transaction with what it changes.
import type { AppContext } from '../../app/context.js';
import { StripeSignatureError, verifyStripeWebhook } from '../../integrations/stripe/client.js';
import { badRequest } from '../../lib/errors.js';
import * as repo from './payments.repository.js';
import { confirmPaidSession, releaseExpiredSession } from './payments.service.js';
import { requireStripe } from './stripe-connect.service.js';

export type StripeWebhookDeps = Pick<AppContext, 'database' | 'config' | 'changes' | 'bookingEvents' | 'clock'>;

/** What svc did with an event, in the answer (Stripe shows it in the endpoint's log). */
export type StripeEventOutcome = 'confirmed' | 'refunding' | 'released' | 'deauthorized' | 'ignored' | 'duplicate';

const stringOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** POST /v2/stripe/webhook: one event. */
export async function receiveStripeEvent(deps: StripeWebhookDeps, rawBody: string, signature: string | undefined): Promise<StripeEventOutcome> {
  const stripe = requireStripe(deps);
  let event: Awaited<ReturnType<typeof verifyStripeWebhook>>;
  try {
    event = await verifyStripeWebhook(stripe, rawBody, signature);
  } catch (error) {
    if (error instanceof StripeSignatureError) throw badRequest('stripe_signature_invalid', `Webhook refused: ${error.message}`);
    throw error;
  }
  const { object } = event;
  return deps.changes.transaction(deps.database, async (tx, announce): Promise<StripeEventOutcome> => {
    if (!(await repo.recordStripeEvent(tx, { id: event.id, type: event.type, account: event.account }))) return 'duplicate';
    const scope = { tx, listener: deps.bookingEvents, announce };
    const sessionId = stringOf(object.id);
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
        // A delayed method (a bank debit) completes unpaid and succeeds later with its own event.
        if (!sessionId || object.payment_status !== 'paid') return 'ignored';
        return confirmPaidSession(
          scope,
          {
            sessionId,
            paymentUid: stringOf((object.metadata as Record<string, unknown> | undefined)?.paymentUid),
            account: event.account,
            paymentIntentId: stringOf(object.payment_intent),
          },
          deps.clock(),
        );
      case 'checkout.session.expired':
        return sessionId && (await releaseExpiredSession(scope, sessionId)) ? 'released' : 'ignored';
      case 'account.application.deauthorized':
        if (!event.account) return 'ignored';
        await repo.markStripeAccountInvalid(tx, event.account);
        return 'deauthorized';
      default:
        return 'ignored';
    }
  });
}
