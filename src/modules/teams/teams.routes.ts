import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { principalOf, tenantOf } from '../../http/request-guard.js';
import { notFound } from '../../lib/errors.js';
import { InviteOutput } from '../organizations/organizations.schemas.js';
import { presentMembership, presentTeam } from './teams.presenter.js';
import {
  CreateMembershipBody,
  CreateTeamBody,
  MembershipOutput,
  TeamIdParams,
  TeamMembershipParams,
  TeamMembershipsQuery,
  TeamOutput,
  UpdateMembershipBody,
  UpdateTeamBody,
} from './teams.schemas.js';
import { createInviteLink } from './membership-invitations.service.js';
import * as memberships from './memberships.service.js';
import * as teams from './teams.service.js';

/** The team a `/v2/teams/:teamId` route names; the system admin may name one that does not exist. */
function namedTeam(request: Parameters<typeof tenantOf>[0]) {
  const { team } = tenantOf(request);
  if (!team) throw notFound('team_not_found', `Team with id=${(request.params as { teamId: number }).teamId} not found`);
  return team;
}

/** `/v2/teams`: standalone teams, for their members (the reference's TeamsController). */
function registerTeamRoutes(app: App, ctx: AppContext): void {
  const tags = ['Teams'];

  app.post('/v2/teams', {
    config: { access: access.user('TEAM_PROFILE_WRITE') },
    schema: {
      tags,
      summary: 'Create a team',
      description: 'The caller becomes its OWNER (accepted unless `autoAcceptCreator` is false). The team gets its own default schedule in its `timeZone` (default Europe/London). svc has no billing: the team is answered at once.',
      body: CreateTeamBody,
      response: { 201: Envelope(TeamOutput) },
    },
    handler: async (request, reply) => {
      const team = await teams.createStandaloneTeam(ctx, principalOf(request).user.id, request.body);
      return reply.status(201).send(ok(presentTeam(team)));
    },
  });

  app.get('/v2/teams', {
    config: { access: access.user('TEAM_PROFILE_READ') },
    schema: { tags, summary: 'Get teams', description: 'Every team and organization the caller is a member of, invitations not yet accepted included.', response: { 200: Envelope(Type.Array(TeamOutput)) } },
    handler: async (request) => ok((await teams.listTeamsOfUser(ctx.database.db, principalOf(request).user.id)).map(presentTeam)),
  });

  app.get('/v2/teams/:teamId', {
    config: { access: access.tenant('TEAM_PROFILE_READ', { role: 'TEAM_MEMBER', permissions: [] }) },
    schema: { tags, summary: 'Get a team', params: TeamIdParams, response: { 200: Envelope(TeamOutput) } },
    handler: async (request) => ok(presentTeam(namedTeam(request))),
  });

  app.patch('/v2/teams/:teamId', {
    config: { access: access.tenant('TEAM_PROFILE_WRITE', { role: 'TEAM_OWNER', permissions: [] }) },
    schema: { tags, summary: 'Update a team', params: TeamIdParams, body: UpdateTeamBody, response: { 200: Envelope(TeamOutput) } },
    handler: async (request) => ok(presentTeam(await teams.updateTeam(ctx, namedTeam(request).id, request.body))),
  });

  app.delete('/v2/teams/:teamId', {
    config: { access: access.tenant('TEAM_PROFILE_WRITE', { role: 'TEAM_OWNER', permissions: [] }) },
    schema: { tags, summary: 'Delete a team', description: 'Deletes the team with its memberships, schedule and subscriptions, in one transaction.', params: TeamIdParams, response: { 200: Envelope(TeamOutput) } },
    handler: async (request) => ok(presentTeam(await teams.deleteTeam(ctx, namedTeam(request).id))),
  });
}

/** `/v2/teams/:teamId/memberships`: for the team's admins and owners (the reference's TeamsMembershipsController). */
function registerTeamMembershipRoutes(app: App, ctx: AppContext): void {
  const tags = ['Teams / Memberships'];
  const read = access.tenant('TEAM_MEMBERSHIP_READ', { role: 'TEAM_ADMIN', permissions: [] });
  const write = access.tenant('TEAM_MEMBERSHIP_WRITE', { role: 'TEAM_ADMIN', permissions: [] });

  app.post('/v2/teams/:teamId/memberships', {
    config: { access: write },
    schema: { tags, summary: 'Create a membership', params: TeamIdParams, body: CreateMembershipBody, response: { 201: Envelope(MembershipOutput) } },
    handler: async (request, reply) => {
      const membership = await memberships.addMember(ctx, principalOf(request).user, namedTeam(request).id, request.body);
      return reply.status(201).send(ok(presentMembership(membership)));
    },
  });

  app.get('/v2/teams/:teamId/memberships', {
    config: { access: read },
    schema: { tags, summary: 'Get all memberships', params: TeamIdParams, querystring: TeamMembershipsQuery, response: { 200: Envelope(Type.Array(MembershipOutput)) } },
    handler: async (request) => {
      const { skip, take, emails } = request.query;
      const rows = await memberships.listMemberships(ctx, namedTeam(request).id, { skip: skip ?? 0, take: take ?? 250, emails: memberships.parseEmailFilter(emails) });
      return ok(rows.map(presentMembership));
    },
  });

  app.get('/v2/teams/:teamId/memberships/:membershipId', {
    config: { access: read },
    schema: { tags, summary: 'Get a membership', params: TeamMembershipParams, response: { 200: Envelope(MembershipOutput) } },
    handler: async (request) => ok(presentMembership(await memberships.getTeamMembership(ctx.database.db, namedTeam(request).id, request.params.membershipId))),
  });

  app.patch('/v2/teams/:teamId/memberships/:membershipId', {
    config: { access: write },
    schema: {
      tags,
      summary: 'Update a membership',
      description: 'Only the fields sent change. The last OWNER cannot be demoted (400 naming the membership).',
      params: TeamMembershipParams,
      body: UpdateMembershipBody,
      response: { 200: Envelope(MembershipOutput) },
    },
    handler: async (request) => ok(presentMembership(await memberships.changeMembership(ctx, principalOf(request).user, namedTeam(request).id, request.params.membershipId, request.body))),
  });

  app.post('/v2/teams/:teamId/invite', {
    config: { access: write },
    schema: {
      tags: ['Teams / Invite'],
      summary: 'Create team invite link',
      description: 'A new invitation link to the team, valid for 7 days: whoever accepts it on its page joins as MEMBER. Only a hash of the token is stored.',
      params: TeamIdParams,
      response: { 200: Envelope(InviteOutput) },
    },
    handler: async (request) => ok(await createInviteLink(ctx.database.db, ctx.config.appUrl, namedTeam(request).id, ctx.clock())),
  });

  app.delete('/v2/teams/:teamId/memberships/:membershipId', {
    config: { access: write },
    schema: { tags, summary: 'Delete a membership', description: 'The last OWNER cannot be removed (400 naming the membership).', params: TeamMembershipParams, response: { 200: Envelope(MembershipOutput) } },
    handler: async (request) => ok(presentMembership(await memberships.removeMember(ctx, principalOf(request).user, namedTeam(request).id, request.params.membershipId))),
  });
}

export function registerTeamsRoutes(app: App, ctx: AppContext): void {
  registerTeamRoutes(app, ctx);
  registerTeamMembershipRoutes(app, ctx);
}
