// Organization attributes (the reference's Attribute, AttributeOption, AttributeToUser): what an
// organization says of its members (region, language, seniority...), read by routing.
import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';
import { memberships, teams } from './teams.js';

export type AttributeType = 'TEXT' | 'NUMBER' | 'SINGLE_SELECT' | 'MULTI_SELECT';

export const attributes = pgTable(
  'attributes',
  {
    id: text('id').primaryKey().default(sql`gen_random_uuid()::text`),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    type: text('type').$type<AttributeType>().notNull(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    /** Shown on the members' profiles. */
    enabled: boolean('enabled').notNull().default(true),
    usersCanEditRelation: boolean('users_can_edit_relation').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('attributes_organization_slug_key').on(t.organizationId, sql`lower(${t.slug})`)],
);

export const attributeOptions = pgTable(
  'attribute_options',
  {
    id: text('id').primaryKey().default(sql`gen_random_uuid()::text`),
    attributeId: text('attribute_id')
      .notNull()
      .references(() => attributes.id, { onDelete: 'cascade' }),
    value: text('value').notNull(),
    slug: text('slug').notNull(),
    /** The order options were made in (an attribute's list keeps the order it was given in). */
    ordinal: serial('ordinal').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('attribute_options_attribute_slug_key').on(t.attributeId, sql`lower(${t.slug})`)],
);

/** An option held by a member: through their organization membership, so leaving the organization drops it. */
export const attributeAssignments = pgTable(
  'attribute_assignments',
  {
    id: text('id').primaryKey().default(sql`gen_random_uuid()::text`),
    optionId: text('option_id')
      .notNull()
      .references(() => attributeOptions.id, { onDelete: 'cascade' }),
    membershipId: integer('membership_id')
      .notNull()
      .references(() => memberships.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('attribute_assignments_option_membership_key').on(t.optionId, t.membershipId), index('attribute_assignments_membership_idx').on(t.membershipId)],
);
