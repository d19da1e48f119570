import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import PostalMime from 'postal-mime';
import { composeMime } from '../../src/modules/mail/mime-message.js';
import type { OutgoingMail } from '../../src/modules/mail/mail-transport.js';

const ICS = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nUID:b1@svc\r\nSUMMARY:Café – ' + 'x'.repeat(200) + '\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n';
const SENDER = { name: 'Svc Bookings', address: 'bookings@svc.test' };

function invitation(overrides: Partial<OutgoingMail> = {}): OutgoingMail {
  return {
    messageId: 'm-1@svc',
    to: { name: 'Zoë "Z" Ångström', address: 'zoe@bücher.example' },
    subject: `Confirmed: Café ☕ call between Zoë and Ada at Mar 1, 2027, 9:00 AM ${'and more '.repeat(8)}`,
    text: 'Your booking is confirmed.\nWhen: 9:00 – 9:30 (Europe/Berlin)\n',
    html: '<p>Your booking is <b>confirmed</b>: 9:00 – 9:30</p>',
    invitation: { method: 'REQUEST', ics: ICS },
    kind: 'attendee.scheduled',
    ...overrides,
  };
}

const headerLines = (raw: string) => raw.slice(0, raw.indexOf('\r\n\r\n')).split('\r\n');

describe('MIME composition of outgoing mail', () => {
  test('an invitation: encoded headers, text and HTML, the calendar alternative and one invite.ics, read back by a MIME parser', async () => {
    const raw = composeMime(SENDER, invitation(), new Date(Date.UTC(2027, 2, 1, 8, 5, 9)));
    assert.ok(!/[^\r]\n/.test(raw), 'every line ends in CRLF');
    assert.ok(raw.split('\r\n').every((line) => line.length <= 78), 'no line longer than 78');
    assert.ok(/^[\x00-\x7f]*$/.test(raw), '7-bit: everything else is encoded');
    const email = await PostalMime.parse(raw);
    assert.equal(email.subject, invitation().subject.trim());
    assert.deepEqual(email.from, { name: 'Svc Bookings', address: 'bookings@svc.test' });
    assert.deepEqual(email.to, [{ name: 'Zoë "Z" Ångström', address: 'zoe@xn--bcher-kva.example' }]);
    assert.equal(email.messageId, '<m-1@svc>');
    assert.equal(email.date, '2027-03-01T08:05:09.000Z');
    assert.equal(email.text, invitation().text);
    assert.equal(email.html, invitation().html);
    const calendar = email.attachments.filter((part) => part.mimeType === 'text/calendar');
    const attached = email.attachments.filter((part) => part.filename === 'invite.ics');
    assert.equal(calendar.length, 1);
    assert.equal((calendar[0] as { method?: string }).method, 'REQUEST');
    assert.equal(attached.length, 1, 'the invitation is attached once');
    assert.equal(attached[0]!.mimeType, 'application/ics');
    assert.equal(attached[0]!.disposition, 'attachment');
    const text = (content: string | ArrayBuffer | Uint8Array) => (typeof content === 'string' ? content : Buffer.from(content as Uint8Array).toString('utf8'));
    // The parser hands the parts back with bare LF line ends; the raw message holds the file byte for
    // byte (CRLF, as iCalendar requires), in both parts.
    assert.equal(text(calendar[0]!.content), ICS.replace(/\r\n/g, '\n'));
    assert.equal(text(attached[0]!.content), ICS.replace(/\r\n/g, '\n'));
    const encoded = Buffer.from(ICS, 'utf8').toString('base64').match(/.{1,76}/g)!.join('\r\n');
    assert.equal(raw.split(encoded).length - 1, 2);
  });

  test('a line break in a subject or name cannot add a header', async () => {
    const raw = composeMime(SENDER, invitation({ subject: 'Hello\r\nBcc: thief@example.com', to: { name: 'Eve\nX-Evil: 1', address: 'eve@example.com' } }));
    const headers = headerLines(raw);
    assert.ok(!headers.some((line) => /^(Bcc|X-Evil):/i.test(line)), headers.join('\n'));
    const email = await PostalMime.parse(raw);
    assert.equal(email.subject, 'Hello Bcc: thief@example.com');
    assert.deepEqual(email.to, [{ name: 'Eve X-Evil: 1', address: 'eve@example.com' }]);
    assert.equal(email.headers.filter((h) => h.key === 'bcc').length, 0);
  });

  test('a message without HTML or invitation is one text/plain part; names with specials are quoted', async () => {
    const raw = composeMime({ name: 'Acme, Inc.', address: 'no-reply@acme.test' }, invitation({ html: null, invitation: null, to: { name: null, address: 'ada@example.com' }, subject: 'Plain' }));
    const headers = headerLines(raw);
    assert.ok(headers.includes('From: "Acme, Inc." <no-reply@acme.test>'), headers.join('\n'));
    assert.ok(headers.includes('To: ada@example.com'));
    assert.ok(headers.includes('Subject: Plain'));
    assert.ok(headers.includes('Content-Type: text/plain; charset=utf-8'));
    const email = await PostalMime.parse(raw);
    assert.deepEqual(email.from, { name: 'Acme, Inc.', address: 'no-reply@acme.test' });
    assert.equal(email.text, invitation().text);
    assert.equal(email.html, undefined);
    assert.equal(email.attachments.length, 0);
  });
});
