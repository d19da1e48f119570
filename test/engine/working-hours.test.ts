import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import type { DateOverride, WeeklyRule } from '../../src/scheduling/availability-rules.js';
import { type HostSchedule, workingIntervals, workingPieces, workingRunAfter } from '../../src/scheduling/working-hours.js';
import { TEST_ZONES as ZONES } from '../support/zones.js';

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const utc = (text: string) => Date.parse(text);

describe('working hours to UTC intervals', () => {
  test('New York 13:00-18:00 on the spring-forward day is 17:00-22:00Z (the reference bug #30021)', () => {
    const rules: WeeklyRule[] = [{ days: [0], startMinute: 13 * 60, endMinute: 18 * 60 }];
    const open = workingIntervals({ timeZone: 'America/New_York', weeklyRules: rules, overrides: [] }, utc('2026-03-08T00:00Z'), utc('2026-03-09T12:00Z'));
    assert.deepEqual(open.map(([s, e]) => [iso(s), iso(e)]), [['2026-03-08T17:00:00.000Z', '2026-03-08T22:00:00.000Z']]);
  });

  test('09:00 stays 09:00 local across the November change (the reference bug #10517)', () => {
    const rules: WeeklyRule[] = [{ days: [5, 1], startMinute: 540, endMinute: 1020 }];
    const open = workingIntervals({ timeZone: 'America/New_York', weeklyRules: rules, overrides: [] }, utc('2026-10-30T00:00Z'), utc('2026-11-03T00:00Z'));
    assert.deepEqual(open.map(([s]) => iso(s)), ['2026-10-30T13:00:00.000Z', '2026-11-02T14:00:00.000Z']);
  });

  test('Lord Howe, Kathmandu, Chatham: half-hour and 45-minute offsets and a 30-minute DST shift', () => {
    const all: WeeklyRule[] = [{ days: [0, 1, 2, 3, 4, 5, 6], startMinute: 540, endMinute: 600 }];
    const first = (zone: string, from: string) => iso(workingIntervals({ timeZone: zone, weeklyRules: all, overrides: [] }, utc(from), utc(from) + 86_400_000)[0]![0]);
    assert.equal(first('Asia/Kathmandu', '2026-06-01T00:00Z'), '2026-06-01T03:15:00.000Z');
    assert.equal(first('Pacific/Chatham', '2026-06-01T00:00Z'), '2026-06-01T20:15:00.000Z'); // +12:45 in winter: June 2 09:00 local
    assert.equal(first('Australia/Lord_Howe', '2026-10-04T00:00Z'), '2026-10-04T22:00:00.000Z'); // +11:00 after the 30-min shift
    assert.equal(first('Australia/Lord_Howe', '2026-10-02T00:00Z'), '2026-10-02T22:30:00.000Z'); // +10:30 before it
  });

  test('overrides replace the weekly hours of their date; a day off empties it; ranges crossing midnight join', () => {
    const rules: WeeklyRule[] = [{ days: [1, 2], startMinute: 20 * 60, endMinute: 1440 }, { days: [2], startMinute: 0, endMinute: 120 }];
    const overrides: DateOverride[] = [{ date: '2026-06-09', startMinute: 0, endMinute: 0 }, { date: '2026-06-10', startMinute: 600, endMinute: 660 }];
    const open = workingIntervals({ timeZone: 'UTC', weeklyRules: rules, overrides }, utc('2026-06-08T00:00Z'), utc('2026-06-11T00:00Z'));
    assert.deepEqual(open.map(([s, e]) => [iso(s), iso(e)]), [
      ['2026-06-08T20:00:00.000Z', '2026-06-09T00:00:00.000Z'], // Monday evening; Tuesday is a day off
      ['2026-06-10T10:00:00.000Z', '2026-06-10T11:00:00.000Z'], // Wednesday's override (no weekly hours)
    ]);
    const joined = workingIntervals({ timeZone: 'UTC', weeklyRules: rules, overrides: [] }, utc('2026-06-08T00:00Z'), utc('2026-06-10T00:00Z'));
    assert.deepEqual(joined.map(([s, e]) => [iso(s), iso(e)]), [['2026-06-08T20:00:00.000Z', '2026-06-09T02:00:00.000Z'], ['2026-06-09T20:00:00.000Z', '2026-06-10T00:00:00.000Z']]);
  });

  test('agrees with a minute-by-minute walk on random schedules, zones and DST windows', () => {
    const rule = fc.record({
      days: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }),
      startMinute: fc.integer({ min: 0, max: 1400 }).map((m) => m - (m % 15)),
      length: fc.integer({ min: 15, max: 600 }),
    }).map(({ days, startMinute, length }) => ({ days, startMinute, endMinute: Math.min(1440, startMinute + length) }));
    const windowStarts = ['2026-03-07', '2026-03-27', '2026-04-03', '2026-09-25', '2026-10-02', '2026-10-23', '2026-10-30', '2026-06-15'];
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.array(rule, { minLength: 1, maxLength: 3 }),
        fc.constantFrom(...windowStarts),
        fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
        (zone, weeklyRules, startDate, overrideDay) => {
          const from = utc(`${startDate}T00:00Z`);
          const to = from + 4 * 86_400_000;
          const overrides: DateOverride[] = [];
          if (overrideDay !== undefined) {
            const date = Temporal.PlainDate.from(startDate).add({ days: overrideDay }).toString();
            overrides.push({ date, startMinute: 600, endMinute: 720 });
          }
          const open = workingIntervals({ timeZone: zone, weeklyRules, overrides }, from, to);
          // Oracle: each minute is open if some range of its local date (per Temporal) contains it.
          const ranges = new Map<string, [number, number][]>();
          const rangesOf = (date: Temporal.PlainDate) => {
            const key = date.toString();
            let list = ranges.get(key);
            if (!list) {
              const dayOverrides = overrides.filter((o) => o.date === key);
              const source = dayOverrides.length > 0 ? dayOverrides : weeklyRules.filter((r) => r.days.includes(date.dayOfWeek % 7));
              const at = (minute: number) =>
                minute === 1440
                  ? date.add({ days: 1 }).toZonedDateTime({ timeZone: zone }).epochMilliseconds
                  : date.toZonedDateTime({ timeZone: zone, plainTime: { hour: Math.floor(minute / 60), minute: minute % 60 } }).epochMilliseconds;
              list = source.map((r) => [at(r.startMinute), at(r.endMinute)] as [number, number]);
              ranges.set(key, list);
            }
            return list;
          };
          for (let t = from; t < to; t += 15 * MINUTE) {
            const local = Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(zone).toPlainDate();
            const candidates = [local.subtract({ days: 1 }), local, local.add({ days: 1 })];
            const expected = candidates.some((date) => rangesOf(date).some(([s, e]) => s <= t && t < e));
            const actual = open.some(([s, e]) => s <= t && t < e);
            if (expected !== actual) throw new Error(`${zone} ${iso(t)} expected ${expected}`);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('working pieces and the run after a span (what a host plan is built from)', () => {
  const utcSchedule = (weeklyRules: WeeklyRule[], overrides: DateOverride[] = []): HostSchedule => ({ timeZone: 'UTC', weeklyRules, overrides });
  const show = (list: readonly (readonly [number, number])[]) => list.map(([s, e]) => `${iso(s).slice(5, 16)}/${iso(e).slice(5, 16)}`);
  const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6];

  test('pieces are the pieces of the dates that meet the window, unclipped; an empty window has none', () => {
    const twoShifts = utcSchedule([{ days: EVERY_DAY, startMinute: 540, endMinute: 600 }, { days: EVERY_DAY, startMinute: 840, endMinute: 900 }]);
    // Monday 2026-06-01: 09:00-10:00 and 14:00-15:00.
    assert.deepEqual(show(workingPieces(twoShifts, utc('2026-06-01T09:30Z'), utc('2026-06-01T09:45Z'))), ['06-01T09:00/06-01T10:00']);
    assert.deepEqual(show(workingPieces(twoShifts, utc('2026-06-01T12:00Z'), utc('2026-06-01T13:00Z'))), []);
    // A piece ending exactly at the window's start, or starting exactly at its end, does not meet it.
    assert.deepEqual(show(workingPieces(twoShifts, utc('2026-06-01T10:00Z'), utc('2026-06-01T14:00Z'))), []);
    assert.deepEqual(show(workingPieces(twoShifts, utc('2026-06-01T09:59Z'), utc('2026-06-01T14:01Z'))), ['06-01T09:00/06-01T10:00', '06-01T14:00/06-01T15:00']);
    assert.deepEqual(workingPieces(twoShifts, utc('2026-06-01T09:30Z'), utc('2026-06-01T09:30Z')), []);
    assert.deepEqual(workingPieces(twoShifts, utc('2026-06-01T09:30Z'), utc('2026-06-01T09:00Z')), []);
  });

  test('a range that starts where it ends is no working time', () => {
    assert.deepEqual(workingPieces(utcSchedule([{ days: EVERY_DAY, startMinute: 600, endMinute: 600 }]), utc('2026-06-01T00:00Z'), utc('2026-06-02T00:00Z')), []);
  });

  test('the run goes on across dates while working time touches, and stops at a gap', () => {
    // Friday and Saturday open all day (not all week: Sunday is off).
    const weekend = utcSchedule([{ days: [5, 6], startMinute: 0, endMinute: 1440 }]);
    assert.deepEqual(show(workingRunAfter(weekend, utc('2026-06-05T00:00Z'), utc('2026-06-07T00:00Z'))), ['06-05T00:00/06-06T00:00', '06-06T00:00/06-07T00:00']);
    assert.deepEqual(show(workingRunAfter(weekend, utc('2026-06-05T00:00Z'), utc('2026-06-08T00:00Z'))), ['06-05T00:00/06-06T00:00', '06-06T00:00/06-07T00:00']);
    // Across midnight from the middle of a piece.
    const lateAndEarly = utcSchedule([{ days: [1], startMinute: 1320, endMinute: 1440 }, { days: [2], startMinute: 0, endMinute: 180 }]);
    assert.deepEqual(show(workingRunAfter(lateAndEarly, utc('2026-06-01T23:00Z'), utc('2026-06-02T02:00Z'))), ['06-01T22:00/06-02T00:00', '06-02T00:00/06-02T03:00']);
    // Up to `until`: working time after it is not read.
    assert.deepEqual(show(workingRunAfter(lateAndEarly, utc('2026-06-01T22:00Z'), utc('2026-06-01T23:30Z'))), ['06-01T22:00/06-02T00:00']);
  });

  test('open all week: only a schedule open from midnight to midnight every day counts, and overrides end the stretch in date order', () => {
    // Open 01:00-24:00 on Sunday, all day otherwise: Sunday's first hour is a gap.
    const sundayLate = utcSchedule([{ days: [1, 2, 3, 4, 5, 6], startMinute: 0, endMinute: 1440 }, { days: [0], startMinute: 60, endMinute: 1440 }]);
    assert.deepEqual(workingRunAfter(sundayLate, utc('2026-06-07T00:00Z'), utc('2026-06-07T02:00Z')), []);
    // Open 00:00-16:40 every day: the night is a gap.
    const daytime = utcSchedule([{ days: EVERY_DAY, startMinute: 0, endMinute: 1000 }]);
    assert.deepEqual(show(workingRunAfter(daytime, utc('2026-06-01T00:00Z'), utc('2026-06-02T02:00Z'))), ['06-01T00:00/06-01T16:40']);
    // Open all week, with days off given out of date order: the stretch ends at the first of them.
    const allWeek = utcSchedule([{ days: EVERY_DAY, startMinute: 0, endMinute: 1440 }], [
      { date: '2026-06-20', startMinute: 0, endMinute: 0 },
      { date: '2026-06-10', startMinute: 0, endMinute: 0 },
      { date: '2026-06-15', startMinute: 0, endMinute: 0 },
    ]);
    assert.deepEqual(show(workingRunAfter(allWeek, utc('2026-06-01T00:00Z'), utc('2026-06-25T00:00Z'))), ['06-01T00:00/06-10T00:00']);
  });
});
