import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseIsoInstant } from '../../src/lib/iso-instant.js';

test('ISO 8601 dates and date-times as the reference\'s strict IsDateString takes them; no offset means UTC', () => {
  const cases: [string, string | null][] = [
    ['2030-09-01', '2030-09-01T00:00:00.000Z'],
    ['2030-09-01T10:15', '2030-09-01T10:15:00.000Z'],
    ['2030-09-01T10:15:30', '2030-09-01T10:15:30.000Z'],
    ['2030-09-01T10:15:30.123Z', '2030-09-01T10:15:30.123Z'],
    ['2030-09-01T10:15:30+05:45', '2030-09-01T04:30:30.000Z'],
    ['2030-09-01T10:15:30-0330', '2030-09-01T13:45:30.000Z'],
    ['2028-02-29', '2028-02-29T00:00:00.000Z'],
    ['2030-02-29', null],
    ['0050-06-01', '0050-06-01T00:00:00.000Z'],
    ['0050-06-01T12:00:00Z', '0050-06-01T12:00:00.000Z'],
    ['2030-13-01', null],
    ['2030-09-01T24:00', null],
    ['2030-9-1', null],
    ['yesterday', null],
    ['2030-09-01T10:15:30+25:00', null],
  ];
  for (const [text, expected] of cases) {
    const parsed = parseIsoInstant(text);
    assert.equal(parsed === null ? null : new Date(parsed).toISOString(), expected, text);
  }
});
