import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/client.js';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { runAnnouncedMutation, runMutation } from '../../http/mutation.js';
import { principalOf } from '../../http/request-guard.js';
import { IdempotentHeaders } from '../webhooks/webhooks.schemas.js';
import { presentForm, presentResponse, presentRouted } from './routing-forms.presenter.js';
import {
  Answers,
  CreateFormBody,
  FormOutput,
  FormsQuery,
  OrgFormParams,
  OrgFormsParams,
  OrgResponseParams,
  PublicFormParams,
  ResponseOutput,
  ResponsesQuery,
  RoutedOutput,
  SlotsWindowQuery,
  TeamFormParams,
  TeamFormsParams,
  TeamResponseParams,
  UpdateFormBody,
  UpdateResponseBody,
} from './routing-forms.schemas.js';
import * as forms from './routing-forms.service.js';

type ListQuery = { skip?: number | undefined; take?: number | undefined; sortCreatedAt?: 'asc' | 'desc' | undefined; sortUpdatedAt?: 'asc' | 'desc' | undefined; afterCreatedAt?: string | undefined; beforeCreatedAt?: string | undefined; afterUpdatedAt?: string | undefined; beforeUpdatedAt?: string | undefined };
const date = (value: string | undefined) => (value === undefined ? undefined : new Date(value));
const filterOf = (query: ListQuery) => ({
  skip: query.skip ?? 0,
  take: query.take ?? 250,
  sortCreatedAt: query.sortCreatedAt,
  sortUpdatedAt: query.sortUpdatedAt,
  afterCreatedAt: date(query.afterCreatedAt),
  beforeCreatedAt: date(query.beforeCreatedAt),
  afterUpdatedAt: date(query.afterUpdatedAt),
  beforeUpdatedAt: date(query.beforeUpdatedAt),
});
const teamIdsOf = (values: string[] | undefined) => (values ?? []).flatMap((value) => value.split(',')).map((value) => Number(value.trim())).filter((id) => id > 0);
const WRITE_NOTE = 'Send Idempotency-Key to make retries safe.';
const RESPONSE_NOTE =
  'Answers keyed by field identifier: checked against the form, routed (the first route whose condition holds, else the fallback), stored and announced (FORM_SUBMITTED; FORM_SUBMITTED_NO_EVENT 15 minutes later if no booking uses it). An event-type route answers its id and the members it keeps (`routing`: book with it in POST /v2/bookings), and with `start` and `end` their slots.';

/** Organization and team routing forms (the reference's), their responses, and svc's routes to make and change forms. */
export function registerRoutingFormRoutes(app: App, ctx: AppContext): void {
  const db = () => ctx.database.db;
  const teamRule = (scope: 'TEAM_ROUTING_FORM_READ' | 'TEAM_ROUTING_FORM_WRITE', permission: string) => access.tenant(scope, { role: 'TEAM_ADMIN', permissions: [permission] });
  const orgRule = (scope: 'ORG_ROUTING_FORM_READ' | 'ORG_ROUTING_FORM_WRITE', permission: string) => access.tenant(scope, { role: 'ORG_ADMIN', permissions: [permission] });
  const teamTags = ['Orgs / Teams / Routing forms'];
  const responseTags = ['Orgs / Teams / Routing forms / Responses'];
  const orgTags = ['Orgs / Routing forms'];
  const team = '/v2/organizations/:orgId/teams/:teamId/routing-forms';
  const org = '/v2/organizations/:orgId/routing-forms';

  // Visitors read forms through the availability cache: a form written drops it in every process.
  const formWrite = (request: FastifyRequest, reply: FastifyReply, status: number, write: (tx: Db) => Promise<Parameters<typeof presentForm>[0]>) =>
    runAnnouncedMutation(ctx, request, reply, status, { kind: 'tenancy' }, async (tx) => presentForm(await write(tx)));

  /** Records a response and answers where it went (with slots when a window is asked). */
  const respond = async (request: FastifyRequest, reply: FastifyReply, form: Awaited<ReturnType<typeof forms.getForm>>, answers: Record<string, unknown>, window: Record<string, unknown>) => {
    const routing = await forms.routeAnswers(db(), form, answers, ctx.availability);
    const slots = await forms.routedSlots({ database: ctx.database, cache: ctx.availability, now: ctx.clock() }, routing, window);
    return runMutation(ctx, request, reply, async (tx) => {
      const response = await forms.recordResponse(tx, form, routing, ctx.clock());
      return { status: 201, body: ok(presentRouted(routing, response.id, slots)) };
    });
  };

  // --- Team forms: svc's create, read, update and delete (the reference makes forms in its web app), and its list.
  app.get(team, {
    config: { access: teamRule('TEAM_ROUTING_FORM_READ', 'routingForm.read') },
    schema: { tags: teamTags, summary: 'Get team routing forms', params: TeamFormsParams, querystring: FormsQuery, response: { 200: Envelope(Type.Array(FormOutput)) } },
    handler: async (request) => ok((await forms.listForms(db(), { organizationId: request.params.orgId, teamIds: [request.params.teamId] }, filterOf(request.query))).map(presentForm)),
  });
  app.post(team, {
    config: { access: teamRule('TEAM_ROUTING_FORM_WRITE', 'routingForm.create') },
    schema: {
      tags: teamTags,
      summary: 'Create a team routing form',
      description: `svc extension. Fields (the questions), and routes in order: each a JsonLogic condition over the answers and an action (an event type of the team with an optional condition keeping members by their attributes, an external URL, or a message), ending with the fallback route. ${WRITE_NOTE}`,
      headers: IdempotentHeaders,
      params: TeamFormsParams,
      body: CreateFormBody,
      response: { 201: Envelope(FormOutput) },
    },
    handler: async (request, reply) =>
      formWrite(request, reply, 201, (tx) => forms.createForm(tx, { organizationId: request.params.orgId, teamId: request.params.teamId }, principalOf(request).user.id, request.body)),
  });
  app.get(`${team}/:routingFormId`, {
    config: { access: teamRule('TEAM_ROUTING_FORM_READ', 'routingForm.read') },
    schema: { tags: teamTags, summary: 'Get a team routing form', description: 'svc extension.', params: TeamFormParams, response: { 200: Envelope(FormOutput) } },
    handler: async (request) => ok(presentForm(await forms.getForm(db(), { organizationId: request.params.orgId, teamId: request.params.teamId }, request.params.routingFormId))),
  });
  app.patch(`${team}/:routingFormId`, {
    config: { access: teamRule('TEAM_ROUTING_FORM_WRITE', 'routingForm.update') },
    schema: { tags: teamTags, summary: 'Update a team routing form', description: `svc extension. Fields and routes are checked together. ${WRITE_NOTE}`, headers: IdempotentHeaders, params: TeamFormParams, body: UpdateFormBody, response: { 200: Envelope(FormOutput) } },
    handler: async (request, reply) =>
      formWrite(request, reply, 200, (tx) => forms.updateForm(tx, { organizationId: request.params.orgId, teamId: request.params.teamId }, request.params.routingFormId, request.body)),
  });
  app.delete(`${team}/:routingFormId`, {
    config: { access: teamRule('TEAM_ROUTING_FORM_WRITE', 'routingForm.delete') },
    schema: { tags: teamTags, summary: 'Delete a team routing form', description: 'svc extension. With its responses.', params: TeamFormParams, response: { 200: Envelope(FormOutput) } },
    handler: async (request, reply) =>
      formWrite(request, reply, 200, (tx) => forms.deleteForm(tx, { organizationId: request.params.orgId, teamId: request.params.teamId }, request.params.routingFormId)),
  });

  // --- Responses, at the team's and the organization's paths.
  const responseRoutes = (base: string, tags: string[], read: ReturnType<typeof teamRule>, write: ReturnType<typeof teamRule>, params: { one: typeof TeamFormParams | typeof OrgFormParams; response: typeof TeamResponseParams | typeof OrgResponseParams }) => {
    const formOf = (request: FastifyRequest) => {
      const p = request.params as { orgId: number; teamId?: number; routingFormId: string };
      return forms.getForm(db(), { organizationId: p.orgId, teamId: p.teamId }, p.routingFormId);
    };
    app.get(`${base}/:routingFormId/responses`, {
      config: { access: read },
      schema: { tags, summary: 'Get routing form responses', params: params.one, querystring: ResponsesQuery, response: { 200: Envelope(Type.Array(ResponseOutput)) } },
      handler: async (request) => {
        const form = await formOf(request);
        const query = request.query as ListQuery & { routedToBookingUid?: string };
        return ok((await forms.listResponses(db(), form.id, { ...filterOf(query), routedToBookingUid: query.routedToBookingUid })).map(presentResponse));
      },
    });
    app.post(`${base}/:routingFormId/responses`, {
      config: { access: write },
      schema: { tags, summary: 'Create routing form response and get available slots', description: `${RESPONSE_NOTE} ${WRITE_NOTE}`, headers: IdempotentHeaders, params: params.one, querystring: SlotsWindowQuery, body: Answers, response: { 201: Envelope(RoutedOutput) } },
      handler: async (request, reply) => respond(request, reply, await formOf(request), request.body as Record<string, unknown>, request.query as Record<string, unknown>),
    });
    app.patch(`${base}/:routingFormId/responses/:responseId`, {
      config: { access: write },
      schema: { tags, summary: 'Update routing form response', description: `New answers, checked against the form; where it was routed stays. ${WRITE_NOTE}`, headers: IdempotentHeaders, params: params.response, body: UpdateResponseBody, response: { 200: Envelope(ResponseOutput) } },
      handler: async (request, reply) => {
        const { responseId } = request.params as { responseId: number };
        // Read before the transaction: on the embedded store a read outside it would wait for it to end.
        const form = await formOf(request);
        return runMutation(ctx, request, reply, async (tx) => {
          return { status: 200, body: ok(presentResponse(await forms.updateResponseAnswers(tx, form, responseId, (request.body as { response: Record<string, unknown> }).response))) };
        });
      },
    });
  };
  responseRoutes(team, responseTags, teamRule('TEAM_ROUTING_FORM_READ', 'routingForm.read'), teamRule('TEAM_ROUTING_FORM_WRITE', 'routingForm.update'), { one: TeamFormParams, response: TeamResponseParams });
  responseRoutes(org, orgTags, orgRule('ORG_ROUTING_FORM_READ', 'routingForm.read'), orgRule('ORG_ROUTING_FORM_WRITE', 'routingForm.update'), { one: OrgFormParams, response: OrgResponseParams });

  app.get(org, {
    config: { access: orgRule('ORG_ROUTING_FORM_READ', 'routingForm.read') },
    schema: { tags: orgTags, summary: 'Get organization routing forms', description: "The forms of the organization's teams (`teamIds`: of those teams).", params: OrgFormsParams, querystring: FormsQuery, response: { 200: Envelope(Type.Array(FormOutput)) } },
    handler: async (request) => ok((await forms.listForms(db(), { organizationId: request.params.orgId, teamIds: teamIdsOf(request.query.teamIds) }, filterOf(request.query))).map(presentForm)),
  });

  // --- Visitors: no credentials; rate-limited as slots (calculate) and reservations (responses).
  const publicForm = (request: FastifyRequest) => forms.findPublicForm(db(), (request.params as { routingFormId: string }).routingFormId, ctx.availability);
  app.post('/v2/routing-forms/:routingFormId/calculate-slots', {
    config: { access: access.publicOrUser() },
    schema: {
      tags: ['Routing forms'],
      summary: 'Calculate slots based on routing form response',
      description: 'The answers routed as a response would be, nothing stored: the event type, its members and (with `start` and `end`) their slots, or the route\'s message or URL.',
      params: PublicFormParams,
      querystring: SlotsWindowQuery,
      body: Answers,
      response: { 200: Envelope(RoutedOutput) },
    },
    handler: async (request) => {
      const form = await publicForm(request);
      const routing = await forms.routeAnswers(db(), form, request.body as Record<string, unknown>, ctx.availability);
      const slots = await forms.routedSlots({ database: ctx.database, cache: ctx.availability, now: ctx.clock() }, routing, request.query as Record<string, unknown>);
      return ok(presentRouted(routing, null, slots));
    },
  });
  app.post('/v2/routing-forms/:routingFormId/responses', {
    config: { access: access.publicOrUser() },
    schema: { tags: ['Routing forms'], summary: 'Submit a routing form', description: `svc extension: a visitor's response, without credentials. ${RESPONSE_NOTE} It reads no other response.`, headers: IdempotentHeaders, params: PublicFormParams, querystring: SlotsWindowQuery, body: Answers, response: { 201: Envelope(RoutedOutput) } },
    handler: async (request, reply) => respond(request, reply, await publicForm(request), request.body as Record<string, unknown>, request.query as Record<string, unknown>),
  });
}
