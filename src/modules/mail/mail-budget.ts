// The mail budget of callers without credentials. Guests are the amplifier of booking mail: one
// anonymous request names up to ten addresses, each told of the booking and of every later change.
// A request may always mail its booker once (the confirmation or notice of what they just did); every
// further message to anyone but the booking's hosts is charged to the caller's address and to the event
// type, per fixed window, in the database. What does not fit refuses the whole request: nothing is
// booked whose guests would not be told.
import type { MailLimits } from '../../app/config.js';
import type { Db } from '../../db/client.js';
import { sha256Hex } from '../../lib/crypto.js';
import { DomainError } from '../../lib/errors.js';
import { addToMailBudget } from './mail-budget.repository.js';

/** Messages one request queued to people other than the hosts, by event type (null: the event type is gone). */
export interface OutsideMailTally {
  byEventType: Map<number | null, { toBooker: number; toGuests: number }>;
}

export const newOutsideMailTally = (): OutsideMailTally => ({ byEventType: new Map() });

export function tallyOutsideMail(tally: OutsideMailTally, eventTypeId: number | null, messages: { toBooker: number; toGuests: number }): void {
  const counted = tally.byEventType.get(eventTypeId) ?? { toBooker: 0, toGuests: 0 };
  tally.byEventType.set(eventTypeId, { toBooker: counted.toBooker + messages.toBooker, toGuests: counted.toGuests + messages.toGuests });
}

/** Charged messages by event type: all of them but the request's first to its booker. */
function chargedMessages(tally: OutsideMailTally): Map<number | null, number> {
  const charged = new Map<number | null, number>();
  let free = 1;
  for (const [eventTypeId, { toBooker, toGuests }] of tally.byEventType) {
    const waived = Math.min(free, toBooker);
    free -= waived;
    charged.set(eventTypeId, toBooker - waived + toGuests);
  }
  return charged;
}

/** A request without credentials, and what it does: a cancellation is never refused for an event type's budget. */
export interface AnonymousMailPayer {
  ip: string;
  now: number;
  limits: MailLimits;
  cancellation: boolean;
}

function mailLimitReached(limit: number, whose: string, limits: MailLimits, retryAfterSeconds: number, needed: number): DomainError {
  const minutes = Math.round(limits.windowMs / 60_000);
  const message =
    `This request would send ${needed} messages besides the booker's own, more than svc allows ${whose}: ${limit} every ${minutes} minutes ` +
    `to people other than the hosts, for requests without credentials. Try again in ${retryAfterSeconds} seconds, with fewer guests, or with credentials.`;
  return new DomainError('too_many_requests', 'mail_limit_reached', message, {
    errors: [{ property: 'guests', value: needed, constraints: { guests: message } }],
    retryAfterSeconds,
  });
}

/**
 * Charges what a request without credentials queued (its `tally`) to its address and to each event type,
 * in the request's transaction; throws a 429 naming `guests`, which rolls the request back, when it
 * does not fit. The address is counted first, then event types in id order (one lock order for all).
 */
export async function chargeAnonymousMail(tx: Db, tally: OutsideMailTally, payer: AnonymousMailPayer): Promise<void> {
  const charged = chargedMessages(tally);
  const total = [...charged.values()].reduce((sum, count) => sum + count, 0);
  if (total === 0) return;
  const { limits, now } = payer;
  const windowEndsAt = (Math.floor(now / limits.windowMs) + 1) * limits.windowMs;
  const retryAfterSeconds = Math.max(1, Math.ceil((windowEndsAt - now) / 1000));
  if (!(await addToMailBudget(tx, `ip:${sha256Hex(payer.ip)}`, new Date(windowEndsAt), total, limits.anonymous))) {
    throw mailLimitReached(limits.anonymous, 'one address', limits, retryAfterSeconds, total);
  }
  const eventTypes = [...charged].filter((entry): entry is [number, number] => entry[0] !== null && entry[1] > 0).sort(([a], [b]) => a - b);
  for (const [eventTypeId, count] of eventTypes) {
    const limit = payer.cancellation ? null : limits.eventType;
    if (!(await addToMailBudget(tx, `event-type:${eventTypeId}`, new Date(windowEndsAt), count, limit))) {
      throw mailLimitReached(limits.eventType, 'one event type', limits, retryAfterSeconds, count);
    }
  }
}
