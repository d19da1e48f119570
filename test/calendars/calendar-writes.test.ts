// Bookings written into their hosts' CalDAV calendars (a real Radicale), by the job runner of the test
// app: created with the booking's UID and SEQUENCE, moved in place on reschedule, rewritten over a
// host's own edit, deleted on cancel; listed as the booking's references; and the copy a sync reads
// back never counts twice against the host's time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { CALENDAR_READERS } from '../../src/modules/calendars/calendar-providers.js';
import { syncCalendarSource } from '../../src/modules/calendars/calendar-sync.js';
import { eventually } from '../support/eventually.js';
import { RADICALE_SKIP, type RadicaleServer, startRadicale } from '../support/radicale.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createEventType, createHost, type Host, slotsOf, startsOf } from '../slots/helpers.js';
import { createClient, createManagedUser } from '../platform/helpers.js';
import { createOrganization } from '../support/tenancy.js';

const BOOKINGS_VERSION = '2024-08-13';
const PASSWORD = 'caldav-Pa55word';
// 2027-01-11 is a Monday; London is on UTC then.
const MONDAY = '2027-01-11';
const iso = (time: string) => new Date(`${MONDAY}T${time}:00.000Z`).toISOString();

describe('bookings written into CalDAV calendars', { skip: RADICALE_SKIP }, () => {
  let radicale: RadicaleServer;
  let api: TestApp;
  let host: Host;
  let stranger: Host;
  let eventType: any;
  let calendarUrl: string;
  /** A host with two calendars, her own destination chosen (set by the destination test). */
  let cleo: Host;

  before(async () => {
    radicale = await startRadicale({ users: { ada: PASSWORD, cleo: PASSWORD, mo: PASSWORD } });
    calendarUrl = await radicale.createCalendar('ada', 'work', { name: 'Work' });
    api = await createTestApp();
    host = await createHost(api, 'Europe/London', { name: 'Ada Host', email: 'ada.host@example.com' });
    stranger = await createHost(api, 'Europe/London');
    eventType = await createEventType(api, host, { lengthInMinutes: 60, title: 'Consultation' });
    const saved = await api.request('POST', '/v2/calendars/caldav/credentials', { key: host.apiKey, body: { serverUrl: radicale.baseUrl, username: 'ada', password: PASSWORD } });
    assert.equal(saved.status, 201, saved.text);
  });
  after(async () => {
    await api?.close();
    await radicale?.stop();
  });

  /** The objects Radicale stores in the work calendar, by file name. */
  function storedObjects(): Map<string, string> {
    const folder = path.join(radicale.storageDir, 'collection-root', 'ada', 'work');
    const objects = new Map<string, string>();
    for (const name of fs.readdirSync(folder)) {
      if (!name.endsWith('.ics')) continue;
      // Radicale may replace or delete an object between the listing and the read (a write job running meanwhile).
      try {
        objects.set(name, fs.readFileSync(path.join(folder, name), 'utf8'));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    return objects;
  }
  const unfold = (ics: string) => ics.replace(/\r?\n[ \t]/g, '');
  const eventOf = (icsUid: string) => {
    const ics = storedObjects().get(`${icsUid}.ics`);
    return ics === undefined ? undefined : unfold(ics);
  };

  async function book(time: string, attendee = { name: 'Bea Booker', email: 'bea@example.com' }) {
    const response = await api.request('POST', '/v2/bookings', {
      version: BOOKINGS_VERSION,
      body: { eventTypeId: eventType.id, start: iso(time), attendee: { ...attendee, timeZone: 'Europe/Paris' } },
    });
    assert.equal(response.status, 201, response.text);
    return response.body.data;
  }
  const references = (uid: string, key = host.apiKey) => api.request('GET', `/v2/bookings/${uid}/references`, { key, version: BOOKINGS_VERSION });
  /** Until the write job has recorded the booking's event (it does so after the provider call). */
  const written = (uid: string, key = host.apiKey) => eventually(async () => (await references(uid, key)).body.data?.length === 1, 10_000);
  const starts = async () => startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }));

  async function syncAll(): Promise<string[]> {
    const { ctx } = api.runtime;
    const rows = (await ctx.database.db.execute(sql`select id from calendar_sources where user_id = ${host.userId} and selected`)) as unknown as { rows: { id: number }[] };
    const deps = { database: ctx.database, secrets: ctx.secrets, config: ctx.config, readers: CALENDAR_READERS, clock: ctx.clock, changes: ctx.changes };
    const outcomes: string[] = [];
    for (const row of rows.rows) outcomes.push(await syncCalendarSource(deps, row.id, Date.now()));
    return outcomes;
  }

  test('a booking becomes an event in the host calendar, with its UID, SEQUENCE 0 and no METHOD, listed as its reference', async () => {
    const booking = await book('10:00');
    const icsUid = booking.icsUid as string;
    await written(booking.uid);
    const event = eventOf(icsUid)!;
    assert.match(event, new RegExp(`^UID:${icsUid}\\r?$`, 'm'));
    assert.match(event, /^SEQUENCE:0\r?$/m);
    assert.doesNotMatch(event, /^METHOD:/m, 'a stored calendar object carries no METHOD (RFC 4791 4.1)');
    assert.match(event, /^DTSTART:20270111T100000Z\r?$/m);
    assert.match(event, /^DTEND:20270111T110000Z\r?$/m);
    assert.match(event, /^SUMMARY:Consultation/m);
    assert.match(event, /^ORGANIZER;CN="?Ada Host"?:mailto:ada\.host@example\.com\r?$/m);
    // svc mails its own invitation: the calendar server must not send another (RFC 6638).
    assert.match(event, /^ATTENDEE;.*SCHEDULE-AGENT=CLIENT.*:mailto:bea@example\.com\r?$/im);
    assert.match(event, /Manage this booking: .*\/booking\//);

    const listed = await references(booking.uid);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.data, [{ id: listed.body.data[0].id, type: 'caldav_calendar', eventUid: icsUid, destinationCalendarId: calendarUrl }]);
    assert.deepEqual((await api.request('GET', `/v2/bookings/${booking.uid}/references?type=google_calendar`, { key: host.apiKey, version: BOOKINGS_VERSION })).body.data, []);
    assert.equal((await references(booking.uid, stranger.apiKey)).status, 403);
  });

  test('hideCalendarNotes leaves the notes out of the event; hideCalendarEventDetails makes it CLASS:PRIVATE', async () => {
    const notesOf = (uid: string) => eventOf(uid) ?? '';
    const bookWithNotes = async (typeId: number, time: string) => {
      const response = await api.request('POST', '/v2/bookings', {
        version: BOOKINGS_VERSION,
        body: { eventTypeId: typeId, start: iso(time), attendee: { name: 'Bea Booker', email: 'bea@example.com', timeZone: 'UTC' }, bookingFieldsResponses: { notes: 'Bring the Q3 numbers' } },
      });
      assert.equal(response.status, 201, response.text);
      await written(response.body.data.uid);
      return response.body.data.icsUid as string;
    };
    const open = await bookWithNotes(eventType.id, '13:00');
    assert.match(notesOf(open), /Bring the Q3 numbers/);
    assert.doesNotMatch(notesOf(open), /^CLASS:/m);
    const discreet = await createEventType(api, host, { lengthInMinutes: 60, title: 'Discreet', hideCalendarNotes: true, hideCalendarEventDetails: true });
    const hidden = await bookWithNotes(discreet.id, '16:00');
    assert.doesNotMatch(notesOf(hidden), /Q3 numbers/);
    assert.match(notesOf(hidden), /^CLASS:PRIVATE/m);
    assert.match(notesOf(hidden), /^SUMMARY:Discreet/m);
  });

  test('privateNoteEnabled: a private note event beside the booking\'s, from the template, without attendees; it moves and goes with the booking and never blocks it', async () => {
    const noted = await createEventType(api, host, {
      lengthInMinutes: 60,
      title: 'Noted',
      privateNoteEnabled: true,
      privateNoteMode: 'duplicate_event',
      privateNoteTemplate: 'Prep for {Attendee name} ({Event duration}) at {Location}: {notes} {Unknown field}',
      locations: [{ type: 'address', address: 'Harbour Office', public: true }],
    });
    const booked = await api.request('POST', '/v2/bookings', {
      version: BOOKINGS_VERSION,
      body: { eventTypeId: noted.id, start: iso('11:00'), attendee: { name: 'Nia Note', email: 'nia@example.com', timeZone: 'UTC' }, bookingFieldsResponses: { notes: 'wants the pricing sheet' } },
    });
    assert.equal(booked.status, 201, booked.text);
    const { uid, icsUid } = booked.body.data as { uid: string; icsUid: string };
    const noteOf = () => eventOf(`${icsUid}-note`);
    await eventually(async () => noteOf() !== undefined && eventOf(icsUid) !== undefined, 10_000);
    const note = noteOf()!;
    assert.match(note, /^DESCRIPTION:Prep for Nia Note \(60 minutes\) at Harbour Office: wants the pricing sheet \{Unknown field\}/m);
    assert.match(note, /^CLASS:PRIVATE/m);
    assert.doesNotMatch(note, /^ATTENDEE/m, 'the note is the hosts\' own: nobody is invited to it');
    assert.match(note, /^DTSTART:20270111T110000Z/m);
    // The booking's references list its own event only.
    assert.deepEqual((await references(uid)).body.data.map((ref: { eventUid: string }) => ref.eventUid), [icsUid]);
    // Read back by the next sync, neither event blocks the booking's own time (a reschedule could not move to it otherwise).
    await syncAll();
    const busy = (await api.runtime.ctx.database.db.execute(sql`select count(*)::int as count from calendar_busy_times where user_id = ${host.userId} and uid like ${`${icsUid}%`}`)) as unknown as { rows: { count: number }[] };
    assert.equal(busy.rows[0]!.count, 0);

    const moved = await api.request('POST', `/v2/bookings/${uid}/reschedule`, { version: BOOKINGS_VERSION, body: { start: iso('15:00'), reschedulingReason: 'later' } });
    assert.equal(moved.status, 201, moved.text);
    await eventually(async () => /^DTSTART:20270111T150000Z/m.test(noteOf() ?? ''), 10_000);
    const cancelled = await api.request('POST', `/v2/bookings/${moved.body.data.uid}/cancel`, { key: host.apiKey, version: BOOKINGS_VERSION, body: { cancellationReason: 'Off' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    await eventually(async () => noteOf() === undefined && eventOf(icsUid) === undefined, 10_000);
  });

  test("a platform client's areCalendarEventsEnabled false: its managed users' bookings write no calendar events", async () => {
    await radicale.createCalendar('mo', 'work', { name: 'Work' });
    const platform = await createOrganization(api, { isPlatform: true });
    const client = await createClient(api, platform.owner.apiKey, { areCalendarEventsEnabled: false });
    const managed = await createManagedUser(api, client, { timeZone: 'Europe/London' });
    const connected = await api.request('POST', '/v2/calendars/caldav/credentials', { key: managed.accessToken, body: { serverUrl: radicale.baseUrl, username: 'mo', password: PASSWORD } });
    assert.equal(connected.status, 201, connected.text);
    const created = await api.request('POST', '/v2/event-types', { key: managed.accessToken, version: '2024-06-14', body: { title: 'Managed call', slug: `managed-call-${Date.now()}`, lengthInMinutes: 30, minimumBookingNotice: 0 } });
    assert.equal(created.status, 201, created.text);
    const bookAt = async (time: string) => {
      const response = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId: created.body.data.id, start: iso(time), attendee: { name: 'Bea Booker', email: 'bea@example.com', timeZone: 'UTC' } } });
      assert.equal(response.status, 201, response.text);
      return response.body.data;
    };
    const writeJobsOf = async (icsUid: string) =>
      ((await api.runtime.ctx.database.db.execute(sql`select count(*)::int as n from jobs where kind = 'calendar.write' and payload ->> 'icsUid' = ${icsUid}`)) as unknown as { rows: { n: number }[] }).rows[0]!.n;
    // The interest is decided in the booking's transaction: no write job, so nothing can reach the calendar.
    const off = await bookAt('10:00');
    assert.equal(await writeJobsOf(off.icsUid), 0);
    assert.equal((await references(off.uid, managed.accessToken)).body.data.length, 0);
    // Turned on: the next booking is written.
    const patched = await api.request('PATCH', `/v2/oauth-clients/${client.clientId}`, { key: platform.owner.apiKey, body: { areCalendarEventsEnabled: true } });
    assert.equal(patched.status, 200, patched.text);
    const on = await bookAt('11:00');
    assert.equal(await writeJobsOf(on.icsUid), 1);
    await written(on.uid, managed.accessToken);
    assert.ok(fs.existsSync(path.join(radicale.storageDir, 'collection-root', 'mo', 'work', `${on.icsUid}.ics`)));
  });

  test('a reschedule moves the same event (same UID, SEQUENCE up); the copy a sync reads back never holds the old time', async () => {
    const booking = await book('12:00', { name: 'Cy Client', email: 'cy@example.com' });
    const icsUid = booking.icsUid as string;
    await written(booking.uid);
    assert.deepEqual(await syncAll(), ['synced'], 'the sync read the event svc wrote');
    const copies = (await api.runtime.ctx.database.db.execute(sql`select count(*)::int as n from calendar_busy_times where uid = ${icsUid}`)) as unknown as { rows: { n: number }[] };
    assert.equal(copies.rows[0]!.n, 0, "the copy of the host's own booking is not stored as outside busy time");

    const moved = await api.request('POST', `/v2/bookings/${booking.uid}/reschedule`, { version: BOOKINGS_VERSION, body: { start: iso('15:00'), rescheduledBy: 'cy@example.com' } });
    assert.equal(moved.status, 201, moved.text);
    // Before the event is rewritten or read again, 12:00 is free: the booking, not its stale copy, counts.
    const open = await starts();
    assert.ok(open.includes(iso('12:00')), `12:00 is free again: ${open}`);
    assert.ok(!open.includes(iso('15:00')));

    await eventually(async () => /DTSTART:20270111T150000Z/.test(eventOf(icsUid) ?? ''), 10_000);
    const event = eventOf(icsUid)!;
    assert.match(event, /^SEQUENCE:[1-9]\d*\r?$/m);
    assert.equal([...storedObjects().keys()].filter((name) => name === `${icsUid}.ics`).length, 1);
    assert.deepEqual((await references(booking.uid)).body.data, [], 'the reference follows the booking that now carries the event');
    const successor = moved.body.data.uid as string;
    await written(successor);
    assert.equal((await references(successor)).body.data[0]?.eventUid, icsUid);
  });

  test("a host's own edit of the event is overwritten by the next change; a cancel deletes the event", async () => {
    const booking = await book('09:00', { name: 'Di Visitor', email: 'di@example.com' });
    const icsUid = booking.icsUid as string;
    await written(booking.uid);
    // The host edits the event in their calendar app: the ETag svc holds is stale now.
    const edited = storedObjects().get(`${icsUid}.ics`)!.replace(/SUMMARY:[^\r\n]*/, 'SUMMARY:Edited by the host');
    await radicale.putRaw('ada', `${calendarUrl}${icsUid}.ics`, edited);
    const located = await api.request('PATCH', `/v2/bookings/${booking.uid}/location`, {
      key: host.apiKey,
      version: BOOKINGS_VERSION,
      body: { location: { type: 'address', address: 'Main Street 1' } },
    });
    assert.equal(located.status, 200, located.text);
    await eventually(async () => /LOCATION:Main Street 1/.test(eventOf(icsUid) ?? ''), 10_000);
    assert.match(eventOf(icsUid)!, /^SUMMARY:Consultation/m);

    const cancelled = await api.request('POST', `/v2/bookings/${booking.uid}/cancel`, { key: host.apiKey, version: BOOKINGS_VERSION, body: { cancellationReason: 'Ill' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    await eventually(async () => eventOf(icsUid) === undefined && (await references(booking.uid)).body.data.length === 0, 10_000);
  });

  test('PUT /v2/destination-calendars: bookings go to the chosen calendar; only a calendar of your own connections', async () => {
    await radicale.createCalendar('cleo', 'work', { name: 'Work' });
    await radicale.createCalendar('cleo', 'private', { name: 'Private' });
    cleo = await createHost(api, 'Europe/London', { name: 'Cleo Host', email: 'cleo.host@example.com' });
    const cleoType = await createEventType(api, cleo, { lengthInMinutes: 30, title: 'Intro' });
    const saved = await api.request('POST', '/v2/calendars/caldav/credentials', { key: cleo.apiKey, body: { serverUrl: radicale.baseUrl, username: 'cleo', password: PASSWORD } });
    assert.equal(saved.status, 201, saved.text);
    let listed = await api.request('GET', '/v2/calendars', { key: cleo.apiKey });
    assert.equal(listed.body.data.destinationCalendar, null, 'none chosen yet');
    const [connection] = listed.body.data.connectedCalendars;
    const other = connection.calendars.find((calendar: any) => !calendar.primary);
    const otherSlug = other.externalId.includes('/private/') ? 'private' : 'work';

    assert.equal((await api.request('PUT', '/v2/destination-calendars', { key: stranger.apiKey, body: { integration: 'caldav_calendar', externalId: other.externalId } })).status, 404);
    const chosen = await api.request('PUT', '/v2/destination-calendars', { key: cleo.apiKey, body: { integration: 'caldav_calendar', externalId: other.externalId } });
    assert.equal(chosen.status, 200, chosen.text);
    assert.deepEqual(chosen.body.data, { userId: cleo.userId, integration: 'caldav_calendar', externalId: other.externalId, credentialId: connection.credentialId });
    listed = await api.request('GET', '/v2/calendars', { key: cleo.apiKey });
    assert.equal(listed.body.data.destinationCalendar.externalId, other.externalId);
    assert.equal(listed.body.data.destinationCalendar.credentialId, connection.credentialId);

    const booked = await api.request('POST', '/v2/bookings', {
      version: BOOKINGS_VERSION,
      body: { eventTypeId: cleoType.id, start: iso('11:00'), attendee: { name: 'Eve Guest', email: 'eve@example.com', timeZone: 'UTC' } },
    });
    assert.equal(booked.status, 201, booked.text);
    const file = (slug: string) => path.join(radicale.storageDir, 'collection-root', 'cleo', slug, `${booked.body.data.icsUid}.ics`);
    await written(booked.body.data.uid, cleo.apiKey);
    assert.ok(fs.existsSync(file(otherSlug)));
    assert.ok(!fs.existsSync(file(otherSlug === 'work' ? 'private' : 'work')), 'written into the chosen calendar only');
    assert.equal((await references(booked.body.data.uid, cleo.apiKey)).body.data[0]?.destinationCalendarId, other.externalId);
  });

  test("an event type's destinationCalendar takes its bookings ahead of the user's; only your own calendar; shown to you only", async () => {
    const listed = await api.request('GET', '/v2/calendars', { key: cleo.apiKey });
    const userDestination = listed.body.data.destinationCalendar.externalId;
    const typeCalendar = listed.body.data.connectedCalendars[0].calendars.find((calendar: any) => calendar.externalId !== userDestination);
    const slugOf = (externalId: string) => (externalId.includes('/private/') ? 'private' : 'work');
    const named = { integration: 'caldav_calendar', externalId: typeCalendar.externalId };

    // Someone else's calendar, or a calendar of a kind nobody connected: 400 naming the field, nothing written.
    const foreign = await api.request('POST', '/v2/event-types', { key: stranger.apiKey, version: '2024-06-14', body: { title: 'Theirs', slug: `theirs-${Date.now()}`, lengthInMinutes: 30, destinationCalendar: named } });
    assert.equal(foreign.status, 400, foreign.text);
    assert.match(foreign.body.error.message, /destinationCalendar/);
    assert.equal((await api.request('GET', '/v2/event-types', { key: stranger.apiKey, version: '2024-06-14' })).body.data.some((type: any) => type.title === 'Theirs'), false);

    const created = await api.request('POST', '/v2/event-types', {
      key: cleo.apiKey,
      version: '2024-06-14',
      body: { title: 'Deep dive', slug: `deep-dive-${Date.now()}`, lengthInMinutes: 30, minimumBookingNotice: 0, destinationCalendar: named },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.data.destinationCalendar, named);
    const typeId = created.body.data.id;
    const fetched = await api.request('GET', `/v2/event-types/${typeId}`, { key: cleo.apiKey, version: '2024-06-14' });
    assert.deepEqual(fetched.body.data.destinationCalendar, named);
    // The public listing of her event types does not name her calendars.
    const publicList = await api.request('GET', `/v2/event-types?username=${cleo.username}`, { version: '2024-06-14' });
    const shown = publicList.body.data.find((type: any) => type.id === typeId);
    assert.ok(shown, publicList.text);
    assert.equal('destinationCalendar' in shown, false);

    const booked = await api.request('POST', '/v2/bookings', {
      version: BOOKINGS_VERSION,
      body: { eventTypeId: typeId, start: iso('13:00'), attendee: { name: 'Eve Guest', email: 'eve@example.com', timeZone: 'UTC' } },
    });
    assert.equal(booked.status, 201, booked.text);
    const file = (slug: string) => path.join(radicale.storageDir, 'collection-root', 'cleo', slug, `${booked.body.data.icsUid}.ics`);
    await written(booked.body.data.uid, cleo.apiKey);
    assert.ok(fs.existsSync(file(slugOf(typeCalendar.externalId))), "written into the event type's calendar");
    assert.ok(!fs.existsSync(file(slugOf(userDestination))), "not into the user's destination");

    // Pointed at the user's destination: the booking's event moves there with its next change.
    const patched = await api.request('PATCH', `/v2/event-types/${typeId}`, { key: cleo.apiKey, version: '2024-06-14', body: { destinationCalendar: { integration: 'caldav_calendar', externalId: userDestination } } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.destinationCalendar.externalId, userDestination);
    const relocated = await api.request('PATCH', `/v2/bookings/${booked.body.data.uid}/location`, { key: cleo.apiKey, version: BOOKINGS_VERSION, body: { location: { type: 'address', address: 'Main Street 2' } } });
    assert.equal(relocated.status, 200, relocated.text);
    await eventually(async () => fs.existsSync(file(slugOf(userDestination))) && !fs.existsSync(file(slugOf(typeCalendar.externalId))), 10_000);
  });
});

