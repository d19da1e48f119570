// Workflows on the no-show triggers of the built-in video on Daily (a local Daily,
// test/support/fake-daily.ts): owed at the booking's start plus the offset; when due, the room's
// sessions decide: afterHostsSvcVideoNoShow sends when a host did not join, afterGuestsSvcVideoNoShow
// when no guest did; otherwise nothing is sent. A booking elsewhere than the built-in video schedules none.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type SmtpReceiver, startSmtpReceiver } from '../mail/helpers.js';
import { eventually } from '../support/eventually.js';
import { type FakeDaily, startFakeDaily } from '../support/fake-daily.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';
import { bookAsAttendee, dueJobsDone, dueJobsOf, reachDueJobs, remindersOfBooking, setUpWorkflowTeam, type WorkflowTeam } from './helpers.js';

const MINUTE = 60_000;

describe(`workflows on video no-shows (${backend})`, () => {
  let daily: FakeDaily;
  let smtp: SmtpReceiver;
  let api: TestApp;
  let team: WorkflowTeam;
  const db = () => api.runtime.ctx.database.db;

  before(async () => {
    daily = await startFakeDaily();
    smtp = await startSmtpReceiver();
    api = await createTestApp({ SVC_DAILY_API_KEY: daily.apiKey, SVC_DAILY_API_URL: daily.apiUrl, SVC_DAILY_ROOM_URL: daily.roomUrl, SVC_JOB_RETRY_BASE_MS: '50', SMTP_URL: smtp.url });
    team = await setUpWorkflowTeam(api, ['video'], null);
    const workflow = (body: Record<string, unknown>) => api.request('POST', team.workflows, { key: team.owner.apiKey, body: { activation: { isActiveOnAllEventTypes: true }, ...body } });
    const hosts = await workflow({
      name: 'Host missing',
      trigger: { type: 'afterHostsSvcVideoNoShow', offset: { value: 15, unit: 'minute' } },
      steps: [{ stepNumber: 1, action: 'email_attendee', recipient: 'attendee', template: 'custom', sender: 'Care', message: { subject: 'Sorry, {ORGANIZER} missed {EVENT_NAME}', html: '<p>Book again: {RESCHEDULE_URL}</p>' } }],
    });
    assert.equal(hosts.status, 201, hosts.text);
    const guests = await workflow({
      name: 'Guest missing',
      trigger: { type: 'afterGuestsSvcVideoNoShow', offset: { value: 10, unit: 'minute' } },
      steps: [{ stepNumber: 1, action: 'email_host', recipient: 'const', template: 'custom', sender: 'Care', message: { subject: '{ATTENDEE} did not join', html: '<p>Nobody came.</p>' } }],
    });
    assert.equal(guests.status, 201, guests.text);
  });
  after(async () => {
    await api?.close();
    await daily?.close();
    await smtp?.close();
  });

  /** A finished session in the booking's room with these participants ([user_id, name]). */
  function meetingIn(location: string, start: number, participants: [string | null, string][]) {
    daily.addSession(location.slice(`${daily.roomUrl}/`.length), {
      start_time: start,
      duration: 600,
      ongoing: false,
      max_participants: participants.length,
      participants: participants.map(([userId, userName], index) => ({ user_id: userId, participant_id: `p${index}`, user_name: userName, join_time: start, duration: 600 })),
    });
  }

  test('the host missed one meeting and the guest the other: each workflow sends for its own', async () => {
    const hostAbsent = await bookAsAttendee(api, team.eventTypeIds.video!, '2027-04-06T10:00:00.000Z', { name: 'Gina Guest' });
    const guestAbsent = await bookAsAttendee(api, team.eventTypeIds.video!, '2027-04-06T11:00:00.000Z', { name: 'Olaf Out' });
    const bookingOf = async (uid: string) => (await api.request('GET', `/v2/bookings/${uid}`, { key: team.host.apiKey, version: '2024-08-13' })).body.data;
    const first = await bookingOf(hostAbsent.uid);
    const second = await bookingOf(guestAbsent.uid);
    assert.ok(first.location.startsWith(daily.roomUrl), first.location);
    const owed = async (uid: string, start: string) => (await dueJobsOf(db(), uid)).map((job) => new Date(job.run_at).getTime() - Date.parse(start));
    assert.deepEqual(await owed(hostAbsent.uid, first.start), [10 * MINUTE, 15 * MINUTE], 'guests checked 10 minutes in, hosts 15');
    meetingIn(first.location, Date.parse(first.start) / 1000, [[null, 'Gina Guest']]);
    meetingIn(second.location, Date.parse(second.start) / 1000, [[String(team.host.user.id), 'Dr Host']]);
    await reachDueJobs(db(), [hostAbsent.uid, guestAbsent.uid]);
    await eventually(() => dueJobsDone(db(), [hostAbsent.uid, guestAbsent.uid]), 10_000);
    assert.deepEqual((await remindersOfBooking(db(), hostAbsent.uid)).map((r) => r.recipient_address), [hostAbsent.attendees[0]!.email], 'the guest joined; the host did not');
    assert.deepEqual((await remindersOfBooking(db(), guestAbsent.uid)).map((r) => r.recipient_address), [team.host.user.email], 'the host joined; no guest did');
    await eventually(async () => smtp.to(hostAbsent.attendees[0]!.email).some((m) => m.email.subject?.startsWith('Sorry')) && smtp.to(team.host.user.email).some((m) => m.email.subject === 'Olaf Out did not join'), 10_000);
    assert.equal(smtp.to(hostAbsent.attendees[0]!.email).filter((m) => m.email.subject?.startsWith('Sorry')).length, 1);
    assert.equal(smtp.to(guestAbsent.attendees[0]!.email).filter((m) => m.email.subject?.startsWith('Sorry')).length, 0);
    assert.equal(smtp.to(team.host.user.email).filter((m) => / did not join$/.test(m.email.subject ?? '')).length, 1);
  });

  test('a booking not on the built-in video schedules no no-show message', async () => {
    const elsewhere = await setUpWorkflowTeam(api, ['in-person']);
    const made = await api.request('POST', elsewhere.workflows, {
      key: elsewhere.owner.apiKey,
      body: { name: 'x', activation: { isActiveOnAllEventTypes: true }, trigger: { type: 'afterGuestsSvcVideoNoShow', offset: { value: 5, unit: 'minute' } }, steps: [{ stepNumber: 1, action: 'email_host', recipient: 'const', template: 'reminder', sender: 'x', message: { subject: '', html: '' } }] },
    });
    assert.equal(made.status, 201, made.text);
    const booking = await bookAsAttendee(api, elsewhere.eventTypeIds['in-person']!, '2027-04-07T10:00:00.000Z');
    assert.deepEqual(await dueJobsOf(db(), booking.uid), []);
  });
});
