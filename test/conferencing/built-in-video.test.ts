// The built-in video app (svc-video): a booking on it gets a joinable Jitsi Meet room of its own on
// SVC_VIDEO_URL, shown as its location and meetingUrl and kept as metadata.videoCallUrl; the room goes
// with the booking when it is rescheduled, and is dropped when the organizer moves the booking elsewhere.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../../src/app/config.js';
import { createEventType, createHost, type Host } from '../slots/helpers.js';
import { eventually } from '../support/eventually.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const VERSION = '2024-08-13';
const ROOM = /^https:\/\/video\.example\.org\/meet\/svc-[\w-]{22}$/;

describe('built-in video rooms', () => {
  let api: TestApp;
  let host: Host;
  let eventType: any;
  before(async () => {
    api = await createTestApp({ SVC_VIDEO_URL: 'https://video.example.org/meet/' });
    host = await createHost(api, 'UTC');
    eventType = await createEventType(api, host);
  });
  after(() => api.close());

  const book = async (start: string, metadata: Record<string, string> = {}) => {
    const response = await api.request('POST', '/v2/bookings', { version: VERSION, body: { eventTypeId: eventType.id, start, attendee: { name: 'Bob', email: 'bob@example.com', timeZone: 'UTC' }, metadata } });
    assert.equal(response.status, 201, response.text);
    return response.body.data;
  };

  test('each booking gets its own room on the configured server: location, meetingUrl, metadata.videoCallUrl', async () => {
    const first = await book('2030-06-03T09:00:00.000Z', { ref: 'A' });
    const second = await book('2030-06-03T10:00:00.000Z');
    assert.match(first.location, ROOM);
    assert.match(second.location, ROOM);
    assert.notEqual(first.location, second.location);
    assert.deepEqual([first.meetingUrl, first.metadata], [first.location, { ref: 'A', videoCallUrl: first.location }]);
    // What the attendee adds to their calendar carries the room.
    const links = await api.request('GET', `/v2/bookings/${first.uid}/calendar-links`, { key: host.apiKey, version: VERSION });
    const ics = decodeURIComponent(links.body.data.find((link: any) => link.link.startsWith('data:text/calendar,')).link.slice('data:text/calendar,'.length));
    assert.ok(ics.replace(/\r\n /g, '').includes(`LOCATION:${first.location}`), ics);
    // So does the webhook payload (the reference's metadata.videoCallUrl).
    const hook = await api.request('POST', '/v2/webhooks', { key: host.apiKey, body: { subscriberUrl: 'http://127.0.0.1:9/hook', active: true, triggers: ['BOOKING_CREATED'] } });
    assert.equal(hook.status, 201, hook.text);
    const third = await book('2030-06-03T11:00:00.000Z');
    // Deliveries may be queued by a job after the booking commits (PostgreSQL): wait for the one row.
    const delivered = async () =>
      ((await api.runtime.ctx.database.db.execute(sql`select body from webhook_deliveries where webhook_id = ${hook.body.data.id}`)) as unknown as { rows: { body: string }[] }).rows;
    await eventually(async () => (await delivered()).length > 0, 10_000);
    assert.equal(JSON.parse((await delivered())[0]!.body).payload.metadata.videoCallUrl, third.location);
  });

  test('a rescheduled booking keeps its room; moved to an address it leaves it', async () => {
    const booking = await book('2030-06-04T09:00:00.000Z');
    const moved = await api.request('POST', `/v2/bookings/${booking.uid}/reschedule`, { version: VERSION, body: { start: '2030-06-04T13:00:00.000Z' } });
    assert.equal(moved.status, 201, moved.text);
    assert.deepEqual([moved.body.data.location, moved.body.data.metadata.videoCallUrl], [booking.location, booking.location]);
    const elsewhere = await api.request('PATCH', `/v2/bookings/${moved.body.data.uid}/location`, { key: host.apiKey, version: VERSION, body: { location: { type: 'address', address: '1 Main St' } } });
    assert.equal(elsewhere.status, 200, elsewhere.text);
    assert.deepEqual([elsewhere.body.data.location, elsewhere.body.data.metadata], ['1 Main St', {}]);
  });

  test('another location is stored as it is, with no room', async () => {
    const linked = await createEventType(api, host, { locations: [{ type: 'link', link: 'https://zoom.example.com/j/1', public: true }] });
    const response = await api.request('POST', '/v2/bookings', { version: VERSION, body: { eventTypeId: linked.id, start: '2030-06-05T09:00:00.000Z', attendee: { name: 'Bob', email: 'bob@example.com', timeZone: 'UTC' } } });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual([response.body.data.location, response.body.data.metadata], ['https://zoom.example.com/j/1', {}]);
  });

  test('SVC_VIDEO_URL must be an http(s) URL; the default is the public Jitsi Meet server', () => {
    const base = { SVC_ADMIN_API_KEY: 'svc_00000000000000000000000000000a11' };
    assert.equal(loadConfig(base).videoUrl, 'https://meet.jit.si');
    assert.throws(() => loadConfig({ ...base, SVC_VIDEO_URL: 'ftp://video.example.org' }), /SVC_VIDEO_URL must be an http\(s\) URL, not "ftp:/);
    assert.equal(loadConfig({ ...base, SVC_VIDEO_URL: 'https://video.example.org/rooms/' }).videoUrl, 'https://video.example.org/rooms');
    // The calendar push address shares the parsing, with "off" besides.
    assert.throws(() => loadConfig({ ...base, SVC_CALENDAR_PUSH_URL: 'not a url' }), /SVC_CALENDAR_PUSH_URL must be an http\(s\) URL or "off", not "not a url"/);
    assert.equal(loadConfig({ ...base, SVC_CALENDAR_PUSH_URL: 'off', APP_URL: 'https://svc.example.org' }).calendars.pushUrl, null);
  });
});
