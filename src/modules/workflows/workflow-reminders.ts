import type { Db } from '../../db/client.js';
import type { BookingEventListener, RecordedBookingEvent, StatementRider } from '../bookings/booking-events.js';
import type { BookingRecord } from '../bookings/bookings.repository.js';
import { channelOf, offsetMs, type TimeUnit } from './workflow-model.js';
import {
  type ApplicableWorkflow,
  applicableWorkflowsQuery,
  type DueJob,
  dueJobsRider,
  type NewReminder,
  parseApplicableWorkflows,
} from './workflow-reminders.repository.js';
import { hasBuiltInVideo } from '../webhooks/webhook-no-shows.js';
import type { StepRow } from './workflows.repository.js';

/** Timed from the booking: before its start, after its end; the no-show checks after its start (built-in video only). */
const TIMED = new Set(['beforeEvent', 'afterEvent']);
export const NO_SHOW_TRIGGERS: ReadonlySet<string> = new Set(['afterHostsSvcVideoNoShow', 'afterGuestsSvcVideoNoShow']);

/** The workflow triggers a booking event fires (sent at once) and, for an accepted booking, the timed ones it schedules. */
function workflowTriggersOf(event: Pick<RecordedBookingEvent, 'trigger' | 'record'>): { now: string[]; timed: boolean } {
  const accepted = event.record.booking.status === 'accepted';
  switch (event.trigger) {
    case 'BOOKING_CREATED':
      return accepted ? { now: ['newEvent'], timed: true } : { now: [], timed: false };
    case 'BOOKING_REQUESTED':
      return { now: ['bookingRequested'], timed: false };
    case 'BOOKING_RESCHEDULED':
      return { now: ['rescheduleEvent'], timed: accepted };
    case 'BOOKING_CANCELLED':
      return { now: ['eventCancelled'], timed: false };
    case 'BOOKING_REJECTED':
      return { now: ['bookingRejected'], timed: false };
    case 'BOOKING_NO_SHOW_UPDATED':
      return { now: ['bookingNoShowUpdated'], timed: false };
    case 'BOOKING_REASSIGNED':
      return { now: [], timed: accepted };
    case 'BOOKING_PAYMENT_INITIATED':
      return { now: ['bookingPaymentInitiated'], timed: false };
    case 'BOOKING_PAID':
      return { now: ['bookingPaid'], timed: false };
    default:
      return { now: [], timed: false };
  }
}

/** The timed triggers an accepted booking schedules: the no-show ones only on the built-in video, whose joiners svc can learn of. */
const timedTriggersOf = (record: BookingRecord) => (hasBuiltInVideo(record) ? [...TIMED, ...NO_SHOW_TRIGGERS] : [...TIMED]);

const triggersToRead = (event: Pick<RecordedBookingEvent, 'trigger' | 'record'>) => {
  const { now, timed } = workflowTriggersOf(event);
  return timed ? [...now, ...timedTriggersOf(event.record)] : now;
};

interface Recipient {
  address: string;
  name: string | null;
  role: 'host' | 'attendee' | 'address';
  timeZone: string;
  locale: string | null;
}

/** The attendee's number for text steps: the one given as the attendee's, else the booking's SMS reminder answer. */
function attendeePhone(record: BookingRecord, attendee: BookingRecord['attendees'][number]): string | null {
  if (attendee.phoneNumber) return attendee.phoneNumber;
  if (attendee.isGuest) return null;
  const responses = record.booking.responses as Record<string, unknown>;
  const answer = responses.attendeePhoneNumber ?? responses.smsReminderNumber;
  return typeof answer === 'string' && answer.startsWith('+') ? answer : null;
}

/** Who one step sends to for this booking. Fixed addresses are read in the organizer's zone. */
export function recipientsOf(step: Pick<StepRow, 'action' | 'email' | 'phone'>, record: BookingRecord): Recipient[] {
  const organizer = record.host;
  switch (step.action) {
    case 'email_host':
      return [
        { address: organizer.email, name: organizer.name, role: 'host', timeZone: organizer.timeZone, locale: null },
        ...record.coHosts.map((host) => ({ address: host.email, name: host.name, role: 'host' as const, timeZone: host.timeZone, locale: host.locale })),
      ];
    case 'email_attendee':
      return record.attendees.map((a) => ({ address: a.email, name: a.name, role: 'attendee' as const, timeZone: a.timeZone, locale: a.locale }));
    case 'sms_attendee':
    case 'whatsapp_attendee':
      return record.attendees.flatMap((a) => {
        const phone = attendeePhone(record, a);
        return phone ? [{ address: phone, name: a.name, role: 'attendee' as const, timeZone: a.timeZone, locale: a.locale }] : [];
      });
    case 'email_address':
      return step.email ? [{ address: step.email, name: null, role: 'address', timeZone: organizer.timeZone, locale: null }] : [];
    case 'sms_number':
    case 'whatsapp_number':
      return step.phone ? [{ address: step.phone, name: null, role: 'address', timeZone: organizer.timeZone, locale: null }] : [];
    default:
      return [];
  }
}

/** When a workflow's message for this booking is due; null: at once (an event-triggered workflow). */
export function dueAtOf(workflow: Pick<ApplicableWorkflow, 'trigger' | 'offsetValue' | 'offsetUnit'>, record: BookingRecord): Date | null {
  const offset = offsetMs(workflow.offsetValue, workflow.offsetUnit as TimeUnit | null);
  if (workflow.trigger === 'beforeEvent') return new Date(record.booking.startAt.getTime() - offset);
  if (workflow.trigger === 'afterEvent') return new Date(record.booking.endAt.getTime() + offset);
  if (NO_SHOW_TRIGGERS.has(workflow.trigger)) return new Date(record.booking.startAt.getTime() + offset);
  return null;
}

/**
 * What `workflows` owe this booking, one job per workflow and time: timed ones at their time, event ones
 * at once. A timed one whose time is already past at `nowMs` is left out (as the reference: nothing is
 * sent late). `occasion` tells apart events that can happen again to the booking (a no-show update).
 */
export function dueJobsFor(workflows: ApplicableWorkflow[], record: BookingRecord, nowMs: number, occasion: string): DueJob[] {
  return workflows.flatMap((workflow) => {
    const dueAt = dueAtOf(workflow, record);
    if (dueAt !== null && dueAt.getTime() <= nowMs) return [];
    return [{ workflowId: workflow.id, bookingId: record.booking.id, dueAt: dueAt?.getTime() ?? null, occasion, ...(NO_SHOW_TRIGGERS.has(workflow.trigger) ? { videoCheck: true } : {}) }];
  });
}

/** The messages a due workflow sends for this booking as it is now: one per step and recipient. */
export function remindersFor(workflow: ApplicableWorkflow, record: BookingRecord, job: DueJob, sentAt: Date): NewReminder[] {
  const when = job.dueAt === null ? `now:${job.occasion}` : `at:${job.dueAt}`;
  return workflow.steps.flatMap((step) =>
    recipientsOf(step, record).map((recipient) => ({
      dedupeKey: `${step.id}:${record.booking.id}:${when}:${recipient.address.toLowerCase()}`,
      workflowId: workflow.id,
      stepId: step.id,
      bookingId: record.booking.id,
      formResponseId: null,
      channel: channelOf(step.action),
      recipientAddress: recipient.address,
      recipientName: recipient.name,
      recipientRole: recipient.role,
      recipientTimeZone: recipient.timeZone,
      recipientLocale: recipient.locale,
      scheduledAt: job.dueAt === null ? sentAt : new Date(job.dueAt),
    })),
  );
}

/**
 * Hears a booking event in its transaction: for each workflow that applies, one `workflow.due` job at
 * its time, written by the event's next statement (its mail), not a round trip of its own. Who is told
 * what is decided when it is due, from the booking as it is then: a cancelled or moved booking owes no
 * timed message any more, a reassigned one's go to its new host, a changed workflow's as it now reads.
 */
async function hearBookingEvent(_tx: Db, event: RecordedBookingEvent, rows: Record<string, unknown>[]): Promise<StatementRider | null> {
  const workflows = parseApplicableWorkflows(rows);
  if (workflows.length === 0) return null;
  const { now, timed } = workflowTriggersOf(event);
  const timedTriggers = timed ? timedTriggersOf(event.record) : [];
  const due = workflows.filter((workflow) => now.includes(workflow.trigger) || timedTriggers.includes(workflow.trigger));
  return dueJobsRider(dueJobsFor(due, event.record, event.createdAt.getTime(), String(event.bookingEventId)), event.createdAt);
}

/** How booking events reach workflows: what the app hands to the booking services beside the webhooks. */
export const bookingWorkflows: BookingEventListener = {
  audienceQuery(trigger, record) {
    const triggers = triggersToRead({ trigger, record });
    const eventType = record.eventType;
    if (triggers.length === 0 || !eventType || eventType.teamId === null) return null;
    // Only which workflows are owed and when: their steps are read when due.
    return applicableWorkflowsQuery({ id: eventType.id, teamId: eventType.teamId }, triggers, 'none');
  },
  hear: hearBookingEvent,
};
