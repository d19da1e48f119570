// Connected calendars: a user's connections to outside calendars (the reference's credentials), the
// calendars each connection holds, and the busy time synced from them.
import { sql } from 'drizzle-orm';
import { boolean, check, customType, date, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';
import { bookings } from './bookings.js';
import { eventTypes } from './scheduling.js';
import { teams } from './teams.js';
import { users } from './users.js';

/** The reference's credential types (`type`) and app ids (`appId`) of calendar connections. */
export type CalendarConnectionType = 'ics-feed_calendar' | 'apple_calendar' | 'caldav_calendar' | 'google_calendar' | 'office365_calendar';

/**
 * One connection to an outside account (the reference's credential): what it takes to read it, sealed
 * (feed URLs can carry secret tokens; CalDAV passwords; OAuth refresh tokens), never returned.
 */
export const calendarConnections = pgTable(
  'calendar_connections',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: text('type').$type<CalendarConnectionType>().notNull(),
    appId: text('app_id').notNull(),
    /** JSON of the provider's credentials, sealed with the process's secret box. */
    credentialsSealed: text('credentials_sealed').notNull(),
    /** The provider refused the credentials: the owner must connect again. */
    invalid: boolean('invalid').notNull().default(false),
    /** When the owner was mailed that the connection is broken (once per breakage). */
    ownerToldAt: timestamp('owner_told_at', { withTimezone: true }),
    /**
     * The account's address (an OAuth account's, a CalDAV user name that is one): the organizer address of
     * bookings written into it when their event type says useDestinationCalendarEmail. Not secret.
     */
    accountEmail: text('account_email'),
    /** Made for an organization member by its delegation credential (read with the organization's key, not the member's consent page). */
    delegationCredentialId: text('delegation_credential_id').references(() => delegationCredentials.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('calendar_connections_user_id_idx').on(t.userId),
    uniqueIndex('calendar_connections_delegation_user_idx').on(t.delegationCredentialId, t.userId).where(sql`${t.delegationCredentialId} is not null`),
  ],
);

/** The reference's workspace platforms: where an organization's service account lives. */
export type WorkspacePlatformSlug = 'google' | 'office365';

/**
 * An organization's delegation credential: a Google Workspace service account with domain-wide
 * delegation, or a Microsoft 365 app with application permissions, that reads and writes the calendars
 * of the organization's members whose address is in `domain`. The key is sealed, never returned.
 */
export const delegationCredentials = pgTable(
  'delegation_credentials',
  {
    id: text('id').primaryKey(),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    workspacePlatform: text('workspace_platform').$type<WorkspacePlatformSlug>().notNull(),
    /** Lower case, without '@'. */
    domain: text('domain').notNull(),
    enabled: boolean('enabled').notNull().default(false),
    keySealed: text('key_sealed').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('delegation_credentials_org_platform_domain_idx').on(t.organizationId, t.workspacePlatform, t.domain)],
);

/**
 * A member the delegation credential could not read (not in the workspace, or the workspace withdrew the
 * key's rights): tried again at `retry_at`, and the organization told once per run of failures.
 */
export const delegationMemberFailures = pgTable(
  'delegation_member_failures',
  {
    credentialId: text('credential_id')
      .notNull()
      .references(() => delegationCredentials.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    failingSince: timestamp('failing_since', { withTimezone: true }).notNull(),
    failure: text('failure').notNull(),
    retryAt: timestamp('retry_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.credentialId, t.userId] })],
);

/** Sync bookkeeping a provider hands back: ETag and Last-Modified of a feed; sync token and ctag of CalDAV. */
export interface CalendarSyncState {
  etag?: string | null;
  lastModified?: string | null;
  syncToken?: string | null;
  ctag?: string | null;
}

/**
 * A calendar of a connection. `selected` calendars are read for busy time (the reference's selected
 * calendars); their sync state says how far the stored busy time can be trusted.
 */
export const calendarSources = pgTable(
  'calendar_sources',
  {
    id: serial('id').primaryKey(),
    connectionId: integer('connection_id')
      .notNull()
      .references(() => calendarConnections.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    name: text('name').notNull(),
    isPrimary: boolean('is_primary').notNull().default(false),
    readOnly: boolean('read_only').notNull().default(true),
    timeZone: text('time_zone'),
    selected: boolean('selected').notNull().default(true),
    syncState: jsonb('sync_state').$type<CalendarSyncState>().notNull().default({}),
    /** Busy time is stored for [synced_from, synced_to) as of the last successful sync. */
    syncedFrom: timestamp('synced_from', { withTimezone: true }),
    syncedTo: timestamp('synced_to', { withTimezone: true }),
    lastSyncedAt: timestamp('last_synced_at', { withTimezone: true }),
    /** First failure of the current run of failures; null while syncs succeed. */
    failingSince: timestamp('failing_since', { withTimezone: true }),
    failure: text('failure'),
    /**
     * Set by the sync job once failures outlast the grace period (or the calendar was never read):
     * its owner is then unavailable, never silently free.
     */
    degraded: boolean('degraded').notNull().default(true),
    nextSyncAt: timestamp('next_sync_at', { withTimezone: true }).notNull().defaultNow(),
    /** After the provider refused a push channel: none is asked for before this. */
    pushRetryAt: timestamp('push_retry_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('calendar_sources_connection_external_idx').on(t.connectionId, t.externalId),
    index('calendar_sources_user_id_idx').on(t.userId),
    index('calendar_sources_next_sync_idx').on(t.nextSyncAt),
  ],
);

/**
 * Busy time of a calendar within its synced range. An event longer than a day is stored in pieces of
 * at most 24 hours, so the slot query bounds its index range on both ends as it does for bookings.
 */
export const calendarBusyTimes = pgTable(
  'calendar_busy_times',
  {
    id: serial('id').primaryKey(),
    sourceId: integer('source_id')
      .notNull()
      .references(() => calendarSources.id, { onDelete: 'cascade' }),
    userId: integer('user_id').notNull(),
    /** The provider's key of the object it came from (CalDAV href); '' for a feed read whole. */
    objectKey: text('object_key').notNull().default(''),
    uid: text('uid'),
    startAt: timestamp('start_at', { withTimezone: true }).notNull(),
    endAt: timestamp('end_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('calendar_busy_times_user_end_idx').on(t.userId, t.endAt),
    index('calendar_busy_times_source_key_idx').on(t.sourceId, t.objectKey),
    check('calendar_busy_times_piece_check', sql`${t.endAt} > ${t.startAt} and ${t.endAt} - ${t.startAt} <= interval '24 hours'`),
  ],
);

/** bytea, read as bytes (node-postgres gives a Buffer, PGlite a Uint8Array). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });

/**
 * The same busy time by UTC date of each piece's start, one row per source and date: `spans` holds the
 * date's pieces in start order as big-endian float8 epoch milliseconds, start then end (16 bytes a
 * piece). The slot query reads these (about a row per host and date) instead of one row per event, and
 * bytes instead of numbers printed as text, which cost more to parse than to read; replaceBusyTimes
 * keeps them in step with calendar_busy_times.
 */
export const calendarBusyDays = pgTable(
  'calendar_busy_days',
  {
    sourceId: integer('source_id')
      .notNull()
      .references(() => calendarSources.id, { onDelete: 'cascade' }),
    userId: integer('user_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    spans: bytea('spans').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sourceId, t.day] }), index('calendar_busy_days_user_day_idx').on(t.userId, t.day)],
);

/**
 * A push channel of a calendar (a Google events.watch channel, a Graph subscription): the provider
 * POSTs to svc when the calendar changes, naming `channel_id` and carrying the token whose hash is kept.
 */
export const calendarPushChannels = pgTable(
  'calendar_push_channels',
  {
    id: serial('id').primaryKey(),
    sourceId: integer('source_id')
      .notNull()
      .references(() => calendarSources.id, { onDelete: 'cascade' }),
    channelId: text('channel_id').notNull(),
    /** Google's resourceId (to stop the channel); null for Graph. */
    resourceId: text('resource_id'),
    /** SHA-256 of the channel's token (Google) or clientState (Graph), hex. */
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** The provider asked for the channel to be authorized again (Graph's reauthorizationRequired): it is replaced at the next read. */
    renew: boolean('renew').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('calendar_push_channels_channel_idx').on(t.channelId), index('calendar_push_channels_source_idx').on(t.sourceId)],
);

/**
 * Where a user's bookings are written (the reference's destination calendar): one of their writable
 * calendars, for all their bookings (`event_type_id` null) or for one event type's. Without one, a
 * booking goes to the primary calendar of the user's first writable connection.
 */
export const destinationCalendars = pgTable(
  'destination_calendars',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    eventTypeId: integer('event_type_id').references(() => eventTypes.id, { onDelete: 'cascade' }),
    sourceId: integer('source_id')
      .notNull()
      .references(() => calendarSources.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('destination_calendars_user_idx').on(t.userId).where(sql`${t.eventTypeId} is null`),
    uniqueIndex('destination_calendars_event_type_idx').on(t.eventTypeId, t.userId),
    index('destination_calendars_source_idx').on(t.sourceId),
  ],
);

/**
 * An event svc wrote into a host's calendar for a booking (the reference's booking reference). Keyed
 * by the booking's icsUid and the host: a rescheduled booking keeps its icsUid, so its event is moved,
 * not written again, and the reference follows the booking that now carries it.
 */
export const bookingCalendarEvents = pgTable(
  'booking_calendar_events',
  {
    id: serial('id').primaryKey(),
    icsUid: text('ics_uid').notNull(),
    bookingId: integer('booking_id')
      .notNull()
      .references(() => bookings.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    connectionId: integer('connection_id')
      .notNull()
      .references(() => calendarConnections.id, { onDelete: 'cascade' }),
    type: text('type').$type<CalendarConnectionType>().notNull(),
    /** The calendar's external id (CalDAV collection URL, Google / Graph calendar id). */
    calendarExternalId: text('calendar_external_id').notNull(),
    /** The provider's id of the event (CalDAV resource URL, Google / Graph event id). */
    eventId: text('event_id').notNull(),
    etag: text('etag'),
    /** Hash of what was written: an unchanged booking is not written again. */
    contentHash: text('content_hash').notNull(),
    /** The host-only private note event beside the booking's (the event type's privateNoteEnabled), not the booking's own. */
    note: boolean('note').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('booking_calendar_events_uid_user_note_idx').on(t.icsUid, t.userId, t.note),
    index('booking_calendar_events_booking_idx').on(t.bookingId),
    index('booking_calendar_events_connection_idx').on(t.connectionId),
    // Unified calendar events find an event by the provider's id, within the caller's events.
    index('booking_calendar_events_user_event_idx').on(t.userId, t.eventId),
  ],
);

/**
 * Writes of one icsUid's events run one at a time (two jobs of one booking could otherwise interleave
 * their provider calls): a job holds the lease while it writes, without holding a transaction open.
 */
export const calendarEventLeases = pgTable('calendar_event_leases', {
  icsUid: text('ics_uid').primaryKey(),
  holder: text('holder').notNull(),
  leasedUntil: timestamp('leased_until', { withTimezone: true }).notNull(),
});
