import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import { pickVariant, versionHeaderSchema } from '../../http/api-version.js';
import { Envelope, ok } from '../../http/envelope.js';
import { principalOf } from '../../http/request-guard.js';
import {
  CreateScheduleBody_2024_06_11,
  ScheduleIdParams,
  ScheduleOutput_2024_06_11,
  UpdateScheduleBody_2024_06_11,
} from './schedules.schemas.js';
import * as schedules from './schedules.service.js';
import { scheduleVersions } from './schedules.versions.js';

const versionHeader = versionHeaderSchema('2024-06-11');

export function registerScheduleRoutes(app: App, ctx: AppContext): void {
  const tags = ['Schedules'];
  const variantOf = (request: { apiVersion: Parameters<typeof pickVariant>[1] }) => pickVariant(scheduleVersions, request.apiVersion)!;

  app.post('/v2/schedules', {
    config: { access: access.user('SCHEDULE_WRITE') },
    schema: { tags, summary: 'Create a schedule', headers: versionHeader, body: CreateScheduleBody_2024_06_11, response: { 201: Envelope(ScheduleOutput_2024_06_11) } },
    handler: async (request, reply) => {
      const variant = variantOf(request);
      const view = await schedules.createSchedule(ctx, principalOf(request).user.id, variant.toCreateInput(request.body));
      return reply.status(201).send(ok(variant.present(view)));
    },
  });

  app.get('/v2/schedules', {
    config: { access: access.user('SCHEDULE_READ') },
    schema: { tags, summary: 'Get all schedules', headers: versionHeader, response: { 200: Envelope(Type.Array(ScheduleOutput_2024_06_11)) } },
    handler: async (request) => {
      const views = await schedules.listSchedules(ctx.database.db, principalOf(request).user);
      return ok(views.map(variantOf(request).present));
    },
  });

  app.get('/v2/schedules/default', {
    config: { access: access.user('SCHEDULE_READ') },
    schema: { tags, summary: 'Get default schedule', headers: versionHeader, response: { 200: Envelope(Type.Union([ScheduleOutput_2024_06_11, Type.Null()])) } },
    handler: async (request) => {
      const view = await schedules.getDefaultSchedule(ctx.database.db, principalOf(request).user);
      return ok(view && variantOf(request).present(view));
    },
  });

  app.get('/v2/schedules/:scheduleId', {
    config: { access: access.user('SCHEDULE_READ') },
    schema: { tags, summary: 'Get a schedule', headers: versionHeader, params: ScheduleIdParams, response: { 200: Envelope(ScheduleOutput_2024_06_11) } },
    handler: async (request) => {
      const view = await schedules.getSchedule(ctx.database.db, principalOf(request).user, request.params.scheduleId);
      return ok(variantOf(request).present(view));
    },
  });

  app.patch('/v2/schedules/:scheduleId', {
    config: { access: access.user('SCHEDULE_WRITE') },
    schema: { tags, summary: 'Update a schedule', headers: versionHeader, params: ScheduleIdParams, body: UpdateScheduleBody_2024_06_11, response: { 200: Envelope(ScheduleOutput_2024_06_11) } },
    handler: async (request) => {
      const variant = variantOf(request);
      const view = await schedules.updateSchedule(ctx, principalOf(request).user.id, request.params.scheduleId, variant.toUpdateInput(request.body));
      return ok(variant.present(view));
    },
  });

  app.delete('/v2/schedules/:scheduleId', {
    config: { access: access.user('SCHEDULE_WRITE') },
    schema: { tags, summary: 'Delete a schedule', headers: versionHeader, params: ScheduleIdParams, response: { 200: Type.Object({ status: Type.Literal('success') }) } },
    handler: async (request) => {
      await schedules.deleteSchedule(ctx, principalOf(request).user.id, request.params.scheduleId);
      return { status: 'success' as const };
    },
  });
}
