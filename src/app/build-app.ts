import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../http/app.js';
import Fastify, { LogController } from 'fastify';
import '../http/fastify-types.js';
import { access } from '../http/access.js';
import { API_VERSION_HEADER, resolveApiVersion } from '../http/api-version.js';
import { registerDocsPage } from '../http/docs-page.js';
import { swaggerOptions } from '../http/openapi.js';
import { redactUrl } from '../http/redact.js';
import { createRequestGuard } from '../http/request-guard.js';
import { CUSTOM_FORMATS, findUnacceptableInput, MAX_INPUT_DEPTH, validatorCompiler } from '../http/validation.js';
import { invalidField } from '../lib/errors.js';
import { registerAdminRoutes } from '../modules/admin/admin.routes.js';
import { registerApiKeyRoutes } from '../modules/api-keys/api-keys.routes.js';
import { registerBookingRoutes } from '../modules/bookings/bookings.routes.js';
import { registerEventTypeRoutes } from '../modules/event-types/event-types.routes.js';
import { registerPrivateLinkRoutes } from '../modules/event-types/private-links.routes.js';
import { registerTeamEventTypeRoutes } from '../modules/event-types/team-event-types.routes.js';
import { registerCalendarInviteRoutes } from '../modules/calendar-invites/calendar-invites.routes.js';
import { registerMeRoutes } from '../modules/me/me.routes.js';
import { registerScheduleRoutes } from '../modules/schedules/schedules.routes.js';
import { registerSlotRoutes } from '../modules/slots/slots.routes.js';
import { registerCalendarRoutes } from '../modules/calendars/calendars.routes.js';
import { registerConferencingRoutes } from '../modules/conferencing/conferencing.routes.js';
import { registerDailyWebhookRoutes } from '../modules/conferencing/daily-webhooks.routes.js';
import { registerStripeRoutes } from '../modules/payments/stripe.routes.js';
import { registerDelegationCredentialRoutes } from '../modules/calendars/delegation-credentials.routes.js';
import { registerCalendarPushRoutes } from '../modules/calendars/calendar-push.routes.js';
import { registerOrganizationAdminRoutes } from '../modules/organizations/organizations-admin.routes.js';
import { registerOrganizationTeamsRoutes } from '../modules/organizations/org-teams.routes.js';
import { registerOrganizationMembershipRoutes } from '../modules/organizations/org-memberships.routes.js';
import { registerRolesRoutes } from '../modules/roles/roles.routes.js';
import { registerOrganizationUserRoutes } from '../modules/organizations/org-users.routes.js';
import { registerOrganizationScheduleRoutes } from '../modules/organizations/org-schedules.routes.js';
import { registerOutOfOfficeRoutes } from '../modules/out-of-office/out-of-office.routes.js';
import { registerTeamScheduleRoutes } from '../modules/teams/team-schedules.routes.js';
import { registerTeamBookingRoutes } from '../modules/bookings/team/team-bookings.routes.js';
import { registerSystemRoutes } from '../modules/system/system.routes.js';
import { registerTeamsRoutes } from '../modules/teams/teams.routes.js';
import { registerMembershipAnswerRoutes } from '../modules/teams/membership-answers.routes.js';
import { registerTeamsV1Routes } from '../modules/teams/teams-v1.routes.js';
import { registerWebhookDeliveryRoutes } from '../modules/webhooks/webhook-deliveries.routes.js';
import { registerWebhookRoutes } from '../modules/webhooks/webhooks.routes.js';
import { registerOrganizationWebhookRoutes } from '../modules/webhooks/organization-webhooks.routes.js';
import { registerOAuthClientWebhookRoutes } from '../modules/webhooks/oauth-client-webhooks.routes.js';
import { registerManagedOrganizationRoutes } from '../modules/organizations/managed-organizations.routes.js';
import { registerManagedUserRoutes } from '../modules/platform/managed-users.routes.js';
import { registerOAuthClientRoutes } from '../modules/platform/oauth-clients.routes.js';
import { registerOAuth2ClientRoutes } from '../modules/oauth/oauth-clients.routes.js';
import { registerOAuth2Routes } from '../modules/oauth/oauth.routes.js';
import { registerAttributeRoutes } from '../modules/attributes/attributes.routes.js';
import { registerRoutingFormRoutes } from '../modules/routing-forms/routing-forms.routes.js';
import { registerWorkflowRoutes } from '../modules/workflows/workflows.routes.js';
import { registerVerifiedResourceRoutes } from '../modules/verified-resources/verified-resources.routes.js';
import { registerTextMessageRoutes } from '../modules/text-messages/text-messages.routes.js';
import { registerWebPages } from '../web/web.routes.js';
import type { AppContext } from './context.js';
import { handleClientError, handleError, sendError } from './error-handler.js';


export interface BuildOptions {
  logger?: boolean | { level: string };
}

const REQUEST_ID = /^[\w\-.:]{1,128}$/;

export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<App> {
  const app = Fastify({
    logger: options.logger ?? { level: ctx.config.logLevel },
    bodyLimit: ctx.config.bodyLimitBytes,
    // One line per request, written in onResponse (below), instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    genReqId: (request) => {
      const sent = request.headers['x-request-id'];
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    serializerOpts: { ajv: { formats: CUSTOM_FORMATS } },
    clientErrorHandler: handleClientError,
    // Errors Fastify meets before a route is chosen (a URL that cannot be decoded...): the same envelope.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 404, 'NotFoundException', `Cannot ${request.method} ${request.url.split('?')[0]}`, { reason: 'route_not_found' }),
  );

  // Every route states who may call it; a route without a declaration is a programming error.
  app.addHook('onRoute', (route) => {
    route.config ??= {};
    if (route.config.access) return;
    // Routes that plugins register: the docs page and its script, and the CORS preflight.
    if (route.url.startsWith('/docs') || (route.method === 'OPTIONS' && route.url === '*')) {
      route.config.access = access.public();
      route.config.rateLimit = false;
      return;
    }
    throw new Error(`route ${route.method} ${route.url} declares no access (config.access)`);
  });

  app.decorateRequest('principal', null);
  app.decorateRequest('tenant', null);
  app.decorateRequest('oauthClient', null);
  app.decorateRequest('answeredError', null);
  app.decorateRequest('apiVersion', '2024-04-15');
  app.addHook('onRequest', async (request, reply) => {
    request.apiVersion = resolveApiVersion(request.headers[API_VERSION_HEADER]);
    reply.header('X-Request-Id', request.id);
  });
  app.addHook('onRequest', createRequestGuard(ctx));
  app.addHook('preValidation', async (request) => {
    // The reference accepts a bodiless POST/PATCH where every body field is optional.
    if (request.body === undefined && request.routeOptions.schema?.body) request.body = {};
    for (const input of [request.body, request.query, request.params]) {
      const found = findUnacceptableInput(input);
      if (!found) continue;
      const field = found.path.join('.') || 'body';
      if (found.problem === 'nul_character') throw invalidField(field, 'must not contain the NUL character (U+0000)');
      throw invalidField(field, `must not nest objects or arrays more than ${MAX_INPUT_DEPTH} levels deep`);
    }
  });
  // While draining, answered keep-alive connections are closed, or they would hold the shutdown open.
  app.addHook('onSend', async (_request, reply) => {
    if (ctx.lifecycle.draining) reply.header('Connection', 'close');
  });
  app.addHook('onResponse', async (request, reply) => {
    ctx.metrics.observe(request, reply);
    const answered = request.answeredError;
    const line = { method: request.method, url: redactUrl(request.url), route: request.routeOptions.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 };
    // A refusal's line says why (its code and stable reason), so a 4xx can be understood from the log alone.
    request.log.info(answered ? { ...line, error: answered.code, reason: answered.reason } : line, 'request completed');
  });

  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'PATCH', 'DELETE', 'HEAD', 'POST', 'PUT', 'OPTIONS'],
    allowedHeaders: ['x-svc-client-id', 'x-svc-secret-key', 'x-svc-platform-embed', API_VERSION_HEADER, 'Accept', 'Authorization', 'Content-Type', 'Origin', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: ['X-Request-Id', 'Idempotent-Replayed', 'X-RateLimit-Limit-Default', 'X-RateLimit-Remaining-Default', 'X-RateLimit-Reset-Default'],
    maxAge: 86_400,
  });

  await app.register(swagger, swaggerOptions());
  await registerDocsPage(app);

  registerSystemRoutes(app, ctx);
  registerMeRoutes(app, ctx);
  registerApiKeyRoutes(app, ctx);
  registerAdminRoutes(app, ctx);
  registerScheduleRoutes(app, ctx);
  registerEventTypeRoutes(app, ctx);
  registerSlotRoutes(app, ctx);
  registerCalendarRoutes(app, ctx);
  registerConferencingRoutes(app, ctx);
  registerDailyWebhookRoutes(app, ctx);
  registerStripeRoutes(app, ctx);
  registerDelegationCredentialRoutes(app, ctx);
  registerCalendarPushRoutes(app, ctx);
  registerBookingRoutes(app, ctx);
  registerWebhookRoutes(app, ctx);
  registerWebhookDeliveryRoutes(app, ctx);
  registerTeamsRoutes(app, ctx);
  registerMembershipAnswerRoutes(app, ctx);
  registerTeamsV1Routes(app, ctx);
  registerOrganizationAdminRoutes(app, ctx);
  registerOrganizationTeamsRoutes(app, ctx);
  registerOrganizationMembershipRoutes(app, ctx);
  registerRolesRoutes(app, ctx);
  registerOrganizationUserRoutes(app, ctx);
  registerOrganizationScheduleRoutes(app, ctx);
  registerOutOfOfficeRoutes(app, ctx);
  registerAttributeRoutes(app, ctx);
  registerRoutingFormRoutes(app, ctx);
  registerWorkflowRoutes(app, ctx);
  registerVerifiedResourceRoutes(app, ctx);
  registerTextMessageRoutes(app, ctx);
  registerTeamScheduleRoutes(app, ctx);
  registerTeamBookingRoutes(app, ctx);
  registerOrganizationWebhookRoutes(app, ctx);
  registerManagedOrganizationRoutes(app, ctx);
  registerTeamEventTypeRoutes(app, ctx);
  registerCalendarInviteRoutes(app, ctx);
  registerPrivateLinkRoutes(app, ctx);
  registerOAuthClientRoutes(app, ctx);
  registerManagedUserRoutes(app, ctx);
  registerOAuthClientWebhookRoutes(app, ctx);
  registerOAuth2Routes(app, ctx);
  registerOAuth2ClientRoutes(app, ctx);
  registerWebPages(app, ctx);

  return app;
}
