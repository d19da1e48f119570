import type { Database } from '../db/client.js';
import type { HttpMetrics } from '../http/metrics.js';
import type { RateLimitStore } from '../http/rate-limit.js';
import type { CredentialCache } from '../modules/auth/credential-cache.js';
import type { Config } from './config.js';

/** What route modules may use: built once per process (or per test app) and passed explicitly. */
export interface AppContext {
  config: Config;
  database: Database;
  credentials: CredentialCache;
  rateLimitStore: RateLimitStore;
  metrics: HttpMetrics;
  /** Current time in epoch ms: `Date.now` except where a test moves time. */
  clock: () => number;
  /** Set when shutdown begins: readiness turns false so load balancers stop sending traffic. */
  lifecycle: { draining: boolean };
}
