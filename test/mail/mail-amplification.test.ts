// An anonymous caller cannot turn svc into a mailer (issue 23 item 5): guests per booking are capped,
// guests hear only of a booking that was accepted, messages to anyone but the hosts are budgeted per
// address and per event type in the database, and the caller's text never leads a Subject. Real HTTP,
// the job runner sending to a real SMTP server on loopback; exact counts read from the outbox.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { en } from '../../src/modules/mail/messages/en.js';
import { BOOKINGS_VERSION, book, booked } from '../bookings/helpers.js';
import { assertNamesField, createEventType, createHost, type Host, slotsOf, startsOf } from '../slots/helpers.js';
import { createTestApp, type ApiResponse, type TestApp } from '../support/test-app.js';
import { type ReceivedMail, type SmtpReceiver, startSmtpReceiver } from './helpers.js';

// 2027-03-01 is a Monday; every host below works 9:00-17:00 UTC on weekdays. The clock stands still
// ten minutes into an hour, so a test never straddles a budget window.
const NOW = Date.parse('2027-02-01T00:10:00Z');
const WINDOW_LEFT_S = 50 * 60;

let smtp: SmtpReceiver;
before(async () => {
  smtp = await startSmtpReceiver();
});
after(() => smtp.close());

const guestList = (count: number, tag: string) => Array.from({ length: count }, (_, i) => `${tag}-${i}@example.com`);
const attendee = (email: string, name = 'Bob Booker') => ({ name, email, timeZone: 'UTC' });

/** Recipients of the messages queued for a booking, sorted: what will be sent, exactly. */
async function outboxOf(api: TestApp, uid: string): Promise<string[]> {
  const result = await api.runtime.ctx.database.db.execute(sql`
    select m.kind || ' ' || m.recipient_email as line from mail_messages m join booking_events e on e.id = m.booking_event_id
    where e.booking_uid = ${uid} order by m.id`);
  return (result as unknown as { rows: { line: string }[] }).rows.map((row) => row.line).sort();
}

async function received(address: string, count: number): Promise<ReceivedMail[]> {
  await smtp.waitFor(0);
  const deadline = Date.now() + 10_000;
  while (smtp.to(address).length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const found = smtp.to(address);
  assert.equal(found.length, count, `${count} messages to ${address}, got ${found.map((m) => m.email.subject).join('; ')}`);
  return found;
}

async function hostWithType(api: TestApp, fields: Record<string, unknown> = {}) {
  const host = await createHost(api, 'UTC', { name: 'Ada Host' });
  const eventType = await createEventType(api, host, { title: 'Intro', lengthInMinutes: 30, ...fields });
  const hostEmail: string = (await api.request('GET', '/v2/me', { key: host.apiKey })).body.data.email;
  const starts = startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: '2027-03-01', end: '2027-03-05', timeZone: 'UTC' }));
  return { host, eventType, hostEmail, starts };
}

function assertMailLimited(response: ApiResponse): void {
  assert.equal(response.status, 429, response.text);
  assert.equal(response.body.error.code, 'ThrottlerException');
  assert.equal(response.body.error.details.reason, 'mail_limit_reached');
  assert.deepEqual(response.body.error.details.errors.map((error: { property: string }) => error.property), ['guests']);
  assert.equal(response.headers.get('retry-after'), String(WINDOW_LEFT_S));
}

describe('guests per booking, and who hears of an unconfirmed booking', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp({ SMTP_URL: smtp.url }, undefined, { clock: () => NOW });
  });
  after(() => api.close());

  test('a booking takes at most 10 guests, on create and in all through POST /v2/bookings/{uid}/guests', async () => {
    const { host, eventType, starts } = await hostWithType(api);
    assertNamesField(await book(api, { eventTypeId: eventType.id, start: starts[0], guests: guestList(11, 'eleven') }), 'guests');
    const full = await booked(api, { eventTypeId: eventType.id, start: starts[0], attendee: attendee('full@example.com'), guests: guestList(10, 'ten') });
    assert.equal(full.attendees.length, 11);

    const booking = await booked(api, { eventTypeId: eventType.id, start: starts[1], attendee: attendee('nine@example.com'), guests: guestList(9, 'nine') });
    const add = (emails: string[]) =>
      api.request('POST', `/v2/bookings/${booking.uid}/guests`, { key: host.apiKey, version: BOOKINGS_VERSION, body: { guests: emails.map((email) => ({ email })) } });
    const over = await add(['late-1@example.com', 'late-2@example.com']);
    assertNamesField(over, 'guests');
    assert.equal(over.body.error.message, 'Cannot add 2 guests. This booking already has 9 guests. Maximum total guests allowed is 10. You can add up to 1 more guests.');
    assert.equal((await add(['late-1@example.com'])).status, 200);
    assertNamesField(await add(['late-2@example.com']), 'guests');
  });

  test('a booking that waits for confirmation is mailed to its booker and hosts only, and so is its decline; guests hear of it once confirmed', async () => {
    const { host, eventType, hostEmail, starts } = await hostWithType(api, { confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: false } });
    const guests = ['req-guest-1@example.com', 'req-guest-2@example.com'];
    const requested = await booked(api, { eventTypeId: eventType.id, start: starts[0], attendee: attendee('req-booker@example.com'), guests });
    assert.equal(requested.status, 'pending');
    assert.deepEqual(await outboxOf(api, requested.uid), [`requested ${hostEmail.toLowerCase()}`, 'requested req-booker@example.com'].sort());
    await received('req-booker@example.com', 1);

    const decline = await api.request('POST', `/v2/bookings/${requested.uid}/decline`, { key: host.apiKey, version: BOOKINGS_VERSION, body: { reason: 'Busy' } });
    assert.equal(decline.status, 200, decline.text);
    assert.deepEqual((await outboxOf(api, requested.uid)).filter((line) => line.startsWith('declined')), ['declined req-booker@example.com']);
    await received('req-booker@example.com', 2);

    const withdrawn = await booked(api, { eventTypeId: eventType.id, start: starts[1], attendee: attendee('req-booker@example.com'), guests });
    const cancel = await api.request('POST', `/v2/bookings/${withdrawn.uid}/cancel`, { version: BOOKINGS_VERSION, body: {} });
    assert.equal(cancel.status, 200, cancel.text);
    assert.deepEqual((await outboxOf(api, withdrawn.uid)).filter((line) => line.startsWith('cancelled')), [`cancelled ${hostEmail.toLowerCase()}`, 'cancelled req-booker@example.com'].sort());

    const confirmedLater = await booked(api, { eventTypeId: eventType.id, start: starts[2], attendee: attendee('req-booker@example.com'), guests });
    const confirm = await api.request('POST', `/v2/bookings/${confirmedLater.uid}/confirm`, { key: host.apiKey, version: BOOKINGS_VERSION });
    assert.equal(confirm.status, 200, confirm.text);
    assert.deepEqual(
      (await outboxOf(api, confirmedLater.uid)).filter((line) => line.startsWith('confirmed')),
      [`confirmed ${hostEmail.toLowerCase()}`, 'confirmed req-booker@example.com', ...guests.map((guest) => `confirmed ${guest}`)].sort(),
    );
    const [invited] = await received(guests[0]!, 1);
    assert.match(invited!.email.subject!, /^Confirmed: /);
    assert.equal(invited!.invitation!.method, 'REQUEST');
  });

  test("subjects start with svc's words; the caller's text in them is bounded and has no control characters", async () => {
    const { eventType, starts } = await hostWithType(api, { customName: '{Scheduler}' });
    const name = `\u202eEvil\u0007\u001b[31m\tname\u200b ${'x'.repeat(200)}`;
    const booking = await booked(api, { eventTypeId: eventType.id, start: starts[0], attendee: attendee('subject@example.com', name) });
    assert.equal(booking.title, name, 'the title itself is the caller\'s, unchanged');
    const [message] = await received('subject@example.com', 1);
    const subject = message!.email.subject!;
    assert.match(subject, /^Confirmed: Evil\[31m name x+… at Mar 1, 2027, 9:00 AM$/);
    assert.doesNotMatch(subject, /[\p{Cc}\p{Cf}]/u);
    assert.ok(subject.length <= 'Confirmed: '.length + 80 + ' at Mar 1, 2027, 9:00 AM'.length, `${subject.length} characters`);
    assert.doesNotMatch(message!.email.to![0]!.name, /[\p{Cc}\p{Cf}]/u, 'nor in the To display name');
    for (const [kind, audiences] of Object.entries(en.kinds)) {
      for (const { subject: template } of Object.values(audiences)) assert.doesNotMatch(template, /^\s*\{/, `${kind}: a subject starts with svc's words`);
    }
  });
});

describe('the mail budget of anonymous callers, kept in the database', () => {
  let api: TestApp;
  /** A second server on the same database: another process, as far as the budget can tell. */
  let other: TestApp;
  let eventType: any;
  let host: Host;
  let starts: string[];
  before(async () => {
    api = await createTestApp({ SMTP_URL: smtp.url, SVC_MAIL_LIMIT_ANONYMOUS: '6', SVC_MAIL_LIMIT_EVENT_TYPE: '1000' }, undefined, { clock: () => NOW });
    const shared = api.runtime.ctx.database;
    other = await createTestApp(
      { SMTP_URL: smtp.url, SVC_MAIL_LIMIT_ANONYMOUS: '6', SVC_MAIL_LIMIT_EVENT_TYPE: '1000' },
      { database: { ...shared, close: async () => {} }, ...(api.databaseUrl ? { url: api.databaseUrl } : {}) },
      { clock: () => NOW },
    );
    ({ host, eventType, starts } = await hostWithType(api));
  });
  after(async () => {
    await other.close();
    await api.close();
  });

  test('guests are mailed while the address has budget; then a booking with guests is refused (429, nothing made) and one without still mails its booker', async () => {
    const first = await booked(api, { eventTypeId: eventType.id, start: starts[0], attendee: attendee('budget-booker@example.com'), guests: guestList(6, 'budget') });
    await received('budget-5@example.com', 1);

    const refused = await book(api, { eventTypeId: eventType.id, start: starts[1], attendee: attendee('budget-booker@example.com'), guests: ['one-more@example.com'] });
    assertMailLimited(refused);
    const elsewhere = await book(other, { eventTypeId: eventType.id, start: starts[1], attendee: attendee('budget-booker@example.com'), guests: ['one-more@example.com'] });
    assertMailLimited(elsewhere);
    const made = await api.runtime.ctx.database.db.execute(sql`select count(*)::int as n from bookings where event_type_id = ${eventType.id}`);
    assert.equal((made as unknown as { rows: { n: number }[] }).rows[0]!.n, 1, 'the refused bookings were not made');

    const alone = await booked(other, { eventTypeId: eventType.id, start: starts[1], attendee: attendee('alone@example.com') });
    assert.deepEqual(await outboxOf(api, alone.uid), ['scheduled alone@example.com', `scheduled ${(await hostEmail(api, host)).toLowerCase()}`].sort());
    await received('alone@example.com', 1);

    // The guests of the first booking cannot be mailed again from this address (a cancel is charged too) ...
    assertMailLimited(await api.request('POST', `/v2/bookings/${first.uid}/cancel`, { version: BOOKINGS_VERSION, body: {} }));
    // ... but the hosts, with credentials, are never held to it.
    const byHost = await api.request('POST', `/v2/bookings/${first.uid}/cancel`, { key: host.apiKey, version: BOOKINGS_VERSION, body: { cancellationReason: 'Closed' } });
    assert.equal(byHost.status, 200, byHost.text);
    await received('budget-5@example.com', 2);
    const withKey = await booked(api, { eventTypeId: eventType.id, start: starts[2], attendee: attendee('keyed@example.com'), guests: ['keyed-guest@example.com'] }, { key: host.apiKey });
    assert.equal(withKey.attendees.length, 2);
  });
});

describe('the mail budget of an event type', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp({ SMTP_URL: smtp.url, SVC_MAIL_LIMIT_ANONYMOUS: '1000', SVC_MAIL_LIMIT_EVENT_TYPE: '4' }, undefined, { clock: () => NOW });
  });
  after(() => api.close());

  test('spent, it refuses new guests of that event type only; a cancel is never refused for it', async () => {
    const busy = await hostWithType(api);
    const quiet = await hostWithType(api);
    const first = await booked(api, { eventTypeId: busy.eventType.id, start: busy.starts[0], attendee: attendee('et-booker@example.com'), guests: guestList(4, 'et') });
    assertMailLimited(await book(api, { eventTypeId: busy.eventType.id, start: busy.starts[1], attendee: attendee('et-booker@example.com'), guests: ['et-more@example.com'] }));
    await booked(api, { eventTypeId: quiet.eventType.id, start: quiet.starts[1], attendee: attendee('et-booker@example.com'), guests: ['et-more@example.com'] });

    const cancel = await api.request('POST', `/v2/bookings/${first.uid}/cancel`, { version: BOOKINGS_VERSION, body: {} });
    assert.equal(cancel.status, 200, cancel.text);
    assert.equal((await outboxOf(api, first.uid)).filter((line) => /^cancelled et-\d/.test(line)).length, 4, 'every guest hears of the cancellation');
    await received('et-3@example.com', 2);
  });
});

async function hostEmail(api: TestApp, host: Host): Promise<string> {
  return (await api.request('GET', '/v2/me', { key: host.apiKey })).body.data.email;
}
