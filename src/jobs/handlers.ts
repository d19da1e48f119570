import type { AppContext } from '../app/context.js';
import type { JobHandler } from './runner.js';

/**
 * Every job kind svc knows, by module. Modules that enqueue work (webhook deliveries, emails,
 * meeting start/end) add their handler here.
 */
export function jobHandlers(_ctx: Pick<AppContext, 'config' | 'database'>): Map<string, JobHandler> {
  return new Map();
}
