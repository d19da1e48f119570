// Conferencing apps: a user's or a team's installed video apps (the reference's `*_video` credentials).
// The built-in video app is installed for everyone and has no row.
import { sql } from 'drizzle-orm';
import { boolean, check, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';
import { teams } from './teams.js';
import { users } from './users.js';

/** The reference's credential types of the conferencing apps the API installs. */
export type ConferencingAppType = 'google_video' | 'zoom_video' | 'office365_video';

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
