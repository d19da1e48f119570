import { issueSystemAdminKey } from '../modules/admin/bootstrap.js';
import { listenForAdminKeyRequests } from './admin-socket.js';
import type { Config } from './config.js';
import { warmUpEngine } from '../scheduling/warm-up.js';
import { startRuntime } from './runtime.js';

/** `svc serve`: the HTTP API on PORT until SIGTERM/SIGINT, then a graceful shutdown. */
export async function serve(config: Config, options: { worker: boolean } = { worker: true }): Promise<void> {
  const startedAt = performance.now();
  const runtime = await startRuntime(config, { processMetrics: true, worker: options.worker, command: 'serve' });
  const { app, bootstrap } = runtime;
  if (bootstrap.created) {
    app.log.info({ email: config.adminEmail }, 'created the system admin user');
    if (bootstrap.generatedApiKey) {
      // Printed once: only the key's hash is stored.
      app.log.warn({ apiKey: bootstrap.generatedApiKey }, 'system admin API key (shown only now; set SVC_ADMIN_API_KEY to choose it)');
    }
  }
  if (bootstrap.presetKeyIgnored) {
    app.log.warn('SVC_ADMIN_API_KEY is ignored: it is only used when the store is created, and this store was created with another key. To issue a new admin key, run `svc admin-key` (with SVC_ADMIN_API_KEY set, that key is the one issued).');
  }
  if (config.fixedNow !== undefined) app.log.warn({ now: new Date(config.fixedNow).toISOString() }, 'SVC_NOW is set: the clock stands still at this instant');
  const warmUpStart = performance.now();
  warmUpEngine();
  const engineWarmUpMs = Math.round(performance.now() - warmUpStart);
  await app.listen({ port: config.port, host: config.host });
  const { database } = runtime.ctx;
  const closeAdminSocket =
    database.kind === 'pglite'
      ? await listenForAdminKeyRequests(config.dataDir, () => database.transaction((tx) => issueSystemAdminKey(tx, config.adminApiKey)), (error) => app.log.error({ err: error }, 'svc admin-key: could not issue a key'))
      : null;
  app.log.info({ store: runtime.ctx.database.kind, startupMs: Math.round(performance.now() - startedAt), engineWarmUpMs }, 'svc is ready');

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      app.log.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    Promise.resolve(closeAdminSocket?.())
      .then(() => runtime.close())
      .then(
        () => {
          app.log.info('shutdown complete');
          process.exit(0);
        },
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
