import { sql } from 'drizzle-orm';
import type { DateOverride, WeeklyRule } from '../scheduling/availability-rules.js';
import type {
  BookerActiveBookingsLimit,
  BookingWindow,
  CalendarInvites,
  ConfirmationPolicy,
  EventTypeSettings,
  IntervalLimits,
  Recurrence,
  StoredBookingField,
  StoredLocation,
} from '../modules/event-types/event-type-model.js';
import { bigserial, boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

export type Weekday = 'Monday' | 'Tuesday' | 'Wednesday' | 'Thursday' | 'Friday' | 'Saturday' | 'Sunday';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    email: text('email').notNull(),
    username: text('username'),
    name: text('name'),
    timeZone: text('time_zone').notNull().default('Europe/London'),
    weekStart: text('week_start').$type<Weekday>().notNull().default('Sunday'),
    timeFormat: integer('time_format').$type<12 | 24>().notNull().default(12),
    locale: text('locale'),
    bio: text('bio'),
    avatarUrl: text('avatar_url'),
    metadata: jsonb('metadata').$type<Record<string, string | number | boolean>>().notNull().default({}),
    defaultScheduleId: integer('default_schedule_id'),
    role: text('role').$type<'USER' | 'ADMIN'>().notNull().default('USER'),
    passwordHash: text('password_hash'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_lower_key').on(sql`lower(${t.email})`),
    uniqueIndex('users_username_lower_key').on(sql`lower(${t.username})`),
  ],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    hashedKey: text('hashed_key').notNull(),
    name: text('name'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('api_keys_hashed_key_key').on(t.hashedKey), index('api_keys_user_id_idx').on(t.userId)],
);

/** Bearer tokens that are not API keys: managed-user and OAuth access tokens (issued by the OAuth module). */
export const accessTokens = pgTable(
  'access_tokens',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    hashedToken: text('hashed_token').notNull(),
    clientId: text('client_id'),
    scopes: text('scopes').array().notNull().default(sql`'{}'::text[]`),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('access_tokens_hashed_token_key').on(t.hashedToken), index('access_tokens_user_id_idx').on(t.userId)],
);

/**
 * Durable background work (webhook deliveries, emails, reminders): written in the same transaction as
 * the change that causes it, claimed with FOR UPDATE SKIP LOCKED under a lease, retried with backoff.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<unknown>().notNull(),
    status: text('status').$type<'pending' | 'done' | 'failed'>().notNull().default('pending'),
    runAt: timestamp('run_at', { withTimezone: true }).notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(20),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    lockedBy: text('locked_by'),
    lastError: text('last_error'),
    dedupeKey: text('dedupe_key'),
    createdAt: createdAt(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    index('jobs_due_idx').on(t.runAt).where(sql`status = 'pending'`),
    uniqueIndex('jobs_dedupe_key_key').on(t.dedupeKey),
  ],
);

export const schedules = pgTable(
  'schedules',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    timeZone: text('time_zone').notNull(),
    /** Parsed weekly rules (weekday numbers, minutes): the slot engine reads them as they are. */
    availability: jsonb('availability').$type<WeeklyRule[]>().notNull(),
    overrides: jsonb('overrides').$type<DateOverride[]>().notNull().default([]),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('schedules_user_id_idx').on(t.userId)],
);

/**
 * Personal event types. Everything the slot engine and the booking flow read is a real column (or a
 * typed jsonb of its own); booking-page presentation lives in `settings`. `calendar_invites` is
 * write-only through the event-type routes.
 */
export const eventTypes = pgTable(
  'event_types',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    lengthInMinutes: integer('length_in_minutes').notNull(),
    lengthInMinutesOptions: integer('length_in_minutes_options').array().notNull().default(sql`'{}'::integer[]`),
    /** Spacing of offered slots; null: the event length. */
    slotInterval: integer('slot_interval'),
    minimumBookingNotice: integer('minimum_booking_notice').notNull().default(120),
    beforeEventBuffer: integer('before_event_buffer').notNull().default(0),
    afterEventBuffer: integer('after_event_buffer').notNull().default(0),
    offsetStart: integer('offset_start').notNull().default(0),
    /** null: the owner's default schedule. */
    scheduleId: integer('schedule_id').references(() => schedules.id, { onDelete: 'set null' }),
    hidden: boolean('hidden').notNull().default(false),
    /** null: seats disabled (one booking per slot). */
    seatsPerTimeSlot: integer('seats_per_time_slot'),
    seatsShowAttendees: boolean('seats_show_attendees').notNull().default(false),
    seatsShowAvailabilityCount: boolean('seats_show_availability_count').notNull().default(true),
    onlyShowFirstAvailableSlot: boolean('only_show_first_available_slot').notNull().default(false),
    showOptimizedSlots: boolean('show_optimized_slots').notNull().default(false),
    bookingRequiresAuthentication: boolean('booking_requires_authentication').notNull().default(false),
    locations: jsonb('locations').$type<StoredLocation[]>().notNull(),
    bookingFields: jsonb('booking_fields').$type<StoredBookingField[]>().notNull(),
    /** null: never limited; `{}`: limits reset. */
    bookingLimitsCount: jsonb('booking_limits_count').$type<IntervalLimits>(),
    bookingLimitsDuration: jsonb('booking_limits_duration').$type<IntervalLimits>(),
    bookerActiveBookingsLimit: jsonb('booker_active_bookings_limit').$type<BookerActiveBookingsLimit>(),
    /** null: bookable any time ahead. */
    bookingWindow: jsonb('booking_window').$type<BookingWindow>(),
    /** null: bookings are confirmed without the host. */
    confirmationPolicy: jsonb('confirmation_policy').$type<ConfirmationPolicy>(),
    recurrence: jsonb('recurrence').$type<Recurrence>(),
    settings: jsonb('settings').$type<EventTypeSettings>().notNull(),
    calendarInvites: jsonb('calendar_invites').$type<CalendarInvites>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('event_types_user_id_slug_lower_key').on(t.userId, sql`lower(${t.slug})`),
    index('event_types_schedule_id_idx').on(t.scheduleId),
  ],
);

export type BookingStatus = 'accepted' | 'pending' | 'cancelled' | 'rejected';

/**
 * Bookings: the slot engine reads the accepted and pending ones of each host as busy time (with the
 * buffers of their event type) and those of an event type for its booking limits.
 */
export const bookings = pgTable(
  'bookings',
  {
    id: serial('id').primaryKey(),
    uid: text('uid').notNull(),
    eventTypeId: integer('event_type_id').references(() => eventTypes.id, { onDelete: 'set null' }),
    /** The organizer: the host whose time the booking takes. */
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    startAt: timestamp('start_at', { withTimezone: true }).notNull(),
    endAt: timestamp('end_at', { withTimezone: true }).notNull(),
    status: text('status').$type<BookingStatus>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('bookings_uid_key').on(t.uid),
    index('bookings_user_id_end_at_idx').on(t.userId, t.endAt),
    index('bookings_event_type_id_end_at_idx').on(t.eventTypeId, t.endAt),
  ],
);

/** The people a booking is for; on a seated event type each attendee holds one seat. */
export const bookingAttendees = pgTable(
  'booking_attendees',
  {
    id: serial('id').primaryKey(),
    bookingId: integer('booking_id')
      .notNull()
      .references(() => bookings.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    email: text('email').notNull(),
    timeZone: text('time_zone').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('booking_attendees_booking_id_idx').on(t.bookingId)],
);

/**
 * A slot held for a few minutes while someone books it: it is busy time of its host (or one seat of a
 * seated slot) until `reserved_until`.
 */
export const slotReservations = pgTable(
  'slot_reservations',
  {
    uid: text('uid').primaryKey(),
    eventTypeId: integer('event_type_id')
      .notNull()
      .references(() => eventTypes.id, { onDelete: 'cascade' }),
    /** The host whose time is held. */
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    slotStart: timestamp('slot_start', { withTimezone: true }).notNull(),
    slotEnd: timestamp('slot_end', { withTimezone: true }).notNull(),
    reservedUntil: timestamp('reserved_until', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('slot_reservations_user_id_slot_end_idx').on(t.userId, t.slotEnd), index('slot_reservations_reserved_until_idx').on(t.reservedUntil)],
);
