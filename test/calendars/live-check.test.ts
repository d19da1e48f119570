// Before a booking is written, the hosts' calendars are read live (outside the booking's transaction):
// an event added since the last sync refuses the start; a calendar that does not answer within
// SVC_CALENDAR_LIVE_CHECK_MS leaves the stored busy time standing, and the booking is not held up by it.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';
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
  let delayMs = 0;
  let requests = 0;

  const feed = () =>
    ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//svc tests//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
  const busy = (uid: string, start: string, end: string) =>
    ['BEGIN:VEVENT', `UID:${uid}`, `DTSTAMP:${stamp('00:00')}`, `DTSTART:${stamp(start)}`, `DTEND:${stamp(end)}`, 'SUMMARY:Busy', 'END:VEVENT'].join('\r\n');

  before(async () => {
    server = http.createServer((_request, response) => {
      requests += 1;
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'text/calendar' });
        response.end(feed());
      }, delayMs);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    feedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cal.ics`;
    // Scheduled syncs stay out of the way: only the live check reads the feed after it is saved.
    api = await createTestApp({ SVC_CALENDAR_LIVE_CHECK_MS: '500', SVC_CALENDAR_POLL_MS: '3600000' });
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
});
