import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { jobs } from '../db/schema.js';

export const JOBS_CHANNEL = 'svc_jobs';

export type JobRow = typeof jobs.$inferSelect;

export interface NewJob {
  kind: string;
  payload: unknown;
  runAt?: Date;
  maxAttempts?: number;
  /** At most one job per key: enqueueing a duplicate is a no-op. */
  dedupeKey?: string;
}

const jobRow = (job: NewJob) => ({ kind: job.kind, payload: job.payload, runAt: job.runAt ?? sql`now()`, maxAttempts: job.maxAttempts ?? 20, dedupeKey: job.dedupeKey ?? null });

/** Enqueue inside the caller's transaction; the NOTIFY wakes idle workers once it commits. */
export async function insertJob(db: Db, job: NewJob): Promise<number | undefined> {
  const [row] = await db.insert(jobs).values(jobRow(job)).onConflictDoNothing({ target: jobs.dedupeKey }).returning({ id: jobs.id });
  await db.execute(sql`select pg_notify(${JOBS_CHANNEL}, '')`);
  return row?.id;
}

/** Several jobs in one statement and one NOTIFY (duplicates of a dedupe key are skipped). */
export async function insertJobs(db: Db, batch: NewJob[]): Promise<void> {
  if (batch.length === 0) return;
  await db.insert(jobs).values(batch.map(jobRow)).onConflictDoNothing({ target: jobs.dedupeKey });
  await db.execute(sql`select pg_notify(${JOBS_CHANNEL}, '')`);
}

/**
 * Claims up to `limit` due jobs under a lease. SKIP LOCKED lets many workers claim concurrently without
 * waiting on each other or taking the same row; a worker that dies loses its lease and the job is retried.
 */
export async function claimDueJobs(db: Db, workerId: string, limit: number, leaseMs: number, doneIds: number[] = []): Promise<JobRow[]> {
  // Jobs this worker finished since its last claim are marked done by the same statement.
  const done = doneIds.length
    ? sql`with done as (
        update ${jobs} set status = 'done', finished_at = now(), locked_until = null, last_error = null
        where id in (${sql.join(doneIds.map((id) => sql`${id}`), sql`, `)}) and locked_by = ${workerId}
        returning id
      ) `
    : sql``;
  const result = await db.execute(sql`${done}
    update ${jobs} set locked_until = now() + (${leaseMs} * interval '1 millisecond'), locked_by = ${workerId}, attempts = attempts + 1
    where id in (
      select id from ${jobs}
      where status = 'pending' and run_at <= now() and (locked_until is null or locked_until < now())
      order by run_at, id
      limit ${limit}
      for update skip locked
    )
    returning id, kind, payload, attempts, max_attempts as "maxAttempts", run_at as "runAt"`);
  return (result as unknown as { rows: JobRow[] }).rows;
}

export async function markJobsDone(db: Db, ids: number[], workerId: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(jobs)
    .set({ status: 'done', finishedAt: sql`now()`, lockedUntil: null, lastError: null })
    .where(and(inArray(jobs.id, ids), eq(jobs.lockedBy, workerId)));
}

export async function markJobDone(db: Db, id: number, workerId: string): Promise<void> {
  await db
    .update(jobs)
    .set({ status: 'done', finishedAt: sql`now()`, lockedUntil: null, lastError: null })
    .where(and(eq(jobs.id, id), eq(jobs.lockedBy, workerId)));
}

export async function markJobFailed(db: Db, id: number, workerId: string, error: string, retryAt: Date | null): Promise<void> {
  await db
    .update(jobs)
    .set(
      retryAt
        ? { runAt: retryAt, lockedUntil: null, lastError: error }
        : { status: 'failed', finishedAt: sql`now()`, lockedUntil: null, lastError: error },
    )
    .where(and(eq(jobs.id, id), eq(jobs.lockedBy, workerId)));
}

/**
 * Deletes up to `limit` jobs that finished (done or failed) before `finishedBefore`, oldest ids first
 * (a walk of the primary key that stops at `limit`); returns how many.
 */
export async function deleteFinishedJobs(db: Db, finishedBefore: Date, limit: number): Promise<number> {
  const deleted = await db
    .delete(jobs)
    .where(
      inArray(
        jobs.id,
        db
          .select({ id: jobs.id })
          .from(jobs)
          .where(and(sql`${jobs.status} <> 'pending'`, sql`${jobs.finishedAt} < ${finishedBefore.toISOString()}::timestamptz`))
          .orderBy(jobs.id)
          .limit(limit),
      ),
    )
    .returning({ id: jobs.id });
  return deleted.length;
}

export async function findJob(db: Db, id: number): Promise<JobRow | undefined> {
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id));
  return row;
}

/**
 * Makes the pending job of `kind` whose payload contains `payload` due now (a retry waiting on backoff
 * is tried at once). `running`: it is being run right now (leased), so it was left alone; `none`: there
 * is no pending job.
 */
export async function expeditePendingJob(db: Db, kind: string, payload: Record<string, unknown>): Promise<'moved' | 'running' | 'none'> {
  const matches = and(eq(jobs.status, 'pending'), eq(jobs.kind, kind), sql`${jobs.payload} @> ${JSON.stringify(payload)}::jsonb`);
  const moved = await db
    .update(jobs)
    .set({ runAt: sql`now()` })
    .where(and(matches, sql`(${jobs.lockedUntil} is null or ${jobs.lockedUntil} < now())`))
    .returning({ id: jobs.id });
  if (moved.length > 0) {
    await db.execute(sql`select pg_notify(${JOBS_CHANNEL}, '')`);
    return 'moved';
  }
  const [running] = await db.select({ id: jobs.id }).from(jobs).where(matches).limit(1);
  return running ? 'running' : 'none';
}

/** ANALYZE of the whole database: the planner's statistics, where no autovacuum keeps them. */
export async function refreshStatistics(db: Db): Promise<void> {
  await db.execute(sql`analyze`);
}
