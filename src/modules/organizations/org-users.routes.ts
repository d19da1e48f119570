import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { principalOf } from '../../http/request-guard.js';
import { OrgIdParams } from './organizations.schemas.js';
import { presentOrgUser } from './org-users.presenter.js';
import { CreateOrgUserBody, OrgUserOutput, OrgUserParams, OrgUsersQuery, UpdateOrgUserBody } from './org-users.schemas.js';
import * as orgUsers from './org-users.service.js';

const NOT_STORED = 'svc does not store emailVerified, appTheme, theme, brandColor, darkBrandColor, hideBranding, allowDynamicBooking, verified or invitedTo: they are null (hideBranding false).';

/** `/v2/organizations/:orgId/users` (the reference's OrganizationsUsersController): for organization admins. */
export function registerOrganizationUserRoutes(app: App, ctx: AppContext): void {
  const tags = ['Orgs / Users'];
  // svc's permission catalogue has no `organization.editUsers` (the reference's PATCH permission): `organization.update` stands in.
  const rule = (permission: string) => ({ role: 'ORG_ADMIN' as const, permissions: [permission] });

  app.get('/v2/organizations/:orgId/users', {
    config: { access: access.tenant('ORG_MEMBERSHIP_READ', rule('organization.listMembers')) },
    schema: {
      tags,
      summary: 'Get all users',
      description: `Users with a profile in the organization, by id. \`emails\`, \`teamIds\` (teams of the organization) and \`assignedOptionIds\` with \`attributeQueryOperator\` (attribute values held) narrow the list. ${NOT_STORED}`,
      params: OrgIdParams,
      querystring: OrgUsersQuery,
      response: { 200: Envelope(Type.Array(OrgUserOutput)) },
    },
    handler: async (request) => {
      const { emails, teamIds, assignedOptionIds, attributeQueryOperator, skip, take } = request.query;
      const rows = await orgUsers.listOrganizationUsers(ctx.database.db, request.params.orgId, { emails, teamIds, assignedOptionIds, attributeQueryOperator, skip: skip ?? 0, take: take ?? 250 });
      return ok(rows.map(presentOrgUser));
    },
  });

  app.post('/v2/organizations/:orgId/users', {
    config: { access: access.tenant('ORG_MEMBERSHIP_WRITE', rule('organization.invite')) },
    schema: {
      tags,
      summary: 'Create a user',
      description: `Creates the user with a membership of the organization (\`organizationRole\`, accepted unless \`autoAccept\` is false) and a profile there. Email and username are lowercased; the email stays unverified. ${NOT_STORED}`,
      params: OrgIdParams,
      body: CreateOrgUserBody,
      response: { 201: Envelope(OrgUserOutput) },
    },
    handler: async (request, reply) => reply.status(201).send(ok(presentOrgUser(await orgUsers.createOrganizationUser(ctx, principalOf(request).user, request.params.orgId, request.body)))),
  });

  app.patch('/v2/organizations/:orgId/users/:userId', {
    config: { access: access.tenant('ORG_MEMBERSHIP_WRITE', rule('organization.update')) },
    schema: {
      tags,
      summary: 'Update a user',
      description: 'The user must have a profile in the organization (403 otherwise). A new username is their username in the organization too. Only a system admin may change a system admin.',
      params: OrgUserParams,
      body: UpdateOrgUserBody,
      response: { 200: Envelope(OrgUserOutput) },
    },
    handler: async (request) => {
      const { orgId, userId } = request.params;
      return ok(presentOrgUser(await orgUsers.updateOrganizationUser(ctx, principalOf(request).user, orgId, userId, request.body)));
    },
  });

  app.delete('/v2/organizations/:orgId/users/:userId', {
    config: { access: access.tenant('ORG_MEMBERSHIP_WRITE', rule('organization.remove')) },
    schema: {
      tags,
      summary: 'Delete a user',
      description:
        "Deletes the user's account and everything they own. Refused (403) for a user who also belongs to teams or organizations outside this one, unless the caller is the system admin: remove their membership instead. The organization's last OWNER stays.",
      params: OrgUserParams,
      response: { 200: Envelope(OrgUserOutput) },
    },
    handler: async (request) => {
      const { orgId, userId } = request.params;
      return ok(presentOrgUser(await orgUsers.deleteOrganizationUser(ctx, principalOf(request).user, orgId, userId)));
    },
  });
}
