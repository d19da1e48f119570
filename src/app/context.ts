import type { ChangeFeed } from '../db/change-feed.js';
import type { Database } from '../db/client.js';
import type { HttpMetrics } from '../http/metrics.js';
import type { RateLimitStore } from '../http/rate-limit.js';
import type { CredentialCache } from '../modules/auth/credential-cache.js';
import type { SecretBox } from '../lib/secrets.js';
import type { TenancyCache } from '../modules/access/tenancy-cache.js';
import type { BookingEventListener } from '../modules/bookings/booking-events.js';
import type { AvailabilityCache } from '../modules/slots/availability-cache.js';
import type { Config } from './config.js';

/** What route modules may use: built once per process (or per test app) and passed explicitly. */
export interface AppContext {
  config: Config;
  database: Database;
  credentials: CredentialCache;
  /** Availability inputs of the slot listing, dropped per user on every change. */
  availability: AvailabilityCache;
  /** Organization and team reads (access decisions, member lists), dropped on every tenancy change. */
  tenancy: TenancyCache;
  /** Announces committed changes to every process and applies them to this one's caches. */
  changes: ChangeFeed;
  rateLimitStore: RateLimitStore;
  metrics: HttpMetrics;
  /** Who hears of booking events besides their mail: the webhook subscriptions, the calendar writes. */
  bookingEvents: BookingEventListener;
  /** Reads these hosts' connected calendars live before a booking of theirs is written (bounded by SVC_CALENDAR_LIVE_CHECK_MS). */
  refreshCalendarsBeforeBooking(userIds: readonly number[]): Promise<void>;
  /** Seals and opens stored secrets (webhook secrets...). */
  secrets: SecretBox;
  /** Current time in epoch ms: `Date.now` except where a test moves time. */
  clock: () => number;
  /** Set when shutdown begins: readiness turns false so load balancers stop sending traffic. */
  lifecycle: { draining: boolean };
}
