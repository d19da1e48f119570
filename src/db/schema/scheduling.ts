// Availability and what can be booked: schedules and event types.
import { sql } from 'drizzle-orm';
import { type AnyPgColumn, bigserial, boolean, check, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { DateOverride, WeeklyRule } from '../../scheduling/availability-rules.js';
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
  StoredRefundPolicy,
} from '../../modules/event-types/event-type-model.js';
import { createdAt, updatedAt } from './columns.js';
import { teams } from './teams.js';
import { users } from './users.js';

export const schedules = pgTable(
  'schedules',
  {
    id: serial('id').primaryKey(),
    /** The owning user; null for a team's own schedule (`team_id`). */
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    teamId: integer('team_id').references((): AnyPgColumn => teams.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    timeZone: text('time_zone').notNull(),
    /** Parsed weekly rules (weekday numbers, minutes): the slot engine reads them as they are. */
    availability: jsonb('availability').$type<WeeklyRule[]>().notNull(),
    overrides: jsonb('overrides').$type<DateOverride[]>().notNull().default([]),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('schedules_user_id_idx').on(t.userId),
    index('schedules_team_id_idx').on(t.teamId),
    check('schedules_one_owner_check', sql`(${t.userId} is null) <> (${t.teamId} is null)`),
  ],
);

export type SchedulingType = 'collective' | 'roundRobin' | 'managed';

/** Who is mailed about an organization team event type's bookings (`emailSettings`). */
export interface EventTypeEmailSettings {
  disableEmailsToAttendees: boolean;
  disableEmailsToHosts: boolean;
}

/**
 * Event types. A personal one has `user_id`; a team one has `team_id` and `scheduling_type`, and its
 * hosts in `event_type_hosts`; a managed child has both `user_id` (its member) and `parent_id` (the
 * managed team type it copies). Everything the slot engine and the booking flow read is a real
 * column (or a typed jsonb of its own); booking-page presentation lives in `settings`.
 * `calendar_invites` is write-only through the event-type routes.
 */
export const eventTypes = pgTable(
  'event_types',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    teamId: integer('team_id').references((): AnyPgColumn => teams.id, { onDelete: 'cascade' }),
    parentId: integer('parent_id').references((): AnyPgColumn => eventTypes.id, { onDelete: 'cascade' }),
    schedulingType: text('scheduling_type').$type<SchedulingType>(),
    assignAllTeamMembers: boolean('assign_all_team_members').notNull().default(false),
    rescheduleWithSameRoundRobinHost: boolean('reschedule_with_same_round_robin_host').notNull().default(false),
    /** Round robin weighs hosts by `event_type_hosts.weight` (fair share of bookings) before priority. */
    isRRWeightsEnabled: boolean('is_rr_weights_enabled').notNull().default(false),
    /** Round robin in an organization: only hosts whose attributes satisfy rrSegmentQuery (JsonLogic) take bookings. */
    assignRRMembersUsingSegment: boolean('assign_rr_members_using_segment').notNull().default(false),
    rrSegmentQuery: jsonb('rr_segment_query').$type<Record<string, unknown>>(),
    emailSettings: jsonb('email_settings').$type<EventTypeEmailSettings>(),
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
    /** What a booking costs, in minor units of `currency` (0: free); paid through the owner's connected Stripe account. */
    price: integer('price').notNull().default(0),
    /** Lowercase ISO 4217, as Stripe takes it. */
    currency: text('currency').notNull().default('usd'),
    /** When an attendee's cancellation is refunded; null: never (the reference's default). */
    refundPolicy: jsonb('refund_policy').$type<StoredRefundPolicy>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('event_types_user_id_slug_lower_key').on(t.userId, sql`lower(${t.slug})`),
    uniqueIndex('event_types_team_id_slug_lower_key').on(t.teamId, sql`lower(${t.slug})`),
    index('event_types_schedule_id_idx').on(t.scheduleId),
    index('event_types_parent_id_idx').on(t.parentId),
    check('event_types_owner_check', sql`${t.userId} is not null or ${t.teamId} is not null`),
    check('event_types_scheduling_type_check', sql`${t.schedulingType} in ('collective', 'roundRobin', 'managed')`),
  ],
);

/**
 * The hosts of a team event type. `mandatory` hosts (the reference's `isFixed`) must all attend; of
 * the others one per `group_id` is chosen (round robin) by availability, then weight, priority and
 * how recently they were booked.
 */
export const eventTypeHosts = pgTable(
  'event_type_hosts',
  {
    eventTypeId: integer('event_type_id')
      .notNull()
      .references((): AnyPgColumn => eventTypes.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    mandatory: boolean('mandatory').notNull().default(false),
    /** 0 lowest ... 4 highest; the reference's default is 2 (medium). */
    priority: integer('priority').notNull().default(2),
    weight: integer('weight').notNull().default(100),
    groupId: text('group_id'),
    /** null: the host's default schedule. */
    scheduleId: integer('schedule_id').references((): AnyPgColumn => schedules.id, { onDelete: 'set null' }),
    /** Hosts keep the order they were given in (rows inserted together are numbered in order): the first fixed host organizes. */
    position: bigserial('position', { mode: 'number' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.eventTypeId, t.userId] }),
    index('event_type_hosts_user_id_idx').on(t.userId),
    check('event_type_hosts_priority_check', sql`${t.priority} between 0 and 4`),
    check('event_type_hosts_weight_check', sql`${t.weight} >= 0`),
  ],
);

/**
 * Links that book a hidden event type: found by the SHA-256 of the link id; the id itself is sealed
 * so that its owner can be shown the link again. A link expires at `expires_at` or after
 * `max_usage_count` bookings.
 */
export const eventTypePrivateLinks = pgTable(
  'event_type_private_links',
  {
    id: serial('id').primaryKey(),
    eventTypeId: integer('event_type_id')
      .notNull()
      .references((): AnyPgColumn => eventTypes.id, { onDelete: 'cascade' }),
    linkHash: text('link_hash').notNull(),
    linkSealed: text('link_sealed').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    maxUsageCount: integer('max_usage_count'),
    usageCount: integer('usage_count').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('event_type_private_links_link_hash_key').on(t.linkHash), index('event_type_private_links_event_type_id_idx').on(t.eventTypeId)],
);

export type OutOfOfficeReason = 'unspecified' | 'vacation' | 'travel' | 'sick' | 'public_holiday';

/**
 * Times a user is away (out of office): whole UTC days, [start_at, end_at) with end_at the next day's
 * midnight (the API shows it as the last millisecond before). `to_user_id` covers for them. The slot
 * engine takes these out of the user's working time.
 */
export const outOfOfficeEntries = pgTable(
  'out_of_office_entries',
  {
    id: serial('id').primaryKey(),
    uuid: text('uuid').notNull().unique(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    startAt: timestamp('start_at', { withTimezone: true }).notNull(),
    endAt: timestamp('end_at', { withTimezone: true }).notNull(),
    notes: text('notes'),
    reason: text('reason').$type<OutOfOfficeReason>().notNull().default('unspecified'),
    toUserId: integer('to_user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Slot listings read a host's entries ending after the range starts.
    index('out_of_office_entries_user_end_idx').on(t.userId, t.endAt),
    index('out_of_office_entries_to_user_idx').on(t.toUserId),
    check('out_of_office_entries_order_check', sql`${t.endAt} > ${t.startAt}`),
  ],
);
