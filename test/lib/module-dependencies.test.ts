// Module dependencies read from the source: webhooks depend on bookings (booking records, the meeting
// events they schedule), never the reverse, and no file reaches itself again through its imports.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const MODULES = path.join(SRC, 'modules');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The files a file imports, relative imports only; `types` includes `import type`. */
function importsOf(file: string, types: boolean): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'(\.[^']+)'/gm)]
    .filter((match) => types || !match[1])
    .map((match) => path.resolve(path.dirname(file), match[2]!.replace(/\.js$/, '.ts')));
}

const moduleOf = (file: string) => path.relative(MODULES, file).split(path.sep)[0];

describe('module dependencies', () => {
  test('bookings import nothing of webhooks, not even types', () => {
    const crossings = sourceFiles(path.join(MODULES, 'bookings')).flatMap((file) =>
      importsOf(file, true)
        .filter((imported) => moduleOf(imported) === 'webhooks')
        .map((imported) => `${path.relative(SRC, file)} -> ${path.relative(SRC, imported)}`),
    );
    assert.deepEqual(crossings, []);
  });

  test('no runtime import cycle runs through bookings or webhooks', () => {
    const files = sourceFiles(SRC);
    const graph = new Map(files.map((file) => [file, importsOf(file, false).filter((imported) => files.includes(imported))]));
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of graph.get(file)!) {
        if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)).map((each) => path.relative(SRC, each)).join(' -> '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    assert.deepEqual(cycles.filter((cycle) => /modules\/(bookings|webhooks)\//.test(cycle)), []);
  });
});
