/**
 * Half-open time intervals [start, end) in epoch milliseconds. Lists are sorted and disjoint unless noted.
 * The loops over them index their elements instead of destructuring them (`for (const [a, b] of ...)`):
 * until the optimizing compiler steps in, destructuring runs the iterator protocol, allocating as it
 * goes, and the first query of a process pays for it.
 */
import { work } from './engine-work.js';

export type Interval = readonly [start: number, end: number];

/** Sorts and merges overlapping or touching intervals; drops empty ones. Accepts any order. */
export function normalizeIntervals(intervals: readonly Interval[]): Interval[] {
  // Most lists arrive sorted by start (pieces, busy time read in order): they are merged as they are.
  let sorted = true;
  for (let i = 1; i < intervals.length && sorted; i++) sorted = intervals[i - 1]![0] <= intervals[i]![0];
  let ordered = intervals;
  if (!sorted) {
    work.sorts += 1;
    // Equal starts need no order of their own: merging takes the larger end either way.
    ordered = [...intervals].sort((a, b) => a[0] - b[0]);
  }
  // Intervals are kept as they are unless merged (they are never changed in place).
  const merged: Interval[] = [];
  for (let i = 0; i < ordered.length; i++) {
    const start = ordered[i]![0];
    const end = ordered[i]![1];
    if (end <= start) continue;
    const last = merged[merged.length - 1];
    if (!last || start > last[1]) merged.push(ordered[i]!);
    else if (end > last[1]) merged[merged.length - 1] = [last[0], end];
  }
  return merged;
}

/** `free` minus `busy`; both normalized. Linear in the total length. */
export function subtractIntervals(free: readonly Interval[], busy: readonly Interval[]): Interval[] {
  const result: Interval[] = [];
  let b = 0;
  for (let f = 0; f < free.length; f++) {
    const freeStart = free[f]![0];
    const freeEnd = free[f]![1];
    let cursor = freeStart;
    while (b < busy.length && busy[b]![1] <= cursor) b++;
    let i = b;
    while (i < busy.length && busy[i]![0] < freeEnd) {
      work.busyVisits += 1;
      const busyStart = busy[i]![0];
      const busyEnd = busy[i]![1];
      if (busyStart > cursor) result.push([cursor, busyStart]);
      // Once the cursor passes the free end the loop's own test stops it: the next busy interval starts after this one ends.
      cursor = Math.max(cursor, busyEnd);
      i++;
    }
    if (cursor < freeEnd) result.push([cursor, freeEnd]);
  }
  return result;
}

/** Instants inside both lists; both normalized. */
export function intersectIntervals(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  work.intersections += 1;
  const result: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const start = Math.max(a[i]![0], b[j]![0]);
    const end = Math.min(a[i]![1], b[j]![1]);
    if (end > start) result.push([start, end]);
    if (a[i]![1] < b[j]![1]) i++;
    else j++;
  }
  return result;
}

/** Clips a normalized list to [from, to). */
export function clipIntervals(intervals: readonly Interval[], from: number, to: number): Interval[] {
  return intersectIntervals(intervals, [[from, to]]);
}
