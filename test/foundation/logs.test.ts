// What svc's log says, read from a real `svc serve` process: a refused request's line names its error
// code and stable reason; each webhook delivery and each mail sent is an info line; a failed delivery
// attempt is a warning with the attempt, the error and when it is retried; no secret is ever written.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startSmtpReceiver, type SmtpReceiver } from '../mail/helpers.js';
import { type ChildServer, freshStore, killAllChildren, startServer, type Store } from '../support/child-server.js';
import { eventually } from '../support/eventually.js';
import { ADMIN_API_KEY, request } from '../support/test-app.js';

describe('the log of svc serve', () => {
  let store: Store;
  let server: ChildServer;
  let smtp: SmtpReceiver;
  let receiver: http.Server;
  let receiverUrl: string;
  const answers: number[] = [];
  before(async () => {
    smtp = await startSmtpReceiver();
    // Answers 500 to the first request, then 200.
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(answers.length === 0 ? (answers.push(500), 500) : (answers.push(200), 200)).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/secret-path-token`;
    store = await freshStore();
    server = await startServer({ ...store.env, SVC_ADMIN_API_KEY: ADMIN_API_KEY, SVC_ALLOW_PRIVATE_WEBHOOKS: '1', SVC_JOB_RETRY_BASE_MS: '50', SMTP_URL: smtp.url, SMTP_FROM: 'svc <svc@svc.test>' });
  });
  after(async () => {
    await server?.stop();
    await killAllChildren();
    receiver?.close();
    await smtp?.close();
    await store?.remove();
  });

  const lines = () => server.logs();

  test('a refusal names its code and reason; deliveries and mail are logged; nothing secret is', async () => {
    const refused = await request(server.baseUrl, 'GET', '/v2/me');
    assert.equal(refused.status, 401);
    await eventually(async () => lines().some((line) => line.msg === 'request completed' && line.route === '/v2/me' && line.status === 401));
    const refusal = lines().find((line) => line.msg === 'request completed' && line.route === '/v2/me' && line.status === 401)!;
    assert.deepEqual([refusal.error, refusal.reason], ['UnauthorizedException', refused.body.error.details.reason]);

    const made = await request(server.baseUrl, 'POST', '/v2/admin/users', { key: ADMIN_API_KEY, body: { email: 'logged@example.com', name: 'Logged', timeZone: 'UTC' } });
    assert.equal(made.status, 201, made.text);
    const key = made.body.data.apiKey as string;
    const secret = 'whsec-very-secret-value';
    const hook = await request(server.baseUrl, 'POST', '/v2/webhooks', { key, body: { subscriberUrl: receiverUrl, active: true, triggers: ['BOOKING_CREATED'], secret } });
    assert.equal(hook.status, 201, hook.text);
    const eventType = await request(server.baseUrl, 'POST', '/v2/event-types', { key, version: '2024-06-14', body: { title: 'Logged call', slug: 'logged-call', lengthInMinutes: 30, minimumBookingNotice: 0 } });
    assert.equal(eventType.status, 201, eventType.text);
    const start = new Date(Date.now() + 3 * 86_400_000);
    start.setUTCHours(10, 0, 0, 0);
    if ([0, 6].includes(start.getUTCDay())) start.setUTCDate(start.getUTCDate() + 2);
    const booked = await request(server.baseUrl, 'POST', '/v2/bookings', {
      version: '2024-08-13',
      body: { eventTypeId: eventType.body.data.id, start: start.toISOString(), attendee: { name: 'Bea', email: 'bea@example.com', timeZone: 'UTC' } },
    });
    assert.equal(booked.status, 201, booked.text);

    await eventually(async () => lines().some((line) => line.msg === 'webhook delivered'), 15_000);
    const retried = lines().find((line) => line.msg === 'job attempt failed; it will be retried')!;
    assert.ok(retried, 'the 500 was a warning');
    assert.equal(retried.level, 40);
    assert.deepEqual([retried.kind, retried.attempt], ['webhook.deliver', 1]);
    assert.match(String(retried.error), /status 500|500/);
    assert.ok(!Number.isNaN(Date.parse(String(retried.retryAt))));
    const delivered = lines().find((line) => line.msg === 'webhook delivered')!;
    assert.deepEqual([delivered.subscriber, delivered.status, delivered.attempt], [new URL(receiverUrl).origin, 200, 2]);

    await eventually(async () => lines().filter((line) => line.msg === 'mail sent').length >= 2, 15_000);
    const sent = lines().find((line) => line.msg === 'mail sent')!;
    assert.equal(sent.kind, 'scheduled');

    const everything = server.stdout() + server.stderr();
    for (const secretText of [key, secret, 'secret-path-token', ADMIN_API_KEY]) assert.ok(!everything.includes(secretText), `the log never holds ${secretText.slice(0, 8)}...`);
  });
});
