import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { runMutation } from '../../http/mutation.js';
import { TakeSkipQuery } from '../../http/pagination.js';
import { oauthClientOf, principalOf } from '../../http/request-guard.js';
import { presentDeletedCount, presentOAuthClientWebhook } from './webhooks.presenter.js';
import { CreateWebhookBody, IdempotentHeaders, UpdateWebhookBody, UserWebhookOutput } from './webhooks.schemas.js';
import * as webhooks from './webhooks.service.js';

const ClientId = Type.String({ minLength: 1, maxLength: 64, description: 'The OAuth client' });
const ClientParams = Type.Object({ clientId: ClientId });
const ClientWebhookParams = Type.Object({ clientId: ClientId, webhookId: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'One of its webhooks' }) });

/** The reference's OAuth-client webhook: the user webhook's fields with `oAuthClientId`. */
const { userId: _userId, ...webhookFields } = UserWebhookOutput.properties;
const OAuthClientWebhookOutput = Type.Object({ ...webhookFields, oAuthClientId: Type.String({ description: 'The OAuth client' }) });
/** The reference's SkipTakePagination here: `take` defaults to 250 (its controller: `pagination.take ?? 250`). */
const CLIENT_WEBHOOKS_TAKE = 250;
const ClientWebhooksQuery = TakeSkipQuery(CLIENT_WEBHOOKS_TAKE);

const WHO = "The client's secret in `x-svc-secret-key` (the path names the client), or an API key of an accepted admin or owner of its organization.";
const OF_CLIENT = "A webhook of another owner is refused with 403, as the reference's IsOAuthClientWebhookGuard.";
const WRITE_NOTE = 'Send Idempotency-Key to make retries safe.';

/**
 * `/v2/oauth-clients/{clientId}/webhooks` (the reference's OAuthClientWebhooksController): subscriptions
 * to every booking event of the client's managed users.
 */
export function registerOAuthClientWebhookRoutes(app: App, ctx: AppContext): void {
  const tags = ['Platform / Webhooks'];
  const db = () => ctx.database.db;
  const scopeOf = (request: Parameters<typeof principalOf>[0]) => webhooks.oauthClientScope(principalOf(request).user, oauthClientOf(request).id);

  app.post('/v2/oauth-clients/:clientId/webhooks', {
    config: { access: access.platformClient() },
    schema: {
      tags,
      summary: 'Create a webhook',
      description: `Receives the events of every booking organized by one of the client's managed users. One subscription per subscriber URL. ${WHO} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: ClientParams,
      body: CreateWebhookBody('oauthClient'),
      response: { 201: Envelope(OAuthClientWebhookOutput) },
    },
    handler: async (request, reply) => {
      const scope = scopeOf(request);
      const prepared = await webhooks.prepareCreate(ctx, scope.level, request.body);
      return runMutation(ctx, request, reply, async (tx) => ({ status: 201, body: ok(presentOAuthClientWebhook(await webhooks.createWebhook(tx, ctx, scope, prepared))) }));
    },
  });

  app.get('/v2/oauth-clients/:clientId/webhooks', {
    config: { access: access.platformClient() },
    schema: {
      tags,
      summary: 'Get all webhooks',
      description: `A page of the client's webhooks, oldest first. ${WHO}`,
      params: ClientParams,
      querystring: ClientWebhooksQuery,
      response: { 200: Envelope(Type.Array(OAuthClientWebhookOutput)) },
    },
    handler: async (request) => {
      const views = await webhooks.listWebhooks(db(), ctx, scopeOf(request), { skip: request.query.skip ?? 0, take: request.query.take ?? CLIENT_WEBHOOKS_TAKE });
      return ok(views.map(presentOAuthClientWebhook));
    },
  });

  app.delete('/v2/oauth-clients/:clientId/webhooks', {
    config: { access: access.platformClient() },
    schema: {
      tags,
      summary: 'Delete all webhooks',
      description: `Answers how many were deleted ("2 webhooks deleted"). ${WHO} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: ClientParams,
      response: { 200: Envelope(Type.String()) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx) => ({ status: 200, body: ok(presentDeletedCount(await webhooks.deleteAllWebhooks(tx, scopeOf(request)))) })),
  });

  app.get('/v2/oauth-clients/:clientId/webhooks/:webhookId', {
    config: { access: access.platformClient() },
    schema: { tags, summary: 'Get a webhook', description: `${OF_CLIENT} ${WHO}`, params: ClientWebhookParams, response: { 200: Envelope(OAuthClientWebhookOutput) } },
    handler: async (request) => ok(presentOAuthClientWebhook(await webhooks.getWebhook(db(), ctx, scopeOf(request), request.params.webhookId))),
  });

  app.patch('/v2/oauth-clients/:clientId/webhooks/:webhookId', {
    config: { access: access.platformClient() },
    schema: {
      tags,
      summary: 'Update a webhook',
      description: `${OF_CLIENT} ${WHO} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: ClientWebhookParams,
      body: UpdateWebhookBody('oauthClient'),
      response: { 200: Envelope(OAuthClientWebhookOutput) },
    },
    handler: async (request, reply) => {
      const scope = scopeOf(request);
      const { webhookId } = request.params;
      await webhooks.assertWebhookReachable(db(), scope, webhookId);
      const changes = await webhooks.prepareUpdate(ctx, scope.level, request.body);
      return runMutation(ctx, request, reply, async (tx) => ({ status: 200, body: ok(presentOAuthClientWebhook(await webhooks.updateWebhook(tx, ctx, scope, webhookId, changes))) }));
    },
  });

  app.delete('/v2/oauth-clients/:clientId/webhooks/:webhookId', {
    config: { access: access.platformClient() },
    schema: {
      tags,
      summary: 'Delete a webhook',
      description: `Returns the deleted webhook. ${OF_CLIENT} ${WHO} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: ClientWebhookParams,
      response: { 200: Envelope(OAuthClientWebhookOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx) => ({ status: 200, body: ok(presentOAuthClientWebhook(await webhooks.deleteWebhook(tx, ctx, scopeOf(request), request.params.webhookId))) })),
  });
}
