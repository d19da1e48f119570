// npm run client:types: writes client/openapi.d.ts, the TypeScript types of svc's API, from the
// document svc serves at /docs/openapi.json. test/foundation/client-types.test.ts fails when the two differ.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
// openapi-typescript needs TypeScript 5's compiler API (svc builds with TypeScript 7, which has none):
// this workspace's own devDependencies give it that version.
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { loadConfig } from '../src/app/config.js';
import { startRuntime } from '../src/app/runtime.js';
import { openDatabase } from '../src/db/client.js';
import { pgliteBaseSnapshotPath } from '../src/db/pglite-snapshot.js';

export const CLIENT_TYPES_FILE = fileURLToPath(new URL('./openapi.d.ts', import.meta.url));

const HEADER = '// svc API types, generated from /docs/openapi.json by `npm run client:types`: do not edit.\n';

/** The types of `document` (svc's OpenAPI 3.1 document), as client/openapi.d.ts holds them. */
export async function generateClientTypes(document: unknown): Promise<string> {
  return HEADER + astToString(await openapiTS(document as OpenAPI3));
}

/** The document an svc on an empty embedded store answers at /docs/openapi.json; nothing is listened on or written. */
export async function servedDocument(): Promise<unknown> {
  const config = loadConfig({ LOG_LEVEL: 'silent', SVC_ENCRYPTION_KEY: randomBytes(32).toString('hex') });
  const snapshot = fs.existsSync(pgliteBaseSnapshotPath()) ? new Blob([fs.readFileSync(pgliteBaseSnapshotPath())]) : undefined;
  const runtime = await startRuntime(config, { database: await openDatabase({ pgliteSnapshot: snapshot }), logger: false });
  try {
    const response = await runtime.app.inject({ method: 'GET', url: '/docs/openapi.json' });
    if (response.statusCode !== 200) throw new Error(`GET /docs/openapi.json answered ${response.statusCode}`);
    return response.json();
  } finally {
    await runtime.close();
  }
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(CLIENT_TYPES_FILE, await generateClientTypes(await servedDocument()));
  console.log(`wrote ${CLIENT_TYPES_FILE}`);
}
