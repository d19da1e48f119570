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
  let office: Host;
  const first = Date.now() + 2 * DAY;
  /** A host whose default schedule is open round the clock, every day. */
  async function roundTheClock(): Promise<Host> {
    const created = await createHost(api, 'UTC');
    const schedule = await api.request('POST', '/v2/schedules', {
      key: created.apiKey,
      version: '2024-06-11',
      body: { name: 'Always', timeZone: 'UTC', isDefault: true, availability: [{ days: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'], startTime: '00:00', endTime: '23:59' }] },
    });
    assert.equal(schedule.status, 201, schedule.text);
    return created;
  }
  before(async () => {
    api = await createTestApp();
    host = await roundTheClock();
    other = await roundTheClock();
    office = await createHost(api, 'UTC');
  });
  after(() => api.close());

  /**
   * A year is a 400 naming end that says `days` fit; `days` (from midnight to midnight) are answered and
   * returned, one more day is refused.
   */
  async function coversAtMost(eventTypeId: number, days: number, spacing: RegExp) {
    const year = await getSlots(api, { eventTypeId, start: date(first), end: date(first + 365 * DAY) });
    assertNamesField(year, 'end');
    assert.match(year.body.error.message, new RegExp(`${spacing.source}, one request may cover at most ${days} days`));
    const window = (length: number) => ({ eventTypeId, start: `${date(first)}T00:00:00Z`, end: `${date(first + length * DAY)}T00:00:00Z` });
    const allowed = await getSlots(api, window(days));
    assert.equal(allowed.status, 200, allowed.text);
    assertNamesField(await getSlots(api, window(days + 1)), 'end');
    return instants(allowed.body.data);
  }

  test('a year of 1-minute slots round the clock is a 400 naming end and saying how far end may go; that far is answered', async () => {
    const everyMinute = await createEventType(api, host, { lengthInMinutes: 30, slotInterval: 1 });
    // 50,000 starts: 34 days and a bit of 1-minute spacing.
    assert.ok((await coversAtMost(everyMinute.id, 34, /slots every 1 minute/)).length > 40_000);
  });

  test('only working time counts: a Monday-Friday 09:00-17:00 host (40 of 168 hours) may ask for 145 days of 1-minute slots', async () => {
    const everyMinute = await createEventType(api, office, { lengthInMinutes: 30, slotInterval: 1 });
    assert.ok((await coversAtMost(everyMinute.id, 145, /slots every 1 minute/)).length > 40_000);
  });

  test('the spacing is the slot interval, else the requested length: a year of 15-minute slots is answered', async () => {
    const variable = await createEventType(api, host, { lengthInMinutes: 60, lengthInMinutesOptions: [15, 60] });
    const response = await getSlots(api, { eventTypeId: variable.id, start: date(first), end: date(first + 365 * DAY), duration: 15 });
    assert.equal(response.status, 200, response.text);
  });

  test('every host of a group counts: two hosts round the clock at 15 minutes may ask for half as many days', async () => {
    const usernames = `${host.username},${other.username}`;
    const year = await getSlots(api, { usernames, start: date(first), end: date(first + 365 * DAY), duration: 15 });
    assertNamesField(year, 'end');
    assert.match(year.body.error.message, /2 hosts with slots every 15 minutes, one request may cover at most 260 days/);
    const allowed = await getSlots(api, { usernames, start: date(first), end: date(first + 200 * DAY), duration: 15 });
    assert.equal(allowed.status, 200, allowed.text);
  });

  test('a team of 20 working office hours gets a month of 15-minute slots (57,600 grid starts, 13,714 of them in working time)', async () => {
    const team = [office];
    for (let i = 1; i < 20; i++) team.push(await createHost(api, 'UTC'));
    const usernames = team.map((member) => member.username).join(',');
    const month = await getSlots(api, { usernames, start: date(first), end: date(first + 29 * DAY), duration: 15 });
    assert.equal(month.status, 200, month.text);
    assert.ok(instants(month.body.data).length > 0);
    const year = await getSlots(api, { usernames, start: date(first), end: date(first + 365 * DAY), duration: 15 });
    assertNamesField(year, 'end');
    assert.match(year.body.error.message, /20 hosts with slots every 15 minutes, one request may cover at most 109 days/);
  });
});
