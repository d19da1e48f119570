// Mail across a real `svc serve` process killed with SIGKILL: 50 messages queued (the SMTP server
// down, every one failing and waiting for its retry, some never attempted) are all delivered after a
// restart on the same PostgreSQL database, and none is lost.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/db/client.js';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { childBackend, freePort, freshStore, killAllChildren, startServer, type Store } from '../support/child-server.js';
import { request } from '../support/test-app.js';
import { type SmtpReceiver, startSmtpReceiver } from './helpers.js';

const ADMIN_KEY = 'svc_0000000000000000000000000000mailkill';
const ENCRYPTION_KEY = 'ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100';
const stores: Store[] = [];
const receivers: SmtpReceiver[] = [];
after(async () => {
  await killAllChildren();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await Promise.all(stores.map((store) => store.remove().catch(() => {})));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

describe('mail survives a SIGKILL', { skip: childBackend !== 'postgres' && 'needs PostgreSQL: the test reads the outbox while the server runs' }, () => {
  test('50 queued messages: none lost after a restart', { timeout: 120_000 }, async () => {
    const store = await freshStore();
    stores.push(store);
    const smtpPort = await freePort();
    const env = {
      ...store.env,
      SVC_ADMIN_API_KEY: ADMIN_KEY,
      SVC_ENCRYPTION_KEY: ENCRYPTION_KEY,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      // Retries a second apart at first; a dead worker's leased jobs are taken over after 3 s.
      SVC_JOB_RETRY_BASE_MS: '1000',
      SVC_JOB_LEASE_MS: '3000',
      SVC_WEBHOOK_TIMEOUT_MS: '1000',
      RATE_LIMIT_ANONYMOUS: '1000000',
      RATE_LIMIT_API_KEY: '1000000',
    };
    let server = await startServer(env);
    const created = await request(server.baseUrl, 'POST', '/v2/admin/users', { key: ADMIN_KEY, body: { email: `kill-${Date.now()}@example.com`, name: 'Host', timeZone: 'UTC' } });
    assert.equal(created.status, 201, created.text);
    const apiKey: string = created.body.data.apiKey;
    const eventType = await request(server.baseUrl, 'POST', '/v2/event-types', { key: apiKey, version: '2024-06-14', body: { title: 'Kill', slug: 'kill', lengthInMinutes: 30, minimumBookingNotice: 0 } });
    assert.equal(eventType.status, 201, eventType.text);
    // 25 bookings, two messages each (host and attendee): weekdays of May 2027, 09:00-16:30Z.
    const starts: string[] = [];
    for (let day = 3; starts.length < 25; day++) {
      const weekday = new Date(Date.UTC(2027, 4, day)).getUTCDay();
      if (weekday === 0 || weekday === 6) continue;
      for (let slot = 0; slot < 8 && starts.length < 25; slot++) starts.push(new Date(Date.UTC(2027, 4, day, 9, slot * 30)).toISOString());
    }
    const book = async (start: string, i: number) => {
      const response = await request(server.baseUrl, 'POST', '/v2/bookings', {
        version: BOOKINGS_VERSION,
        body: { eventTypeId: eventType.body.data.id, start, attendee: { name: `Booker ${i}`, email: `booker-${i}@example.com`, timeZone: 'UTC' } },
      });
      assert.equal(response.status, 201, response.text);
    };
    const database = await openDatabase({ databaseUrl: store.databaseUrl! });
    try {
      const messages = async () => ((await database.db.execute(sql`select uid, status, attempts from mail_messages order by id`)) as unknown as { rows: { uid: string; status: string; attempts: number }[] }).rows;
      for (let i = 0; i < 20; i++) await book(starts[i]!, i);
      // The SMTP server is down: every message fails and waits for its retry.
      await until(async () => (await messages()).length === 40 && (await messages()).every((m) => m.status === 'pending' && m.attempts >= 1), 20_000, 'every message attempted once');
      // More, killed right after they commit: some never attempted at all.
      for (let i = 20; i < 25; i++) await book(starts[i]!, i);
      server.child.kill('SIGKILL');
      assert.equal((await server.exited).signal, 'SIGKILL');
      const queued = await messages();
      assert.equal(queued.length, 50);
      assert.ok(queued.every((m) => m.status === 'pending'));

      const smtp = await startSmtpReceiver({ port: smtpPort });
      receivers.push(smtp);
      server = await startServer(env);
      const expected = queued.map((m) => `<${m.uid}@svc>`).sort();
      const arrived = () => [...new Set(smtp.messages.map((m) => m.email.messageId))].sort();
      await until(async () => arrived().length === 50, 60_000, 'all 50 messages').catch((error: Error) => {
        throw new Error(`${error.message}; arrived ${arrived().length}\n${server.stderr().slice(-2000)}`);
      });
      assert.deepEqual(arrived(), expected, 'none lost, none invented');
      await until(async () => (await messages()).every((m) => m.status === 'sent'), 10_000, 'every message marked sent');
      for (let i = 0; i < 25; i++) assert.ok(smtp.to(`booker-${i}@example.com`).length >= 1, `booker ${i} heard`);
    } finally {
      await database.close();
    }
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  });
});
