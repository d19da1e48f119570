// The CalDAV adapter against a real CalDAV server (Radicale): discovery, writing and deleting events
// with ETags, the failures it maps (wrong password, refused access, missing calendar, the
// private-address guard), and, against a small HTTP server, the statuses Radicale does not give.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { CalendarProviderError, type CalendarFailureKind } from '../../src/integrations/calendar-types.js';
import { deleteEvent, discoverCalendars, eventResourceName, fetchWindow, ICLOUD_CALDAV_URL, putEvent, syncCalendar } from '../../src/integrations/caldav/index.js';
import { freePort } from '../support/child-server.js';
import { eventIcs, RADICALE_SKIP, type RadicaleServer, startRadicale, writeCalendarFiles } from '../support/radicale.js';

if (RADICALE_SKIP) console.log(`# ${RADICALE_SKIP}`);

const policy = { allowPrivate: true, timeoutMs: 10_000, maxResponseBytes: 5_000_000 };
const PASSWORDS = { alice: 'alice-Pa55word', bob: 'bob-Pa55word', carol: 'carol-Pa55word' };

/** Rejects with a CalendarProviderError of `kind` whose message holds none of the passwords. */
async function rejectsWith(promise: Promise<unknown>, kind: CalendarFailureKind, extra: string[] = []): Promise<CalendarProviderError> {
  const error = await promise.then(
    () => assert.fail(`expected a ${kind} failure`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof CalendarProviderError, `not a CalendarProviderError: ${String(error)}`);
  assert.equal(error.kind, kind, error.message);
  for (const secret of [...Object.values(PASSWORDS), ...extra]) assert.ok(!error.message.includes(secret), `the message shows a password: ${error.message}`);
  return error;
}

test('the iCloud server constant', () => {
  assert.equal(ICLOUD_CALDAV_URL, 'https://caldav.icloud.com');
});

test('resource names: URL-safe UIDs as they are, any other by its SHA-256', () => {
  assert.equal(eventResourceName('7c6b5a49-3827-4165-a4b3-c2d1e0f9a8b7'), '7c6b5a49-3827-4165-a4b3-c2d1e0f9a8b7.ics');
  assert.match(eventResourceName('a/b@example.com'), /^[0-9a-f]{64}\.ics$/);
  assert.match(eventResourceName('../x'), /^[0-9a-f]{64}\.ics$/);
  assert.notEqual(eventResourceName('a/b'), eventResourceName('a_b'));
});

describe('CalDAV adapter against Radicale', { skip: RADICALE_SKIP }, () => {
  let radicale: RadicaleServer;

  before(async () => {
    radicale = await startRadicale({ users: PASSWORDS });
    await radicale.createCalendar('alice', 'work', { name: 'Work', timeZone: 'Europe/Berlin' });
    await radicale.createCalendar('alice', 'personal', { name: 'Personal & Family' });
    // A task list: no VEVENTs, so not a calendar svc reads.
    await radicale.createCalendar('alice', 'tasks', { name: 'Tasks', components: ['VTODO'] });
    await radicale.createCalendar('bob', 'main', { name: 'Bob' });
    await radicale.createCalendar('carol', 'main', { name: 'Carol' });
    // Carol may read but not write her "ro-" calendars (the rights file of test/support/radicale.ts).
    writeCalendarFiles(radicale.storageDir, 'carol', 'ro-holidays', { name: 'Holidays', timeZone: 'America/New_York' }, [
      { name: 'h1.ics', ics: eventIcs('h1', new Date('2026-12-25T00:00:00Z'), new Date('2026-12-26T00:00:00Z'), 'Holiday') },
    ]);
  });
  after(async () => radicale?.stop());

  test('discovery: principal, calendar-home-set, the event calendars with names, zone, one primary', async () => {
    const found = await discoverCalendars(radicale.credentials('alice'), policy);
    assert.equal(found.principalUrl, `${radicale.baseUrl}alice/`);
    assert.equal(found.homeUrl, `${radicale.baseUrl}alice/`);
    const byName = [...found.calendars].sort((a, b) => a.name.localeCompare(b.name));
    assert.deepEqual(
      byName.map(({ primary: _primary, ...rest }) => rest),
      [
        { externalId: `${radicale.baseUrl}alice/personal/`, name: 'Personal & Family', readOnly: false, timeZone: null },
        { externalId: `${radicale.baseUrl}alice/work/`, name: 'Work', readOnly: false, timeZone: 'Europe/Berlin' },
      ],
    );
    // Radicale names no default calendar: the first listed is primary.
    assert.deepEqual(
      found.calendars.map((calendar) => calendar.primary),
      [true, false],
    );
  });

  test('discovery: a calendar the user may only read is readOnly', async () => {
    const found = await discoverCalendars(radicale.credentials('carol'), policy);
    const byName = Object.fromEntries(found.calendars.map((calendar) => [calendar.name, calendar]));
    assert.deepEqual(Object.keys(byName).sort(), ['Carol', 'Holidays']);
    assert.equal(byName.Holidays!.readOnly, true);
    assert.equal(byName.Holidays!.timeZone, 'America/New_York');
    assert.equal(byName.Carol!.readOnly, false);
  });

  test('a wrong password is unauthorized, for every call, and no message shows it', async () => {
    const wrong = { ...radicale.credentials('alice'), password: 'Wr0ng-Secret' };
    const calendar = radicale.calendarUrl('alice', 'work');
    await rejectsWith(discoverCalendars(wrong, policy), 'unauthorized', ['Wr0ng-Secret']);
    await rejectsWith(syncCalendar(wrong, calendar, { syncToken: null, ctag: null }, policy), 'unauthorized', ['Wr0ng-Secret']);
    await rejectsWith(syncCalendar(wrong, calendar, { syncToken: 'http://radicale.org/ns/sync/x', ctag: null }, policy), 'unauthorized', ['Wr0ng-Secret']);
    await rejectsWith(fetchWindow(wrong, calendar, 0, 1, policy), 'unauthorized', ['Wr0ng-Secret']);
    await rejectsWith(putEvent(wrong, calendar, { uid: 'x', ics: eventIcs('x', new Date(0), new Date(1000)) }, policy), 'unauthorized', ['Wr0ng-Secret']);
    await rejectsWith(deleteEvent(wrong, `${calendar}x.ics`, null, policy), 'unauthorized', ['Wr0ng-Secret']);
  });

  test("another user's calendar is refused (403): unauthorized", async () => {
    await rejectsWith(syncCalendar(radicale.credentials('alice'), radicale.calendarUrl('bob', 'main'), { syncToken: null, ctag: null }, policy), 'unauthorized');
  });

  test('a missing calendar is not_found, for reads and writes', async () => {
    const creds = radicale.credentials('alice');
    const missing = radicale.calendarUrl('alice', 'gone');
    await rejectsWith(fetchWindow(creds, missing, 0, 1000, policy), 'not_found');
    await rejectsWith(putEvent(creds, missing, { uid: 'x', ics: eventIcs('x', new Date(0), new Date(1000)) }, policy), 'not_found');
  });

  test('putEvent creates; a stale etag is a conflict; the right one updates; deleteEvent removes, twice is fine', async () => {
    const creds = radicale.credentials('alice');
    const calendar = radicale.calendarUrl('alice', 'work');
    const uid = '3f2e1d0c-9b8a-4766-8554-433221100fed';
    const first = eventIcs(uid, new Date('2026-04-01T10:00:00Z'), new Date('2026-04-01T11:00:00Z'), 'Booking');
    const created = await putEvent(creds, calendar, { uid, ics: first }, policy);
    assert.equal(created.href, `${calendar}${uid}.ics`);
    assert.match(created.etag ?? '', /^".+"$/);
    const listed = await fetchWindow(creds, calendar, Date.parse('2026-04-01T00:00:00Z'), Date.parse('2026-04-02T00:00:00Z'), policy);
    assert.deepEqual(
      listed.map((object) => [object.href, object.etag]),
      [[created.href, created.etag]],
    );

    // Creating again (If-None-Match: *) finds it there.
    await rejectsWith(putEvent(creds, calendar, { uid, ics: first }, policy), 'conflict');

    const second = eventIcs(uid, new Date('2026-04-01T12:00:00Z'), new Date('2026-04-01T13:00:00Z'), 'Booking (moved)');
    const updated = await putEvent(creds, calendar, { uid, ics: second, etag: created.etag }, policy);
    assert.equal(updated.href, created.href);
    assert.notEqual(updated.etag, created.etag);

    // The user edits it in their own app meanwhile: svc's etag is stale.
    const theirs = await radicale.putRaw('alice', created.href, eventIcs(uid, new Date('2026-04-01T14:00:00Z'), new Date('2026-04-01T15:00:00Z'), 'Edited by the user'));
    await rejectsWith(putEvent(creds, calendar, { uid, ics: second, etag: updated.etag }, policy), 'conflict');
    await rejectsWith(deleteEvent(creds, created.href, updated.etag, policy), 'conflict');
    const [reread] = await fetchWindow(creds, calendar, Date.parse('2026-04-01T00:00:00Z'), Date.parse('2026-04-02T00:00:00Z'), policy);
    assert.equal(reread!.etag, theirs);
    const retried = await putEvent(creds, calendar, { uid, ics: second, etag: reread!.etag }, policy);
    assert.match(retried.etag ?? '', /^".+"$/);

    await deleteEvent(creds, created.href, retried.etag, policy);
    assert.deepEqual(await fetchWindow(creds, calendar, Date.parse('2026-04-01T00:00:00Z'), Date.parse('2026-04-02T00:00:00Z'), policy), []);
    await deleteEvent(creds, created.href, retried.etag, policy);
    await deleteEvent(creds, created.href, null, policy);
  });

  test('a UID that is not URL-safe is written under its hash, and read back by it', async () => {
    const creds = radicale.credentials('alice');
    const calendar = radicale.calendarUrl('alice', 'personal');
    const uid = 'odd/uid with spaces@example.com';
    const written = await putEvent(creds, calendar, { uid, ics: eventIcs(uid, new Date('2026-05-01T10:00:00Z'), new Date('2026-05-01T11:00:00Z')) }, policy);
    assert.equal(written.href, `${calendar}${eventResourceName(uid)}`);
    const synced = await syncCalendar(creds, calendar, { syncToken: null, ctag: null }, policy);
    assert.deepEqual(
      synced.upserted.map((object) => [object.href, object.etag]),
      [[written.href, written.etag]],
    );
    // Another resource holding the same UID is a conflict, not a second copy.
    const again = await putEvent(creds, calendar, { uid: 'other-name', ics: eventIcs(uid, new Date('2026-05-01T10:00:00Z'), new Date('2026-05-01T11:00:00Z')) }, policy).catch((error: unknown) => error);
    assert.ok(again instanceof CalendarProviderError && again.kind === 'conflict', String(again));
    await deleteEvent(creds, written.href, written.etag, policy);
  });

  test('writing into a calendar the user may only read: Radicale answers a bare 403, which is unauthorized', async () => {
    // Callers write only into calendars discovery did not mark readOnly; a bare 403 cannot be told
    // from credentials the server stopped accepting.
    await rejectsWith(putEvent(radicale.credentials('carol'), radicale.calendarUrl('carol', 'ro-holidays'), { uid: 'x', ics: eventIcs('x', new Date(0), new Date(1000)) }, policy), 'unauthorized');
  });

  test('a 403 that names a precondition is not a credentials problem: invalid_data', async () => {
    // The principal's collection is no calendar: Radicale refuses sync-collection there with DAV:supported-report.
    const error = await rejectsWith(syncCalendar(radicale.credentials('alice'), `${radicale.baseUrl}alice/`, { syncToken: 'http://radicale.org/ns/sync/x', ctag: null }, policy), 'invalid_data');
    assert.match(error.message, /supported-report/);
  });

  test("the private-address guard: with allowPrivate false, Radicale on 127.0.0.1 is refused ('refused_address')", async () => {
    const guarded = { ...policy, allowPrivate: false };
    const creds = radicale.credentials('alice');
    const calendar = radicale.calendarUrl('alice', 'work');
    await rejectsWith(discoverCalendars(creds, guarded), 'refused_address');
    await rejectsWith(syncCalendar(creds, calendar, { syncToken: null, ctag: null }, guarded), 'refused_address');
    await rejectsWith(fetchWindow(creds, calendar, 0, 1000, guarded), 'refused_address');
    await rejectsWith(putEvent(creds, calendar, { uid: 'x', ics: 'x' }, guarded), 'refused_address');
    await rejectsWith(deleteEvent(creds, `${calendar}x.ics`, null, guarded), 'refused_address');
    await rejectsWith(discoverCalendars({ ...creds, serverUrl: radicale.baseUrl.replace('127.0.0.1', 'localhost') }, guarded), 'refused_address');
  });
});

describe('CalDAV failures Radicale does not give', () => {
  let server: http.Server;
  let base: string;
  const creds = () => ({ serverUrl: base, username: 'u', password: 'Serv3r-Secret' });

  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      const route = req.url ?? '';
      if (route.startsWith('/slow-down/')) return void res.writeHead(429, { 'retry-after': '7' }).end();
      if (route.startsWith('/maintenance/')) return void res.writeHead(503, { 'retry-after': 'Wed, 01 Jan 2020 00:00:00 GMT' }).end();
      if (route.startsWith('/down/')) return void res.writeHead(503).end();
      if (route.startsWith('/broken/')) return void res.writeHead(500).end('Serv3r-Secret');
      if (route.startsWith('/garbage/')) return void res.writeHead(207, { 'content-type': 'application/xml' }).end('<multistatus><response><href>');
      if (route.startsWith('/not-xml/')) return void res.writeHead(207, { 'content-type': 'text/html' }).end('<html>hello</html>');
      if (route.startsWith('/gone/')) return void res.writeHead(410).end();
      if (route.startsWith('/silent/')) return; // never answers
      // A server that stores a PUT without answering its ETag; it tells on PROPFIND (or, under /quiet-etag/, does not).
      if (route.startsWith('/no-etag/') || route.startsWith('/quiet-etag/')) {
        if (req.method === 'PUT') return void res.writeHead(201).end();
        if (req.method === 'PROPFIND' && route.startsWith('/no-etag/')) {
          return void res
            .writeHead(207, { 'content-type': 'application/xml' })
            .end(`<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>${route}</d:href><d:propstat><d:prop><d:getetag>"v9"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>`);
        }
        return void res.writeHead(404).end();
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const sync = (path: string, extra = {}) => syncCalendar(creds(), `${base}${path}/cal/`, { syncToken: null, ctag: null }, { ...policy, ...extra });

  test('429 and 503 with Retry-After are rate_limited with the wait; 503 alone and 5xx are unreachable', async () => {
    assert.equal((await rejectsWith(sync('slow-down'), 'rate_limited')).retryAfterMs, 7000);
    assert.equal((await rejectsWith(sync('maintenance'), 'rate_limited')).retryAfterMs, 0);
    await rejectsWith(sync('down'), 'unreachable');
    await rejectsWith(sync('broken'), 'unreachable', ['Serv3r-Secret']);
  });

  test('XML that cannot be read, and an answer that is not XML, are invalid_data; 410 is not_found', async () => {
    await rejectsWith(sync('garbage'), 'invalid_data');
    await rejectsWith(sync('not-xml'), 'invalid_data');
    await rejectsWith(sync('gone'), 'not_found');
  });

  test('a timeout, a refused connection and an oversized answer', async () => {
    await rejectsWith(sync('silent', { timeoutMs: 300 }), 'unreachable');
    const closed = await freePort();
    await rejectsWith(syncCalendar(creds(), `http://127.0.0.1:${closed}/cal/`, { syncToken: null, ctag: null }, policy), 'unreachable');
    await rejectsWith(sync('not-xml', { maxResponseBytes: 5 }), 'invalid_data');
  });

  test('a PUT answered without an ETag: the ETag is asked for, or null when the server will not say', async () => {
    const ics = eventIcs('e', new Date(0), new Date(1000));
    assert.deepEqual(await putEvent(creds(), `${base}no-etag/cal/`, { uid: 'e', ics }, policy), { href: `${base}no-etag/cal/e.ics`, etag: '"v9"' });
    assert.deepEqual(await putEvent(creds(), `${base}quiet-etag/cal/`, { uid: 'e', ics }, policy), { href: `${base}quiet-etag/cal/e.ics`, etag: null });
  });

  test('credentials written into the server URL are dropped from it, and not shown', async () => {
    const error = await rejectsWith(syncCalendar(creds(), base.replace('http://', 'http://u:Serv3r-Secret@') + 'down/cal/', { syncToken: null, ctag: null }, policy), 'unreachable', ['Serv3r-Secret']);
    assert.match(error.message, /HTTP 503/);
  });
});
