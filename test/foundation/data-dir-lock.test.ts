// One process owns an embedded store: a second `svc serve`, `svc migrate` or `svc worker` on the same data
// directory is refused with one line naming the running process; `svc admin-key` gets its key from the
// running server, and the key works; a lock left by a process killed with SIGKILL does not block a restart.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { DataDirInUseError, LOCK_DIR_NAME, LOCK_OWNER_FILE, lockDataDir } from '../../src/db/data-dir-lock.js';
import { killAllChildren, runCli, startServer } from '../support/child-server.js';
import { backend } from '../support/test-app.js';

const SKIP = backend === 'postgres' && 'the embedded store only (the PGlite pass runs it)';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'svc-lock-'));

describe('the embedded store has one owner', { skip: SKIP }, () => {
  const dirs: string[] = [];
  after(async () => {
    await killAllChildren();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a second opener in the same process is refused until the first lets go', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const release = await lockDataDir(dir, 'serve');
    const owner = JSON.parse(fs.readFileSync(path.join(dir, LOCK_OWNER_FILE), 'utf8'));
    assert.deepEqual([owner.pid, owner.command], [process.pid, 'serve']);
    await assert.rejects(lockDataDir(dir, 'migrate'), (error: unknown) => error instanceof DataDirInUseError && new RegExp(`svc serve \\(pid ${process.pid}`).test(error.message));
    await release();
    assert.equal(fs.existsSync(path.join(dir, LOCK_OWNER_FILE)), false);
    await (await lockDataDir(dir, 'migrate'))();
  });

  test('the lock of a process that is gone is taken over at once', async () => {
    const dir = tempDir();
    dirs.push(dir);
    // What a SIGKILLed owner leaves: the lock directory, fresh, and its owner file naming a pid that is no more.
    fs.mkdirSync(path.join(dir, LOCK_DIR_NAME));
    fs.writeFileSync(path.join(dir, LOCK_OWNER_FILE), JSON.stringify({ pid: 2 ** 22 + 12_345 /* above Linux's pid_max */, hostname: os.hostname(), command: 'serve', startedAt: new Date().toISOString() }));
    const release = await lockDataDir(dir, 'serve');
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, LOCK_OWNER_FILE), 'utf8')).pid, process.pid);
    await release();
  });

  test('over the real CLI: serve, then a second serve, migrate and worker are refused; admin-key is issued by the server; a SIGKILL leaves nothing in the way', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const env = { SVC_DATA_DIR: dir };
    const server = await startServer(env);
    const pid = server.child.pid!;

    for (const command of [['serve'], ['migrate'], ['worker']]) {
      const refused = await runCli(command, { ...env, PORT: '0', HOST: '127.0.0.1' });
      assert.equal(refused.code, 1, `${command}: ${refused.stdout}${refused.stderr}`);
      const line = refused.stderr.trim().split('\n');
      assert.equal(line.length, 1, `one line, not a stack trace: ${refused.stderr}`);
      assert.match(line[0]!, new RegExp(`^svc: the embedded store .* is in use by svc serve \\(pid ${pid} .*Stop that process first`));
    }
    assert.ok(server.alive(), 'the running server is untouched');

    const issued = await runCli(['admin-key'], env);
    assert.equal(issued.code, 0, issued.stderr);
    const key = issued.stdout.trim();
    assert.match(key, /^svc_[0-9a-f]{32}$/);
    const me = await fetch(`${server.baseUrl}/v2/me`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(me.status, 200, 'the key works on the running server at once');

    server.child.kill('SIGKILL');
    await server.exited;
    const restarted = await startServer(env);
    const again = await fetch(`${restarted.baseUrl}/v2/me`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(again.status, 200, 'and after a restart');
    await restarted.stop();
    assert.equal(fs.existsSync(path.join(dir, LOCK_OWNER_FILE)), false, 'a clean stop lets go of the store');
    const offline = await runCli(['admin-key'], env);
    assert.equal(offline.code, 0, offline.stderr);
    assert.match(offline.stdout.trim(), /^svc_[0-9a-f]{32}$/, 'with no server running, admin-key opens the store itself');
  });
});
