import type { FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { App } from '../../http/app.js';
import type { AppContext } from '../../app/context.js';
import type { Db } from '../../db/client.js';
import { access, type RouteAccess } from '../../http/access.js';
import { TakeSkipQuery } from '../../http/pagination.js';
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
  TeamEventTypeParams,
  TeamEventTypeWebhookParams,
  UpdateWebhookBody,
  UserWebhookOutput,
  WebhookIdParams,
  WebhooksQuery,
} from './webhooks.schemas.js';
import type { WebhookLevel } from './webhook-triggers.js';
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

/** One event type's subscriptions: where they live, who may manage them, and how the route finds the event type. */
interface EventTypeWebhookFamily {
  base: string;
  tags: string[];
  level: WebhookLevel;
  read: RouteAccess;
  write: RouteAccess;
  params: { all: TSchema; one: TSchema };
  /** Default `take` of the list. */
  take: number;
  /** The event type's scope, checked in `db` (the write's transaction for writes). */
  scopeOf: (db: Db, request: FastifyRequest) => Promise<webhooks.WebhookScope>;
  /** Who may manage them, for the descriptions. */
  who: string;
}

/** The six operations on an event type's webhooks under `base`. */
function registerEventTypeWebhookOperations(app: App, ctx: AppContext, family: EventTypeWebhookFamily): void {
  const { base, tags, level, read, write, params, take, scopeOf, who } = family;
  const db = () => ctx.database.db;
  const webhookIdOf = (request: FastifyRequest) => (request.params as { webhookId: number }).webhookId;

  app.post(base, {
    config: { access: write },
    schema: {
      tags,
      summary: 'Create a webhook',
      description: `One subscription per subscriber URL and event type. ${who} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: params.all,
      body: CreateWebhookBody(level),
      response: { 201: Envelope(EventTypeWebhookOutput) },
    },
    handler: async (request, reply) => {
      const prepared = await webhooks.prepareCreate(ctx, (await scopeOf(db(), request)).level, request.body as webhooks.WebhookInput);
      return runMutation(ctx, request, reply, async (tx) => ({
        status: 201,
        body: ok(presentEventTypeWebhook(await webhooks.createWebhook(tx, ctx, await scopeOf(tx, request), prepared))),
      }));
    },
  });

  app.get(base, {
    config: { access: read },
    schema: {
      tags,
      summary: 'Get all webhooks',
      description: `A page of the event type's webhooks, oldest first. ${who}`,
      params: params.all,
      querystring: TakeSkipQuery(take),
      response: { 200: Envelope(Type.Array(EventTypeWebhookOutput)) },
    },
    handler: async (request) => {
      const query = request.query as { skip?: number; take?: number };
      const views = await webhooks.listWebhooks(db(), ctx, await scopeOf(db(), request), { skip: query.skip ?? 0, take: query.take ?? take });
      return ok(views.map(presentEventTypeWebhook));
    },
  });

  app.delete(base, {
    config: { access: write },
    schema: {
      tags,
      summary: 'Delete all webhooks',
      description: `Answers how many were deleted ("2 webhooks deleted"). ${who} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: params.all,
      response: { 200: Envelope(Type.String()) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx) => ({ status: 200, body: ok(presentDeletedCount(await webhooks.deleteAllWebhooks(tx, await scopeOf(tx, request)))) })),
  });

  app.get(`${base}/:webhookId`, {
    config: { access: read },
    schema: { tags, summary: 'Get a webhook', description: who, params: params.one, response: { 200: Envelope(EventTypeWebhookOutput) } },
    handler: async (request) => ok(presentEventTypeWebhook(await webhooks.getWebhook(db(), ctx, await scopeOf(db(), request), webhookIdOf(request)))),
  });

  app.patch(`${base}/:webhookId`, {
    config: { access: write },
    schema: {
      tags,
      summary: 'Update a webhook',
      description: `${who} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: params.one,
      body: UpdateWebhookBody(level),
      response: { 200: Envelope(EventTypeWebhookOutput) },
    },
    handler: async (request, reply) => {
      const scope = await scopeOf(db(), request);
      await webhooks.assertWebhookReachable(db(), scope, webhookIdOf(request));
      const changes = await webhooks.prepareUpdate(ctx, scope.level, request.body as webhooks.WebhookChanges);
      return runMutation(ctx, request, reply, async (tx) => ({
        status: 200,
        body: ok(presentEventTypeWebhook(await webhooks.updateWebhook(tx, ctx, scope, webhookIdOf(request), changes))),
      }));
    },
  });

  app.delete(`${base}/:webhookId`, {
    config: { access: write },
    schema: {
      tags,
      summary: 'Delete a webhook',
      description: `Returns the deleted webhook. ${who} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: params.one,
      response: { 200: Envelope(EventTypeWebhookOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx) => ({
        status: 200,
        body: ok(presentEventTypeWebhook(await webhooks.deleteWebhook(tx, ctx, await scopeOf(tx, request), webhookIdOf(request)))),
      })),
  });
}

/**
 * Webhooks of one of the caller's event types (`/v2/event-types/{eventTypeId}/webhooks`) and of a
 * team's (`/v2/teams/{teamId}/event-types/{eventTypeId}/webhooks`, the reference's
 * TeamsEventTypesWebhooksController): the same subscriptions, hung on the event type.
 */
function registerEventTypeWebhookRoutes(app: App, ctx: AppContext): void {
  const eventTypeIdOf = (request: FastifyRequest) => (request.params as { eventTypeId: number }).eventTypeId;
  registerEventTypeWebhookOperations(app, ctx, {
    base: '/v2/event-types/:eventTypeId/webhooks',
    tags: ['Event Types / Webhooks'],
    level: 'eventType',
    read: access.user('EVENT_TYPE_READ'),
    write: access.user('EVENT_TYPE_WRITE'),
    params: { all: EventTypeIdParams, one: EventTypeWebhookParams },
    take: 25,
    scopeOf: (db, request) => webhooks.eventTypeScope(db, principalOf(request).user, eventTypeIdOf(request)),
    who: 'The event type must be yours (403 otherwise, 404 when it does not exist).',
  });

  // The reference's guard asks for an admin or owner of the team itself, whatever the route's role.
  const teamAdmin = (scope: 'TEAM_EVENT_TYPE_READ' | 'TEAM_EVENT_TYPE_WRITE') => access.tenant(scope, { role: 'TEAM_ADMIN', permissions: [] });
  registerEventTypeWebhookOperations(app, ctx, {
    base: '/v2/teams/:teamId/event-types/:eventTypeId/webhooks',
    tags: ['Teams / Event Types / Webhooks'],
    level: 'teamEventType',
    read: teamAdmin('TEAM_EVENT_TYPE_READ'),
    write: teamAdmin('TEAM_EVENT_TYPE_WRITE'),
    params: { all: TeamEventTypeParams, one: TeamEventTypeWebhookParams },
    take: 250,
    scopeOf: (db, request) => webhooks.teamEventTypeScope(db, principalOf(request).user, (request.params as { teamId: number }).teamId, eventTypeIdOf(request)),
    who: "For the team's admins and owners; the event type must be the team's (404 otherwise). Its bookings, by any host, reach these webhooks.",
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
