import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type Interval, intersectIntervals, normalizeIntervals, subtractIntervals } from '../../src/scheduling/intervals.js';

// Oracle: intervals on a small integer line, as sets of unit cells.
const cells = (list: readonly Interval[]) => {
  const set = new Set<number>();
  for (const [start, end] of list) for (let t = start; t < end; t++) set.add(t);
  return set;
};
const arbitraryIntervals = fc.array(fc.tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 60 })).map(([s, len]) => [s, s + len] as Interval), { maxLength: 12 });
const isNormalized = (list: readonly Interval[]) => list.every(([s, e], i) => e > s && (i === 0 || s > list[i - 1]![1]));

test('normalize, subtract and intersect agree with set arithmetic', () => {
  fc.assert(
    fc.property(arbitraryIntervals, arbitraryIntervals, (rawA, rawB) => {
      const a = normalizeIntervals(rawA);
      const b = normalizeIntervals(rawB);
      assert.ok(isNormalized(a));
      assert.deepEqual(cells(a), cells(rawA));
      const diff = subtractIntervals(a, b);
      const both = intersectIntervals(a, b);
      // Normalized: no empty, inverted, overlapping or touching pieces (cells alone would not see them).
      assert.ok(isNormalized(diff), `subtract: ${JSON.stringify(diff)}`);
      assert.ok(isNormalized(both), `intersect: ${JSON.stringify(both)}`);
      assert.deepEqual(cells(diff), new Set([...cells(a)].filter((t) => !cells(b).has(t))));
      assert.deepEqual(cells(both), new Set([...cells(a)].filter((t) => cells(b).has(t))));
    }),
    { numRuns: 2000 },
  );
});

test('intersect: lists that only touch or do not meet have nothing in common', () => {
  assert.deepEqual(intersectIntervals([[0, 10]], [[10, 20]]), []);
  assert.deepEqual(intersectIntervals([[0, 10]], [[20, 30]]), []);
  assert.deepEqual(intersectIntervals([[0, 10], [20, 30]], [[5, 25]]), [[5, 10], [20, 25]]);
  assert.deepEqual(intersectIntervals([[0, 10], [20, 30]], [[0, 10], [20, 30]]), [[0, 10], [20, 30]]);
});
