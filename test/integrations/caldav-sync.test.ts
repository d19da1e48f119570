// syncCalendar and fetchWindow against a real CalDAV server (Radicale): the first sync, incremental
// sync-collection after the user's own changes, an unknown token, an unchanged calendar in one request,
// the getctag fallback of servers without sync-collection, and time-range queries with recurrences.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type CalDavSyncResult, fetchWindow, syncCalendar } from '../../src/integrations/caldav/index.js';
import { eventIcs, RADICALE_SKIP, type RadicaleServer, startRadicale } from '../support/radicale.js';

if (RADICALE_SKIP) console.log(`# ${RADICALE_SKIP}`);

const policy = { allowPrivate: true, timeoutMs: 10_000, maxResponseBytes: 5_000_000 };
const at = (iso: string) => new Date(iso);
const uids = (result: CalDavSyncResult) => result.upserted.map((object) => /UID:(.+)/.exec(object.data)?.[1]?.trim()).sort();

/**
 * A proxy in front of Radicale that counts requests and, with `hideSync`, plays a server without
 * sync-collection: no sync-token, no sync-collection in supported-report-set, the report refused.
 */
async function proxy(target: string, hideSync: boolean) {
  const seen: string[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    seen.push(`${req.method} ${/<(?:\w+:)?(sync-collection|calendar-multiget|calendar-query|propfind)\b/.exec(body)?.[1] ?? ''}`.trim());
    if (hideSync && req.method === 'REPORT' && body.includes('sync-collection')) {
      return void res.writeHead(403, { 'content-type': 'application/xml' }).end('<?xml version="1.0"?><error xmlns="DAV:"><supported-report/></error>');
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
    const answer = await fetch(new URL(req.url!, target), { method: req.method, headers, body: body || undefined });
    let text = await answer.text();
    if (hideSync && req.method === 'PROPFIND') {
      text = text.replace(/<supported-report><report><sync-collection \/><\/report><\/supported-report>/g, '').replace(/<sync-token>[^<]*<\/sync-token>|<sync-token \/>/g, '');
    }
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'transfer-encoding', 'connection'].includes(name)) out[name] = value;
    });
    res.writeHead(answer.status, out).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    rebase: (url: string) => url.replace(target, base),
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('CalDAV sync against Radicale', { skip: RADICALE_SKIP }, () => {
  let radicale: RadicaleServer;
  let calendar: string;
  let creds: ReturnType<RadicaleServer['credentials']>;
  const href = (uid: string) => `${calendar}${uid}.ics`;

  before(async () => {
    radicale = await startRadicale({ users: { alice: 'alice-Pa55word' } });
    creds = radicale.credentials('alice');
    calendar = await radicale.createCalendar('alice', 'work', { name: 'Work' });
    for (let i = 1; i <= 5; i++) {
      await radicale.putRaw('alice', href(`e${i}`), eventIcs(`e${i}`, at(`2026-03-0${i}T10:00:00Z`), at(`2026-03-0${i}T11:00:00Z`)));
    }
  });
  after(async () => radicale?.stop());

  let first: CalDavSyncResult;

  test('the first sync returns every event, with a sync token', async () => {
    first = await syncCalendar(creds, calendar, { syncToken: null, ctag: null }, policy);
    assert.equal(first.full, true);
    assert.deepEqual(uids(first), ['e1', 'e2', 'e3', 'e4', 'e5']);
    assert.deepEqual(first.removed, []);
    assert.match(first.state.syncToken ?? '', /^http:\/\/radicale\.org\/ns\/sync\/[0-9a-f]{64}$/);
    assert.ok(first.state.ctag);
    for (const object of first.upserted) {
      assert.equal(object.href, href(/UID:(\S+)/.exec(object.data)![1]!));
      assert.match(object.etag ?? '', /^".+"$/);
      assert.match(object.data, /^BEGIN:VCALENDAR/);
    }
  });

  test('an unchanged calendar: nothing, in one request', async () => {
    const counting = await proxy(radicale.baseUrl, false);
    try {
      const again = await syncCalendar(creds, counting.rebase(calendar), first.state, policy);
      assert.deepEqual({ full: again.full, upserted: again.upserted, removed: again.removed }, { full: false, upserted: [], removed: [] });
      assert.equal(again.state.syncToken, first.state.syncToken);
      assert.deepEqual(counting.seen, ['REPORT sync-collection']);
    } finally {
      await counting.close();
    }
  });

  let incremental: CalDavSyncResult;

  test("after the user's own changes (one new, one changed, one deleted) the incremental sync returns exactly those", async () => {
    await radicale.putRaw('alice', href('e6'), eventIcs('e6', at('2026-03-06T10:00:00Z'), at('2026-03-06T11:00:00Z')));
    await radicale.putRaw('alice', href('e2'), eventIcs('e2', at('2026-03-02T12:00:00Z'), at('2026-03-02T13:00:00Z'), 'Moved'));
    await radicale.deleteRaw('alice', href('e3'));
    incremental = await syncCalendar(creds, calendar, first.state, policy);
    assert.equal(incremental.full, false);
    assert.deepEqual(uids(incremental), ['e2', 'e6']);
    assert.match(incremental.upserted.find((object) => object.href === href('e2'))!.data, /SUMMARY:Moved/);
    assert.notEqual(incremental.upserted.find((object) => object.href === href('e2'))!.etag, first.upserted.find((object) => object.href === href('e2'))!.etag);
    assert.deepEqual(incremental.removed, [href('e3')]);
    assert.notEqual(incremental.state.syncToken, first.state.syncToken);

    const quiet = await syncCalendar(creds, calendar, incremental.state, policy);
    assert.deepEqual({ full: quiet.full, upserted: quiet.upserted, removed: quiet.removed }, { full: false, upserted: [], removed: [] });
  });

  test('a token the server does not know means a full resync with everything', async () => {
    for (const syncToken of [`http://radicale.org/ns/sync/${'0'.repeat(64)}`, 'not-a-token-of-this-server']) {
      const result = await syncCalendar(creds, calendar, { syncToken, ctag: null }, policy);
      assert.equal(result.full, true);
      assert.deepEqual(uids(result), ['e1', 'e2', 'e4', 'e5', 'e6']);
      assert.deepEqual(result.removed, []);
      assert.equal(result.state.syncToken, incremental.state.syncToken);
    }
  });

  test('a server without sync-collection: getctag compared, one request when unchanged, a full listing when changed', async () => {
    const plain = await proxy(radicale.baseUrl, true);
    try {
      const url = plain.rebase(calendar);
      const full = await syncCalendar(creds, url, { syncToken: null, ctag: null }, policy);
      assert.equal(full.full, true);
      assert.equal(full.state.syncToken, null);
      assert.ok(full.state.ctag);
      assert.deepEqual(uids(full), ['e1', 'e2', 'e4', 'e5', 'e6']);
      assert.ok(full.upserted.every((object) => object.href.startsWith(url)));
      assert.deepEqual(plain.seen, ['PROPFIND propfind', 'REPORT calendar-query', 'REPORT calendar-multiget']);

      plain.seen.length = 0;
      const same = await syncCalendar(creds, url, full.state, policy);
      assert.deepEqual({ full: same.full, upserted: same.upserted, removed: same.removed, state: same.state }, { full: false, upserted: [], removed: [], state: full.state });
      assert.deepEqual(plain.seen, ['PROPFIND propfind']);

      await radicale.deleteRaw('alice', href('e6'));
      const changed = await syncCalendar(creds, url, full.state, policy);
      assert.equal(changed.full, true);
      assert.deepEqual(uids(changed), ['e1', 'e2', 'e4', 'e5']);
      assert.notEqual(changed.state.ctag, full.state.ctag);
    } finally {
      await plain.close();
    }
  });

  test('answers over the size cap: multiget batches are halved until they fit; one event over it alone is invalid_data', async () => {
    const big = await radicale.createCalendar('alice', 'big-events', { name: 'Big events' });
    const description = `DESCRIPTION:${'Long agenda. '.repeat(250)}`;
    for (let i = 1; i <= 4; i++) {
      await radicale.putRaw('alice', `${big}b${i}.ics`, eventIcs(`b${i}`, at(`2026-04-0${i}T10:00:00Z`), at(`2026-04-0${i}T11:00:00Z`), 'Big', [description]));
    }
    // One event's answer is about 3.5 KB, so 5 KB holds one at a time.
    const result = await syncCalendar(creds, big, { syncToken: null, ctag: null }, { ...policy, maxResponseBytes: 5_000 });
    assert.deepEqual(uids(result), ['b1', 'b2', 'b3', 'b4']);
    await assert.rejects(syncCalendar(creds, big, { syncToken: null, ctag: null }, { ...policy, maxResponseBytes: 2_500 }), { name: 'CalendarProviderError', kind: 'invalid_data' });
  });

  test('a calendar that does not exist is not_found', async () => {
    await assert.rejects(syncCalendar(creds, radicale.calendarUrl('alice', 'nope'), { syncToken: null, ctag: null }, policy), { name: 'CalendarProviderError', kind: 'not_found' });
  });
});

describe('fetchWindow against Radicale', { skip: RADICALE_SKIP }, () => {
  let radicale: RadicaleServer;
  let calendar: string;
  let creds: ReturnType<RadicaleServer['credentials']>;

  before(async () => {
    radicale = await startRadicale({ users: { alice: 'alice-Pa55word' } });
    creds = radicale.credentials('alice');
    calendar = await radicale.createCalendar('alice', 'window', { name: 'Window' });
    const put = (uid: string, ics: string) => radicale.putRaw('alice', `${calendar}${uid}.ics`, ics);
    await put('inside', eventIcs('inside', at('2026-03-02T10:00:00Z'), at('2026-03-02T11:00:00Z')));
    await put('later', eventIcs('later', at('2026-03-05T10:00:00Z'), at('2026-03-05T11:00:00Z')));
    await put('ends-at-from', eventIcs('ends-at-from', at('2026-03-01T23:00:00Z'), at('2026-03-02T00:00:00Z')));
    await put('overlaps-start', eventIcs('overlaps-start', at('2026-03-01T23:30:00Z'), at('2026-03-02T00:30:00Z')));
    // Mondays from 2 February: the fifth occurrence is Monday 2 March, inside the window.
    await put('weekly-monday', eventIcs('weekly-monday', at('2026-02-02T09:00:00Z'), at('2026-02-02T09:30:00Z'), 'Standup', ['RRULE:FREQ=WEEKLY;COUNT=10']));
    // Tuesdays: no occurrence on 2 March.
    await put('weekly-tuesday', eventIcs('weekly-tuesday', at('2026-02-03T09:00:00Z'), at('2026-02-03T09:30:00Z'), 'Review', ['RRULE:FREQ=WEEKLY;COUNT=10']));
    // Mondays, but the 2 March occurrence is excluded.
    await put('weekly-excluded', eventIcs('weekly-excluded', at('2026-02-02T14:00:00Z'), at('2026-02-02T15:00:00Z'), 'Gym', ['RRULE:FREQ=WEEKLY;COUNT=10', 'EXDATE:20260302T140000Z']));
    // Ended before the window.
    await put('weekly-over', eventIcs('weekly-over', at('2026-02-02T16:00:00Z'), at('2026-02-02T17:00:00Z'), 'Course', ['RRULE:FREQ=WEEKLY;COUNT=3']));
  });
  after(async () => radicale?.stop());

  test('returns only the events overlapping [from, to), recurring ones by their occurrences', async () => {
    const objects = await fetchWindow(creds, calendar, Date.parse('2026-03-02T00:00:00Z'), Date.parse('2026-03-03T00:00:00Z'), policy);
    const found = objects.map((object) => /UID:(\S+)/.exec(object.data)![1]).sort();
    assert.deepEqual(found, ['inside', 'overlaps-start', 'weekly-monday']);
    for (const object of objects) {
      assert.ok(object.href.startsWith(calendar));
      assert.match(object.etag ?? '', /^".+"$/);
    }
  });

  test('a window with nothing in it is empty; from >= to is a RangeError', async () => {
    assert.deepEqual(await fetchWindow(creds, calendar, Date.parse('2027-01-01T00:00:00Z'), Date.parse('2027-01-02T00:00:00Z'), policy), []);
    await assert.rejects(fetchWindow(creds, calendar, 10, 10, policy), RangeError);
  });
});
