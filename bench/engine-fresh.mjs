// One fresh process (spawned by bench/engine.ts): the first computeSlots of the process, with the zone
// tables empty. Plain JavaScript, so that nothing but the engine is loaded: argv[2] is the engine module
// (dist/src/scheduling/slots.js as the server runs it); argv[3] is the warm-up module `svc serve` runs
// before it listens (warm-up.js next to it), or `none` for a process that has run no engine code yet.
// The query (JSON) comes on stdin. Prints one JSON object: importMs (evaluating the engine's modules,
// Intl's one-time load among them), warmUpMs, firstQueryMs, firstQueryCpuMs, slots.
import { pathToFileURL } from 'node:url';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const query = JSON.parse(input);
const importStart = performance.now();
const { computeSlots } = await import(pathToFileURL(process.argv[2]).href);
const importMs = performance.now() - importStart;
let warmUpMs = null;
if (process.argv[3] !== 'none') {
  const { warmUpEngine } = await import(pathToFileURL(process.argv[3]).href);
  const warmUpStart = performance.now();
  warmUpEngine();
  warmUpMs = performance.now() - warmUpStart;
}
// A server answers its first request after start-up, not during it: let the compiler threads finish
// with start-up's code before timing.
await new Promise((resolve) => setTimeout(resolve, 100));
// CPU time of this thread as well (Node 23.9+): other processes on the machine lengthen the wall
// time, not this.
const cpuMs = () => {
  const usage = process.threadCpuUsage?.();
  return usage ? (usage.user + usage.system) / 1000 : Number.NaN;
};
const cpuStart = cpuMs();
const queryStart = performance.now();
const slots = computeSlots(query).length;
const firstQueryMs = performance.now() - queryStart;
const firstQueryCpuMs = cpuMs() - cpuStart;
process.stdout.write(`${JSON.stringify({ importMs, warmUpMs, firstQueryMs, firstQueryCpuMs, slots })}\n`);
