// Platform: OAuth clients of platform organizations, the users they manage, and those users' refresh tokens.
import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';
import { teams } from './teams.js';
import { users } from './users.js';

/**
 * A platform organization's OAuth client. The secret is kept twice, neither in clear: as its SHA-256
 * (what a request's `x-svc-secret-key` is compared with) and sealed (the client object shows it back,
 * as the reference does).
 */
export const platformOAuthClients = pgTable(
  'platform_oauth_clients',
  {
    id: text('id').primaryKey(),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    secretHash: text('secret_hash').notNull(),
    secretSealed: text('secret_sealed').notNull(),
    /** Platform permissions (EVENT_TYPE_READ ... PROFILE_WRITE); fixed at creation. */
    permissions: text('permissions').array().notNull(),
    logo: text('logo'),
    redirectUris: text('redirect_uris').array().notNull().default(sql`'{}'::text[]`),
    bookingRedirectUri: text('booking_redirect_uri'),
    bookingCancelRedirectUri: text('booking_cancel_redirect_uri'),
    bookingRescheduleRedirectUri: text('booking_reschedule_redirect_uri'),
    areEmailsEnabled: boolean('are_emails_enabled').notNull().default(false),
    areDefaultEventTypesEnabled: boolean('are_default_event_types_enabled').notNull().default(false),
    areCalendarEventsEnabled: boolean('are_calendar_events_enabled').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('platform_oauth_clients_organization_id_idx').on(t.organizationId)],
);

/** Which OAuth client manages a user (a user is managed by one client at most). */
export const platformManagedUsers = pgTable(
  'platform_managed_users',
  {
    userId: integer('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: text('client_id')
      .notNull()
      .references(() => platformOAuthClients.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [index('platform_managed_users_client_id_idx').on(t.clientId, t.userId)],
);

/**
 * Managed users' refresh tokens, stored as SHA-256. Every token pair belongs to a family (started when
 * the user is created or force-refreshed); a refresh token that has been exchanged keeps its row with
 * `rotated_at` set, so presenting it again is recognised as reuse and revokes the whole family.
 */
export const platformRefreshTokens = pgTable(
  'platform_refresh_tokens',
  {
    id: serial('id').primaryKey(),
    hashedToken: text('hashed_token').notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: text('client_id')
      .notNull()
      .references(() => platformOAuthClients.id, { onDelete: 'cascade' }),
    familyId: text('family_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    rotatedAt: timestamp('rotated_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('platform_refresh_tokens_hashed_token_key').on(t.hashedToken),
    index('platform_refresh_tokens_family_id_idx').on(t.familyId),
    index('platform_refresh_tokens_client_id_user_id_idx').on(t.clientId, t.userId),
  ],
);
