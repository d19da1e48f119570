// useDestinationCalendarEmail: bookings of an event type that sets it show their organizer with the
// address of the account holding the organizer's destination calendar, in the mailed invitation and the
// event svc writes; other event types keep the organizer's own address.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { eventually } from '../support/eventually.js';
import { loadInviteContext } from '../../src/modules/mail/mail.repository.js';
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

  test("the address is the chosen destination's account's: none recorded or a broken connection gives the organizer's own, never another connection's", async () => {
    const db = api.runtime.ctx.database.db;
    // A second writable connection, made after Google's (its calendar not selected: nothing reads it).
    const caldav = (await db.execute(sql`
      insert into calendar_connections (user_id, type, app_id, credentials_sealed)
      values (${host.userId}, 'caldav_calendar', 'caldav-calendar', 'not read') returning id`)) as unknown as { rows: { id: number }[] };
    const connectionId = caldav.rows[0]!.id;
    const source = (await db.execute(sql`
      insert into calendar_sources (connection_id, user_id, external_id, name, is_primary, read_only, selected, next_sync_at)
      values (${connectionId}, ${host.userId}, 'https://caldav.example/ada/work/', 'Work', true, false, false, '2100-01-01T00:00:00Z') returning id`)) as unknown as { rows: { id: number }[] };
    const eventType = await createEventType(api, host, { lengthInMinutes: 30, title: 'Address cases', useDestinationCalendarEmail: true });
    const address = async () => (await loadInviteContext(db, { id: -1, eventTypeId: eventType.id, organizerId: host.userId })).organizerAddress;
    assert.equal(await address(), 'ada.calendar@gmail.example', 'the Google destination');

    // The CalDAV calendar becomes the destination; its connection predates recorded addresses.
    await db.execute(sql`update destination_calendars set source_id = ${source.rows[0]!.id} where user_id = ${host.userId} and event_type_id is null`);
    assert.equal(await address(), null);
    await db.execute(sql`update calendar_connections set account_email = 'ada@caldav.example' where id = ${connectionId}`);
    assert.equal(await address(), 'ada@caldav.example');
    // A broken destination gets no event (svc writes none elsewhere), so it lends no address either.
    await db.execute(sql`update calendar_connections set invalid = true where id = ${connectionId}`);
    assert.equal(await address(), null);
    // An event type's own destination comes before the user's.
    await db.execute(sql`insert into destination_calendars (user_id, event_type_id, source_id) select ${host.userId}, ${eventType.id}, s.id from calendar_sources s join calendar_connections c on c.id = s.connection_id where c.user_id = ${host.userId} and c.type = 'google_calendar'`);
    assert.equal(await address(), 'ada.calendar@gmail.example');
    // No destination: the first valid connection's primary calendar, as the writer picks.
    await db.execute(sql`delete from destination_calendars where user_id = ${host.userId}`);
    assert.equal(await address(), 'ada.calendar@gmail.example');
  });
});
