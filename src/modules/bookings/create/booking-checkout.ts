// A paid event type's booking opens Stripe's payment page before its transaction (Stripe is never called
// inside one): the event type is read here as the booking will read it, through the same cache.
import type { AppContext } from '../../../app/context.js';
import { DomainError } from '../../../lib/errors.js';
import { findEventTypeById } from '../../event-types/event-types.repository.js';
import { findUsableLink } from '../../event-types/private-links.service.js';
import { type PreparedPayment, startCheckout } from '../../payments/checkout.service.js';
import { bookableEventType } from './booking-profile.js';
import type { CreateBookingInput } from './booking-create.service.js';

/**
 * The payment page of the booking `input` asks for, or null when its event type is free. An event type
 * this read cannot find is left to the booking's transaction: it answers why (or, for a replayed
 * Idempotency-Key, the first answer).
 */
export async function openBookingCheckout(ctx: Pick<AppContext, 'database' | 'config' | 'availability' | 'clock'>, input: CreateBookingInput): Promise<PreparedPayment | null> {
  const { db } = ctx.database;
  const eventType = await (async () => {
    if (input.target) return (await bookableEventType(db, input.target, ctx.availability)).eventType;
    if (input.privateLinkId !== undefined) return findEventTypeById(db, (await findUsableLink(db, input.privateLinkId, ctx.clock())).eventTypeId);
    return undefined;
  })().catch((error: unknown) => {
    if (error instanceof DomainError) return undefined;
    throw error;
  });
  if (!eventType || eventType.price <= 0) return null;
  return startCheckout(ctx, eventType, { email: input.attendee.email, name: input.attendee.name }, ctx.clock());
}
