// CPU time from Linux's /proc, for benches that report what a run cost the server and PostgreSQL.
import fs from 'node:fs';

export const TICK_MS = 10; // Linux USER_HZ is 100

/** utime + stime of a /proc/<pid>/stat line, ms. */
export function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** Every process named postgres (a local PostgreSQL server's backends), ms. */
export function postgresCpuMs(): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === 'postgres') total += statCpuMs(stat);
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

/** All CPUs since boot, busy and total, ms (the first line of /proc/stat). */
export function machineCpuMs(): { busyMs: number; totalMs: number } {
  const ticks = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const totalMs = ticks.reduce((sum, value) => sum + value, 0) * TICK_MS;
  return { busyMs: totalMs - (ticks[3]! + ticks[4]!) * TICK_MS, totalMs };
}
