// What makes an event type paid: a price in a currency Stripe takes, a refund policy, and a connected
// Stripe account of its owner (a user, or for a team's event type the team) to pay into.
import type { Static } from 'typebox';
import type { Db } from '../../db/client.js';
import { fieldRejected, invalidField } from '../../lib/errors.js';
import type { StoredRefundPolicy } from '../event-types/event-type-model.js';
import { checkPrice } from './currencies.js';
import type { RefundPolicyInput } from './payments.schemas.js';
import { findStripeAccount, type PaymentOwner } from './payments.repository.js';

export function parseRefundPolicy(input: Static<typeof RefundPolicyInput> | null): StoredRefundPolicy | null {
  if (input === null) return null;
  if (input.type !== 'days') return { kind: input.type, days: null, calendarDays: true };
  if (input.days === undefined) throw invalidField('refundPolicy.days', 'is required with type days');
  return { kind: 'days', days: input.days, calendarDays: input.calendarDays ?? true };
}

export const presentRefundPolicy = (policy: StoredRefundPolicy | null) => {
  const stored = policy ?? { kind: 'never' as const, days: null, calendarDays: true };
  return { type: stored.kind, days: stored.days, calendarDays: stored.calendarDays };
};

/**
 * An event type's price as it stands after a write: an amount Stripe can charge in its currency, and
 * nothing a single payment per booking cannot cover (seats and recurring series would need one per
 * seat or occurrence: not supported). `sent` names the fields the request set, so the error names one.
 */
export function assertPriceRules(state: { price: number; currency: string; seatsPerTimeSlot: number | null; recurrence: unknown }, sent: ReadonlySet<string>): void {
  const check = checkPrice(state.price, state.currency);
  // Its messages are whole sentences naming the field.
  if (!check.ok) throw fieldRejected(check.field, 'validation_failed', check.message, check.field === 'price' ? state.price : state.currency);
  if (state.price === 0) return;
  const field = sent.has('price') ? 'price' : sent.has('seats') ? 'seats' : 'recurrence';
  if (state.seatsPerTimeSlot !== null) throw fieldRejected(field, 'paid_event_type_unsupported', 'A paid event type cannot have seats: svc takes one payment per booking.', state.price);
  if (state.recurrence) throw fieldRejected(field, 'paid_event_type_unsupported', 'A paid event type cannot be recurring: svc takes one payment per booking.', state.price);
}

/** A price above 0 needs the owner's Stripe account, connected and not disconnected since (400 naming `price`). */
export async function assertCanCharge(db: Db, owner: PaymentOwner, price: number | undefined): Promise<void> {
  if (price === undefined || price === 0) return;
  const account = await findStripeAccount(db, owner);
  if (account && !account.invalid) return;
  const route = owner.kind === 'user' ? 'GET /v2/stripe/connect' : `GET /v2/organizations/{orgId}/teams/${owner.teamId}/stripe/connect`;
  const whose = owner.kind === 'user' ? 'your' : "the team's";
  throw fieldRejected('price', 'stripe_not_connected', `A paid event type needs ${whose} Stripe account: connect one first (${route}).`, price);
}
