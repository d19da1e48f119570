// Runs the real CLI (`node --import tsx src/cli.ts ...`) as a child process, for tests of what only a
// whole process shows: startup logs, bootstrap, signals, graceful shutdown, restarts.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from './postgres.js';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = 'src/cli.ts';

export const childBackend: 'pglite' | 'postgres' = process.env.SVC_TEST_BACKEND === 'postgres' ? 'postgres' : 'pglite';

/** A port nothing listens on right now: listen on 0, read the port, close. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The parent's environment minus everything svc reads, so only what a test passes reaches the child. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (
      name.startsWith('SVC_') ||
      name.startsWith('RATE_LIMIT_') ||
      name.startsWith('NODE_TEST') ||
      ['DATABASE_URL', 'REDIS_URL', 'PORT', 'HOST', 'LOG_LEVEL', 'APP_URL'].includes(name)
    ) {
      delete env[name];
    }
  }
  return env;
}

/** The sealing key child servers on PostgreSQL are given (svc requires one with DATABASE_URL). */
export const CHILD_ENCRYPTION_KEY = 'c0ffee'.repeat(10) + 'c0ff';

/** A fresh, empty store of the run's backend: a new tmp data dir, or a new EMPTY PostgreSQL database. */
export interface Store {
  env: Record<string, string>;
  /** Set on the postgres backend. */
  databaseUrl?: string;
  remove(): Promise<void>;
}

export async function freshStore(): Promise<Store> {
  if (childBackend === 'postgres') {
    const created = await createTestDatabase({ empty: true });
    return { env: { DATABASE_URL: created.url, SVC_ENCRYPTION_KEY: CHILD_ENCRYPTION_KEY }, databaseUrl: created.url, remove: created.drop };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-proc-'));
  return { env: { SVC_DATA_DIR: dir }, remove: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildServer {
  port: number;
  baseUrl: string;
  child: ChildProcess;
  /** Everything the child wrote so far. */
  stdout(): string;
  stderr(): string;
  /** stdout's JSON (pino) lines, parsed; other lines are skipped. */
  logs(): Record<string, unknown>[];
  /** Resolves once the child has exited. */
  exited: Promise<Exit>;
  alive(): boolean;
  /** SIGTERM, then SIGKILL if the child is still alive after `graceMs`. */
  stop(graceMs?: number): Promise<Exit>;
}

const running = new Set<ChildProcess>();

function isAlive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** SIGKILLs every child a test started that is still alive (call from after()). */
export async function killAllChildren(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (!isAlive(child)) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
  running.clear();
}

/** Starts a CLI command (`worker`, `serve`...) as a child process; killAllChildren ends it. */
export function spawnCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: projectRoot,
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<Exit>((resolve) => {
    // 'close' (not 'exit'): all output has been read by then.
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Runs a CLI command to completion (e.g. `migrate`). */
export async function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<Exit & { stdout: string; stderr: string }> {
  const run = spawnCli(args, { LOG_LEVEL: 'info', ...env });
  const timer = setTimeout(() => run.child.kill('SIGKILL'), timeoutMs);
  const exit = await run.exited;
  clearTimeout(timer);
  return { ...exit, stdout: run.stdout(), stderr: run.stderr() };
}

export function parseLogLines(text: string): Record<string, unknown>[] {
  return text.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** Spawns the child without waiting for it (see waitHealthy). */
export async function spawnServer(env: Record<string, string>): Promise<ChildServer> {
  const port = await freePort();
  const run = spawnCli(['serve'], { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env });
  const { child, exited } = run;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    stdout: run.stdout,
    stderr: run.stderr,
    logs: () => parseLogLines(run.stdout()),
    exited,
    alive: () => isAlive(child),
    async stop(graceMs = 10_000) {
      if (isAlive(child)) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          if (isAlive(child)) child.kill('SIGKILL');
        }, graceMs);
        const exit = await exited;
        clearTimeout(timer);
        return exit;
      }
      return exited;
    },
  };
}

/** Polls GET /health until 200 (and the 'svc is ready' log line is read); fails early, with the child's output, if it exits or times out. */
export async function waitHealthy(server: ChildServer, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exit: Exit | undefined;
  void server.exited.then((value) => (exit = value));
  while (Date.now() < deadline) {
    if (exit) throw new Error(`svc serve exited (${JSON.stringify(exit)}) before it was healthy\n${server.stdout()}\n${server.stderr()}`);
    try {
      const response = await fetch(`${server.baseUrl}/health`, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      // 'svc is ready' is logged before the process can serve a request, so once the parent has read
      // it, every earlier log line (e.g. the bootstrap key) has been read too.
      if (response.status === 200 && server.logs().some((line) => line.msg === 'svc is ready')) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`svc serve not healthy after ${timeoutMs} ms\n${server.stdout()}\n${server.stderr()}`);
}

/**
 * Spawns `svc serve` and waits for GET /health = 200. A port found free can be taken before the child
 * listens (as the local end of some outgoing connection, from parallel test files): then it tries
 * another port.
 */
export async function startServer(env: Record<string, string>): Promise<ChildServer> {
  for (let attempt = 1; ; attempt++) {
    const server = await spawnServer(env);
    try {
      await waitHealthy(server);
      return server;
    } catch (error) {
      server.child.kill('SIGKILL');
      const portTaken = !env.PORT && (await server.exited).code !== null && /EADDRINUSE|is using that port/.test(`${server.stdout()}${server.stderr()}`);
      if (!portTaken || attempt === 3) throw error;
    }
  }
}
