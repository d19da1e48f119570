// Workflow messages go out once however the workers meet them (PostgreSQL: one store, several
// processes): two workers racing over reminders whose send job was queued three times each, and a
// worker killed (SIGKILL) after it claimed the send jobs and before it sent anything: each message
// arrives exactly once, after the restart.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { jobs } from '../../src/db/schema.js';
import { type SmtpReceiver, startSmtpReceiver } from '../mail/helpers.js';
import { killAllChildren, spawnCli } from '../support/child-server.js';
import { eventually } from '../support/eventually.js';
import { type FakeTwilio, startFakeTwilio } from '../support/fake-twilio.js';
import { backend, createPeerApp, createTestApp, type TestApp, testConfig } from '../support/test-app.js';
import { ATTENDEE_PHONE, attendeeEmailStep, attendeeSmsStep, bookAsAttendee, reachReminders, remindersOfBooking, setUpWorkflowTeam, type WorkflowTeam } from './helpers.js';

const rows = async <T>(api: TestApp, query: ReturnType<typeof sql>) => ((await api.runtime.ctx.database.db.execute(query)) as unknown as { rows: T[] }).rows;

/** Weekday half-hours of March 2027 between 09:00 and 16:30 UTC, from the 1st. */
function starts(count: number): string[] {
  const list: string[] = [];
  for (let day = 1; list.length < count; day++) {
    const date = new Date(Date.UTC(2027, 2, day));
    if (date.getUTCDay() === 0 || date.getUTCDay() === 6) continue;
    for (let slot = 0; slot < 16 && list.length < count; slot++) list.push(new Date(Date.UTC(2027, 2, day, 9, slot * 30)).toISOString());
  }
  return list;
}

describe('workflow messages are sent once', { skip: backend !== 'postgres' && 'needs PostgreSQL: several workers on one store' }, () => {
  let smtp: SmtpReceiver;
  let twilio: FakeTwilio;
  let env: Record<string, string>;
  const apps: TestApp[] = [];
  before(async () => {
    smtp = await startSmtpReceiver();
    twilio = await startFakeTwilio();
    env = {
      SMTP_URL: smtp.url,
      SVC_JOB_RETRY_BASE_MS: '50',
      SVC_JOB_LEASE_MS: '2000',
      SVC_WEBHOOK_TIMEOUT_MS: '500',
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_API_URL: twilio.apiUrl,
      TWILIO_PHONE_NUMBER: '+15005550006',
    };
  });
  after(async () => {
    await killAllChildren();
    for (const app of apps.reverse()) await app.close();
    await smtp?.close();
    await twilio?.close();
  });

  async function reminderTeam(api: TestApp): Promise<WorkflowTeam> {
    const team = await setUpWorkflowTeam(api, ['consultation']);
    const created = await api.request('POST', team.workflows, {
      key: team.owner.apiKey,
      body: { name: 'Reminder', activation: { isActiveOnAllEventTypes: true }, trigger: { type: 'beforeEvent', offset: { value: 24, unit: 'hour' } }, steps: [attendeeEmailStep(), attendeeSmsStep] },
    });
    assert.equal(created.status, 201, created.text);
    return team;
  }

  test('two workers racing over send jobs queued three times each', { timeout: 120_000 }, async () => {
    // The API process runs no jobs; two peers (other processes of the fleet) do.
    const api = await createTestApp(env, undefined, { worker: false });
    apps.push(api);
    const team = await reminderTeam(api);
    const bookings = [];
    for (const start of starts(20)) bookings.push(await bookAsAttendee(api, team.eventTypeIds.consultation!, start));
    const reminders = (await Promise.all(bookings.map((booking) => remindersOfBooking(api.runtime.ctx.database.db, booking.uid)))).flat();
    assert.equal(reminders.length, 40);
    // Each reminder's job twice more, as a retry re-queued while the first still waits would be.
    await api.runtime.ctx.database.db.insert(jobs).values(reminders.flatMap((reminder) => [1, 2].map(() => ({ kind: 'workflow.send', payload: { reminderId: reminder.id }, runAt: new Date(Date.now() + 3_600_000) }))));
    const smsBefore = twilio.messages.length;
    apps.push(await createPeerApp(api, env), await createPeerApp(api, env));
    await reachReminders(api.runtime.ctx.database.db, reminders.map((reminder) => reminder.id));
    const attendees = bookings.map((booking) => booking.attendees[0]!.email);
    const remindersTo = (address: string) => smtp.to(address).filter((m) => m.email.subject?.startsWith('Reminder'));
    await eventually(async () => attendees.every((address) => remindersTo(address).length >= 1) && twilio.messages.length - smsBefore >= 20, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const address of attendees) assert.equal(remindersTo(address).length, 1, `${address}: one reminder`);
    assert.equal(twilio.messages.length - smsBefore, 20, 'twenty SMS, one per booking');
    const sendJobs = await rows<{ status: string; workers: number; count: number }>(
      api,
      sql`select status, count(distinct locked_by)::int as workers, count(*)::int as count from jobs where kind = 'workflow.send' group by status`,
    );
    assert.deepEqual(sendJobs.map((row) => [row.status, row.count]), [['done', 120]], 'every queued run ended, none failed');
    assert.equal(sendJobs[0]!.workers, 2, 'both workers ran send jobs');
    const states = await rows<{ status: string; count: number }>(api, sql`select status, count(*)::int as count from workflow_reminders group by status`);
    assert.deepEqual(states, [{ status: 'sent', count: 40 }]);
  });

  test('a worker killed after claiming the send jobs, before sending: sent once after a restart', { timeout: 120_000 }, async () => {
    const api = await createTestApp(env, undefined, { worker: false });
    apps.push(api);
    const db = api.runtime.ctx.database.db;
    const team = await reminderTeam(api);
    const booking = await bookAsAttendee(api, team.eventTypeIds.consultation!, '2027-04-06T10:00:00.000Z');
    const reminders = await remindersOfBooking(db, booking.uid);
    assert.equal(reminders.length, 2);
    const ids = reminders.map((reminder) => reminder.id);
    const smsBefore = twilio.messages.length;
    const attendee = booking.attendees[0]!.email;

    // The test holds the reminders' rows: a worker that claims their jobs stops right there, before it sends.
    const holder = new pg.Client({ connectionString: api.databaseUrl });
    await holder.connect();
    await holder.query('begin');
    await holder.query('select id from workflow_reminders where id = any($1::bigint[]) for update', [ids]);
    const workerEnv = { ...env, SVC_ALLOW_PRIVATE_WEBHOOKS: '1', DATABASE_URL: api.databaseUrl!, SVC_ENCRYPTION_KEY: testConfig().encryptionKey!.toString('hex'), LOG_LEVEL: 'info' };
    const first = spawnCli(['worker'], workerEnv);
    await reachReminders(db, ids);
    const claimed = () =>
      rows<{ attempts: number; locked: boolean }>(api, sql`select attempts, locked_until > now() as locked from jobs where kind = 'workflow.send' and (payload->>'reminderId')::bigint in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`);
    await eventually(async () => (await claimed()).every((job) => job.attempts === 1 && job.locked), 30_000);
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    await holder.query('rollback');
    await holder.end();
    assert.deepEqual((await remindersOfBooking(db, booking.uid)).map((reminder) => reminder.status), ['scheduled', 'scheduled'], 'nothing was sent before the crash');
    assert.equal(smtp.to(attendee).filter((m) => m.email.subject?.startsWith('Reminder')).length, 0);
    assert.equal(twilio.messages.length, smsBefore);

    // A new worker takes the jobs over once the dead one's leases run out.
    const second = spawnCli(['worker'], workerEnv);
    await eventually(async () => smtp.to(attendee).some((m) => m.email.subject?.startsWith('Reminder')) && twilio.messages.length > smsBefore, 30_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${second.stdout().slice(-3000)}${second.stderr().slice(-2000)}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(smtp.to(attendee).filter((m) => m.email.subject?.startsWith('Reminder')).length, 1);
    assert.deepEqual(twilio.messages.slice(smsBefore).map((message) => message.to), [ATTENDEE_PHONE]);
    assert.deepEqual((await claimed()).map((job) => job.attempts), [2, 2], 'each job ran again once');
    assert.deepEqual((await remindersOfBooking(db, booking.uid)).map((reminder) => reminder.status), ['sent', 'sent']);
    second.child.kill('SIGTERM');
    await second.exited;
  });
});
