import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatChange, originOf, parseChange } from '../../src/db/change-feed.js';
import { AvailabilityCache, type BusyRead, type HostBusy, type HostStanding, type StoredBusyBlock } from '../../src/modules/slots/availability-cache.js';
import type { Interval } from '../../src/scheduling/intervals.js';

// The cache on its own: what a load that raced with changes may keep, and what is read again.
const DAY = 86_400_000;
const T0 = Date.UTC(2027, 0, 4);

function activeCache(): AvailabilityCache {
  const cache = new AvailabilityCache();
  cache.enable();
  return cache;
}

/**
 * A loader that records which users' bookings (`asked`) and calendars (`askedCalendars`) it was asked
 * for and can run a change while it "reads": each host has a booking and a calendar event.
 */
function busyLoader(during?: () => void) {
  const asked: number[][] = [];
  const askedCalendars: number[][] = [];
  const load = async (userIds: BusyRead, _range?: { from: number; to: number }) => {
    if (userIds.bookings.length > 0) asked.push([...userIds.bookings]);
    if (userIds.calendars.length > 0) askedCalendars.push([...userIds.calendars]);
    during?.();
    const read = new Map<number, HostBusy>();
    const of = (id: number) => read.get(id) ?? read.set(id, { blocks: [], plain: [], away: [] }).get(id)!;
    for (const id of userIds.bookings) of(id).blocks.push({ start: T0 + id * 3_600_000, end: T0 + id * 3_600_000 + 1_800_000, bufferBefore: 0, bufferAfter: 0, source: 'booking' });
    for (const id of userIds.calendars) of(id).plain.push([T0 + 12 * 3_600_000 + id * 60_000, T0 + 13 * 3_600_000]);
    return read;
  };
  return { asked, askedCalendars, load };
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
    assert.equal(first.get(2)!.blocks.length, 1);
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

  test('a cold range reads exactly that range; one next to a kept range reads only the days it lacks', async () => {
    const cache = activeCache();
    const ranges: { userIds: number[]; from: number; to: number }[] = [];
    // Two bookings: one inside the first week, one across the seam between the first and the second.
    const bookings = [
      { start: T0 + 2 * DAY, end: T0 + 2 * DAY + 1_800_000 },
      { start: T0 + 7 * DAY - 900_000, end: T0 + 7 * DAY + 900_000 },
      { start: T0 + 9 * DAY, end: T0 + 9 * DAY + 1_800_000 },
    ];
    const load = async (userIds: BusyRead, range: { from: number; to: number }) => {
      assert.deepEqual(userIds.calendars, userIds.bookings, 'both parts are cold or kept alike here');
      ranges.push({ userIds: [...userIds.bookings], ...range });
      const inRange = bookings.filter((b) => b.end > range.from && b.start < range.to);
      return new Map<number, HostBusy>(userIds.bookings.map((id) => [id, { blocks: inRange.map((b) => ({ ...b, bufferBefore: 0, bufferAfter: 0, source: 'booking' as const })), plain: [], away: [] }]));
    };
    const week1 = await cache.busyBlocks([1, 2], { from: T0, to: T0 + 7 * DAY }, T0, load);
    assert.deepEqual(ranges, [{ userIds: [1, 2], from: T0, to: T0 + 7 * DAY }], 'a cold week reads one week');
    assert.equal(week1.get(1)!.blocks.length, 2);
    // A check of one start inside the kept week: no read.
    await cache.busyBlocks([1], { from: T0 + 2 * DAY, to: T0 + 2 * DAY + 60_000 }, T0, load);
    assert.equal(ranges.length, 1);
    // The next week overlapping the first by a day: only the six days it lacks, for both hosts in one read.
    const week2 = await cache.busyBlocks([1, 2], { from: T0 + 6 * DAY, to: T0 + 13 * DAY }, T0, load);
    assert.deepEqual(ranges[1], { userIds: [1, 2], from: T0 + 7 * DAY, to: T0 + 13 * DAY });
    // The booking across the seam was read twice (with each range) and is held once.
    assert.deepEqual(week2.get(1)!.blocks.map((b) => b.start), [T0 + 2 * DAY, T0 + 7 * DAY - 900_000, T0 + 9 * DAY]);
    // Both weeks are kept now; a range before them reads only its side.
    await cache.busyBlocks([1], { from: T0 + DAY, to: T0 + 12 * DAY }, T0, load);
    assert.equal(ranges.length, 2);
    await cache.busyBlocks([1], { from: T0 - 3 * DAY, to: T0 + DAY }, T0, load);
    assert.deepEqual(ranges[2], { userIds: [1], from: T0 - 3 * DAY, to: T0 });
    // Far from the kept range: read on its own, and it replaces what was kept.
    await cache.busyBlocks([1], { from: T0 + 90 * DAY, to: T0 + 91 * DAY }, T0, load);
    assert.deepEqual(ranges[3], { userIds: [1], from: T0 + 90 * DAY, to: T0 + 91 * DAY });
    await cache.busyBlocks([1], { from: T0, to: T0 + DAY }, T0, load);
    assert.equal(ranges.length, 5);
    // Host 2 still holds the two weeks: one read for both hosts would have been wrong for it.
    const host2 = await cache.busyBlocks([2], { from: T0, to: T0 + 13 * DAY }, T0, load);
    assert.equal(ranges.length, 5);
    assert.equal(host2.get(2)!.blocks.length, 3);
  });

  test('calendar intervals are kept merged and in order, joined across ranges; blocks are kept in the order of their footprints', async () => {
    const cache = activeCache();
    const H = 3_600_000;
    const reads: { from: number; to: number }[] = [];
    // Calendar events as two sources give them: out of order, overlapping; one crosses the seam of the two ranges.
    const events: Interval[] = [[T0 + 5 * H, T0 + 6 * H], [T0 + H, T0 + 2 * H], [T0 + 1.5 * H, T0 + 3 * H], [T0 + DAY - H, T0 + DAY + H], [T0 + DAY + 2 * H, T0 + DAY + 3 * H]];
    // Bookings whose buffers put the later one's footprint first.
    const blocks: StoredBusyBlock[] = [
      { start: T0 + 10 * H, end: T0 + 10.5 * H, bufferBefore: 0, bufferAfter: 0, source: 'booking', bookingUid: 'plain' },
      { start: T0 + 10.5 * H, end: T0 + 11 * H, bufferBefore: 60, bufferAfter: 0, source: 'booking', bookingUid: 'buffered' },
    ];
    const load = async (userIds: BusyRead, range: { from: number; to: number }) => {
      reads.push(range);
      const plain = events.filter(([start, end]) => end > range.from && start < range.to);
      const read = new Map<number, HostBusy>(userIds.bookings.map((id) => [id, { blocks: blocks.filter((b) => b.end > range.from && b.start < range.to), plain: [], away: [] }]));
      for (const id of userIds.calendars) (read.get(id) ?? read.set(id, { blocks: [], plain: [], away: [] }).get(id)!).plain.push(...plain);
      return read;
    };
    const first = (await cache.busyBlocks([1], { from: T0, to: T0 + DAY }, T0, load)).get(1)!;
    assert.deepEqual(first.plain, [[T0 + H, T0 + 3 * H], [T0 + 5 * H, T0 + 6 * H], [T0 + DAY - H, T0 + DAY + H]]);
    assert.deepEqual(first.blocks.map((b) => b.bookingUid), ['buffered', 'plain']);
    const joined = (await cache.busyBlocks([1], { from: T0, to: T0 + 2 * DAY }, T0, load)).get(1)!;
    assert.deepEqual(reads, [{ from: T0, to: T0 + DAY }, { from: T0 + DAY, to: T0 + 2 * DAY }], 'only the day it lacked was read');
    assert.deepEqual(joined.plain, [[T0 + H, T0 + 3 * H], [T0 + 5 * H, T0 + 6 * H], [T0 + DAY - H, T0 + DAY + H], [T0 + DAY + 2 * H, T0 + DAY + 3 * H]], 'the event read with both ranges is held once');
  });

  test('while the change feed is down nothing is kept', async () => {
    const cache = new AvailabilityCache();
    const { asked, load } = busyLoader();
    await cache.busyBlocks([1], { from: T0, to: T0 + DAY }, T0, load);
    await cache.busyBlocks([1], { from: T0, to: T0 + DAY }, T0, load);
    assert.equal(asked.length, 2);
  });

  test('bookings and calendars are kept apart: each change reads its own part again, and a cold host reads both in one load', async () => {
    const cache = activeCache();
    const { asked, askedCalendars, load } = busyLoader();
    let loads = 0;
    const counted = async (userIds: BusyRead, range: { from: number; to: number }) => (loads++, load(userIds, range));
    const range = { from: T0, to: T0 + DAY };
    const read = () => cache.busyBlocks([1, 2], range, T0, counted);
    const first = await read();
    assert.equal(loads, 1, 'both parts of both hosts in one read');
    assert.deepEqual([asked, askedCalendars], [[[1, 2]], [[1, 2]]]);
    assert.deepEqual(first.get(1), {
      blocks: [{ start: T0 + 3_600_000, end: T0 + 5_400_000, bufferBefore: 0, bufferAfter: 0, source: 'booking' }],
      plain: [[T0 + 12 * 3_600_000 + 60_000, T0 + 13 * 3_600_000]],
      away: [],
    });
    let profileLoads = 0;
    const profile = () => cache.profile('host-1', async () => (profileLoads++, { id: 1 }), () => [1]);
    await profile();
    cache.invalidate({ kind: 'calendarBusy', userId: 1 });
    assert.deepEqual((await read()).get(1), first.get(1));
    assert.deepEqual([asked.length, askedCalendars.at(-1)], [1, [1]], "a calendar change reads that host's calendars only");
    await profile();
    assert.equal(profileLoads, 1, "a calendar change keeps the host's settings");
    cache.invalidate({ kind: 'busyTime', userId: 2 });
    await read();
    assert.deepEqual([asked.at(-1), askedCalendars.length], [[2], 2], 'a booking change reads bookings only');
    cache.invalidate({ kind: 'availability', userId: 1 });
    await read();
    assert.deepEqual([asked.at(-1), askedCalendars.length], [[1], 2], 'a settings change (event types, schedules) reads bookings only');
    cache.invalidate({ kind: 'user', userId: 2 });
    await read();
    assert.deepEqual([asked.at(-1), askedCalendars.at(-1)], [[2], [2]], 'a change of the user reads both');
    assert.equal(loads, 5);
    await read();
    assert.equal(loads, 5, 'all kept again');
  });

  test('a calendar change drops the listings of its host', async () => {
    const cache = activeCache();
    let computed = 0;
    const compute = async () => ({ value: ++computed, userIds: [1], dependsOnTeams: false, slots: 1 });
    await cache.listing('a', () => true, compute);
    cache.invalidate({ kind: 'calendarBusy', userId: 2 });
    assert.equal(await cache.listing('a', () => true, compute), 1);
    cache.invalidate({ kind: 'calendarBusy', userId: 1 });
    assert.equal(await cache.listing('a', () => true, compute), 2);
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
  const empty = (userId: number): HostStanding => ({ userId, bookingsInPeriod: 0, lastBookedAt: null });

  test('standings are read for the hosts missing only, and a booking change of a host drops that host\'s', async () => {
    const cache = activeCache();
    const asked: number[][] = [];
    let count = 5;
    const load = async (userIds: number[]) => {
      asked.push([...userIds]);
      return new Map(userIds.filter((id) => id !== 3).map((id) => [id, { userId: id, bookingsInPeriod: count, lastBookedAt: T0 }]));
    };
    assert.deepEqual(await cache.hostStandings(7, T0, [1, 2, 3], load, empty), [
      { userId: 1, bookingsInPeriod: 5, lastBookedAt: T0 },
      { userId: 2, bookingsInPeriod: 5, lastBookedAt: T0 },
      { userId: 3, bookingsInPeriod: 0, lastBookedAt: null },
    ]);
    count = 6;
    cache.invalidate({ kind: 'busyTime', userId: 2 });
    assert.deepEqual(await cache.hostStandings(7, T0, [1, 2, 3], load, empty), [
      { userId: 1, bookingsInPeriod: 5, lastBookedAt: T0 },
      { userId: 2, bookingsInPeriod: 6, lastBookedAt: T0 },
      { userId: 3, bookingsInPeriod: 0, lastBookedAt: null },
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
      return new Map(userIds.map((id) => [id, { userId: id, bookingsInPeriod: loads, lastBookedAt: null }]));
    };
    await cache.hostStandings(7, T0, [1, 2], load, empty);
    assert.deepEqual(await cache.hostStandings(7, T0, [1, 2], load, empty), [
      { userId: 1, bookingsInPeriod: 2, lastBookedAt: null },
      { userId: 2, bookingsInPeriod: 1, lastBookedAt: null },
    ]);
  });

  test('a booking this process made is added to its host\'s cached busy time and standing, not read again', async () => {
    const cache = activeCache();
    const { asked, load } = busyLoader();
    const range = { from: T0, to: T0 + DAY };
    await cache.busyBlocks([1, 2], range, T0, load);
    const standings = async () => cache.hostStandings(7, T0, [1, 2], async (ids) => new Map(ids.map((id) => [id, { userId: id, bookingsInPeriod: 3, lastBookedAt: T0 }])), empty);
    await standings();
    const block = { start: T0 + 10 * 3_600_000, end: T0 + 10.5 * 3_600_000, bufferBefore: 0, bufferAfter: 0, source: 'booking' as const, eventTypeId: 7, bookingUid: 'new' };
    cache.invalidate({ kind: 'busyTime', userId: 1, added: [{ block, createdAt: T0 + 5_000, announcedAt: performance.now() }] });
    const busy = await cache.busyBlocks([1, 2], range, T0, load);
    assert.equal(asked.length, 1, 'served from memory');
    assert.deepEqual(busy.get(1)!.blocks.map((b) => b.bookingUid ?? null), [null, 'new']);
    assert.equal(busy.get(2)!.blocks.length, 1);
    assert.deepEqual(await standings(), [
      { userId: 1, bookingsInPeriod: 4, lastBookedAt: T0 + 5_000 },
      { userId: 2, bookingsInPeriod: 3, lastBookedAt: T0 },
    ]);
    // A change without the booking (a cancellation, another process's booking) drops the host as before.
    cache.invalidate({ kind: 'busyTime', userId: 1 });
    await cache.busyBlocks([1, 2], range, T0, load);
    assert.deepEqual(asked.at(-1), [1]);
  });

  test('entries stored after the booking was announced (they may have read it) are dropped, not added to', async () => {
    const cache = activeCache();
    const announcedAt = performance.now();
    const { asked, load } = busyLoader();
    const range = { from: T0, to: T0 + DAY };
    await cache.busyBlocks([1], range, T0, load);
    let standingLoads = 0;
    const standings = async () =>
      cache.hostStandings(7, T0, [1], async (ids) => (standingLoads++, new Map(ids.map((id) => [id, { userId: id, bookingsInPeriod: 4, lastBookedAt: T0 }]))), empty);
    await standings();
    const block = { start: T0 + 3_600_000, end: T0 + 5_400_000, bufferBefore: 0, bufferAfter: 0, source: 'booking' as const, eventTypeId: 7, bookingUid: 'read-already' };
    cache.invalidate({ kind: 'busyTime', userId: 1, added: [{ block, createdAt: T0, announcedAt }] });
    await cache.busyBlocks([1], range, T0, load);
    assert.equal(asked.length, 2, 'read again');
    assert.deepEqual(await standings(), [{ userId: 1, bookingsInPeriod: 4, lastBookedAt: T0 }]);
    assert.equal(standingLoads, 2, 'read again, not counted twice');
  });
});

describe('change feed payloads', () => {
  test('a sender\'s mark after the change is read apart from it; unmarked payloads still parse', () => {
    assert.deepEqual(parseChange('busyTime:7@1a2b3c4d'), { kind: 'busyTime', userId: 7 });
    assert.deepEqual(parseChange(formatChange({ kind: 'calendarBusy', userId: 8 })), { kind: 'calendarBusy', userId: 8 });
    assert.equal(originOf('busyTime:7@1a2b3c4d'), '1a2b3c4d');
    assert.deepEqual(parseChange('teamEventType:12'), { kind: 'teamEventType', eventTypeId: 12 });
    assert.equal(originOf('teamEventType:12'), null);
    assert.equal(parseChange('busyTime:7@'), null);
    // A local booking's details never go over the wire.
    const block = { start: 0, end: 1, bufferBefore: 0, bufferAfter: 0, source: 'booking' as const, eventTypeId: 1 };
    assert.equal(formatChange({ kind: 'busyTime', userId: 7, added: [{ block, createdAt: 0, announcedAt: 0 }] }), 'busyTime:7');
  });
});
