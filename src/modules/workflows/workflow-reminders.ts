import type { Db } from '../../db/client.js';
import type { BookingEventListener, RecordedBookingEvent, StatementRider } from '../bookings/booking-events.js';
import type { BookingRecord } from '../bookings/bookings.repository.js';
import { channelOf, offsetMs, type TimeUnit } from './workflow-model.js';
import {
  type ApplicableWorkflow,
  applicableWorkflowsQuery,
  cancelBookingReminders,
  cancelReplacedBookingReminders,
  remindersRider,
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
 * The reminders `workflows` owe this booking: one per step and recipient. A timed one whose time is
 * already past at `nowMs` is not made (as the reference: nothing is sent late). `occasion` tells apart
 * messages of a trigger that can fire again for the booking (a no-show update).
 */
export function remindersFor(workflows: ApplicableWorkflow[], record: BookingRecord, nowMs: number, occasion: string): NewReminder[] {
  const reminders: NewReminder[] = [];
  for (const workflow of workflows) {
    const dueAt = dueAtOf(workflow, record);
    if (dueAt !== null && dueAt.getTime() <= nowMs) continue;
    const when = dueAt === null ? `now:${occasion}` : `at:${dueAt.getTime()}`;
    for (const step of workflow.steps) {
      for (const recipient of recipientsOf(step, record)) {
        reminders.push({
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
          scheduledAt: dueAt ?? new Date(nowMs),
          videoCheck: NO_SHOW_TRIGGERS.has(workflow.trigger),
        });
      }
    }
  }
  return reminders;
}

/**
 * Acts on a booking event in its transaction: a cancelled, declined or moved booking drops what it
 * still owed (a reschedule's new booking schedules its own; a reassigned one is scheduled again for its
 * new host), then the workflows that apply schedule their messages.
 */
async function hearBookingEvent(tx: Db, event: RecordedBookingEvent, rows: Record<string, unknown>[]): Promise<StatementRider | null> {
  const { trigger, record } = event;
  if (trigger === 'BOOKING_CANCELLED' || trigger === 'BOOKING_REJECTED') await cancelBookingReminders(tx, [record.booking.id]);
  if (trigger === 'BOOKING_REASSIGNED') await cancelBookingReminders(tx, [record.booking.id], true);
  if (trigger === 'BOOKING_RESCHEDULED' && typeof event.extra.rescheduleUid === 'string') {
    const seatHolders = event.extra.seatUid ? record.attendees.flatMap((a) => [a.email, ...(a.phoneNumber ? [a.phoneNumber] : [])]) : null;
    await cancelReplacedBookingReminders(tx, event.extra.rescheduleUid, seatHolders);
  }
  const workflows = parseApplicableWorkflows(rows);
  if (workflows.length === 0) return null;
  const { now, timed } = workflowTriggersOf(event);
  const timedTriggers = timed ? timedTriggersOf(record) : [];
  const due = workflows.filter((workflow) => now.includes(workflow.trigger) || timedTriggers.includes(workflow.trigger));
  // Written by the event's next statement (its mail), not a round trip of their own.
  return remindersRider(remindersFor(due, record, event.createdAt.getTime(), String(event.bookingEventId)));
}

/** How booking events reach workflows: what the app hands to the booking services beside the webhooks. */
export const bookingWorkflows: BookingEventListener = {
  audienceQuery(trigger, record) {
    const triggers = triggersToRead({ trigger, record });
    const eventType = record.eventType;
    if (triggers.length === 0 || !eventType || eventType.teamId === null) return null;
    return applicableWorkflowsQuery({ id: eventType.id, teamId: eventType.teamId }, triggers);
  },
  hear: hearBookingEvent,
};
