// Booking mail end to end: real bookings over HTTP, the job runner sending through SMTP to a real
// server on loopback, every message parsed back (postal-mime) with its invitation (ical.js).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { BOOKINGS_VERSION, booked } from '../bookings/helpers.js';
import { createEventType, createHost, type Host, slotsOf, startsOf } from '../slots/helpers.js';
import { eventually } from '../support/eventually.js';
import { createTeamWithEventType } from '../support/team-scheduling.js';
import { createOrganization } from '../support/tenancy.js';
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
    assert.deepEqual([toBob.envelopeFrom, toBob.to], ['bookings@svc.test', [attendee.email.toLowerCase()]]);
    assert.match(toBob.email.messageId!, /^<[\w-]+@svc>$/);
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

  const emailOf = async (host: Host) => (await api.request('GET', '/v2/me', { key: host.apiKey })).body.data.email as string;
  const decide = (uid: string, host: Host, verb: 'confirm' | 'decline', body?: unknown) =>
    api.request('POST', `/v2/bookings/${uid}/${verb}`, { key: host.apiKey, version: BOOKINGS_VERSION, ...(body ? { body } : {}) });

  test('requested, then confirmed or declined; the attendee reads dates in their own locale', async () => {
    const { host, eventType, hostEmail, starts } = await hostWithType({ confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: true } });
    const attendee = { name: 'Chloé', email: 'chloe@example.com', timeZone: 'Europe/Paris', language: 'fr' };
    let pending: any;
    const requested = await next(2, async () => {
      pending = await booked(api, { eventTypeId: eventType.id, start: starts[0], attendee });
    });
    assert.match(only(requested, hostEmail).email.subject!, /^Action needed: /);
    assert.match(only(requested, hostEmail).email.text!, /Confirm or decline it/);
    const submitted = only(requested, attendee.email);
    assert.match(submitted.email.subject!, /^Submitted: .* 1 mars 2027/);
    for (const message of requested) assert.equal(message.invitation, null, 'nothing goes in a calendar before the host confirms');

    const confirmed = await next(2, async () => assert.equal((await decide(pending.uid, host, 'confirm')).status, 200));
    for (const message of [only(confirmed, hostEmail), only(confirmed, attendee.email)]) {
      assert.match(message.email.subject!, /^Confirmed: /);
      assert.equal(message.invitation!.method, 'REQUEST');
      assert.equal(message.invitation!.uid, pending.icsUid);
      assert.equal(message.invitation!.sequence, 1);
    }

    const other = await booked(api, { eventTypeId: eventType.id, start: starts[1], attendee });
    await smtp.waitFor(smtp.messages.length + 2);
    const declined = await next(1, async () => assert.equal((await decide(other.uid, host, 'decline', { reason: 'Fully <i>booked</i>' })).status, 200));
    const toChloe = only(declined, attendee.email);
    assert.match(toChloe.email.subject!, /^Declined: /);
    assert.match(toChloe.email.text!, /Reason: Fully <i>booked<\/i>/);
    assert.ok(toChloe.email.html!.includes('Fully &lt;i&gt;booked&lt;/i&gt;'));
    assert.equal(toChloe.invitation, null);
  });

  test('a collective team booking mails every host; each invitation lists the other host and the attendee', async () => {
    const ann = await createHost(api, 'Europe/London', { name: 'Ann' });
    const ben = await createHost(api, 'Asia/Kolkata', { name: 'Ben' });
    const { owner, eventType } = await createTeamWithEventType(api, [ann, ben], { title: 'Panel', lengthInMinutes: 30, schedulingType: 'collective' });
    const [start] = startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: '2027-03-02', end: '2027-03-03', timeZone: 'UTC' }));
    const attendee = { name: 'Dee', email: 'dee@example.com', timeZone: 'UTC' };
    const [annEmail, benEmail] = [await emailOf(ann), await emailOf(ben)];
    // Their invitations to the team come first: a slow one must not land among the booking's messages.
    const invited = (email: string) => smtp.to(email).some((message) => message.email.subject?.startsWith('Invitation to join'));
    await eventually(async () => invited(annEmail) && invited(benEmail), 10_000);
    const messages = await next(3, () => booked(api, { eventTypeId: eventType.id, start, attendee }));
    const toAnn = only(messages, annEmail);
    const toBen = only(messages, benEmail);
    only(messages, attendee.email);
    assert.equal(smtp.to(await emailOf(owner)).length, 0, 'the team owner is not a host of it');
    assert.match(toBen.email.text!, /\(Asia\/Kolkata\)/);
    const organizer = toAnn.invitation!.organizer;
    assert.ok([annEmail.toLowerCase(), benEmail.toLowerCase()].includes(organizer));
    for (const message of [toAnn, toBen]) {
      assert.equal(message.invitation!.organizer, organizer);
      assert.deepEqual(message.invitation!.attendees.map((a) => a.email).sort(), [annEmail, benEmail, attendee.email].map((e) => e.toLowerCase()).filter((e) => e !== organizer).sort());
    }
    // The booking output lists the other host among its attendees; mail names everyone once, the booker in the subject.
    for (const message of [toAnn, toBen, only(messages, attendee.email)]) {
      const who = message.email.text!.slice(message.email.text!.indexOf('Who:'), message.email.text!.indexOf('Where:'));
      for (const email of [annEmail, benEmail, attendee.email]) assert.equal(who.split(`<${email}>`).length - 1, 1, `${email} once in ${who}`);
      assert.match(message.email.subject!, /Dee/);
    }
  });

  test('seats: a new seat is mailed to its holder and the host only; a cancelled seat gets a CANCEL', async () => {
    const { eventType, hostEmail, starts } = await hostWithType({ seats: { seatsPerTimeSlot: 3, showAttendeeInfo: false, showAvailabilityCount: true } });
    const first = await next(2, () => booked(api, { eventTypeId: eventType.id, start: starts[0], attendee: { name: 'Eve', email: 'eve@example.com', timeZone: 'UTC' } }));
    assert.match(only(first, 'eve@example.com').email.subject!, /^Confirmed: /);
    let seat: any;
    const second = await next(2, async () => {
      seat = await booked(api, { eventTypeId: eventType.id, start: starts[0], attendee: { name: 'Finn', email: 'finn@example.com', timeZone: 'UTC' } });
    });
    const toFinn = only(second, 'finn@example.com');
    assert.match(only(second, hostEmail).email.subject!, /^New attendee: /);
    assert.deepEqual(toFinn.invitation!.attendees.map((a) => a.email), ['finn@example.com'], 'seats do not see each other');
    assert.deepEqual(only(second, hostEmail).invitation!.attendees.map((a) => a.email), ['eve@example.com', 'finn@example.com']);
    assert.equal(toFinn.invitation!.sequence, 1);

    const cancelled = await next(2, async () => {
      const response = await api.request('POST', `/v2/bookings/${seat.uid}/cancel`, { version: BOOKINGS_VERSION, body: { seatUid: seat.seatUid } });
      assert.equal(response.status, 200, response.text);
    });
    const cancel = only(cancelled, 'finn@example.com');
    assert.equal(cancel.invitation!.method, 'CANCEL');
    assert.deepEqual(cancel.invitation!.attendees.map((a) => a.email), ['finn@example.com']);
    const update = only(cancelled, hostEmail);
    assert.match(update.email.subject!, /^Seat cancelled: /);
    assert.equal(update.invitation!.method, 'REQUEST');
    assert.deepEqual(update.invitation!.attendees.map((a) => a.email), ['eve@example.com']);
    assert.equal(update.invitation!.sequence, 2);
    assert.equal(smtp.to('eve@example.com').length, 1, 'the other seat hears nothing');
  });

  test('guests added and location changed: everyone gets the revised invitation; a new guest is asked to answer', async () => {
    const { host, eventType, hostEmail, starts } = await hostWithType();
    const booking = await booked(api, { eventTypeId: eventType.id, start: starts[0], attendee: { name: 'Gil', email: 'gil@example.com', timeZone: 'UTC' } });
    await smtp.waitFor(smtp.messages.length + 2);
    const added = await next(3, async () => {
      const response = await api.request('POST', `/v2/bookings/${booking.uid}/guests`, { key: host.apiKey, version: BOOKINGS_VERSION, body: { guests: [{ email: 'hal@example.com', name: 'Hal' }] } });
      assert.equal(response.status, 200, response.text);
    });
    const toHal = only(added, 'hal@example.com');
    assert.match(only(added, 'gil@example.com').email.subject!, /^Updated: /);
    assert.match(only(added, hostEmail).email.subject!, /^Guests added: /);
    assert.deepEqual(toHal.invitation!.attendees.map((a) => [a.email, a.partstat, a.rsvp]), [['gil@example.com', 'ACCEPTED', 'FALSE'], ['hal@example.com', 'NEEDS-ACTION', 'TRUE']]);
    assert.equal(toHal.invitation!.sequence, 1);
    assert.match(toHal.email.text!, /Hal <hal@example.com> \(Guest\)/);

    const moved = await next(3, async () => {
      const response = await api.request('PATCH', `/v2/bookings/${booking.uid}/location`, { key: host.apiKey, version: BOOKINGS_VERSION, body: { location: { type: 'address', address: 'Via Roma 1, Milano' } } });
      assert.equal(response.status, 200, response.text);
    });
    for (const message of moved) {
      assert.match(message.email.subject!, /^Location changed: /);
      assert.equal(message.invitation!.location, 'Via Roma 1, Milano');
      assert.equal(message.invitation!.sequence, 2);
      assert.equal(message.invitation!.uid, booking.icsUid);
    }
  });

  test('reassigned: the new host gets the invitation, the previous one a CANCEL, the attendee the new organizer', async () => {
    const first = await createHost(api, 'Europe/London', { name: 'Ivy' });
    const second = await createHost(api, 'Europe/London', { name: 'Jon' });
    const { eventType } = await createTeamWithEventType(api, [first, second], { title: 'Support', lengthInMinutes: 60, schedulingType: 'roundRobin' });
    const booking = await booked(api, { eventTypeId: eventType.id, start: '2027-03-01T10:00:00Z', attendee: { name: 'Kim', email: 'kim@example.com', timeZone: 'UTC' } });
    await smtp.waitFor(smtp.messages.length + 2);
    const holder = booking.hosts[0].id === first.userId ? first : second;
    const successor = holder === first ? second : first;
    const messages = await next(3, async () => {
      const response = await api.request('POST', `/v2/bookings/${booking.uid}/reassign/${successor.userId}`, { key: holder.apiKey, version: BOOKINGS_VERSION, body: { reason: 'Holiday' } });
      assert.equal(response.status, 200, response.text);
    });
    const [holderEmail, successorEmail] = [await emailOf(holder), await emailOf(successor)];
    const toSuccessor = only(messages, successorEmail);
    assert.match(toSuccessor.email.subject!, /^New event assigned: /);
    assert.equal(toSuccessor.invitation!.method, 'REQUEST');
    const toHolder = only(messages, holderEmail);
    assert.match(toHolder.email.subject!, /^Reassigned: /);
    assert.equal(toHolder.invitation!.method, 'CANCEL');
    const toKim = only(messages, 'kim@example.com');
    assert.equal(toKim.invitation!.organizer, successorEmail.toLowerCase());
    assert.match(toKim.email.text!, /Reason: Holiday/);
    for (const message of messages) {
      assert.equal(message.invitation!.uid, booking.icsUid);
      assert.equal(message.invitation!.sequence, 1);
    }
  });

  test("event-type email settings and a platform client's areEmailsEnabled decide who is mailed", async () => {
    const db = api.runtime.ctx.database.db;
    const quiet = await hostWithType();
    await db.execute(sql`update event_types set email_settings = '{"disableEmailsToAttendees": true, "disableEmailsToHosts": false}'::jsonb where id = ${quiet.eventType.id}`);
    const toHostOnly = await next(1, () => booked(api, { eventTypeId: quiet.eventType.id, start: quiet.starts[0], attendee: { name: 'Lou', email: 'lou@example.com', timeZone: 'UTC' } }));
    only(toHostOnly, quiet.hostEmail);

    // A managed user of a platform client that turned emails off: nobody is mailed.
    const managed = await hostWithType();
    const { organization } = await createOrganization(api, { isPlatform: true });
    await db.execute(sql`insert into platform_oauth_clients (id, organization_id, name, secret_hash, secret_sealed, permissions, are_emails_enabled)
      values ('mail-test-client', ${organization.id}, 'Quiet', 'x', 'x', '{}', false)`);
    await db.execute(sql`insert into platform_managed_users (user_id, client_id) values (${managed.host.userId}, 'mail-test-client')`);
    await next(0, () => booked(api, { eventTypeId: managed.eventType.id, start: managed.starts[0], attendee: { name: 'Max', email: 'max@example.com', timeZone: 'UTC' } }));
    await db.execute(sql`update platform_oauth_clients set are_emails_enabled = true where id = 'mail-test-client'`);
    await next(2, () => booked(api, { eventTypeId: managed.eventType.id, start: managed.starts[1], attendee: { name: 'Max', email: 'max@example.com', timeZone: 'UTC' } }));
  });
});
