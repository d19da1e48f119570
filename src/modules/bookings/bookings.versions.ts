import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { API_VERSION_HEADER, pickVariant, type ApiVersion, type VersionTable, versionHeaderSchema } from '../../http/api-version.js';
import { presentPagination } from '../../http/pagination.js';
import { StringEnum } from '../../http/schema-types.js';
import { invalidField, notFound } from '../../lib/errors.js';
import { parseIsoInstant } from '../../lib/iso-instant.js';
import type { BookingTarget, CreateBookingInput, CreatedBookings } from './create/booking-create.service.js';
import { presentBooking, presentSeatedBooking } from './bookings.presenter.js';
import type { BookingRecord, ListStatus } from './bookings.repository.js';
import type { BookingsQuery_2024_08_13, CreateBookingBody_2024_08_13 } from './bookings.schemas.js';
import type { ListBookingsInput } from './bookings.service.js';

type CreateBody = Static<typeof CreateBookingBody_2024_08_13>;
type ListQuery = Static<typeof BookingsQuery_2024_08_13>;

const LIST_STATUSES = ['upcoming', 'recurring', 'past', 'cancelled', 'unconfirmed'] as const;

/** The event type the body names; null when only a private link names it. */
function targetOf(body: CreateBody): BookingTarget | null {
  if (body.eventTypeId !== undefined) return { kind: 'id', eventTypeId: body.eventTypeId };
  if (body.eventTypeSlug !== undefined && body.username !== undefined) {
    return { kind: 'slug', username: body.username, eventTypeSlug: body.eventTypeSlug, organizationSlug: body.organizationSlug };
  }
  if (body.eventTypeSlug !== undefined && body.teamSlug !== undefined) {
    return { kind: 'team', teamSlug: body.teamSlug, eventTypeSlug: body.eventTypeSlug, organizationSlug: body.organizationSlug };
  }
  if (body.privateLinkId !== undefined) return null;
  throw invalidField('eventTypeId', 'is required: either eventTypeId or eventTypeSlug + username or eventTypeSlug + teamSlug must be provided');
}

function toCreateInput(body: CreateBody): CreateBookingInput {
  return {
    target: targetOf(body),
    start: Date.parse(body.start),
    attendee: body.attendee,
    bookingFieldsResponses: body.bookingFieldsResponses ?? {},
    guests: body.guests ?? [],
    location: body.location as CreateBookingInput['location'],
    metadata: body.metadata ?? {},
    lengthInMinutes: body.lengthInMinutes,
    recurrenceCount: body.recurrenceCount,
    instant: body.instant,
    reservationUid: body.reservationUid,
    privateLinkId: body.privateLinkId,
    routing: body.routing && { responseId: body.routing.responseId, teamMemberIds: body.routing.teamMemberIds },
  };
}

const csv = (text: string | undefined) => text?.split(',').map((item) => item.trim()).filter(Boolean);

/** Comma-separated positive ids (at least one), or a 400 naming the parameter. */
export function commaSeparatedIds(name: string, text: string | undefined): number[] | undefined {
  const ids = csv(text)?.map(Number);
  if (ids && (ids.length === 0 || ids.some((id) => !Number.isInteger(id) || id < 1 || id > 2147483647))) {
    throw invalidField(name, 'must be comma-separated ids, at least one', text);
  }
  return ids;
}
const instant = (text: string | undefined) => (text === undefined ? undefined : (parseIsoInstant(text) ?? undefined));

function toListInput(query: ListQuery): ListBookingsInput {
  const statuses = csv(query.status);
  const unknown = statuses?.find((status) => !(LIST_STATUSES as readonly string[]).includes(status));
  if (unknown) throw invalidField('status', `must be a comma-separated list of ${LIST_STATUSES.join(', ')}`, unknown);
  // As the reference's input service: `eventTypeIds || (eventTypeId ? [eventTypeId] : undefined)`, and the same for teams.
  const eventTypeIds = commaSeparatedIds('eventTypeIds', query.eventTypeIds) ?? (query.eventTypeId !== undefined ? [query.eventTypeId] : undefined);
  const teamIds = commaSeparatedIds('teamsIds', query.teamsIds) ?? (query.teamId !== undefined ? [query.teamId] : undefined);
  return {
    statuses: statuses as ListStatus[] | undefined,
    attendeeEmail: query.attendeeEmail?.trim().replaceAll(' ', '+'),
    attendeeName: query.attendeeName?.trim(),
    bookingUid: query.bookingUid,
    eventTypeIds,
    teamIds,
    afterStart: instant(query.afterStart),
    beforeEnd: instant(query.beforeEnd),
    afterCreatedAt: instant(query.afterCreatedAt),
    beforeCreatedAt: instant(query.beforeCreatedAt),
    afterUpdatedAt: instant(query.afterUpdatedAt),
    beforeUpdatedAt: instant(query.beforeUpdatedAt),
    sort: { start: query.sortStart, end: query.sortEnd, created: query.sortCreated, updated: query.sortUpdatedAt },
    take: query.take ?? 100,
    skip: query.skip ?? 0,
  };
}

/**
 * Seated bookings show their seats: attendees only to the organizer (or to `viewerId: 'admin'`, a
 * team's or organization's admins), unless the event type shows them.
 */
function present(record: BookingRecord, viewerId: number | 'admin' | null) {
  if (!record.seating) return presentBooking(record);
  return presentSeatedBooking(record, record.seating.showAttendees || viewerId === 'admin' || viewerId === record.booking.userId);
}

function presentCreated(created: CreatedBookings, viewerId: number | null) {
  if (created.recurring) return created.records.map((record) => present(record, viewerId));
  const [record] = created.records;
  if (created.seated) return { ...presentSeatedBooking(record!, created.seated.showAttendees), seatUid: created.seated.seatUid };
  return present(record!, viewerId);
}

function presentFound(found: { records: BookingRecord[]; series: boolean }, viewerId: number | null) {
  return found.series ? found.records.map((record) => present(record, viewerId)) : present(found.records[0]!, viewerId);
}

function presentPage(records: BookingRecord[], total: number, page: { take: number; skip: number }, viewerId: number | 'admin') {
  const returned = records.length;
  return {
    data: records.map((record) => present(record, viewerId)),
    pagination: presentPagination(total, returned, page),
  };
}

const v2024_08_13 = { toCreateInput, toListInput, present, presentCreated, presentFound, presentPage };

/**
 * Bookings take the 2024-08-13 shapes. The reference answers header-less calls with its retired
 * 2024-04-15 booking routes; svc serves 2024-08-13 to every version, as for its other resources.
 */
export const bookingVersions: VersionTable<typeof v2024_08_13> = { variants: { '2024-08-13': v2024_08_13 }, fallback: v2024_08_13 };

export function bookingVariant(version: ApiVersion) {
  return pickVariant(bookingVersions, version)!;
}

/** Headers of the booking routes that write: each takes Idempotency-Key. */
export const bookingWriteHeaders = versionHeaderSchema('2024-08-13', 'Send 2024-08-13', { idempotent: true });

/** Routes the reference added in 2024-08-13 only: other versions find no route there. */
const newRoutes: VersionTable<true> = { variants: { '2024-08-13': true } };
export const newRouteHeaders = Type.Object({
  ...bookingWriteHeaders.properties,
  [API_VERSION_HEADER]: StringEnum(['2024-08-13'] as const, { description: 'Required: without it (or with another version) the route answers 404' }),
});

/** Answers as the not-found handler does, before the body is read or validated (an `onRequest` hook). */
export async function routeExistsForVersion(request: FastifyRequest): Promise<void> {
  if (!pickVariant(newRoutes, request.apiVersion)) throw notFound('route_not_found', `Cannot ${request.method} ${request.url.split('?')[0]}`);
}
