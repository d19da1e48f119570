// A real SMTP server on loopback that keeps every message it accepts, parsed back with postal-mime,
// with its invitation parsed back with ical.js.
import type { AddressInfo } from 'node:net';
import ICAL from 'ical.js';
import PostalMime, { type Email } from 'postal-mime';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import { eventually } from '../support/eventually.js';

export interface ParsedInvitation {
  method: string;
  uid: string;
  sequence: number;
  status: string;
  start: Date;
  end: Date;
  summary: string;
  description: string;
  location: string | null;
  organizer: string;
  attendees: { email: string; partstat: string; rsvp: string | null; cn: string | null }[];
  /** Every DTSTART/DTEND is UTC (no TZID, no VTIMEZONE needed). */
  utcOnly: boolean;
}

export interface ReceivedMail {
  /** RCPT TO of the SMTP envelope. */
  to: string[];
  /** MAIL FROM of the SMTP envelope. */
  envelopeFrom: string | null;
  raw: string;
  email: Email;
  /** The `text/calendar; method=...` part. */
  calendarPart: { method: string | null; ics: string } | null;
  /** The `.ics` attachment. */
  icsAttachment: string | null;
  invitation: ParsedInvitation | null;
}

const mailto = (value: string) => value.replace(/^mailto:/i, '').toLowerCase();

export function parseInvitation(ics: string): ParsedInvitation {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  const event = calendar.getFirstSubcomponent('vevent');
  if (!event) throw new Error('no VEVENT');
  const time = (name: string) => event.getFirstProperty(name)!;
  const start = time('dtstart').getFirstValue() as ICAL.Time;
  const end = time('dtend').getFirstValue() as ICAL.Time;
  return {
    method: String(calendar.getFirstPropertyValue('method')),
    uid: String(event.getFirstPropertyValue('uid')),
    sequence: Number(event.getFirstPropertyValue('sequence') ?? 0),
    status: String(event.getFirstPropertyValue('status')),
    start: start.toJSDate(),
    end: end.toJSDate(),
    summary: String(event.getFirstPropertyValue('summary')),
    description: String(event.getFirstPropertyValue('description') ?? ''),
    location: (event.getFirstPropertyValue('location') as string | null) ?? null,
    organizer: mailto(String(event.getFirstPropertyValue('organizer'))),
    attendees: event.getAllProperties('attendee').map((property) => ({
      email: mailto(String(property.getFirstValue())),
      partstat: String(property.getParameter('partstat')),
      rsvp: (property.getParameter('rsvp') as string | undefined) ?? null,
      cn: (property.getParameter('cn') as string | undefined) ?? null,
    })),
    utcOnly: start.zone?.tzid === 'UTC' && end.zone?.tzid === 'UTC' && !ics.includes('TZID') && calendar.getFirstSubcomponent('vtimezone') === null,
  };
}

export interface SmtpReceiver {
  url: string;
  messages: ReceivedMail[];
  /** Messages to this address (case-insensitive). */
  to(address: string): ReceivedMail[];
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/**
 * `refuse(recipient, attempt)` may answer a RCPT TO with an SMTP error code (451: try later, 550:
 * never); `attempt` counts the RCPT TOs seen for that address so far, from 1.
 */
export async function startSmtpReceiver(options: { refuse?: (recipient: string, attempt: number) => number | null; port?: number } = {}): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  const seen = new Map<string, number>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address: SMTPServerAddress, _session: SMTPServerSession, callback: (error?: Error | null) => void) {
      const recipient = address.address.toLowerCase();
      const attempt = (seen.get(recipient) ?? 0) + 1;
      seen.set(recipient, attempt);
      const code = options.refuse?.(recipient, attempt) ?? null;
      if (code === null) return callback();
      const error = Object.assign(new Error(code >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: code });
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        PostalMime.parse(raw).then(
          (email) => {
            const calendar = email.attachments.find((part) => part.mimeType === 'text/calendar');
            const attached = email.attachments.find((part) => part.filename?.endsWith('.ics'));
            const text = (part: typeof calendar) => (part ? (typeof part.content === 'string' ? part.content : Buffer.from(part.content as ArrayBuffer).toString('utf8')) : null);
            const ics = text(calendar);
            messages.push({
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
              envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
              raw,
              email,
              calendarPart: ics === null ? null : { method: (calendar as { method?: string }).method ?? null, ics },
              icsAttachment: text(attached),
              invitation: ics === null ? null : parseInvitation(ics),
            });
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    to: (address) => messages.filter((message) => message.to.includes(address.toLowerCase())),
    async waitFor(count, timeoutMs = 10_000) {
      await eventually(async () => messages.length >= count, timeoutMs).catch(() => {
        throw new Error(`expected ${count} messages, got ${messages.length}: ${messages.map((m) => `${m.to} ${m.email.subject}`).join('; ')}`);
      });
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
