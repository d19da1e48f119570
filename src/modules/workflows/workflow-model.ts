// What a workflow is made of, as the reference's v2 inputs name it, and the checks a workflow's steps
// pass before they are stored (each naming the field it refuses).
import sanitizeHtml from 'sanitize-html';
import { invalidField } from '../../lib/errors.js';

export const EVENT_TYPE_TRIGGERS = [
  'beforeEvent',
  'eventCancelled',
  'newEvent',
  'afterEvent',
  'rescheduleEvent',
  'afterHostsSvcVideoNoShow',
  'afterGuestsSvcVideoNoShow',
  'bookingRejected',
  'bookingRequested',
  'bookingPaymentInitiated',
  'bookingPaid',
  'bookingNoShowUpdated',
] as const;
export const FORM_TRIGGERS = ['formSubmitted', 'formSubmittedNoEvent'] as const;
/** Triggers timed from the event (or the response) by their offset, which they must carry. */
export const OFFSET_TRIGGERS: ReadonlySet<string> = new Set(['beforeEvent', 'afterEvent', 'afterHostsSvcVideoNoShow', 'afterGuestsSvcVideoNoShow', 'formSubmittedNoEvent']);
export const STEP_ACTIONS = ['email_host', 'email_attendee', 'email_address', 'sms_attendee', 'sms_number', 'whatsapp_attendee', 'whatsapp_number', 'svc_ai_phone_call'] as const;
export const RECIPIENTS = ['const', 'attendee', 'email', 'phone_number'] as const;
export const TEMPLATES = ['reminder', 'custom', 'rescheduled', 'completed', 'rating', 'cancelled'] as const;
export const TIME_UNITS = ['minute', 'hour', 'day'] as const;

export type EventTypeTrigger = (typeof EVENT_TYPE_TRIGGERS)[number];
export type FormTrigger = (typeof FORM_TRIGGERS)[number];
export type StepAction = (typeof STEP_ACTIONS)[number];
export type Channel = 'email' | 'sms' | 'whatsapp';
export type TimeUnit = (typeof TIME_UNITS)[number];

const UNIT_MS: Record<TimeUnit, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
/** Offsets beyond a year reach no booking svc keeps reminders for. */
const MAX_OFFSET_MS = 366 * 86_400_000;

export const channelOf = (action: string): Channel => (action.startsWith('sms_') ? 'sms' : action.startsWith('whatsapp_') ? 'whatsapp' : 'email');

export interface StepInput {
  id?: number | undefined;
  stepNumber: number;
  action: string;
  recipient: string;
  template: string;
  sender: string;
  message: { subject: string; html?: string | undefined; text?: string | undefined };
  verifiedEmailId?: number | undefined;
  verifiedPhoneId?: number | undefined;
  phoneRequired?: boolean | undefined;
  includeCalendarEvent?: boolean | undefined;
  autoTranslateEnabled?: boolean | undefined;
  sourceLocale?: string | undefined;
}

export interface TriggerInput {
  type: string;
  offset?: { value: number; unit: TimeUnit } | undefined;
}

/** The stored trigger: offsets only where the trigger is timed by one. */
export function checkTrigger(trigger: TriggerInput): { trigger: string; offsetValue: number | null; offsetUnit: TimeUnit | null } {
  if (!OFFSET_TRIGGERS.has(trigger.type)) return { trigger: trigger.type, offsetValue: null, offsetUnit: null };
  if (!trigger.offset) throw invalidField('trigger.offset', `is required for trigger ${trigger.type}`);
  if (trigger.offset.value * UNIT_MS[trigger.offset.unit] > MAX_OFFSET_MS) throw invalidField('trigger.offset', 'must be at most 366 days', trigger.offset);
  return { trigger: trigger.type, offsetValue: trigger.offset.value, offsetUnit: trigger.offset.unit };
}

export const offsetMs = (value: number | null, unit: TimeUnit | null): number => (value === null || unit === null ? 0 : value * UNIT_MS[unit]);

// Email bodies keep their formatting; scripts, styles, event handlers and non-web links go.
const EMAIL_HTML: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'b', 'strong', 'i', 'em', 'u', 's', 'a', 'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'blockquote', 'span', 'div', 'hr', 'code', 'pre'],
  allowedAttributes: { a: ['href', 'target', 'rel'] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  disallowedTagsMode: 'discard',
};

export const sanitizeEmailHtml = (html: string): string => sanitizeHtml(html, EMAIL_HTML);

/** A step as stored (without its workflow and id). */
export interface StoredStep {
  stepNumber: number;
  action: string;
  recipient: string;
  template: string;
  sender: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  verifiedEmailId: number | null;
  verifiedPhoneId: number | null;
  phoneRequired: boolean;
  includeCalendarEvent: boolean;
  autoTranslateEnabled: boolean;
  sourceLocale: string | null;
}

/** What the service must still check against the store for a step: verified resources, the provider. */
export interface StepNeeds {
  at: string;
  channel: Channel;
  verifiedEmailId: number | null;
  verifiedPhoneId: number | null;
}

/**
 * Checks the steps on their own (numbers distinct, each action's required fields, a body where the
 * template has no default) and gives them as stored, with what remains to check against the store.
 */
export function checkSteps(steps: StepInput[]): { stored: StoredStep[]; needs: StepNeeds[] } {
  const numbers = new Set<number>();
  const stored: StoredStep[] = [];
  const needs: StepNeeds[] = [];
  steps.forEach((step, index) => {
    const at = `steps.${index}`;
    if (numbers.has(step.stepNumber)) throw invalidField(`${at}.stepNumber`, 'must be unique within the workflow', step.stepNumber);
    numbers.add(step.stepNumber);
    if (step.action === 'svc_ai_phone_call') throw invalidField(`${at}.action`, 'svc_ai_phone_call is not available: svc has no telephony provider', step.action);
    const channel = channelOf(step.action);
    if (step.action === 'email_address' && step.verifiedEmailId === undefined) throw invalidField(`${at}.verifiedEmailId`, 'is required for action email_address');
    if ((step.action === 'sms_number' || step.action === 'whatsapp_number') && step.verifiedPhoneId === undefined) throw invalidField(`${at}.verifiedPhoneId`, `is required for action ${step.action}`);
    if (channel === 'email' && step.message.html === undefined) throw invalidField(`${at}.message.html`, `is required for action ${step.action}`);
    if (channel !== 'email' && step.message.text === undefined) throw invalidField(`${at}.message.text`, `is required for action ${step.action}`);
    const body = channel === 'email' ? step.message.html! : step.message.text!;
    if (step.template === 'custom' && body.trim() === '') throw invalidField(`${at}.message.${channel === 'email' ? 'html' : 'text'}`, 'must not be empty with template custom');
    if (step.includeCalendarEvent && channel !== 'email') throw invalidField(`${at}.includeCalendarEvent`, 'is for email actions only', step.includeCalendarEvent);
    stored.push({
      stepNumber: step.stepNumber,
      action: step.action,
      recipient: step.recipient,
      template: step.template,
      sender: step.sender.trim() === '' ? null : step.sender.trim(),
      subject: step.message.subject,
      html: channel === 'email' ? sanitizeEmailHtml(body) : null,
      text: channel === 'email' ? null : body,
      verifiedEmailId: step.action === 'email_address' ? step.verifiedEmailId! : null,
      verifiedPhoneId: step.action === 'sms_number' || step.action === 'whatsapp_number' ? step.verifiedPhoneId! : null,
      phoneRequired: channel !== 'email' && step.action.endsWith('_attendee') ? step.phoneRequired === true : false,
      includeCalendarEvent: step.includeCalendarEvent === true,
      autoTranslateEnabled: step.autoTranslateEnabled === true,
      sourceLocale: step.sourceLocale ?? null,
    });
    needs.push({ at, channel, verifiedEmailId: stored.at(-1)!.verifiedEmailId, verifiedPhoneId: stored.at(-1)!.verifiedPhoneId });
  });
  return { stored, needs };
}
