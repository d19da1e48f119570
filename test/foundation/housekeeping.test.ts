// The hourly housekeeping job: what outlived its retention goes, pending work and recent history stay.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { HOUSEKEEPING, runHousekeeping } from '../../src/jobs/housekeeping.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { insertWebhook } from '../webhooks/helpers.js';

const DAY = 86_400_000;

describe('housekeeping', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp({ SVC_JOB_RETENTION_DAYS: '7', SVC_WEBHOOK_DELIVERY_RETENTION_DAYS: '30' });
  });
  after(() => api.close());
  const db = () => api.runtime.ctx.database.db;
  const rows = async <T>(query: ReturnType<typeof sql>) => ((await db().execute(query)) as unknown as { rows: T[] }).rows;
  const ago = (now: number, days: number) => new Date(now - days * DAY).toISOString();

  test('a started server has its next housekeeping run queued', async () => {
    const queued = await rows<{ run_at: string | Date }>(sql`select run_at from jobs where kind = ${HOUSEKEEPING.kind} and status = 'pending'`);
    assert.equal(queued.length, 1);
    assert.equal(new Date(queued[0]!.run_at).getTime() % HOUSEKEEPING.everyMs, 0);
  });

  test('deletes ended deliveries (with their attempts), finished jobs, expired keys and login failures past retention, in batches; keeps the rest', async () => {
    const now = Date.now();
    const { user } = await api.createUser();
    const webhookId = await insertWebhook(db(), api.runtime.ctx.secrets, { userId: user.id, subscriberUrl: 'https://hooks.example.com/h', triggers: ['BOOKING_CREATED'] });
    const delivery = async (uid: string, status: string, createdDaysAgo: number) => {
      const [row] = await rows<{ id: number }>(sql`insert into webhook_deliveries (uid, webhook_id, trigger, body, content_type, status, created_at)
        values (${uid}, ${webhookId}, 'BOOKING_CREATED', '{}', 'application/json', ${status}, ${ago(now, createdDaysAgo)}::timestamptz) returning id`);
      await db().execute(sql`insert into webhook_delivery_attempts (delivery_id, attempted_at, status_code, duration_ms) values (${row!.id}, now(), 200, 5)`);
      return Number(row!.id);
    };
    const oldDelivered = await delivery('hk-old-delivered', 'delivered', 31);
    const oldFailed = await delivery('hk-old-failed', 'failed', 31);
    const oldPending = await delivery('hk-old-pending', 'pending', 31);
    const recent = await delivery('hk-recent', 'delivered', 29);

    const job = async (status: string, finishedDaysAgo: number | null, kind = 'test.housekeeping') => {
      const [row] = await rows<{ id: number }>(sql`insert into jobs (kind, payload, status, finished_at, created_at)
        values (${kind}, '{}', ${status}, ${finishedDaysAgo === null ? null : ago(now, finishedDaysAgo)}::timestamptz, ${ago(now, 40)}::timestamptz) returning id`);
      return Number(row!.id);
    };
    const oldDone = await job('done', 8);
    const oldFailedJob = await job('failed', 8);
    const recentDone = await job('done', 6);
    const oldPendingJob = await job('pending', null);
    // More than one delete batch (5000) of old finished jobs.
    await db().execute(sql`insert into jobs (kind, payload, status, finished_at) select 'test.housekeeping.bulk', '{}', 'done', ${ago(now, 9)}::timestamptz from generate_series(1, 5003)`);

    await db().execute(sql`insert into idempotency_keys (scope, key, fingerprint, response_status, response_body, expires_at) values
      ('hk', 'expired', 'f', 201, '{}', ${ago(now, 1)}::timestamptz), ('hk', 'live', 'f', 201, '{}', ${ago(now, -1)}::timestamptz)`);

    // Mail: an old sent and an old failed message go (with their attempts); an old pending one and a recent one stay.
    const message = async (status: string, createdAt: string) =>
      Number((await rows<{ id: number }>(sql`insert into mail_messages (uid, kind, recipient_email, recipient_role, recipient_time_zone, status, created_at)
        values (gen_random_uuid()::text, 'scheduled', 'hk@example.com', 'attendee', 'UTC', ${status}, ${createdAt}::timestamptz) returning id`))[0]!.id);
    const oldSent = await message('sent', ago(now, 31));
    await message('failed', ago(now, 31));
    const oldQueued = await message('pending', ago(now, 31));
    const newSent = await message('sent', ago(now, 1));
    await db().execute(sql`insert into mail_attempts (message_id, attempted_at, duration_ms) values (${oldSent}, now(), 1)`);

    // Web login failures count for a day at most: older ones go.
    await db().execute(sql`insert into login_failures (account_key, client_ip, failed_at) values
      ('hk-old', '192.0.2.1', ${new Date(now - DAY - 1000).toISOString()}::timestamptz), ('hk-recent', '192.0.2.1', ${new Date(now - DAY + 60_000).toISOString()}::timestamptz)`);
    // Mail budgets: a window that has ended goes, the current one stays.
    await db().execute(sql`insert into mail_budgets (key, window_ends_at, messages) values
      ('hk-ended', ${ago(now, 1 / 24)}::timestamptz, 3), ('hk-current', ${ago(now, -1 / 48)}::timestamptz, 4)`);

    // Text messages: as mail, an old sent or failed one goes; an old pending one and a recent one stay.
    const text = async (uid: string, status: string, createdAt: string) =>
      db().execute(sql`insert into text_messages (uid, channel, to_number, body, purpose, status, created_at) values (${uid}, 'sms', '+14155550100', 'x', 'workflow', ${status}, ${createdAt}::timestamptz)`);
    await text('hk-text-old-sent', 'sent', ago(now, 31));
    await text('hk-text-old-failed', 'failed', ago(now, 31));
    await text('hk-text-old-pending', 'pending', ago(now, 31));
    await text('hk-text-recent', 'sent', ago(now, 1));

    const result = await runHousekeeping(db(), api.config.jobs, new Date(now));
    assert.equal(result.textMessages, 2);
    assert.deepEqual(await rows(sql`select uid from text_messages where uid like 'hk-text-%' order by uid`), [{ uid: 'hk-text-old-pending' }, { uid: 'hk-text-recent' }]);
    assert.deepEqual(await rows(sql`select key from mail_budgets where key like 'hk-%'`), [{ key: 'hk-current' }]);
    assert.equal(result.webhookDeliveries, 2);
    assert.equal(result.mailMessages, 2);
    assert.deepEqual((await rows<{ id: number }>(sql`select id from mail_messages where recipient_email = 'hk@example.com' order by id`)).map((row) => Number(row.id)), [oldQueued, newSent]);
    assert.deepEqual(await rows(sql`select count(*)::int as n from mail_attempts where message_id = ${oldSent}`), [{ n: 0 }]);
    assert.ok(result.jobs >= 5005, `deleted ${result.jobs} jobs`);

    const deliveryIds = (await rows<{ id: number }>(sql`select id from webhook_deliveries where webhook_id = ${webhookId} order by id`)).map((row) => Number(row.id));
    assert.deepEqual(deliveryIds, [oldPending, recent]);
    const attemptsLeft = (await rows<{ delivery_id: number }>(sql`select delivery_id from webhook_delivery_attempts where delivery_id in (${oldDelivered}, ${oldFailed}, ${oldPending}, ${recent}) order by delivery_id`)).map((row) => Number(row.delivery_id));
    assert.deepEqual(attemptsLeft, [oldPending, recent]);

    const jobIds = (await rows<{ id: number }>(sql`select id from jobs where kind = 'test.housekeeping' order by id`)).map((row) => Number(row.id));
    assert.deepEqual(jobIds, [recentDone, oldPendingJob]);
    assert.ok(![oldDone, oldFailedJob].some((id) => jobIds.includes(id)));
    assert.deepEqual(await rows(sql`select count(*)::int as n from jobs where kind = 'test.housekeeping.bulk'`), [{ n: 0 }]);
    assert.deepEqual(await rows(sql`select key from idempotency_keys where scope = 'hk'`), [{ key: 'live' }]);
    assert.equal(result.loginFailures, 1);
    assert.deepEqual(await rows(sql`select account_key from login_failures where client_ip = '192.0.2.1'`), [{ account_key: 'hk-recent' }]);
    assert.equal((await rows(sql`select 1 from jobs where kind = ${HOUSEKEEPING.kind} and status = 'pending'`)).length, 1, 'its own next run is untouched');
  });

  test('with refreshStatistics (the embedded store, which runs no autovacuum) the planner gets statistics', async () => {
    const reltuples = async () => Number((await rows<{ reltuples: number }>(sql`select reltuples from pg_class where relname = 'bookings'`))[0]!.reltuples);
    if (api.runtime.ctx.database.kind === 'pglite') assert.equal(await reltuples(), -1, 'never analyzed before');
    await runHousekeeping(db(), api.config.jobs, new Date(), { refreshStatistics: true });
    assert.ok((await reltuples()) >= 0);
  });
});

