import pino from 'pino';
import type { Config } from '../app/config.js';
import { assertStoreKey } from '../app/store-key.js';
import { lazySecretBox } from '../lib/secrets.js';
import { openDatabase } from '../db/client.js';
import { migrateDatabase } from '../db/migrate.js';
import { jobHandlers } from './handlers.js';
import { startJobRunner } from './runner.js';

/** `svc worker`: background jobs only, no HTTP. Run any number of them against one PostgreSQL. */
export async function runWorker(config: Config): Promise<void> {
  const log = pino({ level: config.logLevel });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize, command: 'worker' });
  const secrets = lazySecretBox(config.encryptionKey, config.dataDir);
  await migrateDatabase(database, (tx) => assertStoreKey(tx, secrets));
  const runner = await startJobRunner({ database, handlers: jobHandlers({ config, database, secrets, log }), log });
  log.info({ store: database.kind }, 'svc worker is running');

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'worker shutting down: finishing running jobs');
    const timer = setTimeout(() => process.exit(1), config.shutdownTimeoutMs);
    timer.unref();
    runner
      .stop()
      .then(() => database.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, 'worker shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
