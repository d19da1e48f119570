// Who calls svc: users and the credentials they authenticate with.
import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';

export type Weekday = 'Monday' | 'Tuesday' | 'Wednesday' | 'Thursday' | 'Friday' | 'Saturday' | 'Sunday';

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    email: text('email').notNull(),
    /**
     * The address the user is known to receive mail at: the one an admin (or OAuth client) created the
     * user with, or one verified later. Attendee rights over bookings follow this address, never an
     * unverified `email` (PATCH /v2/me may set any address).
     */
    verifiedEmail: text('verified_email'),
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
    /** The conferencing app a booking gets when its event type names the owner's default (an app slug); null: the built-in video. */
    defaultConferencingApp: text('default_conferencing_app'),
    role: text('role').$type<'USER' | 'ADMIN'>().notNull().default('USER'),
    /**
     * The organization that created the user (POST /v2/organizations/{orgId}/users), as the reference's
     * User.organizationId: its admins may change or delete the account; no other organization's may.
     */
    organizationId: integer('organization_id'),
    passwordHash: text('password_hash'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_lower_key').on(sql`lower(${t.email})`),
    uniqueIndex('users_verified_email_lower_key').on(sql`lower(${t.verifiedEmail})`),
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
    /** Platform tokens: the token family it was issued in (see platform_refresh_tokens). */
    familyId: text('family_id'),
    scopes: text('scopes').array().notNull().default(sql`'{}'::text[]`),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('access_tokens_hashed_token_key').on(t.hashedToken),
    index('access_tokens_user_id_idx').on(t.userId),
    index('access_tokens_client_id_user_id_idx').on(t.clientId, t.userId),
    index('access_tokens_family_id_idx').on(t.familyId),
  ],
);

/**
 * Web login attempts that did not (yet) succeed, one row each: what the per-account and per-IP limits
 * count. `account_key` is the SHA-256 of the email as typed (trimmed, lowercased), whether or not an
 * account has it, so the rows reveal no more than the limit does. A success deletes its account's rows;
 * housekeeping deletes rows older than the longest window.
 */
export const loginFailures = pgTable(
  'login_failures',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountKey: text('account_key').notNull(),
    clientIp: text('client_ip').notNull(),
    failedAt: timestamp('failed_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('login_failures_account_key_failed_at_idx').on(t.accountKey, t.failedAt),
    index('login_failures_client_ip_failed_at_idx').on(t.clientIp, t.failedAt),
    index('login_failures_failed_at_idx').on(t.failedAt),
  ],
);
