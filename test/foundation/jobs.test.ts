import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../src/db/client.js';
import { claimDueJobs, findJob, insertJob } from '../../src/jobs/jobs.repository.js';
import { type JobHandler, JobRegistry, startJobRunner } from '../../src/jobs/runner.js';
import { backend, openTestDatabase } from '../support/test-app.js';

const silent = { warn() {}, error() {} };
const errors: string[] = [];
const recording = { warn() {}, error: (_: object, message: string) => void errors.push(message) };

describe('durable job queue', () => {
  let database: Database;
  let url: string | undefined;
  let drop: () => Promise<void>;
  before(async () => {
    ({ database, url, drop } = await openTestDatabase());
  });
  after(async () => {
    await database.close();
    await drop();
  });

  async function run(handlers: Record<string, JobHandler>, db = database) {
    const runner = await startJobRunner({ database: db, handlers: new Map(Object.entries(handlers)), log: recording, pollMs: 50 });
    await runner.drain();
    await runner.stop();
  }

  test('a job enqueued in a committed transaction runs once with its payload', async () => {
    const seen: unknown[] = [];
    const id = await database.transaction((tx) => insertJob(tx, { kind: 'test.echo', payload: { n: 1 } }));
    await run({ 'test.echo': async (payload) => void seen.push(payload) });
    assert.deepEqual(seen, [{ n: 1 }]);
    assert.equal((await findJob(database.db, id!))?.status, 'done');
  });

  test('a rolled-back transaction enqueues nothing', async () => {
    await assert.rejects(
      database.transaction(async (tx) => {
        await insertJob(tx, { kind: 'test.rollback', payload: {} });
        throw new Error('abort');
      }),
    );
    const rows = await database.db.execute(sql`select count(*)::int as n from jobs where kind = 'test.rollback'`);
    assert.equal((rows as unknown as { rows: { n: number }[] }).rows[0]!.n, 0);
  });

  test('a failing job is retried later with backoff, then succeeds', async () => {
    let calls = 0;
    const id = (await insertJob(database.db, { kind: 'test.flaky', payload: {} }))!;
    const flaky: JobHandler = async () => {
      calls += 1;
      if (calls === 1) throw new Error('receiver down');
    };
    await run({ 'test.flaky': flaky });
    let job = (await findJob(database.db, id))!;
    assert.equal(job.status, 'pending');
    assert.equal(job.attempts, 1);
    assert.equal(job.lastError, 'receiver down');
    assert.ok(job.runAt.getTime() > Date.now() + 5_000, 'next attempt is backed off');
    await database.db.execute(sql`update jobs set run_at = now() where id = ${id}`);
    await run({ 'test.flaky': flaky });
    job = (await findJob(database.db, id))!;
    assert.equal(job.status, 'done');
    assert.equal(job.attempts, 2);
    assert.equal(calls, 2);
  });

  test('after max attempts a job is marked failed; an unknown kind fails rather than vanishing', async () => {
    const id = (await insertJob(database.db, { kind: 'test.nobody-handles-this', payload: {}, maxAttempts: 1 }))!;
    await run({});
    const job = (await findJob(database.db, id))!;
    assert.equal(job.status, 'failed');
    assert.match(job.lastError ?? '', /no handler/);
  });

  test('a dedupe key makes a second enqueue a no-op', async () => {
    const first = await insertJob(database.db, { kind: 'test.dedupe', payload: {}, dedupeKey: 'meeting-start:abc' });
    const second = await insertJob(database.db, { kind: 'test.dedupe', payload: {}, dedupeKey: 'meeting-start:abc' });
    assert.ok(first);
    assert.equal(second, undefined);
  });

  test('a job whose worker died (lease expired) is picked up by another worker', async () => {
    const id = (await insertJob(database.db, { kind: 'test.lease', payload: {} }))!;
    const claimed = await claimDueJobs(database.db, 'dead-worker', 10, 1);
    assert.ok(claimed.some((job) => job.id === id));
    await new Promise((resolve) => setTimeout(resolve, 20));
    let ran = 0;
    await run({ 'test.lease': async () => void ran++ });
    assert.equal(ran, 1);
    assert.equal((await findJob(database.db, id))?.status, 'done', `runner errors: ${JSON.stringify(errors)}`);
  });

  test('a job finished while the database refuses to mark it done is marked done later, not run again', async () => {
    // The first two statements that mark a job done fail, as they would while the server refuses
    // connections: a sequence is not rolled back with the failing statement, so it counts them.
    await database.db.execute(sql`create sequence refuse_done_marks`);
    await database.db.execute(sql`create function refuse_done_mark() returns trigger language plpgsql as $$
      begin
        if new.status = 'done' and nextval('refuse_done_marks') <= 2 then raise exception 'refused for the test'; end if;
        return new;
      end $$`);
    await database.db.execute(sql`create trigger refuse_done_mark before update on jobs for each row execute function refuse_done_mark()`);
    try {
      const id = (await insertJob(database.db, { kind: 'test.refused-done', payload: {} }))!;
      let ran = 0;
      errors.length = 0;
      await run({ 'test.refused-done': async () => void ran++ });
      assert.equal(ran, 1);
      assert.equal(Number((await database.db.execute(sql`select nextval('refuse_done_marks') as n`) as unknown as { rows: { n: string }[] }).rows[0]!.n) > 2, true, 'both refusals happened');
      assert.ok(errors.length >= 1, 'the refusal was logged');
      assert.equal((await findJob(database.db, id))?.status, 'done');
    } finally {
      await database.db.execute(sql`drop trigger refuse_done_mark on jobs`);
      await database.db.execute(sql`drop function refuse_done_mark()`);
      await database.db.execute(sql`drop sequence refuse_done_marks`);
    }
  });

  test('two workers on separate connections never run one job twice', { skip: backend !== 'postgres' && 'needs PostgreSQL: PGlite is one session' }, async () => {
    const other = await openDatabase({ databaseUrl: url!, poolSize: 4 });
    try {
      const total = 200;
      await database.transaction(async (tx) => {
        for (let i = 0; i < total; i++) await insertJob(tx, { kind: 'test.race', payload: { i } });
      });
      const runs = new Map<number, number>();
      const handler: JobHandler = async (payload: { i: number }) => {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
        runs.set(payload.i, (runs.get(payload.i) ?? 0) + 1);
      };
      const handlers = new Map([['test.race', handler]]);
      const a = await startJobRunner({ database, handlers, log: silent, concurrency: 8, pollMs: 20 });
      const b = await startJobRunner({ database: other, handlers, log: silent, concurrency: 8, pollMs: 20 });
      const started = Date.now();
      while (runs.size < total && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 20));
      await Promise.all([a.stop(), b.stop()]);
      assert.equal(runs.size, total);
      assert.deepEqual([...runs.values()].filter((count) => count !== 1), []);
    } finally {
      await other.close();
    }
  });

  test('a recurring job is queued once per slot by every runner that starts, and its next run is queued when it runs', async () => {
    const everyMs = 400;
    const kind = `test.recurring.${backend}`;
    const runs: number[] = [];
    const handlers = new JobRegistry([[kind, async () => void runs.push(Date.now())]], {}, [{ kind, everyMs }]);
    const pending = async () => {
      const result = await database.db.execute(sql`select run_at from jobs where kind = ${kind} and status = 'pending'`);
      return (result as unknown as { rows: { run_at: string | Date }[] }).rows.map((row) => new Date(row.run_at).getTime());
    };
    // Two runners starting together queue one run, at the next multiple of everyMs. They start just
    // after a slot boundary, so that the checks below are done before that run begins.
    await new Promise((resolve) => setTimeout(resolve, everyMs - (Date.now() % everyMs) + 10));
    const started = Date.now();
    const [a, b] = await Promise.all([0, 1].map(() => startJobRunner({ database, handlers, log: silent, pollMs: 20 })));
    const queued = await pending();
    assert.equal(queued.length, 1);
    const first = queued[0];
    assert.equal(first! % everyMs, 0);
    assert.ok(first! > started && first! <= Date.now() + everyMs, 'the next slot');
    const deadline = Date.now() + 10_000;
    while (runs.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all([a!.stop(), b!.stop()]);
    assert.equal(runs.length >= 2, true, `ran ${runs.length} times`);
    assert.ok(runs[0]! >= first!, 'not before its slot');
    const next = await pending();
    assert.equal(next.length, 1, 'exactly one next run is queued');
    assert.ok(next[0]! > runs.at(-1)! - everyMs && next[0]! % everyMs === 0);
  });
});
