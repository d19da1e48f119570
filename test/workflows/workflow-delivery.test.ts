// Workflow messages go out once however the workers meet them (PostgreSQL: one store, several
// processes): two workers racing over due jobs queued three times each, and a worker killed (SIGKILL)
// after it claimed a due job and before it sent anything: each message arrives exactly once, after the
// restart.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type SmtpReceiver, startSmtpReceiver } from '../mail/helpers.js';
import { killAllChildren, spawnCli } from '../support/child-server.js';
import { eventually } from '../support/eventually.js';
import { type FakeTwilio, startFakeTwilio } from '../support/fake-twilio.js';
import { backend, createPeerApp, createTestApp, type TestApp, testConfig } from '../support/test-app.js';
import { ATTENDEE_PHONE, attendeeEmailStep, attendeeSmsStep, bookAsAttendee, dueJobsDone, dueJobsOf, reachDueJobs, remindersOfBooking, setUpWorkflowTeam, type WorkflowTeam } from './helpers.js';

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

  test('two workers racing over due jobs queued three times each', { timeout: 120_000 }, async () => {
    // The API process runs no jobs; two peers (other processes of the fleet) do.
    const api = await createTestApp(env, undefined, { worker: false });
    apps.push(api);
    const team = await reminderTeam(api);
    const bookings: Awaited<ReturnType<typeof bookAsAttendee>>[] = [];
    for (const start of starts(20)) bookings.push(await bookAsAttendee(api, team.eventTypeIds.consultation!, start));
    const db = api.runtime.ctx.database.db;
    const owed = (await Promise.all(bookings.map((booking) => dueJobsOf(db, booking.uid)))).flat();
    assert.equal(owed.length, 20, 'one job per booking: its reminder workflow, at 24 hours before');
    // Each job twice more, as a retry re-queued while the first still waits would be.
    await db.execute(sql`insert into jobs (kind, payload, run_at) select kind, payload, run_at from jobs, generate_series(1, 2) where id in (${sql.join(owed.map((job) => sql`${job.id}`), sql`, `)})`);
    const smsBefore = twilio.messages.length;
    // Fewer jobs at once than there are due runs: neither worker can claim them all in one batch.
    const peerEnv = { ...env, SVC_JOB_CONCURRENCY: '8' };
    apps.push(await createPeerApp(api, peerEnv), await createPeerApp(api, peerEnv));
    await reachDueJobs(db, bookings.map((booking) => booking.uid));
    const attendees = bookings.map((booking) => booking.attendees[0]!.email);
    const remindersTo = (address: string) => smtp.to(address).filter((m) => m.email.subject?.startsWith('Reminder'));
    await eventually(async () => attendees.every((address) => remindersTo(address).length >= 1) && twilio.messages.length - smsBefore >= 20, 60_000);
    await eventually(() => dueJobsDone(db, bookings.map((booking) => booking.uid)), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const address of attendees) assert.equal(remindersTo(address).length, 1, `${address}: one reminder`);
    assert.equal(twilio.messages.length - smsBefore, 20, 'twenty SMS, one per booking');
    const dueJobs = await rows<{ status: string; workers: number; count: number }>(
      api,
      sql`select status, count(distinct locked_by)::int as workers, count(*)::int as count from jobs where kind = 'workflow.due' group by status`,
    );
    assert.deepEqual(dueJobs.map((row) => [row.status, row.count]), [['done', 60]], 'every queued run ended, none failed');
    assert.equal(dueJobs[0]!.workers, 2, 'both workers ran due jobs');
    const states = await rows<{ status: string; count: number }>(api, sql`select status, count(*)::int as count from workflow_reminders group by status`);
    assert.deepEqual(states, [{ status: 'sent', count: 40 }]);
  });

  test('a worker killed after claiming the send jobs, before sending: sent once after a restart', { timeout: 120_000 }, async () => {
    const api = await createTestApp(env, undefined, { worker: false });
    apps.push(api);
    const db = api.runtime.ctx.database.db;
    const team = await reminderTeam(api);
    const booking = await bookAsAttendee(api, team.eventTypeIds.consultation!, '2027-04-06T10:00:00.000Z');
    const [owed] = await dueJobsOf(db, booking.uid);
    assert.ok(owed);
    const smsBefore = twilio.messages.length;
    const attendee = booking.attendees[0]!.email;

    // The test holds the booking's row: a worker that claims the job stops right there, before it sends.
    const holder = new pg.Client({ connectionString: api.databaseUrl });
    await holder.connect();
    await holder.query('begin');
    await holder.query('select id from bookings where uid = $1 for update', [booking.uid]);
    const workerEnv = { ...env, SVC_ALLOW_PRIVATE_WEBHOOKS: '1', DATABASE_URL: api.databaseUrl!, SVC_ENCRYPTION_KEY: testConfig().encryptionKey!.toString('hex'), LOG_LEVEL: 'info' };
    const first = spawnCli(['worker'], workerEnv);
    await reachDueJobs(db, [booking.uid]);
    const claimed = () => rows<{ attempts: number; locked: boolean }>(api, sql`select attempts, locked_until > now() as locked from jobs where id = ${owed.id}`);
    await eventually(async () => (await claimed()).every((job) => job.attempts === 1 && job.locked), 30_000);
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    await holder.query('rollback');
    await holder.end();
    assert.deepEqual(await remindersOfBooking(db, booking.uid), [], 'nothing was sent before the crash');
    assert.equal(smtp.to(attendee).filter((m) => m.email.subject?.startsWith('Reminder')).length, 0);
    assert.equal(twilio.messages.length, smsBefore);

    // A new worker takes the job over once the dead one's lease runs out.
    const second = spawnCli(['worker'], workerEnv);
    await eventually(async () => smtp.to(attendee).some((m) => m.email.subject?.startsWith('Reminder')) && twilio.messages.length > smsBefore, 30_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${second.stdout().slice(-3000)}${second.stderr().slice(-2000)}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(smtp.to(attendee).filter((m) => m.email.subject?.startsWith('Reminder')).length, 1);
    assert.deepEqual(twilio.messages.slice(smsBefore).map((message) => message.to), [ATTENDEE_PHONE]);
    assert.deepEqual((await claimed()).map((job) => job.attempts), [2], 'the job ran again once');
    assert.deepEqual((await remindersOfBooking(db, booking.uid)).map((reminder) => reminder.status), ['sent', 'sent']);
    second.child.kill('SIGTERM');
    await second.exited;
  });
});
