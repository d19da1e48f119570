import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { TakeSkipQuery } from '../../http/pagination.js';
import { principalOf, tenantOf } from '../../http/request-guard.js';
import { presentMembership, presentTeam } from '../teams/teams.presenter.js';
import { CreateMembershipBody, CreateTeamBody, MembershipOutput, MembershipRoleSchema, TeamOutput, UpdateMembershipBody, UpdateTeamBody } from '../teams/teams.schemas.js';
import { createInviteLink } from '../teams/membership-invitations.service.js';
import { listMemberships } from '../teams/memberships.service.js';
import * as teams from '../teams/teams.service.js';
import { InviteOutput, OrgIdParams, OrgTeamMembershipParams, OrgTeamParams } from './organizations.schemas.js';
import * as orgTeams from './org-teams.service.js';

const OrgMeTeamOutput = Type.Object({ ...TeamOutput.properties, accepted: Type.Optional(Type.Boolean()), role: Type.Optional(MembershipRoleSchema) });

/** The checked organization and team of a `/v2/organizations/:orgId/teams/:teamId` route. */
function orgAndTeam(request: Parameters<typeof tenantOf>[0]) {
  const { organization, team } = tenantOf(request);
  return { organization: organization!, team: team! };
}

/** `/v2/organizations/:orgId/teams` (the reference's OrganizationsTeamsController and OrganizationsTeamsInviteController). */
function registerOrganizationTeamRoutes(app: App, ctx: AppContext): void {
  const tags = ['Orgs / Teams'];

  app.get('/v2/organizations/:orgId/teams', {
    config: { access: access.tenant('ORG_PROFILE_READ', { role: 'ORG_ADMIN', permissions: ['team.read'] }) },
    schema: { tags, summary: 'Get all teams', params: OrgIdParams, querystring: TakeSkipQuery(), response: { 200: Envelope(Type.Array(TeamOutput)) } },
    handler: async (request) => {
      const rows = await teams.listTeamsOfParent(ctx.database.db, request.params.orgId, { skip: request.query.skip ?? 0, take: request.query.take ?? 250 });
      return ok(rows.map(presentTeam));
    },
  });

  app.get('/v2/organizations/:orgId/teams/me', {
    config: { access: access.tenant('ORG_PROFILE_READ', { role: 'ORG_MEMBER', permissions: ['team.read'] }) },
    schema: {
      tags,
      summary: 'Get teams membership for user',
      description: "Organization admins and owners get every team of the organization; members get the teams they belong to. `role` and `accepted` are the caller's membership, where they have one.",
      params: OrgIdParams,
      querystring: TakeSkipQuery(),
      response: { 200: Envelope(Type.Array(OrgMeTeamOutput)) },
    },
    handler: async (request) => {
      const { organizationRole } = tenantOf(request);
      const rows = await orgTeams.listMyOrganizationTeams(ctx.database.db, request.params.orgId, principalOf(request).user.id, organizationRole);
      const page = rows.slice(request.query.skip ?? 0, (request.query.skip ?? 0) + (request.query.take ?? 250));
      return ok(page.map(({ team, role, accepted }) => ({ ...presentTeam(team), ...(role !== null ? { role, accepted: accepted! } : {}) })));
    },
  });

  app.post('/v2/organizations/:orgId/teams', {
    config: { access: access.tenant('ORG_PROFILE_WRITE', { role: 'ORG_ADMIN', permissions: ['team.create'] }) },
    schema: {
      tags,
      summary: 'Create a team',
      description: 'The caller becomes its OWNER (unless the caller is the system admin). The slug is unique within the organization.',
      params: OrgIdParams,
      body: CreateTeamBody,
      response: { 201: Envelope(TeamOutput) },
    },
    handler: async (request, reply) => {
      const team = await orgTeams.createOrganizationTeam(ctx, request.params.orgId, principalOf(request).user, request.body);
      return reply.status(201).send(ok(presentTeam(team)));
    },
  });

  app.get('/v2/organizations/:orgId/teams/:teamId', {
    config: { access: access.tenant('ORG_PROFILE_READ', { role: 'TEAM_ADMIN', permissions: ['team.read'] }) },
    schema: { tags, summary: 'Get a team', params: OrgTeamParams, response: { 200: Envelope(TeamOutput) } },
    handler: async (request) => ok(presentTeam(orgAndTeam(request).team)),
  });

  app.patch('/v2/organizations/:orgId/teams/:teamId', {
    config: { access: access.tenant('ORG_PROFILE_WRITE', { role: 'ORG_ADMIN', permissions: ['team.update'] }) },
    schema: { tags, summary: 'Update a team', params: OrgTeamParams, body: UpdateTeamBody, response: { 200: Envelope(TeamOutput) } },
    handler: async (request) => ok(presentTeam(await teams.updateTeam(ctx, orgAndTeam(request).team.id, request.body))),
  });

  app.delete('/v2/organizations/:orgId/teams/:teamId', {
    config: { access: access.tenant('ORG_PROFILE_WRITE', { role: 'ORG_ADMIN', permissions: ['team.delete'] }) },
    schema: { tags, summary: 'Delete a team', description: 'With its memberships, roles, schedule and subscriptions, in one transaction.', params: OrgTeamParams, response: { 200: Envelope(TeamOutput) } },
    handler: async (request) => ok(presentTeam(await teams.deleteTeam(ctx, orgAndTeam(request).team.id))),
  });

  app.post('/v2/organizations/:orgId/teams/:teamId/invite', {
    config: { access: access.tenant('TEAM_MEMBERSHIP_WRITE', { role: 'TEAM_ADMIN', permissions: ['team.invite'] }) },
    schema: {
      tags: ['Orgs / Teams / Invite'],
      summary: 'Create team invite link',
      description: 'A new invitation link to the team, valid for 7 days. Only a hash of the token is stored.',
      params: OrgTeamParams,
      response: { 200: Envelope(InviteOutput) },
    },
    handler: async (request) => ok(await createInviteLink(ctx.database.db, ctx.config.appUrl, orgAndTeam(request).team.id, ctx.clock())),
  });
}

/** `/v2/organizations/:orgId/teams/:teamId/memberships` (the reference's OrganizationsTeamsMembershipsController). */
function registerOrganizationTeamMembershipRoutes(app: App, ctx: AppContext): void {
  const tags = ['Orgs / Teams / Memberships'];
  const rule = (permission: string) => ({ role: 'TEAM_ADMIN' as const, permissions: [permission] });

  app.get('/v2/organizations/:orgId/teams/:teamId/memberships', {
    config: { access: access.tenant('TEAM_MEMBERSHIP_READ', rule('team.listMembers')) },
    schema: { tags, summary: 'Get all memberships', params: OrgTeamParams, querystring: TakeSkipQuery(), response: { 200: Envelope(Type.Array(MembershipOutput)) } },
    handler: async (request) => {
      const rows = await listMemberships(ctx, orgAndTeam(request).team.id, { skip: request.query.skip ?? 0, take: request.query.take ?? 250 });
      return ok(rows.map(presentMembership));
    },
  });

  app.get('/v2/organizations/:orgId/teams/:teamId/memberships/:membershipId', {
    config: { access: access.tenant('TEAM_MEMBERSHIP_READ', rule('team.listMembers')) },
    schema: { tags, summary: 'Get a membership', params: OrgTeamMembershipParams, response: { 200: Envelope(MembershipOutput) } },
    handler: async (request) => ok(presentMembership(await orgTeams.getOrganizationTeamMembership(ctx.database.db, orgAndTeam(request).team.id, request.params.membershipId))),
  });

  app.post('/v2/organizations/:orgId/teams/:teamId/memberships', {
    config: { access: access.tenant('TEAM_MEMBERSHIP_WRITE', rule('team.invite')) },
    schema: {
      tags,
      summary: 'Create a membership',
      description: 'The user must belong to the organization (422 otherwise).',
      params: OrgTeamParams,
      body: CreateMembershipBody,
      response: { 201: Envelope(MembershipOutput) },
    },
    handler: async (request, reply) => {
      const { organization, team } = orgAndTeam(request);
      const membership = await orgTeams.createOrganizationTeamMembership(ctx, principalOf(request).user, organization.id, team.id, request.body);
      return reply.status(201).send(ok(presentMembership(membership)));
    },
  });

  app.patch('/v2/organizations/:orgId/teams/:teamId/memberships/:membershipId', {
    config: { access: access.tenant('TEAM_MEMBERSHIP_WRITE', rule('team.changeMemberRole')) },
    schema: {
      tags,
      summary: 'Update a membership',
      description: 'Only the fields sent change. `roleId` assigns a custom role of the team (svc extension). The last OWNER cannot be demoted.',
      params: OrgTeamMembershipParams,
      body: UpdateMembershipBody,
      response: { 200: Envelope(MembershipOutput) },
    },
    handler: async (request) => ok(presentMembership(await orgTeams.updateOrganizationTeamMembership(ctx, principalOf(request).user, orgAndTeam(request).team.id, request.params.membershipId, request.body))),
  });

  app.delete('/v2/organizations/:orgId/teams/:teamId/memberships/:membershipId', {
    config: { access: access.tenant('TEAM_MEMBERSHIP_WRITE', rule('team.remove')) },
    schema: { tags, summary: 'Delete a membership', description: 'The last OWNER cannot be removed.', params: OrgTeamMembershipParams, response: { 200: Envelope(MembershipOutput) } },
    handler: async (request) => {
      const { organization, team } = orgAndTeam(request);
      return ok(presentMembership(await orgTeams.deleteOrganizationTeamMembership(ctx, principalOf(request).user, organization.id, team.id, request.params.membershipId)));
    },
  });
}

export function registerOrganizationTeamsRoutes(app: App, ctx: AppContext): void {
  registerOrganizationTeamRoutes(app, ctx);
  registerOrganizationTeamMembershipRoutes(app, ctx);
}
