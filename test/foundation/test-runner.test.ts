// `npm test` itself (scripts/run-tests.mjs): a folder argument runs its files; without PostgreSQL the
// PostgreSQL pass is skipped saying why in one line, and `--backend=postgres` alone fails instead of
// running nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { projectRoot } from '../support/child-server.js';
import { backend } from '../support/test-app.js';

const SKIP = backend === 'postgres' && 'the runner does not depend on the store (the PGlite pass runs it)';
const NOWHERE = 'postgres://postgres@127.0.0.1:1/test';

/** The runner as `npm test` starts it: outside this test run (node:test's own variables would make its runs report to ours). */
function runner(args: string[], env: Record<string, string> = {}) {
  const outside = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('NODE_TEST')));
  return spawnSync(process.execPath, ['scripts/run-tests.mjs', ...args], { cwd: projectRoot, encoding: 'utf8', env: { ...outside, ...env }, timeout: 240_000 });
}

describe('the test runner', { skip: SKIP }, () => {
  test('a folder argument runs every test file in it', () => {
    const files = fs.readdirSync(`${projectRoot}/test/lib`).filter((name) => name.endsWith('.test.ts')).map((name) => `test/lib/${name}`);
    assert.ok(files.length > 1);
    const counts = (stdout: string) => /^pglite: (\d+) passed, (\d+) failed/m.exec(stdout)?.slice(1).map(Number);
    const byFolder = runner(['--backend=pglite', 'test/lib']);
    const byFiles = runner(['--backend=pglite', ...files]);
    assert.equal(byFolder.status, 0, byFolder.stdout.slice(-2000));
    assert.ok(counts(byFolder.stdout)![0]! > 0);
    assert.deepEqual(counts(byFolder.stdout), counts(byFiles.stdout), 'the folder runs what its files run');
  });

  test('without PostgreSQL: one readable line; skipped in the whole run, a failure when PostgreSQL alone was asked for', () => {
    const alone = runner(['--backend=postgres', 'test/lib/iso-instant.test.ts'], { SVC_TEST_DATABASE_URL: NOWHERE });
    assert.equal(alone.status, 1);
    assert.match(alone.stdout, /^# PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:1\/test: cannot connect \(ECONNREFUSED\)\. The tests need a server there/m);
    assert.match(alone.stdout, /^0 passed, 1 failed, 0 skipped$/m);
    const both = runner(['test/lib/iso-instant.test.ts'], { SVC_TEST_DATABASE_URL: NOWHERE });
    assert.equal(both.status, 0, both.stdout.slice(-2000));
    assert.match(both.stdout, /The PostgreSQL pass is SKIPPED\.$/m);
  });
});
