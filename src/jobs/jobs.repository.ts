import { and, eq, sql } from 'drizzle-orm';
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

/** Enqueue inside the caller's transaction; the NOTIFY wakes idle workers once it commits. */
export async function insertJob(db: Db, job: NewJob): Promise<number | undefined> {
  const [row] = await db
    .insert(jobs)
    .values({ kind: job.kind, payload: job.payload, runAt: job.runAt ?? sql`now()`, maxAttempts: job.maxAttempts ?? 20, dedupeKey: job.dedupeKey ?? null })
    .onConflictDoNothing({ target: jobs.dedupeKey })
    .returning({ id: jobs.id });
  await db.execute(sql`select pg_notify(${JOBS_CHANNEL}, '')`);
  return row?.id;
}

/**
 * Claims up to `limit` due jobs under a lease. SKIP LOCKED lets many workers claim concurrently without
 * waiting on each other or taking the same row; a worker that dies loses its lease and the job is retried.
 */
export async function claimDueJobs(db: Db, workerId: string, limit: number, leaseMs: number): Promise<JobRow[]> {
  const result = await db.execute(sql`
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

export async function findJob(db: Db, id: number): Promise<JobRow | undefined> {
  const [row] = await db.select().from(jobs).where(eq(jobs.id, id));
  return row;
}
