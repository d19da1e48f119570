// A user whose connected calendar refused svc's credentials is told once: until they connect it again
// they count as busy everywhere, which they would otherwise only notice through missing bookings.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { MAIL_MAX_ATTEMPTS, MAIL_SEND_JOB } from './mail-sender.js';
import { insertMailMessages } from './mail.repository.js';
import { fill, mailTexts } from './messages/texts.js';
import { oneLine } from './team-invitation-mail.js';

export interface BrokenCalendarNotice {
  owner: { email: string; name: string | null; timeZone: string; locale: string | null };
  calendarName: string;
  appName: string;
}

export async function queueCalendarBrokenMail(tx: Db, notice: BrokenCalendarNotice): Promise<void> {
  const texts = mailTexts(notice.owner.locale).calendarBroken;
  const values = { calendar: oneLine(notice.calendarName, 80), app: notice.appName, name: notice.owner.name ?? '' };
  const greeting = fill(notice.owner.name ? texts.greeting : texts.greetingWithoutName, values);
  await insertMailMessages(
    tx,
    [
      {
        uid: randomUUID(),
        bookingEventId: null,
        kind: 'calendarBroken',
        recipientEmail: notice.owner.email,
        recipientName: notice.owner.name,
        recipientRole: 'owner',
        recipientTimeZone: notice.owner.timeZone,
        recipientLocale: notice.owner.locale,
        subject: fill(texts.subject, values),
        textBody: `${greeting}\n\n${fill(texts.body, values)}\n`,
      },
    ],
    MAIL_SEND_JOB,
    MAIL_MAX_ATTEMPTS,
  );
}
