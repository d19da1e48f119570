import { randomUUID } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { BookingRecord } from '../bookings/bookings.repository.js';
import { type BookingMailAudience, insertMailMessages, loadBookingMailAudience, type NewMailMessage } from './mail.repository.js';
import { MAIL_MAX_ATTEMPTS, MAIL_SEND_JOB } from './mail-sender.js';
import { type OutsideMailTally, tallyOutsideMail } from './mail-budget.js';
import type { MailKind } from './messages/texts.js';

/** A person a change removed from the booking, who is still told (a cancelled seat's holder). */
export interface RemovedAttendee {
  name: string;
  email: string;
  timeZone: string;
  locale: string | null;
}

export interface BookingChangeMail {
  kind: MailKind;
  bookingEventId: number;
  record: BookingRecord;
  /** What the trigger added to the event (seatUid, reassignedTo...). */
  extra: Record<string, unknown>;
  /** Users besides the hosts the change concerns (a reassigned booking's previous host). */
  alsoUserIds: readonly number[];
  removedAttendee?: RemovedAttendee | undefined;
  /**
   * Whether the booking's guests are told. Guests hear only of a booking that is (or, when cancelled,
   * was) accepted: as in the reference, a booking waiting for confirmation is announced to its booker
   * alone, and svc also keeps its decline and withdrawal between the hosts and the booker.
   */
  toGuests: boolean;
  /** Counts the messages to people other than the hosts, for a request without credentials. */
  tally?: OutsideMailTally | undefined;
}

/** The trigger of a booking event and the mail it means, unless the caller says otherwise. */
export function mailKindOf(trigger: string, record: BookingRecord, extra: Record<string, unknown>): MailKind | null {
  switch (trigger) {
    case 'BOOKING_CREATED':
      return extra.seatUid !== undefined && record.attendees.length > 1 ? 'seatAdded' : 'scheduled';
    case 'BOOKING_REQUESTED':
      return 'requested';
    case 'BOOKING_RESCHEDULED':
      return 'rescheduled';
    case 'BOOKING_CANCELLED':
      // The last seat cancelled cancels the booking.
      return extra.seatUid !== undefined && record.booking.status !== 'cancelled' ? 'seatCancelled' : 'cancelled';
    case 'BOOKING_REJECTED':
      return 'declined';
    case 'BOOKING_REASSIGNED':
      return 'reassigned';
    default:
      return null;
  }
}

/**
 * Kinds that revise an event already sent (SEQUENCE + 1). A new booking starts at its own sequence: 0,
 * or its predecessor's + 1 for a rescheduled one (set when it is made).
 */
const REVISES: ReadonlySet<MailKind> = new Set(['confirmed', 'declined', 'cancelled', 'reassigned', 'seatAdded', 'seatCancelled', 'guestsAdded', 'locationChanged']);

/** Whether mail of this kind bumps the booking's SEQUENCE (`bookingMailAudienceQuery`'s `bump`). */
export const revises = (kind: MailKind) => REVISES.has(kind);

type Method = 'REQUEST' | 'CANCEL' | null;
interface Recipient {
  kind: MailKind;
  role: NewMailMessage['recipientRole'];
  method: Method;
  person: { name: string | null; email: string; timeZone: string; locale: string | null };
  /** An attendee the booker brought along (not the booker, nor a seat's holder). */
  guest: boolean;
}

/** Who hears of a change, what they are told and which invitation they get. */
function recipients(change: BookingChangeMail, audience: BookingMailAudience): Recipient[] {
  const { kind, record, extra } = change;
  const hosts = audience.users.filter((user) => user.hosts);
  const attendees = record.attendees
    .filter((attendee) => change.toGuests || !attendee.isGuest)
    .map((attendee) => ({ name: attendee.name, email: attendee.email, timeZone: attendee.timeZone, locale: attendee.locale, seatUid: attendee.seatUid, isGuest: attendee.isGuest }));
  const toHosts = (method: Method, as: MailKind = kind): Recipient[] =>
    hosts.map((user) => ({ kind: as, role: user.id === record.booking.userId ? 'organizer' : 'host', method, person: user, guest: false }));
  const toAttendees = (method: Method, only?: (attendee: (typeof attendees)[number]) => boolean): Recipient[] =>
    attendees.filter((attendee) => !only || only(attendee)).map((person) => ({ kind, role: 'attendee', method, person, guest: person.isGuest }));
  const seat = (attendee: { seatUid: string | null }) => attendee.seatUid === extra.seatUid;
  const toRemoved: Recipient[] = change.removedAttendee ? [{ kind, role: 'attendee', method: 'CANCEL', person: change.removedAttendee, guest: false }] : [];
  switch (kind) {
    case 'scheduled':
    case 'confirmed':
    case 'guestsAdded':
    case 'locationChanged':
      return [...toHosts('REQUEST'), ...toAttendees('REQUEST')];
    case 'requested':
      return [...toHosts(null), ...toAttendees(null)];
    case 'declined':
      return toAttendees(null);
    case 'rescheduled':
      return [...toHosts('REQUEST'), ...toAttendees('REQUEST', extra.seatUid === undefined ? undefined : seat)];
    case 'cancelled':
      return [...toHosts('CANCEL'), ...toAttendees('CANCEL'), ...toRemoved];
    case 'seatAdded':
      return [...toHosts('REQUEST'), ...toAttendees('REQUEST', seat)];
    case 'seatCancelled':
      return [...toHosts('REQUEST'), ...toRemoved];
    case 'reassigned':
    case 'reassignedAway': {
      const successorId = (extra.reassignedTo as { id?: number } | undefined)?.id;
      const previous = audience.users.filter((user) => !user.hosts);
      return [
        ...hosts.filter((user) => user.id === successorId).map((user) => ({ kind: 'reassigned' as const, role: 'host' as const, method: 'REQUEST' as const, person: user, guest: false })),
        ...previous.map((user) => ({ kind: 'reassignedAway' as const, role: 'host' as const, method: 'CANCEL' as const, person: user, guest: false })),
        ...toAttendees('REQUEST'),
      ];
    }
  }
}

/**
 * Writes the messages of one booking change (and their send jobs) in the change's transaction: to
 * the organizer and team hosts and to the attendees, as the event type's email settings and the
 * platform client's `areEmailsEnabled` allow. `readAudience`: who that is, when the booking event's
 * own statement read it (else it is read here). Nothing is rendered here: the sender renders each
 * message from the booking event when it sends it.
 */
export async function queueBookingMail(tx: Db, change: BookingChangeMail, readAudience?: BookingMailAudience, rider: SQL | null = null): Promise<boolean> {
  const { booking } = change.record;
  const audience = readAudience ?? (await loadBookingMailAudience(tx, booking, change.alsoUserIds, revises(change.kind)));
  // A platform client that turned emails off: its managed users' bookings are not mailed by svc.
  if (audience.platformEmailsEnabled === false) return false;
  const settings = audience.emailSettings;
  const sent = recipients(change, audience).filter((recipient) => !(recipient.role === 'attendee' ? settings?.disableEmailsToAttendees : settings?.disableEmailsToHosts));
  if (change.tally) {
    const outside = sent.filter((recipient) => recipient.role === 'attendee');
    const toGuests = outside.filter((recipient) => recipient.guest).length;
    tallyOutsideMail(change.tally, booking.eventTypeId, { toBooker: outside.length - toGuests, toGuests });
  }
  const messages = sent.map(
      (recipient): NewMailMessage => ({
        uid: randomUUID(),
        bookingEventId: change.bookingEventId,
        kind: recipient.kind,
        recipientEmail: recipient.person.email,
        recipientName: recipient.person.name,
        recipientRole: recipient.role,
        recipientTimeZone: recipient.person.timeZone,
        recipientLocale: recipient.person.locale,
        method: recipient.method,
        sequence: audience.sequence,
      }),
    );
  return insertMailMessages(tx, messages, MAIL_SEND_JOB, MAIL_MAX_ATTEMPTS, rider);
}
