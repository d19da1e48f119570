import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { runMutation } from '../../http/mutation.js';
import { principalOf } from '../../http/request-guard.js';
import type { Db } from '../../db/client.js';
import { IdempotentHeaders } from '../webhooks/webhooks.schemas.js';
import { presentWorkflow } from './workflows.presenter.js';
import {
  CreateEventTypeWorkflowBody,
  CreateFormWorkflowBody,
  TeamWorkflowParams,
  TeamWorkflowsParams,
  UpdateEventTypeWorkflowBody,
  UpdateFormWorkflowBody,
  WorkflowOutput,
  WorkflowsQuery,
} from './workflows.schemas.js';
import * as workflows from './workflows.service.js';
import type { WorkflowWithSteps } from './workflows.repository.js';

type Params = { orgId: number; teamId: number; workflowId?: number };

const STEPS_NOTE =
  "Steps carry an action (email_host, email_attendee, email_address, sms_attendee, sms_number, whatsapp_attendee, whatsapp_number; svc_ai_phone_call is refused: svc has no telephony provider), a template (reminder, custom, rescheduled, completed, rating, cancelled: an empty message uses svc's text for it) and a message whose subject, html (email) or text (SMS, WhatsApp) may name variables such as {EVENT_NAME}, {ORGANIZER}, {ATTENDEE}, {LOCATION}, {MEETING_URL}, {START_TIME_h:mma}, {EVENT_DATE_ddd, MMM D, YYYY h:mma}, {TIMEZONE}, filled in the recipient's zone and locale when sent. email_address, sms_number and whatsapp_number send to an address or number verified for the team (verifiedEmailId, verifiedPhoneId). SMS and WhatsApp steps need Twilio configured (400 otherwise). Email HTML is sanitized when saved.";
const TIMING_NOTE =
  'beforeEvent and afterEvent messages are scheduled with each booking (moved by a reschedule, dropped by a cancellation or decline) and, when the workflow is made or changed, for the bookings that exist already; a message whose time has passed is not sent late. Event triggers (newEvent, eventCancelled, rescheduleEvent, bookingRequested, bookingRejected, bookingNoShowUpdated) send at once.';
const WRITE_NOTE = 'Send Idempotency-Key to make retries safe.';

/** Organization team workflows (event-type and routing-form), as the reference's OrganizationTeamWorkflowsController. */
export function registerWorkflowRoutes(app: App, ctx: AppContext): void {
  const db = () => ctx.database.db;
  const read = access.tenant('TEAM_WORKFLOW_READ', { role: 'TEAM_ADMIN', permissions: ['workflow.read'] });
  const rule = (permission: string) => access.tenant('TEAM_WORKFLOW_WRITE', { role: 'TEAM_ADMIN', permissions: [permission] });
  const tags = ['Orgs / Teams / Workflows'];
  const base = '/v2/organizations/:orgId/teams/:teamId/workflows';
  const channels = () => ({ sms: ctx.config.twilio !== null, whatsapp: ctx.config.twilio !== null && (ctx.config.twilio.whatsappFrom !== undefined || ctx.config.twilio.messagingServiceSid !== undefined) });
  const owner = (request: FastifyRequest) => {
    const { orgId, teamId } = request.params as Params;
    return { organizationId: orgId, teamId, userId: principalOf(request).user.id };
  };
  const write = (request: FastifyRequest, reply: FastifyReply, status: number, work: (tx: Db) => Promise<WorkflowWithSteps>) =>
    runMutation(ctx, request, reply, async (tx) => ({ status, body: ok(presentWorkflow(await work(tx))) }));

  for (const type of ['event-type', 'routing-form'] as const) {
    const suffix = type === 'routing-form' ? '/routing-form' : '';
    const kind = type === 'routing-form' ? ' (routing-form)' : '';
    const createBody = type === 'event-type' ? CreateEventTypeWorkflowBody : CreateFormWorkflowBody;
    const updateBody = type === 'event-type' ? UpdateEventTypeWorkflowBody : UpdateFormWorkflowBody;
    const triggers =
      type === 'event-type'
        ? TIMING_NOTE
        : 'formSubmitted sends when a response is submitted; formSubmittedNoEvent after its offset if no booking used the response. Routing-form steps: email_attendee, email_address, sms_attendee, sms_number (the attendee: the email or phone answers of the response).';

    app.get(`${base}${suffix}`, {
      config: { access: read },
      schema: { tags, summary: `Get organization team workflows${kind}`, params: TeamWorkflowsParams, querystring: WorkflowsQuery, response: { 200: Envelope(Type.Array(WorkflowOutput)) } },
      handler: async (request) => {
        const { skip, take } = request.query as { skip?: number; take?: number };
        return ok((await workflows.listWorkflows(db(), request.params.teamId, type, { skip: skip ?? 0, take: take ?? 250 })).map(presentWorkflow));
      },
    });
    app.post(`${base}${suffix}`, {
      config: { access: rule('workflow.create') },
      schema: {
        tags,
        summary: type === 'event-type' ? 'Create organization team workflow for event-types' : 'Create organization team workflow for routing-forms',
        description: `${STEPS_NOTE} ${triggers} ${WRITE_NOTE}`,
        headers: IdempotentHeaders,
        params: TeamWorkflowsParams,
        body: createBody,
        response: { 201: Envelope(WorkflowOutput) },
      },
      handler: async (request, reply) => write(request, reply, 201, (tx) => workflows.createWorkflow(tx, owner(request), type, request.body as workflows.WorkflowInput, channels())),
    });
    app.get(`${base}/:workflowId${suffix}`, {
      config: { access: read },
      schema: { tags, summary: `Get organization team workflow${kind}`, params: TeamWorkflowParams, response: { 200: Envelope(WorkflowOutput) } },
      handler: async (request) => ok(presentWorkflow(await workflows.getWorkflow(db(), request.params.teamId, request.params.workflowId, type))),
    });
    app.patch(`${base}/:workflowId${suffix}`, {
      config: { access: rule('workflow.update') },
      schema: {
        tags,
        summary: type === 'event-type' ? 'Update organization team workflow' : 'Update organization routing form team workflow',
        description: `Steps with an id are changed, steps without are added, the workflow's steps not listed are removed. What the workflow had scheduled and not sent is scheduled anew. The reference documents data as an array; it answers one workflow, as svc does. ${WRITE_NOTE}`,
        headers: IdempotentHeaders,
        params: TeamWorkflowParams,
        body: updateBody,
        response: { 200: Envelope(WorkflowOutput) },
      },
      handler: async (request, reply) =>
        write(request, reply, 200, (tx) => workflows.updateWorkflow(tx, owner(request), type, request.params.workflowId, request.body as Partial<workflows.WorkflowInput>, channels())),
    });
    app.delete(`${base}/:workflowId${suffix}`, {
      config: { access: rule('workflow.delete') },
      schema: { tags, summary: type === 'event-type' ? 'Delete organization team workflow' : 'Delete organization team routing-form workflow', description: 'With its steps and every message it had not sent yet.', params: TeamWorkflowParams, response: { 200: Envelope(WorkflowOutput) } },
      handler: async (request, reply) => write(request, reply, 200, (tx) => workflows.deleteWorkflow(tx, request.params.teamId, type, request.params.workflowId)),
    });
  }
}
