// Subscribers that answer before reading the body and close the connection (an early 404, as many
// servers do): each attempt is a failure the job retries, and no connection error ever reaches the
// process, first with the sender on its own, then end to end through a real `svc serve` process.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { createSender, type SendOutcome } from '../../src/modules/webhooks/webhook-delivery.js';
import { childBackend, freshStore, killAllChildren, startServer, type Store } from '../support/child-server.js';
import { request } from '../support/test-app.js';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { sleep } from './helpers.js';

interface EarlyCloser {
  url: string;
  /** Requests (or connections, for the raw receiver) answered so far. */
  answered: number;
  close(): Promise<void>;
}

async function listen(server: net.Server, closer: { answered: number }): Promise<EarlyCloser> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return Object.assign(closer, {
    url: `http://127.0.0.1:${port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}

/** node:http: answers 404 as soon as the request's head arrives and destroys the connection, body unread. */
function http404Closer(): Promise<EarlyCloser> {
  const closer = { answered: 0 };
  const server = http.createServer((req, res) => {
    closer.answered++;
    res.writeHead(404, { 'Content-Length': '9' });
    res.end('not found');
    req.socket.destroy();
  });
  return listen(server, closer);
}

/** Raw TCP: writes a 404 the moment a connection opens, never reads a byte, and closes shortly after. */
function rawCloser(): Promise<EarlyCloser> {
  const closer = { answered: 0 };
  const server = net.createServer({ pauseOnConnect: true }, (socket) => {
    closer.answered++;
    socket.on('error', () => {});
    socket.write('HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found', () => setTimeout(() => socket.destroy(), 20));
  });
  return listen(server, closer);
}

const closers: EarlyCloser[] = [];
const stores: Store[] = [];
after(async () => {
  await killAllChildren();
  await Promise.all(closers.map((closer) => closer.close()));
  await Promise.all(stores.map((store) => store.remove().catch(() => {})));
});

describe('the sender against a subscriber that answers before reading the body', () => {
  for (const [kind, start] of [['node:http 404 then destroy', http404Closer], ['raw TCP 404 on connect', rawCloser]] as const) {
    for (const size of [300_000, 6_000_000]) {
      test(`${kind}, ${size / 1000} KB bodies, 12 attempts in a row: each one a failure, nothing uncaught`, { timeout: 60_000 }, async () => {
        const escaped: unknown[] = [];
        const onUncaught = (error: unknown) => escaped.push(error);
        process.on('uncaughtException', onUncaught);
        const closer = await start();
        closers.push(closer);
        const sender = createSender({ timeoutMs: 5_000, allowPrivate: true, maxSockets: 8 });
        try {
          const body = 'x'.repeat(size);
          const outcomes: SendOutcome[] = [];
          for (let i = 0; i < 12; i++) outcomes.push(await sender.send(closer.url, body, { 'Content-Type': 'text/plain' }));
          // Errors a connection emits after its attempt ended come a little later.
          await sleep(1_000);
          assert.deepEqual(escaped, [], 'no connection error reached the process');
          for (const outcome of outcomes) {
            assert.notEqual(outcome.error, null);
            assert.ok(outcome.statusCode === 404 || outcome.statusCode === null, JSON.stringify(outcome));
          }
          // A connection the peer answered early on is never reused, so every attempt reaches the
          // subscriber instead of failing on a connection it already closed.
          assert.deepEqual(
            outcomes.map((outcome) => outcome.statusCode),
            outcomes.map(() => 404),
            JSON.stringify(outcomes.map((outcome) => outcome.error)),
          );
          assert.equal(closer.answered, 12);
        } finally {
          sender.close();
          process.off('uncaughtException', onUncaught);
        }
      });
    }
  }
});

const ADMIN_KEY = 'svc_0000000000000000000000000000early';

describe(`svc serve with a subscriber that closes early (${childBackend})`, () => {
  test('an anonymous booking with a large answer leaves the process alive and the delivery failed and retrying', { timeout: 120_000 }, async () => {
    const store = await freshStore();
    stores.push(store);
    const server = await startServer({
      ...store.env,
      SVC_ADMIN_API_KEY: ADMIN_KEY,
      SVC_ENCRYPTION_KEY: 'ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100',
      SVC_ALLOW_PRIVATE_WEBHOOKS: '1',
      SVC_JOB_RETRY_BASE_MS: '500',
      SVC_WEBHOOK_TIMEOUT_MS: '5000',
      LOG_LEVEL: 'info',
      RATE_LIMIT_ANONYMOUS: '1000000',
      RATE_LIMIT_API_KEY: '1000000',
    });
    const closer = await http404Closer();
    closers.push(closer);

    const created = await request(server.baseUrl, 'POST', '/v2/admin/users', {
      key: ADMIN_KEY,
      body: { email: `early-${Date.now()}@example.com`, name: 'Early', timeZone: 'America/New_York' },
    });
    assert.equal(created.status, 201, created.text);
    const apiKey: string = created.body.data.apiKey;
    const eventType = await request(server.baseUrl, 'POST', '/v2/event-types', {
      key: apiKey,
      version: '2024-06-14',
      body: { title: 'Early', slug: 'early', lengthInMinutes: 60, minimumBookingNotice: 0 },
    });
    assert.equal(eventType.status, 201, eventType.text);
    // The template repeats the booker's notes: a body of megabytes from an answer within its bound,
    // far more than the connection's buffers take before the subscriber has answered and closed.
    const webhook = await request(server.baseUrl, 'POST', '/v2/webhooks', {
      key: apiKey,
      body: { subscriberUrl: closer.url, active: true, triggers: ['BOOKING_CREATED'], payloadTemplate: `notes=${'{{additionalNotes}}'.repeat(5_000)}` },
    });
    assert.equal(webhook.status, 201, webhook.text.slice(0, 500));

    const notes = 'n'.repeat(1_000);
    const booking = await request(server.baseUrl, 'POST', '/v2/bookings', {
      version: BOOKINGS_VERSION,
      body: { eventTypeId: eventType.body.data.id, start: '2027-01-05T15:00:00.000Z', attendee: { name: 'Anon', email: 'anon@example.com', timeZone: 'UTC' }, bookingFieldsResponses: { notes } },
    });
    assert.equal(booking.status, 201, booking.text);

    const deadline = Date.now() + 20_000;
    while (closer.answered < 2 && server.alive() && Date.now() < deadline) await sleep(50);
    await sleep(1_500);
    assert.ok(server.alive(), `svc serve died:\n${server.stderr().slice(-3000)}`);
    const health = await request(server.baseUrl, 'GET', '/health');
    assert.equal(health.status, 200);
    const log = await request(server.baseUrl, 'GET', `/v2/webhooks/${webhook.body.data.id}/deliveries`, { key: apiKey });
    assert.equal(log.status, 200, log.text);
    const [delivery] = log.body.data;
    assert.equal(delivery.status, 'pending', JSON.stringify(delivery));
    assert.ok(delivery.attempts >= 1);
    // The subscriber's 404, or the reset of the connection it closed while the body was still being sent.
    for (const attempt of delivery.attemptLog as { statusCode: number | null; error: string | null }[]) {
      assert.ok(attempt.statusCode === 404 || attempt.statusCode === null, JSON.stringify(attempt));
      assert.match(String(attempt.error), /HTTP 404|ECONNRESET|EPIPE/);
    }
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  });
});
