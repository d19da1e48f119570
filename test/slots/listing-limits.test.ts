import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertNamesField, createEventType, createHost, getSlots, type Host, instants } from './helpers.js';

const DAY = 86_400_000;
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('GET /v2/slots: the work of one request is bounded', () => {
  let api: TestApp;
  let host: Host;
  let other: Host;
  const first = Date.now() + 2 * DAY;
  before(async () => {
    api = await createTestApp();
    host = await createHost(api, 'UTC');
    other = await createHost(api, 'UTC');
  });
  after(() => api.close());

  test('a year of 1-minute slots is a 400 naming end and saying how far end may go; that far is answered', async () => {
    const everyMinute = await createEventType(api, host, { lengthInMinutes: 30, slotInterval: 1 });
    const year = await getSlots(api, { eventTypeId: everyMinute.id, start: date(first), end: date(first + 365 * DAY) });
    assertNamesField(year, 'end');
    assert.match(year.body.error.message, /slots every 1 minute, one request may cover at most 34 days/);

    // 50,000 starts: 34 days and a bit of 1-minute spacing.
    const allowed = await getSlots(api, { eventTypeId: everyMinute.id, start: `${date(first)}T00:00:00Z`, end: `${date(first + 34 * DAY)}T00:00:00Z` });
    assert.equal(allowed.status, 200, allowed.text);
    assert.ok(instants(allowed.body.data).length > 5000);
    assertNamesField(await getSlots(api, { eventTypeId: everyMinute.id, start: `${date(first)}T00:00:00Z`, end: `${date(first + 35 * DAY)}T00:00:00Z` }), 'end');
  });

  test('the spacing is the slot interval, else the requested length: a year of 15-minute slots is answered', async () => {
    const variable = await createEventType(api, host, { lengthInMinutes: 60, lengthInMinutesOptions: [15, 60] });
    const response = await getSlots(api, { eventTypeId: variable.id, start: date(first), end: date(first + 365 * DAY), duration: 15 });
    assert.equal(response.status, 200, response.text);
  });

  test('every host of a group counts: two hosts at 15 minutes may ask for half as many days', async () => {
    const usernames = `${host.username},${other.username}`;
    const year = await getSlots(api, { usernames, start: date(first), end: date(first + 365 * DAY), duration: 15 });
    assertNamesField(year, 'end');
    assert.match(year.body.error.message, /2 hosts with slots every 15 minutes, one request may cover at most 260 days/);
    const allowed = await getSlots(api, { usernames, start: date(first), end: date(first + 200 * DAY), duration: 15 });
    assert.equal(allowed.status, 200, allowed.text);
  });
});
