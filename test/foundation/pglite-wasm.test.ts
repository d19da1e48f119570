// The embedded store's WebAssembly stays on V8's baseline compiler from V8 13 (Node 24), whose
// optimizing compiler needs about 600 MB to compile PostgreSQL's parser (src/db/pglite-wasm.ts). The
// mechanism is checked in child processes with V8's own trace of what it compiles, and with which
// compiler; the memory it saves is measured by `npm run bench` (embedded.memory), not asserted here.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pgliteWasmTiering } from '../../src/db/pglite-wasm.js';
import { backend } from '../support/test-app.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHILD = 'test/support/wasm-tiering-child.ts';
const v8Major = Number.parseInt(process.versions.v8, 10);

/** What V8 compiled in a child (`mode` of wasm-tiering-child.ts): how many functions with each compiler. */
function compiledIn(mode: 'store' | 'hot-loop', env: Record<string, string> = {}): { liftoff: number; turbofan: number } {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!('SVC_PGLITE_WASM_OPTIMIZE' in env)) delete childEnv.SVC_PGLITE_WASM_OPTIMIZE;
  const result = spawnSync(process.execPath, ['--trace-wasm-compilation-times', '--import', 'tsx', CHILD, mode], { cwd: root, env: childEnv, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.split('\n');
  return {
    liftoff: lines.filter((line) => /^Compiled function .* using Liftoff/.test(line)).length,
    turbofan: lines.filter((line) => /^Compiled function .* using TurboFan/.test(line)).length,
  };
}

describe('WebAssembly tiering of the embedded store', { skip: backend !== 'pglite' && 'embedded store only' }, () => {
  test('baseline only from V8 13, as V8 has it before; SVC_PGLITE_WASM_OPTIMIZE=1 keeps V8 as it is', () => {
    assert.equal(pgliteWasmTiering({}, '13.6.233.17-node.53'), 'baseline');
    assert.equal(pgliteWasmTiering({}, '14.1.0'), 'baseline');
    assert.equal(pgliteWasmTiering({}, '12.4.254.21-node.57'), 'optimizing');
    assert.equal(pgliteWasmTiering({ SVC_PGLITE_WASM_OPTIMIZE: '1' }, '13.6.233.17'), 'optimizing');
    assert.equal(pgliteWasmTiering({ SVC_PGLITE_WASM_OPTIMIZE: '0' }, '13.6.233.17'), 'baseline');
    assert.equal(pgliteWasmTiering({ SVC_PGLITE_WASM_OPTIMIZE: '' }, '13.6.233.17'), 'baseline');
    assert.throws(() => pgliteWasmTiering({ SVC_PGLITE_WASM_OPTIMIZE: 'yes' }, '13.6.233.17'), /SVC_PGLITE_WASM_OPTIMIZE must be 1 or 0/);
  });

  test('the trace tells the compilers apart: a hot loop alone is compiled by both', () => {
    const compiled = compiledIn('hot-loop');
    assert.ok(compiled.liftoff >= 1, 'compiled first by Liftoff');
    assert.ok(compiled.turbofan >= 1, 'then, hot, by the optimizing compiler');
  });

  test('a store opened as svc opens it, and queried, gets nothing from the optimizing compiler from V8 13 (nor does WebAssembly compiled after it); before V8 13 it does', () => {
    const compiled = compiledIn('store');
    assert.ok(compiled.liftoff > 100, `PGlite's functions are compiled by Liftoff first (${compiled.liftoff})`);
    if (v8Major >= 13) assert.equal(compiled.turbofan, 0);
    else assert.ok(compiled.turbofan > 0, `V8 ${process.versions.v8} optimizes hot functions as it always did`);
  });
});
