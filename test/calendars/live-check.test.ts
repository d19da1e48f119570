// Before a booking is written (created, rescheduled, reassigned), the hosts' calendars are read live
// (outside the booking's transaction): an event added since the last sync refuses the start; a calendar
// that does not answer within SVC_CALENDAR_LIVE_CHECK_MS leaves the stored busy time standing, and the
// booking is not held up by it; a calendar is read live at most once per SVC_CALENDAR_LIVE_CHECK_INTERVAL_MS.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createTeamWithEventType } from '../support/team-scheduling.js';
import { createEventType, createHost, type Host, slotsOf, startsOf } from '../slots/helpers.js';

const BOOKINGS_VERSION = '2024-08-13';
// 2027-01-11 is a Monday; London is on UTC then.
const MONDAY = '2027-01-11';
const iso = (time: string) => new Date(`${MONDAY}T${time}:00.000Z`).toISOString();
const stamp = (time: string) => `${MONDAY.replaceAll('-', '')}T${time.replace(':', '')}00Z`;

describe('the live check of the hosts calendars before a booking', () => {
  let api: TestApp;
  let host: Host;
  let eventType: any;
  let server: http.Server;
  let feedUrl: string;
  let events: string[] = [];
  /** The feed at /team.ics, of a round-robin team's second host. */
  let teamEvents: string[] = [];
  let delayMs = 0;
  let requests = 0;
  let teamRequests = 0;

  const feed = (shown: string[]) =>
    ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//svc tests//EN', ...shown, 'END:VCALENDAR', ''].join('\r\n');
  const busy = (uid: string, start: string, end: string) =>
    ['BEGIN:VEVENT', `UID:${uid}`, `DTSTAMP:${stamp('00:00')}`, `DTSTART:${stamp(start)}`, `DTEND:${stamp(end)}`, 'SUMMARY:Busy', 'END:VEVENT'].join('\r\n');

  before(async () => {
    server = http.createServer((request, response) => {
      const team = request.url === '/team.ics';
      if (team) teamRequests += 1;
      else requests += 1;
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'text/calendar' });
        response.end(feed(team ? teamEvents : events));
      }, team ? 0 : delayMs);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    feedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cal.ics`;
    // Scheduled syncs stay out of the way: only the live check reads the feed after it is saved.
    api = await createTestApp({ SVC_CALENDAR_LIVE_CHECK_MS: '500', SVC_CALENDAR_LIVE_CHECK_INTERVAL_MS: '0', SVC_CALENDAR_POLL_MS: '3600000' });
    host = await createHost(api, 'Europe/London');
    eventType = await createEventType(api, host, { lengthInMinutes: 60 });
    const saved = await api.request('POST', '/v2/calendars/ics-feed/save', { key: host.apiKey, body: { urls: [feedUrl] } });
    assert.equal(saved.status, 201, saved.text);
  });
  after(async () => {
    await api?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  const starts = async () => startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }));
  const book = (time: string) =>
    api.request('POST', '/v2/bookings', {
      version: BOOKINGS_VERSION,
      body: { eventTypeId: eventType.id, start: iso(time), attendee: { name: 'Bea Booker', email: 'bea@example.com', timeZone: 'UTC' } },
    });

  test('an event added after the last sync refuses the start: the calendar is read before the booking', async () => {
    events = [busy('dentist', '10:00', '11:00')];
    assert.ok((await starts()).includes(iso('10:00')), 'the stored busy time does not know it yet');
    const before = requests;
    const refused = await book('10:00');
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.message, 'User either already has booking at this time or is not available');
    assert.ok(requests > before, 'the feed was read for the booking');
    assert.ok(!(await starts()).includes(iso('10:00')), 'and what it read is stored');
    assert.equal((await book('14:00')).status, 201);
  });

  test('a calendar slower than the live check leaves the stored busy time standing', async () => {
    events = [busy('dentist', '10:00', '11:00'), busy('late-add', '12:00', '13:00')];
    delayMs = 3000;
    const before = requests;
    const booked = await book('12:00');
    assert.equal(booked.status, 201, 'the late event was not seen in time: the stored busy time (free at 12:00) stood');
    assert.ok(requests > before, 'the feed was asked');
    // A live read cut short by its own deadline is not a failure of the calendar.
    const [connection] = (await api.request('GET', '/v2/calendars', { key: host.apiKey })).body.data.connectedCalendars;
    assert.equal(connection.calendars[0].sync.failingSince, null);
    assert.equal(connection.calendars[0].sync.degraded, false);
    delayMs = 0;
  });

  test('a reschedule reads the calendar live before it books the new time', async () => {
    const booking = await book('09:00');
    assert.equal(booking.status, 201, booking.text);
    events = [busy('dentist', '10:00', '11:00'), busy('late-add', '12:00', '13:00'), busy('call', '15:00', '16:00')];
    assert.ok((await starts()).includes(iso('15:00')), 'the stored busy time does not know it yet');
    const reschedule = (time: string) =>
      api.request('POST', `/v2/bookings/${booking.body.data.uid}/reschedule`, { version: BOOKINGS_VERSION, body: { start: iso(time) } });
    const before = requests;
    const refused = await reschedule('15:00');
    assert.equal(refused.status, 400, refused.text);
    assert.ok(requests > before, 'the feed was read for the reschedule');
    assert.equal((await reschedule('11:00')).status, 201);
  });

  test('a reassignment reads the other hosts calendars live before it picks one', async () => {
    const first = await createHost(api, 'Europe/London', { name: 'Ann First' });
    const second = await createHost(api, 'Europe/London', { name: 'Ben Second' });
    const saved = await api.request('POST', '/v2/calendars/ics-feed/save', { key: second.apiKey, body: { urls: [feedUrl.replace('/cal.ics', '/team.ics')] } });
    assert.equal(saved.status, 201, saved.text);
    const { eventType: support } = await createTeamWithEventType(api, [first, second], { title: 'Support', lengthInMinutes: 60, schedulingType: 'roundRobin' });
    const booking = await api.request('POST', '/v2/bookings', {
      version: BOOKINGS_VERSION,
      body: { eventTypeId: support.id, start: iso('09:00'), attendee: { name: 'Bea Booker', email: 'bea@example.com', timeZone: 'UTC' } },
    });
    assert.equal(booking.status, 201, booking.text);
    assert.equal(booking.body.data.hosts[0].id, first.userId);
    // The second host's calendar gains an event at that hour after its last sync.
    teamEvents = [busy('offsite', '09:00', '10:00')];
    const before = teamRequests;
    const refused = await api.request('POST', `/v2/bookings/${booking.body.data.uid}/reassign`, { version: BOOKINGS_VERSION, key: first.apiKey });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.message, "Can't reassign the booking because no other host is available at that time.");
    assert.ok(teamRequests > before, 'the second host\'s feed was read for the reassignment');
  });
});

describe('live reads are bounded per calendar', () => {
  let api: TestApp;
  let server: http.Server;
  let requests = 0;

  before(async () => {
    server = http.createServer((_request, response) => {
      requests += 1;
      response.writeHead(200, { 'content-type': 'text/calendar' });
      response.end(['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//svc tests//EN', 'END:VCALENDAR', ''].join('\r\n'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    api = await createTestApp({ SVC_CALENDAR_LIVE_CHECK_MS: '500', SVC_CALENDAR_LIVE_CHECK_INTERVAL_MS: '600000', SVC_CALENDAR_POLL_MS: '3600000' });
  });
  after(async () => {
    await api?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  test('anonymous booking attempts read a host calendar live once per interval, however many come', async () => {
    const host = await createHost(api, 'Europe/London');
    const eventType = await createEventType(api, host, { lengthInMinutes: 30 });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cal.ics`;
    assert.equal((await api.request('POST', '/v2/calendars/ics-feed/save', { key: host.apiKey, body: { urls: [url] } })).status, 201);
    const before = requests;
    const attempts = ['09:00', '09:30', '10:00', '10:30', '11:00'].map((time) =>
      api.request('POST', '/v2/bookings', {
        version: BOOKINGS_VERSION,
        body: { eventTypeId: eventType.id, start: iso(time), attendee: { name: 'Flood', email: `flood-${time.replace(':', '')}@example.com`, timeZone: 'UTC' } },
      }),
    );
    for (const attempt of attempts) assert.equal((await attempt).status, 201);
    assert.equal(requests - before, 1, 'one live read for five bookings within the interval');
  });
});
