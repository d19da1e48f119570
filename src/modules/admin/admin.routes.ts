import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import { Envelope, ok } from '../../http/envelope.js';
import { TakeSkipQuery } from '../../http/pagination.js';
import { principalOf } from '../../http/request-guard.js';
import { presentUserForAdmin } from '../users/users.presenter.js';
import { AdminUserOutput, CreateUserBody } from '../users/users.schemas.js';
import { listUsers } from '../users/users.service.js';
import { createUserWithApiKey, deleteUserAsAdmin } from './admin.service.js';

const UserIdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export function registerAdminRoutes(app: App, ctx: AppContext): void {
  const tags = ['Admin (svc)'];

  app.post('/v2/admin/users', {
    config: { access: access.systemAdmin() },
    schema: {
      tags,
      summary: 'Create a user and an API key for it',
      description:
        'svc extension. Returns the new API key once (valid 30 days); only its hash is stored. With `role: "ADMIN"` the user is a system admin, with the same rights as the one svc created on first start.',
      body: CreateUserBody,
      response: { 201: Envelope(Type.Object({ user: AdminUserOutput, apiKey: Type.String() })) },
    },
    handler: async (request, reply) => {
      const { user, apiKey } = await createUserWithApiKey(ctx, request.body);
      return reply.status(201).send(ok({ user: presentUserForAdmin(user), apiKey }));
    },
  });

  app.get('/v2/admin/users', {
    config: { access: access.systemAdmin() },
    schema: { tags, summary: 'List users', querystring: TakeSkipQuery(), response: { 200: Envelope(Type.Array(AdminUserOutput)) } },
    handler: async (request) => {
      const users = await listUsers(ctx.database.db, { take: request.query.take ?? 250, skip: request.query.skip ?? 0 });
      return ok(users.map(presentUserForAdmin));
    },
  });

  app.delete('/v2/admin/users/:id', {
    config: { access: access.systemAdmin() },
    schema: { tags, summary: 'Delete a user', params: UserIdParams, response: { 200: Envelope(AdminUserOutput) } },
    handler: async (request) => {
      const user = await deleteUserAsAdmin(ctx, principalOf(request).user.id, request.params.id);
      return ok(presentUserForAdmin(user));
    },
  });
}
