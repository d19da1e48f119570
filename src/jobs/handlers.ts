import type { AppContext } from '../app/context.js';
import { cleanUpExpiredKeys, IDEMPOTENCY_CLEANUP_JOB } from '../modules/idempotency/idempotency.service.js';
import type { JobHandler } from './runner.js';

/**
 * Every job kind svc knows, by module. Modules that enqueue work (webhook deliveries, emails,
 * meeting start/end) add their handler here.
 */
export function jobHandlers(ctx: Pick<AppContext, 'config' | 'database'>): Map<string, JobHandler> {
  return new Map<string, JobHandler>([[IDEMPOTENCY_CLEANUP_JOB, () => cleanUpExpiredKeys(ctx.database.db, new Date())]]);
}
