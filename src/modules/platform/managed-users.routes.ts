import { type Static, Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { errorBody } from '../../app/error-handler.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { runMutation } from '../../http/mutation.js';
import { oauthClientOf } from '../../http/request-guard.js';
import { presentManagedUser } from '../users/users.presenter.js';
import { IdempotentHeaders } from '../webhooks/webhooks.schemas.js';
import {
  CreatedManagedUserOutput,
  CreateManagedUserBody,
  ManagedUserOutput,
  ManagedUserParams,
  ManagedUsersPageQuery,
  ManagedUsersQuery,
  RefreshTokenBody,
  TokensOutput,
  UpdateManagedUserBody,
} from './managed-users.schemas.js';
import * as managedUsers from './managed-users.service.js';
import { ClientIdParams } from './oauth-clients.schemas.js';
import { refreshTokens } from './platform-tokens.service.js';

const WHO =
  "The client's secret in `x-svc-secret-key` (the path names the client), or an API key of an accepted admin or owner of its organization.";
const TOKENS = 'An access token is valid 60 minutes and a refresh token a year; both are shown only here.';

/** The reference's transforms of CreateManagedUserInput: `timeZone: null` is no time zone; `timeFormat` may come as a string. */
function createInputOf(body: Static<typeof CreateManagedUserBody>): managedUsers.CreateManagedUserInput {
  const { timeZone, timeFormat, ...fields } = body;
  return { ...fields, timeZone: timeZone ?? undefined, timeFormat: timeFormat === undefined ? undefined : timeFormat === '12' || timeFormat === 12 ? 12 : 24 };
}

/**
 * `/v2/oauth-clients/{clientId}/users` and `/v2/oauth/{clientId}/refresh` (the reference's
 * OAuthClientUsersController and OAuthFlowController): a platform client's users and their tokens.
 */
export function registerManagedUserRoutes(app: App, ctx: AppContext): void {
  const tags = ['Platform / Managed Users'];
  const db = () => ctx.database.db;
  const now = () => new Date(ctx.clock());

  app.get('/v2/oauth-clients/:clientId/users', {
    config: { access: access.platformClient() },
    schema: {
      tags,
      summary: 'Get all managed users',
      description: `Oldest first. ${WHO}`,
      params: ClientIdParams,
      querystring: ManagedUsersQuery,
      response: { 200: Envelope(Type.Array(ManagedUserOutput)) },
    },
    handler: async (request) => ok((await managedUsers.listManagedUsers(db(), oauthClientOf(request).id, request.query)).map(presentManagedUser)),
  });

  app.get('/v2/oauth-clients/:clientId/managed-users', {
    config: { access: access.oauthClients('client') },
    schema: {
      tags: ['OAuth Clients'],
      summary: 'Get all managed users (older path)',
      description:
        "Kept because the reference keeps it (undocumented there): the users list of `GET /v2/oauth-clients/{clientId}/users` with `limit` and `offset`. An API key of an accepted admin or owner of the client's organization.",
      deprecated: true,
      params: ClientIdParams,
      querystring: ManagedUsersPageQuery,
      response: { 200: Envelope(Type.Array(ManagedUserOutput)) },
    },
    handler: async (request) => ok((await managedUsers.listManagedUsers(db(), oauthClientOf(request).id, request.query)).map(presentManagedUser)),
  });

  app.post('/v2/oauth-clients/:clientId/users', {
    config: { access: access.platformClient() },
    schema: {
      tags,
      summary: 'Create a managed user',
      description: `The email gets \`+<clientId>\` added to its local part. With \`timeZone\` the user gets a Monday-Friday 09:00-17:00 default schedule; without it none, and cannot be booked until one is made. ${TOKENS} ${WHO}`,
      headers: IdempotentHeaders,
      params: ClientIdParams,
      body: CreateManagedUserBody,
      response: { 201: Envelope(CreatedManagedUserOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx, announce) => {
        const { user, tokens } = await managedUsers.createManagedUser(tx, announce, oauthClientOf(request), createInputOf(request.body), now());
        return { status: 201, body: ok({ user: presentManagedUser(user), ...tokens }) };
      }),
  });

  app.get('/v2/oauth-clients/:clientId/users/:userId', {
    config: { access: access.platformClient() },
    schema: { tags, summary: 'Get a managed user', description: `A user of another client is a 404. ${WHO}`, params: ManagedUserParams, response: { 200: Envelope(ManagedUserOutput) } },
    handler: async (request) => ok(presentManagedUser(await managedUsers.getManagedUser(db(), oauthClientOf(request).id, request.params.userId))),
  });

  app.patch('/v2/oauth-clients/:clientId/users/:userId', {
    config: { access: access.platformClient() },
    schema: {
      tags,
      summary: 'Update a managed user',
      description: `Only the fields sent change. A new email gets \`+<clientId>\` too, and a username made from it. ${WHO}`,
      headers: IdempotentHeaders,
      params: ManagedUserParams,
      body: UpdateManagedUserBody,
      response: { 200: Envelope(ManagedUserOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx, announce) => ({
        status: 200,
        body: ok(presentManagedUser(await managedUsers.updateManagedUser(tx, announce, oauthClientOf(request), request.params.userId, request.body))),
      })),
  });

  app.delete('/v2/oauth-clients/:clientId/users/:userId', {
    config: { access: access.platformClient() },
    schema: {
      tags,
      summary: 'Delete a managed user',
      description: `Deletes the account with everything it owns; its tokens stop working at once. Returns the user as it was. ${WHO}`,
      headers: IdempotentHeaders,
      params: ManagedUserParams,
      response: { 200: Envelope(ManagedUserOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx, announce) => ({
        status: 200,
        body: ok(presentManagedUser(await managedUsers.deleteManagedUser(tx, announce, oauthClientOf(request), request.params.userId))),
      })),
  });

  app.post('/v2/oauth-clients/:clientId/users/:userId/force-refresh', {
    config: { access: access.platformClient() },
    schema: {
      tags,
      summary: 'Force refresh tokens',
      description: `For lost tokens: a new pair, and every earlier token the client holds for the user stops working. ${TOKENS} ${WHO}`,
      headers: IdempotentHeaders,
      params: ManagedUserParams,
      response: { 200: Envelope(TokensOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx, announce) => ({
        status: 200,
        body: ok(await managedUsers.forceRefreshManagedUser(tx, announce, oauthClientOf(request).id, request.params.userId, now())),
      })),
  });

  app.post('/v2/oauth/:clientId/refresh', {
    config: { access: access.platformClient() },
    schema: {
      tags,
      summary: 'Refresh managed user tokens',
      description: `Exchanges a refresh token for a new pair; the refresh token is used up (rotation). Presenting a used refresh token again revokes every token issued from it, and is refused. ${TOKENS} ${WHO}`,
      headers: IdempotentHeaders,
      params: ClientIdParams,
      body: RefreshTokenBody,
      response: { 200: Envelope(TokensOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx, announce) => {
        const outcome = await refreshTokens(tx, announce, oauthClientOf(request).id, request.body.refreshToken, now());
        if (outcome.kind === 'refreshed') return { status: 200, body: ok(outcome.tokens) };
        // A refusal is answered from inside the transaction, so that a reuse's revocation commits with it.
        return { status: 400, body: errorBody(request, 'BadRequestException', outcome.message, { reason: outcome.reason }) };
      }),
  });
}
