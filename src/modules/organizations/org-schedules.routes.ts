import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import type { FastifyRequest } from 'fastify';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { TakeSkipQuery } from '../../http/pagination.js';
import { principalOf } from '../../http/request-guard.js';
import { CreateScheduleBody_2024_06_11, ScheduleOutput_2024_06_11, UpdateScheduleBody_2024_06_11 } from '../schedules/schedules.schemas.js';
import * as schedules from '../schedules/schedules.service.js';
import { scheduleVersions } from '../schedules/schedules.versions.js';
import { OrgIdParams, OrgTeamParams } from './organizations.schemas.js';
import { OrgTeamUserParams, OrgUserParams, OrgUserScheduleParams } from './org-users.schemas.js';
import * as orgUsers from './org-users.service.js';

// These routes take no version header: the 2024-06-11 shapes, as under /v2/schedules.
const variant = scheduleVersions.variants['2024-06-11']!;

/**
 * `/v2/organizations/:orgId/schedules` and `/v2/organizations/:orgId/users/:userId/schedules` (the
 * reference's OrganizationsSchedulesController): organization admins manage their users' schedules.
 * svc's permission catalogue has no `availability.*` permissions (the reference's @Pbac here), so
 * only the role lets callers through.
 */
function registerOrganizationUserScheduleRoutes(app: App, ctx: AppContext): void {
  const tags = ['Orgs / Users / Schedules'];
  const read = access.tenant('ORG_SCHEDULE_READ', { role: 'ORG_ADMIN', permissions: [] });
  const write = access.tenant('ORG_SCHEDULE_WRITE', { role: 'ORG_ADMIN', permissions: [] });
  type UserRequest = FastifyRequest<{ Params: { orgId: number; userId: number } }>;
  // Reads: any user of the organization (IsUserInOrg: a profile there, which a member has once they accepted).
  const readableUser = async (request: UserRequest) => (await orgUsers.getOrganizationUser(ctx.database.db, request.params.orgId, request.params.userId)).user;
  // Writes: only users the organization created. Any user id can be added to an organization, so a member who
  // merely joined it keeps their schedules to themselves (the reference lets its admins write them too).
  const targetUser = async (request: UserRequest) =>
    (await orgUsers.getManagedOrganizationUser(ctx.database.db, principalOf(request).user, request.params.orgId, request.params.userId)).user;

  app.get('/v2/organizations/:orgId/schedules', {
    config: { access: read },
    schema: {
      tags: ['Orgs / Schedules'],
      summary: 'Get all schedules',
      description: "Every schedule of the organization's users (those with a profile in it), oldest first.",
      params: OrgIdParams,
      querystring: TakeSkipQuery(),
      response: { 200: Envelope(Type.Array(ScheduleOutput_2024_06_11)) },
    },
    handler: async (request) => {
      const views = await schedules.listSchedulesOfOrganizationUsers(ctx.database.db, request.params.orgId, { skip: request.query.skip ?? 0, take: request.query.take ?? 250 });
      return ok(views.map(variant.present));
    },
  });

  app.post('/v2/organizations/:orgId/users/:userId/schedules', {
    config: { access: write },
    schema: { tags, summary: 'Create a schedule', params: OrgUserParams, body: CreateScheduleBody_2024_06_11, response: { 201: Envelope(ScheduleOutput_2024_06_11) } },
    handler: async (request, reply) => {
      const user = await targetUser(request);
      const view = await schedules.createSchedule(ctx, user.id, variant.toCreateInput(request.body));
      return reply.status(201).send(ok(variant.present(view)));
    },
  });

  app.get('/v2/organizations/:orgId/users/:userId/schedules', {
    config: { access: read },
    schema: {
      tags,
      summary: 'Get all schedules',
      description: "Any user of the organization (a profile there: a member who accepted). Creating, changing and deleting schedules is for the users the organization created.",
      params: OrgUserParams,
      response: { 200: Envelope(Type.Array(ScheduleOutput_2024_06_11)) },
    },
    handler: async (request) => ok((await schedules.listSchedules(ctx.database.db, await readableUser(request))).map(variant.present)),
  });

  app.get('/v2/organizations/:orgId/users/:userId/schedules/:scheduleId', {
    config: { access: read },
    schema: { tags, summary: 'Get a schedule', params: OrgUserScheduleParams, response: { 200: Envelope(ScheduleOutput_2024_06_11) } },
    handler: async (request) => ok(variant.present(await schedules.getSchedule(ctx.database.db, await readableUser(request), request.params.scheduleId))),
  });

  app.patch('/v2/organizations/:orgId/users/:userId/schedules/:scheduleId', {
    config: { access: write },
    schema: { tags, summary: 'Update a schedule', params: OrgUserScheduleParams, body: UpdateScheduleBody_2024_06_11, response: { 200: Envelope(ScheduleOutput_2024_06_11) } },
    handler: async (request) => {
      const user = await targetUser(request);
      return ok(variant.present(await schedules.updateSchedule(ctx, user.id, request.params.scheduleId, variant.toUpdateInput(request.body))));
    },
  });

  app.delete('/v2/organizations/:orgId/users/:userId/schedules/:scheduleId', {
    config: { access: write },
    schema: { tags, summary: 'Delete a schedule', params: OrgUserScheduleParams, response: { 200: Type.Object({ status: Type.Literal('success') }) } },
    handler: async (request) => {
      const user = await targetUser(request);
      await schedules.deleteSchedule(ctx, user.id, request.params.scheduleId);
      return { status: 'success' as const };
    },
  });
}

/**
 * `/v2/organizations/:orgId/teams/:teamId/schedules` and `.../users/:userId/schedules` (the reference's
 * OrganizationsTeamsSchedulesController, where IsTeamInOrg runs before RolesGuard: 404 first).
 */
function registerOrganizationTeamScheduleRoutes(app: App, ctx: AppContext): void {
  const read = access.tenant('TEAM_SCHEDULE_READ', { role: 'TEAM_ADMIN', permissions: [], teamInOrgFirst: true });

  app.get('/v2/organizations/:orgId/teams/:teamId/schedules', {
    config: { access: read },
    schema: {
      tags: ['Orgs / Teams / Schedules'],
      summary: 'Get all team member schedules',
      description: "Every schedule of the team's accepted members, oldest first: a member who has not accepted shows the team nothing.",
      params: OrgTeamParams,
      querystring: TakeSkipQuery(),
      response: { 200: Envelope(Type.Array(ScheduleOutput_2024_06_11)) },
    },
    handler: async (request) => {
      const views = await schedules.listSchedulesOfTeamMembers(ctx.database.db, request.params.teamId, { skip: request.query.skip ?? 0, take: request.query.take ?? 250 });
      return ok(views.map(variant.present));
    },
  });

  app.get('/v2/organizations/:orgId/teams/:teamId/users/:userId/schedules', {
    config: { access: read },
    schema: {
      tags: ['Orgs / Teams / Users / Schedules'],
      summary: 'Get schedules of a team member',
      description: 'The user must have a profile in the organization and a membership in the team (403 otherwise).',
      params: OrgTeamUserParams,
      response: { 200: Envelope(Type.Array(ScheduleOutput_2024_06_11)) },
    },
    handler: async (request) => {
      const { orgId, teamId, userId } = request.params;
      await orgUsers.assertUserInOrganizationTeam(ctx.database.db, orgId, teamId, userId);
      const { user } = await orgUsers.getOrganizationUser(ctx.database.db, orgId, userId);
      return ok((await schedules.listSchedules(ctx.database.db, user)).map(variant.present));
    },
  });
}

export function registerOrganizationScheduleRoutes(app: App, ctx: AppContext): void {
  registerOrganizationUserScheduleRoutes(app, ctx);
  registerOrganizationTeamScheduleRoutes(app, ctx);
}
