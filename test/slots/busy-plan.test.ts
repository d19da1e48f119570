// The hosts' busy time of a window is read from the (user, end_at) indexes bounded on both sides: no
// booking lasts longer than 24 hours (check constraints), so a window 200 days out reads that window's
// rows, not every later booking of the host. Calendar busy time is read by date the same way. A booking or reservation longer than that is refused by
// the store itself.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { busyBlocksStatement } from '../../src/modules/slots/busy-blocks.repository.js';
import { listLimitBookingsStatement } from '../../src/modules/slots/slots.repository.js';
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

  test('hosted bookings and reservations: the end_at index bounded below and above; calendar busy time by (user, date), bounded too', async () => {
    const text = await plan(busyBlocksStatement({ userIds: [1, 2], from, to, now: from - 86_400_000 }));
    // Each table by one of its time indexes (a host's bookings by end or by start), bounded on both ends of
    // that index's column.
    const choices: [RegExp, string][] = [
      [/booking_hosts_user_id_(end|start)_at_idx/, 'booking_hosts'],
      [/slot_reservations_user_id_slot_end_idx/, 'slot_reservations'],
      [/calendar_busy_days_user_day_idx/, 'calendar_busy_days'],
    ];
    const lines = text.split('\n');
    for (const [index, table] of choices) {
      const line = lines.findIndex((entry) => index.test(entry));
      assert.ok(line >= 0, `${table}: an index of ${index} is used:\n${text}`);
      const column = /slot_end/.test(lines[line]!) ? 'slot_end' : /_start_at_idx/.test(lines[line]!) ? 'start_at' : /_day_idx/.test(lines[line]!) ? 'day' : 'end_at';
      const bounds = column === 'day' ? `${column} >= .*${column} <= ` : `${column} > .*${column} < `;
      assert.match(lines.slice(line, line + 3).join(' '), new RegExp(`Index Cond:.*${bounds}`), `${table}: both ends bound the index:\n${text}`);
    }
  });

  test("an event type's bookings for its limits: bounded the same way", async () => {
    // Either of the event type's time indexes serves, bounded on both ends of its column (no booking is
    // longer than 24 hours, so the query bounds start_at as well as end_at).
    const text = await plan(listLimitBookingsStatement(1, from, to));
    const lines = text.split('\n');
    const line = lines.findIndex((entry) => /bookings_event_type_id_(end|start)_at_idx/.test(entry));
    assert.ok(line >= 0, text);
    const column = lines[line]!.includes('_end_at_idx') ? 'end_at' : 'start_at';
    assert.match(lines.slice(line, line + 3).join(' '), new RegExp(`Index Cond:.*${column} > .*${column} < `), text);
  });

  test('a booking longer than 24 hours is refused by the store', async () => {
    const { user } = await api.createUser();
    const insert = (end: string) =>
      api.runtime.ctx.database.db.execute(sql`insert into bookings (uid, user_id, title, start_at, end_at, status) values (gen_random_uuid()::text, ${user.id}, 'Long', '2027-07-01T00:00Z', ${end}::timestamptz, 'accepted')`);
    await assert.rejects(insert('2027-07-02T00:01Z'), (error: any) => /bookings_span_check/.test(String(error?.cause?.message ?? error?.message)));
    await insert('2027-07-02T00:00Z');
  });
});
