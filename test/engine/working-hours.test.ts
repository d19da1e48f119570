import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import type { DateOverride, WeeklyRule } from '../../src/scheduling/availability-rules.js';
import { workingIntervals } from '../../src/scheduling/working-hours.js';
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
