// The owner of a third-party OAuth client is told of the system admin's decision on it: a plain-text
// message rendered now, in the owner's locale, and queued in the review's transaction.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { MAIL_MAX_ATTEMPTS, MAIL_SEND_JOB } from './mail-sender.js';
import { insertMailMessages } from './mail.repository.js';
import { fill, mailTexts, type OAuthClientDecision } from './messages/texts.js';

export interface OAuthClientOwner {
  email: string;
  name: string | null;
  timeZone: string;
  locale: string | null;
}

const oauthClientMailKind = (decision: OAuthClientDecision) => (decision === 'approved' ? 'oauthClientApproved' : 'oauthClientRejected');

export async function queueOAuthClientReviewMail(tx: Db, owner: OAuthClientOwner, client: { id: string; name: string }, decision: OAuthClientDecision): Promise<void> {
  const texts = mailTexts(owner.locale).oauthClient;
  const values = { client: client.name, clientId: client.id, name: owner.name ?? '' };
  const { subject, body } = texts.decisions[decision];
  await insertMailMessages(
    tx,
    [
      {
        uid: randomUUID(),
        bookingEventId: null,
        kind: oauthClientMailKind(decision),
        recipientEmail: owner.email,
        recipientName: owner.name,
        recipientRole: 'owner',
        recipientTimeZone: owner.timeZone,
        recipientLocale: owner.locale,
        subject: fill(subject, values),
        textBody: `${fill(owner.name ? texts.greeting : texts.greetingWithoutName, values)}\n\n${fill(body, values)}\n`,
      },
    ],
    MAIL_SEND_JOB,
    MAIL_MAX_ATTEMPTS,
  );
}
