// Third-party OAuth 2.0: the clients users register, the codes and refresh tokens they are granted,
// and the web pages' sessions.
import { index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';
import { users } from './users.js';

export type OAuthClientType = 'confidential' | 'public';
export type OAuthClientStatus = 'pending' | 'approved' | 'rejected';

/**
 * A third-party app registered by a user (developer settings or the API). It starts `pending`; only an
 * `approved` client may send users through the authorization endpoint. A confidential client's secret
 * is stored as its SHA-256 only (it is shown once, at registration).
 */
export const oauthClients = pgTable(
  'oauth_clients',
  {
    id: text('id').primaryKey(),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    logo: text('logo'),
    clientType: text('client_type').$type<OAuthClientType>().notNull(),
    secretHash: text('secret_hash'),
    redirectUris: text('redirect_uris').array().notNull(),
    scopes: text('scopes').array().notNull(),
    status: text('status').$type<OAuthClientStatus>().notNull().default('pending'),
    reviewedAt: timestamp('reviewed_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('oauth_clients_owner_id_idx').on(t.ownerId), index('oauth_clients_status_idx').on(t.status)],
);

/**
 * Authorization codes, stored as SHA-256: single use, bound to the client, redirect URI, user, scopes
 * and PKCE challenge. A used code keeps its row (`used_at`) until it expires, so a replay is recognised
 * and revokes the token family issued from it (`family_id`).
 */
export const oauthAuthorizationCodes = pgTable(
  'oauth_authorization_codes',
  {
    id: serial('id').primaryKey(),
    hashedCode: text('hashed_code').notNull(),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    redirectUri: text('redirect_uri').notNull(),
    scopes: text('scopes').array().notNull(),
    codeChallenge: text('code_challenge'),
    familyId: text('family_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('oauth_authorization_codes_hashed_code_key').on(t.hashedCode), index('oauth_authorization_codes_expires_at_idx').on(t.expiresAt)],
);

/**
 * Refresh tokens of third-party clients, as SHA-256, in families (one per authorization code). An
 * exchanged token keeps its row with `rotated_at`, so presenting it again revokes the whole family.
 * `scopes` are those of the grant: a refresh may ask for fewer, never more.
 */
export const oauthRefreshTokens = pgTable(
  'oauth_refresh_tokens',
  {
    id: serial('id').primaryKey(),
    hashedToken: text('hashed_token').notNull(),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    familyId: text('family_id').notNull(),
    scopes: text('scopes').array().notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    rotatedAt: timestamp('rotated_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('oauth_refresh_tokens_hashed_token_key').on(t.hashedToken),
    index('oauth_refresh_tokens_family_id_idx').on(t.familyId),
    index('oauth_refresh_tokens_client_id_idx').on(t.clientId),
  ],
);

/**
 * Sessions of the web pages (login, consent, developer settings, admin review), keyed by the SHA-256
 * of the cookie's value. A visitor who has not logged in has a session too (no user): it carries the
 * CSRF token of the login form.
 */
export const webSessions = pgTable(
  'web_sessions',
  {
    hashedId: text('hashed_id').primaryKey(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    csrfToken: text('csrf_token').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('web_sessions_user_id_idx').on(t.userId), index('web_sessions_expires_at_idx').on(t.expiresAt)],
);
