import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { principalOf } from '../../http/request-guard.js';
import { OrgIdParams } from '../organizations/organizations.schemas.js';
import { OrgUserParams } from '../organizations/org-users.schemas.js';
import * as orgUsers from '../organizations/org-users.service.js';
import { presentOoo } from './out-of-office.presenter.js';
import { CreateOooBody, OooIdParams, OooListQuery, OooOutput, OrgOooListQuery, OrgUserOooParams, UpdateOooBody } from './out-of-office.schemas.js';
import * as ooo from './out-of-office.service.js';

const pageOf = (query: { skip?: number | undefined; take?: number | undefined }) => ({ skip: query.skip ?? 0, take: query.take ?? 250 });
const sortOf = (query: { sortStart?: 'asc' | 'desc' | undefined; sortEnd?: 'asc' | 'desc' | undefined }) => ({ sortStart: query.sortStart, sortEnd: query.sortEnd });
const One = Envelope(OooOutput);
const Many = Envelope(Type.Array(OooOutput));

/** `/v2/me/ooo`: a user's own entries (the reference's UserOOOController). */
function registerOwnOooRoutes(app: App, ctx: AppContext): void {
  const tags = ['Out of Office'];
  app.get('/v2/me/ooo', {
    config: { access: access.user('SCHEDULE_READ') },
    schema: { tags, summary: 'Get all out-of-office entries for the authenticated user', querystring: OooListQuery, response: { 200: Many } },
    handler: async (request) => ok((await ooo.listEntriesOfUser(ctx.database.db, principalOf(request).user.id, pageOf(request.query), sortOf(request.query))).map(presentOoo)),
  });
  app.post('/v2/me/ooo', {
    config: { access: access.user('SCHEDULE_WRITE') },
    schema: { tags, summary: 'Create an out-of-office entry for the authenticated user', body: CreateOooBody, response: { 201: One } },
    handler: async (request, reply) => reply.status(201).send(ok(presentOoo(await ooo.createEntry(ctx, principalOf(request).user.id, request.body)))),
  });
  app.patch('/v2/me/ooo/:oooId', {
    config: { access: access.user('SCHEDULE_WRITE') },
    schema: { tags, summary: 'Update an out-of-office entry for the authenticated user', params: OooIdParams, body: UpdateOooBody, response: { 200: One } },
    handler: async (request) => ok(presentOoo(await ooo.updateEntry(ctx, principalOf(request).user.id, request.params.oooId, request.body))),
  });
  app.delete('/v2/me/ooo/:oooId', {
    config: { access: access.user('SCHEDULE_WRITE') },
    schema: { tags, summary: 'Delete an out-of-office entry for the authenticated user', params: OooIdParams, response: { 200: One } },
    handler: async (request) => ok(presentOoo(await ooo.deleteEntry(ctx, principalOf(request).user.id, request.params.oooId))),
  });
}

/**
 * `/v2/organizations/:orgId/users/:userId/ooo` and `/v2/organizations/:orgId/ooo` (the reference's
 * OrganizationsUsersOOOController): organization admins manage the entries of any user of the
 * organization (a profile there), as the reference does: whether a member is away is the organization's
 * business, unlike their schedules.
 */
function registerOrganizationOooRoutes(app: App, ctx: AppContext): void {
  const tags = ['Orgs / Users / OOO'];
  const read = access.tenant('ORG_SCHEDULE_READ', { role: 'ORG_ADMIN', permissions: [] });
  const write = access.tenant('ORG_SCHEDULE_WRITE', { role: 'ORG_ADMIN', permissions: [] });
  type UserRequest = FastifyRequest<{ Params: { orgId: number; userId: number } }>;
  const userOf = async (request: UserRequest) => (await orgUsers.getOrganizationUser(ctx.database.db, request.params.orgId, request.params.userId)).user.id;

  app.get('/v2/organizations/:orgId/users/:userId/ooo', {
    config: { access: read },
    schema: { tags, summary: 'Get all out-of-office entries for a user', params: OrgUserParams, querystring: OooListQuery, response: { 200: Many } },
    handler: async (request) => ok((await ooo.listEntriesOfUser(ctx.database.db, await userOf(request), pageOf(request.query), sortOf(request.query))).map(presentOoo)),
  });
  app.post('/v2/organizations/:orgId/users/:userId/ooo', {
    config: { access: write },
    schema: { tags, summary: 'Create an out-of-office entry for a user', params: OrgUserParams, body: CreateOooBody, response: { 201: One } },
    handler: async (request, reply) => reply.status(201).send(ok(presentOoo(await ooo.createEntry(ctx, await userOf(request), request.body)))),
  });
  app.patch('/v2/organizations/:orgId/users/:userId/ooo/:oooId', {
    config: { access: write },
    schema: { tags, summary: 'Update an out-of-office entry for a user', params: OrgUserOooParams, body: UpdateOooBody, response: { 200: One } },
    handler: async (request) => ok(presentOoo(await ooo.updateEntry(ctx, await userOf(request), request.params.oooId, request.body))),
  });
  app.delete('/v2/organizations/:orgId/users/:userId/ooo/:oooId', {
    config: { access: write },
    schema: { tags, summary: 'Delete an out-of-office entry for a user', params: OrgUserOooParams, response: { 200: One } },
    handler: async (request) => ok(presentOoo(await ooo.deleteEntry(ctx, await userOf(request), request.params.oooId))),
  });
  app.get('/v2/organizations/:orgId/ooo', {
    config: { access: read },
    schema: {
      tags,
      summary: 'Get all out-of-office entries for organization users',
      description: 'Entries of every user of the organization (a profile there); `email` keeps one user\'s.',
      params: OrgIdParams,
      querystring: OrgOooListQuery,
      response: { 200: Many },
    },
    handler: async (request) =>
      ok((await ooo.listEntriesOfOrganization(ctx.database.db, request.params.orgId, request.query.email, pageOf(request.query), sortOf(request.query))).map(presentOoo)),
  });
}

export function registerOutOfOfficeRoutes(app: App, ctx: AppContext): void {
  registerOwnOooRoutes(app, ctx);
  registerOrganizationOooRoutes(app, ctx);
}
