import type { AppContext } from '../../app/context.js';
import type { App } from '../../http/app.js';
import { access } from '../../http/access.js';
import { ok } from '../../http/envelope.js';
import { principalOf } from '../../http/request-guard.js';
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
} from './conferencing.schemas.js';
import { connectGoogleMeet, defaultApp, disconnectApp, listApps, oauthConnectUrl, saveOAuthApp, setDefaultApp } from './conferencing.service.js';

const tags = ['Conferencing'];

function oauthAppOf(app: string): OAuthApp {
  if (!isOAuthApp(app)) throw badRequest('invalid_conferencing_app', 'Invalid conferencing app, available apps are: zoom, msteams', { property: 'app', value: app });
  return app;
}

export function registerConferencingRoutes(app: App, ctx: AppContext): void {
  app.get('/v2/conferencing', {
    config: { access: access.user('APPS_READ') },
    schema: { tags, summary: 'List your conferencing applications', description: 'The apps you installed (the built-in video is installed for everyone and not listed). Tokens are never returned.', response: { 200: ConferencingAppsEnvelope } },
    handler: async (request) => ok(await listApps(ctx, principalOf(request).user.id)),
  });

  app.post('/v2/conferencing/:app/connect', {
    config: { access: access.user('APPS_WRITE') },
    schema: {
      tags,
      summary: 'Connect your conferencing application',
      description: '`google-meet`: needs a working Google Calendar connection (POST /v2/calendars/google/connect); meetings are created with the calendar event. Zoom and Microsoft Teams are connected through GET /v2/conferencing/{app}/oauth/auth-url.',
      params: AppParams,
      response: { 200: ConferencingAppEnvelope },
    },
    handler: async (request, reply) => reply.status(200).send(ok(await connectGoogleMeet(ctx, principalOf(request).user.id, request.params.app))),
  });

  app.get('/v2/conferencing/:app/oauth/auth-url', {
    config: { access: access.user('APPS_WRITE') },
    schema: {
      tags,
      summary: 'Get OAuth conferencing app auth URL',
      description:
        '`zoom` or `msteams`: the provider\'s consent page. Its callback stores the app for the caller and sends the browser (301) to `returnTo`, or to `onErrorReturnTo` when connecting fails. svc seals the page\'s state (good for 15 minutes); it carries no token.',
      params: AppParams,
      querystring: AuthUrlQuery,
      response: { 200: AuthUrlOutput },
    },
    handler: async (request) => ok(oauthConnectUrl(ctx, principalOf(request).user.id, oauthAppOf(request.params.app), request.query)),
  });

  app.get('/v2/conferencing/:app/oauth/callback', {
    // The provider sends the user's browser here: who connects is the sealed state's user.
    config: { access: access.public() },
    schema: {
      tags,
      summary: 'Conferencing app OAuth callback',
      description: "Trades the provider's code for tokens, reads the account and stores the app, then redirects (301) to `returnTo` (or `onErrorReturnTo` on failure); without them it answers the app (200) or the error.",
      params: AppParams,
      querystring: CallbackQuery,
      response: { 200: ConferencingAppEnvelope },
    },
    handler: async (request, reply) => {
      const outcome = await saveOAuthApp(ctx, oauthAppOf(request.params.app), request.query);
      if ('redirect' in outcome) return reply.redirect(outcome.redirect, 301);
      return ok(outcome.connection);
    },
  });

  app.post('/v2/conferencing/:app/default', {
    config: { access: access.user('APPS_WRITE') },
    schema: {
      tags,
      summary: 'Set your default conferencing application',
      description: `An app you installed (${Object.keys(INSTALLABLE_APPS).join(', ')}) or the built-in video (\`daily-video\`, as the reference names it, or \`svc-video\`).`,
      params: AppParams,
      response: { 200: StatusOnly },
    },
    handler: async (request, reply) => {
      await setDefaultApp(ctx, principalOf(request).user.id, request.params.app);
      return reply.status(200).send({ status: 'success' as const });
    },
  });

  app.get('/v2/conferencing/default', {
    config: { access: access.user('APPS_READ') },
    schema: { tags, summary: 'Get your default conferencing application', description: 'No `data` until one is set: the built-in video is the default then.', response: { 200: DefaultAppOutput } },
    handler: async (request) => {
      const app = await defaultApp(ctx, principalOf(request).user.id);
      return app ? { status: 'success' as const, data: app } : { status: 'success' as const };
    },
  });

  app.delete('/v2/conferencing/:app/disconnect', {
    config: { access: access.user('APPS_WRITE') },
    schema: { tags, summary: 'Disconnect your conferencing application', params: AppParams, response: { 200: StatusOnly } },
    handler: async (request) => {
      await disconnectApp(ctx, principalOf(request).user.id, request.params.app);
      return { status: 'success' as const };
    },
  });
}
