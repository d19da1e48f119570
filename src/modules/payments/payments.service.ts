// What a payment does to its booking (paid: confirmed; not paid in time: released) and what a booking's end
// does to its payment (an open page closed, a paid one refunded as the event type's policy says). Every
// change locks the booking before its payment, in the order cancellations do, so the two never wait on
// each other the other way round.
import type { ChangeEvent } from '../../db/change-feed.js';
import type { Db } from '../../db/client.js';
import { insertJob } from '../../jobs/jobs.repository.js';
import { type BookingEventListener, recordBookingEvent } from '../bookings/booking-events.js';
import { needsConfirmation } from '../bookings/create/booking-request-rules.js';
import { listHostIdsOfBookings } from '../bookings/hosts/booking-hosts.repository.js';
import * as bookingsRepo from '../bookings/bookings.repository.js';
import type { BookingRecord, BookingRow } from '../bookings/bookings.repository.js';
import { deferUntilMeeting, needsProviderMeeting } from '../conferencing/booking-meetings.service.js';
import type { ConfirmationPolicy } from '../event-types/event-type-model.js';
import { findEventTypeById } from '../event-types/event-types.repository.js';
import * as repo from './payments.repository.js';
import { PAYMENT_EXPIRE_SESSION_JOB, PAYMENT_JOB_MAX_ATTEMPTS, PAYMENT_REFUND_JOB, PAYMENT_REFUND_MAX_ATTEMPTS } from './payments.repository.js';
import type { PaymentRow } from './payments.repository.js';
import { type RefundPolicy, refundOnCancel } from './refund-policy.js';

/** A booking change's transaction and who hears of it. */
export interface PaymentScope {
  tx: Db;
  listener: BookingEventListener;
  announce: (event: ChangeEvent) => Promise<void>;
}

const NO_REFUNDS: RefundPolicy = { kind: 'never', days: null, calendarDays: true };
/** Why a booking nobody paid for was let go, as its cancellation reason. */
export const UNPAID_RELEASE_REASON = 'Not paid in time: the booking was released';

async function queueExpireSession(tx: Db, payment: Pick<PaymentRow, 'accountId' | 'checkoutSessionId'>): Promise<void> {
  await insertJob(tx, {
    kind: PAYMENT_EXPIRE_SESSION_JOB,
    payload: { accountId: payment.accountId, sessionId: payment.checkoutSessionId },
    maxAttempts: PAYMENT_JOB_MAX_ATTEMPTS,
    dedupeKey: `${PAYMENT_EXPIRE_SESSION_JOB}:${payment.checkoutSessionId}`,
  });
}

/** The refund of a whole payment, by a job (Stripe is not called inside a transaction); `paid`: a payment that just arrived. */
async function queueRefund(tx: Db, payment: PaymentRow, paid?: { paymentIntentId: string | null; at: Date }): Promise<void> {
  const arrived = paid ? { paidAt: paid.at, ...(paid.paymentIntentId ? { paymentIntentId: paid.paymentIntentId } : {}) } : {};
  await repo.updatePayment(tx, payment.id, { status: 'refunding', checkoutUrl: null, ...arrived });
  await insertJob(tx, { kind: PAYMENT_REFUND_JOB, payload: { paymentId: payment.id }, maxAttempts: PAYMENT_REFUND_MAX_ATTEMPTS, dedupeKey: `${PAYMENT_REFUND_JOB}:${payment.id}` });
}

/**
 * In the transaction that cancels or declines a booking (already locked): an unpaid payment's page is
 * closed; a paid one is refunded when the host's side ended it, or as the event type's refund policy
 * says when the attendee did.
 */
export async function settleOnClose(tx: Db, record: BookingRecord, closedBy: 'host' | 'attendee', now: number): Promise<void> {
  const { booking } = record;
  if (booking.paymentId === null) return;
  const payment = await repo.lockPayment(tx, booking.paymentId);
  if (!payment) return;
  if (payment.status === 'awaiting') {
    await repo.updatePayment(tx, payment.id, { status: 'cancelled', checkoutUrl: null });
    await queueExpireSession(tx, payment);
    return;
  }
  if (payment.status !== 'paid') return;
  const eventType = booking.eventTypeId === null ? undefined : await findEventTypeById(tx, booking.eventTypeId);
  const decision = refundOnCancel({ policy: eventType?.refundPolicy ?? NO_REFUNDS, start: booking.startAt, timeZone: record.host.timeZone, cancelledAt: new Date(now), cancelledBy: closedBy });
  if (decision.refund) await queueRefund(tx, payment);
}

/** Whether a booking still waits for its payment (it cannot be confirmed or moved until paid). */
export async function awaitsPayment(tx: Db, booking: Pick<BookingRow, 'paymentId'>): Promise<boolean> {
  if (booking.paymentId === null) return false;
  return (await repo.findPayment(tx, booking.paymentId))?.status === 'awaiting';
}

async function announceHostsOf(scope: PaymentScope, booking: BookingRow): Promise<void> {
  const coHosts = await listHostIdsOfBookings(scope.tx, [booking.id]);
  for (const userId of new Set([booking.userId, ...coHosts])) await scope.announce({ kind: 'busyTime', userId });
}


export interface PaidSession {
  sessionId: string;
  /** The payment uid svc put in the session's metadata: null for a session svc did not open. */
  paymentUid: string | null;
  /** The connected account the event came from. */
  account: string | null;
  paymentIntentId: string | null;
}

/**
 * Stripe says a Checkout Session was paid. Its booking, still waiting, is confirmed (BOOKING_PAID,
 * then BOOKING_CREATED with its mail, meeting and reminders; BOOKING_REQUESTED when the host must still
 * confirm it). Money for anything else of svc's (a booking released or cancelled meanwhile, a page no
 * booking took) goes back; a page svc did not open is not its business.
 */
export async function confirmPaidSession(scope: PaymentScope, session: PaidSession, now: number): Promise<'confirmed' | 'refunding' | 'ignored'> {
  const { tx } = scope;
  const held = await repo.lockBookingOfSession(tx, session.sessionId);
  // The common case in one statement: the booking waits, its payment is marked paid (and locked by that).
  const paid = held?.booking.status === 'pending' ? await repo.markSessionPaid(tx, session.sessionId, session.account, { paymentIntentId: session.paymentIntentId, at: new Date(now) }) : undefined;
  if (paid) return confirmBooking(scope, held!.booking, held!.confirmationPolicy, paid);
  const payment = await repo.lockPaymentBySession(tx, session.sessionId);
  if (!payment || payment.accountId !== session.account) {
    // A Connect endpoint hears of every payment of the connected accounts: only svc's own pages are its business.
    if (!session.paymentUid || !session.paymentIntentId || !session.account) return 'ignored';
    await insertJob(tx, {
      kind: PAYMENT_REFUND_JOB,
      payload: { accountId: session.account, paymentIntentId: session.paymentIntentId },
      maxAttempts: PAYMENT_REFUND_MAX_ATTEMPTS,
      dedupeKey: `${PAYMENT_REFUND_JOB}:${session.paymentIntentId}`,
    });
    return 'refunding';
  }
  if (payment.status === 'paid' || payment.status === 'refunding' || payment.status === 'refunded') return 'ignored';
  // Paid too late: the booking was released, cancelled or declined meanwhile.
  await queueRefund(tx, payment, { paymentIntentId: session.paymentIntentId, at: new Date(now) });
  return 'refunding';
}

/** A booking whose payment just arrived: BOOKING_PAID, then its confirmation (or the host's request). */
async function confirmBooking(scope: PaymentScope, booking: BookingRow, confirmationPolicy: ConfirmationPolicy | null, paid: PaymentRow): Promise<'confirmed'> {
  const { tx } = scope;
  // Whether the host must confirm was decided by the notice the booking gave when it was made.
  const waitsForHost = needsConfirmation(confirmationPolicy, booking.startAt.getTime(), booking.createdAt.getTime());
  // Nothing to announce: held for its payment, the booking already took its time as an accepted one does.
  const updated = waitsForHost ? booking : await bookingsRepo.updateBooking(tx, booking.id, { status: 'accepted' });
  const [record] = await bookingsRepo.loadRecords(tx, [updated]);
  const paymentData = { uid: paid.uid, amount: paid.amount, currency: paid.currency, paidAt: paid.paidAt!.toISOString() };
  await recordBookingEvent(scope, 'BOOKING_PAID', record!, { paymentId: paid.id, paymentData }, [], { silent: true });
  const trigger = waitsForHost ? 'BOOKING_REQUESTED' : 'BOOKING_CREATED';
  if (needsProviderMeeting(updated.location)) await deferUntilMeeting(tx, record!, { trigger, extra: {} }, null);
  else await recordBookingEvent(scope, trigger, record!);
  return 'confirmed';
}

/**
 * A booking still unpaid when its hold ended (or whose page Stripe expired): released, its page closed.
 * BOOKING_CANCELLED tells its subscribers; nobody is mailed (nobody was told of it).
 */
export async function releaseUnpaid(scope: PaymentScope, paymentId: number, options: { closePage: boolean }): Promise<boolean> {
  const { tx } = scope;
  const booking = await repo.lockBookingOfPayment(tx, paymentId);
  const payment = await repo.lockPayment(tx, paymentId);
  if (!payment || payment.status !== 'awaiting') return false;
  await repo.updatePayment(tx, payment.id, { status: 'expired', checkoutUrl: null });
  if (options.closePage) await queueExpireSession(tx, payment);
  if (!booking || booking.status !== 'pending') return true;
  const released = await bookingsRepo.updateBooking(tx, booking.id, { status: 'cancelled', cancellationReason: UNPAID_RELEASE_REASON });
  await announceHostsOf(scope, released);
  const [record] = await bookingsRepo.loadRecords(tx, [released]);
  await recordBookingEvent(scope, 'BOOKING_CANCELLED', record!, { cancellationReason: UNPAID_RELEASE_REASON }, [], { silent: true });
  return true;
}

/** A session Stripe expired: its booking, if still unpaid, is released now rather than at the hold's end. */
export async function releaseExpiredSession(scope: PaymentScope, sessionId: string): Promise<boolean> {
  const found = await repo.findPaymentBySession(scope.tx, sessionId);
  return found ? releaseUnpaid(scope, found.id, { closePage: false }) : false;
}
