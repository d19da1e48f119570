import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { TakeSkipQuery } from '../../http/pagination.js';
import { presentMembership } from '../teams/teams.presenter.js';
import type { MembershipWithUser } from '../teams/teams.repository.js';
import { CreateMembershipBody, MembershipOutput, UpdateMembershipBody } from '../teams/teams.schemas.js';
import { listMemberships } from '../teams/memberships.service.js';
import { principalOf } from '../../http/request-guard.js';
import { OrgIdParams, OrgMembershipParams } from './organizations.schemas.js';
import * as orgMemberships from './org-memberships.service.js';
import { attributesByMember } from '../attributes/attributes.service.js';

const MemberAttribute = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  option: Type.Optional(Type.String()),
  optionId: Type.Optional(Type.String()),
  options: Type.Optional(Type.Array(Type.Object({ optionId: Type.String(), option: Type.String() }))),
});
/** `OrganizationMembershipOutput`: a membership with the member's attribute values (multi-select ones as `options`). */
const OrgMembershipOutput = Type.Object({ ...MembershipOutput.properties, attributes: Type.Array(MemberAttribute) });

/** `/v2/organizations/:orgId/memberships` (the reference's OrganizationsMembershipsController): for organization admins. */
export function registerOrganizationMembershipRoutes(app: App, ctx: AppContext): void {
  const tags = ['Orgs / Memberships'];
  const present = async (organizationId: number, memberships: MembershipWithUser[]) => {
    const held = await attributesByMember(ctx.database.db, organizationId, memberships.map((membership) => membership.userId));
    return memberships.map((membership) => ({ ...presentMembership(membership), attributes: held.get(membership.userId) ?? [] }));
  };
  const presentOrgMembership = async (organizationId: number, membership: MembershipWithUser) => (await present(organizationId, [membership]))[0]!;
  const rule = (permission: string) => ({ role: 'ORG_ADMIN' as const, permissions: [permission] });

  app.get('/v2/organizations/:orgId/memberships', {
    config: { access: access.tenant('ORG_MEMBERSHIP_READ', rule('organization.listMembers')) },
    schema: { tags, summary: 'Get all memberships', params: OrgIdParams, querystring: TakeSkipQuery(), response: { 200: Envelope(Type.Array(OrgMembershipOutput)) } },
    handler: async (request) => {
      const rows = await listMemberships(ctx, request.params.orgId, { skip: request.query.skip ?? 0, take: request.query.take ?? 250 });
      return ok(await present(request.params.orgId, rows));
    },
  });

  app.post('/v2/organizations/:orgId/memberships', {
    config: { access: access.tenant('ORG_MEMBERSHIP_WRITE', rule('organization.invite')) },
    schema: {
      tags,
      summary: 'Create a membership',
      description: 'Adds the user to the organization (with a profile there). A user who already belongs to it has the membership updated, as the reference does.',
      params: OrgIdParams,
      body: CreateMembershipBody,
      response: { 201: Envelope(OrgMembershipOutput) },
    },
    handler: async (request, reply) => reply.status(201).send(ok(await presentOrgMembership(request.params.orgId, await orgMemberships.createOrganizationMembership(ctx, principalOf(request).user, request.params.orgId, request.body)))),
  });

  app.get('/v2/organizations/:orgId/memberships/:membershipId', {
    config: { access: access.tenant('ORG_MEMBERSHIP_READ', rule('organization.listMembers')) },
    schema: { tags, summary: 'Get a membership', params: OrgMembershipParams, response: { 200: Envelope(OrgMembershipOutput) } },
    handler: async (request) => ok(await presentOrgMembership(request.params.orgId, await orgMemberships.getOrganizationMembership(ctx.database.db, request.params.orgId, request.params.membershipId))),
  });

  app.patch('/v2/organizations/:orgId/memberships/:membershipId', {
    config: { access: access.tenant('ORG_MEMBERSHIP_WRITE', rule('organization.changeMemberRole')) },
    schema: {
      tags,
      summary: 'Update a membership',
      description: 'Only the fields sent change. `roleId` assigns a custom role of the organization (svc extension), or a SYSTEM role id (owner_role, admin_role, member_role) to set the role. The last OWNER cannot be demoted.',
      params: OrgMembershipParams,
      body: UpdateMembershipBody,
      response: { 200: Envelope(OrgMembershipOutput) },
    },
    handler: async (request) => ok(await presentOrgMembership(request.params.orgId, await orgMemberships.updateOrganizationMembership(ctx, principalOf(request).user, request.params.orgId, request.params.membershipId, request.body))),
  });

  app.delete('/v2/organizations/:orgId/memberships/:membershipId', {
    config: { access: access.tenant('ORG_MEMBERSHIP_WRITE', rule('organization.remove')) },
    schema: {
      tags,
      summary: 'Delete a membership',
      description: "Removes the member from the organization, its teams and its profile there. The last OWNER cannot be removed.",
      params: OrgMembershipParams,
      response: { 200: Envelope(OrgMembershipOutput) },
    },
    handler: async (request) => ok(await presentOrgMembership(request.params.orgId, await orgMemberships.deleteOrganizationMembership(ctx, principalOf(request).user, request.params.orgId, request.params.membershipId))),
  });
}
