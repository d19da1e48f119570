// Outgoing mail: one row per message, written in the transaction of the change that causes it, and
// every attempt to send it.
import { bigint, bigserial, boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

/** `owner`: the user who registered a third-party OAuth client, told of its review; `invitee`: a user invited to a team. */
export type MailRecipientRole = 'organizer' | 'host' | 'attendee' | 'owner' | 'invitee';

/**
 * A message waiting to be (or already) sent. A booking message is rendered when it is sent, from the
 * booking event it belongs to (the booking as the change left it), in the recipient's time zone and
 * locale; `sequence` and `method` fix the iTIP invitation it carries as of the change. A message
 * without a booking event (an OAuth client's review) carries its own `subject` and `text_body`.
 */
export const mailMessages = pgTable(
  'mail_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** The Message-ID's local part; the same on every attempt. */
    uid: text('uid').notNull(),
    bookingEventId: bigint('booking_event_id', { mode: 'number' }),
    /** What the message tells: scheduled, requested, confirmed, declined, rescheduled, cancelled... */
    kind: text('kind').notNull(),
    recipientEmail: text('recipient_email').notNull(),
    recipientName: text('recipient_name'),
    recipientRole: text('recipient_role').$type<MailRecipientRole>().notNull(),
    recipientTimeZone: text('recipient_time_zone').notNull(),
    recipientLocale: text('recipient_locale'),
    /** iTIP method of the attached invitation (REQUEST or CANCEL); null: no invitation. */
    method: text('method').$type<'REQUEST' | 'CANCEL'>(),
    sequence: integer('sequence').notNull().default(0),
    /** Set only on a message that carries its own text (no booking event): sent as plain text as is. */
    subject: text('subject'),
    textBody: text('text_body'),
    /** A message with its own text may carry HTML too (a workflow step's). */
    htmlBody: text('html_body'),
    /** The text bodies are sealed (they hold a verification code): opened only to send. */
    bodySealed: boolean('body_sealed').notNull().default(false),
    /** A message with its own text may attach an event (REQUEST) and show a sender name of its own. */
    invitationIcs: text('invitation_ics'),
    senderName: text('sender_name'),
    status: text('status').$type<'pending' | 'sent' | 'failed'>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: createdAt(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('mail_messages_uid_key').on(t.uid), index('mail_messages_booking_event_id_idx').on(t.bookingEventId), index('mail_messages_created_at_idx').on(t.createdAt)],
);

/** Every attempt to send a message: the SMTP answer or the error. */
export const mailAttempts = pgTable(
  'mail_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    messageId: bigint('message_id', { mode: 'number' })
      .notNull()
      .references(() => mailMessages.id, { onDelete: 'cascade' }),
    attemptedAt: timestamp('attempted_at', { withTimezone: true }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    /** null: accepted by the server. */
    error: text('error'),
    response: text('response'),
  },
  (t) => [index('mail_attempts_message_id_idx').on(t.messageId)],
);

/**
 * Messages that requests without credentials made svc send to people other than the booking's hosts,
 * per fixed window: one row per caller address (`ip:` + SHA-256 of it, never the address) and per event
 * type (`event-type:<id>`). In the database, so every process counts into the same window, and written
 * in the request's transaction, so a change that rolls back spends nothing.
 */
export const mailBudgets = pgTable(
  'mail_budgets',
  {
    key: text('key').notNull(),
    /** The end of the fixed window counted (its start plus the window's length): housekeeping deletes ended ones. */
    windowEndsAt: timestamp('window_ends_at', { withTimezone: true }).notNull(),
    messages: integer('messages').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowEndsAt] })],
);
