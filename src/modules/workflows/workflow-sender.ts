// The `workflow.send` job: a due reminder rendered for its recipient and handed to the mail or
// text-message outbox, in one transaction that also marks it sent. The reminder row is locked, so of
// several workers that run its job (a retry after a crash, a second worker after a lease ran out) one
// queues the message and the others find it sent.
import { randomUUID } from 'node:crypto';
import type { Database, Db } from '../../db/client.js';
import { type BookingRecord, findBookingById, loadRecords } from '../bookings/bookings.repository.js';
import { invitationIcs } from '../mail/invitation.js';
import { insertMailMessages } from '../mail/mail.repository.js';
import { MAIL_MAX_ATTEMPTS, MAIL_SEND_JOB } from '../mail/mail-sender.js';
import { insertTextMessages } from '../text-messages/text-messages.repository.js';
import { TEXT_MAX_ATTEMPTS } from '../text-messages/text-message-sender.js';
import { applicableWorkflowsQuery, type DueReminder, lockReminder, markReminder, parseApplicableWorkflows } from './workflow-reminders.repository.js';
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

/**
 * Whether the reminder is still owed when it comes due: its workflow still applies to the booking's
 * event type with the same trigger and, for a timed one, the time it was made for is still the
 * booking's (a workflow changed meanwhile schedules anew; a booking written while it changed may have
 * made a reminder from the old definition). A timed reminder needs the booking accepted.
 */
async function stillOwed(tx: Db, reminder: DueReminder, record: BookingRecord): Promise<boolean> {
  const eventType = record.eventType;
  if (!eventType || eventType.teamId === null) return false;
  const rows = (await tx.execute(applicableWorkflowsQuery({ id: eventType.id, teamId: eventType.teamId }, [reminder.trigger]))) as unknown as { rows: Record<string, unknown>[] };
  const workflow = parseApplicableWorkflows(rows.rows).find((candidate) => candidate.steps.some((step) => step.id === reminder.step.id));
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

/** What the reminder is about, as its templates read it, if it is still owed (else null). */
async function subjectOf(tx: Db, reminder: DueReminder): Promise<{ template: TemplateBooking; record: BookingRecord | null } | null> {
  if (reminder.bookingId !== null) {
    const booking = await findBookingById(tx, reminder.bookingId);
    const [record] = booking ? await loadRecords(tx, [booking]) : [];
    return record && (await stillOwed(tx, reminder, record)) ? { template: templateBooking(record), record } : null;
  }
  if (reminder.formResponseId === null) return null;
  const found = await lockResponseWithForm(tx, reminder.formResponseId);
  if (!found || !(await formReminderOwed(tx, reminder, found.form, found.response))) return null;
  return { template: formTemplateBooking(found.form, found.response), record: null };
}

/**
 * For a no-show trigger, what the booking's video room shows, read before the transaction (a provider
 * call); null when the reminder is not a no-show one. A booking not on svc's Daily video has no verdict.
 */
async function noShowVerdictOf(deps: WorkflowSendDeps, reminderId: number): Promise<NoShowVerdict | 'none' | null> {
  const reminder = await lockReminder(deps.database.db, reminderId, false);
  if (!reminder || reminder.status !== 'scheduled' || !NO_SHOW_TRIGGERS.has(reminder.trigger) || reminder.bookingId === null) return null;
  const booking = await findBookingById(deps.database.db, reminder.bookingId);
  const [record] = booking ? await loadRecords(deps.database.db, [booking]) : [];
  return (record && (await readNoShowVerdict({ database: deps.database, config: deps.config }, record))) ?? 'none';
}

/** Whether the no-show a reminder waits for happened: a host absent, or no guest joined. */
const noShowHappened = (trigger: string, verdict: NoShowVerdict | 'none') =>
  verdict !== 'none' && (trigger === 'afterHostsSvcVideoNoShow' ? verdict.absentHosts.length > 0 : !verdict.guestJoined);

export async function runWorkflowSend(deps: WorkflowSendDeps, payload: { reminderId: number }): Promise<void> {
  const verdict = await noShowVerdictOf(deps, payload.reminderId);
  await deps.database.transaction(async (tx) => {
    const reminder = await lockReminder(tx, payload.reminderId);
    if (!reminder || reminder.status !== 'scheduled') return;
    const subject = await subjectOf(tx, reminder);
    const noShow = NO_SHOW_TRIGGERS.has(reminder.trigger);
    if (!subject || (noShow && (verdict === null || !noShowHappened(reminder.trigger, verdict)))) {
      await markReminder(tx, reminder.id, { status: 'cancelled' });
      return;
    }
    const { record } = subject;
    const content = renderedContent(reminder, subject.template, deps.appUrl);
    const uid = randomUUID();
    if (reminder.channel === 'email') {
      await insertMailMessages(
        tx,
        [
          {
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
          },
        ],
        MAIL_SEND_JOB,
        MAIL_MAX_ATTEMPTS,
      );
    } else {
      await insertTextMessages(tx, [{ uid, channel: reminder.channel, toNumber: reminder.recipientAddress, body: content.text, bodySealed: false, purpose: 'workflow' }], TEXT_MAX_ATTEMPTS);
    }
    await markReminder(tx, reminder.id, { status: 'sent', messageUid: uid });
  });
}
