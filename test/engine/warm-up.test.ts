import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PLAIN_EVENT_RULES, type SlotQuery } from '../../src/scheduling/slot-query.js';
import { computeSlots } from '../../src/scheduling/slots.js';
import { warmUpEngine } from '../../src/scheduling/warm-up.js';
import { cachedZoneCount, forgetZoneTables, offsetMinutes, zonedToEpoch } from '../../src/scheduling/zones.js';

const DAY = 86_400_000;

/** Two hosts across New York's and London's spring changes (2026-03-08 and 03-29). */
function dstQuery(): SlotQuery {
  const from = Date.UTC(2026, 2, 1);
  const rules = [{ days: [0, 1, 2, 3, 4, 5, 6], startMinute: 480, endMinute: 1080 }];
  const busyStart = zonedToEpoch('Europe/London', 2026, 3, 30, 600);
  return {
    ...PLAIN_EVENT_RULES,
    now: from - DAY,
    from,
    to: from + 31 * DAY,
    eventTypeId: 1,
    duration: 30,
    organizerTimeZone: 'America/New_York',
    weekStart: 0,
    hosts: [
      { userId: 1, fixed: true, schedule: { timeZone: 'America/New_York', weeklyRules: rules, overrides: [] }, busy: [] },
      { userId: 2, fixed: false, schedule: { timeZone: 'Europe/London', weeklyRules: rules, overrides: [] }, busy: [{ start: busyStart, end: busyStart + 2 * 3_600_000, bufferBefore: 0, bufferAfter: 0, source: 'booking' }] },
    ],
    limitBookings: [],
  };
}

const starts = (query: SlotQuery) => computeSlots(query).map((slot) => `${new Date(slot.start).toISOString()} ${slot.hostIds.join(',')}`);

describe('engine warm-up (svc serve runs it before listening)', () => {
  test('runs the engine on its built-in queries, the same every time, and leaves no zone table behind', () => {
    const listed = warmUpEngine();
    assert.ok(listed > 1000, `the warm-up listed ${listed} slots`);
    assert.equal(cachedZoneCount(), 0);
    assert.equal(warmUpEngine(), listed);
    assert.equal(cachedZoneCount(), 0);
  });

  test('slots and offsets read after the zone tables are dropped equal those read before', () => {
    const before = starts(dstQuery());
    assert.ok(before.includes('2026-03-09T12:00:00.000Z 1,2'), 'New York 08:00 after its change, London free');
    assert.ok(cachedZoneCount() >= 2);
    warmUpEngine();
    assert.equal(cachedZoneCount(), 0);
    forgetZoneTables();
    assert.equal(offsetMinutes('Asia/Kathmandu', Date.UTC(2026, 0, 1)), 345);
    assert.equal(offsetMinutes('Europe/Dublin', Date.UTC(2026, 6, 1)), 60);
    assert.deepEqual(starts(dstQuery()), before);
  });
});
