// What the CLI says when it cannot do its work: one line naming the problem and the setting that fixes
// it, never a stack trace; and a warning on a Node older than svc supports.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { nodeVersionWarning } from '../../src/app/node-version.js';
import { freshStore, killAllChildren, projectRoot, runCli, type Store } from '../support/child-server.js';
import { backend } from '../support/test-app.js';

const SKIP = backend === 'postgres' && 'process messages do not depend on the store (the PGlite pass runs them)';

describe('CLI messages', { skip: SKIP }, () => {
  const stores: Store[] = [];
  after(async () => {
    await killAllChildren();
    for (const store of stores) await store.remove();
  });

  test('a port in use is one line naming it and PORT', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    const store = await freshStore();
    stores.push(store);
    try {
      const run = await runCli(['serve'], { ...store.env, PORT: String(port), HOST: '127.0.0.1' });
      assert.equal(run.code, 1, run.stderr);
      const lines = run.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `one line: ${run.stderr}`);
      assert.equal(lines[0], `svc: cannot listen on 127.0.0.1:${port}: another program (perhaps another svc) is using that port. Stop it, or choose another port with PORT (e.g. PORT=5556 npm start).`);
    } finally {
      blocker.close();
    }
  });

  test('Node older than 22.12 is warned about, naming a way to a supported Node; supported lines are not', () => {
    for (const version of ['20.20.2', '22.11.0', '18.0.0']) assert.match(nodeVersionWarning(version)!, /^svc: warning: Node .* npx -y -p node@24 node bin\/svc\.js serve$/, version);
    for (const version of ['22.12.0', '22.23.3', '24.21.0', '26.0.0']) assert.equal(nodeVersionWarning(version), null, version);
  });

  // The machine's own Node, when it is older than svc supports (these machines have Node 20 in /usr/bin).
  const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find((path) => {
    if (!fs.existsSync(path)) return false;
    const major = Number(execFileSync(path, ['-p', 'process.versions.node']).toString().split('.')[0]);
    return major < 22;
  });
  test('on an older Node the CLI prints the warning and still runs', { skip: oldNode ? false : 'no Node older than 22 on this machine' }, () => {
    const result = spawnSync(oldNode!, ['--import', 'tsx', 'src/cli.ts', 'encryption-key'], { cwd: projectRoot, encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr.trim(), /^svc: warning: Node 2?\d\.[\d.]+ is older than the Node lines svc supports/);
    assert.match(result.stdout.trim(), /^[0-9a-f]{64}$/, 'the command still ran');
  });
});
