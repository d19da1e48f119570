// Bookings, their attendees, held slots and the history of changes that webhooks deliver from.
import { sql } from 'drizzle-orm';
import { bigserial, boolean, check, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';
import { payments } from './payments.js';
import { eventTypes } from './scheduling.js';
import { users } from './users.js';

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
    /** iCalendar SEQUENCE of the event's latest revision: bumped by every change its invitations announce. */
    icsSequence: integer('ics_sequence').notNull().default(0),
    /** Shared by every occurrence of a recurring booking. */
    recurringBookingUid: text('recurring_booking_uid'),
    /** A paid event type's booking: what it charges. While pending it holds its time as an accepted booking does. */
    paymentId: integer('payment_id').references(() => payments.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('bookings_uid_key').on(t.uid),
    index('bookings_recurring_booking_uid_idx').on(t.recurringBookingUid),
    // A rescheduled booking's successor keeps its icsUid: calendar writes and busy time find them by it.
    index('bookings_ics_uid_idx').on(t.icsUid),
    index('bookings_user_id_end_at_idx').on(t.userId, t.endAt),
    index('bookings_event_type_id_end_at_idx').on(t.eventTypeId, t.endAt),
    // Booking lists walk an event type's bookings in start order and stop after their page (bookings.repository.ts sourcePage).
    index('bookings_event_type_id_start_at_idx').on(t.eventTypeId, t.startAt, t.id),
    index('bookings_payment_id_idx').on(t.paymentId).where(sql`${t.paymentId} is not null`),
    // No booking is longer than an event can be (1440 minutes): queries of a window bound both ends on the end_at indexes.
    check('bookings_span_check', sql`${t.endAt} <= ${t.startAt} + interval '24 hours'`),
  ],
);

/**
 * Every host whose time a booking takes: its organizer (written by a trigger when the booking is
 * inserted) and, for collective and round-robin bookings with fixed hosts, the others. Triggers keep
 * time and status equal to the booking's, so the exclusion constraint on (user, time) protects every
 * host of every accepted booking, not only its organizer.
 */
export const bookingHosts = pgTable(
  'booking_hosts',
  {
    bookingId: integer('booking_id')
      .notNull()
      .references(() => bookings.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    startAt: timestamp('start_at', { withTimezone: true }).notNull(),
    endAt: timestamp('end_at', { withTimezone: true }).notNull(),
    status: text('status').$type<BookingStatus>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.bookingId, t.userId] }),
    index('booking_hosts_user_id_end_at_idx').on(t.userId, t.endAt),
    // A host's bookings in start order, read from the index alone (booking lists: sourcePage, sourceCount).
    index('booking_hosts_user_id_start_at_idx').on(t.userId, t.startAt, t.bookingId),
    check('booking_hosts_span_check', sql`${t.endAt} <= ${t.startAt} + interval '24 hours'`),
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
 * seated slot) until `reserved_until`. A team slot holds one row per host it needs (every collective
 * host; round robin's fixed hosts and one host per group), all under the reservation's uid.
 */
export const slotReservations = pgTable(
  'slot_reservations',
  {
    uid: text('uid').notNull(),
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
  (t) => [
    primaryKey({ columns: [t.uid, t.userId] }),
    index('slot_reservations_user_id_slot_end_idx').on(t.userId, t.slotEnd),
    index('slot_reservations_reserved_until_idx').on(t.reservedUntil),
    check('slot_reservations_span_check', sql`${t.slotEnd} <= ${t.slotStart} + interval '24 hours'`),
  ],
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
