// A booking's organizer is told when the app of its location could not make the meeting: the booking
// stands and its attendees hear of it without a link, which the organizer would otherwise only learn
// from an attendee waiting in the wrong place.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { MAIL_MAX_ATTEMPTS, MAIL_SEND_JOB } from './mail-sender.js';
import { insertMailMessages } from './mail.repository.js';
import { fill, mailTexts } from './messages/texts.js';
import { oneLine } from './team-invitation-mail.js';

export interface MeetingFailedNotice {
  organizer: { email: string; name: string | null; timeZone: string };
  booking: { uid: string; title: string; startAt: Date };
  /** The app, and the route that connects it again. */
  app: { name: string; connect: string };
  reason: string;
  /** Whether svc tries again. */
  retrying: boolean;
}

/** The start in the organizer's zone, as "Mon, 11 Jan 2027, 10:00 (Europe/London)". */
function startIn(startAt: Date, timeZone: string): string {
  const local = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(startAt);
  return `${local} (${timeZone})`;
}

export async function queueMeetingFailedMail(tx: Db, notice: MeetingFailedNotice): Promise<void> {
  const texts = mailTexts(null).meetingFailed;
  const values = {
    app: notice.app.name,
    connect: notice.app.connect,
    title: oneLine(notice.booking.title, 80),
    when: startIn(notice.booking.startAt, notice.organizer.timeZone),
    reason: oneLine(notice.reason, 300),
    uid: notice.booking.uid,
    name: notice.organizer.name ?? '',
  };
  const greeting = fill(notice.organizer.name ? texts.greeting : texts.greetingWithoutName, values);
  const body = fill(texts.body, { ...values, next: notice.retrying ? texts.retrying : texts.givenUp });
  await insertMailMessages(
    tx,
    [
      {
        uid: randomUUID(),
        bookingEventId: null,
        kind: 'meetingFailed',
        recipientEmail: notice.organizer.email,
        recipientName: notice.organizer.name,
        recipientRole: 'organizer',
        recipientTimeZone: notice.organizer.timeZone,
        recipientLocale: null,
        subject: fill(texts.subject, values),
        textBody: `${greeting}\n\n${body}\n`,
      },
    ],
    MAIL_SEND_JOB,
    MAIL_MAX_ATTEMPTS,
  );
}
