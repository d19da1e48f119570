import type { Database } from '../../db/client.js';
import { sendTwilioMessage, type TwilioConfig, TwilioError } from '../../integrations/twilio/client.js';
import { attemptsSpanning, type JobHandler, JobRetry } from '../../jobs/runner.js';
import { maskPhoneNumber } from '../../lib/phone-numbers.js';
import type { SecretBox } from '../../lib/secrets.js';
import type { InfoLog } from '../mail/mail-transport.js';
import { findTextMessage, recordTextAttempt } from './text-messages.repository.js';

/** Attempts per text message: retries span at least a day, as mail's do. */
export const TEXT_MAX_ATTEMPTS = attemptsSpanning(24 * 3_600_000);

export interface TextSenderDeps {
  database: Database;
  twilio: TwilioConfig | null;
  secrets: SecretBox;
  log?: InfoLog;
}

/**
 * The `text.send` job: one attempt at one message. Accepted by the provider: sent (its delivery is
 * reported later to the status callback). A refusal that would repeat (an invalid or unsubscribed
 * number, bad credentials): failed at once. Anything else is retried with backoff (a provider's
 * Retry-After wins); after the last attempt the message is failed. A crash after the provider accepted
 * a message and before it was recorded sends it again on the retry: at least once, as mail.
 */
export function createTextSender(deps: TextSenderDeps): JobHandler {
  return async (payload: { messageId: number }, job) => {
    const message = await findTextMessage(deps.database.db, payload.messageId);
    if (!message || message.status !== 'pending') return;
    if (!deps.twilio) {
      await recordTextAttempt(deps.database.db, message.id, { status: 'failed', error: 'no text-message provider is configured (TWILIO_* settings)' });
      return;
    }
    const body = message.bodySealed ? deps.secrets.open(message.body) : message.body;
    try {
      const sent = await sendTwilioMessage(deps.twilio, { channel: message.channel, to: message.toNumber, body });
      await recordTextAttempt(deps.database.db, message.id, { status: 'sent', providerSid: sent.sid, deliveryStatus: sent.status });
      deps.log?.info({ textUid: message.uid, purpose: message.purpose, to: maskPhoneNumber(message.toNumber), attempt: job.attempts }, 'text message sent');
    } catch (error) {
      const failure = error instanceof TwilioError ? error : null;
      const text = error instanceof Error ? error.message : String(error);
      const last = job.attempts >= job.maxAttempts || failure?.permanent === true;
      await recordTextAttempt(deps.database.db, message.id, { status: last ? 'failed' : 'pending', error: text });
      if (last) {
        deps.log?.info({ textUid: message.uid, purpose: message.purpose, attempt: job.attempts, error: text }, 'text message failed; not retried');
        return;
      }
      if (failure?.retryAfterMs !== undefined) throw new JobRetry(`text ${message.uid}: ${text}`, failure.retryAfterMs);
      throw new Error(`text ${message.uid} attempt ${job.attempts}: ${text}`);
    }
  };
}
