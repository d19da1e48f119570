// The `workflow.send` job: a due reminder rendered for its recipient and handed to the mail or
// text-message outbox, in one transaction that also marks it sent. The reminder row is locked, so of
// several workers that run its job (a retry after a crash, a second worker after a lease ran out) one
// queues the message and the others find it sent. Jobs running at once are handled as one group.
import { randomUUID } from 'node:crypto';
import type { Database, Db } from '../../db/client.js';
import type { JobHandler } from '../../jobs/runner.js';
import { groupedCalls } from '../../lib/grouped-calls.js';
import { type BookingRecord, findBookingsByIds, loadRecords } from '../bookings/bookings.repository.js';
import { invitationIcs } from '../mail/invitation.js';
import { insertMailMessages, type NewMailMessage } from '../mail/mail.repository.js';
import { MAIL_MAX_ATTEMPTS, MAIL_SEND_JOB } from '../mail/mail-sender.js';
import { insertTextMessages, type NewTextMessage } from '../text-messages/text-messages.repository.js';
import { TEXT_MAX_ATTEMPTS } from '../text-messages/text-message-sender.js';
import { EVENT_TYPE_TRIGGERS } from './workflow-model.js';
import {
  type ApplicableWorkflow,
  applicableWorkflowsQuery,
  type DueJob,
  type DueReminder,
  insertSentReminders,
  lockReminders,
  markReminders,
  type NewReminder,
  parseApplicableWorkflows,
  type ReminderOutcome,
} from './workflow-reminders.repository.js';
import { dueAtOf, NO_SHOW_TRIGGERS, remindersFor } from './workflow-reminders.js';
import { type NoShowDeps, type NoShowVerdict, readNoShowVerdict } from '../conferencing/video-no-shows.service.js';
import { formReminderOwed, formTemplateBooking } from './workflow-form-reminders.js';
import { lockResponseWithForm } from '../routing-forms/routing-forms.service.js';
import { defaultTemplate, renderHtmlTemplate, renderTemplate, type TemplateBooking, type WorkflowTemplateName } from './workflow-template.js';

export interface WorkflowSendDeps {
  database: Database;
  appUrl: string;
  /** Daily, for the no-show triggers of the built-in video. */
  config: NoShowDeps['config'];
}

/** The booking as the templates read it. */
export function templateBooking(record: BookingRecord): TemplateBooking {
  const { booking } = record;
  const metadata = booking.metadata as Record<string, unknown>;
  const videoUrl = typeof metadata.videoCallUrl === 'string' ? metadata.videoCallUrl : null;
  return {
    uid: booking.uid,
    title: booking.title,
    eventTypeTitle: null,
    start: booking.startAt,
    end: booking.endAt,
    organizer: { name: record.host.name ?? record.host.email, email: record.host.email, timeZone: record.host.timeZone },
    attendees: record.attendees.map((a) => ({ name: a.name, email: a.email, timeZone: a.timeZone, locale: a.locale, phoneNumber: a.phoneNumber })),
    location: booking.location,
    meetingUrl: videoUrl ?? (booking.location && /^https?:\/\//.test(booking.location) ? booking.location : null),
    description: booking.description || null,
    responses: booking.responses,
    cancellationReason: booking.cancellationReason,
    rescheduleReason: booking.reschedulingReason,
  };
}

function renderedContent(reminder: DueReminder, booking: TemplateBooking, appUrl: string) {
  const step = reminder.step;
  const recipient = { name: reminder.recipientName ?? '', timeZone: reminder.recipientTimeZone, locale: reminder.recipientLocale, role: reminder.recipientRole, email: reminder.recipientRole === 'attendee' ? reminder.recipientAddress : null };
  const fallback = defaultTemplate(step.template as WorkflowTemplateName, reminder.channel, reminder.recipientLocale ?? undefined);
  const links = { appUrl };
  const subject = renderTemplate(step.subject.trim() === '' ? fallback.subject : step.subject, booking, recipient, links);
  if (reminder.channel !== 'email') return { subject, text: renderTemplate(step.text?.trim() ? step.text : fallback.text, booking, recipient, links), html: null };
  const html = renderHtmlTemplate(step.html?.trim() ? step.html : fallback.html, booking, recipient, links);
  const text = step.html?.trim() ? htmlToText(html) : renderTemplate(fallback.text, booking, recipient, links);
  return { subject, text, html };
}

/** The plain-text part of an HTML body: line breaks where blocks end, tags dropped, entities read. */
function htmlToText(html: string): string {
  return html
    .replace(/<(br|\/p|\/div|\/li|\/h[1-6])\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function invitationOf(record: BookingRecord, summary: string): string {
  const { booking } = record;
  return invitationIcs({
    method: 'REQUEST',
    uid: booking.icsUid,
    sequence: booking.icsSequence,
    stamp: new Date(),
    start: booking.startAt,
    end: booking.endAt,
    summary,
    description: booking.description,
    location: booking.location,
    tentative: booking.status !== 'accepted',
    organizer: { name: record.host.name, email: record.host.email },
    attendees: record.attendees.map((a) => ({ name: a.name, email: a.email, accepted: true })),
  });
}

/** A routing-form reminder's response as its templates read it, if it is still owed (else null). */
async function formSubjectOf(tx: Db, reminder: DueReminder): Promise<{ template: TemplateBooking; record: null } | null> {
  if (reminder.formResponseId === null) return null;
  const found = await lockResponseWithForm(tx, reminder.formResponseId);
  if (!found || !(await formReminderOwed(tx, reminder, found.form, found.response))) return null;
  return { template: formTemplateBooking(found.form, found.response), record: null };
}

/**
 * What the booking's video room shows, for a no-show workflow, read before the transaction (a provider
 * call; a failure fails the job, which is retried). 'none': the booking is not on svc's Daily video.
 */
async function noShowVerdictOf(deps: WorkflowSendDeps, bookingId: number): Promise<NoShowVerdict | 'none'> {
  const [record] = await loadRecords(deps.database.db, await findBookingsByIds(deps.database.db, [bookingId]));
  return (record && (await readNoShowVerdict({ database: deps.database, config: deps.config }, record))) ?? 'none';
}

/** Whether the no-show a reminder waits for happened: a host absent, or no guest joined. */
const noShowHappened = (trigger: string, verdict: NoShowVerdict | 'none' | undefined) =>
  verdict !== undefined && verdict !== 'none' && (trigger === 'afterHostsSvcVideoNoShow' ? verdict.absentHosts.length > 0 : !verdict.guestJoined);

/** The message one due reminder becomes, or why it is not sent. */
function messageOf(deps: WorkflowSendDeps, reminder: DueReminder, subject: { template: TemplateBooking; record: BookingRecord | null }) {
  const content = renderedContent(reminder, subject.template, deps.appUrl);
  const uid = randomUUID();
  if (reminder.channel !== 'email') {
    return { uid, text: { uid, channel: reminder.channel, toNumber: reminder.recipientAddress, body: content.text, bodySealed: false, purpose: 'workflow' as const } };
  }
  const { record } = subject;
  const mail: NewMailMessage = {
    uid,
    bookingEventId: null,
    kind: 'workflow',
    recipientEmail: reminder.recipientAddress,
    recipientName: reminder.recipientName,
    recipientRole: reminder.recipientRole === 'attendee' ? 'attendee' : 'host',
    recipientTimeZone: reminder.recipientTimeZone,
    recipientLocale: reminder.recipientLocale,
    subject: content.subject,
    textBody: content.text,
    htmlBody: content.html,
    invitationIcs: record && reminder.step.includeCalendarEvent ? invitationOf(record, record.booking.title) : null,
    senderName: reminder.step.sender,
  };
  return { uid, mail };
}

/**
 * Due routing-form reminders, a group at a time (the jobs the runner runs at once): locked together, each
 * checked and rendered, every message written to its outbox with one statement per outbox and the
 * reminders marked with one more, in one transaction.
 */
async function sendReminders(deps: WorkflowSendDeps, reminderIds: number[]): Promise<void> {
  await deps.database.transaction(async (tx) => {
    const reminders = (await lockReminders(tx, [...new Set(reminderIds)])).filter((reminder) => reminder.status === 'scheduled');
    const mails: NewMailMessage[] = [];
    const texts: NewTextMessage[] = [];
    const outcomes: ReminderOutcome[] = [];
    for (const reminder of reminders) {
      const subject = await formSubjectOf(tx, reminder);
      if (!subject) {
        outcomes.push({ id: reminder.id, status: 'cancelled' });
        continue;
      }
      try {
        const message = messageOf(deps, reminder, subject);
        if (message.mail) mails.push(message.mail);
        if (message.text) texts.push(message.text);
        outcomes.push({ id: reminder.id, status: 'sent', messageUid: message.uid });
      } catch (error) {
        // A message that cannot be rendered would fail the same way again: it fails alone, not its group.
        outcomes.push({ id: reminder.id, status: 'failed', error: errorText(error) });
      }
    }
    await insertMailMessages(tx, mails, MAIL_SEND_JOB, MAIL_MAX_ATTEMPTS);
    await insertTextMessages(tx, texts, TEXT_MAX_ATTEMPTS);
    await markReminders(tx, outcomes);
  });
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 2000);

/** The `workflow.send` job handler (routing-form reminders): the jobs running at once are sent as one group. */
export function createWorkflowSender(deps: WorkflowSendDeps): JobHandler {
  const send = groupedCalls(async (jobs: { reminderId: number }[]) => {
    await sendReminders(
      deps,
      jobs.map((job) => job.reminderId),
    );
    return jobs.map(() => undefined);
  });
  return (payload: { reminderId: number }) => send(payload);
}

/**
 * Whether a due job is still owed by its workflow to its booking as they are now: the workflow still
 * applies with the time the job was queued for, a timed one to a booking still accepted, a no-show one
 * when the no-show happened.
 */
function stillOwed(job: DueJob, workflow: ApplicableWorkflow | undefined, record: BookingRecord, verdict: NoShowVerdict | 'none' | undefined): workflow is ApplicableWorkflow {
  if (!workflow) return false;
  const dueAt = dueAtOf(workflow, record);
  if ((dueAt?.getTime() ?? null) !== job.dueAt) return false;
  if (dueAt !== null && record.booking.status !== 'accepted') return false;
  return !NO_SHOW_TRIGGERS.has(workflow.trigger) || noShowHappened(workflow.trigger, verdict);
}

/**
 * Due workflow jobs, a group at a time: their bookings read (share-locked: a change under way is waited
 * for) with one query, each job's workflow checked, its messages rendered for the booking's people as
 * they are now, recorded as sent (a message recorded by an earlier run of its job is not queued again)
 * and written to the outboxes, in one transaction.
 */
async function sendDue(deps: WorkflowSendDeps, jobs: DueJob[]): Promise<void> {
  const verdicts = new Map<number, NoShowVerdict | 'none'>();
  for (const job of jobs) if (job.videoCheck && !verdicts.has(job.bookingId)) verdicts.set(job.bookingId, await noShowVerdictOf(deps, job.bookingId));
  await deps.database.transaction(async (tx) => {
    const bookingIds = [...new Set(jobs.map((job) => job.bookingId))];
    const records = new Map((await loadRecords(tx, await findBookingsByIds(tx, bookingIds, 'share'))).map((record) => [record.booking.id, record]));
    const applicable = new Map<number, Promise<ApplicableWorkflow[]>>();
    const applicableTo = (eventType: { id: number; teamId: number }) => {
      let found = applicable.get(eventType.id);
      if (!found) {
        found = tx.execute(applicableWorkflowsQuery(eventType, EVENT_TYPE_TRIGGERS, 'messages')).then((result) => parseApplicableWorkflows((result as unknown as { rows: Record<string, unknown>[] }).rows));
        applicable.set(eventType.id, found);
      }
      return found;
    };
    const sentAt = new Date();
    const keys = new Set<string>();
    const messages: { reminder: NewReminder & { messageUid: string; status: 'sent' | 'failed'; error: string | null }; mail?: NewMailMessage; text?: NewTextMessage }[] = [];
    for (const job of jobs) {
      const record = records.get(job.bookingId);
      const eventType = record?.eventType;
      if (!record || !eventType || eventType.teamId === null) continue;
      const workflow = (await applicableTo({ id: eventType.id, teamId: eventType.teamId })).find((candidate) => candidate.id === job.workflowId);
      if (!stillOwed(job, workflow, record, verdicts.get(job.bookingId))) continue;
      const template = templateBooking(record);
      for (const reminder of remindersFor(workflow, record, job, sentAt)) {
        // The same job queued twice (a retry re-queued) can land in one group: each message once.
        if (keys.has(reminder.dedupeKey)) continue;
        keys.add(reminder.dedupeKey);
        const step = workflow.steps.find((candidate) => candidate.id === reminder.stepId)!;
        const due: DueReminder = { ...reminder, id: 0, status: 'scheduled', step, trigger: workflow.trigger };
        try {
          const message = messageOf(deps, due, { template, record });
          messages.push({ reminder: { ...reminder, messageUid: message.uid, status: 'sent', error: null }, ...message });
        } catch (error) {
          // A message that cannot be rendered would fail the same way again: it fails alone, not its group.
          messages.push({ reminder: { ...reminder, messageUid: '', status: 'failed', error: errorText(error) } });
        }
      }
    }
    const written = await insertSentReminders(
      tx,
      messages.map((message) => message.reminder),
    );
    const queued = messages.filter((message) => written.has(message.reminder.dedupeKey) && message.reminder.status === 'sent');
    await insertMailMessages(
      tx,
      queued.flatMap((message) => (message.mail ? [message.mail] : [])),
      MAIL_SEND_JOB,
      MAIL_MAX_ATTEMPTS,
    );
    await insertTextMessages(
      tx,
      queued.flatMap((message) => (message.text ? [message.text] : [])),
      TEXT_MAX_ATTEMPTS,
    );
  });
}

/** The `workflow.due` job handler: the jobs running at once are sent as one group (see sendDue). */
export function createWorkflowDueSender(deps: WorkflowSendDeps): JobHandler {
  const send = groupedCalls(async (jobs: DueJob[]) => {
    await sendDue(deps, jobs);
    return jobs.map(() => undefined);
  });
  return (payload: DueJob) => send(payload);
}
