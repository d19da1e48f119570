// The mail outbox: messages commit with their change or not at all, are retried with backoff when the
// server says "later", failed at once when it says "never", and every attempt is logged.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { recordBookingEvent } from '../../src/modules/bookings/booking-events.js';
import { bookingWebhooks } from '../../src/modules/webhooks/webhook-emission.js';
import { findBookingByUid, loadRecords } from '../../src/modules/bookings/bookings.repository.js';
import { createMailTransport } from '../../src/modules/mail/mail-transport.js';
import { booked } from '../bookings/helpers.js';
import { createEventType, createHost, slotsOf, startsOf } from '../slots/helpers.js';
import { eventually } from '../support/eventually.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { type SmtpReceiver, startSmtpReceiver } from './helpers.js';

let api: TestApp;
let smtp: SmtpReceiver;

before(async () => {
  // later@ is told "try again" (451) twice; never@ is refused for good (550).
  smtp = await startSmtpReceiver({ refuse: (recipient, attempt) => (recipient === 'later@example.com' && attempt <= 2 ? 451 : recipient === 'never@example.com' ? 550 : null) });
  api = await createTestApp({ SMTP_URL: smtp.url, SVC_JOB_RETRY_BASE_MS: '50' });
});
after(async () => {
  await api.close();
  await smtp.close();
});

const rows = async (query: ReturnType<typeof sql>) => ((await api.runtime.ctx.database.db.execute(query)) as unknown as { rows: any[] }).rows;
const messagesTo = (email: string) => rows(sql`select * from mail_messages where recipient_email = ${email} order by id`);
const attemptsOf = (messageId: number) => rows(sql`select * from mail_attempts where message_id = ${messageId} order by id`);

async function bookingFor(email: string) {
  const host = await createHost(api, 'UTC');
  const eventType = await createEventType(api, host);
  const [start] = startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: '2027-04-05', end: '2027-04-06', timeZone: 'UTC' }));
  return booked(api, { eventTypeId: eventType.id, start, attendee: { name: 'Pat', email, timeZone: 'UTC' } });
}

describe('mail outbox', () => {
  test('a change that rolls back sends nothing and leaves no message', async () => {
    const booking = await bookingFor('rollback@example.com');
    await eventually(async () => smtp.to('rollback@example.com').length === 1, 10_000);
    const db = api.runtime.ctx.database.db;
    const before = (await rows(sql`select count(*)::int as n from mail_messages`))[0].n;
    await assert.rejects(
      db.transaction(async (tx) => {
        const [record] = await loadRecords(tx, [(await findBookingByUid(tx, booking.uid))!]);
        await recordBookingEvent({ tx, listener: bookingWebhooks }, 'BOOKING_CANCELLED', record!, { cancellationReason: 'never happened' });
        // The messages exist inside the transaction...
        assert.equal(((await tx.execute(sql`select count(*)::int as n from mail_messages`)) as unknown as { rows: any[] }).rows[0].n, before + 2);
        throw new Error('roll back');
      }),
      /roll back/,
    );
    await api.runtime.jobs!.drain();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await rows(sql`select count(*)::int as n from mail_messages`))[0].n, before, '...and not after the rollback');
    assert.equal(smtp.to('rollback@example.com').length, 1, 'only the booking mail, no cancellation');
    assert.equal((await rows(sql`select ics_sequence from bookings where uid = ${booking.uid}`))[0].ics_sequence, 0, 'the sequence bump rolled back too');
  });

  test('a temporary refusal (451) is retried with backoff; every attempt is logged', async () => {
    await bookingFor('later@example.com');
    await eventually(async () => smtp.to('later@example.com').length === 1, 10_000);
    const [message] = await messagesTo('later@example.com');
    await eventually(async () => (await messagesTo('later@example.com'))[0].status === 'sent', 5000);
    const attempts = await attemptsOf(Number(message.id));
    assert.equal(attempts.length, 3);
    assert.match(attempts[0].error, /451/);
    assert.match(attempts[1].error, /451/);
    assert.equal(attempts[2].error, null);
    // Backoff: the second retry waited about twice as long as the first (base 50 ms).
    const gap = (i: number) => new Date(attempts[i + 1].attempted_at).getTime() - new Date(attempts[i].attempted_at).getTime();
    assert.ok(gap(0) >= 45 && gap(1) >= 95, `gaps ${gap(0)} ${gap(1)}`);
    const [sent] = await messagesTo('later@example.com');
    assert.equal(sent.attempts, 3);
    assert.ok(sent.sent_at);
    // One message delivered once, under one Message-ID.
    assert.equal(smtp.to('later@example.com')[0]!.email.messageId, `<${message.uid}@svc>`);
  });

  test('a permanent refusal (550) fails the message at once, without retrying', async () => {
    await bookingFor('never@example.com');
    await eventually(async () => (await messagesTo('never@example.com'))[0]?.status === 'failed', 5000);
    const [message] = await messagesTo('never@example.com');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const attempts = await attemptsOf(Number(message.id));
    assert.equal(attempts.length, 1);
    assert.match(attempts[0].error, /550/);
    assert.equal(smtp.to('never@example.com').length, 0);
  });

  test('without SMTP_URL each message is one info log line, without its body', async () => {
    const lines: { obj: any; msg: string }[] = [];
    const transport = createMailTransport({ smtpUrl: undefined, from: 'svc <a@b.c>' }, { info: (obj, msg) => lines.push({ obj, msg }) });
    const result = await transport.send({
      messageId: 'm1@svc',
      to: { name: 'Pat', address: 'pat@example.com' },
      subject: 'Confirmed: Call',
      text: 'PRIVATE BODY TEXT',
      html: '<p>PRIVATE BODY HTML</p>',
      invitation: { method: 'REQUEST', ics: 'BEGIN:VCALENDAR PRIVATE' },
      kind: 'scheduled',
    });
    assert.equal(result.error, null);
    assert.equal(lines.length, 1);
    assert.deepEqual(lines[0]!.obj, { messageId: 'm1@svc', to: 'pat@example.com', subject: 'Confirmed: Call', kind: 'scheduled', invitation: 'REQUEST' });
    assert.ok(!JSON.stringify(lines).includes('PRIVATE'));
  });
});
