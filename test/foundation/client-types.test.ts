// client/openapi.d.ts, the API's TypeScript types, is what openapi-typescript makes of the document svc
// serves, and the README's openapi-fetch example type-checks against it and runs against a real server.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CLIENT_TYPES_FILE, generateClientTypes } from '../../client/generate-types.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EXAMPLE_FILE = path.join(root, 'client/example.ts');
const TSC = path.join(root, 'node_modules/.bin/tsc');

/** Type-checks one file that imports openapi-fetch and the client types, strictly and with the .d.ts itself checked. */
async function typeCheck(file: string): Promise<{ ok: boolean; output: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-client-'));
  try {
    const config = {
      compilerOptions: {
        target: 'ES2023',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [path.join(root, 'node_modules/@types')],
      },
      files: [file],
    };
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
    await run(TSC, ['-p', path.join(dir, 'tsconfig.json')], { cwd: root });
    return { ok: true, output: '' };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` || failed.message };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('the typed client', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('client/openapi.d.ts is what npm run client:types makes of the served /docs/openapi.json', async () => {
    const document = (await api.request('GET', '/docs/openapi.json')).body;
    const generated = await generateClientTypes(document);
    const checkedIn = fs.readFileSync(CLIENT_TYPES_FILE, 'utf8');
    assert.ok(generated === checkedIn, 'client/openapi.d.ts differs from the served document: run npm run client:types');
    assert.match(checkedIn, /"\/v2\/bookings\/\{bookingUid\}\/reschedule": \{/);
    // A change to the document shows: one more operation is one more path in the types.
    const changed = structuredClone(document);
    changed.paths['/v2/example-only'] = { get: { responses: { 200: { description: 'ok' } } } };
    assert.notEqual(await generateClientTypes(changed), checkedIn);
  });

  test('the README\'s example is client/example.ts, and it type-checks (a wrong body does not)', async () => {
    const example = fs.readFileSync(EXAMPLE_FILE, 'utf8');
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    assert.ok(readme.includes(`\`\`\`ts\n${example}\`\`\``), 'README.md shows client/example.ts as it is');

    const checked = await typeCheck(EXAMPLE_FILE);
    assert.ok(checked.ok, checked.output);
    const wrong = path.join(path.dirname(EXAMPLE_FILE), `.wrong-example-${process.pid}.ts`);
    try {
      fs.writeFileSync(wrong, example.replace("name: 'Working hours'", 'name: 42'));
      const refused = await typeCheck(wrong);
      assert.equal(refused.ok, false, 'a number where the schedule name is a string is a type error');
      assert.match(refused.output, /Type 'number' is not assignable to type 'string'/);
    } finally {
      fs.rmSync(wrong, { force: true });
    }
  });

  test('the example runs against a real server: it reads /v2/me and creates a schedule', async () => {
    const { user, apiKey } = await api.createUser({ name: 'Ada Lovelace' });
    const { stdout } = await run(process.execPath, ['--import', 'tsx', EXAMPLE_FILE], {
      cwd: root,
      env: { ...process.env, SVC_URL: api.baseUrl, SVC_API_KEY: apiKey },
    });
    const scheduleId = Number(/^Schedule (\d+) in Europe\/Rome$/m.exec(stdout)?.[1]);
    assert.match(stdout, /^Hello Ada Lovelace$/m);
    const schedules = await api.request('GET', '/v2/schedules', { key: apiKey, version: '2024-06-11' });
    assert.deepEqual(
      schedules.body.data.map((schedule: { id: number; ownerId: number }) => [schedule.id, schedule.ownerId]).filter(([id]: number[]) => id === scheduleId),
      [[scheduleId, user.id]],
    );
  });
});
