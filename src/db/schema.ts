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
import { bigint, bigserial, boolean, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

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
    /** Where it happens, as the reference prints it: an address, a link, a phone number or `integrations:<app>`. */
    location: text('location'),
    /** The booker's metadata (svc keeps none of its own here). */
    metadata: jsonb('metadata').$type<Record<string, string | number | boolean>>().notNull().default({}),
    /** The booking-form answers, keyed by booking-field slug (`bookingFieldsResponses`). */
    responses: jsonb('responses').$type<Record<string, unknown>>().notNull().default({}),
    cancellationReason: text('cancellation_reason'),
    cancelledByEmail: text('cancelled_by_email'),
    /** Why the host declined a pending booking. */
    rejectionReason: text('rejection_reason'),
    reschedulingReason: text('rescheduling_reason'),
    rescheduledByEmail: text('rescheduled_by_email'),
    rescheduledFromUid: text('rescheduled_from_uid'),
    rescheduledToUid: text('rescheduled_to_uid'),
    absentHost: boolean('absent_host').notNull().default(false),
    rating: integer('rating'),
    /** iCalendar UID of the booking's calendar event; stable across its updates. */
    icsUid: text('ics_uid').notNull().default(sql`gen_random_uuid()::text`),
    /** Shared by every occurrence of a recurring booking. */
    recurringBookingUid: text('recurring_booking_uid'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('bookings_uid_key').on(t.uid),
    index('bookings_recurring_booking_uid_idx').on(t.recurringBookingUid),
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
    locale: text('locale'),
    phoneNumber: text('phone_number'),
    absent: boolean('absent').notNull().default(false),
    /** Invited by the booker (`guests`), not the booker themself. */
    isGuest: boolean('is_guest').notNull().default(false),
    /** A seat of a seated booking, with that booker's own answers and metadata. */
    seatUid: text('seat_uid'),
    seatResponses: jsonb('seat_responses').$type<Record<string, unknown>>(),
    seatMetadata: jsonb('seat_metadata').$type<Record<string, string | number | boolean>>(),
    createdAt: createdAt(),
  },
  (t) => [
    index('booking_attendees_booking_id_idx').on(t.bookingId),
    index('booking_attendees_email_lower_idx').on(sql`lower(${t.email})`),
    uniqueIndex('booking_attendees_seat_uid_key').on(t.seatUid),
  ],
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

/**
 * `Idempotency-Key` records: the response of the first request with a key, stored in the same
 * transaction as its effects, replayed to retries with the same body for 24 hours.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    /** Who sent it and to which route: one caller's keys never answer another's requests. */
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of the method, path and body: the same key with another request is refused. */
    fingerprint: text('fingerprint').notNull(),
    responseStatus: integer('response_status').notNull(),
    responseBody: jsonb('response_body').$type<unknown>().notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index('idempotency_keys_expires_at_idx').on(t.expiresAt)],
);

/**
 * What happened to bookings, written in the same transaction as the change: the record webhook
 * deliveries (and any audit) are made from, so nothing is announced that did not happen and nothing
 * that happened is lost.
 */
export const bookingEvents = pgTable(
  'booking_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    bookingId: integer('booking_id').notNull(),
    bookingUid: text('booking_uid').notNull(),
    /** The webhook trigger it maps to: BOOKING_CREATED, BOOKING_REQUESTED, BOOKING_CANCELLED... */
    trigger: text('trigger').notNull(),
    /** Users whose subscriptions may want it (organizer and hosts). */
    userId: integer('user_id').notNull(),
    eventTypeId: integer('event_type_id'),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('booking_events_booking_uid_idx').on(t.bookingUid), index('booking_events_created_at_idx').on(t.createdAt)],
);

/** Whose subscription a webhook is: only the column of its kind is set. */
export type WebhookOwnerKind = 'user' | 'eventType' | 'team' | 'organization' | 'oauthClient';

/**
 * Webhook subscriptions at every level of spec 2.4. Teams, organizations and OAuth clients get their
 * routes with their own issues; their subscriptions are stored and delivered the same way.
 */
export const webhooks = pgTable(
  'webhooks',
  {
    id: serial('id').primaryKey(),
    ownerKind: text('owner_kind').$type<WebhookOwnerKind>().notNull(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    eventTypeId: integer('event_type_id').references(() => eventTypes.id, { onDelete: 'cascade' }),
    teamId: integer('team_id'),
    organizationId: integer('organization_id'),
    oauthClientId: text('oauth_client_id'),
    subscriberUrl: text('subscriber_url').notNull(),
    active: boolean('active').notNull(),
    triggers: text('triggers').array().notNull(),
    payloadTemplate: text('payload_template'),
    /** The signing secret, sealed with the process's secret box (it is shown back to its owner). */
    secretSealed: text('secret_sealed'),
    version: text('version').notNull().default('2021-10-20'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('webhooks_user_id_idx').on(t.userId),
    index('webhooks_event_type_id_idx').on(t.eventTypeId),
    index('webhooks_team_id_idx').on(t.teamId),
    index('webhooks_organization_id_idx').on(t.organizationId),
    index('webhooks_oauth_client_id_idx').on(t.oauthClientId),
  ],
);

/**
 * One event for one subscription: the exact body is fixed when it is enqueued, so every retry sends
 * the same bytes under the same `webhook-id` (`uid`).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    uid: text('uid').notNull(),
    webhookId: integer('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    bookingEventId: bigint('booking_event_id', { mode: 'number' }),
    trigger: text('trigger').notNull(),
    body: text('body').notNull(),
    contentType: text('content_type').notNull(),
    status: text('status').$type<'pending' | 'delivered' | 'failed'>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('webhook_deliveries_uid_key').on(t.uid), index('webhook_deliveries_webhook_id_created_at_idx').on(t.webhookId, t.createdAt)],
);

/** Every attempt to deliver, for the subscription owner's delivery log. */
export const webhookDeliveryAttempts = pgTable(
  'webhook_delivery_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: bigint('delivery_id', { mode: 'number' })
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attemptedAt: timestamp('attempted_at', { withTimezone: true }).notNull(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
  },
  (t) => [index('webhook_delivery_attempts_delivery_id_idx').on(t.deliveryId)],
);
