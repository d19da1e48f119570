// ICS feeds end to end: a feed served over HTTP on loopback, saved through the API, synced into the
// store, and seen by GET /v2/slots (without any call to the feed on that path) and POST /v2/bookings.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { CALENDAR_READERS } from '../../src/modules/calendars/calendar-providers.js';
import { syncCalendarSource } from '../../src/modules/calendars/calendar-sync.js';
import { eventually } from '../support/eventually.js';
import { createTeamWithEventType } from '../support/team-scheduling.js';
import { backend, createPeerApp, createTestApp, type TestApp } from '../support/test-app.js';
import { createEventType, createHost, getSlots, type Host, slotsOf, startsOf } from '../slots/helpers.js';

const SECRET = 'feed-token-7f3a9c';

/** Feeds by path; a test changes what a path answers. */
const feeds = new Map<string, { status: number; body: string; etag?: string }>();
let feedRequests: string[] = [];
let feedServer: http.Server;
let feedBase: string;

function calendar(events: string[], name = 'Work'): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//svc tests//EN', `X-WR-CALNAME:${name}`, ...events, 'END:VCALENDAR', ''].join('\r\n');
}

function event(uid: string, lines: string[]): string {
  return ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', ...lines, 'END:VEVENT'].join('\r\n');
}

function serveFeed(path: string, body: string, status = 200): string {
  feeds.set(path, { status, body, etag: `"${Buffer.from(body).length}-${feeds.size}"` });
  return `${feedBase}${path}?token=${SECRET}`;
}

before(async () => {
  feedServer = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    feedRequests.push(path);
    const feed = feeds.get(path);
    if (!feed) return void res.writeHead(404).end('no such feed');
    if (feed.etag && req.headers['if-none-match'] === feed.etag) return void res.writeHead(304).end();
    res.writeHead(feed.status, { 'content-type': 'text/calendar', ...(feed.etag && feed.status === 200 ? { etag: feed.etag } : {}) }).end(feed.body);
  });
  await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
  feedBase = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}`;
});
after(() => {
  feedServer.closeAllConnections();
  feedServer.close();
});

async function sourceIdsOf(api: TestApp, userId: number): Promise<number[]> {
  const result = await api.runtime.ctx.database.db.execute(sql`select id from calendar_sources where user_id = ${userId} order by id`);
  return (result as unknown as { rows: { id: number }[] }).rows.map((row) => row.id);
}

/** One sync of each of the user's calendars, as the sync job runs it. */
async function syncAll(api: TestApp, userId: number): Promise<string[]> {
  const { ctx } = api.runtime;
  const deps = { database: ctx.database, secrets: ctx.secrets, config: ctx.config, readers: CALENDAR_READERS, clock: ctx.clock, changes: ctx.changes };
  const outcomes: string[] = [];
  for (const id of await sourceIdsOf(api, userId)) outcomes.push(await syncCalendarSource(deps, id, Date.now()));
  return outcomes;
}

async function saveFeeds(api: TestApp, host: Host, urls: string[]) {
  return api.request('POST', '/v2/calendars/ics-feed/save', { key: host.apiKey, body: { urls } });
}

// 2027-01-11 is a Monday; London is on UTC then.
const MONDAY = '2027-01-11';
const at = (time: string) => `${MONDAY}T${time}:00.000Z`;

describe('ICS feeds', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('an outside event removes exactly the slots it overlaps, with the event type\'s buffers', async () => {
    const host = await createHost(api, 'Europe/London');
    const url = serveFeed('/buffers.ics', calendar([event('dentist-1', ['DTSTART:20270111T140000Z', 'DTEND:20270111T150000Z', 'SUMMARY:Dentist'])]));
    const saved = await saveFeeds(api, host, [url]);
    assert.equal(saved.status, 201, saved.text);
    assert.deepEqual(Object.keys(saved.body.data).sort(), ['appId', 'id', 'invalid', 'teamId', 'type', 'userId']);
    assert.equal(saved.body.data.type, 'ics-feed_calendar');
    assert.equal(saved.body.data.appId, 'ics-feed');
    assert.equal(saved.body.data.invalid, false);
    const eventType = await createEventType(api, host, { lengthInMinutes: 30, beforeEventBuffer: 15, afterEventBuffer: 15 });
    const starts = startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }));
    const expected = ['09:00', '09:30', '10:00', '10:30', '11:00', '11:30', '12:00', '12:30', '13:00', '15:30', '16:00', '16:30'].map(at);
    assert.deepEqual(starts, expected);
    // Without buffers the hour next to the event is free again: the buffers are what removed 13:30 and 15:00.
    const plain = await createEventType(api, host, { lengthInMinutes: 30 });
    const plainStarts = startsOf(await slotsOf(api, { eventTypeId: plain.id, start: MONDAY, end: MONDAY }));
    assert.ok(plainStarts.includes(at('13:30')) && plainStarts.includes(at('15:00')) && !plainStarts.includes(at('14:00')) && !plainStarts.includes(at('14:30')));
    // A booking into the outside event is refused: the booking path reads the same busy time.
    const booking = await api.request('POST', '/v2/bookings', {
      version: '2024-08-13',
      body: { eventTypeId: plain.id, start: at('14:00'), attendee: { name: 'Guest', email: 'guest@example.com', timeZone: 'Europe/London' } },
    });
    assert.equal(booking.status, 400, booking.text);
  });

  test('the feed is not called on the slot path, and a change in it shows after the next sync', async () => {
    const host = await createHost(api, 'Europe/London');
    const url = serveFeed('/changes.ics', calendar([event('standup', ['DTSTART:20270111T100000Z', 'DTEND:20270111T110000Z'])]));
    assert.equal((await saveFeeds(api, host, [url])).status, 201);
    const eventType = await createEventType(api, host, { lengthInMinutes: 60 });
    feedRequests = [];
    const before = startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }));
    assert.ok(!before.includes(at('10:00')));
    assert.deepEqual(feedRequests, [], 'GET /v2/slots called the feed');
    // The event is deleted in the calendar: the slot comes back once the feed is read again.
    serveFeed('/changes.ics', calendar([]));
    assert.ok(!startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY })).includes(at('10:00')), 'freed before any sync');
    assert.deepEqual(await syncAll(api, host.userId), ['synced']);
    assert.ok(startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY })).includes(at('10:00')));
    // Unchanged feed: a conditional request answered 304, nothing rewritten.
    assert.deepEqual(await syncAll(api, host.userId), ['unchanged']);
  });

  test('recurring events keep their local time across the DST change; an all-day event takes the whole local day', async () => {
    const host = await createHost(api, 'Europe/Berlin');
    const url = serveFeed(
      '/recurring.ics',
      calendar([
        // Every Friday 10:00-11:00 Berlin time, from before the change on 2027-03-28 to after it.
        event('weekly', ['DTSTART;TZID=Europe/Berlin:20270319T100000', 'DTEND;TZID=Europe/Berlin:20270319T110000', 'RRULE:FREQ=WEEKLY;COUNT=3']),
        event('holiday', ['DTSTART;VALUE=DATE:20270331', 'DTEND;VALUE=DATE:20270401']),
      ]),
    );
    assert.equal((await saveFeeds(api, host, [url])).status, 201);
    const eventType = await createEventType(api, host, { lengthInMinutes: 60 });
    const query = { eventTypeId: eventType.id, start: '2027-03-19', end: '2027-04-02', timeZone: 'Europe/Berlin' };
    const data = await slotsOf(api, query);
    for (const date of ['2027-03-19', '2027-03-26', '2027-04-02']) {
      const local = (data[date] ?? []).map((slot: { start: string }) => slot.start.slice(11, 16));
      assert.ok(local.includes('09:00') && local.includes('11:00'), `${date}: ${local}`);
      assert.ok(!local.includes('10:00'), `${date}: 10:00 Berlin is busy (${local})`);
    }
    assert.equal(data['2027-03-31'], undefined, 'the all-day event takes the whole day');
    assert.ok((data['2027-04-01'] ?? []).length > 0);
  });

  test('a feed that keeps failing makes its host unavailable and says so; round robin books the healthy host', async () => {
    const failing = await createHost(api, 'Europe/London');
    const healthy = await createHost(api, 'Europe/London');
    const url = serveFeed('/flaky.ics', calendar([]));
    assert.equal((await saveFeeds(api, failing, [url])).status, 201);
    feeds.set('/flaky.ics', { status: 500, body: 'down' });
    // The grace period (15 minutes by default) has not passed: the stored busy time still stands.
    assert.deepEqual(await syncAll(api, failing.userId), ['failed']);
    const { eventType: roundRobin } = await createTeamWithEventType(api, [failing, healthy], { title: 'RR', lengthInMinutes: 60, schedulingType: 'roundRobin' });
    const rrId = roundRobin.id;
    const fresh = await getSlots(api, { eventTypeId: rrId, start: MONDAY, end: MONDAY });
    assert.equal(fresh.body.degradedHosts, undefined, 'within the grace period nobody is marked');
    // Past the grace period: unavailable, never silently free.
    await api.runtime.ctx.database.db.execute(sql`update calendar_sources set failing_since = now() - interval '1 hour' where user_id = ${failing.userId}`);
    assert.deepEqual(await syncAll(api, failing.userId), ['failed']);
    const slots = await getSlots(api, { eventTypeId: rrId, start: MONDAY, end: MONDAY });
    assert.equal(slots.status, 200, slots.text);
    assert.deepEqual(slots.body.degradedHosts.map((host: { userId: number; reason: string }) => [host.userId, host.reason]), [[failing.userId, 'sync_failing']]);
    assert.ok(!Number.isNaN(Date.parse(slots.body.degradedHosts[0].since)));
    assert.ok(startsOf(slots.body.data).includes(at('10:00')), 'the healthy host still offers the slot');
    const booking = await api.request('POST', '/v2/bookings', {
      version: '2024-08-13',
      body: { eventTypeId: rrId, start: at('10:00'), attendee: { name: 'Guest', email: 'rr-guest@example.com', timeZone: 'Europe/London' } },
    });
    assert.equal(booking.status, 201, booking.text);
    assert.equal(booking.body.data.hosts[0].id, healthy.userId);
    // A personal event type of the failing host offers nothing at all.
    const own = await createEventType(api, failing, { lengthInMinutes: 60 });
    const ownSlots = await getSlots(api, { eventTypeId: own.id, start: MONDAY, end: MONDAY });
    assert.deepEqual(ownSlots.body.data, {});
    assert.equal(ownSlots.body.degradedHosts[0].reason, 'sync_failing');
    const check = await api.request('GET', '/v2/calendars/ics-feed/check', { key: failing.apiKey });
    assert.equal(check.status, 401, check.text);
    // It recovers with the next good read.
    serveFeed('/flaky.ics', calendar([]));
    assert.deepEqual(await syncAll(api, failing.userId), ['synced']);
    assert.ok(startsOf(await slotsOf(api, { eventTypeId: own.id, start: MONDAY, end: MONDAY })).includes(at('10:00')));
    assert.equal((await api.request('GET', '/v2/calendars/ics-feed/check', { key: failing.apiKey })).status, 200);
  });

  test('a feed that refuses its token marks the connection invalid at once', async () => {
    const host = await createHost(api, 'Europe/London');
    const url = serveFeed('/revoked.ics', calendar([]));
    assert.equal((await saveFeeds(api, host, [url])).status, 201);
    feeds.set('/revoked.ics', { status: 401, body: 'token revoked' });
    assert.deepEqual(await syncAll(api, host.userId), ['failed']);
    const listed = await api.request('GET', '/v2/calendars', { key: host.apiKey });
    assert.equal(listed.body.data.connectedCalendars[0].invalid, true);
    const check = await api.request('GET', '/v2/calendars/ics-feed/check', { key: host.apiKey });
    assert.equal(check.status, 400);
    assert.equal(check.body.error.message, 'Invalid Ics Feed credentials.');
    const eventType = await createEventType(api, host, { lengthInMinutes: 60 });
    const slots = await getSlots(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY });
    assert.deepEqual(slots.body.data, {});
    assert.equal(slots.body.degradedHosts[0].reason, 'invalid_credentials');
  });

  test('the feed address, which may carry a secret, is never shown back', async () => {
    const host = await createHost(api, 'Europe/London');
    const url = serveFeed('/secret.ics', calendar([event('x', ['DTSTART:20270111T120000Z', 'DTEND:20270111T130000Z'])], 'Private'));
    const saved = await saveFeeds(api, host, [url]);
    const listed = await api.request('GET', '/v2/calendars', { key: host.apiKey });
    const calendars = listed.body.data.connectedCalendars;
    assert.equal(calendars.length, 1);
    assert.equal(calendars[0].calendars[0].name, 'Private');
    assert.equal(calendars[0].calendars[0].isSelected, true);
    assert.equal(calendars[0].calendars[0].sync.degraded, false);
    const busy = await api.request(
      'GET',
      `/v2/calendars/busy-times?loggedInUsersTz=Europe/London&dateFrom=${MONDAY}&dateTo=${MONDAY}&calendarsToLoad[0][credentialId]=${calendars[0].credentialId}&calendarsToLoad[0][externalId]=${encodeURIComponent(calendars[0].calendars[0].externalId)}`,
      { key: host.apiKey },
    );
    assert.equal(busy.status, 200, busy.text);
    assert.deepEqual(busy.body.data, [{ start: at('12:00'), end: at('13:00'), source: 'Private' }]);
    for (const response of [saved, listed, busy]) assert.ok(!response.text.includes(SECRET) && !response.text.includes('/secret.ics'), response.text);
  });

  test('another user\'s calendars can be neither read nor disconnected', async () => {
    const owner = await createHost(api, 'Europe/London');
    const other = await createHost(api, 'Europe/London');
    assert.equal((await saveFeeds(api, owner, [serveFeed('/owner.ics', calendar([]))])).status, 201);
    const mine = (await api.request('GET', '/v2/calendars', { key: owner.apiKey })).body.data.connectedCalendars[0];
    assert.deepEqual((await api.request('GET', '/v2/calendars', { key: other.apiKey })).body.data.connectedCalendars, []);
    const busy = await api.request(
      'GET',
      `/v2/calendars/busy-times?loggedInUsersTz=UTC&dateFrom=${MONDAY}&dateTo=${MONDAY}&calendarsToLoad[0][credentialId]=${mine.credentialId}&calendarsToLoad[0][externalId]=${encodeURIComponent(mine.calendars[0].externalId)}`,
      { key: other.apiKey },
    );
    assert.equal(busy.status, 400, busy.text);
    const disconnect = await api.request('POST', '/v2/calendars/ics-feed/disconnect', { key: other.apiKey, body: { id: mine.credentialId } });
    assert.equal(disconnect.status, 404, disconnect.text);
    assert.equal((await api.request('GET', '/v2/calendars', { key: owner.apiKey })).body.data.connectedCalendars.length, 1);
    const own = await api.request('POST', '/v2/calendars/ics-feed/disconnect', { key: owner.apiKey, body: { id: mine.credentialId } });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.body.data.id, mine.credentialId);
    assert.deepEqual((await api.request('GET', '/v2/calendars', { key: owner.apiKey })).body.data.connectedCalendars, []);
  });

  test('a feed that cannot be read saves nothing and names the field', async () => {
    const host = await createHost(api, 'Europe/London');
    const good = serveFeed('/good.ics', calendar([]));
    const notCalendar = serveFeed('/page.html', '<html>not a calendar</html>');
    const response = await saveFeeds(api, host, [good, notCalendar]);
    assert.equal(response.status, 400, response.text);
    assert.deepEqual(response.body.error.details.errors.map((error: { property: string }) => error.property), ['urls.1']);
    assert.ok(!response.text.includes(SECRET));
    assert.deepEqual((await api.request('GET', '/v2/calendars', { key: host.apiKey })).body.data.connectedCalendars, []);
    const missing = await saveFeeds(api, host, [`${feedBase}/nothing-here.ics`]);
    assert.equal(missing.status, 400);
    const wrongScheme = await saveFeeds(api, host, ['ftp://example.com/feed.ics']);
    assert.equal(wrongScheme.status, 400);
    assert.equal(wrongScheme.body.error.details.errors[0].property, 'urls.0');
  });
});

describe('ICS feeds behind the private-address guard, and synced by the job runner', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp({ SVC_ALLOW_PRIVATE_WEBHOOKS: '0', SVC_CALENDAR_POLL_MS: '1000' });
  });
  after(() => api.close());

  test('a feed inside the network is refused, naming the switch that allows it', async () => {
    const host = await createHost(api, 'Europe/London');
    const response = await saveFeeds(api, host, [serveFeed('/inside.ics', calendar([]))]);
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body.error.details.errors[0].property, 'urls.0');
    assert.match(response.body.error.message, /SVC_ALLOW_PRIVATE_WEBHOOKS=1/);
  });
});

describe('the sync job', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp({ SVC_CALENDAR_POLL_MS: '1000' });
  });
  after(() => api.close());

  test('reads each calendar again every SVC_CALENDAR_POLL_MS, and the change reaches the slots', async () => {
    const host = await createHost(api, 'Europe/London');
    const url = serveFeed('/polled.ics', calendar([]));
    assert.equal((await saveFeeds(api, host, [url])).status, 201);
    const eventType = await createEventType(api, host, { lengthInMinutes: 60 });
    assert.ok(startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY })).includes(at('11:00')));
    serveFeed('/polled.ics', calendar([event('new', ['DTSTART:20270111T110000Z', 'DTEND:20270111T120000Z'])]));
    await eventually(async () => !startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY })).includes(at('11:00')), 30_000);
  });
});

describe('a sync seen by another process on the same PostgreSQL', { skip: backend !== 'postgres' && 'needs PostgreSQL (PGlite is single-process)' }, () => {
  let api: TestApp;
  let peer: TestApp;
  before(async () => {
    api = await createTestApp();
    peer = await createPeerApp(api, { SVC_CALENDAR_POLL_MS: '3600000' });
  });
  after(async () => {
    await peer?.close();
    await api?.close();
  });

  test("the peer's cached slots drop the host's busy time when the sync commits", async () => {
    const host = await createHost(api, 'Europe/London');
    const url = serveFeed('/shared.ics', calendar([]));
    assert.equal((await saveFeeds(api, host, [url])).status, 201);
    const eventType = await createEventType(api, host, { lengthInMinutes: 60 });
    const peerStarts = async () => startsOf((await getSlots(peer, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY })).body.data);
    assert.ok((await peerStarts()).includes(at('15:00')), 'the peer lists (and caches) 15:00');
    serveFeed('/shared.ics', calendar([event('late', ['DTSTART:20270111T150000Z', 'DTEND:20270111T160000Z'])]));
    assert.deepEqual(await syncAll(api, host.userId), ['synced']);
    await eventually(async () => !(await peerStarts()).includes(at('15:00')), 5_000);
  });
});
