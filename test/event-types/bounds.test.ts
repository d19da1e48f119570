import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertNamesField, create, created, patch, read } from './helpers.js';

const DAY = 1440;
const YEAR = 525_600;

// [field as sent, largest accepted value, the body for a value, the property the 400 names]
const BOUNDS: [string, number, (value: number) => Record<string, unknown>, string][] = [
  ['lengthInMinutes', DAY, (value) => ({ lengthInMinutes: value }), 'lengthInMinutes'],
  ['lengthInMinutesOptions', DAY, (value) => ({ lengthInMinutes: 30, lengthInMinutesOptions: [30, value] }), 'lengthInMinutesOptions.1'],
  ['slotInterval', DAY, (value) => ({ slotInterval: value }), 'slotInterval'],
  ['beforeEventBuffer', DAY, (value) => ({ beforeEventBuffer: value }), 'beforeEventBuffer'],
  ['afterEventBuffer', DAY, (value) => ({ afterEventBuffer: value }), 'afterEventBuffer'],
  ['offsetStart', DAY, (value) => ({ offsetStart: value }), 'offsetStart'],
  ['minimumBookingNotice', YEAR, (value) => ({ minimumBookingNotice: value }), 'minimumBookingNotice'],
  ['bookingWindow.value', 36_500, (value) => ({ bookingWindow: { type: 'businessDays', value, rolling: false } }), 'bookingWindow.value'],
  ['seats.seatsPerTimeSlot', 1000, (value) => ({ seats: { seatsPerTimeSlot: value, showAttendeeInfo: false, showAvailabilityCount: true } }), 'seats.seatsPerTimeSlot'],
];

describe('event types: durations and counts are bounded so that every computation on them stays cheap', () => {
  let api: TestApp;
  let key: string;
  before(async () => {
    api = await createTestApp();
    key = (await api.createUser({ timeZone: 'Europe/Rome' })).apiKey;
  });
  after(() => api.close());

  for (const [name, largest, fields, property] of BOUNDS) {
    test(`${name}: ${largest} is accepted, ${largest + 1} and 2^31-1 are a 400 naming ${property}, on create and on update`, async () => {
      const eventType = await created(api, key, fields(largest));
      for (const value of [largest + 1, 2_147_483_647]) {
        assertNamesField(await create(api, key, fields(value)), property, `create with ${name} ${value}`);
        assertNamesField(await patch(api, key, eventType.id, fields(value)), property, `update with ${name} ${value}`);
      }
      const unchanged = await read(api, key, eventType.id);
      assert.deepEqual(unchanged, eventType, 'a refused update changes nothing');
    });
  }

  test('a recurring series must end within 100 years of its first occurrence', async () => {
    for (const recurrence of [
      { frequency: 'weekly', interval: 1, occurrences: 1000 },
      { frequency: 'weekly', interval: 2, occurrences: 1000 },
      { frequency: 'monthly', interval: 1, occurrences: 1000 },
      { frequency: 'yearly', interval: 1, occurrences: 101 },
      { frequency: 'yearly', interval: 100, occurrences: 2 },
    ]) {
      await created(api, key, { recurrence });
    }
    const eventType = await created(api, key, { recurrence: { frequency: 'weekly', interval: 1, occurrences: 2 } });
    for (const recurrence of [
      { frequency: 'weekly', interval: 6, occurrences: 1000 },
      { frequency: 'monthly', interval: 2, occurrences: 1000 },
      { frequency: 'yearly', interval: 1, occurrences: 102 },
      { frequency: 'yearly', interval: 1000, occurrences: 1000 },
    ]) {
      const what = JSON.stringify(recurrence);
      assertNamesField(await create(api, key, { recurrence }), 'recurrence.occurrences', `create ${what}`);
      assertNamesField(await patch(api, key, eventType.id, { recurrence }), 'recurrence.occurrences', `update ${what}`);
    }
  });
});
