import { and, arrayOverlaps, asc, desc, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { eventTypes, memberships, platformManagedUsers, teams, users, webhookDeliveries, webhookDeliveryAttempts, webhooks } from '../../db/schema.js';
import type { StoredBookingField } from '../event-types/event-type-model.js';
import { NO_SHOW_TRIGGERS, type NoShowTimeUnit } from './webhook-triggers.js';

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect;
export type NewDelivery = Omit<typeof webhookDeliveries.$inferInsert, 'id' | 'createdAt'>;

/**
 * Who an event concerns, at every subscription level. A subscription matches when its owner is one
 * of these: a user's own webhooks, the event type's (and a managed child's parent's), its team's, the organization's, the OAuth
 * client's (platform) that manages the user.
 */
export interface WebhookAudience {
  userIds: number[];
  eventTypeIds: number[];
  teamIds: number[];
  organizationIds: number[];
  /**
   * Users whose organizations are in the audience too: every organization where one of them holds an
   * accepted membership (matched inside the subscriptions query, so it costs no round trip).
   */
  organizationMemberIds?: number[];
  oauthClientIds: string[];
  /** Users whose OAuth client's subscriptions are in the audience too (the client managing each of them). */
  managedUserIds?: number[];
}

export interface MatchedSubscription {
  id: number;
  triggers: string[];
  payloadTemplate: string | null;
}

function ownerMatches(audience: WebhookAudience): SQL | undefined {
  const levels: SQL[] = [];
  if (audience.userIds.length) levels.push(and(eq(webhooks.ownerKind, 'user'), inArray(webhooks.userId, audience.userIds))!);
  if (audience.eventTypeIds.length) {
    // A managed event type's webhooks hear its members' children too, as the reference's getWebhooks.
    const managedParents = sql`(select ${eventTypes.parentId} from ${eventTypes} where ${inArray(eventTypes.id, audience.eventTypeIds)} and ${eventTypes.parentId} is not null)`;
    levels.push(and(eq(webhooks.ownerKind, 'eventType'), or(inArray(webhooks.eventTypeId, audience.eventTypeIds), sql`${webhooks.eventTypeId} in ${managedParents}`))!);
  }
  if (audience.teamIds.length) levels.push(and(eq(webhooks.ownerKind, 'team'), inArray(webhooks.teamId, audience.teamIds))!);
  if (audience.organizationIds.length) levels.push(and(eq(webhooks.ownerKind, 'organization'), inArray(webhooks.organizationId, audience.organizationIds))!);
  if (audience.organizationMemberIds?.length) {
    const organizationsOfMembers = sql`(select ${memberships.teamId} from ${memberships} join ${teams} on ${teams.id} = ${memberships.teamId}
      where ${inArray(memberships.userId, audience.organizationMemberIds)} and ${memberships.accepted} and ${teams.isOrganization})`;
    levels.push(and(eq(webhooks.ownerKind, 'organization'), sql`${webhooks.organizationId} in ${organizationsOfMembers}`)!);
  }
  if (audience.oauthClientIds.length) levels.push(and(eq(webhooks.ownerKind, 'oauthClient'), inArray(webhooks.oauthClientId, audience.oauthClientIds))!);
  if (audience.managedUserIds?.length) {
    const clientsOfUsers = sql`(select ${platformManagedUsers.clientId} from ${platformManagedUsers} where ${inArray(platformManagedUsers.userId, audience.managedUserIds)})`;
    levels.push(and(eq(webhooks.ownerKind, 'oauthClient'), sql`${webhooks.oauthClientId} in ${clientsOfUsers}`)!);
  }
  return levels.length ? or(...levels) : undefined;
}

/**
 * A query for the active subscriptions of the audience that list any of `triggers`, with columns
 * `webhook_id`, `webhook_triggers`, `webhook_template` (read them with `matchedSubscriptions`); null
 * when nobody could match. It is run inside another statement (the booking event's insert), so
 * matching costs no round trip of its own.
 */
export function subscriptionsQuery(audience: WebhookAudience, triggers: string[]): SQL | null {
  const owners = ownerMatches(audience);
  if (!owners || triggers.length === 0) return null;
  return sql`select ${webhooks.id} as webhook_id, ${webhooks.triggers} as webhook_triggers, ${webhooks.payloadTemplate} as webhook_template
    from ${webhooks} where ${and(eq(webhooks.active, true), arrayOverlaps(webhooks.triggers, triggers), owners)}`;
}

/**
 * Whether any active subscription of the audience lists each of `triggers`, as one row of booleans
 * (`wants_0`, `wants_1`... in the order given): what a booking's transaction reads (their deliveries
 * are made later, by the fan-out job). Each is an `exists`, which stops at the first subscription
 * found: an aggregate over the audience's subscriptions made a booking of an organization with 1,000
 * of them about 1.5 ms slower (bench --only=data). Null when nobody could match.
 */
export function subscriptionInterestQuery(audience: WebhookAudience, triggers: readonly string[]): SQL | null {
  const owners = ownerMatches(audience);
  if (!owners || triggers.length === 0) return null;
  const wants = triggers.map(
    (trigger, index) =>
      sql`exists (select 1 from ${webhooks} where ${and(eq(webhooks.active, true), sql`${trigger}::text = any(${webhooks.triggers})`, owners)}) as ${sql.identifier(`wants_${index}`)}`,
  );
  return sql`select ${sql.join(wants, sql`, `)}`;
}

/** The triggers among `triggers` that a row of subscriptionInterestQuery says someone listens for. */
export function interestedTriggers(rows: Record<string, unknown>[], triggers: readonly string[]): Set<string> {
  const row = rows[0] ?? {};
  return new Set(triggers.filter((_, index) => row[`wants_${index}`] === true));
}

/** The subscriptions among rows carrying subscriptionsQuery's columns (rows without one are skipped), by id. */
export function matchedSubscriptions(rows: Record<string, unknown>[]): MatchedSubscription[] {
  const matched = new Map<number, MatchedSubscription>();
  for (const row of rows) {
    if (row.webhook_id === null || row.webhook_id === undefined) continue;
    const id = Number(row.webhook_id);
    matched.set(id, { id, triggers: row.webhook_triggers as string[], payloadTemplate: (row.webhook_template as string | null) ?? null });
  }
  return [...matched.values()].sort((a, b) => a.id - b.id);
}

/** Active subscriptions of the audience that list any of `triggers`. */
export async function findSubscriptions(db: Db, audience: WebhookAudience, triggers: string[]): Promise<MatchedSubscription[]> {
  const query = subscriptionsQuery(audience, triggers);
  if (!query) return [];
  return matchedSubscriptions(((await db.execute(query)) as unknown as { rows: Record<string, unknown>[] }).rows);
}

export interface NoShowSubscription extends MatchedSubscription {
  time: number | null;
  timeUnit: NoShowTimeUnit | null;
}

/** Active subscriptions of the audience that list a no-show trigger, with their delays. */
export async function findNoShowSubscriptions(db: Db, audience: WebhookAudience): Promise<NoShowSubscription[]> {
  const owners = ownerMatches(audience);
  if (!owners) return [];
  return db
    .select({ id: webhooks.id, triggers: webhooks.triggers, payloadTemplate: webhooks.payloadTemplate, time: webhooks.time, timeUnit: webhooks.timeUnit })
    .from(webhooks)
    .where(and(eq(webhooks.active, true), arrayOverlaps(webhooks.triggers, [...NO_SHOW_TRIGGERS]), owners))
    .orderBy(asc(webhooks.id));
}

/** What a booking payload shows of its organizer and event type beyond the booking record. */
export interface PayloadContext {
  organizer: { id: number; name: string | null; email: string; username: string | null; timeZone: string; locale: string | null; timeFormat: 12 | 24 } | null;
  eventType: {
    id: number;
    slug: string;
    title: string;
    description: string;
    lengthInMinutes: number;
    bookingFields: StoredBookingField[];
    requiresConfirmation: boolean;
    seatsPerTimeSlot: number | null;
    seatsShowAttendees: boolean;
    hideCalendarNotes: boolean;
  } | null;
  /** The team of a collective or round-robin event type (not a managed one's members' copies). */
  team: { id: number; name: string } | null;
}

/**
 * The PayloadContext of a booking as one json value, for a statement to read as a column (a booking
 * event's own insert reads it when someone listens: withPayloadContext), or null when the organizer
 * is gone. Read it with parsePayloadContext.
 */
export function payloadContextQuery(organizerId: number, eventTypeId: number | null): SQL {
  return sql`select json_build_object(
      'organizer', json_build_object('id', ${users.id}, 'name', ${users.name}, 'email', ${users.email}, 'username', ${users.username},
        'timeZone', ${users.timeZone}, 'locale', ${users.locale}, 'timeFormat', ${users.timeFormat}),
      'eventType', case when ${eventTypes.id} is null then null else json_build_object('id', ${eventTypes.id}, 'slug', ${eventTypes.slug},
        'title', ${eventTypes.title}, 'description', ${eventTypes.description}, 'lengthInMinutes', ${eventTypes.lengthInMinutes},
        'bookingFields', ${eventTypes.bookingFields}, 'requiresConfirmation', coalesce(jsonb_typeof(${eventTypes.confirmationPolicy}), 'null') <> 'null',
        'seatsPerTimeSlot', ${eventTypes.seatsPerTimeSlot}, 'seatsShowAttendees', ${eventTypes.seatsShowAttendees},
        'hideCalendarNotes', coalesce((${eventTypes.settings} ->> 'hideCalendarNotes')::boolean, false)) end,
      'team', case when ${teams.id} is null then null else json_build_object('id', ${teams.id}, 'name', ${teams.name}) end)
    from ${users}
    left join ${eventTypes} on ${eventTypeId === null ? sql`false` : sql`${eventTypes.id} = ${eventTypeId}`}
    left join ${teams} on ${teams.id} = ${eventTypes.teamId} and ${eventTypes.schedulingType} in ('collective', 'roundRobin')
    where ${users.id} = ${organizerId}`;
}

/** A subscriptionInterestQuery with the PayloadContext as a column `payload_context`, read only when someone listens for its first trigger (`wants_0`). */
export function withPayloadContext(interest: SQL, organizerId: number, eventTypeId: number | null): SQL {
  return sql`select interest.*, case when interest.wants_0 then (${payloadContextQuery(organizerId, eventTypeId)}) end as payload_context from (${interest}) interest`;
}

/** A value of payloadContextQuery (the drivers hand json over parsed, or as text). */
export function parsePayloadContext(value: unknown): PayloadContext {
  const context = (typeof value === 'string' ? JSON.parse(value) : value) as PayloadContext | null | undefined;
  return context ?? { organizer: null, eventType: null, team: null };
}

export async function loadPayloadContext(db: Db, organizerId: number, eventTypeId: number | null): Promise<PayloadContext> {
  const result = (await db.execute(sql`select (${payloadContextQuery(organizerId, eventTypeId)}) as payload_context`)) as unknown as { rows: { payload_context: unknown }[] };
  return parsePayloadContext(result.rows[0]?.payload_context);
}

/** Inserts deliveries; one a booking event already has for a subscription is skipped (a fan-out run twice makes no second). */
export async function insertDeliveries(db: Db, rows: NewDelivery[]): Promise<{ id: number; uid: string }[]> {
  if (rows.length === 0) return [];
  return db.insert(webhookDeliveries).values(rows).onConflictDoNothing().returning({ id: webhookDeliveries.id, uid: webhookDeliveries.uid });
}

/** A delivery with what sending it needs from its subscription (null: the subscription and so the delivery are gone). */
export interface DeliveryToSend {
  id: number;
  uid: string;
  status: DeliveryRow['status'];
  body: string;
  contentType: string;
  subscriberUrl: string;
  active: boolean;
  secretSealed: string | null;
}

/** The deliveries of `ids` that still exist, with what sending them needs (one statement for a whole claim). */
export async function findDeliveriesToSend(db: Db, ids: number[]): Promise<DeliveryToSend[]> {
  if (ids.length === 0) return [];
  return db
    .select({
      id: webhookDeliveries.id,
      uid: webhookDeliveries.uid,
      status: webhookDeliveries.status,
      body: webhookDeliveries.body,
      contentType: webhookDeliveries.contentType,
      subscriberUrl: webhooks.subscriberUrl,
      active: webhooks.active,
      secretSealed: webhooks.secretSealed,
    })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .where(inArray(webhookDeliveries.id, ids));
}

export interface AttemptRecord {
  deliveryId: number;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The delivery's status after this attempt. */
  outcome: 'delivered' | 'pending' | 'failed';
}

/**
 * Logs attempts and summarizes each on its delivery, all in one statement (atomic on its own). A
 * delivery deleted meanwhile (with its subscription) gets no log row. One attempt per delivery.
 */
export async function recordAttempts(db: Db, attempts: AttemptRecord[]): Promise<void> {
  if (attempts.length === 0) return;
  const rows = attempts.map(
    (attempt) =>
      sql`(${attempt.deliveryId}::bigint, ${attempt.attemptedAt.toISOString()}::timestamptz, ${attempt.statusCode}::int, ${attempt.durationMs}::int, ${attempt.error}::text, ${attempt.outcome}::text)`,
  );
  await db.execute(sql`
    with attempt (delivery_id, attempted_at, status_code, duration_ms, error, outcome) as (values ${sql.join(rows, sql`, `)}),
    logged as (
      insert into ${webhookDeliveryAttempts} (delivery_id, attempted_at, status_code, duration_ms, error)
      select attempt.delivery_id, attempt.attempted_at, attempt.status_code, attempt.duration_ms, attempt.error
      from attempt join ${webhookDeliveries} on ${webhookDeliveries.id} = attempt.delivery_id
    )
    update ${webhookDeliveries}
    set attempts = ${webhookDeliveries.attempts} + 1, last_status_code = attempt.status_code, last_error = attempt.error, status = attempt.outcome,
        delivered_at = case when attempt.outcome = 'delivered' then attempt.attempted_at else ${webhookDeliveries.deliveredAt} end
    from attempt
    where ${webhookDeliveries.id} = attempt.delivery_id`);
}

/**
 * Deletes up to `limit` deliveries that ended (delivered or failed) and were made before
 * `createdBefore`, with their attempt logs (cascade), oldest ids first; returns how many.
 */
export async function deleteEndedDeliveries(db: Db, createdBefore: Date, limit: number): Promise<number> {
  const deleted = await db
    .delete(webhookDeliveries)
    .where(
      inArray(
        webhookDeliveries.id,
        db
          .select({ id: webhookDeliveries.id })
          .from(webhookDeliveries)
          .where(and(sql`${webhookDeliveries.status} <> 'pending'`, sql`${webhookDeliveries.createdAt} < ${createdBefore.toISOString()}::timestamptz`))
          .orderBy(webhookDeliveries.id)
          .limit(limit),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return deleted.length;
}

/** A delivery that will not be sent (its subscription was deactivated): failed, with the reason. */
export async function failDelivery(db: Db, id: number, error: string): Promise<void> {
  await db.update(webhookDeliveries).set({ status: 'failed', lastError: error }).where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, 'pending')));
}

/** A subscription's deliveries, newest first. */
export async function listDeliveries(db: Db, webhookId: number, take: number, skip: number): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(take)
    .offset(skip);
}

export async function attemptsOf(db: Db, deliveryIds: number[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db
    .select()
    .from(webhookDeliveryAttempts)
    .where(inArray(webhookDeliveryAttempts.deliveryId, deliveryIds))
    .orderBy(asc(webhookDeliveryAttempts.attemptedAt), asc(webhookDeliveryAttempts.id));
}

/** Locks one delivery of a subscription (resends of it apply one after the other). */
export async function lockDelivery(db: Db, webhookId: number, uid: string): Promise<DeliveryRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.uid, uid)))
    .for('update');
  return row;
}

export async function reopenDelivery(db: Db, id: number): Promise<DeliveryRow> {
  const [row] = await db.update(webhookDeliveries).set({ status: 'pending', deliveredAt: null }).where(eq(webhookDeliveries.id, id)).returning();
  return row!;
}
