import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { runMutation } from '../../http/mutation.js';
import { oauthClientOf, principalOf } from '../../http/request-guard.js';
import { IdempotentHeaders } from '../webhooks/webhooks.schemas.js';
import { presentOAuthClient } from './oauth-clients.presenter.js';
import { ClientIdParams, CreatedOAuthClientOutput, CreateOAuthClientBody, OAuthClientOutput, OrganizationChoiceQuery, UpdateOAuthClientBody } from './oauth-clients.schemas.js';
import * as clients from './oauth-clients.service.js';

const WHO = "An API key of an accepted admin or owner of the client's platform organization (or the system admin).";
const IN_ORG = 'A client of an organization you do not administer is refused with 403; an unknown client is a 404.';

/** `/v2/oauth-clients` (the reference's OAuthClientsController): a platform organization's OAuth clients. */
export function registerOAuthClientRoutes(app: App, ctx: AppContext): void {
  const tags = ['OAuth Clients'];
  const db = () => ctx.database.db;

  app.post('/v2/oauth-clients', {
    config: { access: access.oauthClients('organizationAdmin') },
    schema: {
      tags,
      summary: 'Create an OAuth client',
      description: `${WHO} The client belongs to the platform organization the caller administers (\`organizationId\` chooses one when there are several). Its secret (256 random bits) is returned here and on the client object; svc stores it sealed and as a hash, never in clear.`,
      headers: IdempotentHeaders,
      querystring: OrganizationChoiceQuery,
      body: CreateOAuthClientBody,
      response: { 201: Envelope(CreatedOAuthClientOutput) },
    },
    handler: async (request, reply) => {
      const organizationId = await clients.chooseOrganization(db(), principalOf(request), request.query.organizationId);
      return runMutation(ctx, request, reply, async (tx) => ({ status: 201, body: ok(await clients.createOAuthClient(tx, ctx.secrets, organizationId, request.body)) }));
    },
  });

  app.get('/v2/oauth-clients', {
    config: { access: access.oauthClients('organizationAdmin') },
    schema: {
      tags,
      summary: 'Get all OAuth clients',
      description: `The clients of every platform organization the caller administers, oldest first. ${WHO}`,
      response: { 200: Envelope(Type.Array(OAuthClientOutput)) },
    },
    handler: async (request) => ok((await clients.listOAuthClients(db(), ctx.secrets, principalOf(request))).map(presentOAuthClient)),
  });

  app.get('/v2/oauth-clients/:clientId', {
    config: { access: access.oauthClients('client') },
    schema: { tags, summary: 'Get an OAuth client', description: `${WHO} ${IN_ORG}`, params: ClientIdParams, response: { 200: Envelope(OAuthClientOutput) } },
    handler: async (request) => ok(presentOAuthClient(clients.viewOf(ctx.secrets, oauthClientOf(request)))),
  });

  app.patch('/v2/oauth-clients/:clientId', {
    config: { access: access.oauthClients('client') },
    schema: {
      tags,
      summary: 'Update an OAuth client',
      description: `Only the fields sent change; \`permissions\` cannot (a 400 naming it). New redirect URIs apply to its managed users' tokens at once. ${WHO} ${IN_ORG}`,
      headers: IdempotentHeaders,
      params: ClientIdParams,
      body: UpdateOAuthClientBody,
      response: { 200: Envelope(OAuthClientOutput) },
    },
    handler: async (request, reply) => {
      const clientId = oauthClientOf(request).id;
      return runMutation(ctx, request, reply, async (tx, announce) => ({
        status: 200,
        body: ok(presentOAuthClient(await clients.updateOAuthClient(tx, announce, ctx.secrets, clientId, request.body))),
      }));
    },
  });

  app.delete('/v2/oauth-clients/:clientId', {
    config: { access: access.oauthClients('client') },
    schema: {
      tags,
      summary: 'Delete an OAuth client',
      description: `Returns the deleted client. Its managed users' tokens stop working at once and its webhooks are deleted; the users stay in the organization. ${WHO} ${IN_ORG}`,
      headers: IdempotentHeaders,
      params: ClientIdParams,
      response: { 200: Envelope(OAuthClientOutput) },
    },
    handler: async (request, reply) => {
      const clientId = oauthClientOf(request).id;
      return runMutation(ctx, request, reply, async (tx, announce) => ({
        status: 200,
        body: ok(presentOAuthClient(await clients.deleteOAuthClient(tx, announce, ctx.secrets, clientId))),
      }));
    },
  });
}
