import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app/build-app.js';
import type { App } from '../../src/http/app.js';
import { access, type RouteAccess } from '../../src/http/access.js';
import { registeredRoutes, type RouteEntry } from '../support/routes.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const isPluginRoute = (route: RouteEntry) => route.url === '/docs' || route.url.startsWith('/docs/') || (route.method === 'OPTIONS' && route.url === '/*');
const toOpenApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');
const concreteUrl = (url: string) => url.replace(/:\w+/g, '1').replace(/\*$/, 'probe');

function resolveRef(document: any, schema: any): any {
  let current = schema;
  for (let hops = 0; current?.$ref && hops < 10; hops++) {
    const ref: string = current.$ref;
    assert.ok(ref.startsWith('#/'), `only local refs are expected: ${ref}`);
    current = ref.slice(2).split('/').reduce((node: any, key) => node?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
  }
  return current;
}

describe('route registry, access declarations and the OpenAPI document', () => {
  let api: TestApp;
  /** A second instance of the same app, built here so a probe hook can read each route's config. */
  let probe: App;
  let routes: RouteEntry[];
  /** What each route answered to an anonymous request, and the route options the request ran under. */
  const probed = new Map<string, { status: number; routeUrl: string | undefined; access: RouteAccess | undefined }>();
  let document: any;
  const routeKey = (route: RouteEntry) => `${route.method} ${route.url}`;

  before(async () => {
    api = await createTestApp();
    routes = registeredRoutes(api.runtime.app);
    probe = await buildApp(api.runtime.ctx, { logger: false });
    // Read where routing put the request. onRequest (added after the auth guard) does not run when the
    // guard refuses the request, so onSend, which runs for every reply, covers that case.
    const seen = new Map<string, { routeUrl: string | undefined; access: RouteAccess | undefined }>();
    const record = (request: { method: string; url: string; routeOptions: { url?: string | undefined; config: { access?: RouteAccess } } }) => {
      const key = `${request.method} ${request.url}`;
      if (!seen.has(key)) seen.set(key, { routeUrl: request.routeOptions.url, access: request.routeOptions.config.access });
    };
    probe.addHook('onRequest', async (request) => record(request));
    probe.addHook('onSend', async (request, _reply, payload) => (record(request), payload));
    await probe.ready();
    for (const route of routes) {
      const url = concreteUrl(route.url);
      const headers: Record<string, string> = route.method === 'OPTIONS' ? { origin: 'https://app.example', 'access-control-request-method': 'GET' } : {};
      const response = await probe.inject({ method: route.method as never, url, headers });
      const seenRequest = seen.get(`${route.method} ${url}`);
      probed.set(routeKey(route), { status: response.statusCode, routeUrl: seenRequest?.routeUrl, access: seenRequest?.access });
    }
    const response = await api.request('GET', '/docs/openapi.json');
    assert.equal(response.status, 200, response.text);
    document = response.body;
  });
  after(async () => {
    await probe?.close();
    await api?.close();
  });

  test('the route list is read completely', () => {
    assert.equal(probe.printRoutes(), api.runtime.app.printRoutes(), 'the probe app has the same routes as the served one');
    for (const route of routes) assert.ok(api.runtime.app.hasRoute(route), `${route.method} ${route.url} is a registered pattern`);
    const names = new Set(routes.map((route) => `${route.method} ${route.url}`));
    for (const expected of ['GET /health', 'GET /ready', 'GET /metrics', 'GET /v2/me', 'PATCH /v2/me', 'POST /v2/api-keys/refresh', 'POST /v2/admin/users', 'GET /v2/admin/users', 'DELETE /v2/admin/users/:id', 'GET /docs', 'OPTIONS /*']) {
      assert.ok(names.has(expected), `${expected} in ${[...names].join(', ')}`);
    }
  });

  test('every route declares config.access', () => {
    const missing: string[] = [];
    for (const route of routes) {
      const result = probed.get(routeKey(route));
      assert.ok(result, `${routeKey(route)} was probed`);
      assert.ok(result.status < 500, `${routeKey(route)} answered ${result.status}`);
      // With ignoreTrailingSlash the router lists a route registered as `/docs/` under `/docs`.
      const routed = result.routeUrl === '*' ? '/*' : result.routeUrl?.replace(/(.)\/$/, '$1');
      assert.equal(routed, route.url, `${routeKey(route)}: the probe request was routed to its own pattern`);
      const declared = result.access;
      if (!declared) {
        missing.push(routeKey(route));
        continue;
      }
      assert.ok(['required', 'optional', 'none'].includes(declared.auth), `${routeKey(route)}: auth ${declared.auth}`);
      assert.ok(Array.isArray(declared.credentials), `${routeKey(route)}: credentials`);
      assert.ok(declared.scope === null || typeof declared.scope === 'string', `${routeKey(route)}: scope`);
      if (declared.auth === 'required') assert.ok(result.status === 401, `${routeKey(route)} refuses an anonymous caller (${result.status})`);
    }
    assert.deepEqual(missing, [], 'routes without config.access');
  });

  test('every API route is in the OpenAPI 3.1 document, and nothing else is', () => {
    assert.equal(document.openapi, '3.1.0');
    const methods = new Set(routes.filter((route) => route.method !== 'HEAD').map((route) => `${route.method} ${route.url}`));
    const expected = routes.filter(
      (route) => !isPluginRoute(route) && route.url !== '/docs/openapi.json' && !(route.method === 'HEAD' && methods.has(`GET ${route.url}`)),
    );
    assert.ok(expected.length >= 8, `${expected.length} documented routes expected`);
    const missing = expected.filter((route) => !document.paths?.[toOpenApiPath(route.url)]?.[route.method.toLowerCase()]);
    assert.deepEqual(missing, [], 'routes missing from the OpenAPI document');

    const routeNames = new Set(routes.map((route) => `${route.method.toLowerCase()} ${toOpenApiPath(route.url)}`));
    for (const [path, item] of Object.entries<Record<string, unknown>>(document.paths)) {
      for (const method of Object.keys(item)) assert.ok(routeNames.has(`${method} ${path}`), `documented ${method} ${path} is a real route`);
    }
  });

  test('documented security matches each route\'s declared access', () => {
    const byRoute = new Map<string, RouteAccess>();
    for (const route of routes) {
      const declared = probed.get(routeKey(route))?.access;
      if (declared) byRoute.set(`${route.method.toLowerCase()} ${toOpenApiPath(route.url)}`, declared);
    }
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        const declared = byRoute.get(`${method} ${path}`);
        assert.ok(declared, `${name}: access known`);
        assert.ok(Array.isArray(operation.security), `${name} lists security`);
        if (declared.auth === 'none') {
          assert.deepEqual(operation.security, [], `${name} is public`);
          continue;
        }
        assert.ok(operation.security.some((requirement: object) => Object.keys(requirement).length > 0), `${name} names a security scheme`);
        if (declared.credentials.includes('apiKey') || declared.credentials.includes('accessToken')) {
          assert.ok(operation.security.some((requirement: Record<string, unknown>) => 'bearer' in requirement), `${name} accepts a bearer credential`);
        }
        assert.equal(operation.security.some((requirement: object) => Object.keys(requirement).length === 0), declared.auth === 'optional', `${name}: anonymous allowed only when optional`);
        const documented = operation['x-svc-access'];
        assert.ok(documented, `${name} has x-svc-access`);
        assert.equal(documented.auth, declared.auth, `${name}: auth`);
        assert.equal(documented.scope, declared.scope, `${name}: scope`);
        assert.equal(documented.systemAdmin, declared.systemAdmin ?? false, `${name}: systemAdmin`);
        if (declared.scope) assert.match(operation.description ?? '', new RegExp(declared.scope), `${name}: description names the scope`);
      }
    }

    const me = document.paths['/v2/me'].get;
    assert.equal(me['x-svc-access'].scope, 'PROFILE_READ');
    assert.deepEqual(me.security, [{ bearer: [] }]);
    assert.equal(document.paths['/v2/me'].patch['x-svc-access'].scope, 'PROFILE_WRITE');
    assert.equal(document.paths['/v2/admin/users'].post['x-svc-access'].systemAdmin, true);
    assert.deepEqual(document.paths['/health'].get.security, []);
    assert.ok(document.components.securitySchemes.bearer, 'the bearer scheme is defined');
  });

  test('PATCH /v2/me documents weekStart and timeFormat as enums', () => {
    const body = resolveRef(document, document.paths['/v2/me'].patch.requestBody?.content?.['application/json']?.schema);
    assert.ok(body?.properties, 'PATCH /v2/me has a JSON body schema');
    const weekStart = resolveRef(document, body.properties.weekStart);
    assert.deepEqual(weekStart.enum, ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']);
    assert.equal(weekStart.type, 'string');
    const timeFormat = resolveRef(document, body.properties.timeFormat);
    assert.deepEqual(timeFormat.enum, [12, 24]);
    assert.equal(timeFormat.type, 'integer');
  });

  test('GET /docs serves the documentation UI', async () => {
    const response = await fetch(`${api.baseUrl}/docs`, { redirect: 'follow' });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    const html = await response.text();
    assert.match(html, /<html/i);
    assert.match(html, /js\/scalar\.js/);
    const spec = await fetch(`${api.baseUrl}/docs/json`);
    assert.equal(spec.status, 200);
    assert.equal(((await spec.json()) as { openapi: string }).openapi, '3.1.0');
  });

  test('a route without config.access cannot be registered', async () => {
    const fresh = await buildApp(api.runtime.ctx, { logger: false });
    try {
      assert.throws(() => fresh.get('/v2/undeclared', async () => 'x'), /declares no access/);
      assert.throws(() => fresh.post('/v2/undeclared-too', { config: {} }, async () => 'x'), /declares no access/);
      // The same route with a declaration is accepted.
      fresh.get('/v2/declared', { config: { access: access.public() } }, async () => 'x');
      await fresh.ready();
      assert.equal(fresh.hasRoute({ method: 'GET', url: '/v2/undeclared' }), false);
      assert.equal((await fresh.inject({ method: 'GET', url: '/v2/declared' })).statusCode, 200);
    } finally {
      await fresh.close().catch(() => {});
    }
  });
});
