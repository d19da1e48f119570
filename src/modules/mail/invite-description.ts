// The description of a booking's calendar invitation (spec 2.9): per audience, the event type's custom
// template or explicit standard, else the organization default, else the standard description.
import type { OrganizationCalendarInvites } from '../../db/schema/teams.js';
import { sanitizeTemplate } from '../calendar-invites/sanitize-template.js';
import type { CalendarInvites, StoredBookingField } from '../event-types/event-type-model.js';

export type InviteAudience = 'host' | 'guest';

function storedTemplate(audience: InviteAudience, eventType: CalendarInvites | null, organization: OrganizationCalendarInvites | null): string | null {
  const own = eventType?.[audience];
  if (own?.mode === 'custom' && own.template) return own.template;
  if (own?.mode === 'standard') return null;
  const fallback = organization?.[audience];
  return fallback?.mode === 'custom' && fallback.template ? fallback.template : null;
}

/**
 * The template an audience's description is made from; null: the standard description. Sanitized
 * again, as a template may have been stored by an earlier, laxer sanitizer.
 */
export function resolveInviteTemplate(audience: InviteAudience, eventType: CalendarInvites | null, organization: OrganizationCalendarInvites | null): string | null {
  const template = storedTemplate(audience, eventType, organization);
  return template === null ? null : sanitizeTemplate(template) || null;
}

/** What the placeholders of a template stand for. */
export interface InviteValues {
  title: string;
  eventTypeTitle: string;
  location: string;
  attendeeName: string;
  organizerName: string;
  durationMinutes: number;
  manageLink: string;
  /** The booking-form answers by field slug. */
  responses: Record<string, unknown>;
  bookingFields: StoredBookingField[];
}

const splitName = (name: string) => {
  const parts = name.trim().split(/\s+/);
  return { first: parts[0] ?? '', last: parts.length > 1 ? parts.slice(1).join(' ') : '' };
};

/** Every spelling of the variables table, by meaning. */
function variables(values: InviteValues): Map<string, string> {
  const attendee = splitName(values.attendeeName);
  const organizer = splitName(values.organizerName);
  const groups: [string[], string][] = [
    [['Location', 'LOCATION'], values.location],
    [['Link title', 'LINK_TITLE', 'Event type title', 'EVENT_TYPE_TITLE'], values.eventTypeTitle],
    [['Scheduler', 'USER', 'ATTENDEE'], values.attendeeName],
    [['Scheduler first name', 'ATTENDEE_FIRST_NAME'], attendee.first],
    [['Scheduler last name', 'ATTENDEE_LAST_NAME'], attendee.last],
    [['Organiser', 'HOST', 'ORGANIZER_NAME'], values.organizerName],
    [['Organiser first name', 'ORGANIZER_FIRST_NAME'], organizer.first],
    [['Event duration', 'EVENT_DURATION'], `${values.durationMinutes} min`],
    [['MANAGE_LINK'], values.manageLink],
  ];
  return new Map(groups.flatMap(([spellings, value]) => spellings.map((spelling) => [spelling, value] as const)));
}

/** An answer as text: a list joined, a location by its value, a yes/no by its word. */
export function answerText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(answerText).filter(Boolean).join(', ');
  if (typeof value === 'object') {
    const { optionValue, value: inner } = value as { optionValue?: unknown; value?: unknown };
    return answerText(optionValue || inner);
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return String(value);
}

/** Fields a guest's description leaves out (and does not resolve): those marked hidden. */
const hiddenSlugs = (fields: StoredBookingField[]) => new Set(fields.filter((field) => field.hidden).map((field) => field.slug.toLowerCase()));

/**
 * A template with its placeholders filled. Booking fields match by slug, case-insensitively; a hidden
 * field's placeholder is emptied in a guest's description. Unknown placeholders stay as written.
 */
export function renderInviteTemplate(template: string, values: InviteValues, audience: InviteAudience): string {
  const named = variables(values);
  const hidden = audience === 'guest' ? hiddenSlugs(values.bookingFields) : new Set<string>();
  const answers = new Map(Object.entries(values.responses).map(([slug, answer]) => [slug.toLowerCase(), answer]));
  return template.replace(/\{([^{}\n]{1,100})\}/g, (whole, name: string) => {
    const variable = named.get(name);
    if (variable !== undefined) return variable;
    const slug = name.toLowerCase();
    if (hidden.has(slug)) return '';
    return answers.has(slug) ? answerText(answers.get(slug)) : whole;
  });
}

/** Answers the standard description lists apart from name, email and the rest it shows already. */
const SHOWN_ELSEWHERE = new Set(['name', 'email', 'location', 'guests', 'notes', 'rescheduleReason', 'attendeePhoneNumber']);

/** The standard description: what, who, where, notes, the other answers (hidden ones for hosts only), the manage link. */
export function standardDescription(values: InviteValues & { description: string; people: string[] }, audience: InviteAudience): string {
  const hidden = audience === 'guest' ? hiddenSlugs(values.bookingFields) : new Set<string>();
  const labels = new Map(values.bookingFields.map((field) => [field.slug, field.label || field.slug]));
  const lines = [`${values.title}`, '', `Who: ${values.people.join(', ')}`, `Where: ${values.location || '-'}`];
  if (values.description) lines.push('', `Additional notes: ${values.description}`);
  for (const [slug, answer] of Object.entries(values.responses)) {
    if (SHOWN_ELSEWHERE.has(slug) || hidden.has(slug.toLowerCase())) continue;
    const text = answerText(answer);
    if (text) lines.push(`${labels.get(slug) ?? slug}: ${text}`);
  }
  lines.push('', `Manage this booking: ${values.manageLink}`);
  return lines.join('\n');
}
