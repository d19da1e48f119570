// Paid bookings over HTTP on the store of the run, with the local Stripe, a real SMTP receiver and a webhook
// receiver: a booking of a paid event type waits for its payment (Stripe's Checkout page on the host's
// account, the time held), the signed webhook confirms it once (BOOKING_PAYMENT_INITIATED, BOOKING_PAID,
// BOOKING_CREATED; mail only then), forged and replayed events are refused; an unpaid booking is released
// when its hold ends and a late payment refunded; cancellations refund as the event type's policy says
// (always for the host); confirmation, decline and reschedule of paid bookings; Stripe failing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createCheckoutSession } from '../../src/integrations/stripe/client.js';
import { UNPAID_RELEASE_REASON } from '../../src/modules/payments/payments.service.js';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { type SmtpReceiver, startSmtpReceiver } from '../mail/helpers.js';
import { instants, slotsOf } from '../slots/helpers.js';
import { eventually } from '../support/eventually.js';
import { type FakeStripe, startFakeStripe } from '../support/fake-stripe.js';
import type { Member } from '../support/tenancy.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';
import { type Receiver, startReceiver } from '../webhooks/helpers.js';
import { connectStripe, createPaidEventType, paymentJobs, paymentRow, reachHoldEnd, stripeEnv } from './helpers.js';

// Wednesdays and Thursdays in March 2027; the host (Berlin) works 09:00-17:00.
const DAY = '2027-03-10';
const at = (hour: number, day = DAY) => `${day}T${String(hour).padStart(2, '0')}:00:00.000Z`;
const MINUTE = 60_000;

describe(`paid bookings (${backend})`, () => {
  let api: TestApp;
  let stripe: FakeStripe;
  let smtp: SmtpReceiver;
  let hooks: Receiver;
  let host: Member;
  let accountId: string;
  let eventTypeId: number;
  const db = () => api.runtime.ctx.database.db;
  const rows = async <T>(query: ReturnType<typeof sql>) => ((await db().execute(query)) as unknown as { rows: T[] }).rows;
  const attendee = (name = 'Asha Rai') => ({ name, email: `${name.split(' ')[0]!.toLowerCase()}-${Math.random().toString(36).slice(2, 7)}@example.com`, timeZone: 'Asia/Kathmandu' });
  const bookPaid = (start: string, fields: Record<string, unknown> = {}) =>
    api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId, start, attendee: attendee(), ...fields } });
  const booked = async (start: string, fields: Record<string, unknown> = {}) => {
    const response = await bookPaid(start, fields);
    assert.equal(response.status, 201, response.text);
    return response.body.data;
  };
  const getBooking = async (uid: string) => (await api.request('GET', `/v2/bookings/${uid}`, { version: BOOKINGS_VERSION })).body.data;
  const sessionOf = async (paymentUid: string) => (await paymentRow(db(), paymentUid))!.checkout_session_id;
  const triggersOf = (uid: string) => rows<{ trigger: string }>(sql`select trigger from booking_events where booking_uid = ${uid} order by id`).then((found) => found.map((row) => row.trigger));
  const hooksFor = (uid: string) => hooks.requests.filter((request) => request.json?.payload?.uid === uid).map((request) => request.json.triggerEvent as string);
  const mailFor = (uid: string) => rows<{ kind: string; recipient_role: string }>(sql`select m.kind, m.recipient_role from mail_messages m join booking_events e on e.id = m.booking_event_id where e.booking_uid = ${uid} order by m.id`);

  before(async () => {
    stripe = await startFakeStripe();
    smtp = await startSmtpReceiver();
    hooks = await startReceiver();
    api = await createTestApp({ ...stripeEnv(stripe), SMTP_URL: smtp.url, SVC_JOB_RETRY_BASE_MS: '50' });
    stripe.webhookUrl = `${api.baseUrl}/v2/stripe/webhook`;
    host = await api.createUser({ timeZone: 'Europe/Berlin', name: 'Dr Host' });
    assert.equal((await connectStripe(api, host.apiKey)).status, 200);
    accountId = [...stripe.accounts.keys()][0]!;
    eventTypeId = (await createPaidEventType(api, host.apiKey, { price: 5000, currency: 'eur', refundPolicy: { type: 'always' } })).id;
    const hook = await api.request('POST', '/v2/webhooks', {
      key: host.apiKey,
      body: { subscriberUrl: hooks.url, active: true, triggers: ['BOOKING_PAYMENT_INITIATED', 'BOOKING_PAID', 'BOOKING_CREATED', 'BOOKING_REQUESTED', 'BOOKING_CANCELLED', 'BOOKING_REJECTED'] },
    });
    assert.equal(hook.status, 201, hook.text);
  });
  after(async () => {
    await api?.close();
    await stripe?.close();
    await smtp?.close();
    await hooks?.close();
  });

  test('book, pay, confirmed: the booking waits for payment holding its time, the signed webhook confirms it once', async () => {
    const before = Date.now();
    const booking = await booked(at(9));
    assert.equal(booking.status, 'pending');
    const { payment } = booking;
    assert.deepEqual([payment.status, payment.amount, payment.currency, payment.paidAt], ['awaiting', 5000, 'eur', null]);
    assert.match(payment.paymentLink, new RegExp(`^${stripe.url}/c/pay/cs_test_`));
    const holdEnd = Date.parse(payment.expiresAt);
    assert.ok(holdEnd >= before + 30 * MINUTE && holdEnd <= Date.now() + 30 * MINUTE, payment.expiresAt);

    // The page is Stripe Checkout on the host's connected account, naming the booking.
    const session = stripe.sessions.get(await sessionOf(payment.uid))!;
    assert.equal(session.account, accountId);
    assert.deepEqual([session.object.amount_total, session.object.currency, session.object.client_reference_id], [5000, 'eur', payment.uid]);
    assert.deepEqual(session.object.metadata, { paymentUid: payment.uid, bookingUid: booking.uid, eventTypeId: String(eventTypeId) });
    assert.equal(session.object.success_url, `${api.config.appUrl}/booking/${booking.uid}?payment=paid`);
    assert.ok(Number(session.object.expires_at) * 1000 >= holdEnd, 'the page lasts at least as long as the hold');
    const created = stripe.requests.find((request) => request.path === '/v1/checkout/sessions' && request.method === 'POST' && (request.body.metadata as Record<string, string>)?.bookingUid === booking.uid)!;
    assert.deepEqual([created.stripeAccount, created.idempotencyKey], [accountId, `svc-checkout-${payment.uid}`]);

    // The time is held: no other booker is offered it, nobody is mailed, the release job waits for the hold's end.
    const free = instants(await slotsOf(api, { eventTypeId, start: DAY, end: DAY, timeZone: 'UTC' }));
    assert.ok(!free.includes(Date.parse(at(9))) && free.includes(Date.parse(at(10))), 'held');
    const taken = await bookPaid(at(9));
    assert.equal(taken.status, 400, taken.text);
    const paymentId = (await paymentRow(db(), payment.uid))!.id;
    const [release] = (await paymentJobs(db(), 'payment.release')).filter((job) => job.payload.paymentId === paymentId);
    assert.equal(Date.parse(release!.run_at), holdEnd);
    assert.deepEqual(await triggersOf(booking.uid), ['BOOKING_PAYMENT_INITIATED']);
    assert.deepEqual(await mailFor(booking.uid), []);
    const [initiated] = await hooks.waitFor(1, 5000, (request) => request.json?.payload?.uid === booking.uid);
    assert.equal(initiated!.json.triggerEvent, 'BOOKING_PAYMENT_INITIATED');
    assert.deepEqual([initiated!.json.payload.price, initiated!.json.payload.currency, initiated!.json.payload.status], [5000, 'eur', 'PENDING']);
    assert.equal(initiated!.json.payload.paymentData.paymentLink, payment.paymentLink);

    // The booker pays: Stripe's signed event confirms the booking.
    const paid = await stripe.pay(await sessionOf(payment.uid));
    assert.equal(paid.status, 200, paid.body);
    assert.deepEqual(JSON.parse(paid.body), { received: true, outcome: 'confirmed' });
    const confirmed = await getBooking(booking.uid);
    assert.equal(confirmed.status, 'accepted');
    assert.deepEqual([confirmed.payment.status, confirmed.payment.paymentLink, confirmed.payment.expiresAt], ['paid', null, null]);
    assert.ok(confirmed.payment.paidAt);
    assert.equal((await paymentRow(db(), payment.uid))!.payment_intent_id, (paid.event.data as { object: { payment_intent: string } }).object.payment_intent);
    assert.deepEqual(await triggersOf(booking.uid), ['BOOKING_PAYMENT_INITIATED', 'BOOKING_PAID', 'BOOKING_CREATED']);
    await hooks.waitFor(3, 5000, (request) => request.json?.payload?.uid === booking.uid);
    assert.deepEqual(hooksFor(booking.uid).sort(), ['BOOKING_CREATED', 'BOOKING_PAID', 'BOOKING_PAYMENT_INITIATED']);
    const paidHook = hooks.requests.find((request) => request.json?.triggerEvent === 'BOOKING_PAID' && request.json.payload.uid === booking.uid)!;
    assert.deepEqual([paidHook.json.payload.paymentData.amount, paidHook.json.payload.status], [5000, 'ACCEPTED']);
    assert.deepEqual((await mailFor(booking.uid)).map((mail) => `${mail.kind}:${mail.recipient_role}`).sort(), ['scheduled:attendee', 'scheduled:organizer']);

    // Stripe delivers again: nothing changes. A forged, tampered or stale event is refused.
    const again = await stripe.deliver(paid.event);
    assert.deepEqual([again.status, JSON.parse(again.body).outcome], [200, 'duplicate']);
    assert.deepEqual(await triggersOf(booking.uid), ['BOOKING_PAYMENT_INITIATED', 'BOOKING_PAID', 'BOOKING_CREATED']);
    const other = stripe.event('checkout.session.completed', { ...(paid.event.data as { object: Record<string, unknown> }).object }, accountId);
    for (const [options, why] of [
      [{ secret: 'whsec_not_the_endpoints' }, 'another secret'],
      [{ timestamp: Math.floor(Date.now() / 1000) - 600 }, 'ten minutes old'],
      [{ signatureHeader: '' }, 'no signature'],
      [{ body: JSON.stringify({ ...other, id: 'evt_tampered' }), signatureHeader: `t=${Math.floor(Date.now() / 1000)},v1=${stripe.signatureFor(JSON.stringify(other), Math.floor(Date.now() / 1000))}` }, 'a changed body'],
    ] as const) {
      const refused = await stripe.deliver(other, options);
      assert.equal(refused.status, 400, `${why}: ${refused.body}`);
      assert.equal(JSON.parse(refused.body).error.details.reason, 'stripe_signature_invalid', why);
    }
    assert.equal((await rows<{ n: number }>(sql`select count(*)::int as n from stripe_events where id = ${String(other.id)}`))[0]!.n, 0);
  });

  test('unpaid when the hold ends: released (its time free again, its page closed, BOOKING_CANCELLED, no mail); a late payment is refunded', async () => {
    const booking = await booked(at(11));
    const sessionId = await sessionOf(booking.payment.uid);
    await reachHoldEnd(db(), booking.payment.uid);
    await eventually(async () => (await getBooking(booking.uid)).status === 'cancelled', 5000);
    const released = await getBooking(booking.uid);
    assert.deepEqual([released.cancellationReason, released.payment.status, released.payment.paymentLink], [UNPAID_RELEASE_REASON, 'expired', null]);
    await eventually(async () => stripe.sessions.get(sessionId)!.object.status === 'expired', 5000);
    assert.ok(instants(await slotsOf(api, { eventTypeId, start: DAY, end: DAY, timeZone: 'UTC' })).includes(Date.parse(at(11))), 'free again');
    await hooks.waitFor(2, 5000, (request) => request.json?.payload?.uid === booking.uid);
    assert.deepEqual(hooksFor(booking.uid), ['BOOKING_PAYMENT_INITIATED', 'BOOKING_CANCELLED']);
    assert.deepEqual(await mailFor(booking.uid), []);

    // Someone else books the freed time; the first booker pays anyway (a page paid as it closed): refunded.
    const next = await booked(at(11));
    assert.equal(next.status, 'pending');
    const late = stripe.event('checkout.session.completed', { ...stripe.sessions.get(sessionId)!.object, status: 'complete', payment_status: 'paid', payment_intent: 'pi_late_payment' }, accountId);
    stripe.paymentIntents.set('pi_late_payment', { account: accountId, object: { id: 'pi_late_payment', object: 'payment_intent', amount: 5000, currency: 'eur', status: 'succeeded' }, refunded: 0 });
    const delivered = await stripe.deliver(late);
    assert.deepEqual([delivered.status, JSON.parse(delivered.body).outcome], [200, 'refunding']);
    await eventually(async () => (await paymentRow(db(), booking.payment.uid))!.status === 'refunded', 5000);
    const refund = stripe.refunds.find((made) => made.object.payment_intent === 'pi_late_payment')!;
    assert.deepEqual([refund.account, refund.object.amount], [accountId, 5000]);
    assert.equal((await getBooking(next.uid)).status, 'pending', "the new booker's booking is untouched");
  });

  test("paid in time but Stripe's event late: the hold's end finds the page paid and confirms the booking", async () => {
    const booking = await booked(at(9, '2027-03-12'));
    const sessionId = await sessionOf(booking.payment.uid);
    stripe.webhookUrl = null;
    try {
      assert.equal((await stripe.pay(sessionId)).status, 0, 'the event did not reach svc');
    } finally {
      stripe.webhookUrl = `${api.baseUrl}/v2/stripe/webhook`;
    }
    assert.equal((await getBooking(booking.uid)).payment.status, 'awaiting');
    await reachHoldEnd(db(), booking.payment.uid);
    await eventually(async () => (await getBooking(booking.uid)).status === 'accepted', 5000);
    assert.equal((await getBooking(booking.uid)).payment.status, 'paid');
    assert.deepEqual(await triggersOf(booking.uid), ['BOOKING_PAYMENT_INITIATED', 'BOOKING_PAID', 'BOOKING_CREATED']);
    assert.equal(stripe.sessions.get(sessionId)!.object.status, 'complete', 'not expired');
  });

  test("cancellations: the attendee's refunded as the policy says, the host's always; an unpaid one's page closed", async () => {
    const paidBooking = async (start: string, typeId = eventTypeId) => {
      const response = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId: typeId, start, attendee: attendee() } });
      assert.equal(response.status, 201, response.text);
      const paid = await stripe.pay(await sessionOf(response.body.data.payment.uid));
      assert.equal(JSON.parse(paid.body).outcome, 'confirmed');
      return response.body.data as { uid: string; payment: { uid: string } };
    };
    const cancel = (uid: string, key?: string) =>
      api.request('POST', `/v2/bookings/${uid}/cancel`, { version: BOOKINGS_VERSION, ...(key ? { key } : {}), body: { cancellationReason: 'Cannot make it' } });

    // "always": the attendee cancels, the whole payment goes back.
    const always = await paidBooking(at(12));
    assert.equal((await cancel(always.uid)).status, 200);
    await eventually(async () => (await paymentRow(db(), always.payment.uid))!.status === 'refunded', 5000);
    const refunded = (await getBooking(always.uid)).payment;
    assert.deepEqual([refunded.status, refunded.refundedAmount], ['refunded', 5000]);
    const row = (await paymentRow(db(), always.payment.uid))!;
    assert.equal(stripe.refunds.find((made) => made.object.id === row.refund_id)!.object.payment_intent, row.payment_intent_id);

    // "never": the attendee's cancellation keeps the money; the host's refunds it.
    const never = (await createPaidEventType(api, host.apiKey, { price: 3000, currency: 'eur', refundPolicy: { type: 'never' } })).id;
    const kept = await paidBooking(at(13), never);
    assert.equal((await cancel(kept.uid)).status, 200);
    const cancelled = await getBooking(kept.uid);
    assert.deepEqual([cancelled.status, cancelled.payment.status], ['cancelled', 'paid']);
    const byHost = await paidBooking(at(14), never);
    assert.equal((await cancel(byHost.uid, host.apiKey)).status, 200);
    await eventually(async () => (await paymentRow(db(), byHost.payment.uid))!.status === 'refunded', 5000);

    // "days": refunded up to 2 days before (this start is months ahead); within 365 days, not.
    const twoDays = (await createPaidEventType(api, host.apiKey, { price: 3000, currency: 'eur', refundPolicy: { type: 'days', days: 2 } })).id;
    const early = await paidBooking(at(15), twoDays);
    assert.equal((await cancel(early.uid)).status, 200);
    await eventually(async () => (await paymentRow(db(), early.payment.uid))!.status === 'refunded', 5000);
    const yearAhead = (await createPaidEventType(api, host.apiKey, { price: 3000, currency: 'eur', refundPolicy: { type: 'days', days: 365 } })).id;
    const late = await paidBooking(at(9, '2027-03-11'), yearAhead);
    assert.equal((await cancel(late.uid)).status, 200);
    assert.equal((await paymentRow(db(), late.payment.uid))!.status, 'paid');

    // Unpaid and cancelled: its page is closed at Stripe; nobody is mailed.
    const unpaid = await booked(at(10, '2027-03-11'));
    assert.equal((await cancel(unpaid.uid)).status, 200);
    assert.equal((await paymentRow(db(), unpaid.payment.uid))!.status, 'cancelled');
    const sessionId = await sessionOf(unpaid.payment.uid);
    await eventually(async () => stripe.sessions.get(sessionId)!.object.status === 'expired', 5000);
    assert.deepEqual(await mailFor(unpaid.uid), []);
  });

  test('a paid booking the host must confirm: it waits for the host once paid; confirming before payment is refused; declining refunds', async () => {
    const typeId = (await createPaidEventType(api, host.apiKey, { price: 4000, currency: 'eur', confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: false } })).id;
    const response = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId: typeId, start: at(12, '2027-03-11'), attendee: attendee() } });
    assert.equal(response.status, 201, response.text);
    const booking = response.body.data;
    const early = await api.request('POST', `/v2/bookings/${booking.uid}/confirm`, { version: BOOKINGS_VERSION, key: host.apiKey });
    assert.deepEqual([early.status, early.body.error?.details?.reason], [400, 'booking_awaiting_payment']);
    const moved = await api.request('POST', `/v2/bookings/${booking.uid}/reschedule`, { version: BOOKINGS_VERSION, body: { start: at(13, '2027-03-11') } });
    assert.deepEqual([moved.status, moved.body.error?.details?.reason], [400, 'booking_awaiting_payment']);

    assert.equal(JSON.parse((await stripe.pay(await sessionOf(booking.payment.uid))).body).outcome, 'confirmed');
    const waiting = await getBooking(booking.uid);
    assert.deepEqual([waiting.status, waiting.payment.status], ['pending', 'paid']);
    assert.deepEqual(await triggersOf(booking.uid), ['BOOKING_PAYMENT_INITIATED', 'BOOKING_PAID', 'BOOKING_REQUESTED']);
    // Paid and waiting for the host, it still holds its time.
    assert.ok(!instants(await slotsOf(api, { eventTypeId: typeId, start: '2027-03-11', end: '2027-03-11', timeZone: 'UTC' })).includes(Date.parse(at(12, '2027-03-11'))));

    const declined = await api.request('POST', `/v2/bookings/${booking.uid}/decline`, { version: BOOKINGS_VERSION, key: host.apiKey, body: { reason: 'Fully booked' } });
    assert.equal(declined.status, 200, declined.text);
    await eventually(async () => (await paymentRow(db(), booking.payment.uid))!.status === 'refunded', 5000);
  });

  test('a paid booking moved to another time keeps its payment (no second charge); a refund follows it', async () => {
    const booking = await booked(at(15, '2027-03-11'));
    assert.equal(JSON.parse((await stripe.pay(await sessionOf(booking.payment.uid))).body).outcome, 'confirmed');
    const sessionsBefore = stripe.sessions.size;
    const moved = await api.request('POST', `/v2/bookings/${booking.uid}/reschedule`, { version: BOOKINGS_VERSION, body: { start: at(14, '2027-03-11') } });
    assert.equal(moved.status, 201, moved.text);
    assert.deepEqual([moved.body.data.status, moved.body.data.payment.uid, moved.body.data.payment.status], ['accepted', booking.payment.uid, 'paid']);
    assert.equal(stripe.sessions.size, sessionsBefore);
    assert.equal((await api.request('POST', `/v2/bookings/${moved.body.data.uid}/cancel`, { version: BOOKINGS_VERSION, key: host.apiKey, body: { cancellationReason: 'Ill' } })).status, 200);
    await eventually(async () => (await paymentRow(db(), booking.payment.uid))!.status === 'refunded', 5000);
  });

  test("a payment on svc's page no booking took is refunded, one on the host's own page is not svc's business; Stripe failing answers 503 or 409 and books nothing", async () => {
    const page = (metadata: Record<string, string>) =>
      createCheckoutSession(api.config.payments.stripe!, {
      accountId,
      amount: 5000,
      currency: 'eur',
      productName: 'Consultation',
      successUrl: 'https://example.com/ok',
      cancelUrl: 'https://example.com/no',
      expiresAt: new Date(Date.now() + 40 * MINUTE),
      clientReferenceId: 'lost-payment',
      metadata,
      idempotencyKey: `orphan-${JSON.stringify(metadata)}-${Date.now()}`,
    });
    // The host sells something else through Stripe Checkout: the platform's Connect endpoint hears of it too.
    const own = await stripe.pay((await page({ order: 'A-1' })).id);
    assert.deepEqual([own.status, JSON.parse(own.body).outcome], [200, 'ignored']);
    const ownIntent = (own.event.data as { object: { payment_intent: string } }).object.payment_intent;
    // svc's page whose booking was never written (its transaction failed after the page was opened).
    const orphan = await page({ paymentUid: 'b6a1f0e2-lost', bookingUid: 'never-written' });
    const paid = await stripe.pay(orphan.id);
    assert.deepEqual([paid.status, JSON.parse(paid.body).outcome], [200, 'refunding']);
    const intent = (paid.event.data as { object: { payment_intent: string } }).object.payment_intent;
    await eventually(async () => stripe.refunds.some((made) => made.object.payment_intent === intent), 5000);
    assert.ok(!stripe.refunds.some((made) => made.object.payment_intent === ownIntent), "the host's own sale is not refunded");

    const count = async () => (await rows<{ n: number }>(sql`select count(*)::int as n from bookings`))[0]!.n;
    const before = await count();
    stripe.failNext('/v1/checkout/sessions', { status: 500, type: 'api_error', message: 'Stripe is down', shouldRetry: false });
    const down = await bookPaid(at(9, '2027-03-17'));
    assert.deepEqual([down.status, down.body.error?.details?.reason], [503, 'stripe_unavailable']);
    stripe.failNext('/v1/checkout/sessions', { status: 400, type: 'invalid_request_error', message: 'Your account cannot currently make live charges.' });
    const refused = await bookPaid(at(9, '2027-03-17'));
    assert.deepEqual([refused.status, refused.body.error?.details?.reason], [409, 'payment_not_created']);
    assert.equal(await count(), before);
    // A booking refused after its page was opened closes the page.
    const sessions = stripe.sessions.size;
    const outside = await bookPaid('2027-03-14T10:00:00.000Z');
    assert.equal(outside.status, 400, outside.text);
    assert.equal(stripe.sessions.size, sessions + 1);
    const abandoned = [...stripe.sessions.values()].at(-1)!;
    await eventually(async () => abandoned.object.status === 'expired', 5000);
  });

  test('a payment arriving as the hold ends: either paid and confirmed, or released and refunded, never both (PostgreSQL)', { skip: backend !== 'postgres' }, async () => {
    const bookings = [];
    for (const hour of [9, 10, 11, 12, 13]) bookings.push(await booked(at(hour, '2027-03-18')));
    const deliveries = await Promise.all(
      bookings.map(async (booking) => {
        const sessionId = await sessionOf(booking.payment.uid);
        const [delivery] = await Promise.all([stripe.pay(sessionId), reachHoldEnd(db(), booking.payment.uid)]);
        return delivery;
      }),
    );
    for (const delivery of deliveries) assert.equal(delivery.status, 200, delivery.body);
    const ids = new Set(await Promise.all(bookings.map(async (booking) => (await paymentRow(db(), booking.payment.uid))!.id)));
    await eventually(async () => (await paymentJobs(db(), 'payment.release')).filter((job) => ids.has(job.payload.paymentId as number)).every((job) => job.status !== 'pending'), 10_000);
    for (const booking of bookings) {
      await eventually(async () => ['paid', 'refunded'].includes((await paymentRow(db(), booking.payment.uid))!.status), 10_000);
      const row = (await paymentRow(db(), booking.payment.uid))!;
      const { status } = await getBooking(booking.uid);
      const refunded = stripe.refunds.filter((made) => made.object.payment_intent === row.payment_intent_id).length;
      if (row.status === 'paid') assert.deepEqual([status, refunded], ['accepted', 0], booking.uid);
      else assert.deepEqual([status, refunded], ['cancelled', 1], booking.uid);
    }
  });

  test('two bookers racing for the last paid slot: one holds it, the other is refused and its page closed (PostgreSQL)', { skip: backend !== 'postgres' }, async () => {
    const start = at(10, '2027-03-17');
    const sessions = stripe.sessions.size;
    const answers = await Promise.all([bookPaid(start), bookPaid(start), bookPaid(start)]);
    const won = answers.filter((answer) => answer.status === 201);
    assert.equal(won.length, 1, answers.map((answer) => `${answer.status} ${answer.text.slice(0, 120)}`).join('\n'));
    for (const lost of answers.filter((answer) => answer.status !== 201)) assert.equal(lost.status, 400, lost.text);
    assert.equal(stripe.sessions.size, sessions + 3, 'each booker got a page before the race');
    const winner = await sessionOf(won[0]!.body.data.payment.uid);
    const losers = [...stripe.sessions.entries()].slice(sessions).filter(([id]) => id !== winner);
    await eventually(async () => losers.every(([, session]) => session.object.status === 'expired'), 5000);
    assert.equal(stripe.sessions.get(winner)!.object.status, 'open');
    const held = await rows<{ n: number }>(sql`select count(*)::int as n from bookings where start_at = ${start}::timestamptz and status in ('pending', 'accepted')`);
    assert.equal(held[0]!.n, 1);
  });
});
