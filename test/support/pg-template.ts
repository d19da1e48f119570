// Creates (or drops) the migrated template database that PostgreSQL test files clone.
import pg from 'pg';
import { openDatabase } from '../../src/db/client.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { databaseUrlFor } from './postgres.js';

const serverUrl = process.env.SVC_TEST_DATABASE_URL!;
const template = process.env.SVC_TEST_PG_TEMPLATE!;
const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 3000 });
try {
  await admin.connect();
} catch (error) {
  // One readable line for the runner (scripts/run-tests.mjs prints it), not a stack trace.
  const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  console.error(`cannot connect (${reason})`);
  process.exit(2);
}
try {
  await prepareTemplate();
} catch (error) {
  console.error(`cannot prepare the template database: ${(error as Error).message}`);
  process.exitCode = 2;
} finally {
  await admin.end();
}

async function prepareTemplate(): Promise<void> {
  if (process.env.SVC_PG_TEMPLATE_ACTION === 'drop') {
    await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
  } else {
    await admin.query(`CREATE DATABASE "${template}"`);
    const database = await openDatabase({ databaseUrl: databaseUrlFor(serverUrl, template), poolSize: 1 });
    await database.exec('CREATE EXTENSION IF NOT EXISTS btree_gist');
    await migrateDatabase(database);
    await database.close();
  }
}
