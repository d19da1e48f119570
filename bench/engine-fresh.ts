// One fresh process (spawned by bench/engine.ts): the first computeSlots of the process on the shared
// 50-host input, with the zone tables empty and no engine code compiled yet. Prints one JSON object:
// importMs (loading the engine and the input: module evaluation, the input file, Intl's one-time
// load), firstQueryMs, slots.
const importStart = performance.now();
const { loadRoundRobin50 } = await import('./roundrobin-50.js');
const { computeSlots } = await import('../src/scheduling/slots.js');
const input = loadRoundRobin50();
const importMs = performance.now() - importStart;
// A server answers its first request after start-up, not during it: let the compiler threads finish
// with the loader's code (tsx's hooks, source maps) before timing.
await new Promise((resolve) => setTimeout(resolve, 100));
if ('absent' in input) {
  process.stdout.write(`${JSON.stringify({ absent: input.absent })}\n`);
} else {
  const queryStart = performance.now();
  const slots = computeSlots(input.query).length;
  const firstQueryMs = performance.now() - queryStart;
  process.stdout.write(`${JSON.stringify({ importMs, firstQueryMs, slots })}\n`);
}
