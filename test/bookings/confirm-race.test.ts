import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createEventType, createHost } from '../slots/helpers.js';
import { backend, createPeerApp, createTestApp, type TestApp } from '../support/test-app.js';
import { BOOKINGS_VERSION, booked } from './helpers.js';

const TAKEN = "This booking's time is no longer available: another booking holds it.";

describe('confirming pending requests for one slot under concurrency', { skip: backend !== 'postgres' && 'needs PostgreSQL: PGlite is one session, so it cannot race' }, () => {
  let first: TestApp;
  let second: TestApp;
  before(async () => {
    first = await createTestApp();
    // A second svc process on the same database: the host lock has to hold across processes.
    second = await createPeerApp(first);
  });
  after(async () => {
    await second.close();
    await first.close();
  });

  test('requests for the same slot confirmed at once through two processes: one 200 per slot, the others 409', async () => {
    const host = await createHost(first, 'America/New_York');
    // Unconfirmed bookings do not block: several requests for one slot can wait side by side.
    const eventType = await createEventType(first, host, { confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: false } });
    const slots = ['15', '16', '17', '18', '19', '20'].map((hour) => `2027-02-08T${hour}:00:00.000Z`);
    const perSlot = 4;
    const pending: { uid: string; start: string }[] = [];
    for (const start of slots) {
      for (let i = 0; i < perSlot; i++) {
        const booking = await booked(first, { eventTypeId: eventType.id, start, attendee: { name: `Racer ${i}`, email: `racer${i}@example.com`, timeZone: 'UTC' } });
        assert.equal(booking.status, 'pending');
        pending.push({ uid: booking.uid, start });
      }
    }

    const answers = await Promise.all(
      pending.map(({ uid }, i) => (i % 2 ? second : first).request('POST', `/v2/bookings/${uid}/confirm`, { version: BOOKINGS_VERSION, key: host.apiKey })),
    );
    for (const start of slots) {
      const mine = answers.filter((_, i) => pending[i]!.start === start);
      const outcome = mine.map((answer) => (answer.status === 200 ? '200' : `${answer.status} ${answer.body?.error?.message} (${answer.body?.error?.details?.reason})`)).sort();
      assert.deepEqual(outcome, ['200', ...Array(perSlot - 1).fill(`409 ${TAKEN} (booking_conflict)`)], `${start}: ${outcome.join(' | ')}`);
    }

    const rows = await first.runtime.ctx.database.db.execute(
      sql`select start_at, count(*) filter (where status = 'accepted')::int as accepted, count(*) filter (where status = 'pending')::int as pending from bookings where event_type_id = ${eventType.id} group by start_at`,
    );
    const counts = (rows as unknown as { rows: { accepted: number; pending: number }[] }).rows;
    assert.equal(counts.length, slots.length);
    for (const count of counts) assert.deepEqual([count.accepted, count.pending], [1, perSlot - 1]);
    const events = await first.runtime.ctx.database.db.execute(sql`select count(*)::int as n from booking_events where event_type_id = ${eventType.id} and trigger = 'BOOKING_CREATED'`);
    assert.equal((events as unknown as { rows: { n: number }[] }).rows[0]!.n, slots.length, 'one BOOKING_CREATED per slot');
  });
});
