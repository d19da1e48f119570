// Child process of test/foundation/pglite-wasm.test.ts, run with V8's --trace-wasm-compilation-times
// (one stdout line per function V8 compiles, naming the compiler). `store`: opens an embedded store
// the way svc does and runs queries on it, then runs hotLoop; `hot-loop`: hotLoop alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A WebAssembly function summing n..1 in a loop, called until V8 would have tiered it up many times
 * over: f(n) { let s = 0; do { s += n; n -= 1 } while (n); return s }.
 */
export function hotLoop(): void {
  const bytes = Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
    0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f, // type: (i32) -> i32
    0x03, 0x02, 0x01, 0x00, // function 0 has type 0
    0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00, // export "f"
    0x0a, 0x1d, 0x01, 0x1b, 0x01, 0x01, 0x7f, // code: one body, one i32 local
    0x03, 0x40, // loop
    0x20, 0x01, 0x20, 0x00, 0x6a, 0x21, 0x01, // s = s + n
    0x20, 0x00, 0x41, 0x01, 0x6b, 0x21, 0x00, // n = n - 1
    0x20, 0x00, 0x0d, 0x00, // br_if n
    0x0b, 0x20, 0x01, 0x0b, // end loop; return s
  ]);
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes));
  const f = instance.exports.f as (n: number) => number;
  let total = 0;
  for (let i = 0; i < 200; i++) total += f(1_000_000);
  if (!Number.isFinite(total)) throw new Error('unreachable');
}

const mode = process.argv[2];
if (mode === 'store') {
  const { openDatabase } = await import('../../src/db/client.js');
  const { sql } = await import('drizzle-orm');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-wasm-tiering-'));
  try {
    const database = await openDatabase({ dataDir: dir });
    for (let i = 0; i < 300; i++) await database.db.execute(sql`select count(*) from pg_class where relpages >= ${i}`);
    await database.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  hotLoop();
} else if (mode === 'hot-loop') {
  hotLoop();
} else {
  throw new Error(`usage: wasm-tiering-child.ts store|hot-loop, got ${mode}`);
}
