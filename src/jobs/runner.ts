import { randomUUID } from 'node:crypto';
import type { Database } from '../db/client.js';
import { claimDueJobs, JOBS_CHANNEL, type JobRow, markJobDone, markJobFailed } from './jobs.repository.js';

export type JobHandler = (payload: any, job: Pick<JobRow, 'id' | 'attempts'>) => Promise<void>;

export interface JobRunnerOptions {
  database: Database;
  handlers: ReadonlyMap<string, JobHandler>;
  /** Jobs run at once by this runner. */
  concurrency?: number;
  /** Fallback poll for due jobs (retries, scheduled jobs) when no NOTIFY arrives. */
  pollMs?: number;
  /** A job not finished within its lease is handed to another worker. */
  leaseMs?: number;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** Exponential backoff: 10 s, 20 s, 40 s, ... capped at one hour between attempts. */
export function retryDelayMs(attempts: number): number {
  return Math.min(3_600_000, 10_000 * 2 ** Math.max(0, attempts - 1));
}

export interface JobRunner {
  /** Stops claiming, waits for running jobs to finish. */
  stop(): Promise<void>;
  /** Runs one claim round now (tests and benchmarks). */
  drain(): Promise<void>;
}

export async function startJobRunner(options: JobRunnerOptions): Promise<JobRunner> {
  const { database, handlers, log } = options;
  const concurrency = options.concurrency ?? 4;
  const leaseMs = options.leaseMs ?? 60_000;
  const workerId = randomUUID();
  const running = new Set<Promise<void>>();
  let stopped = false;
  let claiming: Promise<void> | null = null;
  let again = false;

  const runJob = async (job: JobRow) => {
    const handler = handlers.get(job.kind);
    try {
      if (!handler) throw new Error(`no handler for job kind "${job.kind}"`);
      await handler(job.payload, { id: job.id, attempts: job.attempts });
      await markJobDone(database.db, job.id, workerId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const retryAt = job.attempts < job.maxAttempts ? new Date(Date.now() + retryDelayMs(job.attempts)) : null;
      await markJobFailed(database.db, job.id, workerId, message.slice(0, 2000), retryAt).catch((e: unknown) =>
        log.error({ err: e, jobId: job.id }, 'could not record job failure; its lease will expire'),
      );
      if (!retryAt) log.warn({ jobId: job.id, kind: job.kind, error: message }, 'job failed permanently');
    }
  };

  const claimRound = async () => {
    while (!stopped && running.size < concurrency) {
      const batch = await claimDueJobs(database.db, workerId, concurrency - running.size, leaseMs);
      if (batch.length === 0) return;
      for (const job of batch) {
        const task = runJob(job).finally(() => {
          running.delete(task);
          wake();
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

  const unlisten = await database.listen(JOBS_CHANNEL, wake, wake).catch((error: unknown) => {
    log.warn({ err: error }, 'cannot listen for new jobs; polling only');
    return null;
  });
  const timer = setInterval(wake, options.pollMs ?? 1000);
  timer.unref();
  wake();

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await unlisten?.();
      await claiming;
      await Promise.allSettled([...running]);
    },
    async drain() {
      wake();
      while (claiming || running.size > 0) await Promise.race([claiming, ...running].filter(Boolean));
    },
  };
}
