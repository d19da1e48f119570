import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { principalOf, tenantOf } from '../../http/request-guard.js';
import { presentPagination } from '../../http/pagination.js';
import { presentManagedOrganization } from './managed-organizations.presenter.js';
import {
  CreateManagedOrganizationBody,
  ManagedOrganizationOutput,
  ManagedOrganizationsListOutput,
  ManagedOrganizationsQuery,
  ManagedOrganizationWithApiKeyOutput,
  ManagedOrgParams,
  ManagerOrgParams,
  UpdateManagedOrganizationBody,
} from './managed-organizations.schemas.js';
import * as managed from './managed-organizations.service.js';

const IN_MANAGER = 'An organization this one does not manage (or none) is refused with 403, as the reference.';
// The PBAC catalogue has no organization.delete: deleting a managed organization is an update of its manager.
const rule = (permission: 'organization.create' | 'organization.read' | 'organization.update') => ({ role: 'ORG_ADMIN' as const, permissions: [permission] });

/**
 * `/v2/organizations/{orgId}/organizations` (the reference's OrganizationsOrganizationsController):
 * organizations managed by a platform organization, run by its admins and owners.
 */
export function registerManagedOrganizationRoutes(app: App, ctx: AppContext): void {
  const tags = ['Managed Orgs'];
  const db = () => ctx.database.db;

  app.post('/v2/organizations/:orgId/organizations', {
    config: { access: access.tenant('ORG_PROFILE_WRITE', rule('organization.create')) },
    schema: {
      tags,
      summary: 'Create an organization within an organization',
      description:
        "The manager must be a platform organization (403 otherwise). The caller becomes the new organization's OWNER and gets a new API key, shown this once (`apiKeyDaysValid`, default 30, or `apiKeyNeverExpires`; not both). The slug is generated from the name when omitted.",
      params: ManagerOrgParams,
      body: CreateManagedOrganizationBody,
      response: { 201: Envelope(ManagedOrganizationWithApiKeyOutput) },
    },
    handler: async (request, reply) => {
      const { organization, apiKey } = await managed.createManagedOrganization(ctx, tenantOf(request).organization!, principalOf(request).user, request.body);
      return reply.status(201).send(ok({ ...presentManagedOrganization(organization), apiKey }));
    },
  });

  app.get('/v2/organizations/:orgId/organizations', {
    config: { access: access.tenant('ORG_PROFILE_READ', rule('organization.read')) },
    schema: {
      tags,
      summary: 'Get all organizations within an organization',
      description: 'Oldest first. Filters: `slug`, and `metadataKey` with `metadataValue` (both or neither; exact, case-sensitive string match).',
      params: ManagerOrgParams,
      querystring: ManagedOrganizationsQuery,
      response: { 200: ManagedOrganizationsListOutput },
    },
    handler: async (request) => {
      const page = { skip: request.query.skip ?? 0, take: request.query.take ?? 250 };
      const { rows, total } = await managed.listManagedOrganizations(db(), request.params.orgId, { ...request.query, ...page });
      return { status: 'success' as const, data: rows.map(presentManagedOrganization), pagination: presentPagination(total, rows.length, page) };
    },
  });

  app.get('/v2/organizations/:orgId/organizations/:managedOrganizationId', {
    config: { access: access.tenant('ORG_PROFILE_READ', rule('organization.read')) },
    schema: { tags, summary: 'Get an organization within an organization', description: IN_MANAGER, params: ManagedOrgParams, response: { 200: Envelope(ManagedOrganizationOutput) } },
    handler: async (request) => ok(presentManagedOrganization(await managed.getManagedOrganization(db(), request.params.orgId, request.params.managedOrganizationId))),
  });

  app.patch('/v2/organizations/:orgId/organizations/:managedOrganizationId', {
    config: { access: access.tenant('ORG_PROFILE_WRITE', rule('organization.update')) },
    schema: {
      tags,
      summary: 'Update an organization within an organization',
      description: `Only the fields sent change. ${IN_MANAGER}`,
      params: ManagedOrgParams,
      body: UpdateManagedOrganizationBody,
      response: { 200: Envelope(ManagedOrganizationOutput) },
    },
    handler: async (request) => {
      const { orgId, managedOrganizationId } = request.params;
      return ok(presentManagedOrganization(await managed.updateManagedOrganization(ctx, orgId, managedOrganizationId, request.body)));
    },
  });

  app.delete('/v2/organizations/:orgId/organizations/:managedOrganizationId', {
    config: { access: access.tenant('ORG_PROFILE_WRITE', rule('organization.update')) },
    schema: {
      tags,
      summary: 'Delete an organization within an organization',
      description: `Deletes it with everything it owns: teams, memberships, profiles, roles, schedules, webhooks and its own managed organizations. Returns it as it was. ${IN_MANAGER}`,
      params: ManagedOrgParams,
      response: { 200: Envelope(ManagedOrganizationOutput) },
    },
    handler: async (request) => ok(presentManagedOrganization(await managed.deleteManagedOrganization(ctx, request.params.orgId, request.params.managedOrganizationId))),
  });
}

