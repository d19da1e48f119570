import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access, type RouteAccess } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { runMutation } from '../../http/mutation.js';
import { principalOf } from '../../http/request-guard.js';
import { IdempotentHeaders } from '../webhooks/webhooks.schemas.js';
import { presentDeletedPrivateLink, presentPrivateLink } from './private-links.presenter.js';
import {
  DeletedPrivateLinkOutput,
  OrgTeamPrivateLinkParams,
  OrgTeamPrivateLinksParams,
  PrivateLinkBody,
  PrivateLinkOutput,
  PrivateLinkParams,
  PrivateLinksParams,
} from './private-links.schemas.js';
import * as privateLinks from './private-links.service.js';

interface Family {
  base: string;
  tags: string[];
  read: RouteAccess;
  write: RouteAccess;
  params: { all: typeof PrivateLinksParams | typeof OrgTeamPrivateLinksParams; one: typeof PrivateLinkParams | typeof OrgTeamPrivateLinkParams };
  scopeOf: (request: FastifyRequest) => privateLinks.LinkScope;
  /** Who may manage the links, for the descriptions. */
  who: string;
}

const WRITE_NOTE = 'Send Idempotency-Key to make retries safe.';
const USING =
  'A link books its event type, hidden or not: pass its linkId as `privateLinkId` to GET /v2/slots and POST /v2/bookings (svc). A time-based link works until expiresAt; a usage-based one for maxUsageCount bookings.';

/** The four operations on an event type's private links, under `base`. */
function registerPrivateLinkOperations(app: App, ctx: AppContext, family: Family): void {
  const { base, tags, read, write, params, scopeOf, who } = family;
  const db = () => ctx.database.db;
  const present = (view: privateLinks.PrivateLinkView) => presentPrivateLink(view, ctx.config.appUrl);
  const eventTypeIdOf = (request: FastifyRequest) => (request.params as { eventTypeId: number }).eventTypeId;

  app.post(base, {
    config: { access: write },
    schema: {
      tags,
      summary: 'Create a private link',
      description: `Exactly one of expiresAt and maxUsageCount. ${who} ${USING} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: params.all,
      body: PrivateLinkBody,
      response: { 201: Envelope(PrivateLinkOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx) => {
        const view = await privateLinks.createPrivateLink(tx, ctx.secrets, scopeOf(request), eventTypeIdOf(request), request.body, ctx.clock());
        return { status: 201, body: ok(present(view)) };
      }),
  });

  app.get(base, {
    config: { access: read },
    schema: { tags, summary: 'Get all private links', description: `Oldest first. ${who}`, params: params.all, response: { 200: Envelope(Type.Array(PrivateLinkOutput)) } },
    handler: async (request) => {
      const views = await privateLinks.listPrivateLinks(db(), ctx.secrets, scopeOf(request), eventTypeIdOf(request), ctx.clock());
      return ok(views.map(present));
    },
  });

  app.patch(`${base}/:linkId`, {
    config: { access: write },
    schema: {
      tags,
      summary: 'Update a private link',
      description: `expiresAt makes it a time-based link, maxUsageCount a usage-based one (the uses made so far still count); not both. ${who} ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: params.one,
      body: PrivateLinkBody,
      response: { 200: Envelope(PrivateLinkOutput) },
    },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx) => {
        const { linkId } = request.params as { linkId: string };
        const view = await privateLinks.updatePrivateLink(tx, ctx.secrets, scopeOf(request), eventTypeIdOf(request), linkId, request.body, ctx.clock());
        return { status: 200, body: ok(present(view)) };
      }),
  });

  app.delete(`${base}/:linkId`, {
    config: { access: write },
    schema: { tags, summary: 'Delete a private link', description: `${who} ${WRITE_NOTE}`, headers: IdempotentHeaders, params: params.one, response: { 200: Envelope(DeletedPrivateLinkOutput) } },
    handler: (request, reply) =>
      runMutation(ctx, request, reply, async (tx) => {
        const { linkId } = request.params as { linkId: string };
        await privateLinks.deletePrivateLink(tx, scopeOf(request), eventTypeIdOf(request), linkId);
        return { status: 200, body: ok(presentDeletedPrivateLink(linkId)) };
      }),
  });
}

/**
 * Private links of the caller's own event types (EventTypesPrivateLinksController) and of an
 * organization team's event types (OrganizationsEventTypesPrivateLinksController).
 */
export function registerPrivateLinkRoutes(app: App, ctx: AppContext): void {
  registerPrivateLinkOperations(app, ctx, {
    base: '/v2/event-types/:eventTypeId/private-links',
    tags: ['Event Types Private Links'],
    read: access.user('EVENT_TYPE_READ'),
    write: access.user('EVENT_TYPE_WRITE'),
    params: { all: PrivateLinksParams, one: PrivateLinkParams },
    scopeOf: (request) => ({ kind: 'personal', callerId: principalOf(request).user.id }),
    who: 'The event type must be yours (404 otherwise, as for one that does not exist).',
  });

  const teamAdmin = (scope: 'TEAM_EVENT_TYPE_READ' | 'TEAM_EVENT_TYPE_WRITE', permission: string) => access.tenant(scope, { role: 'TEAM_ADMIN', permissions: [permission] });
  registerPrivateLinkOperations(app, ctx, {
    base: '/v2/organizations/:orgId/teams/:teamId/event-types/:eventTypeId/private-links',
    tags: ['Orgs / Teams / Event Types / Private Links'],
    read: teamAdmin('TEAM_EVENT_TYPE_READ', 'eventType.read'),
    write: teamAdmin('TEAM_EVENT_TYPE_WRITE', 'eventType.update'),
    params: { all: OrgTeamPrivateLinksParams, one: OrgTeamPrivateLinkParams },
    scopeOf: (request) => ({ kind: 'team', teamId: (request.params as { teamId: number }).teamId }),
    who: "For the team's admins and owners and the organization's; the event type must be the team's (404 otherwise).",
  });
}
