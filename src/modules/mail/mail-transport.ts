import nodemailer from 'nodemailer';
import type { MailConfig } from '../../app/config.js';

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

/** The reference's name for the attachment (a second text/calendar part confuses some clients: application/ics). */
const ICS_FILENAME = 'invite.ics';

function nodemailerMessage(from: string, mail: OutgoingMail) {
  return {
    from,
    to: mail.to.name ? { name: mail.to.name, address: mail.to.address } : mail.to.address,
    subject: mail.subject,
    text: mail.text,
    ...(mail.html === null ? {} : { html: mail.html }),
    messageId: `<${mail.messageId}>`,
    // Parts that cannot go as 7-bit text go as base64 (Buffer's native encoder) rather than as
    // quoted-printable, which nodemailer encodes in JavaScript character by character.
    textEncoding: 'base64' as const,
    ...(mail.invitation
      ? {
          // The `text/calendar; method=...` alternative calendar clients act on, and the same file attached.
          icalEvent: { method: mail.invitation.method, content: mail.invitation.ics },
          attachments: [{ filename: ICS_FILENAME, content: mail.invitation.ics, contentType: 'application/ics' }],
        }
      : {}),
  };
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
  return {
    async send(mail) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      try {
        const info = await transporter.sendMail(nodemailerMessage(config.from, mail));
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
