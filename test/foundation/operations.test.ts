import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN_API_KEY, backend, createTestApp, type TestApp } from '../support/test-app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Asserts the reference error envelope and returns its `error` member. */
function assertErrorEnvelope(response: { status: number; body: any; text: string }, status: number, code: string, path?: string) {
  assert.equal(response.status, status, response.text);
  assert.equal(typeof response.body, 'object', response.text);
  assert.equal(response.body.status, 'error');
  assert.match(response.body.timestamp, ISO_TIMESTAMP);
  assert.ok(Number.isFinite(Date.parse(response.body.timestamp)));
  assert.equal(typeof response.body.path, 'string');
  if (path !== undefined) assert.equal(response.body.path, path);
  assert.equal(response.body.error.code, code, response.text);
  assert.equal(typeof response.body.error.message, 'string');
  return response.body.error as { code: string; message: string; details?: any };
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text exposition format into samples (comments skipped). */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/.exec(line);
    assert.ok(match, `not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of match[2]?.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g) ?? []) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

function sampleValue(samples: Sample[], name: string, labels: Record<string, string>): number | undefined {
  return samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;
}

describe('operational endpoints and HTTP plumbing', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('GET /health answers 200 ok in the success envelope', async () => {
    const response = await api.request('GET', '/health');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'success', data: { status: 'ok' } });
  });

  test('GET /ready reports the backend and current migrations', async () => {
    const response = await api.request('GET', '/ready');
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.status, 'success');
    assert.equal(response.body.data.database, backend);
    const { applied, expected } = response.body.data.migrations;
    assert.ok(Number.isInteger(expected) && expected > 0, `expected migrations: ${expected}`);
    assert.equal(applied, expected);
  });

  test('GET /metrics counts requests by route template, with latency buckets', async () => {
    const { apiKey } = await api.createUser();
    const calls = 4;
    for (let i = 0; i < calls; i++) assert.equal((await api.request('GET', '/v2/me', { key: apiKey })).status, 200);
    const unmatched = await api.request('GET', '/v2/me/does-not-exist', { key: apiKey });
    assert.equal(unmatched.status, 404);

    // Metrics are recorded in onResponse, which may finish just after the client has read the body.
    let text = '';
    let samples: Sample[] = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await api.request('GET', '/metrics');
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
      text = response.text;
      samples = parseMetrics(text);
      const counted = sampleValue(samples, 'svc_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }) ?? 0;
      const me = sampleValue(samples, 'svc_http_requests_total', { method: 'GET', route: '/v2/me', status: '200' }) ?? 0;
      if (me >= calls && counted >= 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    assert.match(text, /^# TYPE svc_http_requests_total counter$/m);
    assert.match(text, /^# TYPE svc_http_request_duration_seconds histogram$/m);
    const me = sampleValue(samples, 'svc_http_requests_total', { method: 'GET', route: '/v2/me', status: '200' });
    assert.ok(me !== undefined && me >= calls, `svc_http_requests_total for GET /v2/me 200 is ${me}, expected >= ${calls}\n${text}`);
    const buckets = samples.filter(
      (sample) => sample.name === 'svc_http_request_duration_seconds_bucket' && sample.labels.route === '/v2/me' && sample.labels.method === 'GET' && sample.labels.status === '200',
    );
    assert.ok(buckets.length > 0, 'a duration histogram for GET /v2/me');
    const infinite = buckets.find((sample) => sample.labels.le === '+Inf');
    assert.ok(infinite && infinite.value >= calls, `+Inf bucket ${infinite?.value}`);

    const unmatchedCount = sampleValue(samples, 'svc_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' });
    assert.ok(unmatchedCount !== undefined && unmatchedCount >= 1, `unknown routes count under route="unmatched"\n${text}`);
    assert.doesNotMatch(text, /does-not-exist/, 'a raw URL must never become a label');
  });

  test('X-Request-Id is echoed when valid, generated otherwise', async () => {
    const echoed = await api.request('GET', '/health', { headers: { 'x-request-id': 'abc-123' } });
    assert.equal(echoed.headers.get('x-request-id'), 'abc-123');

    const allowed = 'Trace_1.2:3-' + 'x'.repeat(116); // exactly 128 characters of the allowed set
    assert.equal(allowed.length, 128);
    assert.equal((await api.request('GET', '/health', { headers: { 'x-request-id': allowed } })).headers.get('x-request-id'), allowed);

    const generated = await api.request('GET', '/health');
    assert.match(generated.headers.get('x-request-id') ?? '', UUID);
    const other = await api.request('GET', '/health');
    assert.notEqual(other.headers.get('x-request-id'), generated.headers.get('x-request-id'));

    for (const bad of ['has space', 'semi;colon', 'a/b', '<script>', 'quote"d', 'x'.repeat(129)]) {
      const response = await api.request('GET', '/health', { headers: { 'x-request-id': bad } });
      const id = response.headers.get('x-request-id') ?? '';
      assert.notEqual(id, bad, `"${bad.slice(0, 20)}" must be replaced`);
      assert.match(id, UUID, `"${bad.slice(0, 20)}" replaced by a uuid`);
    }

    // Errors carry it too.
    const notFound = await api.request('GET', '/v2/nope', { headers: { 'x-request-id': 'req-404' } });
    assert.equal(notFound.status, 404);
    assert.equal(notFound.headers.get('x-request-id'), 'req-404');
  });

  test('an unknown route is a 404 in the reference envelope', async () => {
    const before = Date.now();
    const response = await api.request('GET', '/v2/nope');
    const error = assertErrorEnvelope(response, 404, 'NotFoundException', '/v2/nope');
    assert.equal(error.message, 'Cannot GET /v2/nope');
    assert.deepEqual(Object.keys(response.body).sort(), ['error', 'path', 'status', 'timestamp']);
    const at = Date.parse(response.body.timestamp);
    assert.ok(at >= before - 1000 && at <= Date.now() + 1000, 'timestamp is now');
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);

    const withQuery = await api.request('DELETE', '/v2/nope/deeper?x=1');
    assert.equal(assertErrorEnvelope(withQuery, 404, 'NotFoundException').message, 'Cannot DELETE /v2/nope/deeper');
  });

  test('malformed JSON is a 400 in the error envelope', async () => {
    const { apiKey } = await api.createUser();
    for (const body of ['{"name":', '{name: "x"}', '{"name": "x"} trailing']) {
      const response = await api.request('PATCH', '/v2/me', { key: apiKey, body });
      assertErrorEnvelope(response, 400, 'BadRequestException', '/v2/me');
    }
    const empty = await api.request('POST', '/v2/admin/users', { key: ADMIN_API_KEY, body: '', headers: { 'content-type': 'application/json' } });
    assertErrorEnvelope(empty, 400, 'BadRequestException', '/v2/admin/users');
  });

  test('CORS preflight answers 204 with the allowed headers', async () => {
    const response = await api.request('OPTIONS', '/v2/me', {
      headers: { origin: 'https://app.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,svc-api-version' },
    });
    assert.equal(response.status, 204, response.text);
    assert.equal(response.headers.get('access-control-allow-origin'), '*');
    const allowedHeaders = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    for (const name of ['svc-api-version', 'x-svc-client-id', 'x-svc-secret-key', 'authorization', 'content-type']) {
      assert.ok(allowedHeaders.includes(name), `allowed headers include ${name}: ${allowedHeaders.join(', ')}`);
    }
    assert.match(response.headers.get('access-control-allow-methods') ?? '', /\bPATCH\b/);
    assert.equal(response.headers.get('access-control-max-age'), '86400');

    // A simple cross-origin request exposes the request id and rate-limit headers to browsers.
    const simple = await api.request('GET', '/health', { headers: { origin: 'https://app.example' } });
    assert.equal(simple.headers.get('access-control-allow-origin'), '*');
    assert.match(simple.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/i);
  });
});

describe('readiness with a pending migration', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('answers 503 migrations_pending once the newest migration row is gone', async () => {
    assert.equal((await api.request('GET', '/ready')).status, 200);
    await api.runtime.ctx.database.exec(
      'delete from drizzle.__drizzle_migrations where id = (select id from drizzle.__drizzle_migrations order by created_at desc, id desc limit 1)',
    );
    const response = await api.request('GET', '/ready');
    const error = assertErrorEnvelope(response, 503, 'ServiceUnavailableException', '/ready');
    assert.equal(error.details?.reason, 'migrations_pending');
    // Liveness is unaffected.
    assert.equal((await api.request('GET', '/health')).status, 200);
  });
});

describe('body limit', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp({ SVC_BODY_LIMIT_BYTES: '2048' });
  });
  after(() => api.close());

  test('a body over SVC_BODY_LIMIT_BYTES is a 413 in the error envelope', async () => {
    const body = { email: `big-${Date.now()}@example.com`, name: 'Big', bio: 'x'.repeat(5 * 1024) };
    assert.ok(JSON.stringify(body).length > 5000);
    const response = await api.request('POST', '/v2/admin/users', { key: ADMIN_API_KEY, body });
    assertErrorEnvelope(response, 413, 'PayloadTooLargeException', '/v2/admin/users');

    // Just under the limit still goes through to validation and creation.
    const small = await api.request('POST', '/v2/admin/users', { key: ADMIN_API_KEY, body: { ...body, bio: 'x'.repeat(1024) } });
    assert.equal(small.status, 201, small.text);
  });
});

describe('hostile input never causes a 500', () => {
  let api: TestApp;
  let apiKey: string;
  before(async () => {
    api = await createTestApp();
    ({ apiKey } = await api.createUser());
  });
  after(() => api.close());

  test('about thirty odd requests all answer below 500', async () => {
    const deep = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);
    type Case = { method: string; path: string; key?: string; body?: string; headers?: Record<string, string> };
    const user = (c: Omit<Case, 'key'>): Case => ({ ...c, key: apiKey });
    const admin = (c: Omit<Case, 'key'>): Case => ({ ...c, key: ADMIN_API_KEY });
    const json = { 'content-type': 'application/json' };
    const cases: Case[] = [
      // huge and odd numbers
      user({ method: 'PATCH', path: '/v2/me', body: '{"timeFormat": 1e999}' }),
      user({ method: 'PATCH', path: '/v2/me', body: '{"timeFormat": 99999999999999999999999999}' }),
      user({ method: 'PATCH', path: '/v2/me', body: '{"timeFormat": -0.0000000001}' }),
      admin({ method: 'DELETE', path: '/v2/admin/users/99999999999999999999' }),
      admin({ method: 'DELETE', path: '/v2/admin/users/2147483648' }),
      admin({ method: 'DELETE', path: '/v2/admin/users/1e400' }),
      admin({ method: 'DELETE', path: '/v2/admin/users/-1' }),
      admin({ method: 'GET', path: '/v2/admin/users?take=99999999999999999999999&skip=99999999999999999999999' }),
      admin({ method: 'GET', path: '/v2/admin/users?skip=9007199254740993' }),
      // nested arrays and wrong shapes
      user({ method: 'PATCH', path: '/v2/me', body: deep(5000) }),
      user({ method: 'PATCH', path: '/v2/me', body: `{"metadata": ${deep(2000)}}` }),
      user({ method: 'PATCH', path: '/v2/me', body: '{"name": ["a", ["b"]], "metadata": [[[]]]}' }),
      admin({ method: 'POST', path: '/v2/admin/users', body: '[{"email": "a@b.c", "name": "x"}]' }),
      // null and empty bodies
      user({ method: 'PATCH', path: '/v2/me', body: 'null' }),
      user({ method: 'PATCH', path: '/v2/me', body: '{"name": null, "timeZone": null, "metadata": null}' }),
      admin({ method: 'POST', path: '/v2/admin/users', body: 'null' }),
      user({ method: 'POST', path: '/v2/api-keys/refresh', body: '"just a string"' }),
      // prototype pollution attempts
      user({ method: 'PATCH', path: '/v2/me', body: '{"__proto__": {"role": "ADMIN"}}' }),
      user({ method: 'PATCH', path: '/v2/me', body: '{"constructor": {"prototype": {"role": "ADMIN"}}}' }),
      // wrong content types
      user({ method: 'PATCH', path: '/v2/me', body: '{"name": "plain"}', headers: { 'content-type': 'text/plain' } }),
      user({ method: 'PATCH', path: '/v2/me', body: 'name=form&weekStart=Monday', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      admin({ method: 'POST', path: '/v2/admin/users', body: '--x\r\n\r\n--x--', headers: { 'content-type': 'multipart/form-data; boundary=x' } }),
      user({ method: 'PATCH', path: '/v2/me', body: '{"name": "x"}', headers: { 'content-type': 'application/json; charset=utf-16' } }),
      user({ method: 'PATCH', path: '/v2/me', body: '{"name": "x"}', headers: { 'content-type': 'application/octet-stream' } }),
      // unicode
      user({ method: 'PATCH', path: '/v2/me', body: JSON.stringify({ name: 'Zoë 🦄 مرحبا \u202e', bio: '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', metadata: { 'ключ': 'значение' } }), headers: json }),
      user({ method: 'PATCH', path: '/v2/me', body: '{"name": "lone \\ud800 surrogate"}' }),
      user({ method: 'PATCH', path: '/v2/me', body: '{"timeZone": "Europe/R\\u00f6me", "locale": "\\u0000"}' }),
      // odd paths
      user({ method: 'GET', path: '/v2/me%00' }),
      admin({ method: 'DELETE', path: '/v2/admin/users/%00' }),
      admin({ method: 'DELETE', path: '/v2/admin/users/%ZZ' }),
      admin({ method: 'DELETE', path: '/v2/admin/users/..%2F..%2Fme' }),
      user({ method: 'GET', path: '/v2/%E0%A4%A' }),
      // query strings with repeated and odd keys
      admin({ method: 'GET', path: '/v2/admin/users?take=1&take=2&skip=0&skip=x' }),
      admin({ method: 'GET', path: '/v2/admin/users?take[]=1&take[0]=2&__proto__[x]=1&constructor[prototype][y]=2' }),
      admin({ method: 'GET', path: '/v2/admin/users?take=%00&skip=%F0%9F%A6%84' }),
      // headers
      { method: 'GET', path: '/v2/me', headers: { authorization: `Bearer svc_${'z'.repeat(8000)}` } },
      { method: 'GET', path: '/v2/me', headers: { authorization: 'Bearer a b c' } },
      { method: 'GET', path: '/v2/me', headers: { authorization: 'Bearer \u00ff\u00fe' } },
      { method: 'GET', path: '/v2/me', headers: { 'x-svc-client-id': "' or 1=1 --", 'x-svc-secret-key': '\u00ff' } },
      user({ method: 'GET', path: '/v2/me', headers: { 'svc-api-version': '../../etc/passwd' } }),
    ];
    assert.ok(cases.length >= 30);

    const failures: string[] = [];
    for (const c of cases) {
      const headers: Record<string, string> = { ...c.headers };
      if (c.key) headers.authorization = `Bearer ${c.key}`;
      if (c.body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
      let status: number;
      let text: string;
      try {
        const response = await fetch(api.baseUrl + c.path, { method: c.method, headers, body: c.body });
        status = response.status;
        text = await response.text();
      } catch (error) {
        failures.push(`${c.method} ${c.path.slice(0, 60)} ${c.body?.slice(0, 60) ?? ''}: request failed: ${(error as Error).message}`);
        continue;
      }
      if (status >= 500) failures.push(`${c.method} ${c.path.slice(0, 60)} ${c.body?.slice(0, 60) ?? ''} -> ${status} ${text.slice(0, 200)}`);
    }
    assert.deepEqual(failures, [], `requests answered with 5xx:\n${failures.join('\n')}`);

    // The server is still healthy afterwards and the user was not made an admin.
    assert.equal((await api.request('GET', '/health')).status, 200);
    assert.equal((await api.request('GET', '/v2/admin/users', { key: apiKey })).status, 403);
  });

  test('a body nested past 16 levels is a 400 in the envelope naming where, never a stack overflow', async () => {
    const nest = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    for (const [path, body] of [
      ['/v2/me', `{"metadata":${nest(10_000)}}`],
      ['/v2/me', `{"metadata":${nest(16)}}`],
      ['/v2/webhooks', `{"active":true,"x":[${'['.repeat(5_000)}${']'.repeat(5_000)}]}`],
    ] as const) {
      const response = await api.request(path === '/v2/me' ? 'PATCH' : 'POST', path, { key: apiKey, body });
      assert.equal(response.status, 400, response.text.slice(0, 300));
      assert.equal(response.body.status, 'error');
      assert.equal(response.body.error.code, 'BadRequestException');
      assert.match(response.body.error.message, /must not nest objects or arrays more than 16 levels deep/);
      assert.match(response.body.error.details.errors[0].property, path === '/v2/me' ? /^metadata(\.a)+$/ : /^x(\.0)+$/);
      assert.ok(response.text.length < 2_000, 'the nested value is not echoed back');
    }
    // Fifteen levels under the body pass the depth check (and then meet the schema as usual).
    const shallow = await api.request('PATCH', '/v2/me', { key: apiKey, body: `{"metadata":${nest(15)}}` });
    assert.equal(shallow.status, 400);
    assert.doesNotMatch(shallow.body.error.message, /levels deep/);
  });

  test('a NUL character in a stored text field is a 400, not a 500', async () => {
    // PostgreSQL (and PGlite) cannot store U+0000 in text (22021) or jsonb (22P05).
    const cases: { method: string; path: string; key: string; body: string }[] = [
      { method: 'PATCH', path: '/v2/me', key: apiKey, body: '{"name": "nul \\u0000 byte"}' },
      { method: 'PATCH', path: '/v2/me', key: apiKey, body: '{"bio": "\\u0000"}' },
      { method: 'PATCH', path: '/v2/me', key: apiKey, body: '{"metadata": {"k": "nul \\u0000 in metadata"}}' },
      { method: 'POST', path: '/v2/admin/users', key: ADMIN_API_KEY, body: `{"email": "nul-${Date.now()}@example.com", "name": "a\\u0000b"}` },
    ];
    const answers: string[] = [];
    for (const c of cases) {
      const response = await api.request(c.method, c.path, { key: c.key, body: c.body });
      answers.push(`${c.method} ${c.path} ${c.body} -> ${response.status} ${response.body?.error?.code ?? ''}`);
    }
    assert.deepEqual(
      answers.filter((answer) => !/ -> 400 BadRequestException$/.test(answer)),
      [],
      `every NUL case must be a 400 BadRequestException:\n${answers.join('\n')}`,
    );
  });
});
