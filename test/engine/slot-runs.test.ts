/**
 * The sweep that lists a team's starts from its hosts' runs (src/scheduling/slots.ts, startsOfRuns),
 * against a start-by-start reading of the same runs: hosts on several grids (starts a quarter hour
 * apart, shifted by 5 and 45 minutes), runs touching, one host's runs back to back. Also with a host
 * count so large that place-times-code numbers would not stay exact, which ranks the places instead.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type HostRuns, startsOfRuns } from '../../src/scheduling/host-runs.js';

const STEP = 15 * 60_000;
const BASE = Date.parse('2026-03-08T00:00Z');

/** Runs of `hosts` hosts: per host, ascending disjoint runs on its own grid shift. */
const runsArb = fc
  .record({
    shifts: fc.array(fc.constantFrom(0, 5, 45, 45), { minLength: 5, maxLength: 5 }),
    hostRuns: fc.array(fc.array(fc.record({ gap: fc.integer({ min: 1, max: 40 }), length: fc.integer({ min: 0, max: 12 }) }), { maxLength: 8 }), { minLength: 1, maxLength: 5 }),
  })
  .map(({ shifts, hostRuns }) => {
    const runs: HostRuns = { userIds: hostRuns.map((_, host) => 100 + host * 3), hosts: [], firsts: [], lasts: [] };
    hostRuns.forEach((list, host) => {
      let place = -2;
      for (const { gap, length } of list) {
        place += gap; // gap 1 after a run: the next run starts right after it
        const first = BASE + shifts[host]! * 60_000 + place * STEP;
        runs.hosts.push(host);
        runs.firsts.push(first);
        runs.lasts.push(first + length * STEP);
        place += length + 1;
      }
    });
    return runs;
  });

/** Start by start: every start of every run, with the user ids of the hosts holding it. */
function expected(runs: HostRuns): [number, number[]][] {
  const byStart = new Map<number, number[]>();
  runs.firsts.forEach((first, run) => {
    for (let start = first; start <= runs.lasts[run]!; start += STEP) {
      const ids = byStart.get(start) ?? [];
      ids.push(runs.userIds[runs.hosts[run]!]!);
      byStart.set(start, ids);
    }
  });
  return [...byStart].sort((a, b) => a[0] - b[0]).map(([start, ids]) => [start, ids.sort((a, b) => a - b)]);
}

/** What startsOfRuns visits: [start, host list] in order. */
function visited(runs: HostRuns, hostCount: number, listOf: Parameters<typeof startsOfRuns>[3] = (_, ids) => ids.slice()): [number, number[]][] {
  const starts: [number, number[]][] = [];
  startsOfRuns(runs, STEP, hostCount, listOf, (start, hostIds) => starts.push([start, hostIds]));
  return starts;
}

describe('startsOfRuns: a team\'s starts from its hosts\' runs', () => {
  test('every start once, in order, with exactly the hosts whose runs hold it', () => {
    fc.assert(fc.property(runsArb, (runs) => assert.deepEqual(visited(runs, runs.userIds.length), expected(runs))), { numRuns: 300 });
  });

  test('with a host count too large for exact place-times-code numbers, places are ranked and the answer is the same', () => {
    // 2^44 codes per place: any run reaching 512 places past the first start exceeds 2^53.
    const huge = 2 ** 43;
    fc.assert(
      fc.property(runsArb, fc.integer({ min: 600, max: 5000 }), (runs, far) => {
        // One more run far away, for the host 0: the places now span more than 2^53 / 2^44.
        const lastEnd = runs.lasts.reduce((latest, end) => Math.max(latest, end), BASE);
        const withFar: HostRuns = { ...runs, hosts: [...runs.hosts, 0], firsts: [...runs.firsts, lastEnd + far * STEP], lasts: [...runs.lasts, lastEnd + (far + 2) * STEP] };
        assert.deepEqual(visited(withFar, huge), expected(withFar));
      }),
      { numRuns: 200 },
    );
  });

  test('places are ranked exactly when the largest place-times-code number would pass 2^53', () => {
    // 2^26 codes per place (2^25 hosts), one step apart: a run at place 2^27 + 1 makes numbers up to
    // (2^27 + 2) * 2^26 + codes, past 2^53, where odd codes (a host joining) cannot be told apart.
    const codesPerPlace = 2 ** 26;
    const far = 2 ** 27 + 1;
    const runs: HostRuns = { userIds: [7, 9], hosts: [0, 1], firsts: [0, far], lasts: [0, far] };
    const starts: [number, number[]][] = [];
    startsOfRuns(runs, 1, codesPerPlace / 2, (_, ids) => ids.slice(), (start, hostIds) => starts.push([start, hostIds]));
    assert.deepEqual(starts, [[0, [7]], [far, [9]]]);
  });

  test('a stretch\'s list is shared by its starts, and a null list leaves its starts out', () => {
    const runs: HostRuns = { userIds: [7, 9], hosts: [0, 1], firsts: [BASE, BASE + 2 * STEP], lasts: [BASE + 3 * STEP, BASE + 3 * STEP] };
    const starts = visited(runs, 2);
    assert.deepEqual(starts.map(([start]) => start), [0, 1, 2, 3].map((k) => BASE + k * STEP));
    assert.equal(starts[0]![1], starts[1]![1]);
    assert.deepEqual(starts[2]![1], [7, 9]);
    const onlyBoth = visited(runs, 2, (hosts, ids) => (hosts.length === 2 ? ids.slice() : null));
    assert.deepEqual(onlyBoth.map(([start]) => start), [BASE + 2 * STEP, BASE + 3 * STEP]);
  });
});
