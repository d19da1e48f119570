import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { runMutation } from '../../http/mutation.js';
import { principalOf } from '../../http/request-guard.js';
import { presentOAuth2Client, presentOAuth2ClientForReference, presentRegisteredClient } from './oauth-clients.presenter.js';
import { deleteOwnClient, findReadableClient, listClientsByStatus, listClientsOfOwner, registerClient, reviewClient } from './oauth-clients.service.js';
import { OAuth2ClientIdParams, OAuth2ClientOutput, OAuth2ClientReferenceOutput, RegisteredOAuth2ClientOutput, RegisterOAuth2ClientBody, ReviewListQuery, ReviewOAuth2ClientBody } from './oauth.schemas.js';

/** Third-party OAuth 2.0 clients through the API: a user registers their own; the system admin reviews them. */
export function registerOAuth2ClientRoutes(app: App, ctx: AppContext): void {
  const tags = ['OAuth 2.0 clients (svc)'];

  app.post('/v2/auth/oauth2/clients', {
    config: { access: access.apiKeyOnly() },
    schema: {
      tags,
      summary: 'Register a third-party OAuth client',
      description:
        'svc extension (the developer-settings page does the same). The client starts `pending` and can authorize users once the system admin approves it. A confidential client\'s secret is in this answer only.',
      body: RegisterOAuth2ClientBody,
      response: { 201: Envelope(RegisteredOAuth2ClientOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx) => {
        const body = request.body;
        const created = await registerClient(tx, principalOf(request).user.id, {
          name: body.name,
          redirectUris: body.redirectUris,
          scopes: body.scopes,
          clientType: body.clientType ?? 'confidential',
          logo: body.logo,
        });
        return { status: 201, body: ok(presentRegisteredClient(created)) };
      }),
  });

  app.get('/v2/auth/oauth2/clients', {
    config: { access: access.apiKeyOnly() },
    schema: { tags, summary: 'List my third-party OAuth clients', response: { 200: Envelope(Type.Array(OAuth2ClientOutput)) } },
    handler: async (request) => ok((await listClientsOfOwner(ctx.database.db, principalOf(request).user.id)).map(presentOAuth2Client)),
  });

  app.get('/v2/auth/oauth2/clients/:clientId', {
    config: { access: access.apiKeyOnly() },
    schema: {
      tags,
      summary: 'Get an OAuth client',
      description:
        'The reference\'s `OAuth2ClientDto`: what an authorization screen shows. Any user may read an approved client; a client under review or rejected only its owner (404 to others). Status and scopes of one\'s own clients are in the list.',
      params: OAuth2ClientIdParams,
      response: { 200: Envelope(OAuth2ClientReferenceOutput) },
    },
    handler: async (request) => ok(presentOAuth2ClientForReference(await findReadableClient(ctx.database.db, principalOf(request).user.id, request.params.clientId))),
  });

  app.delete('/v2/auth/oauth2/clients/:clientId', {
    config: { access: access.apiKeyOnly() },
    schema: {
      tags,
      summary: 'Delete one of my third-party OAuth clients',
      description: 'Every token the client was issued stops working at once.',
      params: OAuth2ClientIdParams,
      response: { 200: Envelope(OAuth2ClientOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx, announce) => {
        const deleted = await deleteOwnClient(tx, announce, principalOf(request).user.id, request.params.clientId);
        return { status: 200, body: ok(presentOAuth2Client(deleted)) };
      }),
  });

  const adminTags = ['Admin (svc)'];

  app.get('/v2/admin/oauth2-clients', {
    config: { access: access.systemAdmin() },
    schema: { tags: adminTags, summary: 'List third-party OAuth clients (for review)', querystring: ReviewListQuery, response: { 200: Envelope(Type.Array(OAuth2ClientOutput)) } },
    handler: async (request) => {
      const { status, take = 250, skip = 0 } = request.query;
      return ok((await listClientsByStatus(ctx.database.db, status, { take, skip })).map(presentOAuth2Client));
    },
  });

  app.patch('/v2/admin/oauth2-clients/:clientId', {
    config: { access: access.systemAdmin() },
    schema: {
      tags: adminTags,
      summary: 'Approve or reject a third-party OAuth client',
      description: 'The owner is told by email (written to the outbox in the same transaction). Rejecting revokes every token the client holds.',
      params: OAuth2ClientIdParams,
      body: ReviewOAuth2ClientBody,
      response: { 200: Envelope(OAuth2ClientOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx, announce) => {
        const client = await reviewClient(tx, announce, request.params.clientId, request.body.status, new Date(ctx.clock()));
        return { status: 200, body: ok(presentOAuth2Client(client)) };
      }),
  });
}
