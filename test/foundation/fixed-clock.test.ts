import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/app/config.js';
import { book, booked } from '../bookings/helpers.js';
import { createEventType, createHost, slotsOf, startsOf } from '../slots/helpers.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

// Friday 2026-02-27: long past by the real clock of anyone running this.
const FRIDAY = '2026-02-27';

describe('SVC_NOW: a clock that stands still', () => {
  test('is one instant, written with Z or an offset', () => {
    assert.equal(loadConfig({ SVC_NOW: '2026-02-27T00:00:00Z' }).fixedNow, Date.parse('2026-02-27T00:00:00Z'));
    assert.equal(loadConfig({ SVC_NOW: '2026-02-27T01:30:00.250+01:30' }).fixedNow, Date.parse('2026-02-27T00:00:00.250Z'));
    assert.equal(loadConfig({}).fixedNow, undefined);
    for (const bad of ['2026-02-27', '2026-02-27T00:00:00', 'yesterday', '2026-02-30T00:00:00Z']) {
      assert.throws(() => loadConfig({ SVC_NOW: bad }), (error: unknown) => error instanceof ConfigError && /SVC_NOW/.test(error.message), bad);
    }
  });

  describe('a server started with it', () => {
    let api: TestApp;
    before(async () => {
      api = await createTestApp({ SVC_NOW: `${FRIDAY}T00:00:00Z` });
    });
    after(() => api.close());

    test('lists and books as if it were that instant', async () => {
      const host = await createHost(api, 'UTC');
      // Ten hours' notice from 00:00Z: the day's first start is 10:00Z.
      const eventType = await createEventType(api, host, { minimumBookingNotice: 600 });
      const day = { eventTypeId: eventType.id, start: FRIDAY, end: FRIDAY, timeZone: 'UTC' };
      assert.deepEqual(startsOf(await slotsOf(api, day)), ['10', '11', '12', '13', '14', '15', '16'].map((hour) => `${FRIDAY}T${hour}:00:00.000Z`));
      const booking = await booked(api, { eventTypeId: eventType.id, start: `${FRIDAY}T11:00:00Z` });
      assert.equal(booking.status, 'accepted');
      // Within the notice, as the fixed clock sees it.
      const early = await book(api, { eventTypeId: eventType.id, start: `${FRIDAY}T09:00:00Z`, attendee: { name: 'E', email: 'e@example.com', timeZone: 'UTC' } });
      assert.equal(early.status, 400, early.text);
      assert.ok(!startsOf(await slotsOf(api, day)).includes(`${FRIDAY}T11:00:00.000Z`));
    });
  });
});
