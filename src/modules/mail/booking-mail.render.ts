// A booking message, rendered for its recipient when it is sent: subject, text and HTML in the
// recipient's locale and time zone, and the iTIP invitation its row names.
import type { InviteContext, MessageToSend } from './mail.repository.js';
import type { OutgoingMail } from './mail-transport.js';
import { type Invitation, invitationIcs } from './invitation.js';
import { type InviteAudience, type InviteValues, renderInviteTemplate, resolveInviteTemplate, standardDescription } from './invite-description.js';
import { headerText } from './mime-message.js';
import { fill, type MailAudience, type MailKind, mailTexts } from './messages/texts.js';

/** The booking as its event recorded it (presentBooking plus what the change added). */
interface BookingSnapshot {
  uid: string;
  title: string;
  description?: string;
  status: string;
  start: string;
  end: string;
  duration: number;
  location?: string;
  icsUid: string;
  hosts: { name: string | null; email: string }[];
  /** The booker, guests, then the other hosts (`coHosts`). */
  attendees: { name: string; email: string; timeZone: string }[];
  /** Absent from events recorded before co-hosts were listed among the attendees. */
  coHosts?: { name: string | null; email: string }[];
  guests?: string[];
  bookingFieldsResponses?: Record<string, unknown>;
  cancellationReason?: string | null;
  rejectionReason?: string | null;
  reschedulingReason?: string | null;
  reassignReason?: string | null;
  rescheduleStartTime?: string;
  rescheduleEndTime?: string;
  attendeeEmail?: string;
}

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

type DateStyle = 'full' | 'medium';

/** Formatters by locale, zone and style: making one costs far more than formatting with it. */
const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATTERS = 1000;

function formatter(locale: string | null, timeZone: string, dateStyle: DateStyle): Intl.DateTimeFormat {
  const key = `${locale ?? ''}|${timeZone}|${dateStyle}`;
  let found = formatters.get(key);
  if (!found) {
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(key, (found = newFormatter(locale, timeZone, dateStyle)));
  }
  return found;
}

function newFormatter(locale: string | null, timeZone: string, dateStyle: DateStyle): Intl.DateTimeFormat {
  for (const [tag, zone] of [[locale ?? 'en', timeZone], ['en', timeZone], ['en', 'UTC']] as const) {
    try {
      return new Intl.DateTimeFormat(tag, { dateStyle, timeStyle: 'short', timeZone: zone });
    } catch {
      // an unknown locale or zone: the next fallback
    }
  }
  return new Intl.DateTimeFormat('en', { dateStyle, timeStyle: 'short', timeZone: 'UTC' });
}

/** "Monday, January 4, 2027, 9:00 – 10:00 AM (America/New_York)" in the recipient's locale and zone. */
function timeRange(start: Date, end: Date, locale: string | null, timeZone: string): string {
  return `${formatter(locale, timeZone, 'full').formatRange(start, end)} (${timeZone})`;
}

/** A location a calendar can show: not an app placeholder such as `integrations:daily`. */
export const placeOf = (location: string | null | undefined) => (location && !location.startsWith('integrations:') ? location : null);

export interface RenderOptions {
  appUrl: string;
  /** Where the built-in video's Daily rooms live (SVC_DAILY_ROOM_URL), if it runs on Daily. */
  dailyRoomUrl?: string | null;
}

export function bookingLinks(appUrl: string, uid: string) {
  const base = appUrl.replace(/\/+$/, '');
  return { manage: `${base}/booking/${uid}`, reschedule: `${base}/reschedule/${uid}`, cancel: `${base}/booking/${uid}?cancel=true`, hostVideo: `${base}/video/${uid}` };
}

/**
 * The booker's text (the title made from their name, a name) as a subject carries it, after svc's own
 * words: on one line, without control characters, and at most this many characters, so it can neither
 * stand in for the subject nor push svc's words out of sight.
 */
const SUBJECT_TEXT_MAX = 80;

function subjectText(value: string): string {
  const chars = Array.from(headerText(value));
  return chars.length <= SUBJECT_TEXT_MAX ? chars.join('') : `${chars.slice(0, SUBJECT_TEXT_MAX - 1).join('').trimEnd()}…`;
}

/** Kinds after which the booking is over for this recipient: no links to change it. */
const CLOSED: ReadonlySet<MailKind> = new Set(['declined', 'cancelled', 'reassignedAway', 'seatCancelled']);

export function renderBookingMail(message: MessageToSend, context: InviteContext, options: RenderOptions): OutgoingMail {
  const booking = message.payload as unknown as BookingSnapshot;
  const kind = message.kind as MailKind;
  const audience: MailAudience = message.recipientRole === 'attendee' ? 'attendee' : 'host';
  const inviteAudience: InviteAudience = audience === 'attendee' ? 'guest' : 'host';
  const texts = mailTexts(message.recipientLocale);
  const start = new Date(booking.start);
  const end = new Date(booking.end);
  const host = booking.hosts[0] ?? { name: null, email: 'unknown' };
  // useDestinationCalendarEmail: the organizer shows with the destination calendar's address.
  const organizer = { name: host.name, email: context.organizerAddress ?? host.email };
  const organizerName = organizer.name || organizer.email;
  // The output lists the other hosts as the last attendees; mail names them as hosts, once.
  const coHosts = booking.coHosts ?? context.coHosts;
  const attendees = booking.coHosts ? booking.attendees.slice(0, booking.attendees.length - booking.coHosts.length) : booking.attendees;
  const guests = new Set((booking.guests ?? []).map((email) => email.toLowerCase()));
  const booker = attendees.find((attendee) => !guests.has(attendee.email.toLowerCase())) ?? attendees[0];
  const links = bookingLinks(options.appUrl, booking.uid);
  const location = placeOf(booking.location);
  const seatOnly = context.hideOtherSeats && audience === 'attendee';
  const isRecipient = (attendee: { email: string }) => attendee.email.toLowerCase() === message.recipientEmail.toLowerCase();
  const visibleAttendees = seatOnly ? attendees.filter(isRecipient) : [...attendees];
  // A cancelled seat's holder is no longer among the attendees; their CANCEL still names them.
  if (audience === 'attendee' && !visibleAttendees.some(isRecipient)) {
    visibleAttendees.push({ name: message.recipientName ?? message.recipientEmail, email: message.recipientEmail, timeZone: message.recipientTimeZone });
  }

  const subjectWhen = formatter(message.recipientLocale, message.recipientTimeZone, 'medium').format(start);
  const subjectName = kind === 'seatCancelled' ? (booking.attendeeEmail ?? '') : (attendees.at(-1)?.name ?? '');
  const line = texts.kinds[kind][audience];
  const subject = fill(line.subject, { title: subjectText(booking.title), when: subjectWhen, name: subjectText(subjectName) });
  const heading = fill(line.heading, { title: booking.title, when: subjectWhen, name: subjectName });

  const people = [`${organizerName} <${organizer.email}> (${texts.labels.organizer})`, ...coHosts.map((host) => `${host.name || host.email} <${host.email}>`)];
  for (const attendee of visibleAttendees) people.push(`${attendee.name} <${attendee.email}>${guests.has(attendee.email.toLowerCase()) ? ` (${texts.labels.guest})` : ''}`);
  const reason = booking.cancellationReason || booking.rejectionReason || booking.reassignReason || (kind === 'rescheduled' ? booking.reschedulingReason : null) || null;
  const rows: [string, string][] = [
    [texts.labels.what, booking.title],
    [texts.labels.when, timeRange(start, end, message.recipientLocale, message.recipientTimeZone)],
  ];
  if (kind === 'rescheduled' && booking.rescheduleStartTime && booking.rescheduleEndTime) {
    rows.push([texts.labels.previously, timeRange(new Date(booking.rescheduleStartTime), new Date(booking.rescheduleEndTime), message.recipientLocale, message.recipientTimeZone)]);
  }
  rows.push([texts.labels.who, people.join('\n')], [texts.labels.where, location ?? texts.labels.noLocation]);
  // On Daily, hosts join through svc (signed in) so the room knows them from the guests (the no-show triggers).
  const onDaily = options.dailyRoomUrl && location?.startsWith(`${options.dailyRoomUrl}/`);
  if (onDaily && audience === 'host' && !CLOSED.has(kind)) rows.push([texts.labels.joinAsHost, links.hostVideo]);
  if (booking.description) rows.push([texts.labels.description, booking.description]);
  if (reason) rows.push([texts.labels.reason, reason]);
  const open = !CLOSED.has(kind);

  const text = [
    heading,
    '',
    ...rows.map(([label, value]) => `${label}: ${value.replace(/\n/g, '\n  ')}`),
    ...(kind === 'requested' && audience === 'host' ? ['', texts.labels.confirmOrDecline] : []),
    ...(open ? ['', texts.labels.manage, `${texts.labels.reschedule}: ${links.reschedule}`, `${texts.labels.cancel}: ${links.cancel}`] : []),
  ].join('\n');
  const cell = (value: string) => escapeHtml(value).replace(/\n/g, '<br>');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<h1 style="font-size:20px">${escapeHtml(heading)}</h1>`,
    '<table cellpadding="4">',
    ...rows.map(([label, value]) => `<tr><th align="left" valign="top">${escapeHtml(label)}</th><td>${cell(value)}</td></tr>`),
    '</table>',
    ...(kind === 'requested' && audience === 'host' ? [`<p>${escapeHtml(texts.labels.confirmOrDecline)}</p>`] : []),
    ...(open
      ? [`<p>${escapeHtml(texts.labels.manage)} <a href="${escapeHtml(links.reschedule)}">${escapeHtml(texts.labels.reschedule)}</a> · <a href="${escapeHtml(links.cancel)}">${escapeHtml(texts.labels.cancel)}</a></p>`]
      : []),
    '</body></html>',
  ].join('\n');

  let invitation: OutgoingMail['invitation'] = null;
  if (message.method) {
    const values: InviteValues = {
      title: booking.title,
      eventTypeTitle: context.eventTypeTitle ?? booking.title,
      location: location ?? '',
      attendeeName: booker?.name ?? '',
      organizerName,
      durationMinutes: booking.duration,
      manageLink: links.manage,
      responses: booking.bookingFieldsResponses ?? {},
      bookingFields: context.bookingFields,
    };
    const template = resolveInviteTemplate(inviteAudience, context.invites, context.organizationInvites);
    const description = template === null ? standardDescription({ ...values, description: booking.description ?? '', people }, inviteAudience) : renderInviteTemplate(template, values, inviteAudience);
    const hostEmails = new Set([organizer.email, ...coHosts.map((host) => host.email)].map((email) => email.toLowerCase()));
    const details: Invitation = {
      method: message.method,
      uid: booking.icsUid,
      sequence: message.sequence,
      stamp: message.createdAt,
      start,
      end,
      summary: booking.title,
      description,
      location,
      tentative: booking.status === 'pending',
      organizer: { name: organizerName, email: organizer.email },
      attendees: [
        ...coHosts.map((host) => ({ name: host.name, email: host.email, accepted: true })),
        ...visibleAttendees.filter((attendee) => !hostEmails.has(attendee.email.toLowerCase())).map((attendee) => ({ name: attendee.name, email: attendee.email, accepted: !guests.has(attendee.email.toLowerCase()) })),
      ],
    };
    invitation = { method: message.method, ics: invitationIcs(details) };
  }
  return { messageId: `${message.uid}@svc`, to: { name: message.recipientName, address: message.recipientEmail }, subject, text, html, invitation, kind };
}
