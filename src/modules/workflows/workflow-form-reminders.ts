// Routing-form workflows: formSubmitted sends when a response is recorded, formSubmittedNoEvent after
// its offset if no booking used the response by then. The "attendee" of a response is whoever its
// email or phone answer names; the message's variables read the form as the event (EVENT_NAME: the
// form's name, the answers by field identifier).
import type { Db } from '../../db/client.js';
import type { FormField } from '../routing-forms/routing-form-model.js';
import type { ResponseRow, RoutingFormRow } from '../routing-forms/routing-forms.repository.js';
import { channelOf, offsetMs, type TimeUnit } from './workflow-model.js';
import { type ApplicableWorkflow, applicableFormWorkflows, insertReminders, type NewReminder } from './workflow-reminders.repository.js';
import type { TemplateBooking } from './workflow-template.js';

const FORM_TIME_ZONE = 'UTC';

/** The first answer to a field of `type`, if it is text. */
function answerOf(form: RoutingFormRow, response: ResponseRow, type: FormField['type']): string | null {
  const field = (form.fields as FormField[]).find((candidate) => candidate.type === type && typeof response.response[candidate.id]?.value === 'string');
  return field ? (response.response[field.id]!.value as string) : null;
}

/** The answer to a field whose identifier reads as a name, for greetings. */
function nameOf(form: RoutingFormRow, response: ResponseRow): string | null {
  const field = (form.fields as FormField[]).find((candidate) => /name/i.test(candidate.identifier) && typeof response.response[candidate.id]?.value === 'string');
  return field ? (response.response[field.id]!.value as string) : null;
}

function recipientsOf(step: ApplicableWorkflow['steps'][number], form: RoutingFormRow, response: ResponseRow) {
  const name = nameOf(form, response);
  const attendee = (address: string | null) => (address ? [{ address, name, role: 'attendee' as const }] : []);
  switch (step.action) {
    case 'email_attendee':
      return attendee(answerOf(form, response, 'email'));
    case 'sms_attendee':
      return attendee(answerOf(form, response, 'phone'));
    case 'email_address':
      return step.email ? [{ address: step.email, name: null, role: 'address' as const }] : [];
    case 'sms_number':
      return step.phone ? [{ address: step.phone, name: null, role: 'address' as const }] : [];
    default:
      return [];
  }
}

/** In the response's transaction: the messages the form's workflows owe it. */
export async function scheduleFormWorkflows(tx: Db, form: RoutingFormRow, response: ResponseRow, nowMs: number): Promise<void> {
  const workflows = await applicableFormWorkflows(tx, form, ['formSubmitted', 'formSubmittedNoEvent']);
  const reminders: NewReminder[] = [];
  for (const workflow of workflows) {
    const dueAt = workflow.trigger === 'formSubmitted' ? nowMs : nowMs + offsetMs(workflow.offsetValue, workflow.offsetUnit as TimeUnit | null);
    for (const step of workflow.steps) {
      for (const recipient of recipientsOf(step, form, response)) {
        reminders.push({
          dedupeKey: `${step.id}:response:${response.id}:${workflow.trigger}:${recipient.address.toLowerCase()}`,
          workflowId: workflow.id,
          stepId: step.id,
          bookingId: null,
          formResponseId: response.id,
          channel: channelOf(step.action),
          recipientAddress: recipient.address,
          recipientName: recipient.name,
          recipientRole: recipient.role,
          recipientTimeZone: FORM_TIME_ZONE,
          recipientLocale: null,
          scheduledAt: new Date(dueAt),
            });
      }
    }
  }
  await insertReminders(tx, reminders);
}

/** Whether a form reminder is still owed: its workflow still active on the form, and a no-event one only while nobody booked. */
export async function formReminderOwed(tx: Db, reminder: { step: { id: number }; trigger: string }, form: RoutingFormRow, response: ResponseRow): Promise<boolean> {
  const workflows = await applicableFormWorkflows(tx, form, [reminder.trigger]);
  if (!workflows.some((workflow) => workflow.steps.some((step) => step.id === reminder.step.id))) return false;
  return reminder.trigger !== 'formSubmittedNoEvent' || response.routedToBookingUid === null;
}

/** The response as the templates read it: the form as the event, the answers by identifier as responses. */
export function formTemplateBooking(form: RoutingFormRow, response: ResponseRow): TemplateBooking {
  const answers: Record<string, unknown> = {};
  for (const field of form.fields as FormField[]) {
    const answer = response.response[field.id];
    if (answer) answers[field.identifier] = answer.value;
  }
  const email = answerOf(form, response, 'email');
  const name = nameOf(form, response) ?? '';
  return {
    uid: `response-${response.id}`,
    title: form.name,
    eventTypeTitle: form.name,
    start: response.createdAt,
    end: response.createdAt,
    organizer: { name: '', email: '', timeZone: FORM_TIME_ZONE },
    attendees: email ? [{ name, email, timeZone: FORM_TIME_ZONE, locale: null, phoneNumber: answerOf(form, response, 'phone') }] : [],
    location: null,
    meetingUrl: null,
    description: null,
    responses: answers,
    cancellationReason: null,
  };
}
