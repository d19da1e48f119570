// Resident memory of a `svc serve` child process, read from /proc (Linux only; null elsewhere).
import fs from 'node:fs';

/** How long the server is left alone before an idle sample: timers settle and the post-start GC runs. */
export const IDLE_SAMPLE_MS = 5_000;

export interface RssSample {
  /** VmRSS: resident now, MiB. */
  rssMiB: number;
  /** VmHWM: the most the process has had resident since it started, MiB. */
  peakMiB: number;
}

const mib = (kib: number) => Math.round((kib / 1024) * 10) / 10;

export function readRss(pid: number | undefined): RssSample | null {
  if (pid === undefined) return null;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    const rss = field('VmRSS');
    const peak = field('VmHWM');
    return Number.isFinite(rss) && Number.isFinite(peak) ? { rssMiB: mib(rss), peakMiB: mib(peak) } : null;
  } catch {
    return null;
  }
}

/** Waits `idleMs` with no requests to the server, then samples its RSS. */
export async function idleRss(pid: number | undefined, idleMs = IDLE_SAMPLE_MS): Promise<RssSample | null> {
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  return readRss(pid);
}

/** One start of a server and its idle sample; `--only=memory` repeats it (bench/run.ts). */
export interface StartMemory {
  readyMs: number;
  /** VmRSS after IDLE_SAMPLE_MS without requests, MiB. */
  idleMiB: number | null;
  /** VmHWM then: the start-up peak, MiB. */
  startupPeakMiB: number | null;
}

export const startMemory = (readyMs: number, sample: RssSample | null): StartMemory => ({
  readyMs: Math.round(readyMs),
  idleMiB: sample?.rssMiB ?? null,
  startupPeakMiB: sample?.peakMiB ?? null,
});

export const MEMORY_ONLY_NOTE =
  `memory (--only=memory): \`svc serve\` on the embedded store started on an empty SVC_DATA_DIR (fresh: the snapshot unpacked, the system admin created) and then again on the same directory (restart), several times, each left alone for ${IDLE_SAMPLE_MS / 1000} s after GET /health first answered: idleMiB is VmRSS then and startupPeakMiB is VmHWM, the most it had resident since it started; medians over the runs, every run in samples. Run it under each Node (PATH) to compare them.`;

export const MEMORY_NOTE =
  `memory: resident set (VmRSS, and VmHWM = peak since the process started) of the \`svc serve\` child, read from /proc/<pid>/status after ${IDLE_SAMPLE_MS / 1000} s without requests: idleAfterFirstStart on the fresh store (the snapshot unpacked into an empty SVC_DATA_DIR), idleAfterRestart on the same data dir after the restart that precedes the slots run (PGlite; PostgreSQL keeps running instead), idleAfterLoad after every load of that server (slots, then bookings). No request reaches the server before the first two samples, so their peakMiB is the start-up peak (a fresh start and a restart); idleAfterLoad's is the peak of the whole run. The embedded store's PostgreSQL runs inside this process (PGlite, WebAssembly), so its buffer pool counts here; on PostgreSQL the server's memory is not included.`;
