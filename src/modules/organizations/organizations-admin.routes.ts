import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { TakeSkipQuery } from '../../http/pagination.js';
import { presentAdminOrganization } from './organizations.presenter.js';
import { AdminCreateOrganizationBody, AdminOrganizationOutput, AdminUpdateOrganizationBody, OrgIdParams } from './organizations.schemas.js';
import * as organizations from './organizations.service.js';

/** svc's own organization management for the system admin: the reference creates organizations in its web app. */
export function registerOrganizationAdminRoutes(app: App, ctx: AppContext): void {
  const tags = ['Admin (svc)'];

  app.post('/v2/admin/organizations', {
    config: { access: access.systemAdmin() },
    schema: {
      tags,
      summary: 'Create an organization',
      description: 'svc extension. `ownerId` becomes its accepted OWNER (with a profile in it). `slug` defaults to the name in kebab-case; it is unique among organizations and standalone teams (409).',
      body: AdminCreateOrganizationBody,
      response: { 201: Envelope(AdminOrganizationOutput) },
    },
    handler: async (request, reply) => reply.status(201).send(ok(presentAdminOrganization(await organizations.createOrganization(ctx, request.body)))),
  });

  app.get('/v2/admin/organizations', {
    config: { access: access.systemAdmin() },
    schema: { tags, summary: 'List organizations', querystring: TakeSkipQuery(), response: { 200: Envelope(Type.Array(AdminOrganizationOutput)) } },
    handler: async (request) => ok((await organizations.listOrganizations(ctx.database.db, { skip: request.query.skip ?? 0, take: request.query.take ?? 250 })).map(presentAdminOrganization)),
  });

  app.get('/v2/admin/organizations/:orgId', {
    config: { access: access.systemAdmin() },
    schema: { tags, summary: 'Get an organization', params: OrgIdParams, response: { 200: Envelope(AdminOrganizationOutput) } },
    handler: async (request) => ok(presentAdminOrganization(await organizations.getOrganization(ctx.database.db, request.params.orgId))),
  });

  app.patch('/v2/admin/organizations/:orgId', {
    config: { access: access.systemAdmin() },
    schema: { tags, summary: 'Update an organization', params: OrgIdParams, body: AdminUpdateOrganizationBody, response: { 200: Envelope(AdminOrganizationOutput) } },
    handler: async (request) => ok(presentAdminOrganization(await organizations.updateOrganization(ctx, request.params.orgId, request.body))),
  });

  app.delete('/v2/admin/organizations/:orgId', {
    config: { access: access.systemAdmin() },
    schema: {
      tags,
      summary: 'Delete an organization',
      description: 'Deletes it with its teams, memberships, profiles, roles, schedules and webhook subscriptions, in one transaction. Its users stay.',
      params: OrgIdParams,
      response: { 200: Envelope(AdminOrganizationOutput) },
    },
    handler: async (request) => ok(presentAdminOrganization(await organizations.deleteOrganization(ctx, request.params.orgId))),
  });
}
