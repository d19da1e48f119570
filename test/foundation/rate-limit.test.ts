import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/app/config.js';
import { createUserWithApiKey } from '../../src/modules/admin/admin.service.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const LIMITS = { RATE_LIMIT_API_KEY: '3', RATE_LIMIT_ANONYMOUS: '2', RATE_LIMIT_WINDOW_MS: '60000', RATE_LIMIT_BLOCK_MS: '60000' };
const REDIS_HOST = '127.0.0.1';
const REDIS_PORT = 6379;

let counter = 0;
/**
 * A user with an API key, created straight through the service: going through POST /v2/admin/users
 * would spend the admin key's own (tiny) rate limit.
 */
async function newUser(api: TestApp): Promise<string> {
  counter += 1;
  const tag = `${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  const { apiKey } = await createUserWithApiKey(api.runtime.ctx, { email: `rl-${tag}@example.com`, name: `Limited ${counter}` });
  return apiKey;
}

function rateHeaders(response: { headers: Headers }) {
  return {
    limit: response.headers.get('x-ratelimit-limit-default'),
    remaining: response.headers.get('x-ratelimit-remaining-default'),
    reset: response.headers.get('x-ratelimit-reset-default'),
  };
}

function assertThrottled(response: { status: number; body: any; headers: Headers; text: string }, limit: string) {
  assert.equal(response.status, 429, response.text);
  assert.equal(response.body.status, 'error');
  assert.equal(response.body.error.code, 'ThrottlerException');
  const headers = rateHeaders(response);
  assert.equal(headers.limit, limit);
  assert.equal(headers.remaining, '0');
  assert.ok(Number(headers.reset) > 0, `X-RateLimit-Reset-Default is positive: ${headers.reset}`);
  assertRetryAfter(response);
  // The message says which limit, its size, and when to retry (the reference's words first).
  const wait = response.headers.get('retry-after');
  assert.match(response.body.error.message, new RegExp(`^ThrottlerException: Too many requests\\. Please try again later\\. The Default limit is ${limit} requests per \\d+ s for each .+; try again in ${wait} s\\.$`));
  assert.deepEqual([response.body.error.details.limit, response.body.error.details.limitPerWindow, response.body.error.details.retryAfterSeconds], ['Default', Number(limit), Number(wait)]);
}

/** A 429 says in Retry-After how many seconds remain until the block ends (RATE_LIMIT_BLOCK_MS: 60 s). */
function assertRetryAfter(response: { headers: Headers }) {
  const retryAfter = response.headers.get('retry-after');
  assert.match(retryAfter ?? '', /^\d+$/, `Retry-After is whole seconds: ${retryAfter}`);
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After ${retryAfter}`);
}

/** Does a Redis server answer PING at host:port? */
function redisAnswers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

describe('rate limiting per API key (memory store)', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp(LIMITS);
  });
  after(() => api.close());

  test('three requests pass with counting headers, the fourth is a 429', async () => {
    const key = await newUser(api);
    for (const remaining of ['2', '1', '0']) {
      const response = await api.request('GET', '/v2/me', { key });
      assert.equal(response.status, 200, response.text);
      const headers = rateHeaders(response);
      assert.equal(headers.limit, '3');
      assert.equal(headers.remaining, remaining);
      assert.ok(Number(headers.reset) > 0 && Number(headers.reset) <= 60, `reset ${headers.reset}`);
    }
    const throttled = await api.request('GET', '/v2/me', { key });
    assertThrottled(throttled, '3');
    assert.ok(Number(rateHeaders(throttled).reset) <= 60);
    // Still refused (blocked), on any limited route.
    assertThrottled(await api.request('PATCH', '/v2/me', { key, body: { name: 'x' } }), '3');
  });

  test("another user's key has its own tracker", async () => {
    const first = await newUser(api);
    const second = await newUser(api);
    for (let i = 0; i < 3; i++) assert.equal((await api.request('GET', '/v2/me', { key: first })).status, 200);
    assertThrottled(await api.request('GET', '/v2/me', { key: first }), '3');

    const other = await api.request('GET', '/v2/me', { key: second });
    assert.equal(other.status, 200, other.text);
    assert.equal(rateHeaders(other).remaining, '2');
  });
});

describe('rate limiting of failed authentication (memory store)', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp(LIMITS);
  });
  after(() => api.close());

  test("wrong keys count against the caller's address: the third is a 429", async () => {
    const wrong = `svc_${'0'.repeat(32)}`;
    for (const remaining of ['1', '0']) {
      const response = await api.request('GET', '/v2/me', { key: wrong });
      assert.equal(response.status, 401, response.text);
      assert.equal(response.body.error.code, 'UnauthorizedException');
      assert.equal(rateHeaders(response).limit, '2');
      assert.equal(rateHeaders(response).remaining, remaining);
    }
    // Even a different wrong key, or none at all where one is required, comes from the same address.
    assertThrottled(await api.request('GET', '/v2/me', { key: `svc_${'1'.repeat(32)}` }), '2');
    assertThrottled(await api.request('GET', '/v2/me'), '2');

    // A valid key is tracked by the key, not the address.
    const key = await newUser(api);
    const valid = await api.request('GET', '/v2/me', { key });
    assert.equal(valid.status, 200, valid.text);
    assert.equal(rateHeaders(valid).limit, '3');
  });

  test('/health is never throttled, even for a blocked address', async () => {
    // The address is blocked by now (the test above); make sure of it independently.
    for (let i = 0; i < 3; i++) await api.request('GET', '/v2/me', { key: `svc_${'2'.repeat(32)}` });
    assert.equal((await api.request('GET', '/v2/me')).status, 429);
    for (let i = 0; i < 10; i++) {
      const response = await api.request('GET', '/health');
      assert.equal(response.status, 200, `call ${i + 1}: ${response.text}`);
      assert.equal(rateHeaders(response).limit, null, 'operational routes carry no rate-limit headers');
    }
    for (const path of ['/ready', '/metrics']) assert.equal((await api.request('GET', path)).status, 200, path);
  });
});

describe('rate limiting shared through Redis', () => {
  test('two processes on one Redis share a key\'s window', async (t) => {
    if (!(await redisAnswers(REDIS_HOST, REDIS_PORT))) {
      t.skip(`Redis does not answer on ${REDIS_HOST}:${REDIS_PORT}; the shared rate-limit test needs one`);
      return;
    }
    const env = { REDIS_URL: `redis://${REDIS_HOST}:${REDIS_PORT}`, RATE_LIMIT_API_KEY: '3', RATE_LIMIT_WINDOW_MS: '60000', RATE_LIMIT_BLOCK_MS: '60000' };
    const a = await createTestApp(env);
    let b: TestApp | undefined;
    try {
      // B serves the same database; its close() must leave the database to A, which owns it.
      const shared = a.runtime.ctx.database;
      b = await createTestApp(env, { database: { ...shared, close: async () => {} } });
      // A fresh random key: its tracker (sha256 of the key) is unique in the shared Redis.
      const key = await newUser(a);

      const first = await a.request('GET', '/v2/me', { key });
      const second = await a.request('GET', '/v2/me', { key });
      const third = await b.request('GET', '/v2/me', { key });
      for (const response of [first, second, third]) assert.equal(response.status, 200, response.text);
      assert.deepEqual([first, second, third].map((response) => rateHeaders(response).remaining), ['2', '1', '0'], 'one window across both processes');

      assertThrottled(await b.request('GET', '/v2/me', { key }), '3');
      assertThrottled(await a.request('GET', '/v2/me', { key }), '3');
    } finally {
      await b?.close();
      await a.close();
    }
  });
});

describe('named throttles of the expensive routes, for anonymous callers (memory store)', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp({ ...LIMITS, RATE_LIMIT_ANONYMOUS: '100', RATE_LIMIT_ANONYMOUS_SLOTS: '2', RATE_LIMIT_ANONYMOUS_BOOKINGS: '1', RATE_LIMIT_ANONYMOUS_RESERVATIONS: '1' });
  });
  after(() => api.close());

  const named = (response: { headers: Headers }, name: string) => ({
    limit: response.headers.get(`x-ratelimit-limit-${name}`),
    remaining: response.headers.get(`x-ratelimit-remaining-${name}`),
    reset: response.headers.get(`x-ratelimit-reset-${name}`),
  });

  test('GET /v2/slots counts against its own, tighter limit, with Retry-After on the 429; cheap routes are not held back', async () => {
    const slots = () => api.request('GET', '/v2/slots?eventTypeId=999999&start=2030-01-01&end=2030-01-02', { version: '2024-09-04' });
    for (const remaining of ['1', '0']) {
      const response = await slots();
      assert.equal(response.status, 404, response.text);
      assert.deepEqual(named(response, 'slots'), { limit: '2', remaining, reset: named(response, 'slots').reset });
      assert.equal(response.headers.get('x-ratelimit-limit-default'), '100');
    }
    const throttled = await slots();
    assert.equal(throttled.status, 429, throttled.text);
    assert.equal(throttled.body.error.code, 'ThrottlerException');
    assert.equal(named(throttled, 'slots').remaining, '0');
    assertRetryAfter(throttled);
    assert.match(throttled.body.error.message, /The Slots limit is 2 requests per \d+ s for each address \(requests without credentials\); try again in \d+ s\.$/);
    // The same address still reads a reservation (a cheap public route): only the default limit applies.
    const cheap = await api.request('GET', '/v2/slots/reservations/unknown', { version: '2024-09-04' });
    assert.equal(cheap.status, 200, cheap.text);
    assert.equal(named(cheap, 'slots').limit, null);
  });

  test('POST /v2/bookings and slot reservations have their own limits; a caller with an API key is not held to them', async () => {
    const book = (key?: string) => api.request('POST', '/v2/bookings', { version: '2024-08-13', body: {}, ...(key ? { key } : {}) });
    const first = await book();
    assert.equal(first.status, 400, first.text);
    assert.equal(named(first, 'bookings').limit, '1');
    const second = await book();
    assert.equal(second.status, 429, second.text);
    assertRetryAfter(second);

    const reserve = () => api.request('POST', '/v2/slots/reservations', { version: '2024-09-04', body: {} });
    assert.equal((await reserve()).status, 400);
    const refused = await reserve();
    assert.equal(refused.status, 429, refused.text);
    assert.equal(named(refused, 'reservations').limit, '1');

    const key = await newUser(api);
    for (let i = 0; i < 3; i++) {
      const response = await book(key);
      assert.equal(response.status, 400, response.text);
      assert.equal(named(response, 'bookings').limit, null);
    }
  });

  test('an anonymous cancellation counts against the bookings limit too: each one mails the booking\'s attendees', async () => {
    const limited = await createTestApp({ ...LIMITS, RATE_LIMIT_ANONYMOUS: '100', RATE_LIMIT_ANONYMOUS_BOOKINGS: '2' });
    try {
      const book = () => limited.request('POST', '/v2/bookings', { version: '2024-08-13', body: {} });
      const cancel = () => limited.request('POST', '/v2/bookings/no-such-booking/cancel', { version: '2024-08-13', body: {} });
      assert.equal((await book()).status, 400);
      const counted = await cancel();
      assert.equal(counted.status, 404, counted.text);
      assert.deepEqual(named(counted, 'bookings'), { limit: '2', remaining: '0', reset: named(counted, 'bookings').reset });
      const refused = await cancel();
      assert.equal(refused.status, 429, refused.text);
      assertRetryAfter(refused);
    } finally {
      await limited.close();
    }
  });

  test('by default the named limits are a quarter (slots) and a twelfth (reservations, bookings) of RATE_LIMIT_ANONYMOUS', () => {
    assert.deepEqual(loadConfig({}).rateLimit.anonymousRoutes, { Slots: 30, Reservations: 10, Bookings: 10 });
    assert.deepEqual(loadConfig({ RATE_LIMIT_ANONYMOUS: '600', RATE_LIMIT_ANONYMOUS_BOOKINGS: '7' }).rateLimit.anonymousRoutes, { Slots: 150, Reservations: 50, Bookings: 7 });
  });
});
