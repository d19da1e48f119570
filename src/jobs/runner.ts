import { randomUUID } from 'node:crypto';
import type { Database } from '../db/client.js';
import { claimDueJobs, insertJob, JOBS_CHANNEL, type JobRow, markJobFailed, markJobsDone } from './jobs.repository.js';

export type JobHandler = (payload: any, job: Pick<JobRow, 'id' | 'attempts' | 'maxAttempts'>) => Promise<void>;

/** Tunables of a runner (from the process's config: SVC_JOB_RETRY_BASE_MS, SVC_JOB_LEASE_MS, SVC_JOB_CONCURRENCY). */
export interface JobRunnerSettings {
  concurrency?: number;
  leaseMs?: number;
  /** First retry delay; it doubles with each attempt, capped at one hour. */
  retryBaseMs?: number;
}

/** A job kind run every `everyMs` (payload `{}`), at the multiples of `everyMs` since the epoch. */
export interface RecurringJob {
  kind: string;
  everyMs: number;
}

/**
 * The handlers of every job kind, carrying the runner settings the process was configured with, so
 * whoever starts a runner with them (`svc serve`, `svc worker`, a test) runs it as configured.
 * Options passed to startJobRunner explicitly win.
 */
export class JobRegistry extends Map<string, JobHandler> {
  constructor(
    entries: Iterable<readonly [string, JobHandler]>,
    readonly settings: JobRunnerSettings = {},
    readonly recurring: readonly RecurringJob[] = [],
    /** Run when a runner of these handlers stops (open connections of a handler, say). */
    readonly closers: readonly (() => void)[] = [],
  ) {
    super(entries);
  }
}

/**
 * Makes sure the next run of a recurring job is queued. The run's dedupe key names its time slot, so
 * any number of runners, starting or finishing a run at once, queue it once.
 */
export async function scheduleNextRun(database: Database, job: RecurringJob, now = Date.now()): Promise<void> {
  const slot = Math.floor(now / job.everyMs) + 1;
  await insertJob(database.db, { kind: job.kind, payload: {}, runAt: new Date(slot * job.everyMs), dedupeKey: `${job.kind}@${slot * job.everyMs}` });
}

/**
 * Thrown by a handler to fail this attempt with a retry delay of its own choosing (e.g. a receiver's
 * Retry-After) instead of the runner's backoff. The job still fails for good after its last attempt.
 */
export class JobRetry extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
    this.name = 'JobRetry';
  }
}

export interface JobRunnerOptions {
  database: Database;
  handlers: ReadonlyMap<string, JobHandler>;
  /** Jobs run at once by this runner. */
  concurrency?: number;
  /** Fallback poll for due jobs (retries, scheduled jobs) when no NOTIFY arrives. */
  pollMs?: number;
  /** A job not finished within its lease is handed to another worker. */
  leaseMs?: number;
  /** First retry delay (see retryDelayMs). */
  retryBaseMs?: number;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

export const DEFAULT_RETRY_BASE_MS = 10_000;
const MAX_RETRY_DELAY_MS = 3_600_000;
/** Longest a finished job waits to be marked done when no claim comes sooner. */
const DONE_FLUSH_MS = 20;
/** Tries of the last flush when a runner stops (20, 40, 80, 160 ms apart). */
const FINAL_FLUSH_ATTEMPTS = 5;

/** Exponential backoff after the `attempts`-th failure: 10 s, 20 s, 40 s, ... (base 10 s) capped at one hour. */
export function retryDelayMs(attempts: number, baseMs = DEFAULT_RETRY_BASE_MS): number {
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.min(40, Math.max(0, attempts - 1)));
}

/** The fewest attempts whose backoff delays add up to at least `spanMs` (with the default base: 24 h -> 33). */
export function attemptsSpanning(spanMs: number, baseMs = DEFAULT_RETRY_BASE_MS): number {
  let attempts = 1;
  for (let waited = 0; waited < spanMs; attempts += 1) waited += retryDelayMs(attempts, baseMs);
  return attempts;
}

export interface JobRunner {
  /** Stops claiming, waits for running jobs to finish. */
  stop(): Promise<void>;
  /** Runs one claim round now (tests and benchmarks). */
  drain(): Promise<void>;
}

export async function startJobRunner(options: JobRunnerOptions): Promise<JobRunner> {
  const { database, handlers, log } = options;
  const settings = handlers instanceof JobRegistry ? handlers.settings : {};
  const concurrency = options.concurrency ?? settings.concurrency ?? 4;
  const leaseMs = options.leaseMs ?? settings.leaseMs ?? 60_000;
  const retryBaseMs = options.retryBaseMs ?? settings.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
  const recurring = new Map((handlers instanceof JobRegistry ? handlers.recurring : []).map((job) => [job.kind, job]));
  const scheduleNext = (job: RecurringJob) =>
    scheduleNextRun(database, job).catch((error: unknown) => log.error({ err: error, kind: job.kind }, 'could not schedule the next run of a recurring job'));
  const pollMs = options.pollMs ?? 1000;
  const workerId = randomUUID();
  const running = new Set<Promise<void>>();
  let stopped = false;
  let claiming: Promise<void> | null = null;
  let again = false;
  // The last claim found fewer due jobs than it could take: until a NOTIFY, the poll or a retry's timer
  // says otherwise, a finished job does not claim again (an empty queue would answer every one).
  let drained = false;

  // Finished jobs are marked done in batches: by the next claim's statement, or after DONE_FLUSH_MS. Until
  // then they stay leased to this worker; if it dies first they run again, as after any crash between a
  // handler and its bookkeeping (handlers are idempotent: at-least-once).
  let doneIds: number[] = [];
  let doneTimer: NodeJS.Timeout | null = null;
  const takeDone = () => {
    const ids = doneIds;
    doneIds = [];
    if (doneTimer) clearTimeout(doneTimer);
    doneTimer = null;
    return ids;
  };
  // A failed flush keeps its ids for the next claim or flush: a passing database error (a refused
  // connection) must not make finished jobs run again once their leases expire.
  const flushDone = async (): Promise<boolean> => {
    const ids = takeDone();
    if (ids.length === 0) return true;
    try {
      await markJobsDone(database.db, ids, workerId);
      return true;
    } catch (error) {
      doneIds.unshift(...ids);
      if (!stopped) doneTimer ??= setTimeout(() => void flushDone(), DONE_FLUSH_MS * 10);
      log.error({ err: error, jobIds: ids }, 'could not mark jobs done; retrying (if it never succeeds, their leases expire and they run again)');
      return false;
    }
  };

  const runJob = async (job: JobRow) => {
    const handler = handlers.get(job.kind);
    // Queued before the run, so that a run failing or crashing does not end the series.
    const series = recurring.get(job.kind);
    if (series) await scheduleNext(series);
    try {
      if (!handler) throw new Error(`no handler for job kind "${job.kind}"`);
      await handler(job.payload, { id: job.id, attempts: job.attempts, maxAttempts: job.maxAttempts });
      doneIds.push(job.id);
      doneTimer ??= setTimeout(() => void flushDone(), DONE_FLUSH_MS);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const delay = error instanceof JobRetry ? Math.max(0, error.retryAfterMs) : retryDelayMs(job.attempts, retryBaseMs);
      const retryAt = job.attempts < job.maxAttempts ? new Date(Date.now() + delay) : null;
      const recorded = await markJobFailed(database.db, job.id, workerId, message.slice(0, 2000), retryAt).then(
        () => true,
        (e: unknown) => (log.error({ err: e, jobId: job.id }, 'could not record job failure; its lease will expire'), false),
      );
      if (!retryAt) {
        log.warn({ jobId: job.id, kind: job.kind, attempt: job.attempts, error: message }, 'job failed permanently');
        return;
      }
      log.warn({ jobId: job.id, kind: job.kind, attempt: job.attempts, maxAttempts: job.maxAttempts, error: message, retryAt: retryAt.toISOString() }, 'job attempt failed; it will be retried');
      // A retry due before the next poll: look again when it is due (nothing NOTIFYs a retry).
      if (recorded && delay < pollMs) setTimeout(signal, delay + 5).unref();
    }
  };

  const claimRound = async () => {
    while (!stopped && running.size < concurrency) {
      const done = takeDone();
      const batch = await claimDueJobs(database.db, workerId, concurrency - running.size, leaseMs, done).catch((error: unknown) => {
        doneIds.unshift(...done);
        doneTimer ??= setTimeout(() => void flushDone(), DONE_FLUSH_MS);
        throw error;
      });
      drained = batch.length < concurrency - running.size;
      if (batch.length === 0) return;
      for (const job of batch) {
        const task = runJob(job).finally(() => {
          running.delete(task);
          // Refill once half the slots are free: one claim for several jobs instead of one per job. New
          // jobs (NOTIFY) and the poll still claim at once into any free slot.
          if (running.size <= concurrency / 2 && !drained) wake();
        });
        running.add(task);
      }
    }
  };

  const wake = () => {
    if (stopped) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = (async () => {
      do {
        again = false;
        try {
          await claimRound();
        } catch (error) {
          log.error({ err: error }, 'claiming jobs failed');
        }
      } while (again && !stopped);
    })().finally(() => {
      claiming = null;
    });
  };

  /** Something may have become due (a NOTIFY, the poll, a retry's time): claim. */
  const signal = () => {
    drained = false;
    wake();
  };

  const unlisten = await database.listen(JOBS_CHANNEL, signal, signal).catch((error: unknown) => {
    log.warn({ err: error }, 'cannot listen for new jobs; polling only');
    return null;
  });
  const timer = setInterval(signal, pollMs);
  timer.unref();
  for (const job of recurring.values()) await scheduleNext(job);
  wake();

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await unlisten?.();
      await claiming;
      await Promise.allSettled([...running]);
      for (let attempt = 0; attempt < FINAL_FLUSH_ATTEMPTS && !(await flushDone()); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, DONE_FLUSH_MS * 2 ** attempt));
      }
      takeDone();
      if (handlers instanceof JobRegistry) for (const close of handlers.closers) close();
    },
    async drain() {
      signal();
      while (claiming || running.size > 0) await Promise.race([claiming, ...running].filter(Boolean));
      await flushDone();
    },
  };
}
