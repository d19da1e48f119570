import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/app/config.js';
import { CHILD_ENCRYPTION_KEY, freshStore, killAllChildren, runCli, startServer, type Store } from '../support/child-server.js';
import { ADMIN_API_KEY, backend, createPeerApp, createTestApp, request } from '../support/test-app.js';

const OTHER_KEY = 'ab'.repeat(32);
const stores: Store[] = [];
after(async () => {
  await killAllChildren();
  await Promise.all(stores.map((store) => store.remove().catch(() => {})));
});

async function store(): Promise<Store> {
  const created = await freshStore();
  stores.push(created);
  return created;
}

describe('the sealing key of a store shared by several processes', () => {
  test('DATABASE_URL without SVC_ENCRYPTION_KEY is refused, with how to make a key', () => {
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/svc' }),
      (error: unknown) => error instanceof ConfigError && /SVC_ENCRYPTION_KEY is required/.test(error.message) && /svc encryption-key/.test(error.message),
    );
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/svc', SVC_ENCRYPTION_KEY: OTHER_KEY }).encryptionKey?.length, 32);
  });

  test('`svc encryption-key` prints a key svc accepts', async () => {
    const run = await runCli(['encryption-key'], {});
    assert.equal(run.code, 0, run.stderr);
    const key = run.stdout.trim();
    assert.match(key, /^[0-9a-f]{64}$/);
    assert.equal(loadConfig({ SVC_ENCRYPTION_KEY: key }).encryptionKey?.length, 32);
  });

  test('a process given another key than the store was sealed with refuses to start, saying why', async () => {
    const created = await store();
    const first = await startServer({ ...created.env, SVC_ENCRYPTION_KEY: CHILD_ENCRYPTION_KEY });
    await first.stop();
    const second = await runCli(['serve'], { ...created.env, SVC_ENCRYPTION_KEY: OTHER_KEY, PORT: '0', HOST: '127.0.0.1' });
    assert.equal(second.code, 1);
    assert.match(second.stderr, /sealing key .* is not the one this store's secrets were sealed with/);
    const again = await startServer({ ...created.env, SVC_ENCRYPTION_KEY: CHILD_ENCRYPTION_KEY });
    await again.stop();
  });

  test('two processes on one PostgreSQL database read each other\'s webhook secrets', { skip: backend !== 'postgres' && 'needs PostgreSQL: PGlite belongs to one process' }, async () => {
    const first = await createTestApp();
    const second = await createPeerApp(first);
    try {
      const { apiKey } = await first.createUser();
      const created = await first.request('POST', '/v2/webhooks', { key: apiKey, body: { active: true, subscriberUrl: 'http://127.0.0.1:9/hook', triggers: ['BOOKING_CREATED'], secret: 'shared-secret' } });
      assert.equal(created.status, 201, created.text);
      const read = await second.request('GET', `/v2/webhooks/${created.body.data.id}`, { key: apiKey });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.data.secret, 'shared-secret');
      await assert.rejects(createPeerApp(first, { SVC_ENCRYPTION_KEY: OTHER_KEY }), (error: unknown) => error instanceof ConfigError);
    } finally {
      await second.close();
      await first.close();
    }
  });
});

describe('the system admin key', () => {
  test('SVC_ADMIN_API_KEY on an existing store is logged as ignored; `svc admin-key` issues a working key', async () => {
    const created = await store();
    const first = await startServer({ ...created.env, SVC_ADMIN_API_KEY: ADMIN_API_KEY });
    await first.stop();

    const laterKey = 'svc_later0000000000000000000000000000';
    const second = await startServer({ ...created.env, SVC_ADMIN_API_KEY: laterKey });
    assert.ok(second.logs().some((line) => /SVC_ADMIN_API_KEY is ignored/.test(String(line.msg))), second.stdout());
    assert.equal((await request(second.baseUrl, 'GET', '/v2/admin/users', { key: laterKey })).status, 401);
    await second.stop();

    // The way back from a lost key: a new one printed by the CLI (server stopped: one process per data dir).
    const issued = await runCli(['admin-key'], created.env);
    assert.equal(issued.code, 0, issued.stderr);
    const newKey = issued.stdout.trim().split('\n').at(-1)!;
    assert.match(newKey, /^svc_[0-9a-f]{32}$/);
    const chosen = await runCli(['admin-key'], { ...created.env, SVC_ADMIN_API_KEY: laterKey });
    assert.equal(chosen.stdout.trim().split('\n').at(-1), laterKey);

    const third = await startServer({ ...created.env, SVC_ADMIN_API_KEY: laterKey });
    assert.ok(!third.logs().some((line) => /SVC_ADMIN_API_KEY is ignored/.test(String(line.msg))), 'the key is now a key of this store');
    for (const key of [ADMIN_API_KEY, newKey, laterKey]) {
      assert.equal((await request(third.baseUrl, 'GET', '/v2/admin/users', { key })).status, 200, key);
    }
    await third.stop();
  });
});
