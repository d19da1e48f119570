// Google and Microsoft calendars end to end, against local servers that implement the providers'
// documented APIs (test/support/fake-google.ts, fake-microsoft.ts): connected through the consent
// page and the callback, read for busy time, bookings written into them and listed as references,
// a revoked connection marked invalid; tokens never leave svc.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { calendarReaders } from '../../src/modules/calendars/calendar-oauth.js';
import { syncCalendarSource } from '../../src/modules/calendars/calendar-sync.js';
import { eventually } from '../support/eventually.js';
import type { FakeGoogle } from '../support/fake-google.js';
import type { FakeMicrosoft } from '../support/fake-microsoft.js';
import { connectOAuthCalendar, startCalendarProviders } from '../support/oauth-calendar-connect.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createEventType, createHost, type Host, slotsOf, startsOf } from '../slots/helpers.js';

const BOOKINGS_VERSION = '2024-08-13';
const APP_URL = 'https://svc.example.test';
// 2027-01-11 is a Monday; London is on UTC then.
const MONDAY = '2027-01-11';
const at = (time: string) => Date.parse(`${MONDAY}T${time}:00.000Z`);
const iso = (time: string) => new Date(at(time)).toISOString();

describe('Google and Microsoft calendars through the API', () => {
  let google: FakeGoogle;
  let microsoft: FakeMicrosoft;
  let api: TestApp;
  let host: Host;
  let stranger: Host;
  let eventType: any;

  before(async () => {
    const providers = await startCalendarProviders({ microsoftRedirectUri: `${APP_URL}/v2/calendars/office365/save`, microsoftMail: 'ada@outlook.example' });
    ({ google, microsoft } = providers);
    api = await createTestApp({
      APP_URL,
      ...providers.env,
    });
    host = await createHost(api, 'Europe/London', { name: 'Ada Host', email: 'ada.host@example.com' });
    stranger = await createHost(api, 'Europe/London');
    eventType = await createEventType(api, host, { lengthInMinutes: 60, title: 'Consultation' });
  });
  after(async () => {
    await api?.close();
    await google?.close();
    await microsoft?.close();
  });

  const connect = (calendar: 'google' | 'office365', key = host.apiKey) => connectOAuthCalendar(api, APP_URL, calendar, key);

  async function syncAll(): Promise<string[]> {
    const { ctx } = api.runtime;
    const rows = (await ctx.database.db.execute(sql`select id from calendar_sources where user_id = ${host.userId} and selected order by id`)) as unknown as { rows: { id: number }[] };
    const deps = { database: ctx.database, secrets: ctx.secrets, config: ctx.config, readers: calendarReaders(ctx.config), clock: ctx.clock, changes: ctx.changes };
    const outcomes: string[] = [];
    for (const row of rows.rows) outcomes.push(await syncCalendarSource(deps, row.id, Date.now()));
    return outcomes;
  }
  const starts = async () => startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }));

  test('connect: a consent page with a sealed state; the callback stores the account, reads it, and sends the user on', async () => {
    google.addEvent('ada@gmail.example', { summary: 'Dentist', start: { dateTime: iso('10:00') }, end: { dateTime: iso('11:00') } });
    assert.ok((await starts()).includes(iso('10:00')));
    const { saved } = await connect('google');
    assert.equal(saved.status, 301, await saved.text());
    assert.equal(saved.headers.get('location'), 'https://app.example.test/done');
    const listed = await api.request('GET', '/v2/calendars', { key: host.apiKey });
    const connection = listed.body.data.connectedCalendars.find((entry: any) => entry.integration.type === 'google_calendar');
    assert.ok(connection, listed.text);
    assert.equal(connection.primary.externalId, 'ada@gmail.example');
    assert.equal(connection.primary.isSelected, true);
    for (const secret of ['google-client-secret', 'ya29', '1//']) assert.ok(!listed.text.includes(secret), `no token or secret in GET /v2/calendars (${secret})`);
    // Read at once: the dentist is busy time now.
    assert.ok(!(await starts()).includes(iso('10:00')));
    // The tokens are stored sealed.
    const stored = (await api.runtime.ctx.database.db.execute(sql`select credentials_sealed from calendar_connections where user_id = ${host.userId} and type = 'google_calendar'`)) as unknown as { rows: { credentials_sealed: string }[] };
    assert.match(stored.rows[0]!.credentials_sealed, /^v1:/);
    assert.ok(!stored.rows[0]!.credentials_sealed.includes('ada@gmail.example'));
  });

  test('the callback refuses a state svc did not seal, or one for the other provider; connect needs an app', async () => {
    const forged = await api.request('GET', `/v2/calendars/google/save?state=${encodeURIComponent('v1:AAAA')}&code=abc`);
    assert.equal(forged.status, 400, forged.text);
    assert.equal(forged.body.error.details.reason, 'calendar_state_invalid');
    const connectAnswer = await api.request('GET', '/v2/calendars/google/connect?isDryRun=true', { key: stranger.apiKey });
    const state = new URL(connectAnswer.body.data.authUrl).searchParams.get('state')!;
    const crossed = await api.request('GET', `/v2/calendars/office365/save?state=${encodeURIComponent(state)}&code=abc`);
    assert.equal(crossed.status, 400);
    const apple = await api.request('GET', '/v2/calendars/apple/connect?isDryRun=true', { key: host.apiKey });
    assert.equal(apple.status, 400);
    const unconfigured = await createTestApp();
    try {
      const user = await createHost(unconfigured, 'UTC');
      const refused = await unconfigured.request('GET', '/v2/calendars/google/connect?isDryRun=true', { key: user.apiKey });
      assert.equal(refused.status, 400);
      assert.match(refused.body.error.message, /SVC_GOOGLE_CLIENT_ID/);
    } finally {
      await unconfigured.close();
    }
  });

  test('an event added in Google reaches the slots at the next sync; a booking is written into Google and listed as a reference', async () => {
    const added = google.addEvent('ada@gmail.example', { summary: 'Gym', start: { dateTime: iso('13:00') }, end: { dateTime: iso('14:00') } });
    assert.ok((await starts()).includes(iso('13:00')));
    assert.deepEqual(await syncAll(), ['synced']);
    assert.ok(!(await starts()).includes(iso('13:00')));
    google.removeEvent('ada@gmail.example', added.id);
    await syncAll();
    assert.ok((await starts()).includes(iso('13:00')), 'a deleted event frees its time');

    const booked = await api.request('POST', '/v2/bookings', {
      version: BOOKINGS_VERSION,
      body: { eventTypeId: eventType.id, start: iso('15:00'), attendee: { name: 'Bea Booker', email: 'bea@example.com', timeZone: 'Europe/Paris' } },
    });
    assert.equal(booked.status, 201, booked.text);
    const { uid, icsUid } = booked.body.data;
    const referencesOf = async (key: string) => (await api.request('GET', `/v2/bookings/${uid}/references`, { key, version: BOOKINGS_VERSION })).body.data as any[];
    // The write job records the reference after the provider call.
    await eventually(async () => (await referencesOf(host.apiKey)).length === 1, 10_000);
    const written = google.events('ada@gmail.example').find((event) => event.iCalUID === icsUid)!;
    assert.equal(written.start?.dateTime && Date.parse(written.start.dateTime), at('15:00'));
    assert.ok(written.attendees?.some((attendee) => attendee.email === 'bea@example.com'));
    const references = await api.request('GET', `/v2/bookings/${uid}/references`, { key: host.apiKey, version: BOOKINGS_VERSION });
    assert.deepEqual(references.body.data, [{ id: references.body.data[0].id, type: 'google_calendar', eventUid: written.id, destinationCalendarId: 'ada@gmail.example' }]);
    // The copy read back is the booking's own: syncing does not make 15:00 busy twice, and the cancel frees it.
    await syncAll();
    const cancelled = await api.request('POST', `/v2/bookings/${uid}/cancel`, { key: host.apiKey, version: BOOKINGS_VERSION, body: { cancellationReason: 'Moved away' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.ok((await starts()).includes(iso('15:00')));
    await eventually(async () => google.event('ada@gmail.example', written.id)?.status === 'cancelled', 10_000);
  });

  test('Microsoft: connected and read the same way; a booking is written (its UID on the event) without Exchange inviting anyone', async () => {
    const other = await createHost(api, 'Europe/London', { name: 'Otto Host', email: 'otto.host@example.com' });
    const otherType = await createEventType(api, other, { lengthInMinutes: 60, title: 'Review' });
    const otherStarts = async () => startsOf(await slotsOf(api, { eventTypeId: otherType.id, start: MONDAY, end: MONDAY }));
    microsoft.addEvent(microsoft.defaultCalendarId, { subject: 'Board', start: at('11:00'), end: at('12:00'), showAs: 'busy' });
    assert.ok((await otherStarts()).includes(iso('11:00')));
    const { saved } = await connect('office365', other.apiKey);
    assert.equal(saved.status, 301, await saved.text());
    assert.ok(!(await otherStarts()).includes(iso('11:00')));
    const booked = await api.request('POST', '/v2/bookings', {
      version: BOOKINGS_VERSION,
      body: { eventTypeId: otherType.id, start: iso('16:00'), attendee: { name: 'Cy Client', email: 'cy@example.com', timeZone: 'Europe/Paris' } },
    });
    assert.equal(booked.status, 201, booked.text);
    const { uid, icsUid } = booked.body.data;
    const mine = () => microsoft.events(microsoft.defaultCalendarId).filter((event) => event.subject !== 'Board');
    await eventually(async () => (await api.request('GET', `/v2/bookings/${uid}/references`, { key: other.apiKey, version: BOOKINGS_VERSION })).body.data.length === 1, 10_000);
    const [written] = mine();
    assert.equal(written!.start, at('16:00'));
    assert.ok(written!.transactionId?.includes(icsUid), 'the booking UID rides on the event');
    assert.deepEqual(microsoft.invitationsSent, [], 'svc mails its own invitations');
    const references = await api.request('GET', `/v2/bookings/${uid}/references`, { key: other.apiKey, version: BOOKINGS_VERSION });
    assert.equal(references.body.data[0]?.type, 'office365_calendar');
    assert.equal(references.body.data[0]?.eventUid, written!.id);
    assert.equal((await api.request('GET', `/v2/bookings/${uid}/references`, { key: host.apiKey, version: BOOKINGS_VERSION })).status, 403);
  });

  test('a revoked Google grant marks the connection invalid and the host unavailable, never free', async () => {
    google.revokeAccess();
    const outcomes = await syncAll();
    assert.ok(outcomes.includes('failed'), outcomes.join());
    const listed = await api.request('GET', '/v2/calendars', { key: host.apiKey });
    const connection = listed.body.data.connectedCalendars.find((entry: any) => entry.integration.type === 'google_calendar');
    assert.equal(connection.invalid, true);
    assert.deepEqual(await starts(), []);
    const check = await api.request('GET', '/v2/calendars/google/check', { key: host.apiKey });
    assert.equal(check.status, 400);
    // Another user cannot see or disconnect it.
    const theirs = await api.request('POST', '/v2/calendars/google/disconnect', { key: stranger.apiKey, body: { id: connection.credentialId } });
    assert.equal(theirs.status, 404);
  });
});
