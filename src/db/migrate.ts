import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { Database, Db } from './client.js';
import { migrationsFolder } from './pglite-snapshot.js';

// Any constant works; it only has to be the same in every svc process sharing one database.
const MIGRATION_LOCK_KEY = 7_200_2024;

export function expectedMigrationCount(): number {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

/**
 * Applies pending migrations, then runs `afterMigrate` (bootstrap) in a transaction, all under one
 * session-level lock: processes starting together neither migrate twice nor create two admins.
 */
export async function migrateDatabase(database: Database, afterMigrate?: (tx: Db) => Promise<void>): Promise<void> {
  const config = { migrationsFolder: migrationsFolder() };
  await database.withExclusiveSession(MIGRATION_LOCK_KEY, async (session) => {
    // The migrator runs its own transaction, which is why the lock is held by the session, not a transaction.
    if (database.kind === 'pglite') await migratePglite(session as never, config);
    else await migrateNodePg(session as never, config);
    if (afterMigrate) await session.transaction(afterMigrate);
  });
}

export async function appliedMigrationCount(db: Db): Promise<number> {
  const result = await db.execute<{ count: number }>(
    sql`select count(*)::int as count from drizzle.__drizzle_migrations`,
  );
  return Number((result as unknown as { rows: { count: number }[] }).rows[0]?.count ?? 0);
}
