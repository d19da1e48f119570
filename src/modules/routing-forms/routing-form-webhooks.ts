// FORM_SUBMITTED (at once, in the response's transaction) and FORM_SUBMITTED_NO_EVENT (15 minutes later,
// when the response still led to no booking), to the subscriptions of the form's team and organization,
// through svc's durable delivery. Payloads as the reference's: the form, its team and the answers by field
// identifier, `{value, response}` (a choice's `response` names its option's id and label).
import type { Database, Db } from '../../db/client.js';
import { insertJobs } from '../../jobs/jobs.repository.js';
import { emitWebhookEvent } from '../webhooks/webhook-emission.js';
import { findSubscriptions, type WebhookAudience } from '../webhooks/webhook-deliveries.repository.js';
import { findWebhookById } from '../webhooks/webhooks.repository.js';
import type { FormField, FormRoute } from './routing-form-model.js';
import * as repo from './routing-forms.repository.js';

export const FORM_NO_EVENT_JOB = 'routing-form.no-event';
/** The reference's wait before FORM_SUBMITTED_NO_EVENT. */
export const NO_EVENT_DELAY_MS = 15 * 60_000;

export interface NoEventJobPayload {
  responseId: number;
  webhookId: number;
}

const audienceOf = (form: repo.RoutingFormRow): WebhookAudience => ({ userIds: [], eventTypeIds: [], teamIds: [form.teamId], organizationIds: [form.organizationId], oauthClientIds: [] });

/** The answers by field identifier, as the reference's FORM_SUBMITTED_WEBHOOK_RESPONSES. */
export function responsesByIdentifier(form: repo.RoutingFormRow, response: repo.ResponseRow): Record<string, { value: unknown; response: unknown }> {
  const out: Record<string, { value: unknown; response: unknown }> = {};
  for (const field of form.fields as FormField[]) {
    const answer = response.response[field.id];
    if (!answer) continue;
    const option = (label: unknown) => ({ label, id: field.options?.find((candidate) => candidate.label === label)?.id ?? null });
    const chosen = field.options ? (Array.isArray(answer.value) ? answer.value.map(option) : option(answer.value)) : answer.value;
    out[field.identifier] = { value: answer.value, response: chosen };
  }
  return out;
}

const redirectOf = (route: FormRoute) =>
  route.action.type === 'externalRedirectUrl'
    ? { type: 'externalRedirectUrl', value: route.action.url }
    : route.action.type === 'customPageMessage'
      ? { type: 'customPageMessage', value: route.action.message }
      : { type: 'eventTypeRedirectUrl', value: String(route.action.eventTypeId) };

/** In the response's transaction: the FORM_SUBMITTED deliveries, and a check 15 minutes on for each FORM_SUBMITTED_NO_EVENT subscription. */
export async function emitFormSubmitted(tx: Db, form: repo.RoutingFormRow, response: repo.ResponseRow, route: FormRoute, now: number): Promise<void> {
  const subscriptions = await findSubscriptions(tx, audienceOf(form), ['FORM_SUBMITTED', 'FORM_SUBMITTED_NO_EVENT']);
  const submitted = subscriptions.filter((subscription) => subscription.triggers.includes('FORM_SUBMITTED'));
  const payload = { formId: form.id, formName: form.name, teamId: form.teamId, responseId: response.id, responses: responsesByIdentifier(form, response), redirect: redirectOf(route) };
  await emitWebhookEvent(tx, { trigger: 'FORM_SUBMITTED', createdAt: new Date(now), bookingEventId: null, payload }, submitted);
  const noEvent = subscriptions.filter((subscription) => subscription.triggers.includes('FORM_SUBMITTED_NO_EVENT'));
  await insertJobs(
    tx,
    noEvent.map((subscription) => {
      const job: NoEventJobPayload = { responseId: response.id, webhookId: subscription.id };
      return { kind: FORM_NO_EVENT_JOB, payload: job, runAt: new Date(now + NO_EVENT_DELAY_MS), dedupeKey: `${FORM_NO_EVENT_JOB}:${response.id}:${subscription.id}` };
    }),
  );
}

/** The check: the response still unbooked and the subscription still listening, FORM_SUBMITTED_NO_EVENT once. */
export async function runNoEventJob(database: Database, job: NoEventJobPayload): Promise<void> {
  await database.transaction(async (tx) => {
    const response = await repo.lockResponse(tx, job.responseId);
    if (!response || response.routedToBookingUid !== null || response.noEventWebhookIds.includes(job.webhookId)) return;
    const webhook = await findWebhookById(tx, job.webhookId);
    if (!webhook?.active || !webhook.triggers.includes('FORM_SUBMITTED_NO_EVENT')) return;
    const form = await repo.findForm(tx, response.formId);
    if (!form) return;
    const route = (form.routes as FormRoute[]).find((candidate) => candidate.id === response.routeId);
    const payload = { formId: form.id, formName: form.name, teamId: form.teamId, responseId: response.id, responses: responsesByIdentifier(form, response), ...(route ? { redirect: redirectOf(route) } : {}) };
    await emitWebhookEvent(tx, { trigger: 'FORM_SUBMITTED_NO_EVENT', createdAt: new Date(), bookingEventId: null, payload }, [{ id: webhook.id, triggers: webhook.triggers, payloadTemplate: webhook.payloadTemplate }]);
    await repo.markNoEventSent(tx, response.id, job.webhookId);
  });
}
