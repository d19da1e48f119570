// Routing forms (the reference's App_RoutingForms_Form and _FormResponse): a team's questions, and the
// routes that send each answer set to an event type and the members who may take it, a page or a message.
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';
import { teams } from './teams.js';
import { users } from './users.js';

export const routingForms = pgTable(
  'routing_forms',
  {
    id: text('id').primaryKey().default(sql`gen_random_uuid()::text`),
    /** The organization team the form belongs to (its members are routed to). */
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    organizationId: integer('organization_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    /** Who made it. */
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    description: text('description'),
    position: integer('position').notNull().default(0),
    disabled: boolean('disabled').notNull().default(false),
    fields: jsonb('fields').$type<unknown[]>().notNull(),
    routes: jsonb('routes').$type<unknown[]>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('routing_forms_team_idx').on(t.teamId), index('routing_forms_organization_idx').on(t.organizationId)],
);

export const routingFormResponses = pgTable(
  'routing_form_responses',
  {
    id: serial('id').primaryKey(),
    formId: text('form_id')
      .notNull()
      .references(() => routingForms.id, { onDelete: 'cascade' }),
    /** One per submission (the reference's formFillerId). */
    formFillerId: text('form_filler_id').notNull().default(sql`gen_random_uuid()::text`),
    /** The answers by field id: {label, value}. */
    response: jsonb('response').$type<Record<string, { label: string; value: unknown }>>().notNull(),
    /** The route chosen, and where it sent the answers. */
    routeId: text('route_id'),
    eventTypeId: integer('event_type_id'),
    teamMemberIds: integer('team_member_ids').array(),
    routedToBookingUid: text('routed_to_booking_uid'),
    /** Subscriptions told FORM_SUBMITTED_NO_EVENT of it already (a job run twice tells nobody twice). */
    noEventWebhookIds: integer('no_event_webhook_ids').array().notNull().default(sql`'{}'::int[]`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('routing_form_responses_form_idx').on(t.formId, t.createdAt), index('routing_form_responses_booking_idx').on(t.routedToBookingUid)],
);
