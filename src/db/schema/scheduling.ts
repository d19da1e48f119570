// Availability and what can be booked: schedules and event types.
import { sql } from 'drizzle-orm';
import { type AnyPgColumn, boolean, check, index, integer, jsonb, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
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
