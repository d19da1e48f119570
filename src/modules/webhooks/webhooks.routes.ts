import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import { Envelope, ok } from '../../http/envelope.js';
import { runMutation } from '../../http/mutation.js';
import { principalOf } from '../../http/request-guard.js';
import { presentDeletedCount, presentEventTypeWebhook, presentUserWebhook } from './webhooks.presenter.js';
import {
  CreateWebhookBody,
  EventTypeIdParams,
  EventTypeWebhookOutput,
  EventTypeWebhookParams,
  IdempotentHeaders,
  UpdateWebhookBody,
  UserWebhookOutput,
  WebhookIdParams,
  WebhooksQuery,
} from './webhooks.schemas.js';
import * as webhooks from './webhooks.service.js';

const WRITE_NOTE = 'Send Idempotency-Key to make retries safe.';

/** User webhooks (`/v2/webhooks`): subscriptions to everything that happens to the caller's bookings. */
function registerUserWebhookRoutes(app: App, ctx: AppContext): void {
  const tags = ['Webhooks'];
  const db = () => ctx.database.db;

  app.post('/v2/webhooks', {
    config: { access: access.user('WEBHOOK_WRITE') },
    schema: {
      tags,
      summary: 'Create a webhook',
      description: `One subscription per subscriber URL. ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      body: CreateWebhookBody('user'),
      response: { 201: Envelope(UserWebhookOutput) },
    },
    handler: async (request, reply) => {
      const scope = webhooks.userScope(principalOf(request).user);
      const prepared = await webhooks.prepareCreate(ctx, scope.level, request.body);
      return runMutation(ctx, request, reply, async (tx) => ({
        status: 201,
        body: ok(presentUserWebhook(await webhooks.createWebhook(tx, ctx, scope, prepared))),
      }));
    },
  });

  app.get('/v2/webhooks', {
    config: { access: access.user('WEBHOOK_READ') },
    schema: {
      tags,
      summary: 'Get all webhooks',
      description: "A page of the caller's webhooks, oldest first.",
      querystring: WebhooksQuery,
      response: { 200: Envelope(Type.Array(UserWebhookOutput)) },
    },
    handler: async (request) => {
      const scope = webhooks.userScope(principalOf(request).user);
      const views = await webhooks.listWebhooks(db(), ctx, scope, { skip: request.query.skip ?? 0, take: request.query.take ?? 25 });
      return ok(views.map(presentUserWebhook));
    },
  });

  app.get('/v2/webhooks/:webhookId', {
    config: { access: access.user('WEBHOOK_READ') },
    schema: { tags, summary: 'Get a webhook', params: WebhookIdParams, response: { 200: Envelope(UserWebhookOutput) } },
    handler: async (request) => {
      const scope = webhooks.userScope(principalOf(request).user);
      return ok(presentUserWebhook(await webhooks.getWebhook(db(), ctx, scope, request.params.webhookId)));
    },
  });

  app.patch('/v2/webhooks/:webhookId', {
    config: { access: access.user('WEBHOOK_WRITE') },
    schema: {
      tags,
      summary: 'Update a webhook',
      description: WRITE_NOTE,
      headers: IdempotentHeaders,
      params: WebhookIdParams,
      body: UpdateWebhookBody('user'),
      response: { 200: Envelope(UserWebhookOutput) },
    },
    handler: async (request, reply) => {
      const scope = webhooks.userScope(principalOf(request).user);
      const id = request.params.webhookId;
      await webhooks.assertWebhookReachable(db(), scope, id);
      const changes = await webhooks.prepareUpdate(ctx, scope.level, request.body);
      return runMutation(ctx, request, reply, async (tx) => ({
        status: 200,
        body: ok(presentUserWebhook(await webhooks.updateWebhook(tx, ctx, scope, id, changes))),
      }));
    },
  });

  app.delete('/v2/webhooks/:webhookId', {
    config: { access: access.user('WEBHOOK_WRITE') },
    schema: {
      tags,
      summary: 'Delete a webhook',
      description: `Returns the deleted webhook. ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: WebhookIdParams,
      response: { 200: Envelope(UserWebhookOutput) },
    },
    handler: (request, reply) => {
      const scope = webhooks.userScope(principalOf(request).user);
      return runMutation(ctx, request, reply, async (tx) => ({
        status: 200,
        body: ok(presentUserWebhook(await webhooks.deleteWebhook(tx, ctx, scope, request.params.webhookId))),
      }));
    },
  });
}

/** Webhooks of one of the caller's event types (`/v2/event-types/{eventTypeId}/webhooks`). */
function registerEventTypeWebhookRoutes(app: App, ctx: AppContext): void {
  const tags = ['Event Types / Webhooks'];
  const db = () => ctx.database.db;
  const ownership = 'The event type must be yours (403 otherwise, 404 when it does not exist).';

  app.post('/v2/event-types/:eventTypeId/webhooks', {
    config: { access: access.user('EVENT_TYPE_WRITE') },
    schema: {
      tags,
      summary: 'Create a webhook',
      description: `One subscription per subscriber URL and event type. ${ownership} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: EventTypeIdParams,
      body: CreateWebhookBody('eventType'),
      response: { 201: Envelope(EventTypeWebhookOutput) },
    },
    handler: async (request, reply) => {
      const caller = principalOf(request).user;
      const { eventTypeId } = request.params;
      const scope = await webhooks.eventTypeScope(db(), caller, eventTypeId);
      const prepared = await webhooks.prepareCreate(ctx, scope.level, request.body);
      return runMutation(ctx, request, reply, async (tx) => ({
        status: 201,
        body: ok(presentEventTypeWebhook(await webhooks.createWebhook(tx, ctx, await webhooks.eventTypeScope(tx, caller, eventTypeId), prepared))),
      }));
    },
  });

  app.get('/v2/event-types/:eventTypeId/webhooks', {
    config: { access: access.user('EVENT_TYPE_READ') },
    schema: {
      tags,
      summary: 'Get all webhooks',
      description: `A page of the event type's webhooks, oldest first. ${ownership}`,
      params: EventTypeIdParams,
      querystring: WebhooksQuery,
      response: { 200: Envelope(Type.Array(EventTypeWebhookOutput)) },
    },
    handler: async (request) => {
      const scope = await webhooks.eventTypeScope(db(), principalOf(request).user, request.params.eventTypeId);
      const views = await webhooks.listWebhooks(db(), ctx, scope, { skip: request.query.skip ?? 0, take: request.query.take ?? 25 });
      return ok(views.map(presentEventTypeWebhook));
    },
  });

  app.delete('/v2/event-types/:eventTypeId/webhooks', {
    config: { access: access.user('EVENT_TYPE_WRITE') },
    schema: {
      tags,
      summary: 'Delete all webhooks',
      description: `Answers how many were deleted ("2 webhooks deleted"). ${ownership} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: EventTypeIdParams,
      response: { 200: Envelope(Type.String()) },
    },
    handler: (request, reply) => {
      const caller = principalOf(request).user;
      return runMutation(ctx, request, reply, async (tx) => {
        const scope = await webhooks.eventTypeScope(tx, caller, request.params.eventTypeId);
        return { status: 200, body: ok(presentDeletedCount(await webhooks.deleteAllWebhooks(tx, scope))) };
      });
    },
  });

  app.get('/v2/event-types/:eventTypeId/webhooks/:webhookId', {
    config: { access: access.user('EVENT_TYPE_READ') },
    schema: {
      tags,
      summary: 'Get a webhook',
      description: ownership,
      params: EventTypeWebhookParams,
      response: { 200: Envelope(EventTypeWebhookOutput) },
    },
    handler: async (request) => {
      const scope = await webhooks.eventTypeScope(db(), principalOf(request).user, request.params.eventTypeId);
      return ok(presentEventTypeWebhook(await webhooks.getWebhook(db(), ctx, scope, request.params.webhookId)));
    },
  });

  app.patch('/v2/event-types/:eventTypeId/webhooks/:webhookId', {
    config: { access: access.user('EVENT_TYPE_WRITE') },
    schema: {
      tags,
      summary: 'Update a webhook',
      description: `${ownership} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: EventTypeWebhookParams,
      body: UpdateWebhookBody('eventType'),
      response: { 200: Envelope(EventTypeWebhookOutput) },
    },
    handler: async (request, reply) => {
      const { eventTypeId, webhookId } = request.params;
      const scope = await webhooks.eventTypeScope(db(), principalOf(request).user, eventTypeId);
      await webhooks.assertWebhookReachable(db(), scope, webhookId);
      const changes = await webhooks.prepareUpdate(ctx, scope.level, request.body);
      return runMutation(ctx, request, reply, async (tx) => ({
        status: 200,
        body: ok(presentEventTypeWebhook(await webhooks.updateWebhook(tx, ctx, scope, webhookId, changes))),
      }));
    },
  });

  app.delete('/v2/event-types/:eventTypeId/webhooks/:webhookId', {
    config: { access: access.user('EVENT_TYPE_WRITE') },
    schema: {
      tags,
      summary: 'Delete a webhook',
      description: `Returns the deleted webhook. ${ownership} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: EventTypeWebhookParams,
      response: { 200: Envelope(EventTypeWebhookOutput) },
    },
    handler: (request, reply) => {
      const caller = principalOf(request).user;
      const { eventTypeId, webhookId } = request.params;
      return runMutation(ctx, request, reply, async (tx) => {
        const scope = await webhooks.eventTypeScope(tx, caller, eventTypeId);
        return { status: 200, body: ok(presentEventTypeWebhook(await webhooks.deleteWebhook(tx, ctx, scope, webhookId))) };
      });
    },
  });
}

/**
 * Webhook subscriptions. Every level is a scope over the same service (webhooks.service.ts): team,
 * organization and OAuth-client routes add a scope constructor and their routes.
 */
export function registerWebhookRoutes(app: App, ctx: AppContext): void {
  registerUserWebhookRoutes(app, ctx);
  registerEventTypeWebhookRoutes(app, ctx);
}
