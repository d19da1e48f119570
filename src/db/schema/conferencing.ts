// Conferencing apps: a user's or a team's installed video apps (the reference's `*_video` credentials).
// The built-in video app is installed for everyone and has no row.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { bookings } from './bookings.js';
import { createdAt, updatedAt } from './columns.js';
import { teams } from './teams.js';
import { users } from './users.js';

/** The reference's credential types of the conferencing apps the API installs. */
export type ConferencingAppType = 'google_video' | 'zoom_video' | 'office365_video';

/** What made a booking's meeting: an installed app, or the built-in video's Daily rooms. */
export type MeetingType = ConferencingAppType | 'daily_video';

/**
 * One installed conferencing app of a user or of a team (exactly one of the two). OAuth apps keep their
 * tokens sealed, never returned; Google Meet has none of its own (it rides on the owner's Google Calendar).
 */
export const conferencingApps = pgTable(
  'conferencing_apps',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    teamId: integer('team_id').references(() => teams.id, { onDelete: 'cascade' }),
    type: text('type').$type<ConferencingAppType>().notNull(),
    appId: text('app_id').notNull(),
    /** JSON of the provider's tokens, sealed with the process's secret box; null for Google Meet. */
    credentialsSealed: text('credentials_sealed'),
    /** The account the tokens belong to (not secret). */
    accountEmail: text('account_email'),
    /** The provider refused the tokens: the owner must connect again. */
    invalid: boolean('invalid').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('conferencing_apps_user_type_idx').on(t.userId, t.type).where(sql`${t.userId} is not null`),
    uniqueIndex('conferencing_apps_team_type_idx').on(t.teamId, t.type).where(sql`${t.teamId} is not null`),
    check('conferencing_apps_one_owner_check', sql`(${t.userId} is null) <> (${t.teamId} is null)`),
  ],
);

/**
 * The meeting a provider made for a booking (Zoom, Microsoft Teams): what is needed to move or delete it
 * later, with whose app it was made. Its id comes from the calendar events' sequence: both are listed as
 * the booking's references, under one id space. A rescheduled booking's meeting moves to the new booking;
 * a cancelled one's row stays until the provider has deleted the meeting.
 */
export const bookingMeetings = pgTable(
  'booking_meetings',
  {
    id: integer('id').primaryKey().default(sql`nextval('booking_calendar_events_id_seq')`),
    bookingId: integer('booking_id')
      .notNull()
      .references(() => bookings.id, { onDelete: 'cascade' }),
    type: text('type').$type<MeetingType>().notNull(),
    /** The app's owner: the organizer, or the event type's team. */
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    teamId: integer('team_id').references(() => teams.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    /** The provider's other id of it, where its API needs both (a Daily room's id beside its name); set once made. */
    providerId: text('provider_id'),
    joinUrl: text('join_url').notNull(),
    /** The booking's start and end the meeting was last given (an update job compares). */
    startAt: timestamp('start_at', { withTimezone: true }).notNull(),
    endAt: timestamp('end_at', { withTimezone: true }).notNull(),
    /** Set when the booking was cancelled: the delete job removes the meeting, then the row. */
    deleting: boolean('deleting').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('booking_meetings_booking_idx').on(t.bookingId), index('booking_meetings_external_idx').on(t.externalId), check('booking_meetings_one_owner_check', sql`(${t.userId} is null) <> (${t.teamId} is null)`)],
);
