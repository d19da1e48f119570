// Webhook subscriptions, their deliveries and every delivery attempt.
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.js';
import { eventTypes } from './scheduling.js';
import { users } from './users.js';

/** Whose subscription a webhook is: only the column of its kind is set. */
export type WebhookOwnerKind = 'user' | 'eventType' | 'team' | 'organization' | 'oauthClient';

/**
 * Webhook subscriptions at every level of spec 2.4. Teams, organizations and OAuth clients get their
 * routes with their own issues; their subscriptions are stored and delivered the same way.
 */
export const webhooks = pgTable(
  'webhooks',
  {
    id: serial('id').primaryKey(),
    ownerKind: text('owner_kind').$type<WebhookOwnerKind>().notNull(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    eventTypeId: integer('event_type_id').references(() => eventTypes.id, { onDelete: 'cascade' }),
    teamId: integer('team_id'),
    organizationId: integer('organization_id'),
    oauthClientId: text('oauth_client_id'),
    subscriberUrl: text('subscriber_url').notNull(),
    active: boolean('active').notNull(),
    triggers: text('triggers').array().notNull(),
    payloadTemplate: text('payload_template'),
    /** The signing secret, sealed with the process's secret box (it is shown back to its owner). */
    secretSealed: text('secret_sealed'),
    version: text('version').notNull().default('2021-10-20'),
    /**
     * How long after a booking's start its built-in video is checked for the no-show triggers (the
     * reference's `time` and `timeUnit`: minute, hour or day); both null: the default delay.
     */
    time: integer('time'),
    timeUnit: text('time_unit').$type<'minute' | 'hour' | 'day'>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('webhooks_user_id_idx').on(t.userId),
    index('webhooks_event_type_id_idx').on(t.eventTypeId),
    index('webhooks_team_id_idx').on(t.teamId),
    index('webhooks_organization_id_idx').on(t.organizationId),
    index('webhooks_oauth_client_id_idx').on(t.oauthClientId),
  ],
);

/**
 * One event for one subscription: the exact body is fixed when it is enqueued, so every retry sends
 * the same bytes under the same `webhook-id` (`uid`).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    uid: text('uid').notNull(),
    webhookId: integer('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    bookingEventId: bigint('booking_event_id', { mode: 'number' }),
    trigger: text('trigger').notNull(),
    body: text('body').notNull(),
    contentType: text('content_type').notNull(),
    status: text('status').$type<'pending' | 'delivered' | 'failed'>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_uid_key').on(t.uid),
    index('webhook_deliveries_webhook_id_created_at_idx').on(t.webhookId, t.createdAt),
    // One delivery per booking event and subscription: the fan-out job may run more than once.
    uniqueIndex('webhook_deliveries_booking_event_webhook_key').on(t.bookingEventId, t.webhookId).where(sql`${t.bookingEventId} is not null`),
  ],
);

/** Every attempt to deliver, for the subscription owner's delivery log. */
export const webhookDeliveryAttempts = pgTable(
  'webhook_delivery_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: bigint('delivery_id', { mode: 'number' })
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attemptedAt: timestamp('attempted_at', { withTimezone: true }).notNull(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
  },
  (t) => [index('webhook_delivery_attempts_delivery_id_idx').on(t.deliveryId)],
);
