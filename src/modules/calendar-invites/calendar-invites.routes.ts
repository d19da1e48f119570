import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { access, type RouteAccess } from '../../http/access.js';
import { versionHeaderSchema } from '../../http/api-version.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { runMutation } from '../../http/mutation.js';
import { principalOf, tenantOf, tenantTeamOf } from '../../http/request-guard.js';
import { notFound } from '../../lib/errors.js';
import { EventTypeIdParams } from '../event-types/event-types.schemas.js';
import { OrgTeamEventTypeParams, TeamEventTypeParams } from '../event-types/team-event-types.schemas.js';
import { OrgIdParams } from '../organizations/organizations.schemas.js';
import { EventTypeInvitesBody, EventTypeInvitesOutput, OrganizationInvitesBody, OrganizationInvitesOutput } from './calendar-invites.schemas.js';
import * as invites from './calendar-invites.service.js';

const versionHeader = versionHeaderSchema('2026-06-12', 'Required: 2026-06-12 (404 without it: the route exists from that version on)');

/** Event-type calendar-invite routes exist from 2026-06-12 on: before it, the not-found answer (an `onRequest` hook). */
async function routeExistsForVersion(request: FastifyRequest): Promise<void> {
  if (request.apiVersion < '2026-06-12') throw notFound('route_not_found', `Cannot ${request.method} ${request.url.split('?')[0]}`);
}
const RULES =
  'Per audience (host, guest): event-type `custom` or explicit `standard` first, then the organization default when `inherit`, then the standard description. Applied to the invitations of booking mail. A managed child shows its parent\'s settings and refuses PATCH (400).';

/** GET and PATCH of one event type's calendar invites, under `path`. */
function registerEventTypeInvites(
  app: App,
  ctx: AppContext,
  options: { path: string; tags: string[]; read: RouteAccess; write: RouteAccess; params: typeof EventTypeIdParams | typeof TeamEventTypeParams | typeof OrgTeamEventTypeParams; scope: (request: FastifyRequest) => invites.EventTypeScope },
) {
  app.get(options.path, {
    config: { access: options.read },
    onRequest: routeExistsForVersion,
    schema: { tags: options.tags, summary: 'Get calendar invite settings', description: RULES, headers: versionHeader, params: options.params, response: { 200: Envelope(EventTypeInvitesOutput) } },
    handler: async (request) => ok(await invites.getEventTypeInvites(ctx.database.db, options.scope(request), (request.params as { eventTypeId: number }).eventTypeId)),
  });
  app.patch(options.path, {
    config: { access: options.write },
    onRequest: routeExistsForVersion,
    schema: {
      tags: options.tags,
      summary: 'Update calendar invite settings',
      description: `Changes only the audiences sent. ${RULES}`,
      headers: versionHeader,
      params: options.params,
      body: EventTypeInvitesBody,
      response: { 200: Envelope(EventTypeInvitesOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx) => ({
        status: 200,
        body: ok(await invites.updateEventTypeInvites(tx, options.scope(request), (request.params as { eventTypeId: number }).eventTypeId, request.body as invites.InvitesPatch<'inherit' | 'standard' | 'custom'>)),
      })),
  });
}

/** Spec 2.9 and endpoints 4-7: calendar-invite templates of event types and organization defaults. */
export function registerCalendarInviteRoutes(app: App, ctx: AppContext): void {
  registerEventTypeInvites(app, ctx, {
    path: '/v2/event-types/:eventTypeId/calendar-invites',
    tags: ['Event Types'],
    read: access.user('EVENT_TYPE_READ'),
    write: access.user('EVENT_TYPE_WRITE'),
    params: EventTypeIdParams,
    scope: (request) => ({ kind: 'user', userId: principalOf(request).user.id }),
  });
  const teamAdmin = (scope: 'TEAM_EVENT_TYPE_READ' | 'TEAM_EVENT_TYPE_WRITE') => access.tenant(scope, { role: 'TEAM_ADMIN', permissions: [] });
  registerEventTypeInvites(app, ctx, {
    path: '/v2/teams/:teamId/event-types/:eventTypeId/calendar-invites',
    tags: ['Teams / Event Types'],
    read: teamAdmin('TEAM_EVENT_TYPE_READ'),
    write: teamAdmin('TEAM_EVENT_TYPE_WRITE'),
    params: TeamEventTypeParams,
    scope: (request) => ({ kind: 'team', teamId: tenantTeamOf(request).id }),
  });
  const orgTeamAdmin = (scope: 'TEAM_EVENT_TYPE_READ' | 'TEAM_EVENT_TYPE_WRITE', permission: string) => access.tenant(scope, { role: 'TEAM_ADMIN', permissions: [permission] });
  registerEventTypeInvites(app, ctx, {
    path: '/v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId/calendar-invites',
    tags: ['Orgs / Teams / Event Types'],
    read: orgTeamAdmin('TEAM_EVENT_TYPE_READ', 'eventType.read'),
    write: orgTeamAdmin('TEAM_EVENT_TYPE_WRITE', 'eventType.update'),
    params: OrgTeamEventTypeParams,
    scope: (request) => ({ kind: 'team', teamId: tenantTeamOf(request).id }),
  });

  const orgRule = { role: 'ORG_ADMIN' as const, permissions: ['organization.update'] };
  const tags = ['Orgs'];
  const organizationId = (request: FastifyRequest) => tenantOf(request).organization!.id;
  app.get('/v2/organizations/:orgId/calendar-invites', {
    config: { access: access.tenant('ORG_PROFILE_READ', orgRule) },
    schema: { tags, summary: "Get the organization's default calendar invites", description: 'What event types set to `inherit` use (modes inherit or custom).', params: OrgIdParams, response: { 200: Envelope(OrganizationInvitesOutput) } },
    handler: async (request) => ok(await invites.getOrganizationInvites(ctx.database.db, organizationId(request))),
  });
  app.patch('/v2/organizations/:orgId/calendar-invites', {
    config: { access: access.tenant('ORG_PROFILE_WRITE', orgRule) },
    schema: {
      tags,
      summary: "Update the organization's default calendar invites",
      description: 'Changes only the audiences sent; a template emptied by sanitization becomes `inherit`.',
      params: OrgIdParams,
      body: OrganizationInvitesBody,
      response: { 200: Envelope(OrganizationInvitesOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx) => ({ status: 200, body: ok(await invites.updateOrganizationInvites(tx, organizationId(request), request.body)) })),
  });
}
