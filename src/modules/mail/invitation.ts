import ical, { type ICalAttendeeData, ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventClass, ICalEventStatus } from 'ical-generator';

export interface InvitationPerson {
  name: string | null;
  email: string;
}

export interface InvitationAttendee extends InvitationPerson {
  /** Already agreed (the booker, the hosts) or asked to answer (invited guests). */
  accepted: boolean;
}

export interface Invitation {
  /** null: the event as a calendar stores it (CalDAV objects carry no METHOD, RFC 4791 4.1). */
  method: 'REQUEST' | 'CANCEL' | null;
  /** The booking's icsUid: one calendar event through all its revisions. */
  uid: string;
  sequence: number;
  /** When this revision was made (DTSTAMP). */
  stamp: Date;
  start: Date;
  end: Date;
  summary: string;
  description: string;
  location: string | null;
  /** A REQUEST for a booking still awaiting its host is TENTATIVE. */
  tentative: boolean;
  organizer: InvitationPerson;
  attendees: InvitationAttendee[];
  /** CLASS:PRIVATE: details hidden from those the calendar is shared with. */
  private?: boolean;
}

/** CN parameters cannot carry DQUOTE or control characters (RFC 5545 3.2); they are replaced, not escaped. */
const parameterText = (text: string | null) => (text ?? '').replace(/"/g, "'").replace(/[\u0000-\u001f\u007f\\]+/g, ' ').trim();

/**
 * An iTIP message (RFC 5546) of one VEVENT: REQUEST to put (or update) the event in a calendar,
 * CANCEL to take it out. Times are UTC (no VTIMEZONE needed); TEXT escaped and lines folded by
 * ical-generator; every line ends with CRLF.
 */
export function invitationIcs(invitation: Invitation): string {
  const method = invitation.method === null ? null : invitation.method === 'CANCEL' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST;
  const calendar = ical({ prodId: { company: 'svc', product: 'svc', language: 'EN' }, ...(method ? { method } : {}) });
  calendar.createEvent({
    id: invitation.uid,
    sequence: invitation.sequence,
    stamp: invitation.stamp,
    start: invitation.start,
    end: invitation.end,
    summary: invitation.summary,
    description: invitation.description || null,
    location: invitation.location,
    // A meeting link is also the event's URL, which calendars show as a link; a Meet link is Google's
    // conference field too, where Google Calendar puts its "Join" button.
    ...(invitation.location && /^https?:\/\//i.test(invitation.location) ? { url: invitation.location } : {}),
    ...(invitation.location && /^https:\/\/meet\.google\.com\//i.test(invitation.location) ? { x: [{ key: 'X-GOOGLE-CONFERENCE', value: invitation.location }] } : {}),
    status: invitation.method === 'CANCEL' ? ICalEventStatus.CANCELLED : invitation.tentative ? ICalEventStatus.TENTATIVE : ICalEventStatus.CONFIRMED,
    ...(invitation.private ? { class: ICalEventClass.PRIVATE } : {}),
    organizer: { name: parameterText(invitation.organizer.name) || invitation.organizer.email, email: invitation.organizer.email },
    attendees: invitation.attendees.map((attendee) => ({
      name: parameterText(attendee.name) || null,
      email: attendee.email,
      role: ICalAttendeeRole.REQ,
      status: attendee.accepted ? ICalAttendeeStatus.ACCEPTED : ICalAttendeeStatus.NEEDSACTION,
      rsvp: !attendee.accepted,
      // Stored in a calendar (no METHOD), the event must not make a scheduling server (RFC 6638: iCloud,
      // Nextcloud) invite the attendees again: svc mails them its own invitations.
      ...(invitation.method === null ? { scheduleAgent: 'CLIENT' as NonNullable<ICalAttendeeData['scheduleAgent']> } : {}),
    })),
  });
  return `${calendar.toString()}\r\n`;
}
