import { en } from './en.js';

/** What a booking message tells its recipient. */
export const MAIL_KINDS = [
  'scheduled',
  'requested',
  'confirmed',
  'declined',
  'rescheduled',
  'cancelled',
  'reassigned',
  'reassignedAway',
  'seatAdded',
  'seatCancelled',
  'guestsAdded',
  'locationChanged',
] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** Hosts (organizer and co-hosts) and attendees are told different things. */
export type MailAudience = 'host' | 'attendee';

/** The system admin's decisions on a third-party OAuth client that its owner is told of. */
export type OAuthClientDecision = 'approved' | 'rejected';

/** Every text of svc's mail in one language. */
export interface MailTexts {
  /**
   * A subject starts with the table's own words, never with a placeholder: {title} and {name} are the
   * booker's text (a title is made from their name), which must not pass for what svc says.
   */
  kinds: Record<MailKind, Record<MailAudience, { subject: string; heading: string }>>;
  /** To the owner of a third-party OAuth client. Placeholders: {client}, {clientId}; {name} in `greeting`. */
  oauthClient: {
    greeting: string;
    greetingWithoutName: string;
    decisions: Record<OAuthClientDecision, { subject: string; body: string }>;
  };
  /**
   * To a user invited to a team or organization (their membership waits for their consent). Placeholders:
   * {team}, {inviter}, {role}, {link}, {acceptPath}, {declinePath}, {days}; {name} in `greeting`.
   */
  teamInvitation: {
    greeting: string;
    greetingWithoutName: string;
    subject: string;
    body: string;
  };
  /**
   * To a user whose connected calendar refused svc's credentials (once per breakage). Placeholders:
   * {calendar}, {app}; {name} in `greeting`.
   */
  calendarBroken: {
    greeting: string;
    greetingWithoutName: string;
    subject: string;
    body: string;
  };
  /**
   * To a booking's organizer when the app of its location could not make the meeting (svc keeps trying).
   * Placeholders: {app}, {connect}, {title}, {when}, {reason}, {uid}, {next} (`retrying` or `givenUp`); {name} in `greeting`.
   */
  meetingFailed: {
    greeting: string;
    greetingWithoutName: string;
    subject: string;
    body: string;
    retrying: string;
    givenUp: string;
  };
  labels: {
    what: string;
    when: string;
    who: string;
    where: string;
    description: string;
    reason: string;
    previously: string;
    organizer: string;
    guest: string;
    noLocation: string;
    manage: string;
    reschedule: string;
    cancel: string;
    confirmOrDecline: string;
    joinAsHost: string;
  };
}

/** One table per language (add one here to translate svc's mail); dates follow the full locale. */
const TABLES: Record<string, MailTexts> = { en };

/** The table of a locale (`pt-BR` falls back to `pt`, then to English). */
export function mailTexts(locale: string | null): MailTexts {
  const tag = (locale ?? 'en').toLowerCase();
  return TABLES[tag] ?? TABLES[tag.split(/[-_]/)[0]!] ?? en;
}

/** Fills `{name}` placeholders of a table's text; the values are plain text (escaped later where needed). */
export function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}
