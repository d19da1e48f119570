// Payments: the Stripe accounts hosts and teams connect, what bookings of paid event types charge, and the
// Stripe events already acted on.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';
import { teams } from './teams.js';
import { users } from './users.js';

/**
 * A Stripe account connected through Stripe Connect (OAuth) by a user, or for an organization's team
 * (exactly one of the two). Bookers pay into it: svc charges on it with the platform's key.
 */
export const stripeAccounts = pgTable(
  'stripe_accounts',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    teamId: integer('team_id').references(() => teams.id, { onDelete: 'cascade' }),
    /** Stripe's id of the connected account (acct_...). */
    accountId: text('account_id').notNull(),
    /** JSON of the OAuth answer's tokens, sealed with the process's secret box; never returned. */
    credentialsSealed: text('credentials_sealed').notNull(),
    defaultCurrency: text('default_currency'),
    livemode: boolean('livemode').notNull().default(false),
    /** The account took svc's access back (deauthorized): its owner must connect again. */
    invalid: boolean('invalid').notNull().default(false),
    /** Who connected it (a team's admin). */
    connectedByUserId: integer('connected_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('stripe_accounts_user_id_key').on(t.userId).where(sql`${t.userId} is not null`),
    uniqueIndex('stripe_accounts_team_id_key').on(t.teamId).where(sql`${t.teamId} is not null`),
    index('stripe_accounts_account_id_idx').on(t.accountId),
    check('stripe_accounts_one_owner_check', sql`(${t.userId} is null) <> (${t.teamId} is null)`),
  ],
);

/**
 * awaiting: the booker has the payment page, the booking holds its time until `hold_until`;
 * paid; expired: the hold ran out unpaid (the booking was released); cancelled: the booking was
 * cancelled or declined before it was paid; refunding: a refund is queued; refunded.
 */
export type PaymentStatus = 'awaiting' | 'paid' | 'expired' | 'cancelled' | 'refunding' | 'refunded';

/**
 * What a booking of a paid event type charges: a Stripe Checkout Session on the host's (or team's)
 * connected account. Bookings point at it (`bookings.payment_id`); a rescheduled booking's successor
 * points at the same payment, so the newest booking naming it is the one it pays for.
 */
export const payments = pgTable(
  'payments',
  {
    id: serial('id').primaryKey(),
    uid: text('uid').notNull(),
    /** The connected account charged (acct_...). */
    accountId: text('account_id').notNull(),
    /** Minor units of `currency` (cents), as Stripe takes them. */
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status').$type<PaymentStatus>().notNull(),
    checkoutSessionId: text('checkout_session_id').notNull(),
    /** Stripe's payment page, while the session is open. */
    checkoutUrl: text('checkout_url'),
    /** Known once paid (the refund names it). */
    paymentIntentId: text('payment_intent_id'),
    /** Until when an unpaid booking holds its time. */
    holdUntil: timestamp('hold_until', { withTimezone: true }).notNull(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    refundId: text('refund_id'),
    refundedAmount: integer('refunded_amount'),
    refundedAt: timestamp('refunded_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('payments_uid_key').on(t.uid),
    uniqueIndex('payments_checkout_session_id_key').on(t.checkoutSessionId),
    check('payments_status_check', sql`${t.status} in ('awaiting', 'paid', 'expired', 'cancelled', 'refunding', 'refunded')`),
  ],
);

/**
 * Stripe events already acted on, by id: Stripe delivers at least once (and retries for days), so an
 * event seen again changes nothing. Kept for 30 days (housekeeping).
 */
export const stripeEvents = pgTable(
  'stripe_events',
  {
    id: text('id').primaryKey(),
    type: text('type').notNull(),
    account: text('account'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('stripe_events_received_at_idx').on(t.receivedAt)],
);
