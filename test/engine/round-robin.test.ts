// Which round-robin host takes a booking (src/scheduling/round-robin.ts), rule by rule, then against an
// oracle written from the rules' words on random groups: weighted shortfall (larger weight first on a
// tie), priority, least recently booked (never booked first), host order; only free candidates; and the
// UTC month the weighted shares are counted over.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { rankRoundRobinHosts, roundRobinPeriodStart, type RoundRobinStanding } from '../../src/scheduling/round-robin.js';

const host = (userId: number, fields: Partial<RoundRobinStanding> = {}): RoundRobinStanding => ({ userId, priority: 2, weight: 100, bookingsInPeriod: 0, lastBookedAt: null, ...fields });
const all = (group: RoundRobinStanding[]) => new Set(group.map((entry) => entry.userId));

test('unweighted: priority first, then the least recently booked (never booked first), then host order', () => {
  const group = [host(1, { lastBookedAt: 500 }), host(2, { lastBookedAt: 100 }), host(3, { priority: 4, lastBookedAt: 900 }), host(4), host(5, { priority: 0 }), host(6)];
  assert.deepEqual(rankRoundRobinHosts(group, all(group), false), [3, 4, 6, 2, 1, 5]);
});

test('unweighted: weights and shares do not count', () => {
  const group = [host(1, { weight: 1, bookingsInPeriod: 0, lastBookedAt: 50 }), host(2, { weight: 1000, bookingsInPeriod: 30, lastBookedAt: 10 })];
  assert.deepEqual(rankRoundRobinHosts(group, all(group), false), [2, 1]);
});

test('weighted: the host furthest below their share of the group\'s bookings, whatever priority or recency say', () => {
  // Shares of 12 bookings at weights 100/200/300: 2, 4, 6. Shortfalls: 2-3 = -1, 4-1 = 3, 6-8 = -2.
  const group = [host(1, { weight: 100, bookingsInPeriod: 3, priority: 4 }), host(2, { weight: 200, bookingsInPeriod: 1, lastBookedAt: 999 }), host(3, { weight: 300, bookingsInPeriod: 8 })];
  assert.deepEqual(rankRoundRobinHosts(group, all(group), true), [2, 1, 3]);
});

test('weighted: the share counts the bookings of hosts who are not free too', () => {
  // Host 3 is busy but took 10 bookings: the share of 1 and 2 (weights 100 each, of 300) is 4 each.
  const group = [host(1, { bookingsInPeriod: 3 }), host(2, { bookingsInPeriod: 1 }), host(3, { bookingsInPeriod: 8 })];
  assert.deepEqual(rankRoundRobinHosts(group, new Set([1, 2]), true), [2, 1]);
});

test('weighted: an equal shortfall goes to the larger weight, then to priority', () => {
  // Shares of 3 bookings at weights 100/200: 1 and 2; both hosts are exactly at their share.
  const group = [host(1, { weight: 100, bookingsInPeriod: 1, priority: 4 }), host(2, { weight: 200, bookingsInPeriod: 2 })];
  assert.deepEqual(rankRoundRobinHosts(group, all(group), true), [2, 1]);
  const sameWeight = [host(1, { bookingsInPeriod: 1 }), host(2, { bookingsInPeriod: 1, priority: 3 })];
  assert.deepEqual(rankRoundRobinHosts(sameWeight, all(sameWeight), true), [2, 1]);
});

test('weighted with every weight zero: no shortfall, the other rules decide', () => {
  const group = [host(1, { weight: 0, bookingsInPeriod: 5, lastBookedAt: 10 }), host(2, { weight: 0, lastBookedAt: 20 })];
  assert.deepEqual(rankRoundRobinHosts(group, all(group), true), [1, 2]);
});

test('only candidates are ranked; none free, none ranked', () => {
  const group = [host(1), host(2), host(3)];
  assert.deepEqual(rankRoundRobinHosts(group, new Set([3, 1]), false), [1, 3]);
  assert.deepEqual(rankRoundRobinHosts(group, new Set(), true), []);
  assert.deepEqual(rankRoundRobinHosts(group, new Set([42]), true), [], 'a candidate outside the group is nobody');
});

/** The rules' words as a sort key, compared element by element (smaller first). */
function oracleRank(group: RoundRobinStanding[], candidates: Set<number>, weighted: boolean): number[] {
  const totalWeight = group.reduce((sum, entry) => sum + entry.weight, 0);
  const bookings = group.reduce((sum, entry) => sum + entry.bookingsInPeriod, 0);
  const key = (entry: RoundRobinStanding, index: number) => {
    // With no weight at all there are no shares, so nobody is below one.
    const below = totalWeight === 0 ? 0 : (entry.weight * bookings) / totalWeight - entry.bookingsInPeriod;
    return [weighted ? -Math.round(below * 1e6) : 0, weighted ? -entry.weight : 0, -entry.priority, entry.lastBookedAt ?? Number.NEGATIVE_INFINITY, index];
  };
  return group
    .map((entry, index) => ({ entry, key: key(entry, index) }))
    .filter(({ entry }) => candidates.has(entry.userId))
    .sort((a, b) => {
      for (let i = 0; i < a.key.length; i++) if (a.key[i] !== b.key[i]) return a.key[i]! < b.key[i]! ? -1 : 1;
      return 0;
    })
    .map(({ entry }) => entry.userId);
}

test('random groups: the same order as the rules read as a sort key', () => {
  const standing = fc.record({
    priority: fc.integer({ min: 0, max: 4 }),
    weight: fc.constantFrom(0, 1, 50, 100, 150, 300),
    bookingsInPeriod: fc.integer({ min: 0, max: 12 }),
    lastBookedAt: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
  });
  fc.assert(
    fc.property(fc.array(standing, { minLength: 1, maxLength: 8 }), fc.boolean(), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), (standings, weighted, free) => {
      const group = standings.map((fields, index) => host(index + 1, fields));
      const candidates = new Set(group.filter((_, index) => free[index]).map((entry) => entry.userId));
      assert.deepEqual(rankRoundRobinHosts(group, candidates, weighted), oracleRank(group, candidates, weighted));
    }),
    { numRuns: 3000 },
  );
});

test('the period is the UTC calendar month of now, across month and year ends', () => {
  for (const [now, start] of [
    ['2026-03-15T10:00:00Z', '2026-03-01T00:00:00Z'],
    ['2026-03-01T00:00:00Z', '2026-03-01T00:00:00Z'],
    ['2026-02-28T23:59:59.999Z', '2026-02-01T00:00:00Z'],
    ['2026-12-31T23:59:59Z', '2026-12-01T00:00:00Z'],
    ['2027-01-01T00:00:00Z', '2027-01-01T00:00:00Z'],
    ['2024-02-29T12:00:00Z', '2024-02-01T00:00:00Z'],
  ] as const) {
    assert.equal(new Date(roundRobinPeriodStart(Date.parse(now))).toISOString(), new Date(start).toISOString(), now);
  }
});
