// `svc serve` and `svc worker` start again with a 16 MB young generation where V8 13 would take 64 MB
// (src/app/launch.ts): when they do, and that the process they become runs with the option.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type LaunchFacts, relaunchOptions } from '../../src/app/launch.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GiB = 2 ** 30;
const large: LaunchFacts = { command: 'serve', v8Version: '13.6.233.17-node.53', memoryBytes: 24 * GiB, execArgv: [], nodeOptions: undefined, canRelaunch: true };

describe('relaunch with a smaller young generation', () => {
  test('serve and worker on V8 13 with 16 GiB or more', () => {
    assert.deepEqual(relaunchOptions(large), ['--max-semi-space-size=16']);
    assert.deepEqual(relaunchOptions({ ...large, command: 'worker' }), ['--max-semi-space-size=16']);
    assert.deepEqual(relaunchOptions({ ...large, v8Version: '14.0.1', memoryBytes: 16 * GiB }), ['--max-semi-space-size=16']);
  });

  test('not for short commands, V8 12, less memory, or without process.execve', () => {
    for (const command of ['migrate', 'admin-key', 'encryption-key', 'help', undefined]) assert.deepEqual(relaunchOptions({ ...large, command }), [], String(command));
    assert.deepEqual(relaunchOptions({ ...large, v8Version: '12.4.254.21-node.57' }), []);
    assert.deepEqual(relaunchOptions({ ...large, memoryBytes: 16 * GiB - 1 }), []);
    assert.deepEqual(relaunchOptions({ ...large, canRelaunch: false }), []);
  });

  test('a heap size given to node wins, and a relaunched process does not start again', () => {
    for (const option of ['--max-semi-space-size=64', '--max_semi_space_size=8', '--min-semi-space-size=4', '--max-old-space-size=300', '--max-heap-size=512']) {
      assert.deepEqual(relaunchOptions({ ...large, execArgv: ['--import', 'tsx', option] }), [], option);
      assert.deepEqual(relaunchOptions({ ...large, nodeOptions: `--enable-source-maps ${option}` }), [], option);
    }
    assert.deepEqual(relaunchOptions({ ...large, nodeOptions: '--enable-source-maps' }), ['--max-semi-space-size=16']);
  });

  test('the process becomes node with the option, same pid, same options and arguments before it', { skip: typeof (process as { execve?: unknown }).execve !== 'function' && `no process.execve on Node ${process.version} (${process.platform})` }, () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'test/support/relaunch-child.ts', 'serve', '--no-worker'], { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    assert.equal(result.status, 0, result.stderr);
    const printed = JSON.parse(result.stdout.trim()) as { pid: number; execArgv: string[]; args: string[] };
    assert.equal(printed.pid, result.pid);
    assert.deepEqual(printed.execArgv, ['--import', 'tsx', '--max-semi-space-size=16']);
    assert.deepEqual(printed.args, ['serve', '--no-worker']);
  });
});
