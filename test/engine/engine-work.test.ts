// The engine's shortcuts change no answer, only the work done: each is held here to the counts of
// engineWork(), so a shortcut that stops working fails a test (see stryker.config.mjs).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { engineWork } from '../../src/scheduling/engine-work.js';
import { type HostRuns, startsOfRuns } from '../../src/scheduling/host-runs.js';
import { normalizeIntervals, subtractIntervals } from '../../src/scheduling/intervals.js';
import type { WeeklyRule } from '../../src/scheduling/availability-rules.js';
import { type BusyBlock, type HostAvailability, PLAIN_EVENT_RULES, type SlotQuery } from '../../src/scheduling/slot-query.js';
import { computeSlots } from '../../src/scheduling/slots.js';
import { workingPieces, workingRunAfter } from '../../src/scheduling/working-hours.js';

const utc = (text: string) => Date.parse(text);
const iso = (ms: number) => new Date(ms).toISOString().replace(':00.000Z', 'Z');

/** What `run` costs in each counter. */
function workOf<T>(run: () => T): [T, ReturnType<typeof engineWork>] {
  const before = engineWork();
  const result = run();
  const after = engineWork();
  const spent = Object.fromEntries(Object.entries(after).map(([key, value]) => [key, value - before[key as keyof typeof before]]));
  return [result, spent as ReturnType<typeof engineWork>];
}

function host(userId: number, weeklyRules: WeeklyRule[], busy: BusyBlock[] = []): HostAvailability {
  return { userId, fixed: true, schedule: { timeZone: 'Asia/Kathmandu', weeklyRules, overrides: [] }, busy };
}

/** A 60-minute type over 2026-06-01..03 (Monday to Wednesday) in Kathmandu (+05:45). */
function query(fields: Partial<SlotQuery>): SlotQuery {
  return {
    now: utc('2026-01-01T00:00Z'),
    from: utc('2026-05-31T18:15Z'),
    to: utc('2026-06-03T18:15Z'),
    ...PLAIN_EVENT_RULES,
    eventTypeId: 7,
    duration: 60,
    organizerTimeZone: 'Asia/Kathmandu',
    weekStart: 0,
    hosts: [],
    limitBookings: [],
    ...fields,
  };
}

const WEEKDAYS = [1, 2, 3, 4, 5];
const MORNING: WeeklyRule = { days: WEEKDAYS, startMinute: 540, endMinute: 720 };
const AFTERNOON: WeeklyRule = { days: WEEKDAYS, startMinute: 780, endMinute: 1020 };
const booking = (start: string, end: string, fields: Partial<BusyBlock> = {}): BusyBlock => ({
  start: utc(start), end: utc(end), bufferBefore: 0, bufferAfter: 0, source: 'booking', eventTypeId: 99, ...fields,
});

describe('engine work: the shortcuts hold', () => {
  test('a list already in start order is merged without a sort, equal starts included; any other is sorted once', () => {
    const [merged, sortedWork] = workOf(() => normalizeIntervals([[0, 10], [0, 20], [30, 40], [30, 35]]));
    assert.deepEqual(merged, [[0, 20], [30, 40]]);
    assert.equal(sortedWork.sorts, 0);
    // Out of order at the first pair only: the rest, in order again, must not make it look sorted.
    const [fixed, unsortedWork] = workOf(() => normalizeIntervals([[30, 40], [0, 10], [5, 12], [50, 60]]));
    assert.deepEqual(fixed, [[0, 12], [30, 40], [50, 60]]);
    assert.equal(unsortedWork.sorts, 1);
  });

  test('subtracting visits each busy interval that meets a free one once, and none that ended before it', () => {
    const free = [[0, 100], [160, 300]] as const;
    const busy = [[10, 20], [50, 60], [150, 160], [210, 220]] as const;
    const [left, spent] = workOf(() => subtractIntervals(free, busy));
    assert.deepEqual(left, [[0, 10], [20, 50], [60, 100], [160, 210], [220, 300]]);
    // [150, 160) ends where the second free interval starts: passed over, not visited.
    assert.equal(spent.busyVisits, 3);
  });

  test('one host: no shared free time is computed, no seat checked, each free interval scanned once', () => {
    // 09:00-12:00 and 13:00-17:00 Kathmandu on three days, a booking splitting Tuesday's afternoon.
    const q = query({ hosts: [host(1, [MORNING, AFTERNOON], [booking('2026-06-02T09:15Z', '2026-06-02T10:15Z')])] });
    const [slots, spent] = workOf(() => computeSlots(q));
    assert.equal(slots.length, 3 * 7 - 1);
    assert.equal(iso(slots[0]!.start), '2026-06-01T03:15Z');
    // Free intervals: Monday's and Wednesday's two, Tuesday's three. Each piece skips those that end before
    // it (the morning's when the afternoon starts an hour after it ends), so each is scanned once; the
    // afternoon's piece also stops at the first free interval past its end.
    assert.equal(spent.freeScans, 7);
    assert.equal(spent.seatChecks, 0);
    assert.equal(spent.startChecks, 0);
    assert.equal(spent.intersections, 0);
  });

  test('two hosts: one intersection of their free time, one of their pieces', () => {
    const q = query({ hosts: [host(1, [MORNING]), host(2, [MORNING, AFTERNOON])] });
    const [slots, spent] = workOf(() => computeSlots(q));
    assert.equal(slots.length, 3 * 3);
    assert.equal(spent.intersections, 2);
  });

  test('seats: only a host with seated bookings is checked, start by start', () => {
    const seated = booking('2026-06-01T04:15Z', '2026-06-01T05:15Z', { eventTypeId: 7, seatsTaken: 1 });
    const q = query({ seatsPerTimeSlot: 3, hosts: [host(1, [MORNING], [seated]), host(2, [MORNING])] });
    const [slots, spent] = workOf(() => computeSlots(q));
    assert.equal(slots.length, 3 * 3);
    // Host 1's nine starts, one seat check each; host 2 has no seated booking and is not checked.
    assert.equal(spent.startChecks, 9);
    assert.equal(spent.seatChecks, 9);
    // Without a seated booking no start is checked alone: each free interval's run of starts goes out whole.
    const [, plain] = workOf(() => computeSlots(query({ seatsPerTimeSlot: 3, hosts: [host(1, [MORNING]), host(2, [MORNING])] })));
    assert.equal(plain.startChecks, 0);
    assert.equal(plain.seatChecks, 0);
  });

  test('round-robin runs: one grid is swept without a merge, places are ranked only past exact numbers', () => {
    const visit = (runs: HostRuns, step: number, hostCount: number) => {
      const starts: [number, number[]][] = [];
      const [, spent] = workOf(() => startsOfRuns(runs, step, hostCount, (_, ids) => ids.slice(), (start, ids) => starts.push([start, ids])));
      return { starts, spent };
    };
    const base = Date.parse('2026-06-01T03:15Z');
    const step = 30 * 60_000;
    const oneGrid = visit({ userIds: [7, 9], hosts: [0, 1], firsts: [base, base + step], lasts: [base + step, base + 2 * step] }, step, 2);
    assert.deepEqual(oneGrid.starts, [[base, [7]], [base + step, [7, 9]], [base + 2 * step, [9]]]);
    assert.deepEqual([oneGrid.spent.gridMerges, oneGrid.spent.rankedGrids], [0, 0]);
    const twoGrids = visit({ userIds: [7, 9], hosts: [0, 1], firsts: [base, base + 15 * 60_000], lasts: [base, base + 15 * 60_000] }, step, 2);
    assert.deepEqual(twoGrids.starts, [[base, [7]], [base + 15 * 60_000, [9]]]);
    assert.deepEqual([twoGrids.spent.gridMerges, twoGrids.spent.rankedGrids], [1, 0]);
    // 2^26 codes per place (2^25 hosts), 2 ms apart, far from the epoch: places 0 and `far` code exactly
    // while (far + 2) * 2^26 stays within 2^53 - 1.
    const codes = 2 ** 26;
    const ranked = (far: number) => {
      const runs: HostRuns = { userIds: [7, 9], hosts: [0, 1], firsts: [base, base + far * 2], lasts: [base, base + far * 2] };
      const { starts, spent } = visit(runs, 2, codes / 2);
      assert.deepEqual(starts, [[base, [7]], [base + far * 2, [9]]]);
      return spent.rankedGrids;
    };
    assert.equal(ranked(2 ** 27 - 3), 0);
    assert.equal(ranked(2 ** 27 - 1), 1);
  });

  test('round robin: stretches are checked for every group served only when there are several groups, and not at all when one has no hours', () => {
    const rr = (userId: number, groupId: string | undefined, rules: WeeklyRule[] | null = [MORNING]): HostAvailability => ({
      ...host(userId, rules ?? []),
      ...(rules === null ? { schedule: null } : {}),
      fixed: false,
      ...(groupId === undefined ? {} : { groupId }),
    });
    const [oneGroup, oneSpent] = workOf(() => computeSlots(query({ hosts: [rr(1, undefined), rr(2, undefined)] })));
    assert.equal(oneGroup.length, 9);
    assert.equal(oneSpent.groupChecks, 0);
    const [twoGroups, twoSpent] = workOf(() => computeSlots(query({ hosts: [rr(1, 'a'), rr(2, 'b')] })));
    assert.deepEqual(twoGroups.map((slot) => slot.hostIds), Array.from({ length: 9 }, () => [1, 2]));
    // One stretch per date (both hosts 09:00-12:00): three checks.
    assert.equal(twoSpent.groupChecks, 3);
    const [unserved, unservedSpent] = workOf(() => computeSlots(query({ hosts: [rr(1, 'a'), rr(2, 'b', null)] })));
    assert.deepEqual(unserved, []);
    assert.equal(unservedSpent.groupChecks, 0, 'a group without hours is found before any stretch');
  });

  test('a rolling window searches twice its days and a week first, and the whole year only when that holds too few dates', () => {
    const mondays: WeeklyRule[] = [{ days: [1], startMinute: 540, endMinute: 600 }];
    // 2026-06-01 is a Monday; the host works Mondays only, in Kathmandu.
    const rolling = (days: number) =>
      query({ hosts: [host(1, mondays)], now: utc('2026-05-31T18:00Z'), from: utc('2026-05-31T18:15Z'), to: utc('2026-06-30T18:15Z'), bookingWindow: { type: 'calendarDays', days, rolling: true } });
    // Two dates in 2 * 2 + 7 = 11 days (June 1 and 8): found there, exactly as many as asked.
    const [two, twoSpent] = workOf(() => computeSlots(rolling(2)));
    assert.deepEqual(two.map((slot) => iso(slot.start)), ['2026-06-01T03:15Z', '2026-06-08T03:15Z']);
    assert.equal(twoSpent.windowSearchDays, 11);
    // Three dates are not in 13 days (June 1 and 8 only): the year is searched.
    const [three, threeSpent] = workOf(() => computeSlots(rolling(3)));
    assert.deepEqual(three.map((slot) => iso(slot.start)), ['2026-06-01T03:15Z', '2026-06-08T03:15Z', '2026-06-15T03:15Z']);
    assert.equal(threeSpent.windowSearchDays, 13 + 365);
  });
  test('booking limits: only the periods with a limit are tallied, once per query, and nothing is checked without one', () => {
    const hosts = [host(1, [MORNING])];
    const [free, freeSpent] = workOf(() => computeSlots(query({ hosts })));
    assert.equal(free.length, 9);
    assert.equal(freeSpent.limitTallies, 0);
    assert.equal(freeSpent.limitChecks, 0, 'no limit: no candidate is checked');
    // One booking on Tuesday June 2 (09:00-10:00 Kathmandu) against a limit of one a day: that date's three slots go.
    const tuesday = { start: utc('2026-06-02T03:15Z'), end: utc('2026-06-02T04:15Z') };
    const [limited, limitedSpent] = workOf(() => computeSlots(query({ hosts, bookingLimitsCount: { day: 1 }, limitBookings: [tuesday] })));
    assert.deepEqual(limited.map((slot) => iso(slot.start)).filter((start) => start.startsWith('2026-06-02')), []);
    assert.equal(limited.length, 6);
    assert.equal(limitedSpent.limitTallies, 1, 'only the day is tallied');
    assert.equal(limitedSpent.limitChecks, 9, 'each candidate once');
    // A count limit a day and a duration limit a week: two periods; the team's limit a month: one more.
    const team = { count: { month: 50 }, timeZone: 'Asia/Kathmandu', weekStart: 0, bookings: [] };
    const [both, bothSpent] = workOf(() =>
      computeSlots(query({ hosts, bookingLimitsCount: { day: 5 }, bookingLimitsDuration: { week: 600 }, teamLimits: team, limitBookings: [tuesday] })),
    );
    assert.equal(both.length, 9);
    assert.equal(bothSpent.limitTallies, 3);
    assert.equal(bothSpent.limitChecks, 18, 'each candidate against the event type and the team');
  });
  test('schedules: each local date is read once; a schedule open all week runs as one stretch up to its next override', () => {
    const weekdays = { timeZone: 'Asia/Kathmandu', weeklyRules: [MORNING], overrides: [] };
    // Monday June 1 and Tuesday June 2, to Wednesday's midnight (exclusive): two dates, not three.
    const [pieces, piecesSpent] = workOf(() => workingPieces(weekdays, utc('2026-05-31T18:15Z'), utc('2026-06-02T18:15Z')));
    assert.deepEqual(pieces.map(([start, end]) => `${iso(start)}/${iso(end)}`), ['2026-06-01T03:15Z/2026-06-01T06:15Z', '2026-06-02T03:15Z/2026-06-02T06:15Z']);
    assert.equal(piecesSpent.workingDates, 2);

    // Open all week, with Thursday June 4 open all day by an override: from Monday 09:30 the first chunk reads
    // Monday and Tuesday (the run starts inside a date), then Wednesday's midnight runs as a stretch up to
    // Thursday, Thursday is read (an override), and Friday's midnight runs as one stretch to the end.
    const always = { timeZone: 'Asia/Kathmandu', weeklyRules: [{ days: [0, 1, 2, 3, 4, 5, 6], startMinute: 0, endMinute: 1440 }], overrides: [{ date: '2026-06-04', startMinute: 0, endMinute: 1440 }] };
    const from = utc('2026-06-01T03:45Z');
    const until = utc('2026-08-01T00:00Z');
    const [run, runSpent] = workOf(() => workingRunAfter(always, from, until));
    assert.deepEqual(run.map(([start, end]) => `${iso(start)}/${iso(end)}`), [
      '2026-05-31T18:15Z/2026-06-01T18:15Z',
      '2026-06-01T18:15Z/2026-06-02T18:15Z',
      '2026-06-02T18:15Z/2026-06-03T18:15Z',
      '2026-06-03T18:15Z/2026-06-04T18:15Z',
      '2026-06-04T18:15Z/2026-08-01T00:00Z',
    ]);
    assert.equal(runSpent.workingDates, 3, 'Monday, Tuesday and the override date; never the two months date by date');
  });
});
