#!/usr/bin/env node
// The whole suite, on both backends: every *.test.ts under src/ and test/ runs once on the embedded
// store (PGlite) and once on PostgreSQL, with TZ set to an unusual zone. Prints `N passed, N failed`.
//   npm test                      both backends
//   npm test -- --backend=pglite  one backend;  npm test -- test/foundation/me.test.ts  some files
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const backendArg = args.find((arg) => arg.startsWith('--backend='))?.slice('--backend='.length);
const fileArgs = args.filter((arg) => !arg.startsWith('--'));
const pgUrl = process.env.SVC_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

function findTests(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : findTests(full);
    return entry.name.endsWith('.test.ts') ? [path.relative(root, full)] : [];
  });
}

// A folder argument (`npm test -- test/engine`) runs its test files: node --test expands no folders or
// globs on every Node line svc supports.
const expand = (arg) => (fs.existsSync(arg) && fs.statSync(arg).isDirectory() ? findTests(path.resolve(root, arg)) : [arg]);
const files = fileArgs.length > 0 ? fileArgs.flatMap(expand).sort() : [...findTests(path.join(root, 'src')), ...findTests(path.join(root, 'test'))].sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

function node(script, env = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
}

/** Creates the migrated template database each PostgreSQL test file clones, or explains why not. */
function preparePostgres() {
  const template = `svc_tpl_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const result = node('test/support/pg-template.ts', { SVC_TEST_DATABASE_URL: pgUrl, SVC_TEST_PG_TEMPLATE: template, SVC_PG_TEMPLATE_ACTION: 'create' });
  if (result.status !== 0) return { error: (result.stderr || result.stdout).trim().split('\n').slice(-3).join(' ') };
  return { template };
}

function dropPostgres(template) {
  node('test/support/pg-template.ts', { SVC_TEST_DATABASE_URL: pgUrl, SVC_TEST_PG_TEMPLATE: template, SVC_PG_TEMPLATE_ACTION: 'drop' });
}

// The slot engine and the small libraries never touch a database: they run in the first pass only.
const DATABASE_FREE = [`test${path.sep}engine${path.sep}`, `test${path.sep}lib${path.sep}`];
const needsDatabase = (file) => !DATABASE_FREE.some((prefix) => file.startsWith(prefix));

function runSuite(backend, env, suiteFiles = files) {
  const tapFile = path.join(os.tmpdir(), `svc-tests-${backend}-${process.pid}.tap`);
  const concurrency = Math.max(2, os.availableParallelism());
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tapFile}`, ...suiteFiles],
      { cwd: root, stdio: 'inherit', env: { ...process.env, TZ: process.env.TZ || 'Pacific/Chatham', SVC_TEST_BACKEND: backend, LOG_LEVEL: 'silent', ...env } },
    );
    child.on('exit', (code) => {
      const tap = fs.existsSync(tapFile) ? fs.readFileSync(tapFile, 'utf8') : '';
      fs.rmSync(tapFile, { force: true });
      const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tap)?.[1] ?? 0);
      resolve({ backend, code, passed: count('pass'), failed: count('fail') + count('cancelled'), skipped: count('skipped') + count('todo') });
    });
  });
}

// Tests clone the migrated PGlite snapshot; make sure it matches the current migrations.
const prepared = node('scripts/prepare-pglite.ts');
if (prepared.status !== 0) {
  console.error(prepared.stderr || prepared.stdout);
  process.exit(1);
}

const backends = backendArg ? [backendArg] : ['pglite', 'postgres'];
const results = [];
for (const backend of backends) {
  if (backend === 'pglite') {
    results.push(await runSuite('pglite', {}));
    continue;
  }
  const prepared = preparePostgres();
  if (prepared.error) {
    const what =
      `PostgreSQL at ${pgUrl}: ${prepared.error}. The tests need a server there (or SVC_TEST_DATABASE_URL) ` +
      'with a role that may create databases, the database in the URL, and the btree_gist extension available (Debian: postgresql-contrib).';
    if (backendArg === 'postgres') {
      // Asked for PostgreSQL alone: running nothing must not look like a pass.
      console.log(`\n# ${what}\n`);
      results.push({ backend, code: 1, passed: 0, failed: files.length, skipped: 0 });
      continue;
    }
    console.log(`\n# ${what} The PostgreSQL pass is SKIPPED.\n`);
    results.push({ backend, code: 0, passed: 0, failed: 0, skipped: files.length });
    continue;
  }
  try {
    const databaseFiles = backends.length > 1 ? files.filter(needsDatabase) : files;
    if (databaseFiles.length === 0) continue;
    results.push(await runSuite('postgres', { SVC_TEST_DATABASE_URL: pgUrl, SVC_TEST_PG_TEMPLATE: prepared.template }, databaseFiles));
  } finally {
    dropPostgres(prepared.template);
  }
}

const total = results.reduce((sum, r) => ({ passed: sum.passed + r.passed, failed: sum.failed + r.failed, skipped: sum.skipped + r.skipped }), { passed: 0, failed: 0, skipped: 0 });
for (const r of results) console.log(`${r.backend}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`);
const exitCode = results.some((r) => r.code !== 0) || total.failed > 0 ? 1 : 0;
console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(exitCode);
