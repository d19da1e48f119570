// A user invited to a team or organization is told, with the link that accepts or declines: a
// plain-text message rendered now, in the invitee's locale, and queued in the invitation's transaction.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { MAIL_MAX_ATTEMPTS, MAIL_SEND_JOB } from './mail-sender.js';
import { insertMailMessages } from './mail.repository.js';
import { fill, mailTexts } from './messages/texts.js';

export interface TeamInvitation {
  invitee: { email: string; name: string | null; timeZone: string; locale: string | null };
  inviterName: string;
  teamName: string;
  role: string;
  link: string;
  acceptPath: string;
  declinePath: string;
  validDays: number;
}

/** Names chosen by users go into a subject as one short line. */
export const oneLine = (text: string, max: number) => {
  const line = text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

export async function queueTeamInvitationMail(tx: Db, invitation: TeamInvitation): Promise<void> {
  const texts = mailTexts(invitation.invitee.locale).teamInvitation;
  const values = {
    team: oneLine(invitation.teamName, 80),
    inviter: oneLine(invitation.inviterName, 80),
    role: invitation.role,
    link: invitation.link,
    acceptPath: invitation.acceptPath,
    declinePath: invitation.declinePath,
    days: String(invitation.validDays),
    name: invitation.invitee.name ?? '',
  };
  const greeting = fill(invitation.invitee.name ? texts.greeting : texts.greetingWithoutName, values);
  await insertMailMessages(
    tx,
    [
      {
        uid: randomUUID(),
        bookingEventId: null,
        kind: 'teamInvitation',
        recipientEmail: invitation.invitee.email,
        recipientName: invitation.invitee.name,
        recipientRole: 'invitee',
        recipientTimeZone: invitation.invitee.timeZone,
        recipientLocale: invitation.invitee.locale,
        subject: fill(texts.subject, values),
        textBody: `${greeting}\n\n${fill(texts.body, values)}\n`,
      },
    ],
    MAIL_SEND_JOB,
    MAIL_MAX_ATTEMPTS,
  );
}
