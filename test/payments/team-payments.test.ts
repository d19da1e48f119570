// A paid event type of an organization's team over HTTP on the store of the run: it charges into the team's
// connected account (not a host's), and the team's workflows on bookingPaymentInitiated and bookingPaid
// mail when the booking waits for its payment and when it is paid, each once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type SmtpReceiver, startSmtpReceiver } from '../mail/helpers.js';
import { eventually } from '../support/eventually.js';
import { type FakeStripe, startFakeStripe } from '../support/fake-stripe.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';
import { bookAsAttendee, setUpWorkflowTeam, type WorkflowTeam } from '../workflows/helpers.js';
import { connectStripe, paymentRow, stripeEnv } from './helpers.js';

const emailStep = (stepNumber: number, action: 'email_host' | 'email_attendee', subject: string) => ({
  stepNumber,
  action,
  recipient: action === 'email_host' ? 'const' : 'attendee',
  template: 'custom',
  sender: 'Clinic',
  message: { subject, html: '<p>{EVENT_NAME} on {EVENT_DATE_YYYY-MM-DD} for {ATTENDEE}</p>' },
});

describe(`a team's paid event type (${backend})`, () => {
  let api: TestApp;
  let stripe: FakeStripe;
  let smtp: SmtpReceiver;
  let team: WorkflowTeam;
  let eventTypeId: number;

  before(async () => {
    stripe = await startFakeStripe();
    smtp = await startSmtpReceiver();
    api = await createTestApp({ ...stripeEnv(stripe), SMTP_URL: smtp.url, SVC_JOB_RETRY_BASE_MS: '50' });
    stripe.webhookUrl = `${api.baseUrl}/v2/stripe/webhook`;
    team = await setUpWorkflowTeam(api, ['paid-consultation']);
    eventTypeId = team.eventTypeIds['paid-consultation']!;
  });
  after(async () => {
    await api?.close();
    await stripe?.close();
    await smtp?.close();
  });

  test("it charges into the team's account; workflows on bookingPaymentInitiated and bookingPaid mail once each", async () => {
    const path = `/v2/organizations/${team.orgId}/teams/${team.teamId}/event-types/${eventTypeId}`;
    const refused = await api.request('PATCH', path, { key: team.owner.apiKey, body: { price: 6000, currency: 'usd' } });
    assert.deepEqual([refused.status, refused.body.error?.details?.reason], [400, 'stripe_not_connected']);
    // The host's own account is not the team's.
    assert.equal((await connectStripe(api, team.host.apiKey)).status, 200);
    assert.equal((await api.request('PATCH', path, { key: team.owner.apiKey, body: { price: 6000, currency: 'usd' } })).status, 400);
    assert.equal((await connectStripe(api, team.owner.apiKey, `/v2/organizations/${team.orgId}/teams/${team.teamId}/stripe/connect`)).status, 200);
    const teamAccount = [...stripe.accounts.keys()].at(-1)!;
    const priced = await api.request('PATCH', path, { key: team.owner.apiKey, body: { price: 6000, currency: 'usd', refundPolicy: { type: 'always' } } });
    assert.equal(priced.status, 200, priced.text);
    assert.deepEqual([priced.body.data.price, priced.body.data.currency, priced.body.data.refundPolicy.type], [6000, 'usd', 'always']);

    for (const [trigger, step] of [
      ['bookingPaymentInitiated', emailStep(1, 'email_host', 'Awaiting payment: {EVENT_NAME}')],
      ['bookingPaid', emailStep(1, 'email_attendee', 'Paid: {EVENT_NAME}')],
    ] as const) {
      const created = await api.request('POST', team.workflows, { key: team.owner.apiKey, body: { name: trigger, activation: { activeOnEventTypeIds: [eventTypeId] }, trigger: { type: trigger }, steps: [step] } });
      assert.equal(created.status, 201, created.text);
    }

    const booking = await bookAsAttendee(api, eventTypeId, '2027-03-10T10:00:00.000Z');
    const payment = (booking as unknown as { payment: { uid: string; amount: number } }).payment;
    assert.equal(payment.amount, 6000);
    const row = (await paymentRow(api.runtime.ctx.database.db, payment.uid))!;
    assert.equal(stripe.sessions.get(row.checkout_session_id)!.account, teamAccount);
    const attendeeEmail = booking.attendees[0]!.email;
    await eventually(async () => smtp.to(team.host.user.email).some((mail) => (mail.email.subject ?? '').startsWith('Awaiting payment')), 10_000);
    assert.equal(smtp.to(attendeeEmail).length, 0, 'the attendee hears nothing before paying');

    assert.equal(JSON.parse((await stripe.pay(row.checkout_session_id)).body).outcome, 'confirmed');
    await eventually(async () => smtp.to(attendeeEmail).some((mail) => (mail.email.subject ?? '').startsWith('Paid:')), 10_000);
    await eventually(async () => smtp.to(attendeeEmail).length >= 2, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const subjects = smtp.to(attendeeEmail).map((mail) => mail.email.subject ?? '');
    assert.equal(subjects.filter((subject) => subject.startsWith('Paid:')).length, 1, subjects.join(' | '));
    assert.equal(smtp.to(team.host.user.email).filter((mail) => (mail.email.subject ?? '').startsWith('Awaiting payment')).length, 1);
  });
});
