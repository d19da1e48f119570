import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from './app/config.js';
import { serve } from './app/server.js';
import { requestAdminKeyFromServer } from './app/admin-socket.js';
import { openDatabase } from './db/client.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import { nodeVersionWarning } from './app/node-version.js';
import { migrateDatabase } from './db/migrate.js';
import { bootstrapSystemAdmin, issueSystemAdminKey } from './modules/admin/bootstrap.js';

const USAGE = `usage: svc <command>

commands:
  serve     run the HTTP API (PORT, default 5555) and background jobs;
            --no-worker leaves the jobs to separate \`svc worker\` processes
  worker    run background jobs only
  migrate   apply database migrations and exit
  admin-key issue a new never-expiring API key for the system admin and print it (the way back
            from a lost key; with SVC_ADMIN_API_KEY set, that key is issued). On the embedded
            store, a running \`svc serve\` issues it (one process at a time opens a data dir)
  encryption-key
            print a new random key for SVC_ENCRYPTION_KEY`;

async function adminKeyCommand(): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl) {
    // While `svc serve` owns the embedded store, the running server issues the key.
    const fromServer = await requestAdminKeyFromServer(config.dataDir);
    if (fromServer !== null) {
      console.log(fromServer);
      return;
    }
  }
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize, command: 'admin-key' });
  try {
    await migrateDatabase(database, async (tx) => {
      console.log(await issueSystemAdminKey(tx, config.adminApiKey));
    });
  } finally {
    await database.close();
  }
}

async function migrateCommand(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize, command: 'migrate' });
  try {
    await migrateDatabase(database, async (tx) => {
      const result = await bootstrapSystemAdmin(tx, config);
      if (result.generatedApiKey) console.log(`system admin API key (shown only now): ${result.generatedApiKey}`);
    });
    console.log(`migrations applied (${database.kind})`);
  } finally {
    await database.close();
  }
}

/** One line for a port svc cannot listen on, naming the setting that changes it. */
function listenProblem(code: string, error: { port?: number; address?: string }): string {
  const where = `${error.address ?? process.env.HOST ?? '127.0.0.1'}:${error.port ?? process.env.PORT ?? 5555}`;
  if (code === 'EADDRINUSE') return `cannot listen on ${where}: another program (perhaps another svc) is using that port. Stop it, or choose another port with PORT (e.g. PORT=5556 npm start).`;
  if (code === 'EACCES') return `cannot listen on ${where}: ports below 1024 need privileges. Choose another port with PORT.`;
  return `cannot listen on ${where}: this machine has no such address. Set HOST to one of its addresses (127.0.0.1, or 0.0.0.0 for every interface).`;
}

async function main(argv: string[]): Promise<void> {
  const [command] = argv;
  const oldNode = nodeVersionWarning(process.versions.node);
  if (oldNode) console.error(oldNode);
  switch (command) {
    case 'serve':
      return serve(loadConfig(), { worker: !argv.includes('--no-worker') });
    case 'migrate':
      return migrateCommand();
    case 'admin-key':
      return adminKeyCommand();
    case 'encryption-key':
      console.log(randomBytes(32).toString('hex'));
      return;
    case 'worker': {
      const { runWorker } = await import('./jobs/worker.js');
      return runWorker(loadConfig());
    }
    default:
      console.error(USAGE);
      process.exitCode = command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (error instanceof ConfigError || error instanceof DataDirInUseError) console.error(`svc: ${error.message}`);
  else if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') console.error(`svc: ${listenProblem(code, error as NodeJS.ErrnoException & { port?: number; address?: string })}`);
  else console.error(error);
  process.exit(1);
});
