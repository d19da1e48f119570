// The messages of workflow steps (reminders and follow-ups by email, SMS and WhatsApp): the variables a
// step's text may name, filled in for one recipient, and svc's default texts. Pure: no I/O.
import { formatInZone, isKnownZone, longDateInZone } from './date-format.js';

export interface TemplateBooking {
  uid: string;
  title: string;
  eventTypeTitle: string | null;
  start: Date;
  end: Date;
  /** timeFormat: the organizer's clock (12 or 24 hours), which the reference uses for every recipient. */
  organizer: { name: string; email: string; timeZone: string; timeFormat?: 12 | 24 | null };
  attendees: { name: string; email: string; timeZone: string; locale: string | null; phoneNumber: string | null }[];
  location: string | null;
  meetingUrl: string | null;
  /** The booker's additional notes. */
  description: string | null;
  /** Booking field responses by the field's slug. */
  responses: Record<string, unknown>;
  cancellationReason: string | null;
  rescheduleReason?: string | null;
}

export interface TemplateRecipient {
  name: string;
  timeZone: string;
  /** BCP 47 ('en', 'de', 'pt-BR'); unknown or null: English. */
  locale: string | null;
  /** address: a fixed email address or phone number of the step (written for the host, as the reference does). */
  role: 'host' | 'attendee' | 'address';
  /** Which attendee an attendee recipient is (several attendees may share a name); else matched by name. */
  email?: string | null;
}

export interface TemplateLinks {
  appUrl: string;
}

export type WorkflowTemplateName = 'reminder' | 'rescheduled' | 'cancelled' | 'completed' | 'rating' | 'custom';
export type WorkflowChannel = 'email' | 'sms' | 'whatsapp';

/** The variables a step's text may name, as `{NAME}` (any letter case). */
export const WORKFLOW_VARIABLES = [
  'EVENT_NAME', 'ORGANIZER', 'ORGANIZER_NAME', 'ATTENDEE', 'ATTENDEE_NAME', 'ATTENDEE_FIRST_NAME', 'ATTENDEE_LAST_NAME',
  'ATTENDEE_EMAIL', 'EVENT_DATE', 'EVENT_TIME', 'START_TIME', 'EVENT_END_TIME', 'TIMEZONE', 'LOCATION', 'ADDITIONAL_NOTES',
  'MEETING_URL', 'CANCEL_URL', 'RESCHEDULE_URL', 'RATING_URL', 'NO_SHOW_URL', 'ATTENDEE_TIMEZONE',
  'EVENT_START_TIME_IN_ATTENDEE_TIMEZONE', 'EVENT_END_TIME_IN_ATTENDEE_TIMEZONE', 'CANCELLATION_REASON', 'RESCHEDULE_REASON',
] as const;

/**
 * Prefixes of variables carrying a dayjs format after them (`{EVENT_DATE_ddd, MMM D}`), with the time they
 * format. The reference's customTemplate formats the first four; its variable list also names the two in
 * the attendee's zone, which svc formats as well.
 */
export const WORKFLOW_DATE_FORMAT_PREFIXES = [
  'EVENT_DATE_',
  'EVENT_TIME_',
  'START_TIME_',
  'EVENT_END_TIME_',
  'EVENT_START_TIME_IN_ATTENDEE_TIMEZONE_',
  'EVENT_END_TIME_IN_ATTENDEE_TIMEZONE_',
] as const;

const PREFIXES_LONGEST_FIRST = [...WORKFLOW_DATE_FORMAT_PREFIXES].sort((a, b) => b.length - a.length);

type Attendee = TemplateBooking['attendees'][number];

/** Everything a template can say about the booking, for one recipient. */
interface RenderContext {
  booking: TemplateBooking;
  /** The attendee the message is about: the recipient themself, or the first attendee for hosts and addresses. */
  attendee: Attendee | undefined;
  timeZone: string;
  locale: string | null;
  variables: Map<string, string>;
}

/** The text with every variable filled in for the recipient, in their zone and locale; unknown `{...}` kept. */
export function renderTemplate(text: string, booking: TemplateBooking, recipient: TemplateRecipient, links: TemplateLinks): string {
  return fill(text, renderContext(booking, recipient, links), (value) => value);
}

/** renderTemplate for HTML: the filled-in values (names, notes: the booker's text) are escaped, the template is not. */
export function renderHtmlTemplate(html: string, booking: TemplateBooking, recipient: TemplateRecipient, links: TemplateLinks): string {
  return fill(html, renderContext(booking, recipient, links), escapeHtml);
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// One pass over the text: a value that itself reads like a variable (a name "{LOCATION}") stays as given,
// where the reference's chain of replaceAll would fill it in too.
const VARIABLE = /\{([^{}]+)\}/g;

function fill(text: string, context: RenderContext, encode: (value: string) => string): string {
  return text.replace(VARIABLE, (whole, name: string) => {
    const value = resolve(name, context);
    return value === undefined ? whole : encode(value);
  });
}

function resolve(name: string, context: RenderContext): string | undefined {
  const found = resolveExactly(name, context);
  if (found !== undefined) return found;
  // The reference reads `{EVENT_NAME_VARIABLE}` (its editor's placeholder spelling) as `{EVENT_NAME}`.
  const placeholder = /^(.+)_variable$/i.exec(name);
  return placeholder ? resolveExactly(placeholder[1]!, context) : undefined;
}

/** Built-in variables first, then dated ones with a format, then booking fields, as the reference's customTemplate. */
function resolveExactly(name: string, context: RenderContext): string | undefined {
  // The reference fills only upper-case names (its editor writes them so); svc takes any case.
  const upper = name.toUpperCase();
  const builtIn = context.variables.get(upper);
  if (builtIn !== undefined) return builtIn;
  const dated = formattedDate(name, upper, context);
  if (dated !== undefined) return dated;
  return responseValue(upper, context.booking.responses);
}

function formattedDate(name: string, upper: string, context: RenderContext): string | undefined {
  // The longest prefix: EVENT_END_TIME_IN_ATTENDEE_TIMEZONE_ also starts with EVENT_END_TIME_.
  const prefix = PREFIXES_LONGEST_FIRST.find((candidate) => upper.startsWith(candidate) && upper.length > candidate.length);
  if (!prefix) return undefined;
  // Only the prefix is case-insensitive: format tokens are not (MM is the month, mm the minutes).
  const format = name.slice(prefix.length);
  const { booking, attendee } = context;
  switch (prefix) {
    case 'EVENT_END_TIME_':
      return formatInZone(booking.end, format, context.timeZone, context.locale);
    case 'EVENT_START_TIME_IN_ATTENDEE_TIMEZONE_':
      return attendee ? formatInZone(booking.start, format, attendee.timeZone, context.locale) : '';
    case 'EVENT_END_TIME_IN_ATTENDEE_TIMEZONE_':
      return attendee ? formatInZone(booking.end, format, attendee.timeZone, context.locale) : '';
    default:
      return formatInZone(booking.start, format, context.timeZone, context.locale);
  }
}

function renderContext(booking: TemplateBooking, recipient: TemplateRecipient, links: TemplateLinks): RenderContext {
  const attendee = recipient.role === 'attendee' ? recipientAttendee(booking.attendees, recipient) : booking.attendees[0];
  const timeZone = isKnownZone(recipient.timeZone) ? recipient.timeZone : 'UTC';
  // The reference's TimeFormat: h:mma (9:00am) unless the organizer chose the 24-hour clock.
  const timeFormat = booking.organizer.timeFormat === 24 ? 'HH:mm' : 'h:mma';
  const context: RenderContext = { booking, attendee, timeZone, locale: recipient.locale, variables: new Map() };
  const attendeeName = recipient.role === 'attendee' ? recipient.name : (attendee?.name ?? '');
  const { first, last } = nameParts(attendeeName, attendee === booking.attendees[0] ? booking.responses.name : undefined);
  const base = links.appUrl.replace(/\/+$/, '');
  const time = (instant: Date, zone: string) => formatInZone(instant, timeFormat, zone, recipient.locale);
  const entries: Record<(typeof WORKFLOW_VARIABLES)[number], string> = {
    EVENT_NAME: booking.title || booking.eventTypeTitle || '',
    ORGANIZER: booking.organizer.name,
    ORGANIZER_NAME: booking.organizer.name,
    ATTENDEE: attendeeName,
    ATTENDEE_NAME: attendeeName,
    ATTENDEE_FIRST_NAME: first,
    ATTENDEE_LAST_NAME: last,
    ATTENDEE_EMAIL: attendee?.email ?? '',
    EVENT_DATE: longDateInZone(booking.start, timeZone, recipient.locale),
    EVENT_TIME: time(booking.start, timeZone),
    START_TIME: time(booking.start, timeZone),
    EVENT_END_TIME: time(booking.end, timeZone),
    TIMEZONE: timeZone,
    LOCATION: locationLabel(booking.location),
    ADDITIONAL_NOTES: booking.description ?? '',
    MEETING_URL: booking.meetingUrl ?? '',
    CANCEL_URL: `${base}/booking/${booking.uid}?cancel=true`,
    RESCHEDULE_URL: `${base}/reschedule/${booking.uid}`,
    // The reference's rating and no-show links, on the booking's page: svc's page has no rating or no-show
    // form yet and ignores these parameters, so they open the booking (the rating template appends "=1".."=5").
    RATING_URL: `${base}/booking/${booking.uid}?rating`,
    NO_SHOW_URL: `${base}/booking/${booking.uid}?noShow=true`,
    ATTENDEE_TIMEZONE: attendee?.timeZone ?? '',
    EVENT_START_TIME_IN_ATTENDEE_TIMEZONE: attendee ? time(booking.start, attendee.timeZone) : '',
    EVENT_END_TIME_IN_ATTENDEE_TIMEZONE: attendee ? time(booking.end, attendee.timeZone) : '',
    CANCELLATION_REASON: booking.cancellationReason ?? '',
    RESCHEDULE_REASON: booking.rescheduleReason ?? '',
  };
  for (const [name, value] of Object.entries(entries)) context.variables.set(name, value);
  return context;
}

/** The attendee receiving the message: by email, else by name, else the first (as the reference falls back). */
function recipientAttendee(attendees: Attendee[], recipient: TemplateRecipient): Attendee | undefined {
  const email = recipient.email?.toLowerCase();
  return (
    (email ? attendees.find((attendee) => attendee.email.toLowerCase() === email) : undefined) ??
    attendees.find((attendee) => attendee.name === recipient.name) ??
    attendees[0]
  );
}

/**
 * First and last name: the booker's name field when it was asked in parts ({firstName, lastName}), else the
 * first and last words of the name (the reference's customTemplate: "Ada King Lovelace" is Ada / Lovelace).
 */
function nameParts(name: string, nameResponse: unknown): { first: string; last: string } {
  if (isRecord(nameResponse) && typeof nameResponse.firstName === 'string') {
    return { first: nameResponse.firstName, last: typeof nameResponse.lastName === 'string' ? nameResponse.lastName : '' };
  }
  const words = name.trim().split(/\s+/).filter(Boolean);
  return { first: words[0] ?? '', last: words.length > 1 ? words[words.length - 1]! : '' };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Conferencing apps by their location name, as the reference's LOCATION prints the app's label. */
const APP_LABELS: Record<string, string> = {
  'svc-video': 'svc Video',
  'daily-video': 'svc Video',
  daily: 'svc Video',
  zoom: 'Zoom',
  'google-meet': 'Google Meet',
  'office365-video': 'Microsoft Teams',
};

function locationLabel(location: string | null): string {
  if (!location) return '';
  if (!location.startsWith('integrations:')) return location;
  const app = location.slice('integrations:'.length);
  if (APP_LABELS[app]) return APP_LABELS[app];
  // Other apps: their name from the slug ("whereby-video" is Whereby).
  return app
    .replace(/-(video|conferencing)$/, '')
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

/**
 * The names a booking field answers to, as the reference's customTemplate makes them from its key: other
 * characters than letters, digits, spaces and underscores dropped, spaces as underscores, upper case
 * ("Company Name" is COMPANY_NAME, "company-size" COMPANYSIZE), and the older spelling without underscores
 * (COMPANYNAME). svc also reads a slug's hyphens as underscores (COMPANY_SIZE), the spelling its slugs suggest.
 */
export function responseVariableNames(key: string): string[] {
  const variable = key.replace(/[^a-zA-Z0-9 _]/g, '').trim().replace(/ /g, '_').toUpperCase();
  const hyphenated = key.replace(/-/g, '_').replace(/[^a-zA-Z0-9 _]/g, '').trim().replace(/ /g, '_').toUpperCase();
  return [...new Set([variable, variable.replace(/_/g, ''), hyphenated])].filter(Boolean);
}

function responseValue(upper: string, responses: Record<string, unknown>): string | undefined {
  for (const [key, value] of Object.entries(responses)) {
    // An unanswered field leaves its variable as written, as in the reference.
    if (value === undefined || !responseVariableNames(key).includes(upper)) continue;
    return responseText(value);
  }
  return undefined;
}

/** A response as text: lists joined by commas (as the reference), options by their value, names by their parts. */
function responseText(value: unknown): string {
  if (value === null) return '';
  if (Array.isArray(value)) return value.map(responseText).join(', ');
  if (isRecord(value)) {
    // The reference prints objects as "[object Object]"; svc prints what they hold.
    if (typeof value.value === 'string') return value.value;
    return Object.values(value).filter((part) => part !== null && part !== undefined && part !== '').map(responseText).join(' ');
  }
  return String(value);
}

export interface DefaultMessage {
  subject: string;
  html: string;
  text: string;
}

const WHEN_SHORT = '{EVENT_DATE_ddd, MMM D} at {EVENT_TIME} ({TIMEZONE})';
const WHAT = ['What', '{EVENT_NAME}'] as const;
const WHEN = ['When', '{EVENT_DATE}, {EVENT_TIME} – {EVENT_END_TIME} ({TIMEZONE})'] as const;
const WHO = ['Who', '{ORGANIZER} and {ATTENDEE}'] as const;
const WHERE = ['Where', '{LOCATION} {MEETING_URL}'] as const;

interface EmailParts {
  subject: string;
  intro: string;
  rows: (readonly [string, string])[];
  /** Closing links: their words and the variable they open. */
  links: (readonly [string, string])[];
}

// svc's own words. They name nobody in the greeting, so one text suits the host, the attendees and a fixed
// address alike (the reference writes a greeting per recipient when the step is saved).
const EMAILS: Record<Exclude<WorkflowTemplateName, 'custom'>, EmailParts> = {
  reminder: {
    subject: 'Reminder: {EVENT_NAME} on {EVENT_DATE_ddd, MMM D} at {EVENT_TIME}',
    intro: 'This is a reminder of an upcoming event.',
    rows: [WHAT, WHEN, WHO, WHERE],
    links: [['Reschedule', '{RESCHEDULE_URL}'], ['Cancel', '{CANCEL_URL}']],
  },
  rescheduled: {
    subject: 'Rescheduled: {EVENT_NAME} is now on {EVENT_DATE_ddd, MMM D} at {EVENT_TIME}',
    intro: 'This event has moved to a new time.',
    rows: [WHAT, WHEN, WHO, WHERE],
    links: [['Reschedule', '{RESCHEDULE_URL}'], ['Cancel', '{CANCEL_URL}']],
  },
  cancelled: {
    subject: 'Cancelled: {EVENT_NAME} on {EVENT_DATE_ddd, MMM D} at {EVENT_TIME}',
    intro: 'This event has been cancelled and will not take place.',
    rows: [WHAT, WHEN, WHO],
    links: [],
  },
  completed: {
    subject: 'Thank you for attending {EVENT_NAME}',
    intro: 'Thank you for attending. We hope it went well.',
    rows: [WHAT, WHEN, WHO],
    links: [],
  },
  rating: {
    subject: 'How was {EVENT_NAME}?',
    intro: 'How satisfied were you with this event? Pick a rating from 1 (not at all) to 5 (very):',
    rows: [WHAT, WHEN, WHO],
    links: [['{ORGANIZER} did not join? Let us know', '{NO_SHOW_URL}']],
  },
};

const SHORT_TEXTS: Record<Exclude<WorkflowTemplateName, 'custom'>, (eventName: string) => string> = {
  reminder: (eventName) => `Reminder: ${eventName} with {ORGANIZER} and {ATTENDEE} on ${WHEN_SHORT}. To reschedule: {RESCHEDULE_URL}`,
  rescheduled: (eventName) => `Rescheduled: ${eventName} with {ORGANIZER} and {ATTENDEE} is now on ${WHEN_SHORT}.`,
  cancelled: (eventName) => `Cancelled: ${eventName} with {ORGANIZER} and {ATTENDEE} on ${WHEN_SHORT} will not take place.`,
  completed: (eventName) => `Thank you for attending ${eventName} on {EVENT_DATE_ddd, MMM D}.`,
  rating: (eventName) => `How was ${eventName}? Rate it from 1 to 5: {RATING_URL}`,
};

/**
 * The message of a step with this template and no text of its own (English; `locale` is for later
 * translations: dates are localized when rendered). Email gives subject, HTML and text; SMS and WhatsApp
 * give text only (WhatsApp with the event name in *bold*, as the reference's templates). `custom`: empty.
 */
export function defaultTemplate(template: WorkflowTemplateName, channel: WorkflowChannel, locale?: string): DefaultMessage {
  if (template === 'custom') return { subject: '', html: '', text: '' };
  if (channel === 'sms') return { subject: '', html: '', text: SHORT_TEXTS[template]('{EVENT_NAME}') };
  if (channel === 'whatsapp') return { subject: '', html: '', text: SHORT_TEXTS[template]('*{EVENT_NAME}*') };
  const parts = EMAILS[template];
  const ratings = template === 'rating' ? [1, 2, 3, 4, 5] : [];
  const text = [
    'Hello,',
    parts.intro,
    ...(ratings.length ? [ratings.map((score) => `${score}: {RATING_URL}=${score}`).join('\n')] : []),
    parts.rows.map(([label, value]) => `${label}: ${value}`).join('\n'),
    ...(parts.links.length ? [parts.links.map(([words, url]) => `${words}: ${url}`).join('\n')] : []),
  ].join('\n\n');
  const html = [
    '<p>Hello,</p>',
    `<p>${parts.intro}</p>`,
    ...(ratings.length ? [`<p>${ratings.map((score) => `<a href="{RATING_URL}=${score}">${score}</a>`).join(' ')}</p>`] : []),
    `<p>${parts.rows.map(([label, value]) => `<strong>${label}:</strong> ${value}`).join('<br>')}</p>`,
    ...(parts.links.length ? [`<p>${parts.links.map(([words, url]) => `<a href="${url}">${words}</a>`).join(' · ')}</p>`] : []),
  ].join('\n');
  return { subject: parts.subject, html, text };
}
