import { Type, type TSchema } from 'typebox';
import type { App } from '../../http/app.js';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import { Envelope, ok } from '../../http/envelope.js';
import { TakeSkipQuery } from '../../http/pagination.js';
import { principalOf } from '../../http/request-guard.js';
import { StringEnum } from '../../http/schema-types.js';
import { type DeliveryView, listDeliveries, resendDelivery, type WebhookScope } from './webhook-deliveries.service.js';

const INT4_MAX = 2147483647;
const Id = (description: string) => Type.Integer({ minimum: 1, maximum: INT4_MAX, description });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const UserWebhookParams = Type.Object({ webhookId: Id('The webhook (subscription)') });
const EventTypeWebhookParams = Type.Object({ eventTypeId: Id('One of your event types'), webhookId: Id('A webhook of that event type') });
const DeliveryUid = Type.String({ minLength: 1, maxLength: 100, description: 'The delivery id (its `webhook-id` header)' });
const UserDeliveryParams = Type.Object({ webhookId: UserWebhookParams.properties.webhookId, deliveryId: DeliveryUid });
const EventTypeDeliveryParams = Type.Object({ ...EventTypeWebhookParams.properties, deliveryId: DeliveryUid });

const AttemptOutput = Type.Object({
  attemptedAt: Type.String({ format: 'date-time' }),
  statusCode: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when none came (refused, unreachable, timed out)" })),
  durationMs: Type.Integer(),
  error: Nullable(Type.String({ description: 'Why the attempt failed; null when it was delivered' })),
});

const DeliveryOutput = Type.Object({
  id: Type.String({ description: 'The delivery id: the `webhook-id` header of every attempt' }),
  trigger: Type.String(),
  status: StringEnum(['pending', 'delivered', 'failed'] as const, { description: 'pending: queued or waiting for its next retry' }),
  attempts: Type.Integer(),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  deliveredAt: Nullable(Type.String({ format: 'date-time' })),
  attemptLog: Type.Array(AttemptOutput),
});

function presentDelivery({ delivery, attempts }: DeliveryView) {
  return {
    id: delivery.uid,
    trigger: delivery.trigger,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    createdAt: delivery.createdAt.toISOString(),
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
    attemptLog: attempts.map((attempt) => ({
      attemptedAt: attempt.attemptedAt.toISOString(),
      statusCode: attempt.statusCode,
      durationMs: attempt.durationMs,
      error: attempt.error,
    })),
  };
}

const LIST_DESCRIPTION =
  'svc extension: what was sent to this subscription and how each attempt went, newest first. A delivery is retried with exponential backoff (10 s doubling, at most 1 h apart) for at least 24 hours; its id is the `webhook-id` header of every attempt. Access as on the subscription routes: someone else\'s webhook or event type answers 403, a missing one 404.';
const RESEND_DESCRIPTION =
  'svc extension: sends the delivery again with the same id (`webhook-id`) and the same body. A delivered or failed delivery is queued anew with a full set of retries; a pending one is tried now instead of waiting for its next retry (409 while one of its attempts is in progress). A webhook deactivated since is not sent to (the delivery fails saying so). Access as on the subscription routes: someone else\'s webhook or event type answers 403, a missing one (or a delivery of another webhook) 404.';

export function registerWebhookDeliveryRoutes(app: App, ctx: AppContext): void {
  const page = (query: { take?: number | undefined; skip?: number | undefined }) => ({ take: query.take ?? 100, skip: query.skip ?? 0 });

  app.get('/v2/webhooks/:webhookId/deliveries', {
    config: { access: access.user('WEBHOOK_READ') },
    schema: {
      tags: ['Webhooks'],
      summary: "List a webhook's deliveries",
      description: LIST_DESCRIPTION,
      params: UserWebhookParams,
      querystring: TakeSkipQuery(100),
      response: { 200: Envelope(Type.Array(DeliveryOutput)) },
    },
    handler: async (request) => {
      const scope: WebhookScope = { kind: 'user', webhookId: request.params.webhookId };
      const views = await listDeliveries(ctx.database.db, principalOf(request).user, scope, page(request.query));
      return ok(views.map(presentDelivery));
    },
  });

  app.post('/v2/webhooks/:webhookId/deliveries/:deliveryId/resend', {
    config: { access: access.user('WEBHOOK_WRITE') },
    schema: {
      tags: ['Webhooks'],
      summary: 'Resend a delivery',
      description: RESEND_DESCRIPTION,
      params: UserDeliveryParams,
      response: { 200: Envelope(DeliveryOutput) },
    },
    handler: async (request) => {
      const scope: WebhookScope = { kind: 'user', webhookId: request.params.webhookId };
      return ok(presentDelivery(await resendDelivery(ctx.database, principalOf(request).user, scope, request.params.deliveryId)));
    },
  });

  app.get('/v2/event-types/:eventTypeId/webhooks/:webhookId/deliveries', {
    config: { access: access.user('EVENT_TYPE_READ') },
    schema: {
      tags: ['Event Types / Webhooks'],
      summary: "List an event-type webhook's deliveries",
      description: LIST_DESCRIPTION,
      params: EventTypeWebhookParams,
      querystring: TakeSkipQuery(100),
      response: { 200: Envelope(Type.Array(DeliveryOutput)) },
    },
    handler: async (request) => {
      const scope: WebhookScope = { kind: 'eventType', eventTypeId: request.params.eventTypeId, webhookId: request.params.webhookId };
      const views = await listDeliveries(ctx.database.db, principalOf(request).user, scope, page(request.query));
      return ok(views.map(presentDelivery));
    },
  });

  app.post('/v2/event-types/:eventTypeId/webhooks/:webhookId/deliveries/:deliveryId/resend', {
    config: { access: access.user('EVENT_TYPE_WRITE') },
    schema: {
      tags: ['Event Types / Webhooks'],
      summary: 'Resend a delivery of an event-type webhook',
      description: RESEND_DESCRIPTION,
      params: EventTypeDeliveryParams,
      response: { 200: Envelope(DeliveryOutput) },
    },
    handler: async (request) => {
      const scope: WebhookScope = { kind: 'eventType', eventTypeId: request.params.eventTypeId, webhookId: request.params.webhookId };
      return ok(presentDelivery(await resendDelivery(ctx.database, principalOf(request).user, scope, request.params.deliveryId)));
    },
  });
}
