// Unified calendar events: an event svc wrote into a host's Google calendar for a booking, read and
// changed through GET /v2/calendars/google/event/{eventUid} and PATCH .../events/{eventUid}, against a
// local server that implements Google's documented API (test/support/fake-google.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/eventually.js';
import { type FakeGoogle, startFakeGoogle } from '../support/fake-google.js';
import { connectOAuthCalendar, oauthAppEnv } from '../support/oauth-calendar-connect.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createEventType, createHost, type Host } from '../slots/helpers.js';

const BOOKINGS_VERSION = '2024-08-13';
const APP_URL = 'https://svc.example.test';
const ACCOUNT = 'ada@gmail.example';
// 2027-01-11 is a Monday; London is on UTC then.
const iso = (time: string) => new Date(`2027-01-11T${time}:00.000Z`).toISOString();

describe('unified calendar events (Google)', () => {
  let google: FakeGoogle;
  let api: TestApp;
  let host: Host;
  let stranger: Host;
  let eventUid: string;
  let bookingUid: string;

  before(async () => {
    const app = { clientId: 'svc-google-client', clientSecret: 'google-client-secret' };
    google = await startFakeGoogle(app);
    google.addAccount(ACCOUNT, 'Europe/London');
    api = await createTestApp({ APP_URL, ...oauthAppEnv('GOOGLE', { ...app, endpoints: google.endpoints }) });
    host = await createHost(api, 'Europe/London', { name: 'Ada Host', email: 'ada.host@example.com' });
    stranger = await createHost(api, 'Europe/London');
    const { saved } = await connectOAuthCalendar(api, APP_URL, 'google', host.apiKey);
    assert.equal(saved.status, 301, await saved.text());
    const eventType = await createEventType(api, host, { lengthInMinutes: 60, title: 'Consultation' });
    const booked = await api.request('POST', '/v2/bookings', {
      version: BOOKINGS_VERSION,
      body: { eventTypeId: eventType.id, start: iso('10:00'), attendee: { name: 'Bea Booker', email: 'bea@example.com', timeZone: 'Europe/Paris' } },
    });
    assert.equal(booked.status, 201, booked.text);
    bookingUid = booked.body.data.uid;
    const references = async () => (await api.request('GET', `/v2/bookings/${bookingUid}/references`, { key: host.apiKey, version: BOOKINGS_VERSION })).body.data as any[];
    await eventually(async () => (await references()).length === 1, 10_000);
    eventUid = (await references())[0].eventUid;
  });
  after(async () => {
    await api?.close();
    await google?.close();
  });

  const get = (uid: string, key = host.apiKey, calendar = 'google') => api.request('GET', `/v2/calendars/${calendar}/event/${encodeURIComponent(uid)}`, { key });
  const patch = (uid: string, body: unknown, key = host.apiKey) => api.request('PATCH', `/v2/calendars/google/events/${encodeURIComponent(uid)}`, { key, body });

  test('GET: the event as Google holds it, in the unified shape', async () => {
    // The host added a Meet link in Google; it shows as a video location.
    google.editEvent(ACCOUNT, eventUid, { hangoutLink: 'https://meet.google.com/abc-defg-hij' });
    const answer = await get(eventUid);
    assert.equal(answer.status, 200, answer.text);
    const event = answer.body.data;
    assert.equal(event.id, eventUid);
    assert.equal(event.title, 'Consultation between Ada Host and Bea Booker');
    assert.deepEqual([event.start.time, event.end.time], [iso('10:00'), iso('11:00')]);
    assert.equal(event.start.timeZone, 'Europe/London');
    assert.equal(event.status, 'accepted');
    assert.equal(event.source, 'google');
    assert.deepEqual(event.locations, [{ type: 'video', url: 'https://meet.google.com/abc-defg-hij' }]);
    assert.deepEqual(event.calendarEventOwner, { email: ACCOUNT });
    const booker = event.attendees.find((attendee: any) => attendee.email === 'bea@example.com');
    assert.deepEqual(booker, { email: 'bea@example.com', name: 'Bea Booker', responseStatus: 'needsAction' });
    assert.match(event.description, /Manage this booking/);

    // Conference entry points, when Google has them, are the locations (video and phone, with their codes).
    google.editEvent(ACCOUNT, eventUid, {
      conferenceData: {
        entryPoints: [
          { entryPointType: 'video', uri: 'https://meet.google.com/abc-defg-hij', label: 'meet.google.com/abc-defg-hij', meetingCode: 'abc-defg-hij' },
          { entryPointType: 'phone', uri: 'tel:+1-555-0100', label: '+1 555-0100', pin: '123456', regionCode: 'US' },
        ],
      },
    });
    assert.deepEqual((await get(eventUid)).body.data.locations, [
      { type: 'video', url: 'https://meet.google.com/abc-defg-hij', label: 'meet.google.com/abc-defg-hij', meetingCode: 'abc-defg-hij' },
      { type: 'phone', url: 'tel:+1-555-0100', label: '+1 555-0100', pin: '123456', regionCode: 'US' },
    ]);
  });

  test("another user's event, an unknown one, or another calendar app: 404, 404, 400", async () => {
    const foreign = await get(eventUid, stranger.apiKey);
    assert.equal(foreign.status, 404, foreign.text);
    assert.equal(foreign.body.error.details.reason, 'calendar_event_not_found');
    assert.equal((await get('neverwritten0123')).status, 404);
    const office = await get(eventUid, host.apiKey, 'office365');
    assert.equal(office.status, 400, office.text);
    assert.match(office.body.error.message, /calendar/);
    assert.equal((await patch(eventUid, { title: 'Hijacked' }, stranger.apiKey)).status, 404);
    assert.notEqual(google.event(ACCOUNT, eventUid)!.summary, 'Hijacked');
  });

  test('PATCH: title, times and attendees (a full replace) change in Google, without mail from Google', async () => {
    const answer = await patch(eventUid, {
      title: 'Consultation (extended)',
      end: { time: iso('11:30') },
      attendees: [
        { email: 'bea@example.com', name: 'Bea Booker', responseStatus: 'accepted' },
        { email: 'cy@example.com', name: 'Cy Colleague', optional: true },
      ],
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.data.title, 'Consultation (extended)');
    assert.deepEqual([answer.body.data.start.time, answer.body.data.end.time], [iso('10:00'), iso('11:30')]);
    assert.equal(answer.body.data.end.timeZone, 'Europe/London', 'a time without a zone keeps the event\'s');
    const stored = google.event(ACCOUNT, eventUid)!;
    assert.equal(stored.summary, 'Consultation (extended)');
    assert.deepEqual(
      stored.attendees!.map((attendee) => [attendee.email, attendee.responseStatus, attendee.optional ?? false]),
      [
        ['bea@example.com', 'accepted', false],
        ['cy@example.com', 'needsAction', true],
      ],
    );
    const request = google.apiRequests().findLast((call) => call.method === 'PATCH')!;
    assert.equal(request.query.sendUpdates, 'none');
    // The booking itself is unchanged.
    const booking = await api.request('GET', `/v2/bookings/${bookingUid}`, { version: BOOKINGS_VERSION });
    assert.equal(booking.body.data.end, iso('11:00'));
  });

  test('PATCH refuses an end before the start and an unknown zone, naming the field; nothing is sent to Google', async () => {
    const before = google.apiRequests().filter((call) => call.method === 'PATCH').length;
    const backwards = await patch(eventUid, { end: { time: iso('09:00') } });
    assert.equal(backwards.status, 400, backwards.text);
    assert.match(backwards.body.error.message, /end/);
    const zone = await patch(eventUid, { start: { time: iso('10:00'), timeZone: 'Mars/Olympus' } });
    assert.equal(zone.status, 400, zone.text);
    assert.match(zone.body.error.message, /start\.timeZone/);
    assert.equal(google.apiRequests().filter((call) => call.method === 'PATCH').length, before);
  });

  test('PATCH status cancelled cancels the event in Google', async () => {
    const answer = await patch(eventUid, { status: 'cancelled' });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.data.status, 'cancelled');
    assert.equal(google.event(ACCOUNT, eventUid)!.status, 'cancelled');
  });
});
