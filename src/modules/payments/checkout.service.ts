// A booking of a paid event type: Stripe's payment page is opened before the booking's transaction (no
// provider call runs inside one, or under the hosts' locks), the booking and its payment are written together,
// and a page the booking did not take is closed again.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../app/context.js';
import type { Db } from '../../db/client.js';
import { createCheckoutSession, StripeProviderError } from '../../integrations/stripe/client.js';
import { insertJob } from '../../jobs/jobs.repository.js';
import { conflict, unavailable } from '../../lib/errors.js';
import { owningTeamOf } from '../bookings/bookings.repository.js';
import type { EventTypeRow } from '../event-types/event-types.repository.js';
import * as repo from './payments.repository.js';
import { PAYMENT_EXPIRE_SESSION_JOB, PAYMENT_JOB_MAX_ATTEMPTS, PAYMENT_RELEASE_JOB } from './payments.repository.js';
import type { PaymentOwner } from './payments.repository.js';
import { requireStripe } from './stripe-connect.service.js';

/** Stripe keeps a Checkout Session open at least 30 minutes; a minute more so its clock and ours agree. */
const SHORTEST_SESSION_MS = 31 * 60_000;

/** A payment page opened for a booking about to be written. */
export interface PreparedPayment {
  uid: string;
  /** The booking's uid, chosen now: the page's return addresses name it. */
  bookingUid: string;
  eventTypeId: number;
  accountId: string;
  amount: number;
  currency: string;
  checkoutSessionId: string;
  checkoutUrl: string | null;
  holdUntil: Date;
}

/**
 * Whose connected account a booking of the event type pays into: a team's event type's team (a member's
 * copy of a managed one: the team's, as the price is), else its owner's.
 */
async function paymentOwnerOf(db: Db, eventType: Pick<EventTypeRow, 'id' | 'userId' | 'teamId' | 'parentId'>): Promise<PaymentOwner> {
  const teamId = await owningTeamOf(db, eventType);
  return teamId !== null ? { kind: 'team', teamId } : { kind: 'user', userId: eventType.userId! };
}

const notCreated = (why: string) => conflict('payment_not_created', `Payment could not be created: ${why}`);

/**
 * Opens Stripe's payment page for a booking of `eventType` (a paid one) on its owner's connected
 * account: the booker pays there, and the booking holds its time until `holdUntil`.
 */
export async function startCheckout(
  deps: Pick<AppContext, 'database' | 'config'>,
  eventType: Pick<EventTypeRow, 'id' | 'userId' | 'teamId' | 'parentId' | 'title' | 'price' | 'currency' | 'lengthInMinutes'>,
  booker: { email: string | undefined; name: string },
  now: number,
): Promise<PreparedPayment> {
  const stripe = deps.config.payments.stripe;
  if (!stripe) throw notCreated('this svc takes no payments (no Stripe platform account is configured)');
  const account = await repo.findStripeAccount(deps.database.db, await paymentOwnerOf(deps.database.db, eventType));
  if (!account || account.invalid) throw notCreated("the host's Stripe account is not connected");
  const uid = randomUUID();
  const bookingUid = randomUUID();
  const holdUntil = new Date(now + deps.config.payments.holdMs);
  const pageOf = (outcome: string) => `${deps.config.appUrl.replace(/\/+$/, '')}/booking/${bookingUid}?payment=${outcome}`;
  try {
    const session = await createCheckoutSession(requireStripe(deps), {
      accountId: account.accountId,
      amount: eventType.price,
      currency: eventType.currency,
      productName: eventType.title,
      description: `${eventType.lengthInMinutes} minutes`,
      ...(booker.email ? { customerEmail: booker.email } : {}),
      successUrl: pageOf('paid'),
      cancelUrl: pageOf('cancelled'),
      expiresAt: new Date(Math.max(holdUntil.getTime(), now + SHORTEST_SESSION_MS)),
      clientReferenceId: uid,
      metadata: { paymentUid: uid, bookingUid, eventTypeId: String(eventType.id) },
      idempotencyKey: `svc-checkout-${uid}`,
    });
    return { uid, bookingUid, eventTypeId: eventType.id, accountId: account.accountId, amount: eventType.price, currency: eventType.currency, checkoutSessionId: session.id, checkoutUrl: session.url, holdUntil };
  } catch (error) {
    if (!(error instanceof StripeProviderError)) throw error;
    if (error.kind === 'unavailable' || error.kind === 'rate_limited') throw unavailable('stripe_unavailable', `Payment could not be created: Stripe did not answer (${error.message}); try again`);
    throw notCreated(error.message);
  }
}

/**
 * In the booking's transaction: the payment written, and the job that releases the booking if it is
 * still unpaid when the hold ends. The event type must still charge what the page asks.
 */
export async function holdPayment(tx: Db, eventType: Pick<EventTypeRow, 'id' | 'price' | 'currency'>, prepared: PreparedPayment | undefined): Promise<repo.PaymentRow> {
  if (!prepared || prepared.eventTypeId !== eventType.id || prepared.amount !== eventType.price || prepared.currency !== eventType.currency) {
    throw notCreated("the event type's price changed while booking; try again");
  }
  const payment = await repo.insertPayment(tx, {
    uid: prepared.uid,
    accountId: prepared.accountId,
    amount: prepared.amount,
    currency: prepared.currency,
    status: 'awaiting',
    checkoutSessionId: prepared.checkoutSessionId,
    checkoutUrl: prepared.checkoutUrl,
    holdUntil: prepared.holdUntil,
  });
  await insertJob(tx, { kind: PAYMENT_RELEASE_JOB, payload: { paymentId: payment.id }, runAt: prepared.holdUntil, maxAttempts: PAYMENT_JOB_MAX_ATTEMPTS, dedupeKey: `${PAYMENT_RELEASE_JOB}:${payment.id}` });
  return payment;
}

/**
 * A payment page whose booking was not written (the time was taken meanwhile, a check failed): closed at
 * Stripe by a job, so nobody pays for nothing. Should someone pay first, the payment is refunded
 * (payment-webhooks.service.ts).
 */
export async function abandonCheckout(db: Db, prepared: PreparedPayment): Promise<void> {
  await insertJob(db, {
    kind: PAYMENT_EXPIRE_SESSION_JOB,
    payload: { accountId: prepared.accountId, sessionId: prepared.checkoutSessionId },
    maxAttempts: PAYMENT_JOB_MAX_ATTEMPTS,
    dedupeKey: `${PAYMENT_EXPIRE_SESSION_JOB}:${prepared.checkoutSessionId}`,
  });
}
