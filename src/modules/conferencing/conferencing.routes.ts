import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { AppContext } from '../../app/context.js';
import type { App } from '../../http/app.js';
import { access, type RouteAccess } from '../../http/access.js';
import { ok } from '../../http/envelope.js';
import { principalOf, tenantTeamOf } from '../../http/request-guard.js';
import { badRequest } from '../../lib/errors.js';
import { INSTALLABLE_APPS, isOAuthApp, type OAuthApp } from './conferencing-apps.js';
import {
  AppParams,
  AuthUrlOutput,
  AuthUrlQuery,
  CallbackQuery,
  ConferencingAppEnvelope,
  ConferencingAppsEnvelope,
  DefaultAppOutput,
  StatusOnly,
  TeamAppParams,
  TeamParams,
} from './conferencing.schemas.js';
import { type AppOwner, connectGoogleMeet, defaultApp, disconnectApp, listApps, oauthConnectUrl, saveOAuthApp, setDefaultApp } from './conferencing.service.js';

function oauthAppOf(app: string): OAuthApp {
  if (!isOAuthApp(app)) throw badRequest('invalid_conferencing_app', 'Invalid conferencing app, available apps are: zoom, msteams', { property: 'app', value: app });
  return app;
}

/** The same routes for a user's apps and for an organization team's, under `prefix`. */
interface OwnerRoutes {
  prefix: string;
  tags: string[];
  read: RouteAccess;
  write: RouteAccess;
  /** The provider's redirect lands on the user-level callback (the state names the owner); a team's own callback route takes the team's states only. */
  callback: RouteAccess;
  /** The prefix's own path parameters (none for the user's). */
  params?: TSchema;
  appParams: TSchema;
  owner(request: FastifyRequest): AppOwner;
  whose: string;
}

function registerOwnerRoutes(app: App, ctx: AppContext, routes: OwnerRoutes): void {
  const { prefix, tags, whose } = routes;
  const appOf = (request: FastifyRequest) => (request.params as { app: string }).app;
  const prefixParams = routes.params ? { params: routes.params } : {};

  app.get(prefix, {
    config: { access: routes.read },
    schema: { tags, summary: `List ${whose} conferencing applications`, description: 'The apps installed (the built-in video is installed for everyone and not listed). Tokens are never returned.', ...prefixParams, response: { 200: ConferencingAppsEnvelope } },
    handler: async (request) => ok(await listApps(ctx, routes.owner(request))),
  });

  app.post(`${prefix}/:app/connect`, {
    config: { access: routes.write },
    schema: {
      tags,
      summary: `Connect ${whose} conferencing application`,
      description: '`google-meet`: needs a working Google Calendar connection; meetings are created with the calendar event. Zoom and Microsoft Teams are connected through `…/{app}/oauth/auth-url`.',
      params: routes.appParams,
      response: { 200: ConferencingAppEnvelope },
    },
    handler: async (request, reply) => reply.status(200).send(ok(await connectGoogleMeet(ctx, routes.owner(request), appOf(request)))),
  });

  app.get(`${prefix}/:app/oauth/auth-url`, {
    config: { access: routes.write },
    schema: {
      tags,
      summary: 'Get OAuth conferencing app auth URL',
      description:
        "`zoom` or `msteams`: the provider's consent page. Its callback (GET /v2/conferencing/{app}/oauth/callback) stores the app and sends the browser (301) to `returnTo`, or to `onErrorReturnTo` when connecting fails. svc seals the page's state (good for 15 minutes); it carries no token.",
      params: routes.appParams,
      querystring: AuthUrlQuery,
      response: { 200: AuthUrlOutput },
    },
    handler: async (request) => ok(oauthConnectUrl(ctx, routes.owner(request), oauthAppOf(appOf(request)), request.query)),
  });

  app.get(`${prefix}/:app/oauth/callback`, {
    config: { access: routes.callback },
    schema: {
      tags,
      summary: 'Conferencing app OAuth callback',
      description: "Trades the provider's code for tokens, reads the account and stores the app, then redirects (301) to `returnTo` (or `onErrorReturnTo` on failure); without them it answers the app (200) or the error.",
      params: routes.appParams,
      querystring: CallbackQuery,
      response: { 200: ConferencingAppEnvelope },
    },
    handler: async (request, reply) => {
      const owner = routes.callback.auth === 'none' ? null : routes.owner(request);
      const outcome = await saveOAuthApp(ctx, oauthAppOf(appOf(request)), request.query, owner?.kind === 'team' ? owner.teamId : null);
      if ('redirect' in outcome) return reply.redirect(outcome.redirect, 301);
      return ok(outcome.connection);
    },
  });

  app.post(`${prefix}/:app/default`, {
    config: { access: routes.write },
    schema: {
      tags,
      summary: `Set ${whose} default conferencing application`,
      description: `An installed app (${Object.keys(INSTALLABLE_APPS).join(', ')}) or the built-in video (\`daily-video\`, as the reference names it, or \`svc-video\`).`,
      params: routes.appParams,
      response: { 200: StatusOnly },
    },
    handler: async (request, reply) => {
      await setDefaultApp(ctx, routes.owner(request), appOf(request));
      return reply.status(200).send({ status: 'success' as const });
    },
  });

  app.get(`${prefix}/default`, {
    config: { access: routes.read },
    schema: { tags, summary: `Get ${whose} default conferencing application`, description: 'No `data` until one is set: the built-in video is the default then.', ...prefixParams, response: { 200: DefaultAppOutput } },
    handler: async (request) => {
      const chosen = await defaultApp(ctx, routes.owner(request));
      return chosen ? { status: 'success' as const, data: chosen } : { status: 'success' as const };
    },
  });

  app.delete(`${prefix}/:app/disconnect`, {
    config: { access: routes.write },
    schema: { tags, summary: `Disconnect ${whose} conferencing application`, params: routes.appParams, response: { 200: StatusOnly } },
    handler: async (request) => {
      await disconnectApp(ctx, routes.owner(request), appOf(request));
      return { status: 'success' as const };
    },
  });
}

export function registerConferencingRoutes(app: App, ctx: AppContext): void {
  registerOwnerRoutes(app, ctx, {
    prefix: '/v2/conferencing',
    tags: ['Conferencing'],
    read: access.user('APPS_READ'),
    write: access.user('APPS_WRITE'),
    // The provider sends the user's browser here: whose app it is comes from the sealed state.
    callback: access.public(),
    appParams: AppParams,
    owner: (request) => ({ kind: 'user', userId: principalOf(request).user.id }),
    whose: 'your',
  });
  const teamAdmin = (scope: 'TEAM_APPS_READ' | 'TEAM_APPS_WRITE') => access.tenant(scope, { role: 'TEAM_ADMIN', permissions: [] });
  registerOwnerRoutes(app, ctx, {
    prefix: '/v2/organizations/:orgId/teams/:teamId/conferencing',
    tags: ['Orgs / Teams / Conferencing'],
    read: teamAdmin('TEAM_APPS_READ'),
    write: teamAdmin('TEAM_APPS_WRITE'),
    callback: teamAdmin('TEAM_APPS_WRITE'),
    params: TeamParams,
    appParams: TeamAppParams,
    owner: (request) => ({ kind: 'team', teamId: tenantTeamOf(request).id }),
    whose: 'team',
  });
}
