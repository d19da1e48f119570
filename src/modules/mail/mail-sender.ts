import pino from 'pino';
import type { Config } from '../../app/config.js';
import type { Database } from '../../db/client.js';
import { attemptsSpanning, type JobHandler } from '../../jobs/runner.js';
import { groupedCalls } from '../../lib/grouped-calls.js';
import type { SecretBox } from '../../lib/secrets.js';
import { type RenderOptions, renderBookingMail } from './booking-mail.render.js';
import { findMessagesToSend, type InviteContext, loadInviteContext, type MailAttemptRecord, type MessageToSend, recordMailAttempts } from './mail.repository.js';
import { createMailTransport, type InfoLog, type MailTransport, type OutgoingMail, type SendResult } from './mail-transport.js';

/** The job that sends one message (payload `{messageId}`). */
export const MAIL_SEND_JOB = 'mail.send';

/** Attempts per message: the retries span at least a day, as webhook deliveries do. */
export const MAIL_MAX_ATTEMPTS = attemptsSpanning(24 * 3_600_000);

export interface MailSenderDeps {
  database: Database;
  config: Pick<Config, 'mail' | 'appUrl' | 'logLevel' | 'jobs' | 'daily'>;
  /** Where messages go without SMTP_URL (default: the process's log at info). */
  log?: InfoLog;
  /** A transport of the caller's (tests); default: SMTP_URL's, or the log. */
  transport?: MailTransport;
  /** Opens sealed bodies (verification codes). */
  secrets?: SecretBox;
}

/**
 * A message that carries its own text (no booking event): sent as it is, with its HTML, attached event
 * and sender name when it has them. A sealed body (a verification code) is opened only now.
 */
function ownTextMail(message: MessageToSend & { subject: string; textBody: string }, secrets: SecretBox | undefined): OutgoingMail {
  const open = (body: string) => {
    if (!message.bodySealed) return body;
    if (!secrets) throw new Error('a sealed message needs the encryption key');
    return secrets.open(body);
  };
  return {
    messageId: `${message.uid}@svc`,
    to: { name: message.recipientName, address: message.recipientEmail },
    subject: message.subject,
    text: open(message.textBody),
    html: message.htmlBody === null ? null : open(message.htmlBody),
    invitation: message.invitationIcs === null ? null : { method: 'REQUEST', ics: message.invitationIcs },
    kind: message.kind,
    fromName: message.senderName,
  };
}

type ContextOf = (booking: InviteContextKey) => Promise<InviteContext>;
type InviteContextKey = Parameters<typeof loadInviteContext>[1];

async function renderMessage(contextOf: ContextOf, message: MessageToSend, options: RenderOptions, secrets: SecretBox | undefined): Promise<OutgoingMail> {
  const { subject, textBody } = message;
  if (message.bookingEventId === null && subject !== null && textBody !== null) return ownTextMail({ ...message, subject, textBody }, secrets);
  if (!message.payload) throw new Error('the booking event of this message is gone');
  const booking = message.payload as { id: number; eventTypeId: number | null; hosts: { id: number }[] };
  const context = await contextOf({ id: booking.id, eventTypeId: booking.eventTypeId, organizerId: booking.hosts[0]?.id ?? -1 });
  return renderBookingMail(message, context, options);
}

/** Invite contexts read together: the messages of one booking change are sent together and read it once. */
function groupedInviteContexts(database: Database): ContextOf {
  return groupedCalls(async (keys: InviteContextKey[]) => {
    const read = new Map<string, InviteContext>();
    const keyOf = (key: InviteContextKey) => `${key.id}|${key.eventTypeId}|${key.organizerId}`;
    for (const key of keys) {
      if (!read.has(keyOf(key))) read.set(keyOf(key), await loadInviteContext(database.db, key));
    }
    return keys.map((key) => read.get(keyOf(key))!);
  });
}

/**
 * The `mail.send` job: one attempt at one message. Accepted: sent. A 5xx refusal: failed at once (it
 * would be refused again). Anything else (connection, timeout, 4xx): logged and thrown, so the runner
 * retries with backoff; after the last attempt the message is failed. Returns the handler and a close
 * that ends the transport's connections.
 */
export function createMailSender(deps: MailSenderDeps): { handler: JobHandler; close(): void } {
  const { database, config } = deps;
  const transport =
    deps.transport ?? createMailTransport(config.mail, deps.log ?? pino({ level: config.logLevel }), Math.max(1, Math.min(10, config.jobs.concurrency)));
  const findMessage = groupedCalls(async (ids: number[]) => {
    const found = new Map((await findMessagesToSend(database.db, ids)).map((message) => [message.id, message]));
    return ids.map((id) => found.get(id));
  });
  const contextOf = groupedInviteContexts(database);
  const recordAttempt = groupedCalls(async (attempts: MailAttemptRecord[]) => {
    await recordMailAttempts(database.db, attempts);
    return attempts.map(() => undefined);
  });
  const handler: JobHandler = async (payload: { messageId: number }, job) => {
    const message = await findMessage(payload.messageId);
    if (!message || message.status !== 'pending') return;
    const attemptedAt = new Date();
    let result: SendResult;
    try {
      result = await transport.send(await renderMessage(contextOf, message, { appUrl: config.appUrl, dailyRoomUrl: config.daily?.roomUrl ?? null }, deps.secrets));
    } catch (error) {
      result = { error: `not sent: ${error instanceof Error ? error.message : String(error)}`, permanent: false, response: null, durationMs: 0 };
    }
    const last = job.attempts >= job.maxAttempts || result.permanent;
    await recordAttempt({
      messageId: message.id,
      attemptedAt,
      durationMs: result.durationMs,
      error: result.error,
      response: result.response,
      outcome: result.error === null ? 'sent' : last ? 'failed' : 'pending',
    });
    if (result.error === null) {
      deps.log?.info({ messageUid: message.uid, kind: message.kind, attempt: job.attempts, ms: result.durationMs }, 'mail sent');
      return;
    }
    if (result.permanent) {
      deps.log?.info({ messageUid: message.uid, kind: message.kind, attempt: job.attempts, error: result.error }, 'mail refused by the server; not retried');
      return;
    }
    throw new Error(`mail ${message.uid} attempt ${job.attempts}: ${result.error}`);
  };
  return { handler, close: () => transport.close() };
}
