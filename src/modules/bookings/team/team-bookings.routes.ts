import { Type, type Static } from 'typebox';
import type { AppContext } from '../../../app/context.js';
import { access } from '../../../http/access.js';
import type { App } from '../../../http/app.js';
import { ok } from '../../../http/envelope.js';
import { tenantOf } from '../../../http/request-guard.js';
import { invalidField, notFound } from '../../../lib/errors.js';
import { getOrganizationUser } from '../../organizations/org-users.service.js';
import { OrgUserParams } from '../../organizations/org-users.schemas.js';
import { OrgIdParams, OrgTeamParams } from '../../organizations/organizations.schemas.js';
import { TeamIdParams } from '../../teams/teams.schemas.js';
import { ReferencesOutput, ReferencesQuery } from '../details/booking-details.routes.js';
import type { BookingRecord } from '../bookings.repository.js';
import { BookingsListOutput_2024_08_13, BookingsQuery_2024_08_13 } from '../bookings.schemas.js';
import { bookingVersions, commaSeparatedIds } from '../bookings.versions.js';
import { listOrganizationBookings, listOrganizationUserBookings, listTeamBookings, teamBookingReferences } from './team-bookings.service.js';

// These routes take no version header (as in the reference): the 2024-08-13 booking shapes.
const variant = bookingVersions.variants['2024-08-13']!;

// The team lists filter as the reference's GetTeamsBookingsInput: no created/updated or team filters, no sortUpdatedAt.
const { afterCreatedAt: _ac, beforeCreatedAt: _bc, afterUpdatedAt: _au, beforeUpdatedAt: _bu, sortUpdatedAt: _su, teamsIds: _ts, teamId: _t, ...teamFilters } = BookingsQuery_2024_08_13.properties;
const TeamBookingsQuery = Type.Object({
  ...teamFilters,
  teamMemberIds: Type.Optional(Type.String({ maxLength: 2000, description: 'Comma-separated user ids: bookings one of these members hosts (organizer or other host)' })),
  teamMemberEmails: Type.Optional(Type.String({ maxLength: 5000, description: 'Comma-separated emails: bookings the member with one of these emails hosts (organizer or other host)' })),
});

/** The members of `teamMemberIds` and `teamMemberEmails` (the reference's GetTeamsBookingsInput): at least one each when sent. */
function teamMembersOf(query: Static<typeof TeamBookingsQuery>) {
  const userIds = commaSeparatedIds('teamMemberIds', query.teamMemberIds);
  const emails = query.teamMemberEmails?.split(',').map((email) => email.trim()).filter(Boolean);
  if (emails?.length === 0) throw invalidField('teamMemberEmails', 'must contain at least 1 email', query.teamMemberEmails);
  return userIds || emails ? { userIds: userIds ?? [], emails: emails ?? [] } : undefined;
}

const OrganizationBookingsQuery = Type.Object({
  ...BookingsQuery_2024_08_13.properties,
  userIds: Type.Optional(Type.String({ maxLength: 2000, description: "Comma-separated ids of the organization's users: bookings they host or attend" })),
});

const OrgTeamBookingParams = Type.Object({ ...OrgTeamParams.properties, bookingUid: Type.String({ minLength: 1, maxLength: 100 }) });

function organizationInput(query: Static<typeof OrganizationBookingsQuery>) {
  return { ...variant.toListInput(query), userIds: commaSeparatedIds('userIds', query.userIds) };
}

/** A page as the reference's GetBookingsOutput: admins see the seats of seated bookings. */
function page(result: { records: BookingRecord[]; total: number }, input: { take: number; skip: number }) {
  return { status: 'success' as const, ...variant.presentPage(result.records, result.total, input, 'admin') };
}

const LIST = { querystring: TeamBookingsQuery, response: { 200: BookingsListOutput_2024_08_13 } };

/**
 * Booking lists of teams and organizations (the reference's TeamsBookingsController,
 * OrganizationsTeamsBookingsController, OrganizationsBookingsController and
 * OrganizationsUsersBookingsController): the filters, sorting and paging of GET /v2/bookings over a
 * team's or an organization's bookings.
 */
export function registerTeamBookingRoutes(app: App, ctx: AppContext): void {
  const teamPage = async (teamId: number, query: Static<typeof TeamBookingsQuery>) => {
    const input = { ...variant.toListInput(query), hostedBy: teamMembersOf(query) };
    return page(await listTeamBookings(ctx.database.db, teamId, input, ctx.clock()), input);
  };

  app.get('/v2/teams/:teamId/bookings', {
    config: { access: access.tenant('TEAM_BOOKING_READ', { role: 'TEAM_ADMIN', permissions: [] }) },
    schema: {
      tags: ['Teams / Bookings'],
      summary: 'Get team bookings',
      description: "Bookings of the team's event types, managed event types' copies included.",
      params: TeamIdParams,
      ...LIST,
    },
    handler: async (request) => {
      // The system admin passes the access check for a team that does not exist.
      if (!tenantOf(request).team) throw notFound('team_not_found', `Team with id=${request.params.teamId} not found`);
      return teamPage(request.params.teamId, request.query);
    },
  });

  app.get('/v2/organizations/:orgId/teams/:teamId/bookings', {
    config: { access: access.tenant('TEAM_BOOKING_READ', { role: 'TEAM_ADMIN', permissions: ['booking.readTeamBookings'] }) },
    schema: {
      tags: ['Orgs / Teams / Bookings'],
      summary: 'Get organization team bookings',
      description: "Bookings of the team's event types, managed event types' copies included.",
      params: OrgTeamParams,
      ...LIST,
    },
    handler: (request) => teamPage(request.params.teamId, request.query),
  });

  app.get('/v2/organizations/:orgId/teams/:teamId/bookings/:bookingUid/references', {
    config: { access: access.tenant('TEAM_BOOKING_READ', { role: 'TEAM_ADMIN', permissions: ['booking.read'] }) },
    schema: {
      tags: ['Orgs / Teams / Bookings'],
      summary: 'Get booking references',
      description: "The calendar events svc wrote into its hosts' connected calendars for one of the team's bookings (404 for any other booking). svc makes no video meetings yet.",
      params: OrgTeamBookingParams,
      querystring: ReferencesQuery,
      response: { 200: ReferencesOutput },
    },
    handler: async (request) => ok(await teamBookingReferences(ctx.database.db, request.params.teamId, request.params.bookingUid, request.query.type)),
  });

  app.get('/v2/organizations/:orgId/bookings', {
    config: { access: access.tenant('ORG_BOOKING_READ', { role: 'ORG_ADMIN', permissions: ['booking.readOrgBookings'] }) },
    schema: {
      tags: ['Orgs / Bookings'],
      summary: 'Get organization bookings',
      description:
        "Bookings of the organization's teams' event types, and bookings the users it created (and that are still its members) host or attend. `userIds` keeps those its members host or attend (403 when one is not a member).",
      params: OrgIdParams,
      querystring: OrganizationBookingsQuery,
      response: { 200: BookingsListOutput_2024_08_13 },
    },
    handler: async (request) => {
      const input = organizationInput(request.query);
      return page(await listOrganizationBookings(ctx.database.db, request.params.orgId, input, ctx.clock()), input);
    },
  });

  app.get('/v2/organizations/:orgId/users/:userId/bookings', {
    config: { access: access.tenant('ORG_BOOKING_READ', { role: 'ORG_ADMIN', permissions: [] }) },
    schema: {
      tags: ['Orgs / Users / Bookings'],
      summary: 'Get all bookings for an organization user',
      description:
        "The organization's bookings (see GET /v2/organizations/{orgId}/bookings) the user hosts or attends. The user must have a profile in the organization (403 otherwise).",
      params: OrgUserParams,
      querystring: BookingsQuery_2024_08_13,
      response: { 200: BookingsListOutput_2024_08_13 },
    },
    handler: async (request) => {
      const { orgId, userId } = request.params;
      await getOrganizationUser(ctx.database.db, orgId, userId);
      const input = variant.toListInput(request.query);
      return page(await listOrganizationUserBookings(ctx.database.db, orgId, userId, input, ctx.clock()), input);
    },
  });
}
