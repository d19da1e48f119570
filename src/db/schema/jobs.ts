// Durable background work and the responses kept for Idempotency-Key retries.
import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.js';

/**
 * Durable background work (webhook deliveries, emails, reminders): written in the same transaction as
 * the change that causes it, claimed with FOR UPDATE SKIP LOCKED under a lease, retried with backoff.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<unknown>().notNull(),
    status: text('status').$type<'pending' | 'done' | 'failed'>().notNull().default('pending'),
    runAt: timestamp('run_at', { withTimezone: true }).notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(20),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    lockedBy: text('locked_by'),
    lastError: text('last_error'),
    dedupeKey: text('dedupe_key'),
    createdAt: createdAt(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    index('jobs_due_idx').on(t.runAt).where(sql`status = 'pending'`),
    // Housekeeping deletes finished jobs by age: without it, every run reads the whole table.
    index('jobs_finished_at_idx').on(t.finishedAt).where(sql`status <> 'pending'`),
    uniqueIndex('jobs_dedupe_key_key').on(t.dedupeKey),
  ],
);

/**
 * `Idempotency-Key` records: the response of the first request with a key, stored in the same
 * transaction as its effects, replayed to retries with the same body for 24 hours.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    /** Who sent it and to which route: one caller's keys never answer another's requests. */
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of the method, path and body: the same key with another request is refused. */
    fingerprint: text('fingerprint').notNull(),
    responseStatus: integer('response_status').notNull(),
    responseBody: jsonb('response_body').$type<unknown>().notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index('idempotency_keys_expires_at_idx').on(t.expiresAt)],
);
