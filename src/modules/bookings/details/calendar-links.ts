import ical, { ICalAttendeeRole, ICalEventStatus } from 'ical-generator';

export interface CalendarEventDetails {
  /** iCalendar UID: the same for every version of the booking's event. */
  icsUid: string;
  /** When the event was last revised (DTSTAMP, as RFC 5545 defines it for a calendar without METHOD). */
  revisedAt: Date;
  start: Date;
  end: Date;
  title: string;
  description: string;
  /** An address, link or phone number; null when the booking has no place a calendar could show. */
  location: string | null;
  status: 'accepted' | 'pending' | 'cancelled' | 'rejected';
  organizer: { name: string; email: string };
  attendees: { name: string; email: string }[];
}

export interface CalendarLink {
  label: string;
  link: string;
}

const encode = encodeURIComponent;

/** `20270104T150000Z`: the form Google's links (and iCalendar) take. */
const basicUtc = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');

function googleLink(event: CalendarEventDetails): string {
  const location = event.location ? `&location=${encode(event.location)}` : '';
  return `https://calendar.google.com/calendar/r/eventedit?dates=${basicUtc(event.start)}/${basicUtc(event.end)}&text=${encode(event.title)}&details=${encode(event.description)}${location}`;
}

function outlookLink(host: string, event: CalendarEventDetails): string {
  const location = event.location ? `&location=${encode(event.location)}` : '';
  return (
    `https://${host}/calendar/0/deeplink/compose?body=${encode(event.description)}&enddt=${event.end.toISOString()}` +
    `&path=%2Fcalendar%2Faction%2Fcompose&rru=addevent&startdt=${event.start.toISOString()}&subject=${encode(event.title)}${location}`
  );
}

/**
 * Parameter values (CN) cannot carry DQUOTE or control characters in RFC 5545, and the library would
 * backslash-escape them, which no parser undoes: they are replaced instead.
 */
const parameterText = (text: string) => text.replace(/"/g, "'").replace(/[\u0000-\u001f\u007f\\]+/g, ' ').trim();

const STATUS = {
  accepted: ICalEventStatus.CONFIRMED,
  pending: ICalEventStatus.TENTATIVE,
  cancelled: ICalEventStatus.CANCELLED,
  rejected: ICalEventStatus.CANCELLED,
} as const;

/** One VEVENT in a VCALENDAR: TEXT values escaped and lines folded at 75 octets by ical-generator. */
export function icsText(event: CalendarEventDetails): string {
  const calendar = ical({ prodId: { company: 'svc', product: 'svc', language: 'EN' } });
  calendar.createEvent({
    id: event.icsUid,
    stamp: event.revisedAt,
    start: event.start,
    end: event.end,
    summary: event.title,
    description: event.description || null,
    location: event.location,
    status: STATUS[event.status],
    organizer: { name: parameterText(event.organizer.name) || event.organizer.email, email: event.organizer.email },
    attendees: event.attendees.map((attendee) => ({
      name: parameterText(attendee.name) || null,
      email: attendee.email,
      role: ICalAttendeeRole.REQ,
    })),
  });
  // Every content line ends with CRLF, the last one too (RFC 5545 3.1); the library leaves it off.
  return `${calendar.toString()}\r\n`;
}

/** "Add to calendar" links for a booking, in the reference's order. */
export function calendarLinks(event: CalendarEventDetails): CalendarLink[] {
  return [
    { label: 'Google Calendar', link: googleLink(event) },
    { label: 'Microsoft Office', link: outlookLink('outlook.office.com', event) },
    { label: 'Microsoft Outlook', link: outlookLink('outlook.live.com', event) },
    { label: 'ICS', link: `data:text/calendar,${encode(icsText(event))}` },
  ];
}
