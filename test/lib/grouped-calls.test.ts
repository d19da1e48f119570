import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groupedCalls } from '../../src/lib/grouped-calls.js';

/** A grouped doubling function that records each group it ran and can be held open. */
function recordingDoubler(maxGroupSize?: number) {
  const groups: number[][] = [];
  let release: (() => void) | null = null;
  let hold = false;
  const double = groupedCalls(async (inputs: number[]) => {
    groups.push(inputs);
    if (hold) await new Promise<void>((resolve) => (release = resolve));
    if (inputs.includes(-1)) throw new Error('refused -1');
    return inputs.map((input) => input * 2);
  }, maxGroupSize);
  return {
    groups,
    double,
    holdNext: () => void (hold = true),
    releaseHeld: () => {
      hold = false;
      release?.();
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('groupedCalls', () => {
  test('calls made in one turn run as one group, each getting its own output', async () => {
    const { groups, double } = recordingDoubler();
    assert.deepEqual(await Promise.all([double(1), double(2), double(3)]), [2, 4, 6]);
    assert.deepEqual(groups, [[1, 2, 3]]);
  });

  test('calls made from separate macrotasks of one turn still run together', async () => {
    const { groups, double } = recordingDoubler();
    const outputs = await new Promise<number[]>((resolve) => {
      const pending: Promise<number>[] = [];
      // Two immediates queued together run in one turn as two macrotasks (microtasks run between
      // them), as two receivers' answers would. Not two timers: Node reads the clock as it arms each,
      // so under load they can fall due in different turns.
      setImmediate(() => pending.push(double(1)));
      setImmediate(() => {
        pending.push(double(2));
        void Promise.all(pending).then(resolve);
      });
    });
    assert.deepEqual(outputs, [2, 4]);
    assert.deepEqual(groups, [[1, 2]]);
  });

  test('calls made while a group runs wait and run as the next group', async () => {
    const { groups, double, holdNext, releaseHeld } = recordingDoubler();
    holdNext();
    const first = double(1);
    await turn();
    const later = [double(2), double(3)];
    await turn();
    assert.deepEqual(groups, [[1]], 'the second group waits for the first');
    releaseHeld();
    assert.deepEqual(await Promise.all([first, ...later]), [2, 4, 6]);
    assert.deepEqual(groups, [[1], [2, 3]]);
  });

  test('a failing group rejects its own calls only', async () => {
    const { groups, double, holdNext, releaseHeld } = recordingDoubler();
    holdNext();
    const failing = [double(-1), double(5)];
    await turn();
    const next = double(7);
    releaseHeld();
    const settled = await Promise.allSettled([...failing, next]);
    assert.deepEqual(
      settled.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message)),
      ['refused -1', 'refused -1', 14],
    );
    assert.deepEqual(groups, [[-1, 5], [7]]);
  });

  test('groups hold at most maxGroupSize inputs', async () => {
    const { groups, double } = recordingDoubler(2);
    assert.deepEqual(await Promise.all([1, 2, 3, 4, 5].map(double)), [2, 4, 6, 8, 10]);
    assert.deepEqual(groups, [[1, 2], [3, 4], [5]]);
  });

  test('a run that returns the wrong number of outputs rejects the group', async () => {
    const broken = groupedCalls(async (inputs: number[]) => inputs.slice(1));
    await assert.rejects(Promise.all([broken(1), broken(2)]), /returned 1 outputs for 2 inputs/);
  });
});
