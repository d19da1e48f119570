import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { runMutation } from '../../http/mutation.js';
import { principalOf } from '../../http/request-guard.js';
import { TakeSkipQuery } from '../../http/pagination.js';
import { presentOrganizationWebhook } from './webhooks.presenter.js';
import { CreateWebhookBody, IdempotentHeaders, UpdateWebhookBody, UserWebhookOutput } from './webhooks.schemas.js';
import * as webhooks from './webhooks.service.js';

const Id = (description: string) => Type.Integer({ minimum: 1, maximum: 2147483647, description });
const OrgIdParams = Type.Object({ orgId: Id('The organization') });
const OrgWebhookParams = Type.Object({ orgId: Id('The organization'), webhookId: Id('One of its webhooks') });

/** The reference's organization webhook: the user webhook's fields with the organization's id as `teamId`. */
const { userId: _userId, ...webhookFields } = UserWebhookOutput.properties;
const OrganizationWebhookOutput = Type.Object({ ...webhookFields, teamId: Type.Integer({ description: 'The organization' }) });

const WRITE_NOTE = 'Send Idempotency-Key to make retries safe.';
const IN_ORG = "A webhook that is not this organization's (or does not exist) is refused with 403, as the reference's IsWebhookInOrg guard.";
const rule = (permission: string) => ({ role: 'ORG_ADMIN' as const, permissions: [permission] });

/**
 * `/v2/organizations/{orgId}/webhooks` (the reference's OrganizationsWebhooksController): subscriptions
 * to the bookings of the organization's members, managed by its admins and owners.
 */
export function registerOrganizationWebhookRoutes(app: App, ctx: AppContext): void {
  const tags = ['Orgs / Webhooks'];
  const db = () => ctx.database.db;
  const scopeOf = (request: Parameters<typeof principalOf>[0], orgId: number) => webhooks.organizationScope(principalOf(request).user, orgId);

  app.get('/v2/organizations/:orgId/webhooks', {
    config: { access: access.tenant('ORG_WEBHOOK_READ', rule('webhook.read')) },
    schema: {
      tags,
      summary: 'Get all webhooks',
      description: "A page of the organization's webhooks, oldest first.",
      params: OrgIdParams,
      // The reference's SkipTakePagination here (take 1-250, default 250), where user webhook lists default to 25.
      querystring: TakeSkipQuery(),
      response: { 200: Envelope(Type.Array(OrganizationWebhookOutput)) },
    },
    handler: async (request) => {
      const scope = scopeOf(request, request.params.orgId);
      const views = await webhooks.listWebhooks(db(), ctx, scope, { skip: request.query.skip ?? 0, take: request.query.take ?? 250 });
      return ok(views.map(presentOrganizationWebhook));
    },
  });

  app.post('/v2/organizations/:orgId/webhooks', {
    config: { access: access.tenant('ORG_WEBHOOK_WRITE', rule('webhook.create')) },
    schema: {
      tags,
      summary: 'Create a webhook',
      description: `Receives the events of every booking organized by a member of the organization (accepted memberships). One subscription per subscriber URL. ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: OrgIdParams,
      body: CreateWebhookBody('organization'),
      response: { 201: Envelope(OrganizationWebhookOutput) },
    },
    handler: async (request, reply) => {
      const scope = scopeOf(request, request.params.orgId);
      const prepared = await webhooks.prepareCreate(ctx, scope.level, request.body);
      return runMutation(ctx, request, reply, async (tx) => ({
        status: 201,
        body: ok(presentOrganizationWebhook(await webhooks.createWebhook(tx, ctx, scope, prepared))),
      }));
    },
  });

  app.get('/v2/organizations/:orgId/webhooks/:webhookId', {
    config: { access: access.tenant('ORG_WEBHOOK_READ', rule('webhook.read')) },
    schema: { tags, summary: 'Get a webhook', description: IN_ORG, params: OrgWebhookParams, response: { 200: Envelope(OrganizationWebhookOutput) } },
    handler: async (request) => {
      const { orgId, webhookId } = request.params;
      await webhooks.assertWebhookInOrganization(db(), orgId, webhookId);
      return ok(presentOrganizationWebhook(await webhooks.getWebhook(db(), ctx, scopeOf(request, orgId), webhookId)));
    },
  });

  app.patch('/v2/organizations/:orgId/webhooks/:webhookId', {
    config: { access: access.tenant('ORG_WEBHOOK_WRITE', rule('webhook.update')) },
    schema: {
      tags,
      summary: 'Update a webhook',
      description: `${IN_ORG} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: OrgWebhookParams,
      body: UpdateWebhookBody('organization'),
      response: { 200: Envelope(OrganizationWebhookOutput) },
    },
    handler: async (request, reply) => {
      const { orgId, webhookId } = request.params;
      const scope = scopeOf(request, orgId);
      await webhooks.assertWebhookInOrganization(db(), orgId, webhookId);
      const changes = await webhooks.prepareUpdate(ctx, scope.level, request.body);
      return runMutation(ctx, request, reply, async (tx) => ({
        status: 200,
        body: ok(presentOrganizationWebhook(await webhooks.updateWebhook(tx, ctx, scope, webhookId, changes))),
      }));
    },
  });

  app.delete('/v2/organizations/:orgId/webhooks/:webhookId', {
    config: { access: access.tenant('ORG_WEBHOOK_WRITE', rule('webhook.delete')) },
    schema: {
      tags,
      summary: 'Delete a webhook',
      description: `Returns the deleted webhook. ${IN_ORG} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: OrgWebhookParams,
      response: { 200: Envelope(OrganizationWebhookOutput) },
    },
    handler: (request, reply) => {
      const { orgId, webhookId } = request.params;
      const scope = scopeOf(request, orgId);
      return runMutation(ctx, request, reply, async (tx) => {
        await webhooks.assertWebhookInOrganization(tx, orgId, webhookId);
        return { status: 200, body: ok(presentOrganizationWebhook(await webhooks.deleteWebhook(tx, ctx, scope, webhookId))) };
      });
    },
  });
}
