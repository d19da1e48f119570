import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Config } from '../../src/app/config.js';
import { type Runtime, startRuntime } from '../../src/app/runtime.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { pgliteBaseSnapshotPath } from '../../src/db/pglite-snapshot.js';
import { createTestDatabase } from './postgres.js';

export const ADMIN_API_KEY = 'svc_00000000000000000000000000000a11';

export type Backend = 'pglite' | 'postgres';
export const backend: Backend = process.env.SVC_TEST_BACKEND === 'postgres' ? 'postgres' : 'pglite';

let snapshot: Blob | undefined;
function pgliteSnapshot(): Blob {
  // The migrated snapshot `npm install` prepared; loading it (~0.7 s) beats initdb + migrate (3-5 s).
  snapshot ??= new Blob([fs.readFileSync(pgliteBaseSnapshotPath())]);
  return snapshot;
}

/** A fresh database of the run's backend, owned by one test file. */
export async function openTestDatabase(): Promise<{ database: Database; url?: string; drop: () => Promise<void> }> {
  if (backend === 'pglite') {
    const database = await openDatabase({ pgliteSnapshot: pgliteSnapshot() });
    return { database, drop: async () => {} };
  }
  const created = await createTestDatabase();
  const database = await openDatabase({ databaseUrl: created.url, poolSize: 10 });
  return { database, url: created.url, drop: created.drop };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  version?: string;
}

export interface TestApp {
  runtime: Runtime;
  config: Config;
  baseUrl: string;
  databaseUrl?: string;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** Creates a user through the admin API and returns it with its API key. */
  createUser(fields?: Record<string, unknown>): Promise<{ user: any; apiKey: string }>;
  close(): Promise<void>;
}

let counter = 0;

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    SVC_ADMIN_API_KEY: ADMIN_API_KEY,
    SVC_ENCRYPTION_KEY: '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',
    SVC_ALLOW_PRIVATE_WEBHOOKS: '1',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    RATE_LIMIT_API_KEY: '100000',
    RATE_LIMIT_ANONYMOUS: '100000',
    RATE_LIMIT_ACCESS_TOKEN: '100000',
    RATE_LIMIT_OAUTH_CLIENT: '100000',
    // Every test file books from loopback: the mail budget of one address is tested where it is set.
    SVC_MAIL_LIMIT_ANONYMOUS: '100000',
    SVC_MAIL_LIMIT_EVENT_TYPE: '100000',
    ...env,
  });
}

export async function request<T = any>(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.version) headers['svc-api-version'] = options.version;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: leave the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export interface TestAppOptions {
  /** Current time for the app (default the real clock); tests move it to let holds expire. */
  clock?: () => number;
  /** false: no job runner in this app (another process runs the jobs). */
  worker?: boolean;
}

/** Builds svc on a fresh database of the run's backend and serves it on a loopback port. */
export async function createTestApp(env: Record<string, string> = {}, existing?: { database: Database; url?: string }, options: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(env);
  const opened = existing ? { ...existing, drop: async () => {} } : await openTestDatabase();
  const runtime = await startRuntime(config, { database: opened.database, logger: false, ...(options.clock ? { clock: options.clock } : {}), ...(options.worker === false ? { worker: false } : {}) });
  await runtime.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = runtime.app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const send = <T>(method: string, path: string, options?: RequestOptions) => request<T>(baseUrl, method, path, options);
  return {
    runtime,
    config,
    baseUrl,
    ...(opened.url ? { databaseUrl: opened.url } : {}),
    request: send,
    async createUser(fields = {}) {
      counter += 1;
      const tag = `${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
      const response = await send<any>('POST', '/v2/admin/users', {
        key: ADMIN_API_KEY,
        body: { email: `user-${tag}@example.com`, name: `User ${counter}`, ...fields },
      });
      if (response.status !== 201) throw new Error(`createUser failed: ${response.status} ${response.text}`);
      return { user: response.body.data.user, apiKey: response.body.data.apiKey };
    },
    async close() {
      await runtime.close();
      await opened.drop();
    },
  };
}

/**
 * A second, independent svc instance (own pool, caches and change-feed listener) on the PostgreSQL
 * database of `first`: what another process in a fleet would be.
 */
export async function createPeerApp(first: TestApp, env: Record<string, string> = {}): Promise<TestApp> {
  if (!first.databaseUrl) throw new Error('createPeerApp needs an app on PostgreSQL');
  return createTestApp(env, { database: await openDatabase({ databaseUrl: first.databaseUrl, poolSize: 10 }), url: first.databaseUrl });
}
