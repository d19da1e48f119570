// useDestinationCalendarEmail: bookings of an event type that sets it show their organizer with the
// address of the account holding the organizer's destination calendar, in the mailed invitation and the
// event svc writes; other event types keep the organizer's own address.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/eventually.js';
import { type FakeGoogle, startFakeGoogle } from '../support/fake-google.js';
import { connectOAuthCalendar, oauthAppEnv } from '../support/oauth-calendar-connect.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { type SmtpReceiver, startSmtpReceiver } from '../mail/helpers.js';
import { createEventType, createHost, type Host } from '../slots/helpers.js';

const APP_URL = 'https://svc.example.test';
const BOOKINGS_VERSION = '2024-08-13';
const iso = (time: string) => new Date(Date.parse(`2027-01-11T${time}:00.000Z`)).toISOString();

describe('useDestinationCalendarEmail', () => {
  let google: FakeGoogle;
  let smtp: SmtpReceiver;
  let api: TestApp;
  let host: Host;

  before(async () => {
    google = await startFakeGoogle({ clientId: 'svc-google-client', clientSecret: 'google-client-secret' });
    google.addAccount('ada.calendar@gmail.example', 'Europe/London');
    smtp = await startSmtpReceiver();
    api = await createTestApp({
      APP_URL,
      SMTP_URL: smtp.url,
      SMTP_FROM: 'Svc <bookings@svc.test>',
      SVC_CALENDAR_PUSH_URL: 'off',
      ...oauthAppEnv('GOOGLE', { clientId: 'svc-google-client', clientSecret: 'google-client-secret', endpoints: google.endpoints }),
    });
    host = await createHost(api, 'Europe/London', { name: 'Ada Host', email: 'ada.host@example.com' });
  });
  after(async () => {
    await api?.close();
    await smtp?.close();
    await google?.close();
  });

  async function bookAndReadInvitation(eventTypeId: number, time: string, booker: string) {
    const booked = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId, start: iso(time), attendee: { name: 'Bea', email: booker, timeZone: 'UTC' } } });
    assert.equal(booked.status, 201, booked.text);
    await eventually(async () => smtp.to(booker).length === 1, 10_000);
    return { booking: booked.body.data, invitation: smtp.to(booker)[0]!.invitation! };
  }

  test('the organizer shows with the destination calendar account\'s address; without the setting, their own', async () => {
    const { saved } = await connectOAuthCalendar(api, APP_URL, 'google', host.apiKey);
    assert.equal(saved.status, 301, await saved.text());
    const destination = await api.request('PUT', '/v2/destination-calendars', { key: host.apiKey, body: { integration: 'google_calendar', externalId: 'ada.calendar@gmail.example' } });
    assert.equal(destination.status, 200, destination.text);
    const listed = await api.request('GET', '/v2/calendars', { key: host.apiKey });
    assert.equal(listed.body.data.destinationCalendar.primaryEmail, 'ada.calendar@gmail.example');

    const plain = await createEventType(api, host, { lengthInMinutes: 30, title: 'Plain' });
    const fromCalendar = await createEventType(api, host, { lengthInMinutes: 30, title: 'From calendar', useDestinationCalendarEmail: true });
    assert.equal(fromCalendar.useDestinationCalendarEmail, true);

    const own = await bookAndReadInvitation(plain.id, '10:00', 'bea.one@example.com');
    assert.equal(own.invitation.organizer, 'ada.host@example.com');
    const viaCalendar = await bookAndReadInvitation(fromCalendar.id, '11:00', 'bea.two@example.com');
    assert.equal(viaCalendar.invitation.organizer, 'ada.calendar@gmail.example');
    // The event written into Google names the same organizer among its attendees.
    await eventually(async () => google.events('ada.calendar@gmail.example').some((event) => event.iCalUID === viaCalendar.booking.icsUid), 10_000);
    const written = google.events('ada.calendar@gmail.example').find((event) => event.iCalUID === viaCalendar.booking.icsUid)!;
    assert.ok(written.attendees?.some((attendee) => attendee.email === 'ada.calendar@gmail.example'), JSON.stringify(written.attendees));
    assert.ok(!written.attendees?.some((attendee) => attendee.email === 'ada.host@example.com'));
  });
});
