import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import type { App } from '../../http/app.js';
import { access, type RouteAccess } from '../../http/access.js';
import { ok } from '../../http/envelope.js';
import { principalOf, tenantTeamOf } from '../../http/request-guard.js';
import { receiveStripeEvent } from './payment-webhooks.service.js';
import type { PaymentOwner } from './payments.repository.js';
import { CheckOutput, ConnectOutput, ConnectQuery, SaveOutput, SaveQuery, TeamParams, WebhookOutput } from './payments.schemas.js';
import { checkStripeConnection, type StripeCallbackQuery, type StripeSaveOutcome, saveStripeConnection, stripeConnectUrl, TEAM_STRIPE_RULE } from './stripe-connect.service.js';

interface OwnerRoutes {
  prefix: string;
  tags: string[];
  caller: RouteAccess;
  whose: string;
  params?: typeof TeamParams;
  owner(request: FastifyRequest): { owner: PaymentOwner; orgId: number | null };
  /** The team a save route takes states of (null: the user-level route, which takes every state). */
  saveTeam(request: FastifyRequest): { orgId: number; teamId: number } | null;
}

/** 301 to where the flow goes next; without an address, the reference's body. */
function sendSaveOutcome(reply: FastifyReply, outcome: StripeSaveOutcome) {
  if (outcome.url) return reply.redirect(outcome.url, 301);
  return reply.status(200).send(outcome);
}

function registerOwnerRoutes(app: App, ctx: AppContext, routes: OwnerRoutes): void {
  const { prefix, tags, whose } = routes;
  const params = routes.params ? { params: routes.params } : {};

  app.get(`${prefix}/connect`, {
    config: { access: routes.caller },
    schema: {
      tags,
      summary: `Get Stripe connect URL${whose}`,
      description:
        "Stripe Connect's consent page for connecting a Stripe account that bookers of paid event types pay into. Stripe sends the browser back to GET /v2/stripe/save, which stores the account and redirects (301) to `returnTo` (or `onErrorReturnTo`). svc seals the page's state (good for 15 minutes); unlike the reference's, it carries no access token.",
      ...params,
      querystring: ConnectQuery,
      response: { 200: ConnectOutput },
    },
    handler: async (request) => {
      const { user } = principalOf(request);
      const { owner, orgId } = routes.owner(request);
      return ok(stripeConnectUrl(ctx, { owner, orgId, user: { id: user.id, email: user.email, name: user.name } }, request.query));
    },
  });

  app.get(`${prefix}/save`, {
    // Stripe sends the user's browser here: whose account it is comes from the sealed state alone.
    config: { access: access.public() },
    schema: {
      tags,
      summary: 'Save Stripe credentials',
      description:
        "Stripe Connect's redirect: trades the code for the connected account, reads it, stores it (replacing one connected before) and redirects (301) to `returnTo`, or to `onErrorReturnTo` when the consent was refused or Stripe failed. Without those addresses it answers `{url: ''}` (200) or the error. A team's account is stored only if whoever began connecting still administers the team.",
      ...params,
      querystring: SaveQuery,
      response: { 200: SaveOutput },
    },
    handler: async (request, reply) => sendSaveOutcome(reply, await saveStripeConnection(ctx, request.query as StripeCallbackQuery, routes.saveTeam(request))),
  });

  app.get(`${prefix}/check`, {
    config: { access: routes.caller },
    schema: {
      tags,
      summary: `Check${whose === '' ? '' : ' team'} Stripe connection`,
      description: 'Asks Stripe whether the connected account can take payments (charges and payouts enabled). 404 without one; 400 when it was disconnected or is not active yet.',
      ...params,
      response: { 200: CheckOutput },
    },
    handler: async (request) => checkStripeConnection(ctx, routes.owner(request).owner),
  });
}

export function registerStripeRoutes(app: App, ctx: AppContext): void {
  registerOwnerRoutes(app, ctx, {
    prefix: '/v2/stripe',
    tags: ['Stripe'],
    caller: access.user('APPS_WRITE'),
    whose: '',
    owner: (request) => ({ owner: { kind: 'user', userId: principalOf(request).user.id }, orgId: null }),
    saveTeam: () => null,
  });
  registerOwnerRoutes(app, ctx, {
    prefix: '/v2/organizations/:orgId/teams/:teamId/stripe',
    tags: ['Orgs / Teams / Stripe'],
    caller: access.tenant('TEAM_APPS_WRITE', TEAM_STRIPE_RULE),
    whose: ' for a team',
    params: TeamParams,
    owner: (request) => {
      const team = tenantTeamOf(request);
      return { owner: { kind: 'team', teamId: team.id }, orgId: team.parentId };
    },
    saveTeam: (request) => {
      const { orgId, teamId } = request.params as { orgId: number; teamId: number };
      return { orgId, teamId };
    },
  });

  void app.register(async (scope) => {
    // Stripe signs the body byte for byte: it is kept as text and parsed only after the check.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 512 * 1024 }, (_request, body, done) => done(null, body));
    scope.post('/v2/stripe/webhook', {
      // Stripe posts from addresses every Stripe customer shares; an unsigned request costs one HMAC.
      config: { access: access.public(), rateLimit: false as const },
      schema: {
        tags: ['Stripe'],
        summary: 'Stripe webhook events (svc)',
        description:
          "Where svc's Connect webhook endpoint at Stripe posts (events on connected accounts), signed with STRIPE_WEBHOOK_SECRET (Stripe-Signature; at most 5 minutes old). checkout.session.completed (paid) and checkout.session.async_payment_succeeded confirm the booking the payment page was opened for (BOOKING_PAID, then BOOKING_CREATED or BOOKING_REQUESTED); a payment for a booking no longer waiting is refunded; checkout.session.expired releases an unpaid booking; account.application.deauthorized marks the account disconnected. Each event acts once, by its id. 400 for a request svc cannot verify; 404 when svc takes no payments.",
        response: { 200: WebhookOutput },
      },
      handler: async (request) => {
        const raw = typeof request.body === 'string' ? request.body : '';
        const signature = request.headers['stripe-signature'];
        const outcome = await receiveStripeEvent(ctx, raw, typeof signature === 'string' ? signature.slice(0, 2048) : undefined);
        return { received: true as const, outcome };
      },
    });
  });
}
