// calendar_busy_days (the busy time the slot query reads, by source and UTC date) stays equal to what
// calendar_busy_times holds through every kind of change a sync makes: whole replacements, changes of
// some objects (an event moved to another date, split across midnight, longer than a day, removed),
// deselection and removal of the calendar. listBusyBlocks then gives exactly the stored pieces that
// overlap the range asked, for ranges that start and end at any time of day.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { insertConnection, insertSources, replaceBusyTimes, setSourceSelected } from '../../src/modules/calendars/calendars.repository.js';
import { listBusyBlocks } from '../../src/modules/slots/busy-blocks.repository.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
const BASE = Date.parse('2027-03-27T00:00:00Z');

/** A small deterministic generator (mulberry32), so a failure repeats. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rows<T> = { rows: T[] };

async function pieces(db: Db, sourceId: number): Promise<{ start: number; end: number; userId: number }[]> {
  const result = (await db.execute(sql`
    select user_id, (extract(epoch from start_at) * 1000)::float8 as start_ms, (extract(epoch from end_at) * 1000)::float8 as end_ms
    from calendar_busy_times where source_id = ${sourceId}`)) as unknown as Rows<{ user_id: number; start_ms: number; end_ms: number }>;
  return result.rows.map((row) => ({ start: row.start_ms, end: row.end_ms, userId: row.user_id }));
}

/** calendar_busy_days as calendar_busy_times says it should be: pieces grouped by the UTC date of their start. */
function expectedDays(stored: { start: number; end: number; userId: number }[]): string[] {
  const byDay = new Map<string, { start: number; end: number; userId: number }[]>();
  for (const piece of stored) {
    const day = new Date(piece.start).toISOString().slice(0, 10);
    byDay.set(day, [...(byDay.get(day) ?? []), piece]);
  }
  return [...byDay]
    .map(([day, list]) => {
      list.sort((a, b) => a.start - b.start || a.end - b.end);
      return `${day} ${list[0]!.userId} ${list.map((piece) => `${piece.start} ${piece.end}`).join(' ')}`;
    })
    .sort();
}

/** A date's spans (big-endian float8 start, end, ...) as "start end start end ...". */
function decodeSpans(bytes: Uint8Array): string {
  assert.equal(bytes.byteLength % 16, 0);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.byteLength / 8 }, (_, index) => view.getFloat64(index * 8)).join(' ');
}

async function storedDays(db: Db, sourceId: number): Promise<string[]> {
  const result = (await db.execute(sql`select day::text as day, user_id, spans from calendar_busy_days where source_id = ${sourceId} order by day`)) as unknown as Rows<{ day: string; user_id: number; spans: Uint8Array }>;
  return result.rows.map((row) => `${row.day} ${row.user_id} ${decodeSpans(row.spans)}`);
}

describe(`calendar busy time by date (${backend})`, () => {
  let api: TestApp;
  let db: Db;
  let userId: number;
  let source: { id: number; userId: number };
  let other: { id: number; userId: number };
  before(async () => {
    api = await createTestApp();
    db = api.runtime.ctx.database.db;
    userId = (await api.createUser()).user.id;
    const connection = await insertConnection(db, { userId, type: 'ics-feed_calendar', appId: 'ics-feed', credentialsSealed: 'not read' });
    const calendar = (externalId: string) => ({ externalId, name: externalId, primary: false, readOnly: true, timeZone: null });
    const sources = await insertSources(db, connection, [calendar('https://example.com/a.ics'), calendar('https://example.com/b.ics')], new Date(BASE + 365 * DAY));
    source = sources[0]!;
    other = sources[1]!;
  });
  after(() => api.close());

  test('every change a sync makes leaves the dates equal to the events, and the slot query reads exactly the overlapping pieces', async () => {
    const next = random(2027);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    const keys = Array.from({ length: 12 }, (_, index) => `object-${index}.ics`);
    // Events on the quarter hour over six days, some across midnight, some of 30 hours (stored in pieces).
    const event = (objectKey: string) => {
      const start = BASE + Math.floor(next() * 6 * 96) * 15 * MINUTE;
      const length = pick([15, 60, 90, 23 * 60 + 45, 30 * 60]) * MINUTE;
      return { objectKey, start, end: start + length, uid: next() < 0.5 ? null : `${objectKey}-uid` };
    };
    await replaceBusyTimes(db, other, null, [event('elsewhere.ics')]);
    const otherDays = await storedDays(db, other.id);
    for (let round = 0; round < 40; round++) {
      const whole = round % 10 === 0;
      const changed = whole ? null : keys.filter(() => next() < 0.3);
      // Each changed object comes back with 0-2 events (none: it was deleted).
      const intervals = (changed ?? keys).flatMap((key) => Array.from({ length: Math.floor(next() * 3) }, () => event(key)));
      await replaceBusyTimes(db, source, changed, intervals);
      const stored = await pieces(db, source.id);
      assert.deepEqual(await storedDays(db, source.id), expectedDays(stored), `round ${round}: the dates hold the stored pieces`);

      const from = BASE - DAY + Math.floor(next() * 7 * 96) * 15 * MINUTE + pick([0, 7 * MINUTE]);
      const to = from + Math.floor(1 + next() * 3 * 96) * 15 * MINUTE;
      // (The sources were never synced: the host is also marked unavailable over the range, a block of its own.)
      const read = (await listBusyBlocks(db, { userIds: [userId], from, to, now: BASE })).get(userId)!.plain.map(([start, end]) => ({ start, end }));
      const overlapping = (list: { start: number; end: number }[]) => list.filter((piece) => piece.end > from && piece.start < to);
      const expected = overlapping([...stored, ...(await pieces(db, other.id))]).map(({ start, end }) => `${start}-${end}`);
      assert.deepEqual(read.map((block) => `${block.start}-${block.end}`).sort(), expected.sort(), `round ${round}: [${new Date(from).toISOString()}, ${new Date(to).toISOString()})`);
    }
    assert.deepEqual(await storedDays(db, other.id), otherDays, "the other calendar's dates are untouched");
  });

  test("a deselected calendar's dates are not read; a removed calendar's dates go with it", async () => {
    await replaceBusyTimes(db, other, null, [{ objectKey: '', start: BASE + 10 * DAY, end: BASE + 10 * DAY + 60 * MINUTE, uid: null }]);
    const query = { userIds: [userId], from: BASE + 10 * DAY, to: BASE + 11 * DAY, now: BASE };
    const starts = async () => (await listBusyBlocks(db, query)).get(userId)!.plain.map(([start]) => start);
    assert.deepEqual(await starts(), [BASE + 10 * DAY]);
    // Touching is not overlapping: a range that starts as the event ends, or ends as it starts.
    const touching = async (from: number, to: number) => (await listBusyBlocks(db, { ...query, from, to })).get(userId)!.plain;
    assert.deepEqual(await touching(BASE + 10 * DAY + 60 * MINUTE, BASE + 11 * DAY), []);
    assert.deepEqual(await touching(BASE + 9 * DAY, BASE + 10 * DAY), []);
    assert.equal((await touching(BASE + 10 * DAY + 59 * MINUTE, BASE + 11 * DAY)).length, 1);
    assert.equal((await touching(BASE + 9 * DAY, BASE + 10 * DAY + MINUTE)).length, 1);
    await setSourceSelected(db, other.id, false, new Date(BASE));
    assert.deepEqual(await starts(), []);
    await setSourceSelected(db, other.id, true, new Date(BASE));
    assert.deepEqual(await starts(), [BASE + 10 * DAY]);
    await db.execute(sql`delete from calendar_sources where id = ${other.id}`);
    const left = (await db.execute(sql`select count(*)::int as n from calendar_busy_days where source_id = ${other.id}`)) as unknown as Rows<{ n: number }>;
    assert.equal(left.rows[0]!.n, 0);
  });
});
