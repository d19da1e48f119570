import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { cachedZoneCount, epochOfWallClock, forgetZoneTables, formatDate, localDateOf, offsetMinutes, utcTime, zonedToEpoch, zoneWork } from '../../src/scheduling/zones.js';
import { TEST_ZONES as ZONES } from '../support/zones.js';


function temporalEpoch(zone: string, y: number, m: number, d: number, minute: number): number {
  if (minute === 1440) {
    const next = Temporal.PlainDate.from({ year: y, month: m, day: d }).add({ days: 1 });
    return Temporal.ZonedDateTime.from({ timeZone: zone, year: next.year, month: next.month, day: next.day, hour: 0, minute: 0 }, { disambiguation: 'compatible' }).epochMilliseconds;
  }
  return Temporal.ZonedDateTime.from(
    { timeZone: zone, year: y, month: m, day: d, hour: Math.floor(minute / 60), minute: minute % 60 },
    { disambiguation: 'compatible' },
  ).epochMilliseconds;
}

describe('zone conversion (Temporal "compatible" semantics)', () => {
  test('matches Temporal on random wall-clock times in many zones, 1990-2060', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: 1990, max: 2060 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
        fc.integer({ min: 0, max: 1440 }),
        (zone, y, m, d, minute) => zonedToEpoch(zone, y, m, d, minute) === temporalEpoch(zone, y, m, d, minute),
      ),
      { numRuns: 4000 },
    );
  });

  test('matches Temporal on every quarter hour of DST transition days', () => {
    const days: [string, number, number, number][] = [
      ['America/New_York', 2026, 3, 8], ['America/New_York', 2026, 11, 1], ['Europe/London', 2026, 3, 29], ['Europe/London', 2026, 10, 25],
      ['Australia/Lord_Howe', 2026, 4, 5], ['Australia/Lord_Howe', 2026, 10, 4], ['Pacific/Chatham', 2026, 4, 5], ['Pacific/Chatham', 2026, 9, 27],
      ['America/Santiago', 2026, 4, 5], ['America/Santiago', 2026, 9, 6], ['America/St_Johns', 2026, 3, 8], ['America/St_Johns', 2026, 11, 1],
    ];
    for (const [zone, y, m, d] of days) {
      for (let minute = 0; minute <= 1440; minute += 15) {
        assert.equal(zonedToEpoch(zone, y, m, d, minute), temporalEpoch(zone, y, m, d, minute), `${zone} ${y}-${m}-${d} +${minute}m`);
      }
    }
  });

  test('transitions off the quarter hour: St John\'s changed clocks at 00:01 local until 2011', () => {
    const zone = 'America/St_Johns';
    for (const [y, m, d] of [[2007, 3, 11], [2007, 11, 4], [2010, 11, 7]] as const) {
      for (let minute = 0; minute <= 180; minute++) {
        assert.equal(zonedToEpoch(zone, y, m, d, minute), temporalEpoch(zone, y, m, d, minute), `${y}-${m}-${d} minute ${minute}`);
      }
      const midnight = temporalEpoch(zone, y, m, d, 0);
      for (let t = midnight - 3_600_000; t < midnight + 3 * 3_600_000; t += 60_000) {
        const expected = Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(zone).offsetNanoseconds / 60e9;
        assert.equal(offsetMinutes(zone, t), expected, new Date(t).toISOString());
      }
    }
  });

  test('gaps move forward and overlaps take the earlier instant', () => {
    assert.equal(new Date(zonedToEpoch('America/New_York', 2026, 3, 8, 150)).toISOString(), '2026-03-08T07:30:00.000Z'); // 02:30 -> 03:30 EDT
    assert.equal(new Date(zonedToEpoch('America/New_York', 2026, 11, 1, 90)).toISOString(), '2026-11-01T05:30:00.000Z'); // first 01:30
    assert.equal(new Date(zonedToEpoch('Australia/Lord_Howe', 2026, 10, 4, 135)).toISOString(), '2026-10-03T15:45:00.000Z'); // 30-min gap
  });

  test('offsets and local dates agree with Temporal on random instants', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2060, 0, 1) }), (zone, ms) => {
        const zdt = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone);
        const date = localDateOf(zone, ms);
        return offsetMinutes(zone, ms) * 60e9 === zdt.offsetNanoseconds && date.year === zdt.year && date.month === zdt.month && date.day === zdt.day;
      }),
      { numRuns: 4000 },
    );
  });
});

describe('zone tables: bounds, caches and formats', () => {
  test('an instant JavaScript cannot hold (or NaN) is a RangeError, as Date says; its last instant is not', () => {
    for (const bad of [Number.NaN, 8.64e15 + 1, -8.64e15 - 1]) assert.throws(() => offsetMinutes('Europe/Paris', bad), { name: 'RangeError', message: /Invalid time value/ });
    assert.equal(offsetMinutes('UTC', 8.64e15), 0);
    assert.equal(offsetMinutes('UTC', -8.64e15), 0);
  });

  test('the offset looked up last is reused only for its own zone and its own stretch (before 1970 too)', () => {
    const instant = Date.UTC(2026, 5, 1, 12);
    assert.equal(offsetMinutes('UTC', instant), 0);
    assert.equal(epochOfWallClock('Asia/Kolkata', instant), instant - 330 * 60_000);
    // Winter then summer of 1960 in New York, one lookup after the other.
    assert.equal(offsetMinutes('America/New_York', Date.UTC(1960, 0, 10)), -300);
    assert.equal(offsetMinutes('America/New_York', Date.UTC(1960, 6, 10)), -240);
  });

  test('dates print with four-digit years', () => {
    assert.equal(formatDate({ year: 999, month: 1, day: 2 }), '0999-01-02');
  });

  test('the offsets held are capped: past 50,000 spans every zone\'s are dropped and read again as needed', () => {
    forgetZoneTables();
    offsetMinutes('Asia/Kathmandu', 0);
    const SPAN = 6 * 86_400_000;
    // 50,000 spans of a fixed-offset zone (no transitions: a few Intl calls each): the last read finds the cap reached.
    for (let i = 0; i < 50_000; i++) offsetMinutes('Etc/GMT-5', i * SPAN);
    assert.equal(cachedZoneCount(), 1, 'Kathmandu\'s table went with the others');
    assert.equal(offsetMinutes('Asia/Kathmandu', 0), 330);
    assert.equal(cachedZoneCount(), 2);
    forgetZoneTables();
    assert.equal(cachedZoneCount(), 0);
  });
});

// The tables exist to spare Intl and searches: a cache that stops working changes no answer, only the
// time every slot query takes, so these hold each one to the work it saves.
test('utcTime: any year, with Date.UTC itself outside years 0-99 (which it would read as 1900-1999)', () => {
  const slowWay = (run: () => number) => {
    const before = zoneWork().yearsBelow100;
    const value = run();
    return [value, zoneWork().yearsBelow100 - before];
  };
  assert.deepEqual(slowWay(() => utcTime(2026, 2, 29, 1, 30, 15)), [Date.parse('2026-03-29T01:30:15Z'), 0]);
  assert.deepEqual(slowWay(() => utcTime(100, 0, 1)), [Date.parse('0100-01-01T00:00:00Z'), 0]);
  assert.deepEqual(slowWay(() => utcTime(-5, 11, 31, 23)), [Date.parse('-000005-12-31T23:00:00Z'), 0]);
  assert.deepEqual(slowWay(() => utcTime(99, 11, 31, 23, 59, 59)), [Date.parse('0099-12-31T23:59:59Z'), 1]);
  assert.deepEqual(slowWay(() => utcTime(0, 0, 1)), [Date.parse('0000-01-01T00:00:00Z'), 1]);
  assert.deepEqual(slowWay(() => utcTime(50, 13, 1)), [Date.parse('0051-02-01T00:00:00Z'), 1], 'a month past December rolls into the next year');
});

describe('zone tables: the work they save', () => {
  const SPAN = 6 * 86_400_000;
  const workOf = (run: () => void) => {
    const before = zoneWork();
    run();
    const after = zoneWork();
    return { probes: after.intlProbes - before.intlProbes, searches: after.tableSearches - before.tableSearches };
  };

  test('a span holding a transition is read with a probe every 3 days and a bisection to the second (13 probes)', () => {
    forgetZoneTables();
    // Berlin's 2026 spring-forward (01:00Z), Lord Howe's 30-minute one (2026-04-04 15:00Z, back to +10:30).
    for (const [zone, at, before, after] of [
      ['Europe/Berlin', Date.UTC(2026, 2, 29, 1), 60, 120],
      ['Australia/Lord_Howe', Date.UTC(2026, 3, 4, 15), 660, 630],
    ] as const) {
      const read = workOf(() => assert.equal(offsetMinutes(zone, at), after));
      assert.deepEqual(read, { probes: 13, searches: 1 }, zone);
      // The transition's own instant again: the last lookup's entry starts there, so no search.
      assert.deepEqual(workOf(() => assert.equal(offsetMinutes(zone, at), after)), { probes: 0, searches: 0 }, zone);
      // The same span again: no probe; the second before the transition: a search, still no probe.
      assert.deepEqual(workOf(() => assert.equal(offsetMinutes(zone, at - 1000), before)), { probes: 0, searches: 1 }, zone);
      assert.deepEqual(workOf(() => assert.equal(offsetMinutes(zone, at + 86_400_000), after)), { probes: 0, searches: 1 }, zone);
    }
  });

  test('a span without a transition costs three probes, one fewer per neighbour already read (their shared edge)', () => {
    forgetZoneTables();
    const index = Math.floor(Date.UTC(2026, 6, 1) / SPAN);
    const at = (i: number) => i * SPAN + 3_600_000;
    assert.equal(workOf(() => offsetMinutes('Europe/Paris', at(index))).probes, 3);
    // A minute later, in the span's one (and so last) entry: answered by the last lookup.
    assert.deepEqual(workOf(() => offsetMinutes('Europe/Paris', at(index) + 60_000)), { probes: 0, searches: 0 });
    assert.equal(workOf(() => offsetMinutes('Europe/Paris', at(index + 1))).probes, 2, 'its start is the last span\'s end');
    assert.equal(workOf(() => offsetMinutes('Europe/Paris', at(index - 1))).probes, 2, 'its end is the next span\'s start');
    assert.equal(workOf(() => offsetMinutes('Europe/Paris', at(index + 3))).probes, 3);
    assert.equal(workOf(() => offsetMinutes('Europe/Paris', at(index + 2))).probes, 1, 'both edges known');
    // Another zone keeps its own table; the first is still held.
    assert.equal(workOf(() => offsetMinutes('Asia/Kolkata', at(index))).probes, 3);
    assert.equal(workOf(() => offsetMinutes('Europe/Paris', at(index))).probes, 0);
  });

  test('lookups inside the offset looked up last, and wall-clock times a day inside it, are answered without a search', () => {
    forgetZoneTables();
    // The middle of a span (the cached stretch of a zone without transitions is one span).
    const noon = Math.floor(Date.UTC(2026, 5, 10) / SPAN) * SPAN + SPAN / 2;
    assert.equal(workOf(() => offsetMinutes('Asia/Kathmandu', noon)).searches, 1);
    assert.deepEqual(workOf(() => assert.equal(offsetMinutes('Asia/Kathmandu', noon + 2 * 86_400_000), 345)), { probes: 0, searches: 0 });
    assert.deepEqual(workOf(() => assert.equal(epochOfWallClock('Asia/Kathmandu', noon), noon - 345 * 60_000)), { probes: 0, searches: 0 });
    // Past the stretch's end: the next span is searched for (and read).
    assert.deepEqual(workOf(() => assert.equal(offsetMinutes('Asia/Kathmandu', noon + SPAN / 2), 345)), { probes: 2, searches: 1 });
    // A wall-clock time whose day after leaves the stretch searches both sides.
    assert.equal(workOf(() => epochOfWallClock('Asia/Kathmandu', noon + SPAN / 2 - 86_400_000 / 2)).searches, 2);
    // Another zone at the same instant is searched for (and answers its own offset).
    assert.deepEqual(workOf(() => assert.equal(offsetMinutes('Asia/Kolkata', noon), 330)), { probes: 3, searches: 1 });
    // Near a transition, a wall-clock time looks up both sides.
    assert.equal(workOf(() => epochOfWallClock('Europe/Berlin', Date.UTC(2026, 2, 29, 2, 30))).searches >= 2, true);
    // Before a transition inside the span (the span of 2026-03-26..04-01 holds Berlin's at 03-29T01:00Z),
    // the offset looked up last holds until the transition: a lookup in between is answered from it.
    forgetZoneTables();
    assert.equal(offsetMinutes('Europe/Berlin', Date.UTC(2026, 2, 26, 6)), 60);
    assert.deepEqual(workOf(() => assert.equal(offsetMinutes('Europe/Berlin', Date.UTC(2026, 2, 28, 23)), 60)), { probes: 0, searches: 0 });
    assert.equal(workOf(() => assert.equal(offsetMinutes('Europe/Berlin', Date.UTC(2026, 2, 29, 1)), 120)).searches, 1, 'the transition itself is past it');
  });
});
