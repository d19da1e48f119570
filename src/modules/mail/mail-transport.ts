import nodemailer from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser';
import type { MailConfig } from '../../app/config.js';
import { composeMime, type MailAddress } from './mime-message.js';

/** One message, rendered: what a transport sends. */
export interface OutgoingMail {
  /** Message-ID (without angle brackets): the same on every attempt, so a receiver can drop a repeat. */
  messageId: string;
  to: { name: string | null; address: string };
  subject: string;
  text: string;
  /** null: a plain-text message. */
  html: string | null;
  /** An iTIP invitation (RFC 5546) carried over iMIP (RFC 6047). */
  invitation: { method: 'REQUEST' | 'CANCEL'; ics: string } | null;
  /** Logged with the message: what it is about (never its body). */
  kind: string;
  /** Shown instead of MAIL_FROM's name (a workflow step's sender); the address stays MAIL_FROM's. */
  fromName?: string | null;
}

export interface SendResult {
  /** null: accepted. */
  error: string | null;
  /** An SMTP 5xx refusal: sending again will not help. */
  permanent: boolean;
  response: string | null;
  durationMs: number;
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<SendResult>;
  close(): void;
}

export interface InfoLog {
  info(obj: object, msg: string): void;
}

/** MAIL_FROM as an address (`svc <no-reply@example.com>`; a bare address has no name). */
function senderOf(from: string): MailAddress {
  const [first] = addressparser(from, { flatten: true });
  return first?.address ? { name: first.name || null, address: first.address } : { name: null, address: from };
}

/**
 * SMTP through nodemailer (a pool of connections kept open between messages) when `smtpUrl` is set;
 * otherwise every message is one info line in the log (recipient, subject, kind; never the body), so
 * a lone `npm start` works and shows what it would have sent.
 */
export function createMailTransport(config: MailConfig, log: InfoLog, maxConnections = 5): MailTransport {
  if (!config.smtpUrl) {
    return {
      async send(mail) {
        log.info({ messageId: mail.messageId, to: mail.to.address, subject: mail.subject, kind: mail.kind, invitation: mail.invitation?.method ?? null }, 'mail not sent (SMTP_URL is not set)');
        return { error: null, permanent: false, response: 'logged: SMTP_URL is not set', durationMs: 0 };
      },
      close() {},
    };
  }
  const transporter = nodemailer.createTransport({ url: config.smtpUrl, pool: true, maxConnections, maxMessages: Infinity });
  const sender = senderOf(config.from);
  return {
    async send(mail) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      try {
        // One string, so the socket gets the message in a few writes (streamed as nodemailer composes
        // it, a message went out in a write per encoded line).
        const raw = composeMime(mail.fromName ? { ...sender, name: mail.fromName } : sender, mail);
        const info = await transporter.sendMail({ raw, envelope: { from: sender.address, to: [mail.to.address] } });
        const refused = info.rejected?.length ? `refused: ${info.rejected.map(String).join(', ')}` : null;
        return { error: refused, permanent: refused !== null, response: String(info.response ?? ''), durationMs: elapsed() };
      } catch (error) {
        const failure = error as { message?: string; responseCode?: number; response?: string; code?: string };
        const code = failure.responseCode;
        const message = [failure.code, failure.response ?? failure.message].filter(Boolean).join(': ');
        return { error: message || String(error), permanent: code !== undefined && code >= 500 && code < 600, response: failure.response ?? null, durationMs: elapsed() };
      }
    },
    close() {
      transporter.close();
    },
  };
}
