// Push from Google and Microsoft against the local provider servers: a channel (events.watch, a Graph
// subscription) is opened when a calendar is read, the provider's notifications make svc read the
// calendar within seconds (polling drops to SVC_CALENDAR_PUSH_POLL_MS), notifications without the
// channel's token change nothing, and channels are opened again before they end.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { calendarReaders } from '../../src/modules/calendars/calendar-oauth.js';
import { ensurePushChannel, PUSH_RETRY_AFTER_MS } from '../../src/modules/calendars/calendar-push.js';
import { sweepDueCalendars } from '../../src/modules/calendars/calendar-sync.js';
import { findSourceForSync } from '../../src/modules/calendars/calendars.repository.js';
import { eventually } from '../support/eventually.js';
import type { FakeGoogle } from '../support/fake-google.js';
import type { FakeMicrosoft } from '../support/fake-microsoft.js';
import { connectOAuthCalendar, startCalendarProviders } from '../support/oauth-calendar-connect.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createEventType, createHost, type Host, slotsOf, startsOf } from '../slots/helpers.js';

const APP_URL = 'https://svc.example.test';
const MONDAY = '2027-01-11';
const iso = (time: string) => new Date(Date.parse(`${MONDAY}T${time}:00.000Z`)).toISOString();
const HOUR = 3_600_000;

describe('calendar push notifications', () => {
  let google: FakeGoogle;
  let microsoft: FakeMicrosoft;
  let api: TestApp;
  let ada: Host;
  let cy: Host;

  before(async () => {
    const providers = await startCalendarProviders({ microsoftRedirectUri: `${APP_URL}/v2/calendars/office365/save`, microsoftMail: 'cy@outlook.example' });
    ({ google, microsoft } = providers);
    api = await createTestApp({
      APP_URL,
      ...providers.env,
    });
    // The providers reach this svc at its loopback address (in production: SVC_CALENDAR_PUSH_URL or an https APP_URL).
    api.runtime.ctx.config.calendars.pushUrl = api.baseUrl;
    ada = await createHost(api, 'Europe/London');
    cy = await createHost(api, 'Europe/London');
  });
  after(async () => {
    await api?.close();
    await google?.close();
    await microsoft?.close();
  });

  const rows = async <T>(query: ReturnType<typeof sql>) => ((await api.runtime.ctx.database.db.execute(query)) as unknown as { rows: T[] }).rows;
  const sourceOf = async (host: Host) => (await rows<{ id: number; next_sync_at: Date | string }>(sql`select id, next_sync_at from calendar_sources where user_id = ${host.userId} and selected`))[0]!;
  const starts = async (eventTypeId: number) => startsOf(await slotsOf(api, { eventTypeId, start: MONDAY, end: MONDAY }));

  test('Google: a channel is opened on connect; a change in the calendar reaches the slots through a notification, not a poll', async () => {
    const eventType = await createEventType(api, ada, { lengthInMinutes: 60 });
    const { saved } = await connectOAuthCalendar(api, APP_URL, 'google', ada.apiKey);
    assert.equal(saved.status, 301, await saved.text());
    assert.equal(google.channels.size, 1);
    const [channel] = [...google.channels.values()];
    assert.equal(channel!.address, `${api.baseUrl}/v2/calendars/google/notifications`);
    assert.equal(channel!.calendarId, 'ada@gmail.example');
    const stored = await rows<{ channel_id: string; token_hash: string }>(sql`select channel_id, token_hash from calendar_push_channels`);
    assert.equal(stored[0]!.channel_id, channel!.id);
    assert.notEqual(stored[0]!.token_hash, channel!.token, 'only the token\'s hash is kept');
    // With a live channel the calendar is polled hourly only.
    const source = await sourceOf(ada);
    assert.ok(new Date(source.next_sync_at).getTime() > Date.now() + HOUR - 60_000, `next sync ${source.next_sync_at}`);
    await eventually(async () => google.notificationsSent.some((sent) => sent.state === 'sync' && sent.status === 200), 5000);

    assert.ok((await starts(eventType.id)).includes(iso('10:00')));
    google.addEvent('ada@gmail.example', { summary: 'Dentist', start: { dateTime: iso('10:00') }, end: { dateTime: iso('11:00') } });
    await eventually(async () => !(await starts(eventType.id)).includes(iso('10:00')), 15_000);
    assert.ok(google.notificationsSent.some((sent) => sent.state === 'exists' && sent.status === 200));
  });

  test('a notification without the channel\'s token, or for a channel svc does not know, changes nothing', async () => {
    const [channel] = [...google.channels.values()];
    const jobsBefore = (await rows<{ count: number }>(sql`select count(*)::int as count from jobs where kind = 'calendar.sync'`))[0]!.count;
    const forged = await fetch(`${api.baseUrl}/v2/calendars/google/notifications`, { method: 'POST', headers: { 'x-goog-channel-id': channel!.id, 'x-goog-channel-token': 'guessed', 'x-goog-resource-state': 'exists' } });
    assert.equal(forged.status, 404);
    assert.equal((await forged.json()).status, 'error');
    const unknown = await fetch(`${api.baseUrl}/v2/calendars/google/notifications`, { method: 'POST', headers: { 'x-goog-channel-id': 'nope', 'x-goog-channel-token': channel!.token } });
    assert.equal(unknown.status, 404);
    // Google's channel named on the Microsoft route does not count either.
    const crossed = await api.request('POST', '/v2/calendars/office365/notifications', { body: { value: [{ subscriptionId: channel!.id, clientState: channel!.token }] } });
    assert.equal(crossed.status, 202, crossed.text);
    assert.equal(crossed.body.data.received, 0);
    const jobsAfter = (await rows<{ count: number }>(sql`select count(*)::int as count from jobs where kind = 'calendar.sync'`))[0]!.count;
    assert.equal(jobsAfter, jobsBefore);
    // Not limited per address (the providers share theirs): past the anonymous limit, still answered.
    const limited = await createTestApp({ RATE_LIMIT_ANONYMOUS: '5' });
    try {
      const statuses = new Set<number>();
      for (let i = 0; i < 8; i++) {
        statuses.add((await fetch(`${limited.baseUrl}/v2/calendars/google/notifications`, { method: 'POST', headers: { 'x-goog-channel-id': 'nope', 'x-goog-channel-token': 'x' } })).status);
      }
      assert.deepEqual([...statuses], [404]);
      // Another anonymous route on the same app is limited (the check above would pass vacuously otherwise).
      const other = new Set<number>();
      for (let i = 0; i < 8; i++) other.add((await limited.request('GET', '/v2/calendars/google/connect?isDryRun=true')).status);
      assert.ok(other.has(429), [...other].join(','));
    } finally {
      await limited.close();
    }
  });

  test('a channel with less than a day left is opened again and the old one stopped', async () => {
    const { ctx } = api.runtime;
    const deps = syncDeps();
    const [old] = [...google.channels.values()];
    const found = (await findSourceForSync(ctx.database.db, (await sourceOf(ada)).id))!;
    // Still a week left: nothing to do.
    await ensurePushChannel(deps, found, Date.now());
    assert.deepEqual([...google.channels.keys()], [old!.id]);
    const next = await ensurePushChannel(deps, found, old!.expiration - 23 * HOUR);
    assert.equal(google.channels.size, 1);
    assert.ok(!google.channels.has(old!.id), 'the old channel was stopped');
    assert.ok(next > old!.expiration - 23 * HOUR);
    const stored = await rows<{ channel_id: string }>(sql`select channel_id from calendar_push_channels`);
    assert.deepEqual(stored.map((row) => row.channel_id), [...google.channels.keys()]);
  });

  test('Microsoft: the subscription is made after svc answers Graph\'s validation; a change notification reaches the slots', async () => {
    const eventType = await createEventType(api, cy, { lengthInMinutes: 60 });
    const { saved } = await connectOAuthCalendar(api, APP_URL, 'office365', cy.apiKey);
    assert.equal(saved.status, 301, await saved.text());
    assert.equal(microsoft.subscriptions.size, 1);
    const [subscription] = [...microsoft.subscriptions.values()];
    assert.equal(subscription!.notificationUrl, `${api.baseUrl}/v2/calendars/office365/notifications`);
    assert.ok(subscription!.expiration <= Date.now() + 4230 * 60_000);
    const validation = await fetch(`${api.baseUrl}/v2/calendars/office365/notifications?validationToken=${encodeURIComponent('Validation: Token <1>')}`, { method: 'POST', headers: { 'content-type': 'text/plain' } });
    assert.equal(validation.status, 200);
    assert.match(validation.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(await validation.text(), 'Validation: Token <1>');

    assert.ok((await starts(eventType.id)).includes(iso('14:00')));
    microsoft.addEvent(microsoft.defaultCalendarId, { subject: 'Board', start: Date.parse(iso('14:00')), end: Date.parse(iso('15:00')) });
    await eventually(async () => !(await starts(eventType.id)).includes(iso('14:00')), 15_000);
    assert.ok(microsoft.notificationsSent.some((sent) => sent.changeType === 'created' && sent.status === 202));
    const wrong = await api.request('POST', '/v2/calendars/office365/notifications', { body: { value: [{ subscriptionId: subscription!.id, clientState: 'guessed' }] } });
    assert.equal(wrong.body.data.received, 0);
  });

  const syncDeps = () => {
    const { ctx } = api.runtime;
    return { database: ctx.database, secrets: ctx.secrets, config: ctx.config, readers: calendarReaders(ctx.config), clock: ctx.clock, changes: ctx.changes };
  };
  const storedChannels = async (sourceId: number) => rows<{ channel_id: string; renew: boolean }>(sql`select channel_id, renew from calendar_push_channels where source_id = ${sourceId} order by id`);

  test('Google: a channel that stops early is found out by the next poll (changes no notification announced) and opened again', async () => {
    const eventType = await createEventType(api, ada, { lengthInMinutes: 60 });
    const [stopped] = [...google.channels.values()];
    // Google ends the channel without a word: no notification comes for the next change.
    google.channels.delete(stopped!.id);
    const notified = google.notificationsSent.length;
    google.addEvent('ada@gmail.example', { summary: 'Unannounced', start: { dateTime: iso('12:00') }, end: { dateTime: iso('13:00') } });
    assert.equal(google.notificationsSent.length, notified);
    assert.ok((await starts(eventType.id)).includes(iso('12:00')), 'not read yet');
    // The hourly poll comes due.
    const source = await sourceOf(ada);
    await api.runtime.ctx.database.db.execute(sql`update calendar_sources set next_sync_at = now() - interval '1 second' where id = ${source.id}`);
    assert.equal(await sweepDueCalendars(api.runtime.ctx.database, new Date()), 1);
    await eventually(async () => !(await starts(eventType.id)).includes(iso('12:00')), 15_000);
    await eventually(async () => google.channels.size === 1, 5000);
    const [reopened] = [...google.channels.values()];
    assert.notEqual(reopened!.id, stopped!.id);
    await eventually(async () => JSON.stringify(await storedChannels(source.id)) === JSON.stringify([{ channel_id: reopened!.id, renew: false }]), 5000);
    // The new channel carries the next change within seconds.
    google.addEvent('ada@gmail.example', { summary: 'Announced', start: { dateTime: iso('13:00') }, end: { dateTime: iso('14:00') } });
    await eventually(async () => !(await starts(eventType.id)).includes(iso('13:00')), 15_000);
    // A poll that finds nothing new leaves a working channel alone.
    const quiet = (await findSourceForSync(api.runtime.ctx.database.db, source.id))!;
    await api.runtime.ctx.database.db.execute(sql`update calendar_sources set next_sync_at = now() - interval '1 second' where id = ${source.id}`);
    await sweepDueCalendars(api.runtime.ctx.database, new Date());
    await eventually(async () => (await findSourceForSync(api.runtime.ctx.database.db, source.id))!.source.lastSyncedAt!.getTime() > quiet.source.lastSyncedAt!.getTime(), 15_000);
    assert.deepEqual([...google.channels.keys()], [reopened!.id]);
  });

  test('a provider refusing a channel is not asked again for six hours; the calendar is polled meanwhile', async () => {
    const deps = syncDeps();
    const sourceId = (await sourceOf(ada)).id;
    const [current] = [...google.channels.values()];
    const watches = () => google.apiRequests().filter((request) => request.method === 'POST' && request.path.endsWith('/events/watch')).length;
    // Due for renewal (less than a day left), and Google refuses.
    const renewAt = current!.expiration - 23 * HOUR;
    google.failNext(1, { status: 503 });
    const before = watches();
    const next = await ensurePushChannel(deps, (await findSourceForSync(api.runtime.ctx.database.db, sourceId))!, renewAt);
    assert.equal(watches(), before + 1);
    assert.equal(next - renewAt, api.runtime.ctx.config.calendars.pollMs, 'polled, not trusted to push');
    const stored = (await findSourceForSync(api.runtime.ctx.database.db, sourceId))!;
    assert.equal(stored.source.pushRetryAt?.getTime(), renewAt + PUSH_RETRY_AFTER_MS);
    // Reads within the six hours ask for no channel.
    await ensurePushChannel(deps, stored, renewAt + HOUR);
    await ensurePushChannel(deps, stored, renewAt + PUSH_RETRY_AFTER_MS - 1);
    assert.equal(watches(), before + 1);
    // Then it is asked again, the channel is opened and the wait forgotten.
    await ensurePushChannel(deps, stored, renewAt + PUSH_RETRY_AFTER_MS);
    assert.equal(watches(), before + 2);
    assert.equal((await findSourceForSync(api.runtime.ctx.database.db, sourceId))!.source.pushRetryAt, null);
    assert.equal(google.channels.size, 1);
    assert.ok(!google.channels.has(current!.id));
  });

  test('Microsoft: lifecycle notifications come to the same address; a removed subscription or one to authorize again is replaced, a missed one makes svc read the calendar', async () => {
    const eventType = await createEventType(api, cy, { lengthInMinutes: 60 });
    const [first] = [...microsoft.subscriptions.values()];
    assert.equal(first!.lifecycleNotificationUrl, `${api.baseUrl}/v2/calendars/office365/notifications`);
    const cySource = async () => (await rows<{ id: number }>(sql`select id from calendar_sources where user_id = ${cy.userId} and selected`))[0]!.id;
    const cyChannels = async () => storedChannels(await cySource());

    // A forged lifecycle notification (wrong clientState) changes nothing.
    const forged = await api.request('POST', '/v2/calendars/office365/notifications', { body: { value: [{ subscriptionId: first!.id, clientState: 'guessed', lifecycleEvent: 'subscriptionRemoved' }] } });
    assert.equal(forged.body.data.received, 0);
    assert.deepEqual(await cyChannels(), [{ channel_id: first!.id, renew: false }]);

    assert.equal(await microsoft.sendLifecycle(first!.id, 'reauthorizationRequired'), 202);
    await eventually(async () => microsoft.subscriptions.size === 1 && !microsoft.subscriptions.has(first!.id), 15_000);
    const [second] = [...microsoft.subscriptions.values()];
    await eventually(async () => JSON.stringify(await cyChannels()) === JSON.stringify([{ channel_id: second!.id, renew: false }]), 5000);

    assert.equal(await microsoft.sendLifecycle(second!.id, 'subscriptionRemoved'), 202);
    await eventually(async () => microsoft.subscriptions.size === 1 && !microsoft.subscriptions.has(second!.id), 15_000);
    const [third] = [...microsoft.subscriptions.values()];
    await eventually(async () => JSON.stringify(await cyChannels()) === JSON.stringify([{ channel_id: third!.id, renew: false }]), 5000);
    // It works: a change reaches the slots through it.
    microsoft.addEvent(microsoft.defaultCalendarId, { subject: 'After removal', start: Date.parse(iso('11:00')), end: Date.parse(iso('12:00')) });
    await eventually(async () => !(await starts(eventType.id)).includes(iso('11:00')), 15_000);

    const synced = async () => (await findSourceForSync(api.runtime.ctx.database.db, await cySource()))!.source.lastSyncedAt!.getTime();
    const before = await synced();
    assert.equal(await microsoft.sendLifecycle(third!.id, 'missed'), 202);
    await eventually(async () => (await synced()) > before, 15_000);
    assert.deepEqual([...microsoft.subscriptions.keys()], [third!.id], 'missed notifications keep the subscription');
  });

  test('deselecting a calendar ends its channel; disconnecting ends the subscriptions of its calendars', async () => {
    const listed = (await api.request('GET', '/v2/calendars', { key: ada.apiKey })).body.data.connectedCalendars[0];
    const deselected = await api.request('DELETE', `/v2/selected-calendars?integration=google_calendar&externalId=${encodeURIComponent('ada@gmail.example')}&credentialId=${listed.credentialId}`, { key: ada.apiKey });
    assert.equal(deselected.status, 200, deselected.text);
    assert.equal(google.channels.size, 0, 'the channel was stopped at Google');
    const cyConnection = (await api.request('GET', '/v2/calendars', { key: cy.apiKey })).body.data.connectedCalendars[0];
    const disconnected = await api.request('POST', '/v2/calendars/office365/disconnect', { key: cy.apiKey, body: { id: cyConnection.credentialId } });
    assert.equal(disconnected.status, 200, disconnected.text);
    assert.equal(microsoft.subscriptions.size, 0, 'the subscription was deleted at Graph');
    assert.deepEqual(await rows(sql`select id from calendar_push_channels`), []);
  });
});
