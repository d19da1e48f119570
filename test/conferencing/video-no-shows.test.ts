// The no-show triggers of the built-in video on Daily, over HTTP against a local Daily
// (test/support/fake-daily.ts): a subscription's delay (`time`, `timeUnit`, an svc extension) checked on
// input; a check scheduled per subscription at start + delay when a booking on a Daily room is made;
// hosts joining through /video/{uid} (signed in) with a meeting token naming them; at the check, one
// AFTER_HOSTS_SVC_VIDEO_NO_SHOW per absent host and one AFTER_GUESTS_SVC_VIDEO_NO_SHOW when no guest
// joined, the booking's absentHost / attendees' absent set, nothing for a cancelled booking, nothing twice.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { jobs } from '../../src/db/schema.js';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { startSmtpReceiver, type SmtpReceiver } from '../mail/helpers.js';
import { logIn, PASSWORD, WebClient } from '../oauth/helpers.js';
import { createEventType } from '../slots/helpers.js';
import { eventually } from '../support/eventually.js';
import { type FakeDaily, startFakeDaily } from '../support/fake-daily.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { type Receiver, startReceiver } from '../webhooks/helpers.js';

// 2027-04-05 is a Monday; London is on BST (+01:00) then.
const at = (day: number, time: string) => `2027-04-${String(day).padStart(2, '0')}T${time}:00.000Z`;
const seconds = (iso: string) => Date.parse(iso) / 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('no-show triggers of the built-in video on Daily', () => {
  let daily: FakeDaily;
  let hooks: Receiver;
  let smtp: SmtpReceiver;
  let api: TestApp;
  let host: { userId: number; email: string; apiKey: string };
  let eventType: any;
  const db = () => api.runtime.ctx.database.db;

  before(async () => {
    daily = await startFakeDaily();
    hooks = await startReceiver();
    smtp = await startSmtpReceiver();
    api = await createTestApp({
      SVC_DAILY_API_KEY: daily.apiKey,
      SVC_DAILY_API_URL: daily.apiUrl,
      SVC_DAILY_ROOM_URL: daily.roomUrl,
      SVC_JOB_RETRY_BASE_MS: '100',
      SMTP_URL: smtp.url,
      APP_URL: 'https://app.example',
    });
    const created = await api.createUser({ password: PASSWORD, timeZone: 'Europe/London', username: `noshow-${process.pid}-${Date.now()}`, name: 'Hana Host' });
    host = { userId: created.user.id, email: created.user.email, apiKey: created.apiKey };
    eventType = await createEventType(api, { userId: host.userId, username: created.user.username, apiKey: host.apiKey }, { title: 'Video call', lengthInMinutes: 30 });
  });
  after(async () => {
    await api?.close();
    await daily?.close();
    await hooks?.close();
    await smtp?.close();
  });

  const webhook = (body: Record<string, unknown>, key = host.apiKey) => api.request('POST', '/v2/webhooks', { key, body: { active: true, ...body } });

  async function book(start: string, email = `guest.${start.slice(8, 13)}@example.com`) {
    const response = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId: eventType.id, start, attendee: { name: 'Gus Guest', email, timeZone: 'Asia/Kathmandu' } } });
    assert.equal(response.status, 201, response.text);
    return response.body.data;
  }
  const roomName = (link: string) => link.slice(`${daily.roomUrl}/`.length);
  const checksOf = async (uid: string) =>
    (await db().select().from(jobs).where(sql`${jobs.kind} = 'webhook.no-show' and ${jobs.payload}->>'bookingUid' = ${uid}`)).sort((a, b) => a.runAt.getTime() - b.runAt.getTime() || a.id - b.id);
  async function runChecks(uid: string) {
    await db().update(jobs).set({ runAt: sql`now()`, status: 'pending' }).where(sql`${jobs.kind} = 'webhook.no-show' and ${jobs.payload}->>'bookingUid' = ${uid}`);
    await db().execute(sql`select pg_notify('svc_jobs', '')`);
    await eventually(async () => (await checksOf(uid)).every((job) => job.status === 'done'), 10_000);
  }
  /** A finished session in the booking's room: each participant [user_id, user_name] there for 600 s from `start`. */
  function meetingIn(booking: { location: string }, start: number, participants: [string | null, string][]) {
    daily.addSession(roomName(booking.location), {
      start_time: start,
      duration: 600,
      ongoing: false,
      max_participants: participants.length,
      participants: participants.map(([userId, userName], index) => ({ user_id: userId, participant_id: `p${index}`, user_name: userName, join_time: start, duration: 600 })),
    });
  }
  const delivered = (uid: string) => hooks.requests.filter((request) => request.json?.payload?.bookingUid === uid);

  test('time and timeUnit: shown when set, given together, at most a week, changed one at a time', async () => {
    const url = `${hooks.url}/delays`;
    const halfOnly = await webhook({ subscriberUrl: url, triggers: ['AFTER_GUESTS_SVC_VIDEO_NO_SHOW'], time: 10 });
    assert.equal(halfOnly.status, 400, halfOnly.text);
    assert.match(halfOnly.body.error.message, /timeUnit must be given with time/);
    const tooLate = await webhook({ subscriberUrl: url, triggers: ['AFTER_GUESTS_SVC_VIDEO_NO_SHOW'], time: 8, timeUnit: 'day' });
    assert.equal(tooLate.status, 400, tooLate.text);
    assert.match(tooLate.body.error.message, /^time must be at most 7 days/);
    const badUnit = await webhook({ subscriberUrl: url, triggers: ['AFTER_GUESTS_SVC_VIDEO_NO_SHOW'], time: 8, timeUnit: 'week' });
    assert.equal(badUnit.status, 400, badUnit.text);
    assert.match(JSON.stringify(badUnit.body.error), /timeUnit/);

    const plain = await webhook({ subscriberUrl: `${url}/plain`, triggers: ['BOOKING_CREATED'] });
    assert.equal(plain.status, 201, plain.text);
    assert.equal('time' in plain.body.data, false, 'no delay, no field');
    const made = await webhook({ subscriberUrl: url, triggers: ['AFTER_GUESTS_SVC_VIDEO_NO_SHOW'], time: 2, timeUnit: 'hour' });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual([made.body.data.time, made.body.data.timeUnit], [2, 'hour']);
    const unitOnly = await api.request('PATCH', `/v2/webhooks/${made.body.data.id}`, { key: host.apiKey, body: { timeUnit: 'day' } });
    assert.equal(unitOnly.status, 200, unitOnly.text);
    assert.deepEqual([unitOnly.body.data.time, unitOnly.body.data.timeUnit], [2, 'day']);
    const tooFar = await api.request('PATCH', `/v2/webhooks/${made.body.data.id}`, { key: host.apiKey, body: { time: 8 } });
    assert.equal(tooFar.status, 400, tooFar.text);
    const cleared = await api.request('PATCH', `/v2/webhooks/${made.body.data.id}`, { key: host.apiKey, body: { time: null, timeUnit: null } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal('time' in cleared.body.data, false);
    for (const id of [plain.body.data.id, made.body.data.id]) assert.equal((await api.request('DELETE', `/v2/webhooks/${id}`, { key: host.apiKey })).status, 200);
  });

  test('a host joins through /video/{uid} with a token naming them; a visitor logs in first; anyone else is refused', async () => {
    const booking = await book(at(5, '09:00'));
    const name = roomName(booking.location);
    await eventually(async () => daily.rooms.has(name), 10_000);

    const web = new WebClient(api.baseUrl);
    const toLogin = await web.get(`/video/${booking.uid}`);
    assert.equal(toLogin.status, 303);
    assert.equal(toLogin.location, `/auth/login?next=${encodeURIComponent(`/video/${booking.uid}`)}`);
    await logIn(web, host.email);
    const joined = await web.get(`/video/${booking.uid}`);
    assert.equal(joined.status, 303, joined.html);
    assert.equal(joined.headers.get('cache-control'), 'no-store');
    const link = new URL(joined.location!);
    assert.equal(`${link.origin}${link.pathname}`, booking.location);
    const token = daily.tokens.get(link.searchParams.get('t')!);
    assert.ok(token, 'a token Daily made');
    assert.deepEqual(
      { room: token.room_name, user: token.user_id, name: token.user_name, owner: token.is_owner, exp: token.exp },
      { room: name, user: String(host.userId), name: 'Hana Host', owner: true, exp: seconds(at(5, '09:30')) + 24 * 3600 },
    );

    const stranger = await api.createUser({ password: PASSWORD });
    const other = new WebClient(api.baseUrl);
    await logIn(other, stranger.user.email);
    const refused = await other.get(`/video/${booking.uid}`);
    assert.equal(refused.status, 403, refused.html);
    assert.match(refused.html, /for the hosts of the booking/);
    assert.equal(refused.location, null);
    assert.equal((await other.get('/video/no-such-booking')).status, 404);

    // The host's mail carries the link; the guest's does not.
    await eventually(async () => smtp.to(host.email).length > 0 && smtp.to(booking.attendees[0].email).length > 0, 10_000);
    const hostMail = smtp.to(host.email).at(-1)!.email.text!;
    assert.match(hostMail, new RegExp(`Join as host: https://app\\.example/video/${booking.uid}`));
    assert.doesNotMatch(smtp.to(booking.attendees[0].email).at(-1)!.email.text!, /Join as host|\/video\//);

    const cancelled = await api.request('POST', `/v2/bookings/${booking.uid}/cancel`, { version: BOOKINGS_VERSION, key: host.apiKey, body: { cancellationReason: 'no' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal((await web.get(`/video/${booking.uid}`)).status, 400, 'a cancelled booking has no room to join');
  });

  test('checks at start + delay: absent hosts and guests announced once each and marked; present ones, cancelled and moved bookings announce nothing', async () => {
    const hostsHook = await webhook({ subscriberUrl: `${hooks.url}/hosts`, triggers: ['AFTER_HOSTS_SVC_VIDEO_NO_SHOW'], time: 10, timeUnit: 'minute', secret: 'shh' });
    assert.equal(hostsHook.status, 201, hostsHook.text);
    const guestsHook = await webhook({ subscriberUrl: `${hooks.url}/guests`, triggers: ['AFTER_GUESTS_SVC_VIDEO_NO_SHOW'] });
    assert.equal(guestsHook.status, 201, guestsHook.text);

    const nobody = await book(at(6, '10:00'));
    const everyone = await book(at(6, '11:00'));
    const cancelled = await book(at(6, '12:00'));
    const moved = await book(at(6, '13:00'));
    assert.deepEqual(
      (await checksOf(nobody.uid)).map((job) => [job.runAt.toISOString(), (job.payload as any).trigger, (job.payload as any).webhookId]),
      [
        [at(6, '10:05'), 'AFTER_GUESTS_SVC_VIDEO_NO_SHOW', guestsHook.body.data.id],
        [at(6, '10:10'), 'AFTER_HOSTS_SVC_VIDEO_NO_SHOW', hostsHook.body.data.id],
      ],
      "each subscription at its own delay (the default: 5 minutes)",
    );
    for (const booking of [nobody, everyone, cancelled, moved]) await eventually(async () => daily.rooms.has(roomName(booking.location)), 10_000);

    const start = seconds(at(6, '11:02'));
    meetingIn(everyone, start, [
      [String(host.userId), 'Hana Host'],
      [null, 'Gus Guest'],
    ]);
    // In the cancelled booking's room only someone without a host token: it would be a host no-show.
    meetingIn(cancelled, start, [[null, 'Hana without her link']]);
    assert.equal((await api.request('POST', `/v2/bookings/${cancelled.uid}/cancel`, { version: BOOKINGS_VERSION, key: host.apiKey, body: { cancellationReason: 'no' } })).status, 200);
    const rescheduled = await api.request('POST', `/v2/bookings/${moved.uid}/reschedule`, { version: BOOKINGS_VERSION, body: { start: at(7, '13:00') } });
    assert.equal(rescheduled.status, 201, rescheduled.text);
    assert.equal((await checksOf(rescheduled.body.data.uid)).length, 2, 'the new booking of a reschedule has checks of its own');

    for (const booking of [nobody, everyone, cancelled, moved]) await runChecks(booking.uid);
    await eventually(async () => delivered(nobody.uid).length === 2, 10_000);
    await sleep(300);
    for (const booking of [everyone, cancelled, moved]) assert.deepEqual(delivered(booking.uid), [], `nothing for ${booking.uid}`);

    const [hostsCall] = delivered(nobody.uid).filter((request) => request.json.triggerEvent === 'AFTER_HOSTS_SVC_VIDEO_NO_SHOW');
    assert.ok(hostsCall, 'the host no-show');
    assert.ok(hostsCall.url.endsWith('/hosts'), hostsCall.url);
    assert.equal(hostsCall.json.payload.hostEmail, host.email);
    assert.equal(hostsCall.json.payload.message, `Host with email ${host.email} didn't join the call or didn't join before 2027-04-06 10:10:00 +00:00`);
    assert.deepEqual([hostsCall.json.payload.startTime, hostsCall.json.payload.endTime, hostsCall.json.payload.title], [nobody.start, nobody.end, nobody.title]);
    assert.deepEqual(hostsCall.json.payload.participants, []);
    assert.equal(hostsCall.json.payload.webhook.secret, undefined, 'the subscription without its secret');
    assert.deepEqual([hostsCall.json.payload.webhook.time, hostsCall.json.payload.webhook.timeUnit], [10, 'minute']);
    assert.ok(hostsCall.headers['x-svc-signature-256'], 'signed as every delivery');
    const [guestsCall] = delivered(nobody.uid).filter((request) => request.json.triggerEvent === 'AFTER_GUESTS_SVC_VIDEO_NO_SHOW');
    assert.ok(guestsCall, 'the guest no-show');
    assert.equal(guestsCall.json.payload.message, "Guest didn't join the call or didn't join before 2027-04-06 10:05:00 +00:00");
    assert.deepEqual(guestsCall.json.payload.attendees.map((attendee: any) => attendee.email), [nobody.attendees[0].email]);

    const read = async (uid: string) => (await api.request('GET', `/v2/bookings/${uid}`, { version: BOOKINGS_VERSION, key: host.apiKey })).body.data;
    const absentOnes = await read(nobody.uid);
    assert.equal(absentOnes.absentHost, true);
    assert.deepEqual(absentOnes.attendees.map((attendee: any) => attendee.absent), [true]);
    const presentOnes = await read(everyone.uid);
    assert.equal(presentOnes.absentHost, false);
    assert.deepEqual(presentOnes.attendees.map((attendee: any) => attendee.absent), [false]);

    // Run again (a worker died after committing): nothing twice.
    await runChecks(nobody.uid);
    await sleep(400);
    assert.equal(delivered(nobody.uid).length, 2);
    // Daily failing: the check is retried. Only the guest joined: the host no-show alone, the guest not marked.
    const late = await book(at(8, '10:00'));
    await eventually(async () => daily.rooms.has(roomName(late.location)), 10_000);
    const lateStart = seconds(at(8, '10:01'));
    meetingIn(late, lateStart, [[null, 'Gus Guest']]);
    daily.failNext(503);
    await runChecks(late.uid);
    await eventually(async () => delivered(late.uid).length === 1, 10_000);
    await sleep(300);
    assert.deepEqual(delivered(late.uid).map((request) => request.json.triggerEvent), ['AFTER_HOSTS_SVC_VIDEO_NO_SHOW']);
    assert.deepEqual(delivered(late.uid)[0]!.json.payload.participants, [{ user_id: null, user_name: 'Gus Guest', join_time: lateStart, duration: 600 }]);
    const lateRead = await read(late.uid);
    assert.deepEqual([lateRead.absentHost, lateRead.attendees[0].absent], [true, false]);
  });

  test('a booking not on the built-in video schedules no check', async () => {
    const inPerson = await createEventType(api, { userId: host.userId, username: '', apiKey: host.apiKey }, { title: 'Office', lengthInMinutes: 30, locations: [{ type: 'address', address: '1 Main St', public: true }] });
    const response = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId: inPerson.id, start: at(9, '10:00'), attendee: { name: 'Ida', email: 'ida@example.com', timeZone: 'UTC' } } });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(await checksOf(response.body.data.uid), []);
  });
});
