import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/app.js';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import { versionHeaderSchema } from '../../http/api-version.js';
import { Envelope, ok } from '../../http/envelope.js';
import { fieldRejected } from '../../lib/errors.js';
import * as reservations from './slot-reservations.service.js';
import {
  AwayHosts,
  DegradedHosts,
  ReservationOutput_2024_09_04,
  ReservationUidParams,
  ReservedSlotOutput_2024_09_04,
  ReserveSlotBody_2024_09_04,
  SlotsOutput_2024_09_04,
  SlotsQuery_2024_09_04,
} from './slots.schemas.js';
import { listSlots } from './slot-listing.service.js';
import { slotVariant } from './slots.versions.js';

const versionHeader = versionHeaderSchema('2024-09-04');

const SLOTS_QUERY_NAMES = new Set(Object.keys(SlotsQuery_2024_09_04.properties));

/**
 * The reference's slots query is validated with forbidNonWhitelisted: an unknown parameter (a typo
 * such as `eventTypeID`) is a 400, not silently dropped, here alone among svc's routes.
 */
async function refuseUnknownQueryParameters(request: FastifyRequest): Promise<void> {
  const unknown = Object.keys((request.query ?? {}) as Record<string, unknown>).find((name) => !SLOTS_QUERY_NAMES.has(name));
  if (unknown !== undefined) throw fieldRejected(unknown, 'unknown_property', `property ${unknown} should not exist`);
}

export function registerSlotRoutes(app: App, ctx: AppContext): void {
  const tags = ['Slots'];

  app.get('/v2/slots', {
    config: { access: access.public() },
    preValidation: refuseUnknownQueryParameters,
    schema: {
      tags,
      summary: 'Get available time slots for an event type',
      description:
        'Slots are the same instants whatever timeZone is asked: the zone only decides how they are printed and grouped. A start listed here can be reserved and booked until something takes it.',
      headers: versionHeader,
      querystring: SlotsQuery_2024_09_04,
      response: { 200: Type.Object({ status: Type.Literal('success'), data: SlotsOutput_2024_09_04, degradedHosts: Type.Optional(DegradedHosts), awayHosts: Type.Optional(AwayHosts) }) },
    },
    handler: async (request) => {
      const variant = slotVariant(request.apiVersion);
      const { input, presentation } = variant.toListInput(request.query);
      const list = await listSlots(ctx.database.db, ctx.availability, input, ctx.clock());
      return {
        ...ok(variant.presentSlots(list, presentation)),
        ...(list.degradedHosts.length > 0 ? { degradedHosts: list.degradedHosts.map((host) => ({ ...host, since: new Date(host.since).toISOString() })) } : {}),
        ...(list.awayHosts.length > 0 ? { awayHosts: list.awayHosts } : {}),
      };
    },
  });

  app.post('/v2/slots/reservations', {
    config: { access: access.publicOrUser() },
    schema: {
      tags,
      summary: 'Reserve a slot',
      description: 'Holds an available slot (or one seat of it) for everyone else until reservationUntil. Only authenticated callers may choose reservationDuration.',
      headers: versionHeader,
      body: ReserveSlotBody_2024_09_04,
      response: { 201: Envelope(ReservationOutput_2024_09_04) },
    },
    handler: async (request, reply) => {
      const variant = slotVariant(request.apiVersion);
      const view = await reservations.reserveSlot(ctx, request.principal?.user.id ?? null, variant.toReserveInput(request.body));
      return reply.status(201).send(ok(variant.presentReservation(view)));
    },
  });

  app.get('/v2/slots/reservations/:uid', {
    config: { access: access.public() },
    schema: {
      tags,
      summary: 'Get a reserved slot',
      description: 'data is null when there is no live reservation with this uid.',
      headers: versionHeader,
      params: ReservationUidParams,
      response: { 200: Envelope(Type.Union([ReservedSlotOutput_2024_09_04, Type.Null()])) },
    },
    handler: async (request) => {
      const view = await reservations.getReservation(ctx, request.params.uid);
      return ok(view && slotVariant(request.apiVersion).presentReservedSlot(view));
    },
  });

  app.patch('/v2/slots/reservations/:uid', {
    config: { access: access.publicOrUser() },
    schema: {
      tags,
      summary: 'Update a reserved slot',
      description: 'Moves or extends a live reservation: the new slot must be available apart from this reservation. The hold restarts from now.',
      headers: versionHeader,
      params: ReservationUidParams,
      body: ReserveSlotBody_2024_09_04,
      response: { 200: Envelope(ReservationOutput_2024_09_04) },
    },
    handler: async (request) => {
      const variant = slotVariant(request.apiVersion);
      const view = await reservations.updateReservation(ctx, request.principal?.user.id ?? null, request.params.uid, variant.toReserveInput(request.body));
      return ok(variant.presentReservation(view));
    },
  });

  app.delete('/v2/slots/reservations/:uid', {
    config: { access: access.public() },
    schema: { tags, summary: 'Delete a reserved slot', headers: versionHeader, params: ReservationUidParams, response: { 200: Type.Object({ status: Type.Literal('success') }) } },
    handler: async (request) => {
      await reservations.deleteReservation(ctx, request.params.uid);
      return { status: 'success' as const };
    },
  });
}
