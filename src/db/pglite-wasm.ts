import v8 from 'node:v8';

/**
 * V8 runs WebAssembly first with its baseline compiler (Liftoff) and compiles functions that turn hot a
 * second time with its optimizing one. From V8 13 (Node 24) that is Turboshaft, and for one function
 * of PGlite's module, PostgreSQL's SQL parser (raw_parser, 105 kB of code), it holds about 600 MB of
 * compiler memory for a second or more (V8 12, Node 22: 25 MB). PGlite's own start parses enough SQL
 * to make the parser hot, so `svc serve` on Node 24 peaked near 900 MB while starting, and the parser
 * would turn hot later in any case (every transaction's BEGIN and COMMIT pass through it). No V8 flag
 * keeps one function from tiering up, so on V8 13 and later the embedded store's code stays on
 * Liftoff: svc's short indexed reads and writes cost the same CPU (npm run bench), a query scanning
 * thousands of rows about 1.5 times as much. SVC_PGLITE_WASM_OPTIMIZE=1 leaves V8's tiering as it is.
 */
export const BASELINE_ONLY_FLAGS = ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up'] as const;

/** The first V8 whose optimizing WebAssembly compiler needs that memory for PGlite's parser. */
const FIRST_V8_WITH_TURBOSHAFT_WASM = 13;

export type WasmTiering = 'baseline' | 'optimizing';

/** Which tiering the embedded store's WebAssembly runs with here. */
export function pgliteWasmTiering(env: NodeJS.ProcessEnv = process.env, v8Version: string = process.versions.v8): WasmTiering {
  const optimize = env.SVC_PGLITE_WASM_OPTIMIZE?.trim();
  if (optimize !== undefined && optimize !== '' && optimize !== '0' && optimize !== '1') {
    throw new Error(`SVC_PGLITE_WASM_OPTIMIZE must be 1 or 0, got ${JSON.stringify(optimize)}`);
  }
  if (optimize === '1') return 'optimizing';
  return Number.parseInt(v8Version, 10) >= FIRST_V8_WITH_TURBOSHAFT_WASM ? 'baseline' : 'optimizing';
}

let applied: WasmTiering | undefined;

/**
 * Sets V8's WebAssembly tiering for the embedded store; call before PGlite compiles its module (V8 reads
 * these flags when a module is compiled). The flags are the process's: WebAssembly compiled later
 * runs on Liftoff too. The first call decides; later ones return what it applied.
 */
export function applyPgliteWasmTiering(env: NodeJS.ProcessEnv = process.env): WasmTiering {
  if (applied !== undefined) return applied;
  const tiering = pgliteWasmTiering(env);
  if (tiering === 'baseline') for (const flag of BASELINE_ONLY_FLAGS) v8.setFlagsFromString(flag);
  applied = tiering;
  return tiering;
}
