import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { StringEnum } from '../../http/schema-types.js';

const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });

export const TeamParams = Type.Object({ orgId: Id, teamId: Id });

export const ConnectQuery = Type.Object({
  returnTo: Type.Optional(Type.String({ maxLength: 2048, description: 'Where the browser goes once the account is connected (an http(s) URL)' })),
  onErrorReturnTo: Type.Optional(Type.String({ maxLength: 2048, description: 'Where the browser goes when connecting fails or is refused (an http(s) URL)' })),
});

export const ConnectOutput = Envelope(Type.Object({ authUrl: Type.String({ description: "Stripe Connect's consent page (connect.stripe.com/oauth/authorize)" }) }));

export const SaveQuery = Type.Object({
  state: Type.Optional(Type.String({ maxLength: 8192 })),
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  error: Type.Optional(Type.String({ maxLength: 512 })),
  error_description: Type.Optional(Type.String({ maxLength: 4096 })),
  scope: Type.Optional(Type.String({ maxLength: 256 })),
});

/** The reference's bare bodies (contract 1.2): no envelope. */
export const SaveOutput = Type.Object({ url: Type.String({ description: "'' when the flow named no returnTo" }) });
export const CheckOutput = Type.Object({ status: Type.Literal('success') });

export const WebhookOutput = Type.Object({
  received: Type.Literal(true),
  outcome: StringEnum(['confirmed', 'refunding', 'released', 'deauthorized', 'ignored', 'duplicate'] as const, {
    description: 'confirmed: the booking was paid; refunding: money for a booking no longer waiting goes back; released: an expired page let its booking go; duplicate: an event already acted on',
  }),
});

/** svc: what a booking of a paid event type charges, on booking outputs. */
export const BookingPaymentOutput = Type.Object(
  {
    uid: Type.String(),
    status: StringEnum(['awaiting', 'paid', 'expired', 'cancelled', 'refunding', 'refunded'] as const, {
      description: 'awaiting: the booker still has to pay (the booking holds its time until expiresAt); expired: unpaid when the hold ended (the booking was released); cancelled: the booking ended before it was paid',
    }),
    amount: Type.Integer({ description: 'In minor units of currency (cents), as Stripe takes it' }),
    currency: Type.String({ description: 'Lowercase ISO 4217' }),
    paymentLink: Type.Union([Type.String(), Type.Null()], { description: "Stripe's payment page (Checkout), while awaiting" }),
    expiresAt: Type.Union([Type.String(), Type.Null()], { description: 'While awaiting: when the booking is released if still unpaid' }),
    paidAt: Type.Union([Type.String(), Type.Null()]),
    refundedAmount: Type.Union([Type.Integer(), Type.Null()]),
    refundedAt: Type.Union([Type.String(), Type.Null()]),
  },
  { description: 'svc: bookings of a paid event type only' },
);

/** svc: when an attendee's cancellation is refunded (a host's always is). */
export const RefundPolicyInput = Type.Object(
  {
    type: StringEnum(['never', 'always', 'days'] as const, { description: "never (the reference's default), always, or until `days` days before the start" }),
    days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, description: 'With type days: how many days before the start a cancellation still refunds' })),
    calendarDays: Type.Optional(Type.Boolean({ description: 'With type days: true (default) counts calendar days, false business days (Monday to Friday)' })),
  },
  { description: 'svc: when an attendee cancelling a paid booking is refunded; a cancellation or decline by the host always refunds' },
);

export const RefundPolicyOutput = Type.Object({
  type: StringEnum(['never', 'always', 'days'] as const),
  days: Type.Union([Type.Integer(), Type.Null()]),
  calendarDays: Type.Boolean(),
});
