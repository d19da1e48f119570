import { Type } from 'typebox';
import { TakeSkipQuery } from '../../http/pagination.js';
import { StringEnum } from '../../http/schema-types.js';
import { DEFAULT_NO_SHOW_DELAY, NO_SHOW_TIME_UNITS, TRIGGERS_BY_LEVEL, WEBHOOK_TRIGGERS, WEBHOOK_VERSIONS, type WebhookLevel } from './webhook-triggers.js';

const INT4_MAX = 2147483647;
const Id = (description: string) => Type.Integer({ minimum: 1, maximum: INT4_MAX, description });

const PAYLOAD_TEMPLATE_EXAMPLE = JSON.stringify({
  content: 'A new event has been scheduled',
  type: '{{type}}',
  name: '{{title}}',
  organizer: '{{organizer.name}}',
  booker: '{{attendees.0.name}}',
});

const SubscriberUrl = Type.String({
  description: 'http(s) URL that receives the notifications; loopback, private and link-local addresses are refused. One subscription per URL and owner.',
});
const Active = Type.Boolean({ description: 'false: nothing is sent until it is set true again' });
const Triggers = (level: WebhookLevel) =>
  Type.Array(Type.String(), {
    description: `At least one, each at most once, of: ${TRIGGERS_BY_LEVEL[level].join(', ')}`,
    examples: [['BOOKING_CREATED', 'BOOKING_RESCHEDULED', 'BOOKING_CANCELLED']],
  });
const PayloadTemplate = Type.Union([Type.String(), Type.Null()], {
  description:
    'Body sent instead of the default payload: text with {{path}} placeholders ({{title}}, {{organizer.name}}, {{attendees.0.name}}). A JSON template is sent as JSON, anything else as form-encoded text. null removes it.',
  examples: [PAYLOAD_TEMPLATE_EXAMPLE],
});
const Secret = Type.Union([Type.String(), Type.Null()], {
  description: 'Signs each delivery (HMAC-SHA256, header x-svc-signature-256); stored encrypted and shown back to you. null removes it.',
});
const Version = StringEnum(WEBHOOK_VERSIONS, { description: 'Payload version (default 2021-10-20)' });
const NO_SHOW_DELAY = `svc extension. For AFTER_HOSTS_SVC_VIDEO_NO_SHOW and AFTER_GUESTS_SVC_VIDEO_NO_SHOW: how long after the booking's start its video room is checked for who joined; with timeUnit, at most 7 days. Both null or absent: ${DEFAULT_NO_SHOW_DELAY.time} ${DEFAULT_NO_SHOW_DELAY.timeUnit}s.`;
const Time = Type.Union([Type.Integer({ minimum: 1, maximum: 10080 }), Type.Null()], { description: NO_SHOW_DELAY, examples: [10] });
const TimeUnit = Type.Union([StringEnum(NO_SHOW_TIME_UNITS), Type.Null()], { description: 'svc extension. The unit of time.', examples: ['minute'] });

/** Create body at one level: only the triggers allowed there (checked by the service, named in `triggers`). */
export const CreateWebhookBody = (level: WebhookLevel) =>
  Type.Object({
    subscriberUrl: SubscriberUrl,
    active: Active,
    triggers: Triggers(level),
    payloadTemplate: Type.Optional(PayloadTemplate),
    secret: Type.Optional(Secret),
    version: Type.Optional(Version),
    time: Type.Optional(Time),
    timeUnit: Type.Optional(TimeUnit),
  });

export const UpdateWebhookBody = (level: WebhookLevel) =>
  Type.Object({
    subscriberUrl: Type.Optional(SubscriberUrl),
    active: Type.Optional(Active),
    triggers: Type.Optional(Triggers(level)),
    payloadTemplate: Type.Optional(PayloadTemplate),
    secret: Type.Optional(Secret),
    version: Type.Optional(Version),
    time: Type.Optional(Time),
    timeUnit: Type.Optional(TimeUnit),
  });

const WebhookOutputFields = {
  id: Type.Integer(),
  subscriberUrl: Type.String(),
  active: Type.Boolean(),
  triggers: Type.Array(StringEnum(WEBHOOK_TRIGGERS)),
  payloadTemplate: Type.Union([Type.String(), Type.Null()]),
  secret: Type.Union([Type.String(), Type.Null()]),
  version: StringEnum(WEBHOOK_VERSIONS),
  /** Shown only when set (svc extension). */
  time: Type.Optional(Type.Integer()),
  timeUnit: Type.Optional(StringEnum(NO_SHOW_TIME_UNITS)),
};

export const UserWebhookOutput = Type.Object({ ...WebhookOutputFields, userId: Type.Integer() });
export const EventTypeWebhookOutput = Type.Object({ ...WebhookOutputFields, eventTypeId: Type.Integer() });

export const WebhookIdParams = Type.Object({ webhookId: Id('Webhook id') });
export const EventTypeIdParams = Type.Object({ eventTypeId: Id('One of your event types') });
export const EventTypeWebhookParams = Type.Object({ eventTypeId: Id('One of your event types'), webhookId: Id('Webhook id') });
export const TeamEventTypeParams = Type.Object({ teamId: Id('The team'), eventTypeId: Id('One of its event types') });
export const TeamEventTypeWebhookParams = Type.Object({ teamId: Id('The team'), eventTypeId: Id('One of its event types'), webhookId: Id('Webhook id') });

/** `take` 1-250 (default 25 on webhook lists, spec 8), `skip` >= 0 (default 0). */
export const WebhooksQuery = TakeSkipQuery(25);

/**
 * Webhook routes take no `svc-api-version` (the reference's are version-agnostic); write routes take
 * `Idempotency-Key`. Headers a route does not declare are dropped before its handler.
 */
export const IdempotentHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ maxLength: 255, description: 'Makes retries safe: the same key and request replay the first answer for 24 hours' })),
});
