import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { TakeSkipQuery } from '../../http/pagination.js';
import { tenantOf } from '../../http/request-guard.js';
import { notFound } from '../../lib/errors.js';
import { ScheduleOutput_2024_06_11 } from '../schedules/schedules.schemas.js';
import * as schedules from '../schedules/schedules.service.js';
import { scheduleVersions } from '../schedules/schedules.versions.js';
import { TeamIdParams } from './teams.schemas.js';

const variant = scheduleVersions.variants['2024-06-11']!;

/** `/v2/teams/:teamId/schedules` (the reference's TeamsSchedulesController): the team's admins see its members' schedules. */
export function registerTeamScheduleRoutes(app: App, ctx: AppContext): void {
  app.get('/v2/teams/:teamId/schedules', {
    config: { access: access.tenant('TEAM_SCHEDULE_READ', { role: 'TEAM_ADMIN', permissions: [] }) },
    schema: {
      tags: ['Teams / Schedules'],
      summary: 'Get all team member schedules',
      description: "Every schedule of the team's accepted members, oldest first: a member who has not accepted shows the team nothing.",
      params: TeamIdParams,
      querystring: TakeSkipQuery(),
      response: { 200: Envelope(Type.Array(ScheduleOutput_2024_06_11)) },
    },
    handler: async (request) => {
      // The system admin passes the access check for a team that does not exist.
      if (!tenantOf(request).team) throw notFound('team_not_found', `Team with id=${request.params.teamId} not found`);
      const views = await schedules.listSchedulesOfTeamMembers(ctx.database.db, request.params.teamId, { skip: request.query.skip ?? 0, take: request.query.take ?? 250 });
      return ok(views.map(variant.present));
    },
  });
}
