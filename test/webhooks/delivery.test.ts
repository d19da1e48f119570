// Webhook emission and delivery against a real HTTP receiver on loopback (both stores): signatures,
// payloads per trigger, retries with the same webhook-id, failures, the delivery log and resend,
// MEETING_STARTED/ENDED, and private addresses refused.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { jobs, webhookDeliveries, webhooks } from '../../src/db/schema.js';
import { recordBookingEvent } from '../../src/modules/bookings/booking-events.js';
import { findBookingByUid, loadRecords } from '../../src/modules/bookings/bookings.repository.js';
import { bookingWebhooks, fanOutBookingEvent, type FanOutPayload, WEBHOOK_FANOUT_JOB, WEBHOOK_MAX_ATTEMPTS } from '../../src/modules/webhooks/webhook-emission.js';
import { attemptsSpanning, retryDelayMs } from '../../src/jobs/runner.js';
import { eventually } from '../support/eventually.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { BOOKINGS_VERSION, booked } from '../bookings/helpers.js';
import { createEventType, createHost, type Host } from '../slots/helpers.js';
import { assertSigned, attemptsOf, deliveriesOf, fannedOutDeliveriesOf, insertWebhook, type Receiver, type Received, sleep, startReceiver } from './helpers.js';

const ALL_BOOKING_TRIGGERS = ['BOOKING_CREATED', 'BOOKING_REQUESTED', 'BOOKING_RESCHEDULED', 'BOOKING_CANCELLED', 'BOOKING_REJECTED', 'BOOKING_NO_SHOW_UPDATED'];
const BEFORE_ANY_BOOKING = Date.parse('2027-01-01T12:00:00Z');

describe('webhook delivery', () => {
  let api: TestApp;
  let now = BEFORE_ANY_BOOKING;
  const receivers: Receiver[] = [];
  const db = () => api.runtime.ctx.database.db;
  const secrets = () => api.runtime.ctx.secrets;

  before(async () => {
    // Retries 20 ms apart (doubling) instead of 10 s; an attempt gives up after 1.5 s (the receiver runs
    // in this process, beside the app and, on PGlite, its store: under load its answers can take a while).
    api = await createTestApp({ SVC_JOB_RETRY_BASE_MS: '20', SVC_WEBHOOK_TIMEOUT_MS: '1500' }, undefined, { clock: () => now });
  });
  after(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await api.close();
  });

  async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
    const started = await startReceiver(answer);
    receivers.push(started);
    return started;
  }

  // A New York host works 14:00Z-22:00Z on January weekdays; each host's bookings take its next free hour.
  const nextHour = new Map<number, number>();
  function slotOf(host: Host): string {
    let index = nextHour.get(host.userId) ?? 0;
    for (;;) {
      const day = 4 + Math.floor(index / 8);
      const start = Date.UTC(2027, 0, day, 14 + (index % 8));
      index += 1;
      const weekday = new Date(start).getUTCDay();
      if (weekday === 0 || weekday === 6) continue;
      nextHour.set(host.userId, index);
      return new Date(start).toISOString();
    }
  }

  async function newHost() {
    const host = await createHost(api, 'America/New_York');
    const eventType = await createEventType(api, host);
    return { host, eventType };
  }

  const send = (method: string, path: string, key?: string, body?: unknown) =>
    api.request(method, path, { version: BOOKINGS_VERSION, ...(key ? { key } : {}), ...(body !== undefined ? { body } : {}) });

  async function deliveryLog(host: Host, webhookId: number, query = '') {
    const response = await api.request('GET', `/v2/webhooks/${webhookId}/deliveries${query}`, { key: host.apiKey });
    assert.equal(response.status, 200, response.text);
    return response.body.data as any[];
  }

  const jobOf = async (deliveryId: number) => {
    const [row] = await db().select().from(jobs).where(sql`${jobs.kind} = 'webhook.deliver' and ${jobs.payload} @> ${JSON.stringify({ deliveryId })}::jsonb`);
    return row;
  };

  test('retries span at least 24 hours with the default backoff', () => {
    let span = 0;
    for (let attempt = 1; attempt < WEBHOOK_MAX_ATTEMPTS; attempt++) span += retryDelayMs(attempt);
    assert.ok(span >= 24 * 3_600_000, `${span} ms`);
    assert.equal(WEBHOOK_MAX_ATTEMPTS, attemptsSpanning(24 * 3_600_000));
    assert.ok(span - retryDelayMs(WEBHOOK_MAX_ATTEMPTS - 1) < 24 * 3_600_000, 'no more attempts than needed');
  });

  test('both signature schemes verify; without a secret: no-secret-provided and no webhook-signature', async () => {
    const { host, eventType } = await newHost();
    const hook = await receiver();
    const standard = `whsec_${randomBytes(24).toString('base64')}`;
    await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: `${hook.url}/plain`, triggers: ['BOOKING_CREATED'], secret: 'plain secret ✓' });
    await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: `${hook.url}/standard`, triggers: ['BOOKING_CREATED'], secret: standard });
    await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: `${hook.url}/none`, triggers: ['BOOKING_CREATED'] });
    const booking = await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    await hook.waitFor(3);
    const at = (path: string) => hook.requests.find((request) => request.url === `/hook/${path}`)!;
    assertSigned(at('plain'), 'plain secret ✓');
    assertSigned(at('standard'), standard);
    const unsigned = at('none');
    assert.equal(unsigned.headers['x-svc-signature-256'], 'no-secret-provided');
    assert.equal(unsigned.headers['webhook-signature'], undefined);
    assert.ok(unsigned.headers['webhook-id'] && unsigned.headers['webhook-timestamp']);
    for (const request of hook.requests) {
      assert.equal(request.method, 'POST');
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.json.triggerEvent, 'BOOKING_CREATED');
      assert.ok(!Number.isNaN(Date.parse(request.json.createdAt)));
      assert.equal(request.json.payload.uid, booking.uid);
    }
    assert.equal(new Set(hook.requests.map((request) => request.headers['webhook-id'])).size, 3, 'one delivery id per subscription');
  });

  test('subscriptions made through the subscription routes get signed deliveries; a PATCH deactivating one stops them', async () => {
    const { host, eventType } = await newHost();
    const hook = await receiver();
    const userHook = await api.request('POST', '/v2/webhooks', { key: host.apiKey, body: { subscriberUrl: `${hook.url}/user`, active: true, triggers: ['BOOKING_CREATED', 'BOOKING_CANCELLED'], secret: 'from-the-api' } });
    assert.equal(userHook.status, 201, userHook.text);
    const typeHook = await api.request('POST', `/v2/event-types/${eventType.id}/webhooks`, { key: host.apiKey, body: { subscriberUrl: `${hook.url}/type`, active: true, triggers: ['BOOKING_CREATED'] } });
    assert.equal(typeHook.status, 201, typeHook.text);
    const booking = await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    await hook.waitFor(2);
    assertSigned(hook.requests.find((request) => request.url === '/hook/user')!, 'from-the-api');
    assert.equal(hook.requests.find((request) => request.url === '/hook/type')!.headers['x-svc-signature-256'], 'no-secret-provided');
    const patched = await api.request('PATCH', `/v2/webhooks/${userHook.body.data.id}`, { key: host.apiKey, body: { active: false } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await send('POST', `/v2/bookings/${booking.uid}/cancel`, host.apiKey, { cancellationReason: 'Changed plans' })).status, 200);
    await sleep(300);
    assert.equal(hook.requests.length, 2, 'an inactive subscription gets nothing');
    const log = await deliveryLog(host, userHook.body.data.id);
    assert.deepEqual(log.map((delivery) => [delivery.trigger, delivery.status]), [['BOOKING_CREATED', 'delivered']]);
  });

  test('BOOKING_CREATED carries the reference booking payload', async () => {
    const host = await createHost(api, 'America/New_York', { timeFormat: 24, locale: 'it' });
    const eventType = await createEventType(api, host, {
      title: 'Consultation',
      description: 'A first talk',
      bookingFields: [{ type: 'select', slug: 'topic', label: 'Topic', required: true, options: ['sales', 'support'] }],
    });
    const hook = await receiver();
    await insertWebhook(db(), secrets(), { eventTypeId: eventType.id, subscriberUrl: hook.url, triggers: ['BOOKING_CREATED'] });
    const start = slotOf(host);
    const booking = await booked(api, {
      eventTypeId: eventType.id,
      start,
      attendee: { name: 'Bob Booker', email: 'bob@example.com', timeZone: 'Europe/Rome', language: 'de' },
      bookingFieldsResponses: { topic: 'sales', notes: 'Bring slides' },
      metadata: { source: 'webhook-test' },
    });
    const [request] = await hook.waitFor(1);
    const payload = request!.json.payload;
    const me = (await api.request('GET', '/v2/me', { key: host.apiKey })).body.data;
    assert.deepEqual(payload.organizer, {
      id: host.userId,
      name: me.name,
      email: me.email,
      username: host.username,
      timeZone: 'America/New_York',
      language: { locale: 'it' },
      timeFormat: 'HH:mm',
      utcOffset: -300,
    });
    assert.deepEqual(payload.attendees, [{ name: 'Bob Booker', email: 'bob@example.com', timeZone: 'Europe/Rome', language: { locale: 'de' }, utcOffset: 60 }]);
    assert.deepEqual(payload.responses.topic, { label: 'Topic', value: 'sales' });
    assert.deepEqual(payload.responses.name, { label: 'your_name', value: 'Bob Booker' });
    assert.deepEqual(payload.responses.email, { label: 'email_address', value: 'bob@example.com' });
    assert.deepEqual(payload.userFieldsResponses, { topic: { label: 'Topic', value: 'sales' } });
    const { organizer: _o, attendees: _a, responses: _r, userFieldsResponses: _u, ...rest } = payload;
    assert.deepEqual(rest, {
      type: eventType.slug,
      title: booking.title,
      description: 'A first talk',
      additionalNotes: 'Bring slides',
      customInputs: {},
      startTime: start,
      endTime: new Date(Date.parse(start) + 3_600_000).toISOString(),
      location: booking.location,
      destinationCalendar: null,
      hideCalendarNotes: false,
      requiresConfirmation: false,
      eventTypeId: eventType.id,
      seatsShowAttendees: false,
      seatsPerTimeSlot: null,
      uid: booking.uid,
      bookingId: booking.id,
      eventTitle: 'Consultation',
      eventDescription: 'A first talk',
      price: 0,
      currency: 'usd',
      length: 60,
      metadata: { source: 'webhook-test', videoCallUrl: booking.location },
      status: 'ACCEPTED',
    });
  });

  test('a receiver failing twice gets the same webhook-id and bytes three times; the delivery ends delivered with 3 attempts', async () => {
    const { host, eventType } = await newHost();
    const hook = await receiver((request) => (hook.byId(String(request.headers['webhook-id'])).length <= 2 ? { status: 500, body: 'not now' } : { status: 204 }));
    const webhookId = await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: hook.url, triggers: ['BOOKING_CREATED'], secret: 's3cret' });
    await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    const requests = await hook.waitFor(3);
    assert.equal(new Set(requests.map((request) => request.headers['webhook-id'])).size, 1);
    assert.equal(new Set(requests.map((request) => request.body)).size, 1, 'every retry sends the same bytes');
    for (const request of requests) assertSigned(request, 's3cret');
    await eventually(async () => (await deliveryLog(host, webhookId))[0]?.status === 'delivered', 5000);
    const [delivery] = await deliveryLog(host, webhookId);
    assert.equal(delivery.id, requests[0]!.headers['webhook-id']);
    assert.equal(delivery.trigger, 'BOOKING_CREATED');
    assert.equal(delivery.attempts, 3);
    assert.equal(delivery.lastStatusCode, 204);
    assert.equal(delivery.lastError, null);
    assert.ok(delivery.deliveredAt);
    assert.deepEqual(
      delivery.attemptLog.map((attempt: any) => [attempt.statusCode, attempt.error]),
      [
        [500, 'HTTP 500: not now'],
        [500, 'HTTP 500: not now'],
        [204, null],
      ],
    );
    for (const attempt of delivery.attemptLog) assert.ok(Number.isInteger(attempt.durationMs) && !Number.isNaN(Date.parse(attempt.attemptedAt)));
    await sleep(200);
    assert.equal(hook.requests.length, 3, 'nothing more is sent once delivered');
  });

  test('deliveries sent together (read and logged as a group) each keep their own outcome', async () => {
    const { host, eventType } = await newHost();
    const good = await receiver(() => ({ status: 200 }));
    const flaky = await receiver((request) => (flaky.byId(String(request.headers['webhook-id'])).length <= 1 ? { status: 503, body: 'busy' } : { status: 202 }));
    const goodIds: number[] = [];
    const flakyIds: number[] = [];
    for (let i = 0; i < 4; i++) {
      goodIds.push(await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: `${good.url}?n=${i}`, triggers: ['BOOKING_CREATED'], secret: `good-${i}` }));
      flakyIds.push(await insertWebhook(db(), secrets(), { eventTypeId: eventType.id, subscriberUrl: `${flaky.url}?n=${i}`, triggers: ['BOOKING_CREATED'], secret: `flaky-${i}` }));
    }
    await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    await good.waitFor(4);
    await flaky.waitFor(8);
    const settled = async () => {
      const deliveries = (await Promise.all([...goodIds, ...flakyIds].map((id) => deliveriesOf(db(), id)))).flat();
      return deliveries.length === 8 && deliveries.every((delivery) => delivery.status === 'delivered');
    };
    await eventually(settled, 5000);
    for (const [index, id] of goodIds.entries()) {
      const [delivery] = await deliveryLog(host, id);
      assert.deepEqual(delivery.attemptLog.map((attempt: any) => [attempt.statusCode, attempt.error]), [[200, null]]);
      assert.equal(delivery.attempts, 1);
      assertSigned(good.byId(delivery.id)[0]!, `good-${index}`);
    }
    for (const [index, id] of flakyIds.entries()) {
      const response = await api.request('GET', `/v2/event-types/${eventType.id}/webhooks/${id}/deliveries`, { key: host.apiKey });
      assert.equal(response.status, 200, response.text);
      const [delivery] = response.body.data;
      assert.deepEqual(
        delivery.attemptLog.map((attempt: any) => [attempt.statusCode, attempt.error]),
        [
          [503, 'HTTP 503: busy'],
          [202, null],
        ],
      );
      assert.deepEqual([delivery.attempts, delivery.lastStatusCode, delivery.lastError], [2, 202, null]);
      for (const request of flaky.byId(delivery.id)) assertSigned(request, `flaky-${index}`);
    }
  });

  test('each booking trigger reaches the user and event-type subscriptions that list it, and no others', async () => {
    const { host, eventType } = await newHost();
    const otherType = await createEventType(api, host);
    const confirmed = await createEventType(api, host, { confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: true } });
    const stranger = await newHost();
    const hook = await receiver();
    const me = (await api.request('GET', '/v2/me', { key: host.apiKey })).body.data;
    const subscribe = (name: string, fields: Partial<Parameters<typeof insertWebhook>[2]>) =>
      insertWebhook(db(), secrets(), { subscriberUrl: `${hook.url}/${name}`, triggers: ALL_BOOKING_TRIGGERS, ...fields });
    await subscribe('userAll', { userId: host.userId });
    await subscribe('typeSome', { eventTypeId: eventType.id, triggers: ['BOOKING_CREATED', 'BOOKING_CANCELLED'] });
    await subscribe('userCancelled', { userId: host.userId, triggers: ['BOOKING_CANCELLED'] });
    await subscribe('otherType', { eventTypeId: otherType.id });
    await subscribe('inactive', { userId: host.userId, active: false });
    await subscribe('stranger', { userId: stranger.host.userId });
    await subscribe('strangerType', { eventTypeId: stranger.eventType.id, triggers: ['BOOKING_CREATED'] });

    const first = await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    const moved = await send('POST', `/v2/bookings/${first.uid}/reschedule`, undefined, { start: slotOf(host), rescheduledBy: 'bob@example.com', reschedulingReason: 'Clash' });
    assert.equal(moved.status, 201, moved.text);
    const second = moved.body.data;
    const cancelled = await send('POST', `/v2/bookings/${second.uid}/cancel`, host.apiKey, { cancellationReason: 'Host is ill' });
    assert.equal(cancelled.status, 200, cancelled.text);
    const third = await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    now = Date.parse(third.start) + 60_000;
    try {
      const absent = await send('POST', `/v2/bookings/${third.uid}/mark-absent`, host.apiKey, { attendees: [{ email: 'bob@example.com', absent: true }] });
      assert.equal(absent.status, 200, absent.text);
    } finally {
      now = BEFORE_ANY_BOOKING;
    }
    const requested = await booked(api, { eventTypeId: confirmed.id, start: slotOf(host) });
    assert.equal((await send('POST', `/v2/bookings/${requested.uid}/confirm`, host.apiKey)).status, 200);
    const declined = await booked(api, { eventTypeId: confirmed.id, start: slotOf(host) });
    assert.equal((await send('POST', `/v2/bookings/${declined.uid}/decline`, host.apiKey, { reason: 'Away that day' })).status, 200);

    const expected = [
      ['userAll', 'BOOKING_CREATED', first.uid],
      ['typeSome', 'BOOKING_CREATED', first.uid],
      ['userAll', 'BOOKING_RESCHEDULED', second.uid],
      ['userAll', 'BOOKING_CANCELLED', second.uid],
      ['typeSome', 'BOOKING_CANCELLED', second.uid],
      ['userCancelled', 'BOOKING_CANCELLED', second.uid],
      ['userAll', 'BOOKING_CREATED', third.uid],
      ['typeSome', 'BOOKING_CREATED', third.uid],
      ['userAll', 'BOOKING_NO_SHOW_UPDATED', third.uid],
      ['userAll', 'BOOKING_REQUESTED', requested.uid],
      ['userAll', 'BOOKING_CREATED', requested.uid],
      ['userAll', 'BOOKING_REQUESTED', declined.uid],
      ['userAll', 'BOOKING_REJECTED', declined.uid],
    ].map((entry) => entry.join(' '));
    await hook.waitFor(expected.length);
    await sleep(300);
    const seen = (request: Received) => `${request.url.slice('/hook/'.length)} ${request.json.triggerEvent} ${request.json.payload.uid ?? request.json.payload.bookingUid}`;
    // At least once: an attempt whose answer came too late is made again under the same webhook-id.
    const distinct = [...new Map(hook.requests.map((request) => [request.headers['webhook-id'], request])).values()];
    assert.deepEqual(distinct.map(seen).sort(), [...expected].sort());

    const payloadOf = (name: string, trigger: string, uid: string) =>
      hook.requests.find((request) => seen(request) === `${name} ${trigger} ${uid}`)!.json.payload;
    const rescheduled = payloadOf('userAll', 'BOOKING_RESCHEDULED', second.uid);
    assert.equal(rescheduled.rescheduleUid, first.uid);
    assert.equal(rescheduled.rescheduleStartTime, first.start);
    assert.equal(rescheduled.rescheduleEndTime, first.end);
    assert.equal(rescheduled.rescheduledBy, 'bob@example.com');
    assert.equal(rescheduled.startTime, second.start);
    assert.equal(rescheduled.status, 'ACCEPTED');
    const cancellation = payloadOf('typeSome', 'BOOKING_CANCELLED', second.uid);
    assert.equal(cancellation.cancellationReason, 'Host is ill');
    assert.equal(cancellation.cancelledBy, me.email);
    assert.equal(cancellation.status, 'CANCELLED');
    assert.deepEqual(payloadOf('userAll', 'BOOKING_NO_SHOW_UPDATED', third.uid), {
      message: 'bob@example.com marked as no-show',
      bookingUid: third.uid,
      bookingId: third.id,
      attendees: [{ email: 'bob@example.com', noShow: true }],
    });
    const request = payloadOf('userAll', 'BOOKING_REQUESTED', requested.uid);
    assert.equal(request.status, 'PENDING');
    assert.equal(request.requiresConfirmation, true);
    assert.equal(payloadOf('userAll', 'BOOKING_CREATED', requested.uid).status, 'ACCEPTED');
    const rejection = payloadOf('userAll', 'BOOKING_REJECTED', declined.uid);
    assert.equal(rejection.rejectionReason, 'Away that day');
    assert.equal(rejection.status, 'REJECTED');
  });

  test('a payloadTemplate body arrives rendered: JSON as application/json, anything else form-encoded', async () => {
    const { host, eventType } = await newHost();
    const hook = await receiver();
    await insertWebhook(db(), secrets(), {
      userId: host.userId,
      subscriberUrl: `${hook.url}/json`,
      triggers: ['BOOKING_CREATED'],
      payloadTemplate: '{"event":"{{triggerEvent}}","what":"{{title}}","who":"{{organizer.name}}","booker":"{{attendees.0.name}}","minutes":{{length}},"at":"{{createdAt}}"}',
      secret: 'templated',
    });
    // By name (resolved at connect time by the address-checking lookup): private addresses are allowed in this app.
    const byName = `http://localhost:${hook.port}/hook/text`;
    await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: byName, triggers: ['BOOKING_CREATED'], payloadTemplate: 'event={{triggerEvent}}&type={{type}}&uid={{uid}}' });
    const booking = await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    await hook.waitFor(2);
    const json = hook.requests.find((request) => request.url === '/hook/json')!;
    assert.equal(json.headers['content-type'], 'application/json');
    assert.deepEqual(Object.keys(json.json), ['event', 'what', 'who', 'booker', 'minutes', 'at']);
    assert.deepEqual({ ...json.json, at: undefined }, { event: 'BOOKING_CREATED', what: booking.title, who: booking.hosts[0].name, booker: 'Bob Booker', minutes: 60, at: undefined });
    assert.ok(!Number.isNaN(Date.parse(json.json.at)));
    assertSigned(json, 'templated');
    const text = hook.requests.find((request) => request.url === '/hook/text')!;
    assert.equal(text.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(text.body, `event=BOOKING_CREATED&type=${eventType.slug}&uid=${booking.uid}`);
  });

  test('a redirect is not followed and a receiver that never answers times out: both are failed attempts, retried', async () => {
    const { host, eventType } = await newHost();
    const elsewhere = await receiver();
    const hook = await receiver((_request, index) => (index === 0 ? { status: 302, headers: { location: elsewhere.url } } : index === 1 ? 'hang' : { status: 200 }));
    const webhookId = await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: hook.url, triggers: ['BOOKING_CREATED'] });
    await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    await eventually(async () => (await deliveryLog(host, webhookId))[0]?.status === 'delivered', 8000);
    const [delivery] = await deliveryLog(host, webhookId);
    assert.equal(delivery.attemptLog.length, 3);
    const [redirected, hung, delivered] = delivery.attemptLog;
    assert.equal(redirected.statusCode, 302);
    assert.match(redirected.error, /^HTTP 302 \(redirects are not followed; location: /);
    assert.equal(hung.statusCode, null);
    assert.match(hung.error, /timed out after 1500 ms/);
    assert.ok(hung.durationMs >= 1490, `${hung.durationMs} ms`);
    assert.equal(delivered.statusCode, 200);
    assert.equal(elsewhere.requests.length, 0, 'the redirect target got nothing');
  });

  test('after its last attempt a delivery is marked failed', async () => {
    const { host, eventType } = await newHost();
    const hook = await receiver(() => ({ status: 503 }));
    const webhookId = await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: hook.url, triggers: ['BOOKING_CREATED'] });
    await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    const [delivery] = await fannedOutDeliveriesOf(db(), webhookId);
    const job = (await jobOf(delivery!.id))!;
    assert.equal(job.maxAttempts, WEBHOOK_MAX_ATTEMPTS);
    // Shorten this one job's schedule rather than wait for 33 attempts.
    await db().update(jobs).set({ maxAttempts: 3 }).where(eq(jobs.id, job.id));
    await eventually(async () => (await deliveriesOf(db(), webhookId))[0]?.status === 'failed', 5000);
    // The runner records the job's end just after the handler has logged the last attempt.
    await eventually(async () => (await jobOf(delivery!.id))?.status === 'failed', 5000);
    const [failed] = await deliveriesOf(db(), webhookId);
    const finished = (await jobOf(delivery!.id))!;
    assert.equal(failed!.attempts, finished.attempts);
    assert.equal(failed!.lastStatusCode, 503);
    assert.equal(failed!.lastError, 'HTTP 503');
    assert.equal((await attemptsOf(db(), failed!.id)).length, failed!.attempts);
    await sleep(200);
    assert.equal(hook.requests.length, failed!.attempts);
  });

  test('a subscription deactivated before delivery is not sent to; a deleted one takes its deliveries with it', async () => {
    const { host, eventType } = await newHost();
    // 503 with Retry-After: the next attempt waits 2 s, long enough to change the subscriptions.
    const hook = await receiver(() => ({ status: 503, headers: { 'retry-after': '2' } }));
    const deactivated = await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: `${hook.url}/deactivated`, triggers: ['BOOKING_CREATED'] });
    const deleted = await insertWebhook(db(), secrets(), { eventTypeId: eventType.id, subscriberUrl: `${hook.url}/deleted`, triggers: ['BOOKING_CREATED'] });
    await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    await hook.waitFor(2);
    const [pending] = await deliveriesOf(db(), deleted);
    await db().update(webhooks).set({ active: false }).where(eq(webhooks.id, deactivated));
    await db().delete(webhooks).where(eq(webhooks.id, deleted));
    await eventually(async () => (await deliveriesOf(db(), deactivated))[0]?.status === 'failed', 5000);
    const [failed] = await deliveriesOf(db(), deactivated);
    assert.match(failed!.lastError ?? '', /deactivated/);
    assert.equal(failed!.attempts, 1);
    assert.deepEqual(await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, pending!.id)), []);
    await eventually(async () => (await jobOf(pending!.id))?.status === 'done', 5000);
    await sleep(100);
    assert.equal(hook.requests.length, 2, 'neither got a second attempt');
  });

  test('every seat of a seated booking is announced, each with its own booker', async () => {
    const host = await createHost(api, 'America/New_York');
    const seated = await createEventType(api, host, { seats: { seatsPerTimeSlot: 3, showAttendeeInfo: false, showAvailabilityCount: true } });
    const hook = await receiver();
    await insertWebhook(db(), secrets(), { eventTypeId: seated.id, subscriberUrl: hook.url, triggers: ['BOOKING_CREATED'] });
    const start = slotOf(host);
    const first = await booked(api, { eventTypeId: seated.id, start, attendee: { name: 'Ann', email: 'ann@example.com', timeZone: 'UTC' } });
    const second = await booked(api, { eventTypeId: seated.id, start, attendee: { name: 'Ben', email: 'ben@example.com', timeZone: 'UTC' } });
    assert.equal(second.uid, first.uid, 'one seated booking');
    const requests = await hook.waitFor(2);
    assert.deepEqual(
      requests.map((request) => [request.json.payload.uid, request.json.payload.attendees.map((attendee: any) => attendee.email), request.json.payload.seatsPerTimeSlot]),
      [
        [first.uid, ['ann@example.com'], 3],
        [first.uid, ['ben@example.com'], 3],
      ],
    );
    assert.notEqual(requests[0]!.json.payload.seatUid, requests[1]!.json.payload.seatUid);
  });

  test('a template that cannot be rendered, or a secret that cannot be opened: the delivery log says why', async () => {
    const { host, eventType } = await newHost();
    const hook = await receiver();
    const templated = await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: `${hook.url}/t`, triggers: ['BOOKING_CREATED'], payloadTemplate: '{"title": {{title}' });
    const sealed = await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: `${hook.url}/s`, triggers: ['BOOKING_CREATED'] });
    await db().update(webhooks).set({ secretSealed: 'v1:bm90IGEgc2VhbGVkIHNlY3JldCBhdCBhbGwsIHJlYWxseQ==' }).where(eq(webhooks.id, sealed));
    await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    const [unrendered] = await fannedOutDeliveriesOf(db(), templated);
    assert.equal(unrendered!.status, 'failed');
    assert.match(unrendered!.lastError ?? '', /^payloadTemplate cannot be rendered: /);
    assert.equal(await jobOf(unrendered!.id), undefined, 'nothing to send');
    await eventually(async () => ((await deliveriesOf(db(), sealed))[0]?.attempts ?? 0) >= 1, 5000);
    const [unsigned] = await deliveriesOf(db(), sealed);
    assert.equal(unsigned!.status, 'pending', 'retried: the key may come back');
    assert.match(unsigned!.lastError ?? '', /^not sent: /);
    assert.equal(hook.requests.length, 0);
  });

  test('a booking queues one fan-out job however many subscribe; the worker makes one delivery each, and a fan-out run twice makes no second', async () => {
    const { host, eventType } = await newHost();
    const hook = await receiver();
    const ids: number[] = [];
    for (let i = 0; i < 25; i++) ids.push(await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: `${hook.url}/fan-${i}`, triggers: ['BOOKING_CREATED'] }));
    const booking = await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    const fanOutJobs = await db().select().from(jobs).where(and(eq(jobs.kind, WEBHOOK_FANOUT_JOB), sql`${jobs.payload}->'payload'->>'uid' = ${booking.uid}`));
    assert.equal(fanOutJobs.length, 1, 'one job for the event, not one per subscription');
    await hook.waitFor(25, 10_000);
    for (const id of ids) assert.equal((await deliveriesOf(db(), id)).length, 1);
    // The same fan-out again (a worker that died after committing, before marking its job done): nothing new.
    await fanOutBookingEvent(api.runtime.ctx.database, fanOutJobs[0]!.payload as FanOutPayload);
    for (const id of ids) assert.equal((await deliveriesOf(db(), id)).length, 1);
  });

  test('nothing is queued by a transaction that rolls back, nor by a refused booking', async () => {
    const { host, eventType } = await newHost();
    const hook = await receiver();
    const webhookId = await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: hook.url, triggers: ['BOOKING_CREATED', 'BOOKING_CANCELLED'] });
    const start = slotOf(host);
    const booking = await booked(api, { eventTypeId: eventType.id, start });
    await hook.waitFor(1);
    const taken = await send('POST', '/v2/bookings', undefined, { eventTypeId: eventType.id, start, attendee: { name: 'Late', email: 'late@example.com', timeZone: 'UTC' } });
    assert.equal(taken.status, 400);
    const fanOuts = async (tx: Db) =>
      ((await tx.execute(sql`select count(*)::int as n from jobs where kind = 'webhook.fanout' and payload->>'trigger' = 'BOOKING_CANCELLED' and (payload->'payload'->>'uid') = ${booking.uid}`)) as unknown as { rows: { n: number }[] }).rows[0]!.n;
    await assert.rejects(
      api.runtime.ctx.database.transaction(async (tx) => {
        const [record] = await loadRecords(tx, [(await findBookingByUid(tx, booking.uid))!]);
        await recordBookingEvent({ tx, listener: bookingWebhooks }, 'BOOKING_CANCELLED', record!, { cancellationReason: 'never happened' });
        assert.equal(await fanOuts(tx), 1, 'its fan-out is queued inside the transaction');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal(await fanOuts(db()), 0, 'and gone with it');
    assert.equal((await deliveriesOf(db(), webhookId)).length, 1);
    await sleep(200);
    assert.equal(hook.requests.length, 1);
  });

  test('delivery log: newest first, take/skip, resend with the same id and body; access as on the subscription routes', async () => {
    const { host, eventType } = await newHost();
    const otherType = await createEventType(api, host);
    const stranger = await newHost();
    const hook = await receiver();
    const userHook = await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: `${hook.url}/user`, triggers: ['BOOKING_CREATED'], secret: 'k' });
    const typeHook = await insertWebhook(db(), secrets(), { eventTypeId: eventType.id, subscriberUrl: `${hook.url}/type`, triggers: ['BOOKING_CREATED'] });
    const uids: string[] = [];
    for (let i = 0; i < 3; i++) {
      uids.push((await booked(api, { eventTypeId: eventType.id, start: slotOf(host) })).uid);
      await hook.waitFor(2 * (i + 1));
    }
    await eventually(async () => (await deliveryLog(host, userHook)).every((delivery) => delivery.status === 'delivered'), 5000);
    const log = await deliveryLog(host, userHook);
    const uidOf = (deliveryId: string) => hook.byId(deliveryId)[0]!.json.payload.uid;
    assert.deepEqual(log.map((delivery) => uidOf(delivery.id)), [...uids].reverse(), 'newest first');
    assert.deepEqual((await deliveryLog(host, userHook, '?take=1&skip=1')).map((delivery) => delivery.id), [log[1].id]);

    const oldest = log[2];
    const resent = await api.request('POST', `/v2/webhooks/${userHook}/deliveries/${oldest.id}/resend`, { key: host.apiKey });
    assert.equal(resent.status, 200, resent.text);
    assert.equal(resent.body.data.id, oldest.id);
    assert.equal(resent.body.data.status, 'pending');
    const again = await hook.waitFor(2, 5000, (request) => request.headers['webhook-id'] === oldest.id);
    assert.equal(again[1]!.body, again[0]!.body, 'the same body');
    assertSigned(again[1]!, 'k');
    await eventually(async () => (await deliveryLog(host, userHook))[2].status === 'delivered', 5000);
    assert.equal((await deliveryLog(host, userHook))[2].attempts, 2);

    const typeLog = await api.request('GET', `/v2/event-types/${eventType.id}/webhooks/${typeHook}/deliveries`, { key: host.apiKey });
    assert.equal(typeLog.status, 200, typeLog.text);
    assert.equal(typeLog.body.data.length, 3);
    const typeDelivery = typeLog.body.data[0].id;
    const typeResend = await api.request('POST', `/v2/event-types/${eventType.id}/webhooks/${typeHook}/deliveries/${typeDelivery}/resend`, { key: host.apiKey });
    assert.equal(typeResend.status, 200, typeResend.text);
    await hook.waitFor(2, 5000, (request) => request.headers['webhook-id'] === typeDelivery);

    // The same answers as the subscription routes (the reference's guards).
    const refused = [
      [403, 'GET', `/v2/webhooks/${userHook}/deliveries`, stranger.host.apiKey],
      [403, 'POST', `/v2/webhooks/${userHook}/deliveries/${oldest.id}/resend`, stranger.host.apiKey],
      [403, 'GET', `/v2/webhooks/${typeHook}/deliveries`, host.apiKey],
      [404, 'POST', `/v2/webhooks/${userHook}/deliveries/no-such-delivery/resend`, host.apiKey],
      [404, 'POST', `/v2/webhooks/${userHook}/deliveries/${typeDelivery}/resend`, host.apiKey],
      [404, 'GET', `/v2/webhooks/999999/deliveries`, host.apiKey],
      [403, 'GET', `/v2/event-types/${otherType.id}/webhooks/${typeHook}/deliveries`, host.apiKey],
      [400, 'GET', `/v2/event-types/${eventType.id}/webhooks/${userHook}/deliveries`, host.apiKey],
      [403, 'GET', `/v2/event-types/${eventType.id}/webhooks/${typeHook}/deliveries`, stranger.host.apiKey],
      [403, 'POST', `/v2/event-types/${eventType.id}/webhooks/${typeHook}/deliveries/${typeDelivery}/resend`, stranger.host.apiKey],
      [404, 'GET', `/v2/event-types/999999/webhooks/${typeHook}/deliveries`, host.apiKey],
    ] as const;
    for (const [status, method, path, key] of refused) {
      const response = await api.request(method, path, { key });
      assert.equal(response.status, status, `${method} ${path}: ${response.text}`);
    }
    for (const [method, path] of [['GET', `/v2/webhooks/${userHook}/deliveries`], ['GET', `/v2/webhooks/${typeHook}/deliveries`]] as const) {
      const asStranger = await api.request(method, path, { key: stranger.host.apiKey });
      assert.equal(asStranger.body.error.message, 'Forbidden resource');
    }
    assert.equal((await api.request('GET', `/v2/webhooks/${userHook}/deliveries`)).status, 401);
    assert.equal((await api.request('GET', `/v2/webhooks/${userHook}/deliveries?take=0`, { key: host.apiKey })).status, 400);
  });

  test('resending a delivery that waits for its next retry tries it now, without a second job', async () => {
    const { host, eventType } = await newHost();
    const hook = await receiver((request) => (hook.byId(String(request.headers['webhook-id'])).length === 1 ? { status: 503, headers: { 'retry-after': '3600' } } : { status: 200 }));
    const webhookId = await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: hook.url, triggers: ['BOOKING_CREATED'] });
    await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    const [first] = await hook.waitFor(1);
    const [delivery] = await deliveriesOf(db(), webhookId);
    // Retry-After: 3600 puts the next attempt an hour away (once the runner has recorded the failure).
    await eventually(async () => (await jobOf(delivery!.id))!.runAt.getTime() > Date.now() + 3_000_000, 5000);
    assert.equal((await deliveryLog(host, webhookId))[0].attempts, 1);
    const resent = await api.request('POST', `/v2/webhooks/${webhookId}/deliveries/${first!.headers['webhook-id']}/resend`, { key: host.apiKey });
    assert.equal(resent.status, 200, resent.text);
    await hook.waitFor(2, 3000);
    await eventually(async () => (await deliveryLog(host, webhookId))[0]?.status === 'delivered', 5000);
    const count = await db().select({ n: sql<number>`count(*)::int` }).from(jobs).where(sql`${jobs.kind} = 'webhook.deliver' and ${jobs.payload} @> ${JSON.stringify({ deliveryId: delivery!.id })}::jsonb`);
    assert.equal(count[0]!.n, 1);
  });

  test('resending while an attempt is in progress is a 409', async () => {
    const { host, eventType } = await newHost();
    const hook = await receiver((_request, index) => (index === 0 ? 'hang' : { status: 200 }));
    const webhookId = await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: hook.url, triggers: ['BOOKING_CREATED'] });
    await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    const [hanging] = await hook.waitFor(1);
    const resent = await api.request('POST', `/v2/webhooks/${webhookId}/deliveries/${hanging!.headers['webhook-id']}/resend`, { key: host.apiKey });
    assert.equal(resent.status, 409, resent.text);
    assert.match(resent.body.error.message, /being attempted right now/);
    await eventually(async () => (await deliveryLog(host, webhookId))[0]?.status === 'delivered', 8000);
    assert.equal(hook.requests.length, 2);
  });

  test('MEETING_STARTED and MEETING_ENDED: scheduled at start and end, sent only while the booking is still accepted at that time', async () => {
    const { host, eventType } = await newHost();
    const confirmed = await createEventType(api, host, { confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: true } });
    const hook = await receiver();
    await insertWebhook(db(), secrets(), { userId: host.userId, subscriberUrl: hook.url, triggers: ['MEETING_STARTED', 'MEETING_ENDED'] });
    const meetingJobs = async (uid: string) => {
      const rows = await db().select().from(jobs).where(sql`${jobs.kind} = 'webhook.meeting' and ${jobs.payload}->>'bookingUid' = ${uid}`);
      return rows.sort((a, b) => a.runAt.getTime() - b.runAt.getTime());
    };
    const runNow = async (uid: string) => {
      await db().update(jobs).set({ runAt: sql`now()` }).where(sql`${jobs.kind} = 'webhook.meeting' and ${jobs.payload}->>'bookingUid' = ${uid}`);
      await db().execute(sql`select pg_notify('svc_jobs', '')`);
      await eventually(async () => (await meetingJobs(uid)).every((job) => job.status === 'done'), 5000);
    };

    const kept = await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    const scheduled = await meetingJobs(kept.uid);
    assert.deepEqual(
      scheduled.map((job) => [job.dedupeKey, job.runAt.toISOString()]),
      [
        [`meeting:MEETING_STARTED:${kept.uid}:${Date.parse(kept.start)}`, kept.start],
        [`meeting:MEETING_ENDED:${kept.uid}:${Date.parse(kept.end)}`, kept.end],
      ],
    );
    const cancelled = await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    assert.equal((await send('POST', `/v2/bookings/${cancelled.uid}/cancel`, undefined, { cancellationReason: 'no' })).status, 200);
    const moved = await booked(api, { eventTypeId: eventType.id, start: slotOf(host) });
    const rescheduled = await send('POST', `/v2/bookings/${moved.uid}/reschedule`, undefined, { start: slotOf(host) });
    assert.equal(rescheduled.status, 201, rescheduled.text);
    const pending = await booked(api, { eventTypeId: confirmed.id, start: slotOf(host) });
    assert.deepEqual(await meetingJobs(pending.uid), [], 'a pending booking has no meeting yet');
    assert.equal((await send('POST', `/v2/bookings/${pending.uid}/confirm`, host.apiKey)).status, 200);
    assert.equal((await meetingJobs(pending.uid)).length, 2, 'confirming schedules them');
    assert.equal((await meetingJobs(rescheduled.body.data.uid)).length, 2, 'the new booking of a reschedule has its own');

    for (const uid of [kept.uid, cancelled.uid, moved.uid, rescheduled.body.data.uid]) await runNow(uid);
    await hook.waitFor(4);
    await sleep(300);
    const seen = hook.requests.map((request) => `${request.json.triggerEvent} ${request.json.payload.uid}`).sort();
    assert.deepEqual(
      seen,
      [
        `MEETING_ENDED ${kept.uid}`,
        `MEETING_ENDED ${rescheduled.body.data.uid}`,
        `MEETING_STARTED ${kept.uid}`,
        `MEETING_STARTED ${rescheduled.body.data.uid}`,
      ].sort(),
    );
    const started = hook.requests.find((request) => request.json.triggerEvent === 'MEETING_STARTED' && request.json.payload.uid === kept.uid)!;
    assert.equal(started.json.payload.startTime, kept.start);
    assert.equal(started.json.payload.status, 'ACCEPTED');

    // A job run twice (a worker died after committing) records the trigger once.
    await db().update(jobs).set({ status: 'pending' }).where(sql`${jobs.kind} = 'webhook.meeting' and ${jobs.payload}->>'bookingUid' = ${kept.uid}`);
    await runNow(kept.uid);
    await sleep(200);
    assert.equal(hook.requests.length, 4);
  });
});

describe('webhook delivery without SVC_ALLOW_PRIVATE_WEBHOOKS', () => {
  let api: TestApp;
  let hook: Receiver;
  before(async () => {
    api = await createTestApp({ SVC_ALLOW_PRIVATE_WEBHOOKS: '0', SVC_JOB_RETRY_BASE_MS: '20' });
    hook = await startReceiver();
  });
  after(async () => {
    await hook.close();
    await api.close();
  });

  test('loopback and private subscribers are refused at delivery, by address and by name', async () => {
    const host = await createHost(api, 'America/New_York');
    const eventType = await createEventType(api, host);
    const { db } = api.runtime.ctx.database;
    const urls = [hook.url, `http://localhost:${hook.port}/hook`, `http://[::1]:${hook.port}/hook`, `http://10.0.0.1:${hook.port}/hook`, `http://169.254.169.254/latest/meta-data`];
    const ids = [];
    for (const subscriberUrl of urls) ids.push(await insertWebhook(db, api.runtime.ctx.secrets, { userId: host.userId, subscriberUrl, triggers: ['BOOKING_CREATED'] }));
    await booked(api, { eventTypeId: eventType.id, start: '2027-01-04T15:00:00.000Z' }, { key: host.apiKey });
    for (const id of ids) {
      await eventually(async () => ((await deliveriesOf(db, id))[0]?.attempts ?? 0) >= 2, 5000);
      const [delivery] = await deliveriesOf(db, id);
      assert.equal(delivery!.status, 'pending');
      assert.equal(delivery!.lastStatusCode, null);
      assert.match(delivery!.lastError ?? '', /refused: .* non-public address/);
    }
    assert.equal(hook.requests.length, 0);
  });
});
