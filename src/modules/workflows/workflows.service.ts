// Workflows of organization teams: messages (email, SMS, WhatsApp) around the team's bookings and
// routing-form responses. A write queues one activation job that makes the workflow owed, as it now
// reads, by the bookings that exist (see workflow-activation.ts); what a booking was owed under the old
// definition is checked when due and lapses. Routing-form reminders not sent yet are dropped.
import type { Db } from '../../db/client.js';
import { insertJob } from '../../jobs/jobs.repository.js';
import { badRequest, invalidField, notFound } from '../../lib/errors.js';
import { checkSteps, checkTrigger, type StepInput, type TriggerInput } from './workflow-model.js';
import { cancelStepReminders } from './workflow-reminders.repository.js';
import * as repo from './workflows.repository.js';

export type WorkflowType = repo.WorkflowRow['type'];

/** The job that schedules a workflow's timed messages for the bookings that exist (payload `{workflowId}`). */
export const WORKFLOW_ACTIVATE_JOB = 'workflow.activate';

export interface WorkflowOwner {
  organizationId: number;
  teamId: number;
  /** The caller: an address or number they verified for themselves may be used. */
  userId: number;
}

/** Which text channels a provider is configured for. */
export interface TextChannels {
  sms: boolean;
  whatsapp: boolean;
}

export interface ActivationInput {
  isActiveOnAllEventTypes?: boolean | undefined;
  activeOnEventTypeIds?: number[] | undefined;
  isActiveOnAllRoutingForms?: boolean | undefined;
  activeOnRoutingFormIds?: string[] | undefined;
}

export interface WorkflowInput {
  name: string;
  activation: ActivationInput;
  trigger: TriggerInput;
  steps: StepInput[];
}

const workflowNotFound = () => notFound('workflow_not_found', 'Workflow not found');

async function checkedActivation(db: Db, owner: WorkflowOwner, type: WorkflowType, activation: ActivationInput) {
  if (type === 'event-type') {
    const ids = [...new Set(activation.activeOnEventTypeIds ?? [])];
    const known = await repo.teamEventTypeIds(db, owner.teamId, ids);
    const unknown = ids.find((id) => !known.has(id));
    if (unknown !== undefined) throw invalidField('activation.activeOnEventTypeIds', `holds ${unknown}, which is not an event type of team ${owner.teamId}`, ids);
    return { activeOnAll: activation.isActiveOnAllEventTypes === true, eventTypeIds: ids, routingFormIds: [] };
  }
  const ids = [...new Set(activation.activeOnRoutingFormIds ?? [])];
  const known = await repo.teamRoutingFormIds(db, owner.teamId, ids);
  const unknown = ids.find((id) => !known.has(id));
  if (unknown !== undefined) throw invalidField('activation.activeOnRoutingFormIds', `holds ${unknown}, which is not a routing form of team ${owner.teamId}`, ids);
  return { activeOnAll: activation.isActiveOnAllRoutingForms === true, eventTypeIds: [], routingFormIds: ids };
}

/** The steps checked against the store: each fixed address verified, each text channel configured. */
async function checkedSteps(db: Db, owner: WorkflowOwner, steps: StepInput[], channels: TextChannels) {
  const { stored, needs } = checkSteps(steps);
  const resolved = [];
  for (const [index, step] of stored.entries()) {
    const need = needs[index]!;
    if (need.channel !== 'email' && !channels[need.channel]) {
      throw badRequest(
        'text_provider_not_configured',
        `${need.at}.action ${step.action} needs ${need.channel === 'sms' ? 'an SMS' : 'a WhatsApp'} provider, and none is configured (TWILIO_* settings)`,
        { property: `${need.at}.action` },
      );
    }
    let email: string | null = null;
    let phone: string | null = null;
    if (need.verifiedEmailId !== null) {
      email = await repo.findUsableVerifiedEmail(db, need.verifiedEmailId, owner.teamId, owner.userId);
      if (email === null) throw invalidField(`${need.at}.verifiedEmailId`, 'is not an email verified for this team (POST .../verified-resources/emails/verification-code/verify)', need.verifiedEmailId);
    }
    if (need.verifiedPhoneId !== null) {
      phone = await repo.findUsableVerifiedPhone(db, need.verifiedPhoneId, owner.teamId, owner.userId);
      if (phone === null) throw invalidField(`${need.at}.verifiedPhoneId`, 'is not a phone number verified for this team (POST .../verified-resources/phones/verification-code/verify)', need.verifiedPhoneId);
    }
    resolved.push({ step, email, phone, id: steps[index]!.id });
  }
  return resolved;
}

/** Its routing-form reminders not sent yet are dropped; the activation job makes its booking messages owed anew. */
async function reschedule(tx: Db, workflowId: number, stepIds: number[]): Promise<void> {
  await cancelStepReminders(tx, stepIds);
  await insertJob(tx, { kind: WORKFLOW_ACTIVATE_JOB, payload: { workflowId } });
}

export async function createWorkflow(tx: Db, owner: WorkflowOwner, type: WorkflowType, input: WorkflowInput, channels: TextChannels): Promise<repo.WorkflowWithSteps> {
  const trigger = checkTrigger(input.trigger);
  const activation = await checkedActivation(tx, owner, type, input.activation);
  const steps = await checkedSteps(tx, owner, input.steps, channels);
  const row = await repo.insertWorkflow(tx, { organizationId: owner.organizationId, teamId: owner.teamId, userId: owner.userId, name: input.name, type, ...trigger, ...activation });
  await repo.insertSteps(tx, row.id, steps);
  await reschedule(tx, row.id, []);
  return (await repo.findWorkflow(tx, owner.teamId, row.id, type))!;
}

export async function getWorkflow(db: Db, teamId: number, id: number, type: WorkflowType): Promise<repo.WorkflowWithSteps> {
  const row = await repo.findWorkflow(db, teamId, id, type);
  if (!row) throw workflowNotFound();
  return row;
}

export const listWorkflows = (db: Db, teamId: number, type: WorkflowType, page: { skip: number; take: number }) => repo.listWorkflows(db, teamId, type, page);

/**
 * Steps with an `id` (one of this workflow's) are changed, steps without are added, the workflow's
 * steps not named are removed (as the reference's update).
 */
export async function updateWorkflow(tx: Db, owner: WorkflowOwner, type: WorkflowType, id: number, input: Partial<WorkflowInput>, channels: TextChannels): Promise<repo.WorkflowWithSteps> {
  const current = await repo.lockWorkflow(tx, owner.teamId, id, type);
  if (!current) throw workflowNotFound();
  const changes: Partial<repo.NewWorkflow> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.trigger !== undefined) Object.assign(changes, checkTrigger(input.trigger));
  if (input.activation !== undefined) Object.assign(changes, await checkedActivation(tx, owner, type, input.activation));
  const existingStepIds = await repo.stepIdsOf(tx, id);
  if (input.steps !== undefined) {
    const steps = await checkedSteps(tx, owner, input.steps, channels);
    const known = new Set(existingStepIds);
    steps.forEach((step, index) => {
      if (step.id !== undefined && !known.has(step.id)) throw invalidField(`steps.${index}.id`, `is not a step of workflow ${id} (omit it to add a step)`, step.id);
    });
    await repo.deleteStepsExcept(
      tx,
      id,
      steps.flatMap((step) => (step.id === undefined ? [] : [step.id])),
    );
    for (const step of steps) {
      if (step.id !== undefined) await repo.updateStep(tx, id, step.id, step.step, { email: step.email, phone: step.phone });
    }
    await repo.insertSteps(
      tx,
      id,
      steps.filter((step) => step.id === undefined),
    );
  }
  await repo.updateWorkflow(tx, id, changes);
  await reschedule(tx, id, existingStepIds);
  return (await repo.findWorkflow(tx, owner.teamId, id, type))!;
}

/** Deleted with its steps and whatever it had not sent yet. */
export async function deleteWorkflow(tx: Db, teamId: number, type: WorkflowType, id: number): Promise<repo.WorkflowWithSteps> {
  const current = await repo.findWorkflow(tx, teamId, id, type);
  if (!current) throw workflowNotFound();
  await repo.deleteWorkflow(tx, id);
  return current;
}
