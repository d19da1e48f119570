// The hosts' busy time of a window is read from the (user, end_at) indexes bounded on both sides: no
// booking lasts longer than 24 hours (check constraints), so a window 200 days out reads that window's
// rows, not every later booking of the host. A booking or reservation longer than that is refused by
// the store itself.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { busyBlocksStatement, listLimitBookingsStatement } from '../../src/modules/slots/slots.repository.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';

describe(`busy-time plans (${backend})`, () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  async function plan(statement: ReturnType<typeof busyBlocksStatement>): Promise<string> {
    return api.runtime.ctx.database.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const rows = ((await tx.execute(sql`explain ${statement}`)) as unknown as { rows: Record<string, string>[] }).rows;
      return rows.map((row) => Object.values(row)[0]).join('\n');
    });
  }

  const from = Date.parse('2027-07-01T00:00:00Z');
  const to = from + 3 * 86_400_000;

  test('hosted bookings, reservations and calendar busy time: the end_at index bounded below and above', async () => {
    const text = await plan(busyBlocksStatement({ userIds: [1, 2], from, to, now: from - 86_400_000 }));
    for (const index of ['booking_hosts_user_id_end_at_idx', 'slot_reservations_user_id_slot_end_idx', 'calendar_busy_times_user_end_idx']) {
      const line = text.split('\n').findIndex((entry) => entry.includes(index));
      assert.ok(line >= 0, `${index} is used:\n${text}`);
      const condition = text.split('\n').slice(line, line + 3).join(' ');
      assert.match(condition, /Index Cond:.*end_at|slot_end/, text);
      assert.match(condition, /(end_at|slot_end) > .*(end_at|slot_end) < /, `both ends bound the index:\n${text}`);
    }
  });

  test("an event type's bookings for its limits: bounded the same way", async () => {
    const text = await plan(listLimitBookingsStatement(1, from, to));
    const line = text.split('\n').findIndex((entry) => entry.includes('bookings_event_type_id_end_at_idx'));
    assert.ok(line >= 0, text);
    assert.match(text.split('\n').slice(line, line + 3).join(' '), /end_at > .*end_at < /, text);
  });

  test('a booking longer than 24 hours is refused by the store', async () => {
    const { user } = await api.createUser();
    const insert = (end: string) =>
      api.runtime.ctx.database.db.execute(sql`insert into bookings (uid, user_id, title, start_at, end_at, status) values (gen_random_uuid()::text, ${user.id}, 'Long', '2027-07-01T00:00Z', ${end}::timestamptz, 'accepted')`);
    await assert.rejects(insert('2027-07-02T00:01Z'), (error: any) => /bookings_span_check/.test(String(error?.cause?.message ?? error?.message)));
    await insert('2027-07-02T00:00Z');
  });
});
