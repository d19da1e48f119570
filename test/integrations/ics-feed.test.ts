import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { CalendarProviderError, type CalendarFailureKind } from '../../src/integrations/calendar-types.js';
import { fetchIcsFeed, normalizeFeedUrl } from '../../src/integrations/ics/fetch-feed.js';

const FEED = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//svc tests//EN\r\nEND:VCALENDAR\r\n';
const LAST_MODIFIED = 'Tue, 10 Mar 2026 09:00:00 GMT';
const RETRY_AT = 'Wed, 21 Oct 2099 07:28:00 GMT';

let server: http.Server;
let base: string;
const seen: { path: string; ifNoneMatch?: string; ifModifiedSince?: string }[] = [];
let tlsAttempts = 0;

before(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '';
    seen.push({ path, ifNoneMatch: req.headers['if-none-match'], ifModifiedSince: req.headers['if-modified-since'] });
    if (path === '/etag') {
      if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304, { etag: '"v1"' }).end();
      return void res.writeHead(200, { 'content-type': 'text/calendar', etag: '"v1"' }).end(FEED);
    }
    if (path === '/last-modified') {
      if (req.headers['if-modified-since'] === LAST_MODIFIED) return void res.writeHead(304).end();
      return void res.writeHead(200, { 'content-type': 'text/calendar', 'last-modified': LAST_MODIFIED }).end(`\uFEFF${FEED}`);
    }
    if (path === '/html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Please sign in</body></html>');
    if (path === '/big') return void res.writeHead(200, { 'content-type': 'text/calendar' }).end(FEED + 'X'.repeat(20_000));
    if (path === '/429') return void res.writeHead(429, { 'retry-after': '120' }).end();
    if (path === '/503-date') return void res.writeHead(503, { 'retry-after': RETRY_AT }).end();
    if (path === '/503') return void res.writeHead(503).end();
    const status = Number(path.slice(1));
    res.writeHead(Number.isInteger(status) && status >= 400 ? status : 404).end();
  });
  // An https request to this plain-http server fails its handshake here: how a webcal fetch is seen.
  server.on('clientError', (_error, socket) => {
    tlsAttempts += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const policy = { allowPrivate: true, timeoutMs: 3_000, maxResponseBytes: 10_000 };
const none = { etag: null, lastModified: null };
const failsWith = (kind: CalendarFailureKind, retryAfterMs?: (ms: number | undefined) => boolean) => (error: unknown) =>
  error instanceof CalendarProviderError && error.kind === kind && (retryAfterMs ? retryAfterMs(error.retryAfterMs) : true);

describe('fetchIcsFeed', () => {
  test('a feed with an ETag: the first fetch reads it, the second sends the ETag and is told it is unchanged', async () => {
    const first = await fetchIcsFeed(`${base}/etag`, none, policy);
    assert.deepEqual(first, { kind: 'changed', text: FEED, etag: '"v1"', lastModified: null });
    const second = await fetchIcsFeed(`${base}/etag`, { etag: '"v1"', lastModified: null }, policy);
    assert.deepEqual(second, { kind: 'unchanged' });
    assert.equal(seen.filter((request) => request.path === '/etag').at(-1)?.ifNoneMatch, '"v1"');
  });

  test('a feed with Last-Modified: If-Modified-Since gets 304', async () => {
    const first = await fetchIcsFeed(`${base}/last-modified`, none, policy);
    assert.equal(first.kind, 'changed');
    assert.equal(first.kind === 'changed' && first.lastModified, LAST_MODIFIED);
    assert.equal(first.kind === 'changed' && first.etag, null);
    assert.deepEqual(await fetchIcsFeed(`${base}/last-modified`, { etag: null, lastModified: LAST_MODIFIED }, policy), { kind: 'unchanged' });
  });

  test('401 and 403 are unauthorized; 404 and 410 not_found; other statuses unreachable', async () => {
    await assert.rejects(fetchIcsFeed(`${base}/401`, none, policy), failsWith('unauthorized'));
    await assert.rejects(fetchIcsFeed(`${base}/403`, none, policy), failsWith('unauthorized'));
    await assert.rejects(fetchIcsFeed(`${base}/404`, none, policy), failsWith('not_found'));
    await assert.rejects(fetchIcsFeed(`${base}/410`, none, policy), failsWith('not_found'));
    await assert.rejects(fetchIcsFeed(`${base}/400`, none, policy), failsWith('unreachable'));
    await assert.rejects(fetchIcsFeed(`${base}/500`, none, policy), failsWith('unreachable'));
    await assert.rejects(fetchIcsFeed(`${base}/503`, none, policy), failsWith('unreachable'));
  });

  test('429 and 503 with Retry-After are rate_limited for that long, in seconds or as a date', async () => {
    await assert.rejects(fetchIcsFeed(`${base}/429`, none, policy), failsWith('rate_limited', (ms) => ms === 120_000));
    const untilDate = Date.parse(RETRY_AT) - Date.now();
    await assert.rejects(fetchIcsFeed(`${base}/503-date`, none, policy), failsWith('rate_limited', (ms) => ms !== undefined && Math.abs(ms - untilDate) < 60_000));
  });

  test('a 200 that is not iCalendar, or is larger than allowed, is invalid_data', async () => {
    await assert.rejects(fetchIcsFeed(`${base}/html`, none, policy), failsWith('invalid_data'));
    await assert.rejects(fetchIcsFeed(`${base}/big`, none, policy), failsWith('invalid_data'));
  });

  test('a loopback feed is refused unless private targets are allowed, and the error keeps the path out', async () => {
    await assert.rejects(fetchIcsFeed(`${base}/etag?token=secret`, none, { ...policy, allowPrivate: false }), (error: unknown) => {
      assert.ok(failsWith('refused_address')(error));
      assert.ok(!(error as Error).message.includes('secret'));
      return true;
    });
  });

  test('a webcal:// feed is fetched over https', async () => {
    const before = tlsAttempts;
    await assert.rejects(fetchIcsFeed(base.replace('http://', 'webcal://') + '/etag', none, policy), failsWith('unreachable'));
    assert.equal(tlsAttempts, before + 1);
  });
});

describe('normalizeFeedUrl', () => {
  test('webcal and webcals become https; http and https are kept', () => {
    assert.equal(normalizeFeedUrl('webcal://p01-caldav.icloud.com/published/2/abc'), 'https://p01-caldav.icloud.com/published/2/abc');
    assert.equal(normalizeFeedUrl(' WEBCALS://calendar.example.com/a.ics '), 'https://calendar.example.com/a.ics');
    assert.equal(normalizeFeedUrl('http://calendar.example.com/a.ics'), 'http://calendar.example.com/a.ics');
    assert.equal(normalizeFeedUrl('https://calendar.google.com/calendar/ical/x/basic.ics'), 'https://calendar.google.com/calendar/ical/x/basic.ics');
  });
});
