// Booking mail end to end: real bookings over HTTP, the job runner sending through SMTP to a real
// server on loopback, every message parsed back (postal-mime) with its invitation (ical.js).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { BOOKINGS_VERSION, booked } from '../bookings/helpers.js';
import { createEventType, createHost, slotsOf, startsOf } from '../slots/helpers.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { type ReceivedMail, type SmtpReceiver, startSmtpReceiver } from './helpers.js';

let api: TestApp;
let smtp: SmtpReceiver;

before(async () => {
  smtp = await startSmtpReceiver();
  api = await createTestApp({ SMTP_URL: smtp.url, SMTP_FROM: 'Svc Bookings <bookings@svc.test>', APP_URL: 'https://book.example' });
});
after(async () => {
  await api.close();
  await smtp.close();
});

/** The next `count` messages after those already received. */
async function next(count: number, action: () => Promise<unknown>): Promise<ReceivedMail[]> {
  const before = smtp.messages.length;
  await action();
  await smtp.waitFor(before + count);
  // Nothing more arrives for this change.
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(smtp.messages.length, before + count, smtp.messages.slice(before).map((m) => `${m.to} ${m.email.subject}`).join('\n'));
  return smtp.messages.slice(before);
}

const only = (messages: ReceivedMail[], address: string) => {
  const found = messages.filter((message) => message.to.includes(address.toLowerCase()));
  assert.equal(found.length, 1, `one message to ${address}`);
  return found[0]!;
};

async function hostWithType(fields: Record<string, unknown> = {}) {
  const host = await createHost(api, 'America/New_York', { name: 'Ada Host', locale: 'en' });
  const eventType = await createEventType(api, host, { title: 'Intro <b>call</b>', ...fields });
  const hostEmail: string = (await api.request('GET', '/v2/me', { key: host.apiKey })).body.data.email;
  const starts = startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: '2027-03-01', end: '2027-03-05', timeZone: 'UTC' }));
  return { host, eventType, hostEmail, starts };
}

describe('booking mail', () => {
  test('scheduled, rescheduled, cancelled: organizer and attendee, each in their zone, one invitation whose UID stays and SEQUENCE grows', async () => {
    const { eventType, hostEmail, starts } = await hostWithType();
    const attendee = { name: 'Bob <script>alert(1)</script>', email: 'bob.mail@example.com', timeZone: 'Asia/Tokyo' };
    let booking: any;
    const scheduled = await next(2, async () => {
      booking = await booked(api, { eventTypeId: eventType.id, start: starts[0], attendee });
    });
    const toHost = only(scheduled, hostEmail);
    const toBob = only(scheduled, attendee.email);
    assert.match(toHost.email.subject!, /^New event: Intro <b>call<\/b> between Ada Host and Bob <script>alert\(1\)<\/script> at Mar 1, 2027, 9:00 AM$/);
    assert.match(toBob.email.subject!, /^Confirmed: Intro <b>call<\/b> between .* at Mar 1, 2027, 11:00 PM$/);
    assert.equal(toBob.email.from?.address, 'bookings@svc.test');
    // Times in the recipient's zone: 14:00Z is 09:00 in New York and 23:00 in Tokyo (March 1, 2027).
    assert.equal(starts[0], '2027-03-01T14:00:00.000Z');
    assert.match(toHost.email.text!, /9:00.*\(America\/New_York\)/);
    assert.match(toBob.email.text!, /11:00.*PM.*\(Asia\/Tokyo\)/);
    // No user text is ever HTML: the name and title arrive escaped.
    assert.ok(!toBob.email.html!.includes('<script>'));
    assert.ok(toBob.email.html!.includes('Bob &lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(toBob.email.html!.includes('Intro &lt;b&gt;call&lt;/b&gt;'));
    // Links to reschedule and cancel.
    assert.ok(toBob.email.text!.includes(`https://book.example/reschedule/${booking.uid}`));
    assert.ok(toBob.email.text!.includes(`https://book.example/booking/${booking.uid}?cancel=true`));

    for (const message of [toHost, toBob]) {
      assert.equal(message.calendarPart?.method, 'REQUEST');
      assert.equal(message.icsAttachment, message.calendarPart?.ics, 'the same invitation attached as invite.ics');
      const invitation = message.invitation!;
      assert.equal(invitation.method, 'REQUEST');
      assert.equal(invitation.uid, booking.icsUid);
      assert.equal(invitation.sequence, 0);
      assert.equal(invitation.status, 'CONFIRMED');
      assert.equal(invitation.start.toISOString(), starts[0]);
      assert.ok(invitation.utcOnly);
      assert.equal(invitation.organizer, hostEmail.toLowerCase());
      assert.deepEqual(invitation.attendees.map((a) => [a.email, a.partstat]), [[attendee.email, 'ACCEPTED']]);
    }

    const rescheduled = await next(2, async () => {
      const response = await api.request('POST', `/v2/bookings/${booking.uid}/reschedule`, { version: BOOKINGS_VERSION, body: { start: starts[1], reschedulingReason: 'Clash' } });
      assert.equal(response.status, 201, response.text);
      booking = response.body.data;
    });
    for (const message of [only(rescheduled, hostEmail), only(rescheduled, attendee.email)]) {
      assert.match(message.email.subject!, /^Rescheduled: /);
      assert.match(message.email.text!, /Previously: /);
      assert.match(message.email.text!, /Reason: Clash/);
      assert.equal(message.invitation!.method, 'REQUEST');
      assert.equal(message.invitation!.uid, booking.icsUid);
      assert.equal(message.invitation!.sequence, 1);
      assert.equal(message.invitation!.start.toISOString(), starts[1]);
    }

    const cancelled = await next(2, async () => {
      const response = await api.request('POST', `/v2/bookings/${booking.uid}/cancel`, { version: BOOKINGS_VERSION, body: { cancellationReason: 'Sick' } });
      assert.equal(response.status, 200, response.text);
    });
    for (const message of [only(cancelled, hostEmail), only(cancelled, attendee.email)]) {
      assert.match(message.email.subject!, /^Cancelled: /);
      assert.equal(message.calendarPart?.method, 'CANCEL');
      assert.equal(message.invitation!.method, 'CANCEL');
      assert.equal(message.invitation!.status, 'CANCELLED');
      assert.equal(message.invitation!.uid, booking.icsUid);
      assert.equal(message.invitation!.sequence, 2);
      assert.ok(!message.email.text!.includes('/reschedule/'), 'no links to change a cancelled booking');
    }
  });
});
