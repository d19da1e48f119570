import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertNamesField, createEventType, createHost, getSlots, type Host, instants, SLOTS_VERSION } from './helpers.js';

// 9999-12-31 is a Friday. Nothing may end at or after 9999-12-31T00:00:00Z (END_OF_TIME): every zone
// still prints such instants in year 9999, and the stores hold them.
const END_OF_TIME = Date.parse('9999-12-31T00:00:00Z');

describe('dates near year 9999 and year 0 are computed or refused with a 400, never a 500', () => {
  let api: TestApp;
  let host: Host;
  let eventType: any;
  before(async () => {
    api = await createTestApp();
    host = await createHost(api, 'UTC');
    eventType = await createEventType(api, host);
  });
  after(() => api.close());

  const book = (start: string, eventTypeId = eventType.id) =>
    api.request('POST', '/v2/bookings', { version: '2024-08-13', body: { eventTypeId, start, attendee: { name: 'Ada', email: 'ada@example.com', timeZone: 'UTC' } } });
  const reserve = (slotStart: string) => api.request('POST', '/v2/slots/reservations', { version: SLOTS_VERSION, body: { eventTypeId: eventType.id, slotStart } });

  test('GET /v2/slots in the last days of year 9999 lists only slots that end before 9999-12-31T00:00Z, in every zone', async () => {
    for (const timeZone of ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      const response = await getSlots(api, { eventTypeId: eventType.id, start: '9999-12-27', end: '9999-12-31', timeZone });
      assert.equal(response.status, 200, `${timeZone}: ${response.text}`);
      const starts = instants(response.body.data);
      assert.deepEqual(new Date(starts.at(-1)!).toISOString(), '9999-12-30T16:00:00.000Z', timeZone);
      assert.ok(starts.every((start) => start + 3_600_000 <= END_OF_TIME));
      assert.ok(Object.keys(response.body.data).every((date) => date.startsWith('9999-12-')), timeZone);
    }
  });

  test('GET /v2/slots in years 0 and 1 is an empty answer', async () => {
    const windows: [string, string][] = [['0000-01-01', '0000-01-02'], ['0001-01-01T00:00:00Z', '0001-01-02T00:00:00+14:00'], ['0099-12-31', '0099-12-31']];
    for (const [start, end] of windows) {
      const response = await getSlots(api, { eventTypeId: eventType.id, start, end });
      assert.equal(response.status, 200, `${start}: ${response.text}`);
      assert.deepEqual(response.body.data, {});
    }
  });

  test('a booking or reservation that would end after 9999-12-31T00:00Z is a 400 naming start or slotStart; one that ends before is made', async () => {
    assertNamesField(await book('9999-12-31T23:30:00Z'), 'start');
    assertNamesField(await book('9999-12-30T23:30:00Z'), 'start');
    assertNamesField(await reserve('9999-12-31T23:30:00Z'), 'slotStart');
    const booked = await book('9999-12-30T15:00:00Z');
    assert.equal(booked.status, 201, booked.text);
    assert.equal(booked.body.data.end, '9999-12-30T16:00:00.000Z');
    const reserved = await reserve('9999-12-30T16:00:00Z');
    assert.equal(reserved.status, 201, reserved.text);
    assert.equal(reserved.body.data.slotEnd, '9999-12-30T17:00:00.000Z');
  });

  test('a booking or reservation in year 0 is refused as in the past', async () => {
    const booking = await book('0000-01-03T09:00:00Z');
    assert.equal(booking.status, 400, booking.text);
    assert.match(booking.body.error.message, /past/i);
    const reservation = await reserve('0000-01-03T09:00:00Z');
    assert.equal(reservation.status, 422, reservation.text);
    assert.equal(reservation.body.error.message, 'Attempting to reserve a slot in the past.');
  });

  test('rescheduling to a start that would end after 9999-12-31T00:00Z is a 400 naming start; to 9999-12-30 it moves', async () => {
    const booked = await book('9999-12-29T09:00:00Z');
    assert.equal(booked.status, 201, booked.text);
    const reschedule = (uid: string, start: string) => api.request('POST', `/v2/bookings/${uid}/reschedule`, { version: '2024-08-13', key: host.apiKey, body: { start } });
    assertNamesField(await reschedule(booked.body.data.uid, '9999-12-31T09:00:00Z'), 'start');
    const moved = await reschedule(booked.body.data.uid, '9999-12-30T09:00:00Z');
    assert.equal(moved.status, 201, moved.text);
    assert.equal(moved.body.data.start, '9999-12-30T09:00:00.000Z');
  });

  test('a recurring series that would run past 9999-12-31T00:00Z is a 400 naming start', async () => {
    const yearly = await createEventType(api, host, { recurrence: { frequency: 'yearly', interval: 1, occurrences: 100 } });
    const response = await book('9950-06-03T09:00:00Z', yearly.id);
    assertNamesField(response, 'start');
    assert.match(response.body.error.message, /every occurrence of the series/);
  });

  test('booking list date filters from year 100 to the last instant of 9999 (in any offset) filter as written', async () => {
    const list = async (query: string) => {
      const response = await api.request('GET', `/v2/bookings?${query}`, { key: host.apiKey, version: '2024-08-13' });
      assert.equal(response.status, 200, `${query}: ${response.text}`);
      return response.body.data.map((booking: any) => booking.start as string);
    };
    const all = await list('afterStart=0100-01-01T00:00:00Z');
    assert.ok(all.includes('9999-12-30T15:00:00.000Z'), JSON.stringify(all));
    assert.deepEqual(await list('beforeEnd=0100-12-31T00:00:00Z'), []);
    // 23:59:59 at UTC-14 is 10000-01-01T13:59:59Z.
    assert.deepEqual(await list('afterStart=9999-12-31T23:59:59-14:00'), []);
    assert.deepEqual(await list('beforeEnd=9999-12-31T23:59:59-14:00'), all);
    assert.deepEqual(await list('afterCreatedAt=0100-01-01T00:00:00%2B14:00&beforeCreatedAt=9999-12-31T23:59:59-14:00'), all);
    assert.deepEqual(await list('afterUpdatedAt=9999-12-31T23:59:59-14:00'), []);
    assert.deepEqual(await list('beforeUpdatedAt=0100-01-01T00:00:00%2B14:00'), []);
  });
});
