import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { type Database, openDatabase } from '../../src/db/client.js';
import { tryLockFirstHostTime } from '../../src/db/locks.js';
import { MAX_NAMED_STATEMENTS } from '../../src/db/named-statements.js';
import { holdHostLocks } from '../support/host-locks.js';
import { createTestDatabase } from '../support/postgres.js';
import { backend } from '../support/test-app.js';

describe('PostgreSQL sessions', { skip: backend !== 'postgres' && 'needs PostgreSQL: PGlite is one session' }, () => {
  let database: Database;
  let other: Database;
  let third: Database;
  let drop: () => Promise<void>;
  before(async () => {
    const created = await createTestDatabase({ empty: true });
    drop = created.drop;
    database = await openDatabase({ databaseUrl: created.url, poolSize: 1 });
    other = await openDatabase({ databaseUrl: created.url, poolSize: 1 });
    third = await openDatabase({ databaseUrl: created.url, poolSize: 1 });
  });
  after(async () => {
    await database?.close();
    await other?.close();
    await third?.close();
    await drop?.();
  });

  test('tryLockFirstHostTime takes the first host in the given order that nobody holds, and only that one', async () => {
    const release = await holdHostLocks(other, [5, 7]);
    try {
      await database.transaction(async (tx) => {
        assert.equal(await tryLockFirstHostTime(tx, [7, 5, 9, 3]), 9);
        // 3 was never tried: it is still free for another session.
        const free = await third.db.execute(sql`select pg_try_advisory_lock(${0x5376_0001}, 3) as locked`);
        assert.equal((free as unknown as { rows: { locked: boolean }[] }).rows[0]!.locked, true);
        await third.db.execute(sql`select pg_advisory_unlock(${0x5376_0001}, 3)`);
        assert.equal(await tryLockFirstHostTime(tx, [5, 7]), null);
      });
    } finally {
      await release();
    }
  });

  test('a statement with parameters is prepared once per connection under a name of its text', async () => {
    const names = async () =>
      ((await database.db.execute(sql`select name, statement from pg_prepared_statements where statement like '%svc-named-probe%' and name <> ''`)) as unknown as { rows: { name: string }[] }).rows;
    for (const value of [1, 2, 3]) await database.db.execute(sql`select ${value}::int as n /* svc-named-probe */`);
    const prepared = await names();
    assert.equal(prepared.length, 1, JSON.stringify(prepared));
    assert.match(prepared[0]!.name, /^svc_/);
    // A rolled-back transaction leaves it usable.
    await assert.rejects(
      database.transaction(async (tx) => {
        await tx.execute(sql`select ${4}::int as n /* svc-named-probe */`);
        throw new Error('roll back');
      }),
    );
    const again = (await database.db.execute(sql`select ${5}::int as n /* svc-named-probe */`)) as unknown as { rows: { n: number }[] };
    assert.equal(again.rows[0]!.n, 5);
    assert.equal((await names()).length, 1);
  });

  test('past the limit a connection runs new statements unnamed', async () => {
    const prepared = async () => ((await database.db.execute(sql`select count(*)::int as n from pg_prepared_statements where name like 'svc_%'`)) as unknown as { rows: { n: number }[] }).rows[0]!.n;
    for (let i = 0; i < MAX_NAMED_STATEMENTS + 20; i++) await database.db.execute(sql`select ${i}::int as ${sql.raw(`n${i}`)}`);
    assert.ok((await prepared()) <= MAX_NAMED_STATEMENTS + 1, `${await prepared()} prepared`);
  });
});
