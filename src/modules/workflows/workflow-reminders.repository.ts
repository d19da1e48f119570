import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { JOBS_CHANNEL } from '../../jobs/jobs.repository.js';
import type { StepRow } from './workflows.repository.js';

/** The job that turns one due routing-form reminder into an outbox message (payload `{reminderId}`). */
export const WORKFLOW_SEND_JOB = 'workflow.send';

/** A workflow that applies to a booking event, with its steps, as the audience query reads it. */
export interface ApplicableWorkflow {
  id: number;
  trigger: string;
  offsetValue: number | null;
  offsetUnit: 'minute' | 'hour' | 'day' | null;
  steps: StepRow[];
}

const AUDIENCE_COLUMN = 'workflows_applicable';

const listOf = (values: readonly string[]) =>
  sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  );

/** What a message needs of a step, besides who it goes to. */
const MESSAGE_FIELDS = sql`, 'recipient', s.recipient, 'sender', s.sender, 'subject', s.subject, 'html', s.html, 'text', s.text, 'includeCalendarEvent', s.include_calendar_event`;

/** How much of the workflows' steps a query reads: none (when a workflow is owed), who they go to, or all a message needs. */
export type StepDetail = 'none' | 'recipients' | 'messages';

/** The workflows `where` keeps, with as much of their steps as `detail` says, as one json value in one row. */
const workflowsWithSteps = (where: SQL, detail: StepDetail) => {
  const steps =
    detail === 'none'
      ? sql`'[]'::json`
      : sql`(select coalesce(json_agg(json_build_object('id', s.id, 'workflowId', s.workflow_id, 'stepNumber', s.step_number, 'action', s.action, 'template', s.template,
        'email', s.email, 'phone', s.phone${detail === 'messages' ? MESSAGE_FIELDS : sql``}) order by s.step_number, s.id), '[]'::json) from workflow_steps s where s.workflow_id = w.id)`;
  return sql`select coalesce(json_agg(json_build_object('id', w.id, 'trigger', w.trigger, 'offsetValue', w.offset_value, 'offsetUnit', w.offset_unit, 'steps', ${steps})
      order by w.id), '[]'::json) as ${sql.identifier(AUDIENCE_COLUMN)}
    from workflows w
    where ${where}`;
};

/**
 * The event-type workflows of the event type's team listing one of `triggers` that are active on it (by
 * id, on its managed parent, or on all of the team's types), with their steps: one json value in one row,
 * read by the booking event's own insert. Workflows are a team's: a personal event type has none.
 */
export function applicableWorkflowsQuery(eventType: { id: number; teamId: number }, triggers: readonly string[], detail: StepDetail): SQL {
  return workflowsWithSteps(
    sql`w.team_id = ${eventType.teamId}::int and w.type = 'event-type' and w.trigger in (${listOf(triggers)})
      and (w.active_on_all
        or ${eventType.id}::int = any(w.event_type_ids)
        or (select parent_id from event_types where id = ${eventType.id}::int) = any(w.event_type_ids))`,
    detail,
  );
}

/** The routing-form workflows of the form's team listing one of `triggers` that are active on it, with their steps. */
export async function applicableFormWorkflows(db: Db, form: { id: string; teamId: number }, triggers: readonly string[]): Promise<ApplicableWorkflow[]> {
  const result = await db.execute(
    workflowsWithSteps(sql`w.team_id = ${form.teamId}::int and w.type = 'routing-form' and w.trigger in (${listOf(triggers)}) and (w.active_on_all or ${form.id}::text = any(w.routing_form_ids))`, 'recipients'),
  );
  return parseApplicableWorkflows((result as unknown as { rows: Record<string, unknown>[] }).rows);
}

export function parseApplicableWorkflows(rows: Record<string, unknown>[]): ApplicableWorkflow[] {
  const value = rows[0]?.[AUDIENCE_COLUMN];
  if (value === undefined || value === null) return [];
  return (typeof value === 'string' ? JSON.parse(value) : value) as ApplicableWorkflow[];
}

export interface NewReminder {
  dedupeKey: string;
  workflowId: number;
  stepId: number;
  bookingId: number | null;
  formResponseId: number | null;
  channel: 'email' | 'sms' | 'whatsapp';
  recipientAddress: string;
  recipientName: string | null;
  recipientRole: 'host' | 'attendee' | 'address';
  recipientTimeZone: string;
  recipientLocale: string | null;
  scheduledAt: Date;
}

/**
 * Writes routing-form reminders and a send job due at each one's time, in one statement inside the
 * caller's transaction. A reminder whose key is held already (the same message scheduled before) is
 * skipped with its job.
 */
export async function insertReminders(db: Db, reminders: NewReminder[]): Promise<void> {
  if (reminders.length === 0) return;
  const rows = reminders.map(
    (r) =>
      sql`(${r.dedupeKey}::text, ${r.workflowId}::int, ${r.stepId}::int, ${r.bookingId}::int, ${r.formResponseId}::int, ${r.channel}::text, ${r.recipientAddress}::text, ${r.recipientName}::text, ${r.recipientRole}::text, ${r.recipientTimeZone}::text, ${r.recipientLocale}::text, ${r.scheduledAt.toISOString()}::timestamptz)`,
  );
  await db.execute(sql`with wf_reminder (dedupe_key, workflow_id, step_id, booking_id, form_response_id, channel, recipient_address, recipient_name, recipient_role, recipient_time_zone, recipient_locale, scheduled_at) as (values ${sql.join(rows, sql`, `)}),
    wf_inserted as (
      insert into workflow_reminders (dedupe_key, workflow_id, step_id, booking_id, form_response_id, channel, recipient_address, recipient_name, recipient_role, recipient_time_zone, recipient_locale, scheduled_at)
      select * from wf_reminder
      on conflict (dedupe_key) where status <> 'cancelled' do nothing
      returning id, scheduled_at
    ), wf_queued as (
      insert into jobs (kind, payload, run_at, max_attempts) select ${WORKFLOW_SEND_JOB}, jsonb_build_object('reminderId', id), scheduled_at, 10 from wf_inserted returning id
    )
    select pg_notify(${JOBS_CHANNEL}, '') from (select count(*) from wf_queued) queued`);
}

/** Reminders of these steps not sent yet are dropped: the step changed or went. */
export async function cancelStepReminders(db: Db, stepIds: number[]): Promise<void> {
  if (stepIds.length === 0) return;
  await db.execute(sql`update workflow_reminders set status = 'cancelled'
    where step_id in (${sql.join(
      stepIds.map((id) => sql`${id}::int`),
      sql`, `,
    )}) and status = 'scheduled'`);
}

/** The job that sends what one workflow owes one booking at one time (payload DueJob). */
export const WORKFLOW_DUE_JOB = 'workflow.due';

/** What one workflow owes one booking: at `dueAt` (a timed trigger) or at once (an event's, `occasion` naming it). */
export interface DueJob {
  workflowId: number;
  bookingId: number;
  /** Epoch ms; null: an event trigger, sent at once. */
  dueAt: number | null;
  occasion: string;
  /** A no-show trigger's: the video room is read before anything is sent. */
  videoCheck?: boolean;
}

const dueJobKey = (job: DueJob) => `wf-due:${job.workflowId}:${job.bookingId}:${job.dueAt === null ? `now:${job.occasion}` : `at:${job.dueAt}`}`;

/**
 * The due jobs as a data-modifying CTE (a rider for another statement's WITH): one job each, at its
 * time, once per workflow, booking and time (a job already queued for it is kept). Null: nothing to write.
 */
export function dueJobsRider(jobs: DueJob[], now: Date): SQL | null {
  if (jobs.length === 0) return null;
  const rows = jobs.map((job) => sql`(${WORKFLOW_DUE_JOB}, ${JSON.stringify(job)}::jsonb, ${new Date(job.dueAt ?? now.getTime()).toISOString()}::timestamptz, 10, ${dueJobKey(job)})`);
  return sql`wf_due as (insert into jobs (kind, payload, run_at, max_attempts, dedupe_key) values ${sql.join(rows, sql`, `)} on conflict (dedupe_key) do nothing returning id)`;
}

export async function insertDueJobs(db: Db, jobs: DueJob[], now: Date): Promise<void> {
  const rider = dueJobsRider(jobs, now);
  if (rider) await db.execute(sql`with ${rider} select pg_notify(${JOBS_CHANNEL}, '')`);
}

/**
 * Records messages as sent (or failed to render), one statement; returns the dedupe keys written. A key
 * held already (the same message, sent by an earlier run of its job) is skipped: its message must not be
 * queued again.
 */
export async function insertSentReminders(db: Db, reminders: (NewReminder & { messageUid: string; status: 'sent' | 'failed'; error: string | null })[]): Promise<Set<string>> {
  if (reminders.length === 0) return new Set();
  const rows = reminders.map(
    (r) =>
      sql`(${r.dedupeKey}::text, ${r.workflowId}::int, ${r.stepId}::int, ${r.bookingId}::int, ${r.channel}::text, ${r.recipientAddress}::text, ${r.recipientName}::text, ${r.recipientRole}::text, ${r.recipientTimeZone}::text, ${r.recipientLocale}::text, ${r.scheduledAt.toISOString()}::timestamptz, ${r.messageUid || null}::text, ${r.status}::text, ${r.error}::text)`,
  );
  const result = await db.execute(sql`
    insert into workflow_reminders (dedupe_key, workflow_id, step_id, booking_id, channel, recipient_address, recipient_name, recipient_role, recipient_time_zone, recipient_locale, scheduled_at, message_uid, status, last_error, sent_at)
    select *, case when r.status = 'sent' then now() end from (values ${sql.join(rows, sql`, `)}) as r (dedupe_key, workflow_id, step_id, booking_id, channel, recipient_address, recipient_name, recipient_role, recipient_time_zone, recipient_locale, scheduled_at, message_uid, status, last_error)
    on conflict (dedupe_key) where status <> 'cancelled' do nothing
    returning dedupe_key as "dedupeKey"`);
  return new Set((result as unknown as { rows: { dedupeKey: string }[] }).rows.map((row) => row.dedupeKey));
}

export interface DueReminder extends Omit<NewReminder, 'workflowId' | 'stepId' | 'scheduledAt'> {
  id: number;
  status: string;
  step: StepRow;
  trigger: string;
}

/** The reminders, locked in id order, with their steps and workflows' triggers; gone ones are missing. */
export async function lockReminders(db: Db, ids: number[]): Promise<DueReminder[]> {
  if (ids.length === 0) return [];
  const result = await db.execute(sql`
    select r.id, r.status, r.dedupe_key as "dedupeKey", r.channel, r.recipient_address as "recipientAddress", r.recipient_name as "recipientName",
      r.recipient_role as "recipientRole", r.recipient_time_zone as "recipientTimeZone", r.recipient_locale as "recipientLocale",
      r.booking_id as "bookingId", r.form_response_id as "formResponseId", w.trigger,
      json_build_object('id', s.id, 'workflowId', s.workflow_id, 'stepNumber', s.step_number, 'action', s.action, 'recipient', s.recipient, 'template', s.template,
        'sender', s.sender, 'subject', s.subject, 'html', s.html, 'text', s.text, 'email', s.email, 'phone', s.phone, 'includeCalendarEvent', s.include_calendar_event) as step
    from workflow_reminders r join workflow_steps s on s.id = r.step_id join workflows w on w.id = r.workflow_id
    where r.id = any(${sql.param(ids)}::bigint[])
    order by r.id for update of r`);
  return (result as unknown as { rows: (DueReminder & { step: unknown })[] }).rows.map((row) => ({
    ...row,
    id: Number(row.id),
    step: (typeof row.step === 'string' ? JSON.parse(row.step) : row.step) as StepRow,
  }));
}

export interface ReminderOutcome {
  id: number;
  status: 'sent' | 'cancelled' | 'failed';
  messageUid?: string;
  error?: string;
}

/** The outcomes of a group of reminders, one statement. */
export async function markReminders(db: Db, outcomes: ReminderOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const rows = outcomes.map((o) => sql`(${o.id}::bigint, ${o.status}::text, ${o.messageUid ?? null}::text, ${o.error ?? null}::text)`);
  await db.execute(sql`update workflow_reminders r
    set status = o.status, message_uid = o.message_uid, last_error = o.error, sent_at = case when o.status = 'sent' then now() else r.sent_at end
    from (values ${sql.join(rows, sql`, `)}) as o (id, status, message_uid, error)
    where r.id = o.id`);
}


/** Reminders sent, dropped or failed that were made before `createdBefore`: up to `limit`, oldest first; returns how many. */
export async function deleteEndedReminders(db: Db, createdBefore: Date, limit: number): Promise<number> {
  const result = await db.execute(sql`
    delete from workflow_reminders where id in (
      select id from workflow_reminders where status <> 'scheduled' and created_at < ${createdBefore.toISOString()}::timestamptz order by id limit ${limit}
    ) returning id`);
  return (result as unknown as { rows: unknown[] }).rows.length;
}
