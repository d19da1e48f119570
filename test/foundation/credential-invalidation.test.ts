import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { apiKeys } from '../../src/db/schema.js';
import { hashApiKey } from '../../src/lib/crypto.js';
import { eventually } from '../support/eventually.js';
import { backend, createPeerApp, createTestApp, type TestApp } from '../support/test-app.js';


// PGlite is one process by construction; the cross-process cases need PostgreSQL.
describe('credential cache across processes sharing one PostgreSQL', { skip: backend !== 'postgres' && 'needs PostgreSQL (PGlite is single-process)' }, () => {
  let a: TestApp;
  let b: TestApp;
  const longTtl = { SVC_AUTH_CACHE_TTL_MS: '60000' };
  before(async () => {
    a = await createTestApp(longTtl);
    // A second, independent svc instance (own pool, own cache, own listener) on the same database.
    b = await createPeerApp(a, longTtl);
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  test('a key refreshed on one instance is refused by the other at once, though it was cached there', async () => {
    const { apiKey } = await a.createUser();
    assert.equal((await b.request('GET', '/v2/me', { key: apiKey })).status, 200);
    assert.equal((await a.request('POST', '/v2/api-keys/refresh', { key: apiKey })).status, 200);
    const ms = await eventually(async () => (await b.request('GET', '/v2/me', { key: apiKey })).status === 401);
    assert.ok(ms < 1000, `took ${ms} ms`);
  });

  test('a profile change on one instance is what the other returns next', async () => {
    const { apiKey } = await a.createUser();
    assert.equal((await b.request('GET', '/v2/me', { key: apiKey })).body.data.name.startsWith('User'), true);
    assert.equal((await a.request('PATCH', '/v2/me', { key: apiKey, body: { name: 'Renamed' } })).status, 200);
    await eventually(async () => (await b.request('GET', '/v2/me', { key: apiKey })).body.data.name === 'Renamed');
  });

  test('while the invalidation listener is down the cache is off, so a silent revoke is still seen', async () => {
    const { apiKey } = await a.createUser();
    assert.equal((await b.request('GET', '/v2/me', { key: apiKey })).status, 200);
    // Cut every LISTEN connection to this database (both instances'), as a network blip would.
    await a.runtime.ctx.database.db.execute(
      sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query like 'LISTEN%'`,
    );
    await eventually(async () => !b.runtime.ctx.credentials.active);
    // A revoke that sends no notification at all: only a disabled cache can notice it.
    await a.runtime.ctx.database.db.delete(apiKeys).where(eq(apiKeys.hashedKey, hashApiKey(apiKey)));
    assert.equal((await b.request('GET', '/v2/me', { key: apiKey })).status, 401);
    // The listener reconnects and the cache comes back.
    await eventually(async () => b.runtime.ctx.credentials.active, 5000);
  });
});
