// The real CLI as a child process: bootstrap logging, graceful shutdown, durability across restarts,
// SVC_ADMIN_API_KEY, `svc migrate`, and (PostgreSQL) two processes racing on one empty database.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import {
  type ChildServer,
  childBackend,
  freshStore,
  killAllChildren,
  runCli,
  spawnServer,
  startServer,
  type Store,
  waitHealthy,
} from '../support/child-server.js';
import { openDatabase } from '../../src/db/client.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { request } from '../support/test-app.js';

// ---------------------------------------------------------------------------------------------------
// helpers

const stores: Store[] = [];
async function newStore(): Promise<Store> {
  const store = await freshStore();
  stores.push(store);
  return store;
}

after(async () => {
  await killAllChildren();
  await Promise.all(stores.map((store) => store.remove().catch(() => {})));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The log lines carrying a generated admin key (the bootstrap warning). */
function apiKeyLines(server: Pick<ChildServer, 'logs'>): Record<string, unknown>[] {
  return server.logs().filter((line) => 'apiKey' in line);
}

function generatedAdminKey(server: ChildServer): string {
  const lines = apiKeyLines(server);
  assert.equal(lines.length, 1, `expected exactly one apiKey log line, got:\n${server.stdout()}`);
  const key = lines[0]!.apiKey;
  assert.equal(typeof key, 'string');
  assert.match(key as string, /^svc_/);
  return key as string;
}

let emails = 0;
function uniqueEmail(): string {
  emails += 1;
  return `proc-${process.pid}-${emails}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

async function createUser(server: ChildServer, adminKey: string, email = uniqueEmail()) {
  const response = await request(server.baseUrl, 'POST', '/v2/admin/users', { key: adminKey, body: { email, name: 'Process Test' } });
  assert.equal(response.status, 201, response.text);
  assert.match(response.body.data.apiKey, /^svc_/);
  return { email, apiKey: response.body.data.apiKey as string };
}

/** No line that suggests the store was not shut down cleanly or needed recovery. */
function assertNoRecoveryMessages(server: ChildServer): void {
  for (const line of `${server.stdout()}\n${server.stderr()}`.split('\n')) {
    assert.doesNotMatch(line, /recover|not properly shut down|PANIC|FATAL/i);
  }
}

/** SIGTERM; the process must exit 0 by itself (the output is shown if it does not). */
async function stopCleanly(server: ChildServer): Promise<void> {
  const exit = await server.stop();
  assert.deepEqual(exit, { code: 0, signal: null }, `svc serve did not stop cleanly\n${server.stdout()}\n${server.stderr()}`);
}

/** One attempt on a NEW connection; resolves to the status, or to the error's code if it failed. */
function tryNewConnection(port: number, path: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'GET', agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------------
// 1-3: one store through bootstrap, a graceful shutdown with a request in flight, and a restart

describe(`svc serve as a process (${childBackend})`, () => {
  let store: Store;
  let first: ChildServer;
  let adminKey: string;
  let user: { email: string; apiKey: string };

  test('bootstraps the system admin on an empty store and logs its key once', async () => {
    store = await newStore();
    first = await startServer(store.env);
    adminKey = generatedAdminKey(first);
    // The slot engine ran on its built-in queries before the server listened (src/scheduling/warm-up.ts).
    const ready = first.logs().find((line) => line.msg === 'svc is ready');
    assert.ok(ready && typeof ready.engineWarmUpMs === 'number' && ready.engineWarmUpMs > 0, JSON.stringify(ready));

    user = await createUser(first, adminKey);
    const me = await request(first.baseUrl, 'GET', '/v2/me', { key: user.apiKey });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.data.email, user.email);

    const wrong = await request(first.baseUrl, 'GET', '/v2/me', { key: `svc_${'0'.repeat(32)}` });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.status, 'error');
    assert.equal(typeof wrong.body.timestamp, 'string');
    assert.ok(!Number.isNaN(Date.parse(wrong.body.timestamp)), wrong.body.timestamp);
    assert.equal(wrong.body.path, '/v2/me');
    assert.equal(wrong.body.error.code, 'UnauthorizedException');
    assert.equal(wrong.body.error.message, 'Your api key is not valid');
  });

  test('SIGTERM lets an in-flight request finish, refuses new connections, then exits 0', async () => {
    assert.ok(first?.alive(), 'needs the server of the previous test');
    const email = uniqueEmail();
    const body = JSON.stringify({ email, name: 'In Flight' });
    const half = Math.floor(body.length / 2);

    const req = http.request({
      host: '127.0.0.1',
      port: first.port,
      path: '/v2/admin/users',
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('error', reject);
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
    });
    // Headers and the first half of the body, then give the server time to start on the request.
    await new Promise<void>((resolve, reject) => req.write(body.slice(0, half), (error) => (error ? reject(error) : resolve())));
    await sleep(200);

    first.child.kill('SIGTERM');
    await sleep(300);
    const fresh = await tryNewConnection(first.port, '/ready');
    req.end(body.slice(half));

    const done = await response;
    assert.equal(done.status, 201, done.text);
    assert.equal(JSON.parse(done.text).data.user.email, email);

    // A new connection after SIGTERM is refused (or at least never served a 200 readiness).
    assert.notEqual(fresh, 200, 'GET /ready must not be 200 once shutting down');
    assert.ok(typeof fresh === 'string' || fresh === 503, `new connection after SIGTERM: ${fresh}`);

    // SVC_SHUTDOWN_TIMEOUT_MS (10 s by default) bounds this wait.
    const exit = await first.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, `${first.stdout()}\n${first.stderr()}`);
    assert.ok(first.logs().some((line) => line.msg === 'shutdown complete'));
    assertNoRecoveryMessages(first);
  });

  test('a restart on the same store keeps users and keys and bootstraps no second admin', async () => {
    assert.ok(first && !first.alive(), 'needs the stopped server of the previous test');
    const second = await startServer(store.env);
    assert.deepEqual(apiKeyLines(second), [], second.stdout());
    assert.ok(!second.logs().some((line) => line.msg === 'created the system admin user'), second.stdout());

    const me = await request(second.baseUrl, 'GET', '/v2/me', { key: user.apiKey });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.data.email, user.email);
    const admin = await request(second.baseUrl, 'GET', '/v2/admin/users', { key: adminKey });
    assert.equal(admin.status, 200, admin.text);
    assert.equal(admin.body.data.filter((u: { role: string }) => u.role === 'ADMIN').length, 1);
    assert.equal(admin.body.data.length, 3, 'admin, the first user and the in-flight one');

    await stopCleanly(second);
    assertNoRecoveryMessages(second);
  });
});

// ---------------------------------------------------------------------------------------------------
// 2b: graceful shutdown when the in-flight request came over a keep-alive connection

describe('graceful shutdown with a keep-alive client', () => {
  // A request in flight at SIGTERM on a keep-alive connection must not hold the shutdown open: the
  // answer closes the connection, so the process exits 0 long before SVC_SHUTDOWN_TIMEOUT_MS.
  // (Node's own fetch and http.Agent({ keepAlive }) keep connections alive like this client.)
  test(
    'an in-flight request on a keep-alive connection does not hold the shutdown until its timeout',
    async () => {
      const store = await newStore();
      const key = `svc_${randomBytes(16).toString('hex')}`;
      const server = await startServer({ ...store.env, SVC_ADMIN_API_KEY: key, SVC_SHUTDOWN_TIMEOUT_MS: '3000' });
      const agent = new http.Agent({ keepAlive: true });
      try {
        const body = JSON.stringify({ email: uniqueEmail(), name: 'Keep Alive' });
        const req = http.request({
          host: '127.0.0.1',
          port: server.port,
          path: '/v2/admin/users',
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        });
        const response = new Promise<number>((resolve, reject) => {
          req.on('error', reject);
          req.on('response', (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
        });
        await new Promise<void>((resolve, reject) => req.write(body.slice(0, 10), (error) => (error ? reject(error) : resolve())));
        await sleep(200);
        const signalledAt = Date.now();
        server.child.kill('SIGTERM');
        await sleep(300);
        req.end(body.slice(10));
        assert.equal(await response, 201);
        const exit = await server.exited;
        assert.deepEqual(exit, { code: 0, signal: null }, server.stdout());
        assert.ok(Date.now() - signalledAt < 2_500, `shutdown took ${Date.now() - signalledAt} ms`);
      } finally {
        agent.destroy();
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------------
// 4: SVC_ADMIN_API_KEY

describe('SVC_ADMIN_API_KEY', () => {
  test('a valid key becomes the admin key and is never logged', async () => {
    const store = await newStore();
    const key = `svc_${randomBytes(16).toString('hex')}`;
    const server = await startServer({ ...store.env, SVC_ADMIN_API_KEY: key });
    assert.deepEqual(apiKeyLines(server), [], server.stdout());
    assert.ok(!server.stdout().includes(key), 'the chosen key must not be logged');
    assert.ok(server.logs().some((line) => line.msg === 'created the system admin user'));
    await createUser(server, key);
    const list = await request(server.baseUrl, 'GET', '/v2/admin/users', { key });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.data.map((u: { role: string }) => u.role).sort(),
      ['ADMIN', 'USER'],
    );
    await stopCleanly(server);
  });

  test('a malformed key stops the process with a message naming the variable', async () => {
    const store = await newStore();
    const run = await runCli(['serve'], { ...store.env, PORT: '0', HOST: '127.0.0.1', SVC_ADMIN_API_KEY: 'badkey' });
    assert.equal(run.signal, null, 'exited by itself, not killed');
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /SVC_ADMIN_API_KEY/);
  });
});

// ---------------------------------------------------------------------------------------------------
// 5: svc migrate

describe('svc migrate', () => {
  test('migrates a fresh store, exits 0, and serve then starts on it', async () => {
    const store = await newStore();
    const migrated = await runCli(['migrate'], store.env);
    assert.equal(migrated.code, 0, `${migrated.stdout}\n${migrated.stderr}`);
    assert.match(migrated.stdout, new RegExp(`migrations applied \\(${childBackend}\\)`));
    const printed = /system admin API key \(shown only now\): (svc_\w+)/.exec(migrated.stdout);
    assert.ok(printed, migrated.stdout);

    const server = await startServer(store.env);
    assert.deepEqual(apiKeyLines(server), [], 'migrate already bootstrapped the admin');
    const ready = await request(server.baseUrl, 'GET', '/ready');
    assert.equal(ready.status, 200, ready.text);
    await createUser(server, printed[1]!);
    await stopCleanly(server);
  });
});

// ---------------------------------------------------------------------------------------------------
// 6: two processes on one PostgreSQL database (PostgreSQL only)

async function adminCount(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: number }>(`select count(*)::int as count from users where role = 'ADMIN'`);
    return rows[0]!.count;
  } finally {
    await client.end();
  }
}

/**
 * Waits until `count` backends of the database wait on a lock (fails early if one of `servers`
 * exits). `monitor` must not be inside a transaction: pg_stat_activity is a per-transaction snapshot.
 */
async function waitForLockWaiters(monitor: pg.Client, count: number, servers: ChildServer[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { rows } = await monitor.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if (rows[0]!.n >= count) return;
    const dead = servers.find((server) => !server.alive());
    if (dead) throw new Error(`svc serve exited while starting\n${dead.stdout()}\n${dead.stderr()}`);
    await sleep(50);
  }
  throw new Error(`fewer than ${count} backends waiting on a lock after 20 s`);
}

/** Both servers healthy, one admin in the database, its key printed exactly once, both stop cleanly. */
async function assertOneAdminTwoHealthyServers(servers: ChildServer[], databaseUrl: string): Promise<void> {
  const health = await Promise.allSettled(servers.map((server) => waitHealthy(server)));
  for (const result of health) if (result.status === 'rejected') throw result.reason;
  assert.equal(await adminCount(databaseUrl), 1);
  const printed = servers.flatMap((server) => apiKeyLines(server));
  assert.equal(printed.length, 1, servers.map((server) => server.stdout()).join('\n---\n'));
  const adminKey = printed[0]!.apiKey as string;
  for (const server of servers) {
    const list = await request(server.baseUrl, 'GET', '/v2/admin/users', { key: adminKey });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.data.length, 1);
  }
  await Promise.all(servers.map((server) => stopCleanly(server)));
}

// Migrations and the admin bootstrap run under one session-level advisory lock, so two processes
// starting together on an empty database never both count 0 users and insert two admins (the loser
// would die at startup on the unique email index). The first test races them; the second forces the
// window by blocking the first process's admin insert while the second one starts.
describe('two svc serve processes on one database', { skip: childBackend !== 'postgres' && 'PostgreSQL only' }, () => {
  test(
    'started at the same moment on an empty database, both become healthy and exactly one admin is created',
    async () => {
      const store = await newStore();
      const servers = await Promise.all([spawnServer(store.env), spawnServer(store.env)]);
      await assertOneAdminTwoHealthyServers(servers, store.databaseUrl!);
    },
  );

  test(
    'the bootstrap holds the migration lock: a second process cannot bootstrap while the first does',
    async () => {
      const store = await newStore();
      // Migrated, but no users yet: both processes will want to bootstrap.
      const database = await openDatabase({ databaseUrl: store.databaseUrl, poolSize: 1 });
      await migrateDatabase(database);
      await database.close();

      // Inserts into users block (reads do not) until this transaction ends.
      const locker = new pg.Client({ connectionString: store.databaseUrl });
      const monitor = new pg.Client({ connectionString: store.databaseUrl });
      await Promise.all([locker.connect(), monitor.connect()]);
      try {
        await locker.query('begin');
        await locker.query('lock table users in share row exclusive mode');
        const first = await spawnServer(store.env);
        await waitForLockWaiters(monitor, 1, [first]); // the first is inserting the admin, blocked here
        const second = await spawnServer(store.env);
        // Correct: the second waits on the migration lock. Buggy: it is past it, inserting an admin too.
        await waitForLockWaiters(monitor, 2, [first, second]);
        await locker.query('commit');
        await assertOneAdminTwoHealthyServers([first, second], store.databaseUrl!);
      } finally {
        await Promise.all([locker.end(), monitor.end()]);
      }
    },
  );
});
