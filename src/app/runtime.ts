import { bookingEventListener } from './booking-event-listener.js';
import type { FastifyBaseLogger } from 'fastify';
import { openDatabase, type Database } from '../db/client.js';
import { migrateDatabase } from '../db/migrate.js';
import { createHttpMetrics } from '../http/metrics.js';
import { createMemoryRateLimitStore, createRedisRateLimitStore } from '../http/rate-limit.js';
import { bootstrapSystemAdmin, type BootstrapResult } from '../modules/admin/bootstrap.js';
import { ChangeFeed } from '../db/change-feed.js';
import { lazySecretBox } from '../lib/secrets.js';
import { CredentialCache } from '../modules/auth/credential-cache.js';
import { TenancyCache } from '../modules/access/tenancy-cache.js';
import { AvailabilityCache } from '../modules/slots/availability-cache.js';
import { calendarReaders } from '../modules/calendars/calendar-oauth.js';
import { liveReadThrottle, refreshBeforeBooking } from '../modules/calendars/calendar-sync.js';
import { jobHandlers } from '../jobs/handlers.js';
import { type JobRunner, startJobRunner } from '../jobs/runner.js';
import type { App } from '../http/app.js';
import { buildApp, type BuildOptions } from './build-app.js';
import type { Config } from './config.js';
import { assertStoreKey } from './store-key.js';
import type { AppContext } from './context.js';

export interface Runtime {
  app: App;
  jobs: JobRunner | null;
  ctx: AppContext;
  bootstrap: BootstrapResult;
  /** Stops accepting requests, lets in-flight ones finish, then closes every connection and the store. */
  close(): Promise<void>;
}

export interface RuntimeOptions extends BuildOptions {
  /** Run background jobs in this process too (default true; `svc serve --no-worker` turns it off). */
  worker?: boolean;
  /** An already-open database (tests hand in a per-file clone). */
  database?: Database;
  /** The svc command running (named to a second process opening the same embedded store). */
  command?: string;
  processMetrics?: boolean;
  /** Current time in epoch ms (default `Date.now`). */
  clock?: () => number;
}

function clockOf(config: Config): () => number {
  const fixed = config.fixedNow;
  return fixed === undefined ? Date.now : () => fixed;
}

export async function startRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  let bootstrap: BootstrapResult = { created: false };
  const secrets = lazySecretBox(config.encryptionKey, config.dataDir);
  const opening = (async () => {
    const database = options.database ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize, command: options.command ?? 'serve' }));
    try {
      await migrateDatabase(database, async (tx) => {
        bootstrap = await bootstrapSystemAdmin(tx, config);
        await assertStoreKey(tx, secrets);
      });
    } catch (error) {
      await database.close();
      throw error;
    }
    return database;
  })();
  const credentials = new CredentialCache(config.authCacheTtlMs);
  const availability = new AvailabilityCache();
  const tenancy = new TenancyCache();
  const changes = new ChangeFeed();
  changes.subscribe(credentials);
  changes.subscribe(availability);
  changes.subscribe(tenancy);
  const rateLimitStore = config.redisUrl ? createRedisRateLimitStore(config.redisUrl) : createMemoryRateLimitStore();
  const liveReads = liveReadThrottle(config.calendars.liveCheckIntervalMs);
  const ctx: AppContext = {
    config,
    // Filled in below: the app is built while the store opens (saves ~0.3 s of cold start), and no
    // request can reach a handler before `listen`, which happens after both are done.
    database: undefined as unknown as Database,
    credentials,
    availability,
    tenancy,
    changes,
    rateLimitStore,
    metrics: createHttpMetrics({ processMetrics: options.processMetrics ?? false }),
    clock: options.clock ?? clockOf(config),
    bookingEvents: bookingEventListener,
    refreshCalendarsBeforeBooking: async (userIds) => {
      const deps = { database: ctx.database, secrets, config, readers: calendarReaders(config), clock: ctx.clock, changes };
      await refreshBeforeBooking(deps, userIds, { timeoutMs: config.calendars.liveCheckMs, mayRead: liveReads });
    },
    secrets,
    lifecycle: { draining: false },
  };
  let app: App;
  try {
    [app, ctx.database] = await Promise.all([buildApp(ctx, options).then(async (built) => (await built.ready(), built)), opening]);
  } catch (error) {
    await rateLimitStore.close();
    await opening.then((database) => database.close(), () => {});
    throw error;
  }
  await changes.start(ctx.database, app.log as FastifyBaseLogger);
  const jobs: JobRunner | null =
    options.worker === false ? null : await startJobRunner({ database: ctx.database, handlers: jobHandlers({ ...ctx, log: app.log }), log: app.log });
  let closing: Promise<void> | undefined;
  return {
    app,
    jobs,
    ctx,
    bootstrap,
    close() {
      closing ??= (async () => {
        ctx.lifecycle.draining = true;
        await app.close();
        await jobs?.stop();
        await changes.stop();
        await rateLimitStore.close();
        await ctx.database.close();
      })();
      return closing;
    },
  };
}
