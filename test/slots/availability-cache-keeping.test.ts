import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AvailabilityCache, type StoredBusyBlock } from '../../src/modules/slots/availability-cache.js';

// The cache on its own: what a load that raced with changes may keep, and what is read again.
const DAY = 86_400_000;
const T0 = Date.UTC(2027, 0, 4);

function activeCache(): AvailabilityCache {
  const cache = new AvailabilityCache();
  cache.enable();
  return cache;
}

/** A loader that records which users it was asked for and can run a change while it "reads". */
function busyLoader(during?: () => void) {
  const asked: number[][] = [];
  const load = async (userIds: number[]) => {
    asked.push([...userIds]);
    during?.();
    return new Map<number, StoredBusyBlock[]>(userIds.map((id) => [id, [{ start: T0 + id * 3_600_000, end: T0 + id * 3_600_000 + 1_800_000, bufferBefore: 0, bufferAfter: 0, source: 'booking' }]]));
  };
  return { asked, load };
}

describe('what the availability cache keeps', () => {
  test('busy time loaded while one host changed is kept for the others, and read again only for that host', async () => {
    const cache = activeCache();
    let changeDuringLoad = true;
    const { asked, load } = busyLoader(() => {
      if (changeDuringLoad) cache.invalidate({ kind: 'busyTime', userId: 1 });
      changeDuringLoad = false;
    });
    const range = { from: T0, to: T0 + DAY };
    const first = await cache.busyBlocks([1, 2, 3], range, T0, load);
    assert.equal(first.get(2)!.length, 1);
    await cache.busyBlocks([1, 2, 3], range, T0, load);
    assert.deepEqual(asked, [[1, 2, 3], [1]]);
    await cache.busyBlocks([1, 2, 3], range, T0, load);
    assert.equal(asked.length, 2, 'every host is kept now');
  });

  test('a change of a host not in the load does not stop it being kept', async () => {
    const cache = activeCache();
    const { asked, load } = busyLoader(() => cache.invalidate({ kind: 'busyTime', userId: 99 }));
    await cache.busyBlocks([1, 2], { from: T0, to: T0 + DAY }, T0, load);
    await cache.busyBlocks([1, 2], { from: T0, to: T0 + DAY }, T0, load);
    assert.equal(asked.length, 1);
  });

  test('busy time is loaded in whole spans: a check of one start later in the span is served without a read', async () => {
    const cache = activeCache();
    const { asked, load } = busyLoader();
    await cache.busyBlocks([1], { from: T0, to: T0 + 60_000 }, T0, load);
    await cache.busyBlocks([1], { from: T0 + 3 * DAY, to: T0 + 3 * DAY + 60_000 }, T0, load);
    assert.equal(asked.length, 1);
    // Far outside the span: read again.
    await cache.busyBlocks([1], { from: T0 + 90 * DAY, to: T0 + 90 * DAY + 60_000 }, T0, load);
    assert.equal(asked.length, 2);
  });

  test('while the change feed is down nothing is kept', async () => {
    const cache = new AvailabilityCache();
    const { asked, load } = busyLoader();
    await cache.busyBlocks([1], { from: T0, to: T0 + DAY }, T0, load);
    await cache.busyBlocks([1], { from: T0, to: T0 + DAY }, T0, load);
    assert.equal(asked.length, 2);
  });

  test('a listing computed while an unrelated host changed is kept; one whose host changed is not', async () => {
    const cache = activeCache();
    let computed = 0;
    const compute = (change: number) => async () => {
      computed++;
      cache.invalidate({ kind: 'busyTime', userId: change });
      return { value: computed, userIds: [1], dependsOnTeams: false, slots: 1 };
    };
    await cache.listing('a', () => true, compute(2));
    await cache.listing('a', () => true, compute(2));
    assert.equal(computed, 1);
    await cache.listing('b', () => true, compute(1));
    await cache.listing('b', () => true, compute(1));
    assert.equal(computed, 3);
  });

  test('a team-dependent profile loaded while a team changed is not kept', async () => {
    const cache = activeCache();
    let loads = 0;
    const load = async () => {
      loads++;
      if (loads === 1) cache.invalidate({ kind: 'tenancy' });
      return { id: 1 };
    };
    await cache.profile('team', load, () => [], () => true);
    await cache.profile('team', load, () => [], () => true);
    await cache.profile('team', load, () => [], () => true);
    assert.equal(loads, 2);
  });
});

describe('round-robin standings in the availability cache', () => {
  interface Standing {
    userId: number;
    bookingsInPeriod: number;
  }
  const empty = (userId: number): Standing => ({ userId, bookingsInPeriod: 0 });

  test('standings are read for the hosts missing only, and a booking change of a host drops that host\'s', async () => {
    const cache = activeCache();
    const asked: number[][] = [];
    let count = 5;
    const load = async (userIds: number[]) => {
      asked.push([...userIds]);
      return new Map(userIds.filter((id) => id !== 3).map((id) => [id, { userId: id, bookingsInPeriod: count }]));
    };
    assert.deepEqual(await cache.hostStandings(7, T0, [1, 2, 3], load, empty), [
      { userId: 1, bookingsInPeriod: 5 },
      { userId: 2, bookingsInPeriod: 5 },
      { userId: 3, bookingsInPeriod: 0 },
    ]);
    count = 6;
    cache.invalidate({ kind: 'busyTime', userId: 2 });
    assert.deepEqual(await cache.hostStandings(7, T0, [1, 2, 3], load, empty), [
      { userId: 1, bookingsInPeriod: 5 },
      { userId: 2, bookingsInPeriod: 6 },
      { userId: 3, bookingsInPeriod: 0 },
    ]);
    assert.deepEqual(asked, [[1, 2, 3], [2]]);
    // Another event type, and a new period, are read afresh.
    await cache.hostStandings(8, T0, [1], load, empty);
    await cache.hostStandings(7, T0 + 31 * DAY, [1], load, empty);
    assert.deepEqual(asked.slice(2), [[1], [1]]);
  });

  test('a standing read while its host changed is not kept', async () => {
    const cache = activeCache();
    let loads = 0;
    const load = async (userIds: number[]) => {
      loads++;
      if (loads === 1) cache.invalidate({ kind: 'busyTime', userId: 1 });
      return new Map(userIds.map((id) => [id, { userId: id, bookingsInPeriod: loads }]));
    };
    await cache.hostStandings(7, T0, [1, 2], load, empty);
    assert.deepEqual(await cache.hostStandings(7, T0, [1, 2], load, empty), [
      { userId: 1, bookingsInPeriod: 2 },
      { userId: 2, bookingsInPeriod: 1 },
    ]);
  });
});
