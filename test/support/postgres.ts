import { randomBytes } from 'node:crypto';
import pg from 'pg';

export function databaseUrlFor(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export const postgresServerUrl = () => process.env.SVC_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

async function withServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresServerUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new database of its own for one test file: a clone of the run's migrated template, or empty. */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `svc_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const template = process.env.SVC_TEST_PG_TEMPLATE;
  await withServer(async (client) => {
    if (options.empty || !template) {
      await client.query(`CREATE DATABASE "${name}"`);
    } else {
      await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
    }
  });
  return {
    url: databaseUrlFor(postgresServerUrl(), name),
    drop: () => withServer((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/** True when a PostgreSQL server answers (tests needing several processes or real locks use it). */
export async function postgresAvailable(): Promise<boolean> {
  try {
    await withServer(async () => undefined);
    return true;
  } catch {
    return false;
  }
}
