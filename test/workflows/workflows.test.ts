// Workflows over HTTP on the store of the run, with the real SMTP receiver and the local Twilio: an
// organization team's event-type workflows (a reminder 24 hours before by email and SMS, a follow-up an
// hour after by email) scheduled with a booking, moved by a reschedule, dropped by a cancellation, sent
// with the variables in the attendee's zone and locale; a workflow made after a booking schedules what
// is still ahead; event triggers send at once; routing-form workflows; bad workflows refused naming the
// field; access refused across organizations and to members who are not admins. Due times are asserted,
// then made due now (the job's run_at), as a clock reaching them would.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { verifiedEmails, verifiedPhones } from '../../src/db/schema.js';
import { runHousekeeping } from '../../src/jobs/housekeeping.js';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { type SmtpReceiver, startSmtpReceiver } from '../mail/helpers.js';
import { eventually } from '../support/eventually.js';
import { type FakeTwilio, startFakeTwilio } from '../support/fake-twilio.js';
import type { Member } from '../support/tenancy.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';
import { ATTENDEE_PHONE, attendeeEmailStep as reminderStep, attendeeSmsStep as smsStep, bookAsAttendee, dueJobsDone, dueJobsOf, reachDueJobs, remindersOfBooking, setUpWorkflowTeam } from './helpers.js';

// 2027-03-10 is a Wednesday; the host works 09:00-17:00 UTC. The attendee is in Kathmandu (+05:45).
const START = '2027-03-10T10:00:00.000Z';
const MOVED = '2027-03-11T14:00:00.000Z';
const HOUR = 3_600_000;

describe(`workflows (${backend})`, () => {
  let api: TestApp;
  let smtp: SmtpReceiver;
  let twilio: FakeTwilio;
  let orgId: number;
  let owner: Member;
  let host: Member;
  let teamId: number;
  let eventTypeId: number;
  let otherEventTypeId: number;
  let verifiedEmailId: number;
  let verifiedPhoneId: number;
  let workflowsPath: string;

  const db = () => api.runtime.ctx.database.db;
  const admin = (method: string, url: string, body?: unknown, key = owner.apiKey) => api.request(method, url, { key, ...(body === undefined ? {} : { body }) });
  const base = () => workflowsPath;
  const remindersOf = (bookingUid: string) => remindersOfBooking(db(), bookingUid);
  const book = (start: string, attendee: Record<string, unknown> = {}) => bookAsAttendee(api, eventTypeId, start, attendee);

  before(async () => {
    smtp = await startSmtpReceiver();
    twilio = await startFakeTwilio();
    api = await createTestApp({
      SMTP_URL: smtp.url,
      SVC_JOB_RETRY_BASE_MS: '50',
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_API_URL: twilio.apiUrl,
      TWILIO_PHONE_NUMBER: '+15005550006',
      TWILIO_WHATSAPP_PHONE_NUMBER: '+15005550007',
    });
    const team = await setUpWorkflowTeam(api, ['consultation', 'other']);
    ({ orgId, owner, host, teamId, workflows: workflowsPath } = team);
    eventTypeId = team.eventTypeIds.consultation!;
    otherEventTypeId = team.eventTypeIds.other!;
    // Verified for the team (the verification flow has its own tests).
    verifiedEmailId = (await db().insert(verifiedEmails).values({ teamId, userId: owner.user.id, email: 'front-desk@example.com' }).returning({ id: verifiedEmails.id }))[0]!.id;
    verifiedPhoneId = (await db().insert(verifiedPhones).values({ teamId, userId: owner.user.id, phoneNumber: '+14155550100' }).returning({ id: verifiedPhones.id }))[0]!.id;
  });
  after(async () => {
    await api?.close();
    await smtp?.close();
    await twilio?.close();
  });

  test('made, read, changed and deleted; steps kept by id, added without, removed when missing', async () => {
    const created = await admin('POST', base(), {
      name: 'Front desk',
      activation: { isActiveOnAllEventTypes: false, activeOnEventTypeIds: [otherEventTypeId] },
      trigger: { type: 'beforeEvent', offset: { value: 2, unit: 'hour' } },
      steps: [reminderStep({ action: 'email_address', recipient: 'email', verifiedEmailId }), { ...smsStep, action: 'sms_number', recipient: 'phone_number', verifiedPhoneId }],
    });
    assert.equal(created.status, 201, created.text);
    const workflow = created.body.data;
    assert.deepEqual([workflow.name, workflow.type, workflow.teamId, workflow.userId], ['Front desk', 'event-type', teamId, owner.user.id]);
    assert.deepEqual(workflow.activation, { isActiveOnAllEventTypes: false, activeOnEventTypeIds: [otherEventTypeId] });
    assert.deepEqual(workflow.trigger, { type: 'beforeEvent', offset: { value: 2, unit: 'hour' } });
    assert.deepEqual(
      workflow.steps.map((step: any) => [step.stepNumber, step.action, step.email ?? step.phone, step.verifiedEmailId ?? step.verifiedPhoneId]),
      [
        [1, 'email_address', 'front-desk@example.com', verifiedEmailId],
        [2, 'sms_number', '+14155550100', verifiedPhoneId],
      ],
    );
    assert.ok(!workflow.steps[0].message.html.includes('<script'), 'HTML sanitized when saved');
    assert.ok(workflow.steps[0].message.html.includes('{ORGANIZER}'));

    assert.deepEqual((await admin('GET', `${base()}/${workflow.id}`)).body.data, workflow);
    assert.deepEqual((await admin('GET', base())).body.data.map((w: any) => w.id), [workflow.id]);
    assert.equal((await admin('GET', `${base()}/${workflow.id}/routing-form`)).status, 404, 'not a routing-form workflow');

    const [kept, removed] = workflow.steps;
    const changed = await admin('PATCH', `${base()}/${workflow.id}`, {
      name: 'Front desk (changed)',
      trigger: { type: 'afterEvent', offset: { value: 30, unit: 'minute' } },
      steps: [
        { ...reminderStep({ action: 'email_address', recipient: 'email', verifiedEmailId }), id: kept.id, message: { subject: 'New subject', html: '<p>Thanks</p>' } },
        { stepNumber: 3, action: 'email_host', recipient: 'const', template: 'completed', sender: 'Acme', message: { subject: '', html: '' } },
      ],
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.data.name, 'Front desk (changed)');
    assert.deepEqual(changed.body.data.trigger, { type: 'afterEvent', offset: { value: 30, unit: 'minute' } });
    assert.deepEqual(changed.body.data.steps.map((step: any) => [step.id === kept.id, step.stepNumber, step.action, step.message.subject]), [
      [true, 1, 'email_address', 'New subject'],
      [false, 3, 'email_host', ''],
    ]);
    assert.ok(!changed.body.data.steps.some((step: any) => step.id === removed.id));
    const foreignStep = await admin('PATCH', `${base()}/${workflow.id}`, { steps: [{ ...smsStep, id: 999999 }] });
    assert.equal(foreignStep.status, 400);
    assert.match(foreignStep.body.error.message, /steps\.0\.id/);

    const deleted = await admin('DELETE', `${base()}/${workflow.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await admin('GET', `${base()}/${workflow.id}`)).status, 404);
  });

  test("Twilio's delivery reports: signed ones recorded, forged ones refused", async () => {
    const created = await admin('POST', base(), { name: 'Texts', activation: { activeOnEventTypeIds: [eventTypeId] }, trigger: { type: 'newEvent' }, steps: [{ ...smsStep, stepNumber: 1 }] });
    assert.equal(created.status, 201, created.text);
    const sent = twilio.messages.length;
    await book('2027-03-17T09:00:00.000Z');
    await eventually(async () => twilio.messages.length > sent, 10_000);
    const sid = twilio.messages.at(-1)!.sid;
    const url = api.config.twilio!.statusCallbackUrl!;
    const report = { MessageSid: sid, MessageStatus: 'delivered', AccountSid: twilio.accountSid, To: ATTENDEE_PHONE, From: '+15005550006', ApiVersion: '2010-04-01' };
    const post = (params: Record<string, string>, signature: string) =>
      api.request('POST', '/v2/text-messages/twilio/status', { body: new URLSearchParams(params).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature } });
    const forged = await post({ ...report, MessageStatus: 'undelivered' }, twilio.sign(url, report));
    assert.equal(forged.status, 401, forged.text);
    assert.equal(forged.body.error.details.reason, 'twilio_signature_invalid');
    const accepted = await post(report, twilio.sign(url, report));
    assert.equal(accepted.status, 200, accepted.text);
    assert.deepEqual(accepted.body.data, { received: true });
    const [row] = ((await db().execute(sql`select delivery_status, status from text_messages where provider_sid = ${sid}`)) as unknown as { rows: { delivery_status: string; status: string }[] }).rows;
    assert.deepEqual(row, { delivery_status: 'delivered', status: 'sent' });
    assert.equal((await admin('DELETE', `${base()}/${created.body.data.id}`)).status, 200);
  });

  test('bad workflows are refused naming the field', async () => {
    const valid = { name: 'W', activation: { activeOnEventTypeIds: [eventTypeId] }, trigger: { type: 'beforeEvent', offset: { value: 1, unit: 'hour' } }, steps: [reminderStep()] };
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['offset missing', { ...valid, trigger: { type: 'beforeEvent' } }, /trigger\.offset/],
      ['foreign event type', { ...valid, activation: { activeOnEventTypeIds: [999999] } }, /activation\.activeOnEventTypeIds/],
      ['unverified address', { ...valid, steps: [reminderStep({ action: 'email_address', recipient: 'email', verifiedEmailId: 999999 })] }, /steps\.0\.verifiedEmailId/],
      ['address without id', { ...valid, steps: [reminderStep({ action: 'email_address', recipient: 'email' })] }, /steps\.0\.verifiedEmailId/],
      ['phone call', { ...valid, steps: [reminderStep({ action: 'svc_ai_phone_call' })] }, /steps\.0\.action .*no telephony provider/],
      ['same step number', { ...valid, steps: [reminderStep(), { ...smsStep, stepNumber: 1 }] }, /steps\.1\.stepNumber/],
      ['email without html', { ...valid, steps: [reminderStep({ message: { subject: 'x' } })] }, /steps\.0\.message\.html/],
      ['empty custom', { ...valid, steps: [reminderStep({ message: { subject: 'x', html: ' ' } })] }, /steps\.0\.message\.html/],
      ['unknown trigger', { ...valid, trigger: { type: 'formSubmitted' } }, /trigger/],
    ];
    for (const [name, body, field] of cases) {
      const refused = await admin('POST', base(), body);
      assert.equal(refused.status, 400, `${name}: ${refused.text}`);
      assert.match(JSON.stringify(refused.body.error), field, name);
    }
    assert.equal((await admin('GET', base())).body.data.length, 0, 'nothing half-written');
  });

  test('a reminder 24 hours before and a follow-up an hour after: scheduled, moved by a reschedule, dropped by a cancel, sent rendered', async () => {
    const reminder = await admin('POST', base(), { name: 'Reminder', activation: { activeOnEventTypeIds: [eventTypeId] }, trigger: { type: 'beforeEvent', offset: { value: 24, unit: 'hour' } }, steps: [reminderStep(), smsStep] });
    assert.equal(reminder.status, 201, reminder.text);
    const followUp = await admin('POST', base(), {
      name: 'Follow-up',
      activation: { isActiveOnAllEventTypes: true },
      trigger: { type: 'afterEvent', offset: { value: 1, unit: 'hour' } },
      steps: [{ stepNumber: 1, action: 'email_host', recipient: 'const', template: 'completed', sender: 'Acme', message: { subject: 'How did {EVENT_NAME} go?', html: '<p>{ATTENDEE} met you.</p>' } }],
    });
    assert.equal(followUp.status, 201, followUp.text);

    const smsBefore = twilio.messages.length;
    const booking = await book(START);
    const attendee = booking.attendees[0]!.email;
    const times = async (uid: string) => (await dueJobsOf(db(), uid)).map((job) => [job.workflow_id, new Date(job.run_at).toISOString()]);
    const [reminderId, followUpId] = [reminder.body.data.id, followUp.body.data.id];
    assert.deepEqual(await times(booking.uid), [
      [reminderId, new Date(Date.parse(START) - 24 * HOUR).toISOString()],
      [followUpId, new Date(Date.parse(START) + 30 * 60_000 + HOUR).toISOString()],
    ]);

    // Moved: the new booking is owed its messages 24 hours before its new start and an hour after its end.
    const moved = await api.request('POST', `/v2/bookings/${booking.uid}/reschedule`, { version: BOOKINGS_VERSION, key: host.apiKey, body: { start: MOVED, reschedulingReason: 'Clash' } });
    assert.equal(moved.status, 201, moved.text);
    const newUid: string = moved.body.data.uid;
    const title: string = moved.body.data.title;
    assert.deepEqual(await times(newUid), [
      [reminderId, new Date(Date.parse(MOVED) - 24 * HOUR).toISOString()],
      [followUpId, new Date(Date.parse(MOVED) + 30 * 60_000 + HOUR).toISOString()],
    ]);

    // The clock reaches the old booking's times too: it owes nothing any more.
    await reachDueJobs(db(), [booking.uid, newUid]);
    await eventually(() => dueJobsDone(db(), [booking.uid, newUid]), 10_000);
    assert.deepEqual(await remindersOf(booking.uid), [], 'nothing for the booking that was moved');
    assert.deepEqual(
      (await remindersOf(newUid)).map((r) => [r.channel, r.recipient_address, new Date(r.scheduled_at).toISOString(), r.status]),
      [
        ['email', attendee, new Date(Date.parse(MOVED) - 24 * HOUR).toISOString(), 'sent'],
        ['sms', ATTENDEE_PHONE, new Date(Date.parse(MOVED) - 24 * HOUR).toISOString(), 'sent'],
        ['email', host.user.email, new Date(Date.parse(MOVED) + 30 * 60_000 + HOUR).toISOString(), 'sent'],
      ],
    );
    const reminders = () => smtp.to(attendee).filter((m) => m.email.subject?.startsWith('Reminder'));
    const followUps = () => smtp.to(host.user.email).filter((m) => m.email.subject?.startsWith('How did'));
    await eventually(async () => reminders().length > 0 && followUps().length > 0 && twilio.messages.length > smsBefore, 10_000);
    const mail = reminders()[0]!;
    // 14:00Z is 19:45 in Kathmandu on Thursday 11 March; day and month in German (the attendee's language).
    assert.equal(mail.email.subject, `Reminder: ${title} on Do, März 11, 2027 7:45pm`);
    assert.match(mail.email.html as string, /Hello Asha Rai, Dr Host meets you at 7:45pm Asia\/Kathmandu \(Rue de la Paix 1, Paris\)/);
    assert.ok(!(mail.email.html as string).includes('<script'), 'no script in the sent message');
    assert.match(mail.email.html as string, new RegExp(`/booking/${newUid}\\?cancel=true`));
    assert.match(mail.raw, /^From: Acme Scheduling </m);
    assert.ok(mail.icsAttachment ?? mail.calendarPart, 'the event attached (includeCalendarEvent)');
    assert.match(followUps()[0]!.email.html as string, /Asha Rai met you/);
    assert.deepEqual(
      twilio.messages.slice(smsBefore).map((t) => [t.to, t.body]),
      [[ATTENDEE_PHONE, `${title} at 19:45 (Asia/Kathmandu)`]],
    );
    // Nothing more comes: the first booking's messages were not sent, each message went once, and a
    // second run of a due job (a retry after a crash) sends nothing again.
    await db().execute(sql`update jobs set status = 'pending', run_at = now() where kind = 'workflow.due' and (payload->>'bookingId')::int = (select id from bookings where uid = ${newUid})`);
    await db().execute(sql`select pg_notify('svc_jobs', '')`);
    await eventually(() => dueJobsDone(db(), [newUid]), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(reminders().length, 1);
    assert.equal(followUps().length, 1);
    assert.equal(twilio.messages.length, smsBefore + 1);

    // Cancelled: nothing is owed any more.
    const another = await book('2027-03-12T09:00:00.000Z');
    assert.equal((await dueJobsOf(db(), another.uid)).length, 2);
    const cancelled = await api.request('POST', `/v2/bookings/${another.uid}/cancel`, { version: BOOKINGS_VERSION, key: host.apiKey, body: { cancellationReason: 'Ill' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    await reachDueJobs(db(), [another.uid]);
    await eventually(() => dueJobsDone(db(), [another.uid]), 10_000);
    assert.deepEqual(await remindersOf(another.uid), []);
    for (const id of [reminderId, followUpId]) assert.equal((await admin('DELETE', `${base()}/${id}`)).status, 200);
  });

  test('a workflow made after bookings exist schedules what is still ahead, never what has passed', async () => {
    const soon = new Date(Date.now() + 2 * 86_400_000);
    soon.setUTCHours(10, 0, 0, 0);
    while ([0, 6].includes(soon.getUTCDay())) soon.setUTCDate(soon.getUTCDate() + 1);
    const near = await book(soon.toISOString());
    const far = await book('2027-03-15T11:00:00.000Z');
    assert.deepEqual(await dueJobsOf(db(), near.uid), [], 'no workflow yet');
    // 100 hours before: past for the near booking, ahead for the far one.
    const created = await admin('POST', base(), { name: 'Early', activation: { activeOnEventTypeIds: [eventTypeId] }, trigger: { type: 'beforeEvent', offset: { value: 100, unit: 'hour' } }, steps: [reminderStep()] });
    assert.equal(created.status, 201, created.text);
    const timesOf = async (uid: string) => (await dueJobsOf(db(), uid)).map((job) => new Date(job.run_at).toISOString());
    await eventually(async () => (await timesOf(far.uid)).length === 1, 10_000);
    assert.deepEqual(await timesOf(far.uid), [new Date(Date.parse('2027-03-15T11:00:00.000Z') - 100 * HOUR).toISOString()]);
    assert.deepEqual(await dueJobsOf(db(), near.uid), [], 'its time has passed: not sent late');
    // Changed: owed at the new time; at the old one, nothing is owed any more.
    const changed = await admin('PATCH', `${base()}/${created.body.data.id}`, { trigger: { type: 'beforeEvent', offset: { value: 2, unit: 'day' } } });
    assert.equal(changed.status, 200, changed.text);
    await eventually(async () => (await timesOf(far.uid)).length === 2, 10_000);
    assert.deepEqual(await timesOf(far.uid), ['2027-03-11T07:00:00.000Z', '2027-03-13T11:00:00.000Z']);
    const sentBefore = smtp.messages.length;
    await reachDueJobs(db(), [far.uid]);
    await eventually(() => dueJobsDone(db(), [far.uid]), 10_000);
    assert.deepEqual((await remindersOf(far.uid)).map((r) => [new Date(r.scheduled_at).toISOString(), r.status]), [['2027-03-13T11:00:00.000Z', 'sent']], 'once, for the time the workflow now has');
    assert.equal((await admin('DELETE', `${base()}/${created.body.data.id}`)).status, 200);
    assert.deepEqual(await remindersOf(far.uid), [], 'deleted with what it had sent');
    await eventually(async () => smtp.messages.length > sentBefore, 10_000);
  });

  test('newEvent and eventCancelled send at once; a workflow on another event type stays silent', async () => {
    const onNew = await admin('POST', base(), {
      name: 'Booked',
      activation: { activeOnEventTypeIds: [eventTypeId] },
      trigger: { type: 'newEvent' },
      steps: [{ stepNumber: 1, action: 'email_address', recipient: 'email', template: 'custom', sender: 'Desk', verifiedEmailId, message: { subject: 'New: {ATTENDEE_NAME} {EVENT_DATE_YYYY-MM-DD HH:mm}', html: '<p>{ATTENDEE_EMAIL}</p>' } }],
    });
    assert.equal(onNew.status, 201, onNew.text);
    const onCancel = await admin('POST', base(), {
      name: 'Cancelled',
      activation: { activeOnEventTypeIds: [eventTypeId] },
      trigger: { type: 'eventCancelled' },
      steps: [{ stepNumber: 1, action: 'whatsapp_attendee', recipient: 'attendee', template: 'cancelled', sender: 'Desk', message: { subject: '', text: '' } }],
    });
    assert.equal(onCancel.status, 201, onCancel.text);
    const elsewhere = await admin('POST', base(), {
      name: 'Other type',
      activation: { activeOnEventTypeIds: [otherEventTypeId] },
      trigger: { type: 'newEvent' },
      steps: [{ stepNumber: 1, action: 'email_host', recipient: 'const', template: 'custom', sender: 'Desk', message: { subject: 'Wrong type', html: '<p>x</p>' } }],
    });
    assert.equal(elsewhere.status, 201, elsewhere.text);
    const sentBefore = twilio.messages.length;
    const booking = await book('2027-03-16T09:00:00.000Z', { name: 'Ravi K' });
    await eventually(async () => smtp.to('front-desk@example.com').some((m) => m.email.subject === 'New: Ravi K 2027-03-16 09:00'), 10_000);
    assert.match(smtp.to('front-desk@example.com').find((m) => m.email.subject === 'New: Ravi K 2027-03-16 09:00')!.email.html as string, new RegExp(booking.attendees[0]!.email));
    const cancelled = await api.request('POST', `/v2/bookings/${booking.uid}/cancel`, { version: BOOKINGS_VERSION, key: host.apiKey, body: { cancellationReason: 'Double' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    await eventually(async () => twilio.messages.length > sentBefore, 10_000);
    const whatsapp = twilio.messages.at(-1)!;
    assert.equal(whatsapp.to, `whatsapp:${ATTENDEE_PHONE}`);
    assert.equal(whatsapp.from, 'whatsapp:+15005550007');
    assert.ok(whatsapp.body.length > 0 && !whatsapp.body.includes('{'), whatsapp.body);
    assert.ok(!smtp.messages.some((m) => m.email.subject === 'Wrong type'), 'the other event type\'s workflow sent nothing');
    for (const workflow of [onNew, onCancel, elsewhere]) assert.equal((await admin('DELETE', `${base()}/${workflow.body.data.id}`)).status, 200);
  });

  test('bookings that need confirmation: bookingRequested at once, bookingRejected on a decline, reminders only once confirmed', async () => {
    const team = await setUpWorkflowTeam(api, ['confirm']);
    const typeId = team.eventTypeIds.confirm!;
    const patched = await api.request('PATCH', `/v2/organizations/${team.orgId}/teams/${team.teamId}/event-types/${typeId}`, { key: team.owner.apiKey, body: { confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: true } } });
    assert.equal(patched.status, 200, patched.text);
    const mailStep = (subject: string) => ({ stepNumber: 1, action: 'email_attendee', recipient: 'attendee', template: 'custom', sender: 'Desk', message: { subject, html: '<p>{EVENT_NAME}</p>' } });
    for (const [type, subject] of [['bookingRequested', 'Workflow requested: {ATTENDEE}'], ['bookingRejected', 'Workflow declined: {ATTENDEE}'], ['beforeEvent', 'Workflow soon: {ATTENDEE}']] as const) {
      const created = await api.request('POST', team.workflows, {
        key: team.owner.apiKey,
        body: { name: type, activation: { isActiveOnAllEventTypes: true }, trigger: { type, ...(type === 'beforeEvent' ? { offset: { value: 1, unit: 'hour' } } : {}) }, steps: [mailStep(subject)] },
      });
      assert.equal(created.status, 201, created.text);
    }
    const subjectsTo = (address: string) => smtp.to(address).map((m) => m.email.subject ?? '').filter((subject) => subject.startsWith('Workflow ')).sort();
    const declined = await bookAsAttendee(api, typeId, '2027-03-22T09:00:00.000Z', { name: 'Dee Clined' });
    const confirmed = await bookAsAttendee(api, typeId, '2027-03-22T10:00:00.000Z', { name: 'Con Firmed' });
    const [declinedTo, confirmedTo] = [declined.attendees[0]!.email, confirmed.attendees[0]!.email];
    await eventually(async () => subjectsTo(declinedTo).length === 1 && subjectsTo(confirmedTo).length === 1, 10_000);
    assert.deepEqual(await remindersOf(confirmed.uid).then((list) => list.map((r) => r.status)), ['sent'], 'no reminder for a booking not confirmed yet');
    const decision = (uid: string, verb: string) => api.request('POST', `/v2/bookings/${uid}/${verb}`, { version: BOOKINGS_VERSION, key: team.host.apiKey, ...(verb === 'decline' ? { body: { reason: 'Full' } } : {}) });
    assert.equal((await decision(declined.uid, 'decline')).status, 200);
    assert.equal((await decision(confirmed.uid, 'confirm')).status, 200);
    await eventually(async () => subjectsTo(declinedTo).length === 2, 10_000);
    assert.deepEqual(subjectsTo(declinedTo), ['Workflow declined: Dee Clined', 'Workflow requested: Dee Clined']);
    // Confirmed: its timed message is owed now, an hour before (none for the declined booking).
    assert.deepEqual((await dueJobsOf(db(), confirmed.uid)).filter((job) => job.status === 'pending').map((job) => new Date(job.run_at).toISOString()), ['2027-03-22T09:00:00.000Z']);
    assert.deepEqual((await dueJobsOf(db(), declined.uid)).filter((job) => job.status === 'pending'), []);
    assert.deepEqual(subjectsTo(confirmedTo), ['Workflow requested: Con Firmed']);
  });

  test('routing-form workflows: formSubmitted mails the address the response gives', async () => {
    const form = await admin('POST', `/v2/organizations/${orgId}/teams/${teamId}/routing-forms`, {
      name: 'Intake',
      fields: [
        { identifier: 'name', label: 'Your name', type: 'text', required: true },
        { identifier: 'email', label: 'Your email', type: 'email', required: true },
      ],
      routes: [{ isFallback: true, action: { type: 'customPageMessage', message: 'Thanks' } }],
    });
    assert.equal(form.status, 201, form.text);
    const refused = await admin('POST', `${base()}/routing-form`, { name: 'x', activation: { activeOnRoutingFormIds: ['no-such-form'] }, trigger: { type: 'formSubmitted' }, steps: [reminderStep()] });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error.message, /activation\.activeOnRoutingFormIds/);
    const created = await admin('POST', `${base()}/routing-form`, {
      name: 'Thanks',
      activation: { activeOnRoutingFormIds: [form.body.data.id] },
      trigger: { type: 'formSubmitted' },
      steps: [{ stepNumber: 1, action: 'email_attendee', recipient: 'attendee', template: 'custom', sender: 'Desk', message: { subject: 'Thanks {NAME} for {EVENT_NAME}', html: '<p>We read you.</p>' } }],
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.data.activation, { isActiveOnAllRoutingForms: false, activeOnRoutingFormIds: [form.body.data.id] });
    assert.equal(created.body.data.type, 'routing-form');
    assert.deepEqual((await admin('GET', `${base()}/routing-form`)).body.data.map((w: any) => w.id), [created.body.data.id]);
    assert.equal((await admin('GET', `${base()}/${created.body.data.id}`)).status, 404, 'not an event-type workflow');
    const fields = Object.fromEntries(form.body.data.fields.map((field: any) => [field.identifier, field.id]));
    const response = await api.request('POST', `/v2/routing-forms/${form.body.data.id}/responses`, { body: { [fields.name]: 'Mira', [fields.email]: 'mira@example.com' } });
    assert.equal(response.status, 201, response.text);
    await eventually(async () => smtp.to('mira@example.com').length === 1, 10_000);
    assert.equal(smtp.to('mira@example.com')[0]!.email.subject, 'Thanks Mira for Intake');
    assert.equal((await admin('DELETE', `${base()}/${created.body.data.id}/routing-form`)).status, 200);
  });

  test('housekeeping deletes ended reminders after the retention, never scheduled ones', async () => {
    const workflow = (trigger: Record<string, unknown>) =>
      admin('POST', base(), { name: 'Kept', activation: { activeOnEventTypeIds: [eventTypeId] }, trigger, steps: [reminderStep()] });
    const made = [await workflow({ type: 'newEvent' }), await workflow({ type: 'beforeEvent', offset: { value: 1, unit: 'hour' } })];
    for (const response of made) assert.equal(response.status, 201, response.text);
    const kept = await book('2027-03-18T09:00:00.000Z');
    await eventually(async () => (await remindersOf(kept.uid)).length === 1, 10_000);
    // A routing-form reminder still scheduled: housekeeping leaves it.
    const [step] = (await db().execute(sql`select id, workflow_id from workflow_steps where workflow_id = ${made[1]!.body.data.id}`) as unknown as { rows: { id: number; workflow_id: number }[] }).rows;
    await db().execute(sql`insert into workflow_reminders (dedupe_key, workflow_id, step_id, channel, recipient_address, recipient_role, recipient_time_zone, scheduled_at, created_at)
      values ('hk-scheduled', ${step!.workflow_id}, ${step!.id}, 'email', 'x@example.com', 'address', 'UTC', now(), now() - interval '400 days')`);
    const statuses = async () => ((await db().execute(sql`select status from workflow_reminders where booking_id = (select id from bookings where uid = ${kept.uid}) or dedupe_key = 'hk-scheduled' order by status`)) as unknown as { rows: { status: string }[] }).rows.map((row) => row.status);
    assert.deepEqual(await statuses(), ['scheduled', 'sent']);
    const result = await runHousekeeping(db(), api.config.jobs, new Date(Date.now() + (api.config.jobs.webhookDeliveryRetentionDays + 1) * 86_400_000));
    assert.ok(result.workflowReminders >= 1, `deleted ${result.workflowReminders}`);
    assert.deepEqual(await statuses(), ['scheduled']);
    for (const response of made) assert.equal((await admin('DELETE', `${base()}/${response.body.data.id}`)).status, 200);
  });

  test('refused across organizations and to members who are not admins', async () => {
    const created = await admin('POST', base(), { name: 'Mine', activation: { activeOnEventTypeIds: [eventTypeId] }, trigger: { type: 'newEvent' }, steps: [reminderStep()] });
    assert.equal(created.status, 201, created.text);
    const stranger = await setUpWorkflowTeam(api, ['stranger']);
    for (const [method, path] of [['GET', base()], ['GET', `${base()}/${created.body.data.id}`], ['PATCH', `${base()}/${created.body.data.id}`], ['DELETE', `${base()}/${created.body.data.id}`]] as const) {
      const byStranger = await admin(method, path, method === 'PATCH' ? { name: 'x' } : undefined, stranger.owner.apiKey);
      assert.equal(byStranger.status, 403, `${method} ${path} by another organization's owner: ${byStranger.text}`);
      const byHost = await admin(method, path, method === 'PATCH' ? { name: 'x' } : undefined, host.apiKey);
      assert.equal(byHost.status, 403, `${method} ${path} by a member: ${byHost.text}`);
    }
    // Their own path does not reach this workflow either.
    assert.equal((await admin('GET', `${stranger.workflows}/${created.body.data.id}`, undefined, stranger.owner.apiKey)).status, 404);
    assert.equal((await admin('GET', `${base()}/${created.body.data.id}`)).body.data.name, 'Mine');
    assert.equal((await admin('DELETE', `${base()}/${created.body.data.id}`)).status, 200);
  });
});

describe(`workflows without a text provider (${backend})`, () => {
  test('SMS and WhatsApp steps are refused at creation with a clear 400', async () => {
    const api = await createTestApp();
    try {
      const team = await setUpWorkflowTeam(api, ['plain']);
      for (const action of ['sms_attendee', 'whatsapp_attendee']) {
        const refused = await api.request('POST', team.workflows, {
          key: team.owner.apiKey,
          body: { name: 'Texts', activation: { isActiveOnAllEventTypes: true }, trigger: { type: 'newEvent' }, steps: [{ ...smsStep, stepNumber: 1, action }] },
        });
        assert.equal(refused.status, 400, refused.text);
        assert.equal(refused.body.error.details.reason, 'text_provider_not_configured');
        assert.match(refused.body.error.message, /steps\.0\.action .*TWILIO_/);
      }
      const email = await api.request('POST', team.workflows, { key: team.owner.apiKey, body: { name: 'Mail', activation: { isActiveOnAllEventTypes: true }, trigger: { type: 'newEvent' }, steps: [reminderStep()] } });
      assert.equal(email.status, 201, email.text);
    } finally {
      await api.close();
    }
  });
});
