// The API document's examples are svc's own answers: each success example validates against its
// route's schemas and, sent in flow order to a real app, gets an answer of its shape; each error
// example validates against the envelope, names only its operation's own fields, and (where a
// request can be made for it) is what svc really answers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifySchema } from 'fastify';
import { buildApp } from '../../src/app/build-app.js';
import type { App } from '../../src/http/app.js';
import { invalidInputExample } from '../../src/http/openapi-error-examples.js';
import { EXAMPLE_FLOW, type OperationExample } from '../../src/http/openapi-examples.js';
import { REASON_MESSAGES, UNLISTED_MESSAGE } from '../../src/http/openapi-messages.js';
import { validatorCompiler } from '../../src/http/validation.js';
import { ADMIN_API_KEY, createTestApp, type RequestOptions, type TestApp } from '../support/test-app.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The examples' dates are in 2030: the app's clock is set before them. */
const EXAMPLE_NOW = Date.parse('2030-08-26T08:00:00Z');
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);
const ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';

const toOpenApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');
const toFastifyPath = (url: string) => url.replace(/\{(\w+)\}/g, ':$1');

interface Operation {
  /** `POST /v2/bookings/:bookingUid/cancel`: the key of the route's schemas and examples. */
  key: string;
  method: string;
  url: string;
  op: any;
}

function operationsOf(document: any): Operation[] {
  return Object.entries<any>(document.paths).flatMap(([pathName, item]) =>
    Object.entries<any>(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${toFastifyPath(pathName)}`, method: method.toUpperCase(), url: toFastifyPath(pathName), op })),
  );
}

/** Paths of `original` that `validated` lacks: what removeAdditional dropped as unknown to the schema. */
function droppedPaths(original: unknown, validated: unknown, at = ''): string[] {
  if (original === null || typeof original !== 'object') return [];
  if (validated === null || typeof validated !== 'object') return [at || '(root)'];
  return Object.entries(original).flatMap(([key, value]) =>
    key in validated ? droppedPaths(value, (validated as Record<string, unknown>)[key], `${at}.${key}`) : [`${at}.${key}`],
  );
}

/** Checks `value` against `schema` with svc's own validator: no error, and no field the schema does not know. */
function schemaProblems(schema: unknown, part: 'body' | 'querystring' | 'params', value: unknown, openMaps: RegExp | null = null): string[] {
  const validate = validatorCompiler({ schema: schema as never, httpPart: part, method: 'GET', url: '/' }) as ((value: unknown) => boolean) & { errors?: unknown };
  const copy = structuredClone(value);
  if (!validate(copy)) return [JSON.stringify(validate.errors)];
  // removeAdditional: 'all' empties maps (additionalProperties: {...}) too: their keys are not unknown fields.
  return droppedPaths(value, copy)
    .filter((dropped) => !openMaps?.test(dropped))
    .map((dropped) => `${dropped} is not in the schema`);
}

/** Differences in shape (keys and JSON types, not values) between an example and a real answer. */
function shapeDifferences(example: unknown, actual: unknown, at = 'body'): string[] {
  const kind = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
  if (kind(example) !== kind(actual)) return [`${at}: example ${kind(example)}, answer ${kind(actual)}`];
  if (Array.isArray(example) && Array.isArray(actual)) {
    if (example.length === 0 || actual.length === 0) return example.length === actual.length ? [] : [`${at}: example has ${example.length} items, answer ${actual.length}`];
    return shapeDifferences(example[0], actual[0], `${at}[0]`);
  }
  if (kind(example) !== 'object') return [];
  const exampleObject = example as Record<string, unknown>;
  const actualObject = actual as Record<string, unknown>;
  const differences: string[] = [];
  for (const key of new Set([...Object.keys(exampleObject), ...Object.keys(actualObject)])) {
    if (!(key in actualObject)) differences.push(`${at}.${key}: only in the example`);
    else if (!(key in exampleObject)) differences.push(`${at}.${key}: missing from the example`);
    else differences.push(...shapeDifferences(exampleObject[key], actualObject[key], `${at}.${key}`));
  }
  return differences;
}

/** The names a request to the operation can carry: its body's properties (of any union branch) and its parameters. */
function ownFieldNames(document: any, op: any): Set<string> {
  const names = new Set<string>((op.parameters ?? []).map((parameter: any) => String(parameter.name).toLowerCase()));
  const resolve = (schema: any): any => (schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema);
  const collect = (schema: any) => {
    const resolved = resolve(schema);
    if (!resolved) return;
    for (const name of Object.keys(resolved.properties ?? {})) names.add(name.toLowerCase());
    for (const branch of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])]) collect(branch);
  };
  collect(op.requestBody?.content?.['application/json']?.schema);
  return names;
}

/** The fields an operation's error examples name that the operation does not have (`attendee` on a schedule). */
function foreignFields(document: any, op: any): string[] {
  const own = ownFieldNames(document, op);
  const named = Object.values<any>(op.responses)
    .flatMap((response) => response.content?.['application/json']?.example?.error?.details?.errors ?? [])
    .map((error: { property: string }) => error.property.split('.')[0]!.toLowerCase());
  return named.filter((name) => !own.has(name));
}

/** The documented examples of a media type: the single `example`, or the named `examples`. */
function mediaExamples(media: any): Record<string, unknown> {
  if (media?.examples) return Object.fromEntries(Object.entries<any>(media.examples).map(([name, example]) => [name, example.value]));
  return media && 'example' in media ? { only: media.example } : {};
}

/** Every (reason, message) thrown or sent by src/ with literal text; `${...}` stands for anything. */
function sourceMessages(): Map<string, RegExp[]> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.startsWith('openapi')) files.push(full);
    }
  };
  walk(path.join(root, 'src'));
  const text = String.raw`('(?:[^'\\]|\\.)*'|\x60(?:[^\x60\\]|\\.)*\x60|"(?:[^"\\]|\\.)*"|[A-Z_]+)`;
  const calls = [
    new RegExp(String.raw`\b(?:badRequest|notFound|forbidden|unauthorized|conflict|unprocessable|unavailable)\(\s*'([a-z_0-9]+)',\s*${text}`, 'g'),
    new RegExp(String.raw`\bfieldRejected\(\s*[^,]+,\s*'([a-z_0-9]+)',\s*${text}`, 'g'),
    new RegExp(String.raw`new DomainError\(\s*'[a-z_]+',\s*'([a-z_0-9]+)',\s*${text}`, 'g'),
  ];
  const sent = new RegExp(String.raw`sendError\(\s*reply,\s*\d+,\s*'\w+',\s*${text},\s*\{\s*reason:\s*'([a-zA-Z_0-9]+)'`, 'g');
  const found = new Map<string, RegExp[]>();
  const add = (reason: string, literal: string, source: string) => {
    // A message kept in a constant of the same file (`NOT_A_HOST`).
    if (/^[A-Z_]+$/.test(literal)) literal = new RegExp(String.raw`const ${literal} =\s*${text}`).exec(source)?.[1] ?? '';
    if (!literal) return;
    const body = literal.slice(1, -1).replace(/\\(['"`\\])/g, '$1');
    const pattern = body
      .split(/\$\{(?:[^{}]|\{[^{}]*\})*\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.+');
    found.set(reason, [...(found.get(reason) ?? []), new RegExp(`^${pattern}$`)]);
  };
  for (const file of files) {
    const source = fs.readFileSync(file, 'utf8');
    for (const call of calls) for (const match of source.matchAll(call)) add(match[1]!, match[2]!, source);
    for (const match of source.matchAll(sent)) add(match[2]!, match[1]!, source);
  }
  return found;
}

describe('the API document\'s examples are svc\'s own answers', () => {
  let api: TestApp;
  let document: any;
  let operations: Operation[];
  /** A second app on the same context, to read each operation's own route schemas. */
  let probe: App;
  const routeSchemas = new Map<string, FastifySchema>();

  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => EXAMPLE_NOW });
    const response = await api.request('GET', '/docs/openapi.json');
    assert.equal(response.status, 200, response.text);
    document = response.body;
    operations = operationsOf(document);

    probe = await buildApp(api.runtime.ctx, { logger: false });
    const record = (request: { method: string; routeOptions: { url?: string; schema?: FastifySchema } }) => {
      if (request.routeOptions.url && request.routeOptions.schema) routeSchemas.set(`${request.method} ${request.routeOptions.url}`, request.routeOptions.schema);
    };
    probe.addHook('onRequest', async (request) => record(request));
    probe.addHook('onSend', async (request, _reply, payload) => (record(request), payload));
    await probe.ready();
    for (const { method, url } of operations) await probe.inject({ method: method as never, url: url.replace(/:\w+/g, '1') });
  });
  after(async () => {
    await probe?.close();
    await api?.close();
  });

  test('the flows cover a person, a team, an organization and a platform, and every example is in the document', () => {
    const covered = new Set(EXAMPLE_FLOW.map((example) => example.operation));
    for (const operation of [
      'POST /v2/schedules',
      'POST /v2/event-types',
      'GET /v2/slots',
      'POST /v2/bookings',
      'POST /v2/bookings/:bookingUid/reschedule',
      'POST /v2/bookings/:bookingUid/cancel',
      'POST /v2/webhooks',
      'POST /v2/teams',
      'POST /v2/teams/:teamId/memberships',
      'POST /v2/teams/:teamId/memberships/:membershipId/accept',
      'POST /v2/teams/:teamId/event-types',
      'POST /v2/admin/organizations',
      'POST /v2/organizations/:orgId/teams',
      'POST /v2/organizations/:orgId/memberships',
      'POST /v2/organizations/:orgId/roles',
      'POST /v2/oauth-clients',
      'POST /v2/oauth-clients/:clientId/users',
      'POST /v2/oauth/:clientId/refresh',
    ]) {
      assert.ok(covered.has(operation), `${operation} has an example`);
    }
    for (const example of EXAMPLE_FLOW) {
      const operation = operations.find(({ key }) => key === example.operation);
      assert.ok(operation, `${example.operation} is an operation of the document`);
      const { op } = operation;
      if (example.body !== undefined) {
        const bodies = mediaExamples(op.requestBody.content['application/json']);
        assert.ok(Object.values(bodies).some((body) => JSON.stringify(body) === JSON.stringify(example.body)), `${example.operation} ${example.name}: request example`);
      }
      const answers = mediaExamples(op.responses[String(example.status)].content['application/json']);
      assert.ok(Object.values(answers).some((answer) => JSON.stringify(answer) === JSON.stringify(example.response)), `${example.operation} ${example.name}: response example`);
      assert.ok(op.description.includes(example.summary), `${example.operation}: the description names the example`);
    }
    const booking = operations.find(({ key }) => key === 'POST /v2/bookings')!.op;
    assert.deepEqual(Object.keys(booking.requestBody.content['application/json'].examples), ['personal', 'team'], 'several examples of one operation are named');
  });

  test('every success example validates against its route\'s own schemas with svc\'s validator', () => {
    for (const example of EXAMPLE_FLOW) {
      const schema = routeSchemas.get(example.operation);
      assert.ok(schema, `${example.operation}: the route's schema was read`);
      const label = `${example.operation} ${example.name}`;
      if (example.body !== undefined) assert.deepEqual(schemaProblems(schema.body, 'body', example.body), [], `${label}: request body`);
      if (example.query) assert.deepEqual(schemaProblems(schema.querystring, 'querystring', Object.fromEntries(Object.entries(example.query).map(([name, value]) => [name, String(value)]))), [], `${label}: query`);
      if (example.params) assert.deepEqual(schemaProblems(schema.params, 'params', Object.fromEntries(Object.entries(example.params).map(([name, value]) => [name, String(value)]))), [], `${label}: path parameters`);
      const responseSchema = (schema.response as Record<string, unknown>)[String(example.status)];
      assert.ok(responseSchema, `${label}: the route declares ${example.status}`);
      assert.deepEqual(schemaProblems(responseSchema, 'body', example.response), [], `${label}: ${example.status} response`);
    }
  });

  test('every error example validates against the envelope, shows a documented reason and names only its operation\'s fields', () => {
    const envelope = { ...document.components.schemas.ErrorEnvelope, $defs: undefined };
    // The envelope refers to FieldError; inline it for the validator.
    const inlined = JSON.parse(JSON.stringify(envelope).replaceAll('{"$ref":"#/components/schemas/FieldError"}', JSON.stringify(document.components.schemas.FieldError)));
    let checked = 0;
    for (const { key, op } of operations) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        const media = response.content['application/json'];
        assert.equal(media.schema.$ref, ENVELOPE_REF);
        const example = media.example;
        assert.deepEqual(schemaProblems(inlined, 'body', example, /\.constraints\.[^.]+$/), [], `${key} ${status}: the example is an ErrorEnvelope`);
        assert.ok(response.description.includes(`\`${example.error.details.reason}\``), `${key} ${status}: the example's reason ${example.error.details.reason} is documented`);
        assert.doesNotMatch(JSON.stringify(example), /attendee\.email/, `${key} ${status}`);
        assert.ok(!example.error.message.startsWith(UNLISTED_MESSAGE), `${key} ${status}: add ${example.error.details.reason}'s message to REASON_MESSAGES (src/http/openapi-messages.ts)`);
        checked += 1;
      }
      assert.deepEqual(foreignFields(document, op), [], `${key}: its error examples name only its own fields`);
    }
    assert.ok(checked > 1000, `${checked} error examples checked`);

    // The check does find a field of another operation: a schedule's 400 naming a booking's attendee.
    const schedules = structuredClone(operations.find(({ key }) => key === 'POST /v2/schedules')!.op);
    schedules.responses['400'].content['application/json'].example.error.details.errors = [{ property: 'attendee.email', value: 'grace@', constraints: { format: 'attendee.email must be a valid email' } }];
    assert.deepEqual(foreignFields(document, schedules), ['attendee']);

    // Each operation's examples are its own: the bookings' 403 is the bookings' refusal, not the admin routes'.
    const booking = operations.find(({ key }) => key === 'POST /v2/bookings')!.op;
    assert.equal(booking.responses['403'].content['application/json'].example.error.details.reason, 'booking_requires_authentication');
    assert.equal(booking.responses['400'].content['application/json'].example.error.details.errors[0].property, 'start');
  });

  test('the messages the error examples show are the ones src/ throws for their reasons', () => {
    const thrown = sourceMessages();
    const unmatched = Object.entries(REASON_MESSAGES).filter(([reason, message]) => {
      if (reason.startsWith('FST_ERR_')) return false;
      return !(thrown.get(reason) ?? []).some((pattern) => pattern.test(message));
    });
    assert.deepEqual(unmatched, [], 'REASON_MESSAGES entries no throw site of src/ answers');
    // Framework errors keep Fastify's own messages.
    assert.equal(REASON_MESSAGES.FST_ERR_CTP_BODY_TOO_LARGE, 'Request body is too large');
    assert.equal(REASON_MESSAGES.FST_ERR_CTP_INVALID_MEDIA_TYPE, 'Unsupported Media Type');
  });

  test('the flows, sent in order to a real app, get answers of the examples\' shape', async () => {
    const ada = await api.createUser({ name: 'Ada Lovelace', timeZone: 'Europe/Rome' });
    const grace = await api.createUser({ name: 'Grace Hopper', timeZone: 'America/New_York' });
    // What the examples call 12, 31, team 45 or a client id is whatever this app created for them.
    const created = new Map<unknown, unknown>([
      [7, ada.user.id],
      [8, grace.user.id],
    ]);
    const substitute = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(substitute);
      if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, substitute(inner)]));
      return created.has(value) ? created.get(value) : value;
    };
    const IDENTIFIERS = new Set(['id', 'uid', 'clientId', 'clientSecret', 'accessToken', 'refreshToken']);
    const learn = (example: unknown, actual: unknown) => {
      if (example === null || typeof example !== 'object' || actual === null || typeof actual !== 'object') return;
      for (const [name, value] of Object.entries(example)) {
        const real = (actual as Record<string, unknown>)[name];
        if (IDENTIFIERS.has(name) && (typeof value === 'string' || typeof value === 'number') && !created.has(value)) created.set(value, real);
        else learn(value, real);
      }
    };
    const callerOf = (example: OperationExample, op: any): RequestOptions => {
      if (example.caller === 'invitee') return { key: grace.apiKey };
      if (example.caller === 'systemAdmin') return { key: ADMIN_API_KEY };
      if (example.caller === 'oauthClient') {
        const client = (EXAMPLE_FLOW.find(({ operation }) => operation === 'POST /v2/oauth-clients')!.response as { data: { clientId: string; clientSecret: string } }).data;
        return { headers: { 'x-svc-client-id': String(created.get(client.clientId)), 'x-svc-secret-key': String(created.get(client.clientSecret)) } };
      }
      return op['x-svc-access']?.auth === 'required' ? { key: ada.apiKey } : {};
    };
    for (const example of EXAMPLE_FLOW) {
      const { method, url, op } = operations.find(({ key }) => key === example.operation)!;
      const version = op.parameters?.find((parameter: any) => parameter.name === 'svc-api-version')?.schema?.default;
      const params = substitute(example.params ?? {}) as Record<string, unknown>;
      const query = substitute(example.query ?? {}) as Record<string, unknown>;
      const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)])).toString();
      const target = url.replace(/:(\w+)/g, (_match, name: string) => String(params[name])) + (search ? `?${search}` : '');
      const response = await api.request(method, target, {
        ...callerOf(example, op),
        ...(version ? { version } : {}),
        ...(example.body !== undefined ? { body: substitute(example.body) } : {}),
      });
      const label = `${example.operation} ${example.name}`;
      assert.equal(response.status, example.status, `${label}: ${response.text.slice(0, 500)}`);
      assert.deepEqual(shapeDifferences(example.response, response.body), [], `${label}: the answer has the example's shape`);
      learn(example.response, response.body);
    }
  });

  test('a refused input and a missing credential get the answers the examples show', async () => {
    const ada = await api.createUser({ name: 'Ada Lovelace' });
    const org = await api.request('POST', '/v2/admin/organizations', { key: ADMIN_API_KEY, body: { name: 'Examples Org', ownerId: ada.user.id, isPlatform: true } });
    assert.equal(org.status, 201, org.text);
    const orgTeam = await api.request('POST', `/v2/organizations/${org.body.data.id}/teams`, { key: ada.apiKey, body: { name: 'Examples Org Team' } });
    const team = await api.request('POST', '/v2/teams', { key: ada.apiKey, body: { name: 'Examples Team' } });
    const client = await api.request('POST', '/v2/oauth-clients', { key: ada.apiKey, body: { name: 'Examples client', redirectUris: ['https://example.com/cb'], permissions: ['*'] } });
    assert.deepEqual([orgTeam.status, team.status, client.status], [201, 201, 201]);
    const ids = (url: string): Record<string, string> => ({
      orgId: String(org.body.data.id),
      teamId: String(url.includes(':orgId') ? orgTeam.body.data.id : team.body.data.id),
      clientId: client.body.data.clientId,
    });

    let validations = 0;
    let refusals = 0;
    const skipped: string[] = [];
    for (const { key, method, url, op } of operations) {
      const unauthorized = op.responses['401']?.content['application/json'].example;
      if (op['x-svc-access']?.auth === 'required') {
        const response = await api.request(method, url.replace(/:(\w+)/g, (_match, name: string) => ids(url)[name] ?? '1'));
        assert.equal(response.status, 401, `${key}: ${response.text.slice(0, 300)}`);
        assert.deepEqual([response.body.error.details.reason, response.body.error.message], [unauthorized.error.details.reason, unauthorized.error.message], key);
        refusals += 1;
      }

      const badRequest = op.responses['400']?.content['application/json'].example;
      if (badRequest?.error.details.reason !== 'validation_failed' || badRequest.error.details.errors[0].property === 'Idempotency-Key') continue;
      const access = op['x-svc-access'];
      if (access && access.auth === 'required' && !access.credentials.includes('apiKey')) {
        skipped.push(key);
        continue;
      }
      const refused = invalidInputExample(routeSchemas.get(key)!, method, url)!;
      // Only the refused parameter is malformed; the organization, team and client are real, or the access check answers first.
      const refusedParam = refused.errors[0]!.property;
      const params: Record<string, unknown> = { ...ids(url), ...(refused.part === 'params' ? { [refusedParam]: refused.input[refusedParam] } : {}) };
      const target = url.replace(/:(\w+)/g, (_match, name: string) => String(params[name] ?? (name.toLowerCase().includes('uid') ? '5a9e8b6b-1047-467d-afe4-e90a25cedf61' : '42')));
      const query = refused.part === 'querystring' ? `?${new URLSearchParams(Object.entries(refused.input).map(([name, value]) => [name, String(value)]))}` : '';
      const credential = access?.auth !== 'required' ? undefined : access.systemAdmin ? ADMIN_API_KEY : ada.apiKey;
      const versionSchema = op.parameters?.find((parameter: any) => parameter.name === 'svc-api-version')?.schema;
      const version = versionSchema?.default ?? versionSchema?.enum?.[0];
      const response = await api.request(method, target + query, {
        ...(credential ? { key: credential } : {}),
        ...(version ? { version } : {}),
        ...(refused.part === 'body' ? { body: refused.input } : ['POST', 'PUT', 'PATCH'].includes(method) && op.requestBody ? { body: {} } : {}),
      });
      assert.equal(response.status, 400, `${key}: ${response.text.slice(0, 300)}`);
      assert.equal(response.body.error.message, badRequest.error.message, key);
      assert.deepEqual(response.body.error.details, badRequest.error.details, key);
      validations += 1;
    }
    assert.ok(validations >= 100, `${validations} validation examples sent (${skipped.length} need a credential other than an API key: ${skipped.join(', ')})`);
    assert.ok(refusals >= 150, `${refusals} 401 examples sent`);
  });
});
