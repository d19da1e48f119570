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
import {
  type ApplicableWorkflow,
  applicableWorkflowsQuery,
  type DueReminder,
  lockReminders,
  markReminders,
  parseApplicableWorkflows,
  type ReminderOutcome,
} from './workflow-reminders.repository.js';
import { dueAtOf, NO_SHOW_TRIGGERS } from './workflow-reminders.js';
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

/** Applicable workflows by event type and trigger, read once for a group of reminders. */
type ApplicableCache = Map<string, Promise<ApplicableWorkflow[]>>;

/**
 * Whether the reminder is still owed when it comes due: its workflow still applies to the booking's
 * event type with the same trigger and, for a timed one, the time it was made for is still the
 * booking's (a workflow changed meanwhile schedules anew; a booking written while it changed may have
 * made a reminder from the old definition). A timed reminder needs the booking accepted.
 */
async function stillOwed(tx: Db, reminder: DueReminder, record: BookingRecord, cache: ApplicableCache): Promise<boolean> {
  const eventType = record.eventType;
  if (!eventType || eventType.teamId === null) return false;
  const key = `${eventType.id}|${reminder.trigger}`;
  let applicable = cache.get(key);
  if (!applicable) {
    applicable = tx.execute(applicableWorkflowsQuery({ id: eventType.id, teamId: eventType.teamId }, [reminder.trigger])).then((result) => parseApplicableWorkflows((result as unknown as { rows: Record<string, unknown>[] }).rows));
    cache.set(key, applicable);
  }
  const workflow = (await applicable).find((candidate) => candidate.steps.some((step) => step.id === reminder.step.id));
  if (!workflow) return false;
  const dueAt = dueAtOf(workflow, record);
  if (dueAt === null) return true;
  return record.booking.status === 'accepted' && reminder.dedupeKey.includes(`:at:${dueAt.getTime()}:`);
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

/** What a reminder is about, as its templates read it, if it is still owed (else null). */
async function subjectOf(tx: Db, reminder: DueReminder, records: Map<number, BookingRecord>, cache: ApplicableCache): Promise<{ template: TemplateBooking; record: BookingRecord | null } | null> {
  if (reminder.bookingId !== null) {
    const record = records.get(reminder.bookingId);
    return record && (await stillOwed(tx, reminder, record, cache)) ? { template: templateBooking(record), record } : null;
  }
  if (reminder.formResponseId === null) return null;
  const found = await lockResponseWithForm(tx, reminder.formResponseId);
  if (!found || !(await formReminderOwed(tx, reminder, found.form, found.response))) return null;
  return { template: formTemplateBooking(found.form, found.response), record: null };
}

/**
 * What the booking's video room shows, for a no-show reminder, read before the transaction (a provider
 * call; a failure fails the job, which is retried). 'none': the booking is not on svc's Daily video.
 */
async function noShowVerdictOf(deps: WorkflowSendDeps, reminderId: number): Promise<NoShowVerdict | 'none'> {
  const [reminder] = await lockReminders(deps.database.db, [reminderId], false);
  if (!reminder || reminder.bookingId === null) return 'none';
  const [record] = await loadRecords(deps.database.db, await findBookingsByIds(deps.database.db, [reminder.bookingId]));
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

export interface WorkflowSendJob {
  reminderId: number;
  /** A no-show trigger's reminder: the video room is read first. */
  videoCheck?: boolean;
}

/**
 * Due reminders, a group at a time (the jobs the runner runs at once): locked together, their bookings
 * read with one query, each checked and rendered, and every message written to its outbox with one
 * statement per outbox, the reminders marked with one more, all in one transaction.
 */
async function sendReminders(deps: WorkflowSendDeps, jobs: WorkflowSendJob[]): Promise<void> {
  const verdicts = new Map<number, NoShowVerdict | 'none'>();
  for (const job of jobs) if (job.videoCheck) verdicts.set(job.reminderId, await noShowVerdictOf(deps, job.reminderId));
  await deps.database.transaction(async (tx) => {
    const reminders = (await lockReminders(tx, [...new Set(jobs.map((job) => job.reminderId))])).filter((reminder) => reminder.status === 'scheduled');
    if (reminders.length === 0) return;
    const bookingIds = [...new Set(reminders.flatMap((reminder) => (reminder.bookingId === null ? [] : [reminder.bookingId])))];
    const records = new Map((await loadRecords(tx, await findBookingsByIds(tx, bookingIds))).map((record) => [record.booking.id, record]));
    const cache: ApplicableCache = new Map();
    const mails: NewMailMessage[] = [];
    const texts: NewTextMessage[] = [];
    const outcomes: ReminderOutcome[] = [];
    for (const reminder of reminders) {
      const subject = await subjectOf(tx, reminder, records, cache);
      if (!subject || (NO_SHOW_TRIGGERS.has(reminder.trigger) && !noShowHappened(reminder.trigger, verdicts.get(reminder.id)))) {
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
        outcomes.push({ id: reminder.id, status: 'failed', error: (error instanceof Error ? error.message : String(error)).slice(0, 2000) });
      }
    }
    await insertMailMessages(tx, mails, MAIL_SEND_JOB, MAIL_MAX_ATTEMPTS);
    await insertTextMessages(tx, texts, TEXT_MAX_ATTEMPTS);
    await markReminders(tx, outcomes);
  });
}

/** The `workflow.send` job handler: the jobs running at once are sent as one group (see sendReminders). */
export function createWorkflowSender(deps: WorkflowSendDeps): JobHandler {
  const send = groupedCalls(async (jobs: WorkflowSendJob[]) => {
    await sendReminders(deps, jobs);
    return jobs.map(() => undefined);
  });
  return (payload: WorkflowSendJob) => send(payload);
}
