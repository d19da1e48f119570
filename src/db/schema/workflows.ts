// Workflows (the reference's Workflow, WorkflowStep, WorkflowReminder): messages sent around a team's
// bookings and routing-form responses, and the addresses and numbers verified to receive fixed steps.
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { bookings } from './bookings.js';
import { createdAt, updatedAt } from './columns.js';
import { routingFormResponses } from './routing-forms.js';
import { teams } from './teams.js';
import { users } from './users.js';

export const workflows = pgTable(
  'workflows',
  {
    id: serial('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    /** Who made it. */
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    type: text('type').$type<'event-type' | 'routing-form'>().notNull(),
    /** The wire name of the trigger (beforeEvent, newEvent, formSubmitted...). */
    trigger: text('trigger').notNull(),
    offsetValue: integer('offset_value'),
    offsetUnit: text('offset_unit').$type<'minute' | 'hour' | 'day'>(),
    activeOnAll: boolean('active_on_all').notNull().default(false),
    eventTypeIds: integer('event_type_ids').array().notNull().default(sql`'{}'::int[]`),
    routingFormIds: text('routing_form_ids').array().notNull().default(sql`'{}'::text[]`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('workflows_team_idx').on(t.teamId, t.type)],
);

export const workflowSteps = pgTable(
  'workflow_steps',
  {
    id: serial('id').primaryKey(),
    workflowId: integer('workflow_id')
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    stepNumber: integer('step_number').notNull(),
    action: text('action').notNull(),
    recipient: text('recipient').notNull(),
    template: text('template').notNull(),
    sender: text('sender'),
    subject: text('subject').notNull().default(''),
    html: text('html'),
    text: text('text'),
    /** email_address: the verified address; sms_number / whatsapp_number: the verified number. */
    email: text('email'),
    verifiedEmailId: integer('verified_email_id'),
    phone: text('phone'),
    verifiedPhoneId: integer('verified_phone_id'),
    phoneRequired: boolean('phone_required').notNull().default(false),
    includeCalendarEvent: boolean('include_calendar_event').notNull().default(false),
    autoTranslateEnabled: boolean('auto_translate_enabled').notNull().default(false),
    sourceLocale: text('source_locale'),
  },
  (t) => [index('workflow_steps_workflow_idx').on(t.workflowId, t.stepNumber)],
);

/**
 * One message a step owes one recipient: scheduled when its booking (or response) is made, with a job
 * due at `scheduled_at`. When due it is rendered and handed to the mail or text-message outbox in one
 * transaction that also marks it sent, so however many workers race for it, it is queued once.
 */
export const workflowReminders = pgTable(
  'workflow_reminders',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** Step, booking or response, recipient and occasion: at most one reminder for each. */
    dedupeKey: text('dedupe_key').notNull(),
    workflowId: integer('workflow_id')
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    stepId: integer('step_id')
      .notNull()
      .references(() => workflowSteps.id, { onDelete: 'cascade' }),
    bookingId: integer('booking_id').references(() => bookings.id, { onDelete: 'cascade' }),
    formResponseId: integer('form_response_id').references(() => routingFormResponses.id, { onDelete: 'cascade' }),
    channel: text('channel').$type<'email' | 'sms' | 'whatsapp'>().notNull(),
    recipientAddress: text('recipient_address').notNull(),
    recipientName: text('recipient_name'),
    recipientRole: text('recipient_role').$type<'host' | 'attendee' | 'address'>().notNull(),
    recipientTimeZone: text('recipient_time_zone').notNull(),
    recipientLocale: text('recipient_locale'),
    scheduledAt: timestamp('scheduled_at', { withTimezone: true }).notNull(),
    status: text('status').$type<'scheduled' | 'sent' | 'cancelled' | 'failed'>().notNull().default('scheduled'),
    /** The outbox message it became (mail_messages.uid or text_messages.uid). */
    messageUid: text('message_uid'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [
    // A cancelled reminder does not hold its key: the same message may be scheduled again (a reassigned booking).
    uniqueIndex('workflow_reminders_dedupe_key').on(t.dedupeKey).where(sql`status <> 'cancelled'`),
    index('workflow_reminders_booking_idx').on(t.bookingId),
    index('workflow_reminders_step_idx').on(t.stepId),
  ],
);

/**
 * Text messages (SMS and WhatsApp) waiting to be, or already, handed to the provider: the outbox the
 * `text.send` job drains. A body holding a verification code is sealed (`body_sealed`).
 */
export const textMessages = pgTable(
  'text_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    uid: text('uid').notNull(),
    channel: text('channel').$type<'sms' | 'whatsapp'>().notNull(),
    toNumber: text('to_number').notNull(),
    body: text('body').notNull(),
    bodySealed: boolean('body_sealed').notNull().default(false),
    /** workflow, verification. */
    purpose: text('purpose').notNull(),
    status: text('status').$type<'pending' | 'sent' | 'failed'>().notNull().default('pending'),
    /** The provider's last delivery report (queued, sent, delivered, undelivered, failed). */
    deliveryStatus: text('delivery_status'),
    providerSid: text('provider_sid'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: createdAt(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('text_messages_uid_key').on(t.uid), index('text_messages_provider_sid_idx').on(t.providerSid), index('text_messages_created_at_idx').on(t.createdAt)],
);

/** Addresses a user (and, with team_id, a team) proved to receive, for steps that send to a fixed address. */
export const verifiedEmails = pgTable(
  'verified_emails',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    teamId: integer('team_id').references(() => teams.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('verified_emails_user_key').on(t.userId, t.email).where(sql`team_id is null`),
    uniqueIndex('verified_emails_team_key').on(t.teamId, t.email).where(sql`team_id is not null`),
  ],
);

export const verifiedPhones = pgTable(
  'verified_phones',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    teamId: integer('team_id').references(() => teams.id, { onDelete: 'cascade' }),
    /** E.164. */
    phoneNumber: text('phone_number').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('verified_phones_user_key').on(t.userId, t.phoneNumber).where(sql`team_id is null`),
    uniqueIndex('verified_phones_team_key').on(t.teamId, t.phoneNumber).where(sql`team_id is not null`),
  ],
);

/** A code sent to prove an address or number: SHA-256 of it only, short-lived, single use, attempts counted. */
export const verificationCodes = pgTable(
  'verification_codes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').$type<'email' | 'phone'>().notNull(),
    /** The address (lower case) or E.164 number. */
    destination: text('destination').notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    teamId: integer('team_id').references(() => teams.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    failedAttempts: integer('failed_attempts').notNull().default(0),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index('verification_codes_user_idx').on(t.userId, t.createdAt), index('verification_codes_destination_idx').on(t.destination, t.createdAt)],
);

/** Wrong codes entered, per caller: a limit across all their codes (one row per failure). */
export const verificationFailures = pgTable(
  'verification_failures',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeId: bigint('code_id', { mode: 'number' }),
    createdAt: createdAt(),
  },
  (t) => [index('verification_failures_user_idx').on(t.userId, t.createdAt)],
);
