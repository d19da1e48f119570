import { and, asc, eq, ne, sql, type SQL } from 'drizzle-orm';
import { LOCK_CLASSES } from '../../db/locks.js';
import type { Db } from '../../db/client.js';
import { webhooks } from '../../db/schema.js';
import type { NoShowTimeUnit } from './webhook-triggers.js';

export type WebhookRow = typeof webhooks.$inferSelect;

/** Whose subscription it is: exactly one owner column is set, the one of its kind. */
export type WebhookOwner =
  | { kind: 'user'; userId: number }
  | { kind: 'eventType'; eventTypeId: number }
  | { kind: 'team'; teamId: number }
  | { kind: 'organization'; organizationId: number }
  | { kind: 'oauthClient'; oauthClientId: string };

/** What a subscription write sets besides its owner. */
export interface WebhookFields {
  subscriberUrl: string;
  active: boolean;
  triggers: string[];
  payloadTemplate: string | null;
  secretSealed: string | null;
  version: string;
  time: number | null;
  timeUnit: NoShowTimeUnit | null;
}

function ownerColumns(owner: WebhookOwner) {
  switch (owner.kind) {
    case 'user':
      return { userId: owner.userId };
    case 'eventType':
      return { eventTypeId: owner.eventTypeId };
    case 'team':
      return { teamId: owner.teamId };
    case 'organization':
      return { organizationId: owner.organizationId };
    case 'oauthClient':
      return { oauthClientId: owner.oauthClientId };
  }
}

function ownedBy(owner: WebhookOwner): SQL {
  const condition = (() => {
    switch (owner.kind) {
      case 'user':
        return eq(webhooks.userId, owner.userId);
      case 'eventType':
        return eq(webhooks.eventTypeId, owner.eventTypeId);
      case 'team':
        return eq(webhooks.teamId, owner.teamId);
      case 'organization':
        return eq(webhooks.organizationId, owner.organizationId);
      case 'oauthClient':
        return eq(webhooks.oauthClientId, owner.oauthClientId);
    }
  })();
  return and(eq(webhooks.ownerKind, owner.kind), condition)!;
}

function ownerKey(owner: WebhookOwner): string {
  const [, id] = Object.entries(ownerColumns(owner))[0]!;
  return `${owner.kind}:${id}`;
}

const WEBHOOK_OWNER_LOCK = LOCK_CLASSES.webhookOwner;

/**
 * Serializes writes to one owner's subscriptions until the transaction ends, so "no other subscription
 * of this owner has that URL" stays true until the write commits, on any number of processes.
 */
export async function lockOwner(tx: Db, owner: WebhookOwner): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${WEBHOOK_OWNER_LOCK}, hashtext(${ownerKey(owner)}))`);
}

export async function insertWebhook(tx: Db, owner: WebhookOwner, fields: WebhookFields): Promise<WebhookRow> {
  const [row] = await tx
    .insert(webhooks)
    .values({ ownerKind: owner.kind, ...ownerColumns(owner), ...fields })
    .returning();
  return row!;
}

export async function findWebhookById(db: Db, id: number): Promise<WebhookRow | undefined> {
  const [row] = await db.select().from(webhooks).where(eq(webhooks.id, id));
  return row;
}

/** Locks the row: concurrent changes of one subscription apply one after the other. */
export async function lockWebhook(tx: Db, id: number): Promise<WebhookRow | undefined> {
  const [row] = await tx.select().from(webhooks).where(eq(webhooks.id, id)).for('update');
  return row;
}

export async function isSubscriberUrlTaken(db: Db, owner: WebhookOwner, subscriberUrl: string, exceptId?: number): Promise<boolean> {
  const conditions = [ownedBy(owner), eq(webhooks.subscriberUrl, subscriberUrl)];
  if (exceptId !== undefined) conditions.push(ne(webhooks.id, exceptId));
  const [row] = await db.select({ id: webhooks.id }).from(webhooks).where(and(...conditions)).limit(1);
  return row !== undefined;
}

/** One page of an owner's subscriptions, oldest first. */
export async function listWebhooks(db: Db, owner: WebhookOwner, page: { skip: number; take: number }): Promise<WebhookRow[]> {
  return db.select().from(webhooks).where(ownedBy(owner)).orderBy(asc(webhooks.id)).offset(page.skip).limit(page.take);
}

export async function updateWebhook(tx: Db, id: number, fields: Partial<WebhookFields>): Promise<WebhookRow> {
  const [row] = await tx
    .update(webhooks)
    .set({ ...fields, updatedAt: sql`now()` })
    .where(eq(webhooks.id, id))
    .returning();
  return row!;
}

export async function deleteWebhook(tx: Db, id: number): Promise<void> {
  await tx.delete(webhooks).where(eq(webhooks.id, id));
}

/** Deletes every subscription of an owner; returns how many there were. */
export async function deleteWebhooksOf(tx: Db, owner: WebhookOwner): Promise<number> {
  const rows = await tx.delete(webhooks).where(ownedBy(owner)).returning({ id: webhooks.id });
  return rows.length;
}
