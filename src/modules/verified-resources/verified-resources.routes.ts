import type { FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access, type RouteAccess } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { runMutation } from '../../http/mutation.js';
import { TakeSkipQuery } from '../../http/pagination.js';
import { principalOf, tenantOf } from '../../http/request-guard.js';
import { notFound } from '../../lib/errors.js';
import { IdempotentHeaders } from '../webhooks/webhooks.schemas.js';
import { presentTeamEmail, presentTeamPhone, presentUserEmail, presentUserPhone } from './verified-resources.presenter.js';
import {
  CodeSentOutput,
  OrgTeamIdParams,
  OrgTeamParams,
  RequestEmailBody,
  RequestPhoneBody,
  TeamEmailOutput,
  TeamIdParams,
  TeamParams,
  TeamPhoneOutput,
  UserEmailOutput,
  UserIdParams,
  UserPhoneOutput,
  VerifyEmailBody,
  VerifyPhoneBody,
} from './verified-resources.schemas.js';
import * as verification from './verified-resources.service.js';
import type { Owner, ResourceKind, VerifiedRow } from './verified-resources.service.js';

/** One of the three places the reference serves verified resources at: a user's, a team's, an organization team's. */
interface Family {
  base: string;
  tags: string[];
  /** Who a summary says the resources are for ('' for the caller's own). */
  whose: string;
  read: RouteAccess;
  write: RouteAccess;
  params: { list: TSchema | undefined; one: TSchema };
  owner: (request: FastifyRequest) => Owner;
  present: Record<ResourceKind, (row: VerifiedRow) => unknown>;
  output: Record<ResourceKind, TSchema>;
}

const NAMES: Record<ResourceKind, { segment: string; noun: string; field: 'email' | 'phone' }> = {
  email: { segment: 'emails', noun: 'email', field: 'email' },
  phone: { segment: 'phones', noun: 'phone number', field: 'phone' },
};

const requestNote = (kind: ResourceKind) =>
  `Sends a 6-digit code ${kind === 'email' ? 'by email' : 'by SMS (needs Twilio configured: 400 `text_provider_not_configured` otherwise)'}, valid 10 minutes by default (SVC_VERIFICATION_CODE_TTL_MS); a new code replaces the caller's earlier unused one. ` +
  `Only its hash is stored, and it is sent after the request commits. Per caller at most ${kind === 'email' ? 5 : 3} a minute and 10 an hour (SVC_VERIFICATION_PER_CALLER) in all; per ${kind === 'email' ? 'address' : 'number'} 5 an hour whoever asks (SVC_VERIFICATION_PER_DESTINATION): 429 \`too_many_verification_requests\` beyond. ` +
  `409 when it is already verified here.${kind === 'phone' ? ' The number is written internationally (+ and the country code) and stored in E.164.' : ''} Send Idempotency-Key to make retries safe.`;
const VERIFY_NOTE =
  'Checks the code against the latest one sent to the caller for it. The right code verifies it (once: when it already is, the existing one is answered) and is used up. ' +
  'A wrong code counts against the caller: 3 a minute and 10 an hour (SVC_VERIFICATION_WRONG_CODES) at most, then every verify is 429 `too_many_wrong_codes`; a code stops working after 5 wrong tries.';

/** The caller's own resources, and a team's (the team exists: the system admin passes the access check for any id). */
const ownOwner = (request: FastifyRequest): Owner => ({ userId: principalOf(request).user.id, teamId: null });
function teamOwner(request: FastifyRequest): Owner {
  const { team } = tenantOf(request);
  if (!team) throw notFound('team_not_found', `Team with id=${(request.params as { teamId: number }).teamId} not found`);
  return { userId: principalOf(request).user.id, teamId: team.id };
}

function registerFamily(app: App, ctx: AppContext, family: Family): void {
  const deps = () => ({ config: ctx.config, secrets: ctx.secrets, now: new Date(ctx.clock()) });
  const params = (schema: TSchema | undefined) => (schema ? { params: schema } : {});

  for (const kind of ['email', 'phone'] as const) {
    const { segment, noun, field } = NAMES[kind];
    const base = `${family.base}/${segment}`;
    const present = family.present[kind];

    app.post(`${base}/verification-code/request`, {
      config: { access: family.write },
      schema: {
        tags: family.tags,
        summary: `Request ${noun} verification code${family.whose}`,
        description: requestNote(kind),
        headers: IdempotentHeaders,
        ...params(family.params.list),
        body: kind === 'email' ? RequestEmailBody : RequestPhoneBody,
        response: { 200: CodeSentOutput },
      },
      handler: async (request, reply) => {
        const owner = family.owner(request);
        const user = principalOf(request).user;
        const value = (request.body as Record<typeof field, string>)[field];
        return runMutation(ctx, request, reply, async (tx) => {
          await verification.requestCode(tx, deps(), { id: user.id, timeZone: user.timeZone }, owner, kind, value);
          return { status: 200, body: { status: 'success' } };
        });
      },
    });

    app.post(`${base}/verification-code/verify`, {
      config: { access: family.write },
      schema: {
        tags: family.tags,
        summary: `Verify ${kind === 'email' ? 'an email' : 'a phone number'}${family.whose}`,
        description: VERIFY_NOTE,
        ...params(family.params.list),
        body: kind === 'email' ? VerifyEmailBody : VerifyPhoneBody,
        response: { 200: Envelope(family.output[kind]) },
      },
      handler: async (request) => {
        const owner = family.owner(request);
        const body = request.body as Record<typeof field, string> & { code: string };
        // Not runMutation: a wrong code is recorded even though the answer is an error, so the
        // transaction commits the verify's outcome and the refusal is thrown after it.
        const outcome = await ctx.database.transaction((tx) => verification.verifyCode(tx, deps(), owner, kind, body[field], body.code));
        if ('refused' in outcome) throw outcome.refused;
        return ok(present(outcome.verified));
      },
    });

    app.get(base, {
      config: { access: family.read },
      schema: {
        tags: family.tags,
        summary: `Get list of verified ${noun}s${family.whose}`,
        description: 'Oldest first.',
        ...params(family.params.list),
        querystring: TakeSkipQuery(),
        response: { 200: Envelope(Type.Array(family.output[kind])) },
      },
      handler: async (request) => {
        const owner = family.owner(request);
        const query = request.query as { skip?: number; take?: number };
        const rows = await verification.listVerified(ctx.database.db, kind, owner, { skip: query.skip ?? 0, take: query.take ?? 250 });
        return ok(rows.map(present));
      },
    });

    app.get(`${base}/:id`, {
      config: { access: family.read },
      schema: {
        tags: family.tags,
        summary: `Get verified ${noun}${family.whose} by id`,
        description: `Another ${family.whose ? 'team' : 'user'}'s is not found (404).`,
        params: family.params.one,
        response: { 200: Envelope(family.output[kind]) },
      },
      handler: async (request) => {
        const owner = family.owner(request);
        return ok(present(await verification.getVerified(ctx.database.db, kind, owner, (request.params as { id: number }).id)));
      },
    });
  }
}

/**
 * Verified emails and phone numbers (the reference's verified-resources controllers): proven by a code
 * sent to them, they are what workflow steps may send to. A user's own, a team's (its admins, as the
 * reference's RolesGuard TEAM_ADMIN; PBAC team.update to verify, team.read to read), and an
 * organization team's (its admins and the organization's).
 */
export function registerVerifiedResourceRoutes(app: App, ctx: AppContext): void {
  registerFamily(app, ctx, {
    base: '/v2/verified-resources',
    tags: ['Verified Resources'],
    whose: '',
    read: access.user('VERIFIED_RESOURCES_READ'),
    write: access.user('VERIFIED_RESOURCES_WRITE'),
    params: { list: undefined, one: UserIdParams },
    owner: ownOwner,
    present: { email: presentUserEmail, phone: presentUserPhone },
    output: { email: UserEmailOutput, phone: UserPhoneOutput },
  });
  const teamRead = access.tenant('TEAM_VERIFIED_RESOURCES_READ', { role: 'TEAM_ADMIN', permissions: ['team.read'] });
  const teamWrite = access.tenant('TEAM_VERIFIED_RESOURCES_WRITE', { role: 'TEAM_ADMIN', permissions: ['team.update'] });
  const teamOutputs = { present: { email: presentTeamEmail, phone: presentTeamPhone }, output: { email: TeamEmailOutput, phone: TeamPhoneOutput } };
  registerFamily(app, ctx, {
    base: '/v2/teams/:teamId/verified-resources',
    tags: ['Teams Verified Resources'],
    whose: ' of a team',
    read: teamRead,
    write: teamWrite,
    params: { list: TeamParams, one: TeamIdParams },
    owner: teamOwner,
    ...teamOutputs,
  });
  registerFamily(app, ctx, {
    base: '/v2/organizations/:orgId/teams/:teamId/verified-resources',
    tags: ['Organization Team Verified Resources'],
    whose: ' of an org team',
    read: teamRead,
    write: teamWrite,
    params: { list: OrgTeamParams, one: OrgTeamIdParams },
    owner: teamOwner,
    ...teamOutputs,
  });
}
