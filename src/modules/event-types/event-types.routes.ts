import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import { versionHeaderSchema } from '../../http/api-version.js';
import { Envelope, ok } from '../../http/envelope.js';
import { principalOf } from '../../http/request-guard.js';
import {
  CreateEventTypeBody_2024_06_14,
  DeletedEventTypeOutput_2024_06_14,
  EventTypeIdParams,
  EventTypeOutput_2024_06_14,
  EventTypesQuery_2024_06_14,
  UpdateEventTypeBody_2024_06_14,
} from './event-types.schemas.js';
import * as eventTypes from './event-types.service.js';
import { eventTypeVariant } from './event-types.versions.js';

const versionHeader = versionHeaderSchema('2024-06-14', 'Send 2024-06-14 (or 2026-06-12 to also set calendarInvites)');

/** Where the caller's version does not take `calendarInvites`, it is dropped before validation, like any unknown property. */
export async function dropCalendarInvitesUnlessAccepted(request: FastifyRequest): Promise<void> {
  const body = request.body as Record<string, unknown> | null;
  if (body && typeof body === 'object' && !eventTypeVariant(request.apiVersion).acceptsCalendarInvites) delete body.calendarInvites;
}

export function registerEventTypeRoutes(app: App, ctx: AppContext): void {
  const tags = ['Event Types'];

  app.post('/v2/event-types', {
    config: { access: access.user('EVENT_TYPE_WRITE') },
    preValidation: dropCalendarInvitesUnlessAccepted,
    schema: { tags, summary: 'Create an event type', headers: versionHeader, body: CreateEventTypeBody_2024_06_14, response: { 201: Envelope(EventTypeOutput_2024_06_14) } },
    handler: async (request, reply) => {
      const variant = eventTypeVariant(request.apiVersion);
      const view = await eventTypes.createEventType(ctx, principalOf(request).user, variant.toCreateInput(request.body));
      return reply.status(201).send(ok(variant.present(view, ctx.config)));
    },
  });

  app.get('/v2/event-types', {
    config: { access: access.publicOrUser('EVENT_TYPE_READ') },
    schema: {
      tags,
      summary: 'Get all event types',
      description: 'Hidden event types are listed only for their owner. Without filters, an authenticated caller gets their own event types.',
      headers: versionHeader,
      querystring: EventTypesQuery_2024_06_14,
      response: { 200: Envelope(Type.Array(EventTypeOutput_2024_06_14)) },
    },
    handler: async (request) => {
      const { usernames, ...query } = request.query;
      const list = usernames?.split(',').map((name) => name.trim()).filter(Boolean);
      const views = await eventTypes.listEventTypes(ctx.database.db, request.principal?.user ?? null, { ...query, usernames: list });
      const { presentInList } = eventTypeVariant(request.apiVersion);
      return ok(views.map((view) => presentInList(view, ctx.config)));
    },
  });

  app.get('/v2/event-types/:eventTypeId', {
    config: { access: access.user('EVENT_TYPE_READ') },
    schema: { tags, summary: 'Get an event type', headers: versionHeader, params: EventTypeIdParams, response: { 200: Envelope(EventTypeOutput_2024_06_14) } },
    handler: async (request) => {
      const view = await eventTypes.getEventType(ctx.database.db, principalOf(request).user, request.params.eventTypeId);
      return ok(eventTypeVariant(request.apiVersion).present(view, ctx.config));
    },
  });

  app.patch('/v2/event-types/:eventTypeId', {
    config: { access: access.user('EVENT_TYPE_WRITE') },
    preValidation: dropCalendarInvitesUnlessAccepted,
    schema: { tags, summary: 'Update an event type', headers: versionHeader, params: EventTypeIdParams, body: UpdateEventTypeBody_2024_06_14, response: { 200: Envelope(EventTypeOutput_2024_06_14) } },
    handler: async (request) => {
      const variant = eventTypeVariant(request.apiVersion);
      const view = await eventTypes.updateEventType(ctx, principalOf(request).user, request.params.eventTypeId, variant.toUpdateInput(request.body));
      return ok(variant.present(view, ctx.config));
    },
  });

  app.delete('/v2/event-types/:eventTypeId', {
    config: { access: access.user('EVENT_TYPE_WRITE') },
    schema: { tags, summary: 'Delete an event type', headers: versionHeader, params: EventTypeIdParams, response: { 200: Envelope(DeletedEventTypeOutput_2024_06_14) } },
    handler: async (request) => {
      const row = await eventTypes.deleteEventType(ctx, principalOf(request).user.id, request.params.eventTypeId);
      return ok(eventTypeVariant(request.apiVersion).presentDeleted(row));
    },
  });
}
