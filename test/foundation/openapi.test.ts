import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { CUSTOM_FORMATS, validatorCompiler } from '../../src/http/validation.js';
import { type ApiResponse, createTestApp, type TestApp } from '../support/test-app.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';
/** The examples' dates are in 2030: the app's clock is set before them. */
const EXAMPLE_NOW = Date.parse('2030-08-26T08:00:00Z');
const API_KEY_LIMIT = 20;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const toOpenApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');
const splitKey = (key: string) => {
  const [method, url] = key.split(' ') as [string, string];
  return { method, url };
};

interface Operation {
  name: string;
  method: string;
  path: string;
  op: any;
}

function operationsOf(document: any): Operation[] {
  return Object.entries<any>(document.paths).flatMap(([pathName, item]) =>
    Object.entries<any>(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ name: `${method.toUpperCase()} ${pathName}`, method: method.toUpperCase(), path: pathName, op })),
  );
}

/** The status of the errors each helper of src/lib/errors.ts makes (src/app/error-handler.ts). */
const HELPER_STATUS: Record<string, number> = {
  badRequest: 400,
  unavailable: 503,
  fieldRejected: 400,
  invalidField: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  unprocessable: 422,
};
/** The same for `new DomainError(kind, ...)`. */
const KIND_STATUS: Record<string, number> = { bad_request: 400, unauthorized: 401, forbidden: 403, not_found: 404, conflict: 409, unprocessable: 422, too_many_requests: 429, token_expired: 498, unavailable: 503 };

/** Every (status, reason) a service throws with a literal reason. */
function thrownReasons(): { status: number; reason: string; file: string }[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.startsWith('openapi')) files.push(full);
    }
  };
  walk(path.join(root, 'src'));
  const call = /\b(badRequest|notFound|forbidden|unauthorized|conflict|unprocessable|unavailable|fieldRejected|invalidField)\(\s*(?:('[^']*'|`[^`]*`|[\w.]+)\s*,\s*)?'([a-z_0-9]+)'|new DomainError\(\s*'([a-z_]+)',\s*'([a-z_0-9]+)'/g;
  const found: { status: number; reason: string; file: string }[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(call)) {
      const relative = path.relative(root, file);
      if (match[4]) {
        found.push({ status: KIND_STATUS[match[4]]!, reason: match[5]!, file: relative });
        continue;
      }
      const kind = match[1]!;
      // The reason is the first argument, except for fieldRejected(property, reason) and invalidField(property).
      if (kind === 'invalidField') found.push({ status: 400, reason: 'validation_failed', file: relative });
      else if (kind === 'fieldRejected' ? match[2] !== undefined : match[2] === undefined) found.push({ status: HELPER_STATUS[kind]!, reason: match[3]!, file: relative });
    }
  }
  return found;
}

describe('the API document: OpenAPI 3.1 and its errors', () => {
  let api: TestApp;
  let document: any;
  let operations: Operation[];

  before(async () => {
    // A low API-key limit: the 429 test reaches it without hundreds of requests.
    api = await createTestApp({ RATE_LIMIT_API_KEY: String(API_KEY_LIMIT) }, undefined, { clock: () => EXAMPLE_NOW });
    const response = await api.request('GET', '/docs/openapi.json');
    assert.equal(response.status, 200, response.text);
    document = response.body;
    operations = operationsOf(document);

  });
  after(async () => {
    await api?.close();
  });

  test('/docs/openapi.json validates as OpenAPI 3.1', async () => {
    assert.equal(document.openapi, '3.1.0');
    const result = await validate(structuredClone(document));
    assert.ok(result.valid, `OpenAPI validation failed: ${JSON.stringify('errors' in result ? result.errors : result).slice(0, 3000)}`);
    assert.deepEqual(result.warnings, []);
    // The validator does reject a broken document (an error response whose $ref leads nowhere).
    const broken = structuredClone(document);
    delete broken.components.schemas.ErrorEnvelope;
    assert.equal((await validate(broken)).valid, false, 'a dangling ErrorEnvelope reference is refused');
  });

  test('info carries svc\'s name and a getting-started text', () => {
    assert.equal(document.info.title, 'svc scheduling API');
    const text: string = document.info.description;
    for (const expected of [
      'http://localhost:5555',
      'Bearer svc_',
      'x-svc-secret-key',
      'x-svc-client-id',
      'svc-api-version',
      '| Event types | `2024-06-14` |',
      '| Schedules | `2024-06-11` |',
      '| Bookings | `2024-08-13` |',
      '`2024-09-04` |',
      'ErrorEnvelope',
      'details.reason',
      'Idempotency-Key',
      'Retry-After',
      'POST /v2/schedules',
      'POST /v2/event-types',
      'GET /v2/slots',
      'POST /v2/bookings',
    ]) {
      assert.ok(text.includes(expected), `info.description mentions ${expected}`);
    }
  });

  test('every operation documents its errors with the envelope, derived from its declaration', () => {
    assert.ok(operations.length >= 40, `${operations.length} operations`);
    const envelope = document.components.schemas.ErrorEnvelope;
    assert.deepEqual(envelope.required, ['status', 'timestamp', 'path', 'error']);
    assert.deepEqual(envelope.properties.error.required, ['code', 'message']);
    assert.ok(envelope.properties.error.properties.details.properties.reason, 'details.reason is documented');
    assert.equal(envelope.properties.error.properties.details.properties.errors.items.$ref, '#/components/schemas/FieldError');

    const codes: Record<string, string> = {
      400: 'BadRequestException',
      401: 'UnauthorizedException',
      403: 'ForbiddenException',
      404: 'NotFoundException',
      409: 'ConflictException',
      413: 'PayloadTooLargeException',
      415: 'UnsupportedMediaTypeException',
      422: 'UnprocessableEntityException',
      429: 'ThrottlerException',
      498: 'TokenExpiredException',
      500: 'InternalServerErrorException',
      503: 'ServiceUnavailableException',
    };
    const operational = new Set(['GET /health', 'GET /ready', 'GET /metrics']);
    // Not rate limited: the operational routes, and the providers' push notifications (shared addresses).
    const unthrottled = new Set([...operational, 'POST /v2/calendars/google/notifications', 'POST /v2/calendars/office365/notifications', 'POST /v2/conferencing/daily/webhook', 'POST /v2/text-messages/twilio/status', 'POST /v2/stripe/webhook']);
    for (const { name, op } of operations) {
      const errors = Object.entries<any>(op.responses).filter(([status]) => Number(status) >= 400);
      assert.ok(errors.length > 0, `${name} documents error responses`);
      if (!operational.has(name)) assert.ok(errors.some(([status]) => Number(status) < 500), `${name} documents 4xx responses`);
      for (const [status, response] of errors) {
        const media = response.content?.['application/json'];
        assert.equal(media?.schema?.$ref, ENVELOPE_REF, `${name} ${status} references the envelope`);
        assert.ok(codes[status], `${name}: ${status} is a known status`);
        assert.ok(response.description.includes(`\`${codes[status]}\``), `${name} ${status} names ${codes[status]}`);
        assert.equal(media.example?.error?.code, codes[status], `${name} ${status}: the example has the code`);
        assert.match(media.example?.error?.details?.reason ?? '', /^\w+$/, `${name} ${status}: the example has a reason`);
      }

      const has = (status: number) => String(status) in op.responses;
      const access = op['x-svc-access'];
      const parameters: any[] = op.parameters ?? [];
      const expectations: [number, boolean][] = [
        // A 400 is documented where some input can be refused (a free-form id alone cannot); the OAuth 2.0
        // endpoints answer theirs as RFC 6749 bodies, which their descriptions name.
        [400, Boolean(op.requestBody) && !name.startsWith('POST /v2/auth/oauth2/')],
        [401, Boolean(access && access.auth !== 'none')],
        [403, Boolean(access?.scope || access?.systemAdmin)],
        [413, Boolean(op.requestBody)],
        [422, parameters.some((parameter) => parameter.in === 'header' && parameter.name === 'idempotency-key')],
        [429, !unthrottled.has(name)],
        [498, Boolean(access?.credentials.includes('accessToken'))],
        [500, true],
      ];
      for (const [status, expected] of expectations) if (expected) assert.ok(has(status), `${name} documents ${status}`);
      if (!unthrottled.has(name)) {
        const headers = op.responses['429'].headers ?? {};
        for (const header of ['Retry-After', 'X-RateLimit-Limit-Default', 'X-RateLimit-Remaining-Default', 'X-RateLimit-Reset-Default']) assert.ok(headers[header], `${name} 429 documents ${header}`);
      }
      if (op.responses['401'] && access?.auth === 'required') assert.match(op.responses['401'].description, /`no_credentials`/, `${name}: 401 names no_credentials`);
    }
    for (const name of ['POST /v2/bookings', 'POST /v2/bookings/{bookingUid}/reschedule', 'POST /v2/webhooks']) {
      assert.ok(operations.find((operation) => operation.name === name)?.op.responses['409'], `${name} documents 409`);
    }
    const booking = operations.find((operation) => operation.name === 'POST /v2/bookings')!.op;
    assert.ok(booking.responses['429'].headers['X-RateLimit-Remaining-Bookings'], 'the anonymous Bookings throttle is documented');
    assert.match(booking.responses['400'].description, /`slot_unavailable`/);
    assert.match(booking.responses['409'].description, /`booking_conflict`/);
  });

  test('every reason the services throw is documented under its status', () => {
    const thrown = thrownReasons();
    assert.ok(thrown.length >= 60, `${thrown.length} thrown reasons found: the scan reads the services`);
    const documented = new Set<string>();
    for (const { op } of operations) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        for (const match of (response.description as string).matchAll(/`([a-z_0-9]+)`/g)) documented.add(`${status} ${match[1]}`);
      }
    }
    const missing = thrown.filter(({ status, reason }) => !documented.has(`${status} ${reason}`)).map(({ status, reason, file }) => `${status} ${reason} (${file})`);
    assert.deepEqual([...new Set(missing)], [], 'reasons thrown but not documented: add them to REASON_GROUPS in src/http/openapi-reasons.ts');
  });

  test('real error answers match the documented envelope, code and reason', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(document.components.schemas.FieldError, '#/components/schemas/FieldError');
    const validateEnvelope = ajv.compile(document.components.schemas.ErrorEnvelope);
    const envelopeErrors = (body: unknown): string | null => (validateEnvelope(body) ? null : ajv.errorsText(validateEnvelope.errors));
    const { user, apiKey } = await api.createUser();
    assert.ok(user.id);
    const bodyLimit = api.config.bodyLimitBytes;
    const cases: { name: string; method: string; path: string; documentedAs: string; status: number; reason: string; send: Parameters<TestApp['request']>[2] }[] = [
      { name: 'validation', method: 'POST', path: '/v2/schedules', documentedAs: 'post /v2/schedules', status: 400, reason: 'validation_failed', send: { key: apiKey, body: { name: '', timeZone: 'Mars/Base', isDefault: 'yes' } } },
      { name: 'no credentials', method: 'GET', path: '/v2/schedules', documentedAs: 'get /v2/schedules', status: 401, reason: 'no_credentials', send: {} },
      { name: 'unknown booking', method: 'GET', path: '/v2/bookings/00000000-0000-4000-8000-000000000000', documentedAs: 'get /v2/bookings/{bookingUid}', status: 404, reason: 'booking_not_found', send: { key: apiKey } },
      { name: 'body too large', method: 'POST', path: '/v2/webhooks', documentedAs: 'post /v2/webhooks', status: 413, reason: 'FST_ERR_CTP_BODY_TOO_LARGE', send: { key: apiKey, body: { subscriberUrl: 'x'.repeat(bodyLimit) } } },
      { name: 'not JSON', method: 'POST', path: '/v2/webhooks', documentedAs: 'post /v2/webhooks', status: 415, reason: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', send: { key: apiKey, body: '<webhook/>', headers: { 'content-type': 'application/xml' } } },
    ];
    for (const { name, method, path: url, documentedAs, status, reason, send } of cases) {
      const response = await api.request<any>(method, url, send);
      assert.equal(response.status, status, `${name}: ${response.text.slice(0, 300)}`);
      const [documentedMethod, documentedPath] = documentedAs.split(' ') as [string, string];
      const documented = document.paths[documentedPath][documentedMethod].responses[String(status)];
      assert.ok(documented, `${name}: ${documentedAs} documents ${status}`);
      assert.equal(envelopeErrors(response.body), null, name);
      assert.ok(documented.description.includes(`\`${response.body.error.code}\``), `${name}: the answer's code ${response.body.error.code} is documented`);
      assert.equal(response.body.error.details.reason, reason, name);
      assert.ok(documented.description.includes(`\`${reason}\``), `${name}: the reason ${reason} is documented`);
    }

    // 429 with Retry-After and the documented headers (RATE_LIMIT_API_KEY is low in this app).
    const { apiKey: busyKey } = await api.createUser();
    let throttled: ApiResponse | undefined;
    for (let attempt = 0; attempt <= API_KEY_LIMIT && !throttled; attempt++) {
      const response = await api.request('GET', '/v2/schedules', { key: busyKey });
      if (response.status === 429) throttled = response;
    }
    assert.ok(throttled, 'the API key limit is reached');
    assert.equal(envelopeErrors(throttled.body), null);
    const documented429 = document.paths['/v2/schedules'].get.responses['429'];
    assert.ok(documented429.description.includes(`\`${throttled.body.error.code}\``));
    assert.ok(documented429.description.includes(`\`${throttled.body.error.details.reason}\``));
    for (const header of Object.keys(documented429.headers)) assert.ok(throttled.headers.get(header) !== null, `the 429 carries ${header}`);
  });
});
