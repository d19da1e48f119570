// Tenancy: organizations and teams (one table, as in the reference), who belongs to them and with
// which role, organization profiles, and custom PBAC roles.
import { sql } from 'drizzle-orm';
import { type AnyPgColumn, boolean, check, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';
import { users, type Weekday } from './users.js';

export type MembershipRole = 'MEMBER' | 'ADMIN' | 'OWNER';
export type TeamMetadata = Record<string, string | number | boolean>;
export interface OrganizationCalendarInvites {
  host?: { mode: 'inherit' | 'custom'; template: string | null } | undefined;
  guest?: { mode: 'inherit' | 'custom'; template: string | null } | undefined;
}

/**
 * Teams and organizations (`is_organization`). A team inside an organization has `parent_id`; a
 * managed organization (of a platform organization) has `manager_organization_id`.
 */
export const teams = pgTable(
  'teams',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    parentId: integer('parent_id').references((): AnyPgColumn => teams.id, { onDelete: 'cascade' }),
    isOrganization: boolean('is_organization').notNull().default(false),
    isPlatform: boolean('is_platform').notNull().default(false),
    managerOrganizationId: integer('manager_organization_id').references((): AnyPgColumn => teams.id, { onDelete: 'cascade' }),
    isPrivate: boolean('is_private').notNull().default(false),
    hideBranding: boolean('hide_branding').notNull().default(false),
    hideBookATeamMember: boolean('hide_book_a_team_member').notNull().default(false),
    metadata: jsonb('metadata').$type<TeamMetadata>().notNull().default({}),
    /** The team's default conferencing app (an app slug); null: the built-in video. */
    defaultConferencingApp: text('default_conferencing_app'),
    theme: text('theme'),
    brandColor: text('brand_color'),
    darkBrandColor: text('dark_brand_color'),
    bannerUrl: text('banner_url'),
    logoUrl: text('logo_url'),
    bio: text('bio'),
    timeFormat: integer('time_format').$type<12 | 24>(),
    timeZone: text('time_zone').notNull().default('Europe/London'),
    weekStart: text('week_start').$type<Weekday>().notNull().default('Sunday'),
    svcVideoLogo: text('svc_video_logo'),
    appLogo: text('app_logo'),
    appIconLogo: text('app_icon_logo'),
    /** Limits on bookings of the team's event types ({day, week, month, year}); stored as given. */
    bookingLimits: jsonb('booking_limits').$type<Record<string, number>>(),
    includeManagedEventsInLimits: boolean('include_managed_events_in_limits').notNull().default(false),
    /** The team's own schedule, made in its time zone when the team is created. */
    defaultScheduleId: integer('default_schedule_id'),
    /** An organization's default calendar-invite descriptions (spec 2.9; modes inherit or custom). */
    calendarInvites: jsonb('calendar_invites').$type<OrganizationCalendarInvites>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // A slug is unique among the children of one parent (organizations and standalone teams share the top level).
    uniqueIndex('teams_parent_slug_lower_key').on(sql`coalesce(${t.parentId}, 0)`, sql`lower(${t.slug})`),
    index('teams_parent_id_idx').on(t.parentId),
    index('teams_manager_organization_id_idx').on(t.managerOrganizationId),
  ],
);

/**
 * A user's membership of a team or organization. `custom_role_id` replaces the permissions of
 * `role` with those of a custom PBAC role of the same team or organization.
 */
export const memberships = pgTable(
  'memberships',
  {
    id: serial('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').$type<MembershipRole>().notNull().default('MEMBER'),
    accepted: boolean('accepted').notNull().default(false),
    disableImpersonation: boolean('disable_impersonation').notNull().default(false),
    customRoleId: text('custom_role_id').references((): AnyPgColumn => roles.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('memberships_team_id_user_id_key').on(t.teamId, t.userId),
    index('memberships_user_id_idx').on(t.userId),
    check('memberships_role_check', sql`${t.role} in ('MEMBER', 'ADMIN', 'OWNER')`),
  ],
);

/** A user's identity inside an organization (its username there). */
export const profiles = pgTable(
  'profiles',
  {
    id: serial('id').primaryKey(),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    username: text('username').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('profiles_organization_id_user_id_key').on(t.organizationId, t.userId),
    uniqueIndex('profiles_organization_id_username_lower_key').on(t.organizationId, sql`lower(${t.username})`),
    index('profiles_user_id_idx').on(t.userId),
  ],
);

/** Custom PBAC roles of an organization or team (SYSTEM roles are built in and not stored). */
export const roles = pgTable(
  'roles',
  {
    id: text('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    color: text('color'),
    description: text('description'),
    permissions: text('permissions').array().notNull().default(sql`'{}'::text[]`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('roles_team_id_name_lower_key').on(t.teamId, sql`lower(${t.name})`)],
);

/**
 * Invitation links to a team: the token is shown (or mailed) once and stored as its SHA-256. A link
 * made by `POST .../invite` lets whoever opens it join; one mailed to a user invited by id
 * (`invitee_user_id`) accepts or declines that user's pending membership, for them alone.
 */
export const teamInviteTokens = pgTable(
  'team_invite_tokens',
  {
    id: serial('id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    inviteeUserId: integer('invitee_user_id').references(() => users.id, { onDelete: 'cascade' }),
    hashedToken: text('hashed_token').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('team_invite_tokens_hashed_token_key').on(t.hashedToken),
    index('team_invite_tokens_team_id_idx').on(t.teamId),
    index('team_invite_tokens_invitee_user_id_idx').on(t.inviteeUserId),
  ],
);
