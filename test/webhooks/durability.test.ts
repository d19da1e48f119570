// Webhook deliveries across real `svc serve` processes: a server SIGKILLed with deliveries pending
// delivers every one of them after a restart on the same store (both stores), and two servers on one
// PostgreSQL database never make one attempt twice.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { openDatabase } from '../../src/db/client.js';
import { secretBox } from '../../src/lib/secrets.js';
import { type ChildServer, childBackend, freePort, freshStore, killAllChildren, startServer, type Store } from '../support/child-server.js';
import { request } from '../support/test-app.js';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { assertSigned, attemptsOf, deliveriesOf, insertWebhook, type Receiver, type SubscriptionFields, sleep, startReceiver } from './helpers.js';

const ADMIN_KEY = 'svc_0000000000000000000000000000durable';
const ENCRYPTION_KEY = 'ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100';
const SECRET = 'durable-secret';

const stores: Store[] = [];
const receivers: Receiver[] = [];
after(async () => {
  await killAllChildren();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await Promise.all(stores.map((store) => store.remove().catch(() => {})));
});

function serverEnv(store: Store): Record<string, string> {
  return {
    ...store.env,
    SVC_ADMIN_API_KEY: ADMIN_KEY,
    SVC_ENCRYPTION_KEY: ENCRYPTION_KEY,
    SVC_ALLOW_PRIVATE_WEBHOOKS: '1',
    // Retries 100 ms apart (doubling); a dead worker's leased jobs are taken over after 3 s.
    SVC_JOB_RETRY_BASE_MS: '100',
    SVC_JOB_LEASE_MS: '3000',
    SVC_WEBHOOK_TIMEOUT_MS: '1000',
    LOG_LEVEL: 'info',
    RATE_LIMIT_ANONYMOUS: '1000000',
    RATE_LIMIT_API_KEY: '1000000',
  };
}

async function receiverOn(port: number, answer?: Receiver['answer']): Promise<Receiver> {
  const receiver = await startReceiver(answer, port);
  receivers.push(receiver);
  return receiver;
}

/** A host with the default New York schedule and a 60-minute event type bookable at once. */
async function createHost(server: ChildServer, tag: string) {
  const created = await request(server.baseUrl, 'POST', '/v2/admin/users', {
    key: ADMIN_KEY,
    body: { email: `${tag}-${Date.now()}@example.com`, name: `Host ${tag}`, username: `${tag}-${Date.now()}`, timeZone: 'America/New_York' },
  });
  assert.equal(created.status, 201, created.text);
  const apiKey: string = created.body.data.apiKey;
  const eventType = await request(server.baseUrl, 'POST', '/v2/event-types', {
    key: apiKey,
    version: '2024-06-14',
    body: { title: 'Durable', slug: `durable-${tag}`, lengthInMinutes: 60, minimumBookingNotice: 0 },
  });
  assert.equal(eventType.status, 201, eventType.text);
  return { userId: created.body.data.user.id as number, apiKey, eventTypeId: eventType.body.data.id as number };
}

/** The i-th free hour of a New York host: January 2027 weekdays, 14:00Z-21:00Z. */
function slot(index: number): string {
  let weekdays = 0;
  for (let day = 4; ; day++) {
    const weekday = new Date(Date.UTC(2027, 0, day)).getUTCDay();
    if (weekday === 0 || weekday === 6) continue;
    if (weekdays === Math.floor(index / 8)) return new Date(Date.UTC(2027, 0, day, 14 + (index % 8))).toISOString();
    weekdays++;
  }
}

async function book(server: ChildServer, eventTypeId: number, index: number): Promise<string> {
  const response = await request(server.baseUrl, 'POST', '/v2/bookings', {
    version: BOOKINGS_VERSION,
    body: { eventTypeId, start: slot(index), attendee: { name: `Booker ${index}`, email: `booker-${index}@example.com`, timeZone: 'UTC' } },
  });
  assert.equal(response.status, 201, response.text);
  return response.body.data.uid;
}

/** The deliveries of a user webhook, or (with eventTypeId) of an event-type webhook, through the API. */
async function deliveryLog(server: ChildServer, apiKey: string, webhookId: number, eventTypeId?: number): Promise<any[]> {
  const path = eventTypeId === undefined ? `/v2/webhooks/${webhookId}/deliveries` : `/v2/event-types/${eventTypeId}/webhooks/${webhookId}/deliveries`;
  const response = await request(server.baseUrl, 'GET', `${path}?take=250`, { key: apiKey });
  assert.equal(response.status, 200, response.text);
  return response.body.data;
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/**
 * Writes subscriptions into the store. A PGlite data dir belongs to the one process that has it open,
 * so there the server is stopped, the rows written, and the server started again.
 */
async function subscribe(server: ChildServer, store: Store, subscriptions: SubscriptionFields[]): Promise<{ server: ChildServer; ids: number[] }> {
  const box = secretBox(Buffer.from(ENCRYPTION_KEY, 'hex'));
  const write = async (url: { databaseUrl: string } | { dataDir: string }) => {
    const database = await openDatabase(url);
    try {
      const ids: number[] = [];
      for (const subscription of subscriptions) ids.push(await insertWebhook(database.db, box, subscription));
      return ids;
    } finally {
      await database.close();
    }
  };
  if (store.databaseUrl) return { server, ids: await write({ databaseUrl: store.databaseUrl }) };
  const stopped = await server.stop();
  assert.deepEqual(stopped, { code: 0, signal: null }, server.stdout() + server.stderr());
  const ids = await write({ dataDir: store.env.SVC_DATA_DIR! });
  return { server: await startServer(serverEnv(store)), ids };
}

describe(`webhook deliveries survive a SIGKILL (${childBackend})`, () => {
  test('every event committed before the kill is delivered after a restart on the same store', { timeout: 120_000 }, async () => {
    const store = await freshStore();
    stores.push(store);
    let server = await startServer(serverEnv(store));
    const host = await createHost(server, 'killed');
    // The receiver is down at first: nothing listens on its port.
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hook`;
    let ids: number[];
    ({ server, ids } = await subscribe(server, store, [
      { userId: host.userId, subscriberUrl: `${url}/user`, triggers: ['BOOKING_CREATED'], secret: SECRET },
      { eventTypeId: host.eventTypeId, subscriberUrl: `${url}/type`, triggers: ['BOOKING_CREATED'], secret: SECRET },
    ]));
    const [userHook, typeHook] = ids as [number, number];

    const uids: string[] = [];
    for (let i = 0; i < 12; i++) uids.push(await book(server, host.eventTypeId, i));
    // Every delivery is pending and failing (connection refused), retrying with backoff.
    await until(
      async () => {
        const log = [...(await deliveryLog(server, host.apiKey, userHook)), ...(await deliveryLog(server, host.apiKey, typeHook, host.eventTypeId))];
        return log.length === 24 && log.every((delivery) => delivery.status === 'pending' && delivery.attempts >= 1);
      },
      20_000,
      'every delivery attempted once',
    );
    const [failing] = await deliveryLog(server, host.apiKey, userHook);
    assert.match(failing.lastError, /ECONNREFUSED/);
    // More events, killed right after they commit: some never attempted at all.
    for (let i = 12; i < 16; i++) uids.push(await book(server, host.eventTypeId, i));
    server.child.kill('SIGKILL');
    assert.equal((await server.exited).signal, 'SIGKILL');

    const receiver = await receiverOn(port);
    server = await startServer(serverEnv(store));
    const expected = uids.flatMap((uid) => [`/hook/user ${uid}`, `/hook/type ${uid}`]).sort();
    const arrived = () => [...new Set(receiver.requests.map((request) => `${request.url} ${request.json.payload.uid}`))].sort();
    await until(async () => arrived().length === expected.length, 40_000, `all ${expected.length} deliveries`).catch((error: Error) => {
      throw new Error(`${error.message}; arrived ${arrived().length}\n${server.stdout().slice(-3000)}\n${server.stderr().slice(-3000)}`);
    });
    assert.deepEqual(arrived(), expected, 'none lost');
    for (const received of receiver.requests) assertSigned(received, SECRET);
    await until(
      async () => [...(await deliveryLog(server, host.apiKey, userHook)), ...(await deliveryLog(server, host.apiKey, typeHook, host.eventTypeId))].every((delivery) => delivery.status === 'delivered'),
      10_000,
      'every delivery marked delivered',
    );
    // At least once: an attempt cut short by the kill may be made again, always under the same webhook-id.
    const byId = new Map<string, Set<string>>();
    for (const received of receiver.requests) byId.set(String(received.headers['webhook-id']), (byId.get(String(received.headers['webhook-id'])) ?? new Set()).add(received.body));
    assert.equal(byId.size, expected.length);
    for (const bodies of byId.values()) assert.equal(bodies.size, 1, 'one body per webhook-id');
    const exit = await server.stop();
    assert.deepEqual(exit, { code: 0, signal: null });
  });
});

describe('two servers on one PostgreSQL database', { skip: childBackend !== 'postgres' && 'needs PostgreSQL: a PGlite store belongs to one process' }, () => {
  test('never make one delivery attempt twice', { timeout: 120_000 }, async () => {
    const store = await freshStore();
    stores.push(store);
    const first = await startServer(serverEnv(store));
    const second = await startServer(serverEnv(store));
    const host = await createHost(first, 'pair');
    // Each delivery's first arrival fails, its second succeeds: every delivery takes exactly two attempts.
    const receiver = await receiverOn(0, (received) => {
      const seen = receiver.byId(String(received.headers['webhook-id'])).length;
      return seen === 1 ? { status: 500 } : { status: 200 };
    });
    const { ids } = await subscribe(first, store, [
      { userId: host.userId, subscriberUrl: `${receiver.url}/user`, triggers: ['BOOKING_CREATED'], secret: SECRET },
      { eventTypeId: host.eventTypeId, subscriberUrl: `${receiver.url}/type`, triggers: ['BOOKING_CREATED'] },
    ]);
    const total = 60;
    await Promise.all(Array.from({ length: total }, (_, i) => book(i % 2 === 0 ? first : second, host.eventTypeId, i)));
    await until(async () => receiver.requests.length >= 4 * total, 40_000, `${4 * total} arrivals`);
    await sleep(1000);
    const counts = new Map<string, number>();
    for (const received of receiver.requests) counts.set(String(received.headers['webhook-id']), (counts.get(String(received.headers['webhook-id'])) ?? 0) + 1);
    assert.equal(counts.size, 2 * total);
    assert.deepEqual([...counts.values()].filter((count) => count !== 2), [], 'each delivery arrived exactly twice: one failed attempt, one success');

    const database = await openDatabase({ databaseUrl: store.databaseUrl! });
    try {
      for (const id of ids) {
        const deliveries = await deliveriesOf(database.db, id);
        assert.equal(deliveries.length, total);
        for (const delivery of deliveries) {
          assert.equal(delivery.status, 'delivered');
          assert.equal(delivery.attempts, 2);
          assert.deepEqual((await attemptsOf(database.db, delivery.id)).map((attempt) => attempt.statusCode), [500, 200]);
        }
      }
    } finally {
      await database.close();
    }
    await Promise.all([first.stop(), second.stop()]);
  });
});
