import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access, type RouteAccess } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { tenantOf } from '../../http/request-guard.js';
import { notFound } from '../../lib/errors.js';
import { OrgIdParams, OrgTeamParams } from '../organizations/organizations.schemas.js';
import { TeamIdParams } from '../teams/teams.schemas.js';
import { dropCalendarInvitesUnlessAccepted } from './event-types.routes.js';
import { toCreateTeamInput, toTeamChanges } from './team-event-types.input.js';
import { presentDeletedTeamEventType, presentTeamEventType } from './team-event-types.presenter.js';
import {
  CreateTeamEventTypeBody,
  DeletedTeamEventTypeOutput,
  OrganizationEventTypesQuery,
  OrgTeamEventTypeParams,
  TeamEventTypeOutput,
  TeamEventTypeParams,
  TeamEventTypesQuery,
  UpdateTeamEventTypeBody,
} from './team-event-types.schemas.js';
import * as teamEventTypes from './team-event-types.service.js';
import { findTeam } from './team-event-types.repository.js';

/** The team the route names; the system admin passes the access check for one that does not exist. */
function namedTeam(request: FastifyRequest) {
  const { team } = tenantOf(request);
  if (!team) throw notFound('team_not_found', `Team with id=${(request.params as { teamId: number }).teamId} not found`);
  return team;
}

const CREATE_DESCRIPTION =
  'Hosts must be accepted members of the team. Collective and managed: hosts or assignAllTeamMembers, not both; round robin with assignAllTeamMembers takes hosts only to mark mandatory (fixed) hosts. A managed event type gives each assigned member a child event type of their own (same slug), kept in sync with every field but locations and scheduleId; its create answers the parent followed by the children.';

interface Access {
  read: RouteAccess;
  create: RouteAccess;
  update: RouteAccess;
  remove: RouteAccess;
}

/** The five operations on one team's event types, under `base` (a standalone team's or an organization team's path). */
function registerTeamEventTypeOperations(app: App, ctx: AppContext, base: string, tags: string[], rules: Access, params: { team: typeof TeamIdParams | typeof OrgTeamParams; one: typeof TeamEventTypeParams | typeof OrgTeamEventTypeParams }) {
  app.post(base, {
    config: { access: rules.create },
    preValidation: dropCalendarInvitesUnlessAccepted,
    schema: {
      tags,
      summary: 'Create an event type',
      description: CREATE_DESCRIPTION,
      params: params.team,
      body: CreateTeamEventTypeBody,
      response: { 201: Envelope(Type.Union([TeamEventTypeOutput, Type.Array(TeamEventTypeOutput)])) },
    },
    handler: async (request, reply) => {
      const views = await teamEventTypes.createTeamEventType(ctx, namedTeam(request), toCreateTeamInput(request.body));
      const outputs = views.map((view) => presentTeamEventType(view, ctx.config));
      return reply.status(201).send(ok(outputs.length === 1 ? outputs[0]! : outputs));
    },
  });

  app.get(`${base}/:eventTypeId`, {
    config: { access: rules.read },
    schema: { tags, summary: 'Get an event type', params: params.one, response: { 200: Envelope(TeamEventTypeOutput) } },
    handler: async (request) => {
      const view = await teamEventTypes.getTeamEventType(ctx.database.db, namedTeam(request), request.params.eventTypeId);
      return ok(presentTeamEventType(view, ctx.config));
    },
  });

  app.patch(`${base}/:eventTypeId`, {
    config: { access: rules.update },
    preValidation: dropCalendarInvitesUnlessAccepted,
    schema: { tags, summary: 'Update a team event type', description: 'Every field optional. Changing schedulingType (collective <-> roundRobin only) needs hosts or assignAllTeamMembers.', params: params.one, body: UpdateTeamEventTypeBody, response: { 200: Envelope(TeamEventTypeOutput) } },
    handler: async (request) => {
      const view = await teamEventTypes.updateTeamEventType(ctx, namedTeam(request), request.params.eventTypeId, toTeamChanges(request.body));
      return ok(presentTeamEventType(view, ctx.config));
    },
  });

  app.delete(`${base}/:eventTypeId`, {
    config: { access: rules.remove },
    schema: { tags, summary: 'Delete a team event type', description: 'A managed event type goes with its children.', params: params.one, response: { 200: Envelope(DeletedTeamEventTypeOutput) } },
    handler: async (request) => {
      const row = await teamEventTypes.deleteTeamEventType(ctx, namedTeam(request), request.params.eventTypeId);
      return ok(presentDeletedTeamEventType(row));
    },
  });
}

/**
 * `/v2/teams/{teamId}/event-types` (TeamsEventTypesController) and
 * `/v2/organizations/{orgId}/teams/{teamId}/event-types` (OrganizationsEventTypesController). The
 * reference's `create-phone-call` is not registered: svc has no telephony.
 */
export function registerTeamEventTypeRoutes(app: App, ctx: AppContext): void {
  const teamAdmin = (scope: 'TEAM_EVENT_TYPE_READ' | 'TEAM_EVENT_TYPE_WRITE') => access.tenant(scope, { role: 'TEAM_ADMIN', permissions: [] });
  registerTeamEventTypeOperations(app, ctx, '/v2/teams/:teamId/event-types', ['Teams / Event Types'], {
    read: teamAdmin('TEAM_EVENT_TYPE_READ'),
    create: teamAdmin('TEAM_EVENT_TYPE_WRITE'),
    update: teamAdmin('TEAM_EVENT_TYPE_WRITE'),
    remove: teamAdmin('TEAM_EVENT_TYPE_WRITE'),
  }, { team: TeamIdParams, one: TeamEventTypeParams });

  const orgTeamAdmin = (scope: 'TEAM_EVENT_TYPE_READ' | 'TEAM_EVENT_TYPE_WRITE', permission: string) => access.tenant(scope, { role: 'TEAM_ADMIN', permissions: [permission] });
  const orgTags = ['Orgs / Teams / Event Types'];
  registerTeamEventTypeOperations(app, ctx, '/v2/organizations/:orgId/teams/:teamId/event-types', orgTags, {
    read: orgTeamAdmin('TEAM_EVENT_TYPE_READ', 'eventType.read'),
    create: orgTeamAdmin('TEAM_EVENT_TYPE_WRITE', 'eventType.create'),
    update: orgTeamAdmin('TEAM_EVENT_TYPE_WRITE', 'eventType.update'),
    remove: orgTeamAdmin('TEAM_EVENT_TYPE_WRITE', 'eventType.delete'),
  }, { team: OrgTeamParams, one: OrgTeamEventTypeParams });

  app.get('/v2/teams/:teamId/event-types', {
    config: { access: access.public() },
    schema: {
      tags: ['Teams / Event Types'],
      summary: 'Get team event types',
      description: 'Public. `eventSlug`: only that event type (with at most `hostsLimit` hosts). Oldest first unless `sortCreatedAt=desc`.',
      params: TeamIdParams,
      querystring: TeamEventTypesQuery,
      response: { 200: Envelope(Type.Array(TeamEventTypeOutput)) },
    },
    handler: async (request) => {
      const { hostsLimit, ...query } = request.query;
      const views = await teamEventTypes.listTeamEventTypes(ctx.database.db, request.params.teamId, query);
      return ok(views.map((view) => presentTeamEventType(view, ctx.config, query.eventSlug !== undefined ? hostsLimit : undefined)));
    },
  });

  app.get('/v2/organizations/:orgId/teams/:teamId/event-types', {
    config: { access: access.public() },
    schema: {
      tags: orgTags,
      summary: 'Get team event types',
      description: 'Public, as in the reference. 404 when the team is not one of the organization. `eventSlug`: only that event type (with at most `hostsLimit` hosts).',
      params: OrgTeamParams,
      querystring: TeamEventTypesQuery,
      response: { 200: Envelope(Type.Array(TeamEventTypeOutput)) },
    },
    handler: async (request) => {
      const { orgId, teamId } = request.params;
      const team = await findTeam(ctx.database.db, teamId);
      if (!team || team.parentId !== orgId) throw notFound('team_not_found', `IsTeamInOrg - Team (${teamId}) not found.`);
      const { hostsLimit, ...query } = request.query;
      const views = await teamEventTypes.listTeamEventTypes(ctx.database.db, teamId, query);
      return ok(views.map((view) => presentTeamEventType(view, ctx.config, query.eventSlug !== undefined ? hostsLimit : undefined)));
    },
  });

  app.get('/v2/organizations/:orgId/teams/event-types', {
    config: { access: access.tenant('ORG_EVENT_TYPE_READ', { role: 'ORG_ADMIN', permissions: ['eventType.read'] }) },
    schema: {
      tags: orgTags,
      summary: 'Get all team event types',
      description: "Every event type of the organization's teams, for its admins and owners. Oldest first unless `sortCreatedAt=desc`.",
      params: OrgIdParams,
      querystring: OrganizationEventTypesQuery,
      response: { 200: Envelope(Type.Array(TeamEventTypeOutput)) },
    },
    handler: async (request) => {
      const { skip, take, sortCreatedAt } = request.query;
      const views = await teamEventTypes.listOrganizationTeamsEventTypes(ctx.database.db, request.params.orgId, { skip: skip ?? 0, take: take ?? 250, sortCreatedAt });
      return ok(views.map((view) => presentTeamEventType(view, ctx.config)));
    },
  });
}
