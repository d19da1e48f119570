import { and, desc, eq, inArray, lt, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { attemptsSpanning } from '../../jobs/runner.js';
import { bookings, eventTypes, type PaymentStatus, payments, stripeAccounts, stripeEvents } from '../../db/schema.js';

export const PAYMENT_RELEASE_JOB = 'payment.release';
export const PAYMENT_EXPIRE_SESSION_JOB = 'payment.expire-session';
export const PAYMENT_REFUND_JOB = 'payment.refund';
/** Closing a page is tried for a day; a refund for three (Stripe outages are rarely longer). */
export const PAYMENT_JOB_MAX_ATTEMPTS = attemptsSpanning(24 * 3_600_000);
export const PAYMENT_REFUND_MAX_ATTEMPTS = attemptsSpanning(3 * 24 * 3_600_000);

export type StripeAccountRow = typeof stripeAccounts.$inferSelect;
export type PaymentRow = typeof payments.$inferSelect;
export type NewPayment = typeof payments.$inferInsert;

/** Whose Stripe account: a user's (their event types), or an organization team's (the team's event types). */
export type PaymentOwner = { kind: 'user'; userId: number } | { kind: 'team'; teamId: number };

const ownedBy = (owner: PaymentOwner): SQL => (owner.kind === 'user' ? eq(stripeAccounts.userId, owner.userId) : eq(stripeAccounts.teamId, owner.teamId));

export async function findStripeAccount(db: Db, owner: PaymentOwner): Promise<StripeAccountRow | undefined> {
  const [row] = await db.select().from(stripeAccounts).where(ownedBy(owner));
  return row;
}

/** Connects the account for the owner, replacing the one connected before (a new consent renews it). */
export async function saveStripeAccount(
  db: Db,
  owner: PaymentOwner,
  account: { accountId: string; credentialsSealed: string; defaultCurrency: string | null; livemode: boolean; connectedByUserId: number },
): Promise<StripeAccountRow> {
  await db.delete(stripeAccounts).where(ownedBy(owner));
  const ownerColumns = owner.kind === 'user' ? { userId: owner.userId } : { teamId: owner.teamId };
  const [row] = await db.insert(stripeAccounts).values({ ...account, ...ownerColumns }).returning();
  return row!;
}

/** An account that took svc's access back: whoever connected it must connect again. */
export async function markStripeAccountInvalid(db: Db, accountId: string): Promise<void> {
  await db.update(stripeAccounts).set({ invalid: true, updatedAt: sql`now()` }).where(eq(stripeAccounts.accountId, accountId));
}

export async function insertPayment(db: Db, payment: NewPayment): Promise<PaymentRow> {
  const [row] = await db.insert(payments).values(payment).returning();
  return row!;
}

export async function findPaymentBySession(db: Db, checkoutSessionId: string): Promise<PaymentRow | undefined> {
  const [row] = await db.select().from(payments).where(eq(payments.checkoutSessionId, checkoutSessionId));
  return row;
}

export async function lockPayment(db: Db, id: number): Promise<PaymentRow | undefined> {
  const [row] = await db.select().from(payments).where(eq(payments.id, id)).for('update');
  return row;
}

export async function findPayment(db: Db, id: number): Promise<PaymentRow | undefined> {
  const [row] = await db.select().from(payments).where(eq(payments.id, id));
  return row;
}

export async function updatePayment(
  db: Db,
  id: number,
  patch: Partial<Pick<PaymentRow, 'status' | 'checkoutUrl' | 'paymentIntentId' | 'paidAt' | 'refundId' | 'refundedAmount' | 'refundedAt'>> & { status?: PaymentStatus },
): Promise<PaymentRow> {
  const [row] = await db.update(payments).set({ ...patch, updatedAt: sql`now()` }).where(eq(payments.id, id)).returning();
  return row!;
}

/**
 * The booking a Checkout Session's payment is for, locked, with its event type's confirmation policy (one
 * statement: a paid booking's confirmation is the webhook's whole work); then lock the payment.
 */
export async function lockBookingOfSession(db: Db, checkoutSessionId: string) {
  const [row] = await db
    .select({ booking: bookings, confirmationPolicy: eventTypes.confirmationPolicy })
    .from(bookings)
    .leftJoin(eventTypes, eq(eventTypes.id, bookings.eventTypeId))
    .where(eq(bookings.paymentId, sql`(select ${payments.id} from ${payments} where ${payments.checkoutSessionId} = ${checkoutSessionId})`))
    .orderBy(desc(bookings.id))
    .limit(1)
    .for('update', { of: bookings });
  return row;
}

/** The session's payment marked paid if it still awaits payment on `accountId` (the update locks it); undefined otherwise. */
export async function markSessionPaid(db: Db, checkoutSessionId: string, accountId: string | null, paid: { paymentIntentId: string | null; at: Date }): Promise<PaymentRow | undefined> {
  if (accountId === null) return undefined;
  const [row] = await db
    .update(payments)
    .set({ status: 'paid', paymentIntentId: paid.paymentIntentId, paidAt: paid.at, checkoutUrl: null, updatedAt: sql`now()` })
    .where(and(eq(payments.checkoutSessionId, checkoutSessionId), eq(payments.accountId, accountId), eq(payments.status, 'awaiting')))
    .returning();
  return row;
}

export async function lockPaymentBySession(db: Db, checkoutSessionId: string): Promise<PaymentRow | undefined> {
  const [row] = await db.select().from(payments).where(eq(payments.checkoutSessionId, checkoutSessionId)).for('update');
  return row;
}

/** The booking a payment is for (a rescheduled booking's successor names the same payment), locked. */
export async function lockBookingOfPayment(db: Db, paymentId: number): Promise<typeof bookings.$inferSelect | undefined> {
  const [row] = await db.select().from(bookings).where(eq(bookings.paymentId, paymentId)).orderBy(desc(bookings.id)).limit(1).for('update');
  return row;
}

/** Records a Stripe event as acted on; false when it was already (a redelivery). */
export async function recordStripeEvent(db: Db, event: { id: string; type: string; account: string | null }): Promise<boolean> {
  const inserted = await db.insert(stripeEvents).values(event).onConflictDoNothing({ target: stripeEvents.id }).returning({ id: stripeEvents.id });
  return inserted.length > 0;
}

/** Housekeeping: Stripe redelivers for up to three days; ids older than `before` are no longer needed. */
export async function deleteStripeEventsBefore(db: Db, before: Date, limit: number): Promise<number> {
  const deleted = await db
    .delete(stripeEvents)
    .where(inArray(stripeEvents.id, db.select({ id: stripeEvents.id }).from(stripeEvents).where(lt(stripeEvents.receivedAt, before)).limit(limit)))
    .returning({ id: stripeEvents.id });
  return deleted.length;
}
