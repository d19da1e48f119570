import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { usePreparedStatements } from '../../src/db/pglite-statements.js';
import { backend } from '../support/test-app.js';

const preparedCount = async (client: PGlite) =>
  (await client.query<{ n: number }>(`select count(*)::int as n from pg_prepared_statements where name like 'svc\\_%'`)).rows[0]!.n;

describe('PGlite statements run prepared', { skip: backend === 'postgres' && 'the embedded store only' }, () => {
  let client: PGlite;
  before(async () => {
    client = await PGlite.create();
    usePreparedStatements(client);
    await client.exec(`create table items (id serial primary key, name text unique not null, at timestamptz, data jsonb, done boolean, tags text[])`);
  });
  after(() => client?.close());

  test('a statement with parameters is prepared once and its rows come back as from an unprepared run', async () => {
    const at = new Date(Date.UTC(2026, 2, 29, 1, 30));
    const inserted = await client.query<{ id: number }>('insert into items (name, at, data, done, tags) values ($1, $2, $3, $4, $5) returning id', ['first', at, { a: [1, 'x'] }, true, ['p', 'q']]);
    assert.equal(inserted.rows.length, 1);
    assert.equal(inserted.affectedRows, 1);
    const select = 'select id, name, at, data, done, tags, null::int as nothing from items where name = $1';
    const before = await preparedCount(client);
    const one = await client.query(select, ['first']);
    const two = await client.query(select, ['first']);
    assert.equal(await preparedCount(client), before + 1, 'the select is prepared once');
    assert.deepEqual(one.rows, [{ id: inserted.rows[0]!.id, name: 'first', at, data: { a: [1, 'x'] }, done: true, tags: ['p', 'q'], nothing: null }]);
    assert.deepEqual(two.rows, one.rows);
    assert.deepEqual(
      one.fields.map((field) => field.name),
      ['id', 'name', 'at', 'data', 'done', 'tags', 'nothing'],
    );
    const arrays = await client.query(select, ['first'], { rowMode: 'array' });
    assert.deepEqual(arrays.rows[0], Object.values(one.rows[0]!));
  });

  test('drizzle reads through it: parameters typed by the statement, Dates, numbers', async () => {
    const db = drizzle(client);
    const result = await db.execute(sql`select ${41}::int + 1 as answer, ${new Date(Date.UTC(2030, 0, 1))}::timestamptz as at, ${'x'} as text`);
    assert.deepEqual(result.rows, [{ answer: 42, at: '2030-01-01 00:00:00+00', text: 'x' }]);
  });

  test('errors keep their SQLSTATE; a failed transaction rolls back and the statements stay prepared', async () => {
    const insert = 'insert into items (name) values ($1)';
    await client.query(insert, ['second']);
    await assert.rejects(client.query(insert, ['second']), (error: { code?: string }) => error.code === '23505');
    await assert.rejects(
      client.transaction(async (tx) => {
        await tx.query(insert, ['third']);
        await tx.query(insert, ['second']);
      }),
      (error: { code?: string }) => error.code === '23505',
    );
    const names = await client.query<{ name: string }>('select name from items where name <> $1 order by name', ['']);
    assert.deepEqual(names.rows.map((row) => row.name), ['first', 'second'], 'third rolled back');
    await client.transaction(async (tx) => {
      await tx.query(insert, ['fourth']);
    });
    assert.equal((await client.query<{ n: number }>('select count(*)::int as n from items where name = $1', ['fourth'])).rows[0]!.n, 1);
  });

  test('a query made while a transaction is open waits for it, as an unprepared one does', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = client.transaction(async (tx) => {
      await tx.query('insert into items (name) values ($1)', ['fifth']);
      await held;
      order.push('commit');
    });
    const outside = client.query<{ n: number }>('select count(*)::int as n from items where name = $1', ['fifth']).then((result) => {
      order.push('outside');
      return result.rows[0]!.n;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await transaction;
    assert.equal(await outside, 1, 'the outside read ran after the commit');
    assert.deepEqual(order, ['commit', 'outside']);
  });
});
