// Round-robin starts as runs: each host's starts on the grid are runs of consecutive starts, swept
// together per grid so that every stretch between two run edges gets its host list once.
import { work } from './engine-work.js';

/** Runs of grid starts (`step` apart) of several hosts: run `r` is host `hosts[r]`'s starts `firsts[r]` ... `lasts[r]`. */
export interface HostRuns {
  /** User id of each host. */
  userIds: readonly number[];
  hosts: number[];
  firsts: number[];
  lasts: number[];
}

/** A stretch's host list from its hosts (indexes ascending) and their user ids; null leaves it out. */
export type ListOf = (hosts: readonly number[], userIds: readonly number[]) => number[] | null;

/** Receives starts in order, each with its host list (consecutive starts may share a list). */
export type VisitStart = (start: number, hostIds: number[]) => void;

/**
 * Every start of the runs, in order, to `visit` with `listOf` the hosts whose runs hold it. Runs on
 * one grid (the same start modulo `step`) are swept together: the hosts change only where a run begins
 * or ends, so each stretch between two such places gets its list once, shared by all its starts.
 * Starts of different grids never coincide; several grids are merged by start.
 */
export function startsOfRuns(runs: HostRuns, step: number, hostCount: number, listOf: ListOf, visit: VisitStart): void {
  const byGrid = new Map<number, number[]>();
  for (let run = 0; run < runs.firsts.length; run++) {
    const first = runs.firsts[run]!;
    const phase = first - Math.floor(first / step) * step;
    const list = byGrid.get(phase);
    if (list) list.push(run);
    else byGrid.set(phase, [run]);
  }
  if (byGrid.size <= 1) {
    for (const gridRuns of byGrid.values()) sweepGrid(runs, gridRuns, step, hostCount, listOf, visit);
    return;
  }
  work.gridMerges += 1;
  const grids = [...byGrid.values()].map((gridRuns) => {
    const grid = { starts: [] as number[], hostLists: [] as number[][] };
    sweepGrid(runs, gridRuns, step, hostCount, listOf, (start, hostIds) => {
      grid.starts.push(start);
      grid.hostLists.push(hostIds);
    });
    return grid;
  });
  const positions = grids.map(() => 0);
  for (;;) {
    let next = -1;
    for (let grid = 0; grid < grids.length; grid++) {
      const at = positions[grid]!;
      if (at < grids[grid]!.starts.length && (next < 0 || grids[grid]!.starts[at]! < grids[next]!.starts[positions[next]!]!)) next = grid;
    }
    if (next < 0) return;
    visit(grids[next]!.starts[positions[next]!]!, grids[next]!.hostLists[positions[next]!]!);
    positions[next]! += 1;
  }
}

/** `startsOfRuns` for runs on one grid. */
function sweepGrid(runs: HostRuns, gridRuns: readonly number[], step: number, hostCount: number, listOf: ListOf, visit: VisitStart): void {
  // Places on the grid are integers counted from the first run's start. A run of host h adds h at its
  // first start and removes it after its last: code 2h + 1 adds, 2h removes. Each event is one number,
  // place-major, so one native numeric sort orders them; all events of a place apply before it is
  // listed. Should places times codes not stay exact (never for a real query), places are replaced by
  // their ranks among the events' places.
  let origin = Infinity;
  let last = -Infinity;
  for (let i = 0; i < gridRuns.length; i++) {
    origin = Math.min(origin, runs.firsts[gridRuns[i]!]!);
    last = Math.max(last, runs.lasts[gridRuns[i]!]!);
  }
  const codes = 2 * hostCount;
  const ranked = (Math.round((last - origin) / step) + 2) * codes > Number.MAX_SAFE_INTEGER ? distinctPlaces(runs, gridRuns, origin, step) : null;
  const keys = new Float64Array(2 * gridRuns.length);
  for (let i = 0; i < gridRuns.length; i++) {
    const run = gridRuns[i]!;
    const added = Math.round((runs.firsts[run]! - origin) / step);
    const removed = Math.round((runs.lasts[run]! - origin) / step) + 1;
    keys[2 * i] = (ranked ? rankOf(ranked, added) : added) * codes + 2 * runs.hosts[run]! + 1;
    keys[2 * i + 1] = (ranked ? rankOf(ranked, removed) : removed) * codes + 2 * runs.hosts[run]!;
  }
  keys.sort();
  // The hosts present (ascending; a host's runs never overlap) and their user ids. The first query of
  // a process runs this loop unoptimized, where native splice and slice beat loops written here.
  const active: number[] = [];
  const activeIds: number[] = [];
  // The first event is the first run's start: place (or rank) 0.
  let nextRank = 0;
  for (let at = 0; at < keys.length; at++) {
    const rank = nextRank;
    const code = keys[at]! - rank * codes;
    const host = code >> 1;
    if (code & 1) {
      let index = active.length;
      while (index > 0 && active[index - 1]! > host) index--;
      active.splice(index, 0, host);
      activeIds.splice(index, 0, runs.userIds[host]!);
    } else {
      const index = active.lastIndexOf(host);
      active.splice(index, 1);
      activeIds.splice(index, 1);
    }
    if (at + 1 === keys.length) break;
    nextRank = Math.floor(keys[at + 1]! / codes);
    // The place's last event applied: its starts run to the next place with an event.
    if (nextRank === rank || active.length === 0) continue;
    const hosts = listOf(active, activeIds);
    if (!hosts) continue;
    const place = ranked ? ranked[rank]! : rank;
    const until = ranked ? ranked[nextRank]! : nextRank;
    for (let p = place; p < until; p++) visit(origin + p * step, hosts);
  }
}

/**
 * The places where the runs' hosts change, ascending. A place held twice is harmless: `rankOf` finds its
 * first copy, so equal places get equal ranks and ranks keep the places' order.
 */
function distinctPlaces(runs: HostRuns, gridRuns: readonly number[], origin: number, step: number): Float64Array {
  work.rankedGrids += 1;
  const places = new Float64Array(2 * gridRuns.length);
  gridRuns.forEach((run, i) => {
    places[2 * i] = Math.round((runs.firsts[run]! - origin) / step);
    places[2 * i + 1] = Math.round((runs.lasts[run]! - origin) / step) + 1;
  });
  return places.sort();
}

/** Index of the first copy of `place` in ascending `places`, which holds it. */
function rankOf(places: Float64Array, place: number): number {
  let low = 0;
  let high = places.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (places[mid]! < place) low = mid + 1;
    else high = mid;
  }
  return low;
}
