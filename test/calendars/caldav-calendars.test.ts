// CalDAV accounts end to end against a real Radicale: connected through the API, read for busy time,
// kept in sync incrementally, selected and unselected, and refused when the server refuses.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { CALENDAR_READERS } from '../../src/modules/calendars/calendar-providers.js';
import { syncCalendarSource } from '../../src/modules/calendars/calendar-sync.js';
import { eventIcs, RADICALE_SKIP, type RadicaleServer, startRadicale } from '../support/radicale.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createEventType, createHost, type Host, slotsOf, startsOf } from '../slots/helpers.js';

const PASSWORD = 'app-specific-Pa55word';
// 2027-01-11 is a Monday; London is on UTC then.
const MONDAY = '2027-01-11';
const at = (time: string) => new Date(`${MONDAY}T${time}:00.000Z`);
const iso = (time: string) => at(time).toISOString();

describe('CalDAV calendars through the API', { skip: RADICALE_SKIP }, () => {
  let radicale: RadicaleServer;
  let api: TestApp;
  let host: Host;
  let eventType: any;

  before(async () => {
    radicale = await startRadicale({ users: { ada: PASSWORD } });
    await radicale.createCalendar('ada', 'work', { name: 'Work' });
    await radicale.createCalendar('ada', 'family', { name: 'Family' });
    api = await createTestApp();
    host = await createHost(api, 'Europe/London');
    eventType = await createEventType(api, host, { lengthInMinutes: 60 });
  });
  after(async () => {
    await api?.close();
    await radicale?.stop();
  });

  const starts = async () => startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY }));

  async function syncAll(): Promise<string[]> {
    const { ctx } = api.runtime;
    const rows = (await ctx.database.db.execute(sql`select id from calendar_sources where user_id = ${host.userId} and selected order by id`)) as unknown as { rows: { id: number }[] };
    const deps = { database: ctx.database, secrets: ctx.secrets, config: ctx.config, readers: CALENDAR_READERS, clock: ctx.clock, changes: ctx.changes };
    const outcomes: string[] = [];
    for (const row of rows.rows) outcomes.push(await syncCalendarSource(deps, row.id, Date.now()));
    return outcomes;
  }

  test('wrong credentials save nothing; the password never appears in an answer', async () => {
    const response = await api.request('POST', '/v2/calendars/caldav/credentials', {
      key: host.apiKey,
      body: { serverUrl: radicale.baseUrl, username: 'ada', password: 'wrong-password' },
    });
    assert.equal(response.status, 400, response.text);
    assert.match(response.body.error.message, /^Could not add this CalDAV account: unauthorized/);
    assert.ok(!response.text.includes('wrong-password'));
    assert.deepEqual((await api.request('GET', '/v2/calendars', { key: host.apiKey })).body.data.connectedCalendars, []);
    const empty = await api.request('POST', '/v2/calendars/apple/credentials', { key: host.apiKey, body: { serverUrl: radicale.baseUrl, username: 'ada', password: '' } });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error.message, 'Username or password cannot be empty');
  });

  test('connecting reads the primary calendar at once: its events are busy, the other calendar is not read until selected', async () => {
    const work = radicale.calendarUrl('ada', 'work');
    const family = radicale.calendarUrl('ada', 'family');
    await radicale.putRaw('ada', `${work}meeting.ics`, eventIcs('meeting', at('10:00'), at('11:00'), 'Board meeting'));
    await radicale.putRaw('ada', `${family}school.ics`, eventIcs('school', at('14:00'), at('15:00'), 'School run'));
    const saved = await api.request('POST', '/v2/calendars/apple/credentials', { key: host.apiKey, body: { serverUrl: radicale.baseUrl, username: 'ada', password: PASSWORD } });
    assert.equal(saved.status, 201, saved.text);
    assert.deepEqual(saved.body, { status: 'success' });
    const listed = await api.request('GET', '/v2/calendars', { key: host.apiKey });
    assert.ok(!listed.text.includes(PASSWORD));
    const [connection] = listed.body.data.connectedCalendars;
    assert.equal(connection.integration.type, 'apple_calendar');
    const byName = new Map(connection.calendars.map((calendar: any) => [calendar.name, calendar]));
    const primary = connection.primary;
    assert.ok(primary?.primary, 'one calendar is primary');
    assert.equal((byName.get(primary.name) as any).isSelected, true);
    const other = connection.calendars.find((calendar: any) => !calendar.primary);
    assert.equal(other.isSelected, false);
    const primaryIsWork = primary.name === 'Work';
    let open = await starts();
    assert.equal(open.includes(iso('10:00')), !primaryIsWork, `${primary.name} is read: ${open}`);
    assert.equal(open.includes(iso('14:00')), primaryIsWork);

    // Selecting the other calendar reads it at once; unselecting stops counting it.
    const select = await api.request('POST', '/v2/selected-calendars', {
      key: host.apiKey,
      body: { integration: 'apple_calendar', externalId: other.externalId, credentialId: connection.credentialId },
    });
    assert.equal(select.status, 201, select.text);
    assert.deepEqual(select.body.data, { userId: host.userId, integration: 'apple_calendar', externalId: other.externalId, credentialId: connection.credentialId });
    open = await starts();
    assert.ok(!open.includes(iso('10:00')) && !open.includes(iso('14:00')), `both calendars are read: ${open}`);
    const search = new URLSearchParams({ integration: 'apple_calendar', externalId: other.externalId, credentialId: String(connection.credentialId) });
    const unselect = await api.request('DELETE', `/v2/selected-calendars?${search}`, { key: host.apiKey });
    assert.equal(unselect.status, 200, unselect.text);
    open = await starts();
    assert.equal(open.includes(iso('14:00')), primaryIsWork);
    assert.equal((await api.request('DELETE', `/v2/selected-calendars?${search}`, { key: host.apiKey })).status, 404);
  });

  test('changes made in the calendar reach the slots with the next incremental sync', async () => {
    const calendars = (await api.request('GET', '/v2/calendars', { key: host.apiKey })).body.data.connectedCalendars[0];
    const primaryUrl = calendars.primary.externalId as string;
    await radicale.putRaw('ada', `${primaryUrl}lunch.ics`, eventIcs('lunch', at('12:00'), at('13:00'), 'Lunch'));
    assert.ok((await starts()).includes(iso('12:00')), 'not seen before a sync');
    assert.deepEqual(await syncAll(), ['synced']);
    assert.ok(!(await starts()).includes(iso('12:00')));
    await radicale.deleteRaw('ada', `${primaryUrl}lunch.ics`);
    assert.deepEqual(await syncAll(), ['synced']);
    assert.ok((await starts()).includes(iso('12:00')), 'a deleted event frees its time');
    assert.deepEqual(await syncAll(), ['unchanged']);
    const state = (await api.runtime.ctx.database.db.execute(sql`select sync_state from calendar_sources where user_id = ${host.userId} and selected`)) as unknown as { rows: { sync_state: { syncToken: string | null } }[] };
    assert.ok(state.rows[0]!.sync_state.syncToken, 'the sync token of RFC 6578 is kept for the next read');
  });

  test('a server that stops accepting the password marks the connection invalid and the host busy', async () => {
    const other = await createHost(api, 'Europe/London');
    const own = await createEventType(api, other, { lengthInMinutes: 60 });
    const rad = await startRadicale({ users: { bob: 'first-password' } });
    try {
      await rad.createCalendar('bob', 'main', { name: 'Main' });
      const saved = await api.request('POST', '/v2/calendars/caldav/credentials', { key: other.apiKey, body: { serverUrl: rad.baseUrl, username: 'bob', password: 'first-password' } });
      assert.equal(saved.status, 201, saved.text);
      assert.ok(startsOf(await slotsOf(api, { eventTypeId: own.id, start: MONDAY, end: MONDAY })).length > 0);
      // The password is changed at the provider: point the stored connection at a server that refuses it.
      const refusing = await startRadicale({ users: { bob: 'changed-password' } });
      try {
        await refusing.createCalendar('bob', 'main', { name: 'Main' });
        const { ctx } = api.runtime;
        const row = (await ctx.database.db.execute(sql`select c.id, c.credentials_sealed, s.id as source_id from calendar_connections c join calendar_sources s on s.connection_id = c.id where c.user_id = ${other.userId}`)) as unknown as { rows: { id: number; credentials_sealed: string; source_id: number }[] };
        const credentials = JSON.parse(ctx.secrets.open(row.rows[0]!.credentials_sealed));
        const moved = ctx.secrets.seal(JSON.stringify({ ...credentials, serverUrl: refusing.baseUrl }));
        const source = (await ctx.database.db.execute(sql`select external_id from calendar_sources where id = ${row.rows[0]!.source_id}`)) as unknown as { rows: { external_id: string }[] };
        await ctx.database.db.execute(sql`update calendar_connections set credentials_sealed = ${moved} where id = ${row.rows[0]!.id}`);
        await ctx.database.db.execute(sql`update calendar_sources set external_id = ${source.rows[0]!.external_id.replace(rad.baseUrl, refusing.baseUrl)} where id = ${row.rows[0]!.source_id}`);
        const deps = { database: ctx.database, secrets: ctx.secrets, config: ctx.config, readers: CALENDAR_READERS, clock: ctx.clock, changes: ctx.changes };
        assert.equal(await syncCalendarSource(deps, row.rows[0]!.source_id, Date.now()), 'failed');
        const slots = await api.request('GET', `/v2/slots?eventTypeId=${own.id}&start=${MONDAY}&end=${MONDAY}`, { version: '2024-09-04' });
        assert.deepEqual(slots.body.data, {});
        assert.equal(slots.body.degradedHosts[0].reason, 'invalid_credentials');
        const check = await api.request('GET', '/v2/calendars/caldav/check', { key: other.apiKey });
        assert.equal(check.status, 400);
        assert.equal(check.body.error.message, 'Invalid caldav calendar credentials.');
        // The owner is told once, by mail.
        const mail = (await ctx.database.db.execute(sql`select count(*)::int as count from mail_messages where kind = 'calendarBroken' and recipient_email = ${(await api.request('GET', '/v2/me', { key: other.apiKey })).body.data.email}`)) as unknown as { rows: { count: number }[] };
        assert.equal(mail.rows[0]!.count, 1);
        assert.equal(await syncCalendarSource(deps, row.rows[0]!.source_id, Date.now()), 'skipped');
      } finally {
        await refusing.stop();
      }
    } finally {
      await rad.stop();
    }
  });
});
