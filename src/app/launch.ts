import os from 'node:os';

/**
 * V8 sizes its young generation (the new space every allocation starts in) when the process starts,
 * from the memory it may use. On a machine or container of 16 GiB or more, V8 13 (Node 24) takes 64 MB
 * semi-spaces where V8 12 (Node 22) stopped at 16 MB, and `svc serve`'s start-up fills them: about
 * 90 MB more resident for as long as it runs (npm run bench, embedded.memory). Nothing changes that
 * from inside a running process, so `svc serve` and `svc worker` start again in the same process
 * (process.execve, same pid) with Node 22's 16 MB. Below 16 GiB V8 may choose less, and its choice
 * stands; so does any heap size given in NODE_OPTIONS or on node's command line.
 */
export const SEMI_SPACE_MB = 16;
const LARGE_MEMORY_BYTES = 16 * 2 ** 30;
const FIRST_V8_WITH_LARGE_SEMI_SPACES = 13;
const LONG_RUNNING = new Set(['serve', 'worker']);
const HEAP_SIZE_FLAG = /--(?:max|min)[-_](?:semi[-_]space|old[-_]space|heap)[-_]size/;

export interface LaunchFacts {
  command: string | undefined;
  v8Version: string;
  /** What V8 sizes the heap from: the container's limit if it has a smaller one, else the machine's memory. */
  memoryBytes: number;
  execArgv: readonly string[];
  nodeOptions: string | undefined;
  /** process.execve exists (Node 22.15 and 24; not on Windows). */
  canRelaunch: boolean;
}

export function launchFacts(): LaunchFacts {
  const limit = process.constrainedMemory?.() ?? 0;
  const total = os.totalmem();
  return {
    command: process.argv[2],
    v8Version: process.versions.v8,
    memoryBytes: limit > 0 ? Math.min(limit, total) : total,
    execArgv: process.execArgv,
    nodeOptions: process.env.NODE_OPTIONS,
    canRelaunch: typeof execve() === 'function',
  };
}

/** The node options to start again with, or none. */
export function relaunchOptions(facts: LaunchFacts): string[] {
  if (!facts.canRelaunch || facts.command === undefined || !LONG_RUNNING.has(facts.command)) return [];
  if (Number.parseInt(facts.v8Version, 10) < FIRST_V8_WITH_LARGE_SEMI_SPACES || facts.memoryBytes < LARGE_MEMORY_BYTES) return [];
  if (facts.execArgv.some((arg) => HEAP_SIZE_FLAG.test(arg)) || HEAP_SIZE_FLAG.test(facts.nodeOptions ?? '')) return [];
  return [`--max-semi-space-size=${SEMI_SPACE_MB}`];
}

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;
const execve = () => (process as { execve?: Execve }).execve;

/** Replaces this process with node started with `relaunchOptions` when there are any; returns otherwise. */
export function relaunchIfNeeded(facts: LaunchFacts = launchFacts()): void {
  const options = relaunchOptions(facts);
  if (options.length === 0) return;
  execve()!(process.execPath, [process.execPath, ...process.execArgv, ...options, ...process.argv.slice(1)], process.env);
}
