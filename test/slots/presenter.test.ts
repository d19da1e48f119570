import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatInstant, instantPrinter, presentSlots } from '../../src/modules/slots/slots.presenter.js';

const MINUTE = 60_000;
// Zones with DST changes (both hemispheres), half- and quarter-hour offsets, and the two printed with Z.
const ZONES = [null, 'UTC', 'gmt', 'America/New_York', 'Europe/London', 'Australia/Sydney', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/St_Johns'];

describe('printing slot instants', () => {
  test('the printer writes what formatInstant writes, instant by instant, across DST changes and dates', () => {
    // Every 7 minutes and a few milliseconds through March and early April 2026 (US, EU and Sydney DST changes), in order.
    const instants: number[] = [];
    for (let at = Date.parse('2026-03-01T00:00:00Z'); at < Date.parse('2026-04-08T00:00:00Z'); at += 7 * MINUTE + 13) instants.push(at);
    instants.push(Date.parse('0050-06-01T12:00:00Z'), Date.parse('9999-12-30T23:45:00Z'), Date.parse('1969-12-31T23:59:59.999Z'));
    for (const zone of ZONES) {
      const printer = instantPrinter(zone);
      for (const at of instants) {
        const expected = formatInstant(at, zone);
        assert.equal(printer.print(at), expected, `${zone} ${at}`);
        assert.equal(printer.date, expected.slice(0, 10));
      }
    }
  });

  test('slots are grouped by their local date in the asked zone, in either format', () => {
    const start = Date.parse('2026-03-29T00:30:00Z');
    const slots = [0, 60, 120].map((minutes) => ({ start: start + minutes * MINUTE, end: start + (minutes + 30) * MINUTE, hostIds: [] }));
    const list = { slots, duration: 30, seatsPerTimeSlot: null, degradedHosts: [], awayHosts: [] };
    // London moves to +01:00 at 01:00Z on 2026-03-29; New York is on the 28th until 04:00Z.
    assert.deepEqual(presentSlots(list, { timeZone: 'Europe/London', format: 'range' }), {
      '2026-03-29': [
        { start: '2026-03-29T00:30:00.000+00:00', end: '2026-03-29T02:00:00.000+01:00' },
        { start: '2026-03-29T02:30:00.000+01:00', end: '2026-03-29T03:00:00.000+01:00' },
        { start: '2026-03-29T03:30:00.000+01:00', end: '2026-03-29T04:00:00.000+01:00' },
      ],
    });
    assert.deepEqual(presentSlots(list, { timeZone: 'America/New_York', format: 'time' }), {
      '2026-03-28': [{ start: '2026-03-28T20:30:00.000-04:00' }, { start: '2026-03-28T21:30:00.000-04:00' }, { start: '2026-03-28T22:30:00.000-04:00' }],
    });
  });
});
