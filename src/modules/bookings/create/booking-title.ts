export interface TitleParts {
  eventTypeTitle: string;
  customName: string | null;
  organizerName: string;
  attendeeName: string;
  location: string;
  durationMinutes: number;
}

const firstName = (name: string) => name.trim().split(/\s+/)[0] ?? '';
const lastName = (name: string) => name.trim().split(/\s+/).slice(1).join(' ');

/**
 * The booking's title: "{Event type title} between {Organiser} and {Scheduler}", or the event type's
 * `customName` template with its variables (matched case-insensitively) filled in.
 */
export function bookingTitle(parts: TitleParts): string {
  const { eventTypeTitle, customName, organizerName, attendeeName, location, durationMinutes } = parts;
  if (!customName) return `${eventTypeTitle} between ${organizerName} and ${attendeeName}`;
  const values: Record<string, string> = {
    'event type title': eventTypeTitle,
    organiser: organizerName,
    host: organizerName,
    'organiser first name': firstName(organizerName),
    scheduler: attendeeName,
    attendee: attendeeName,
    user: attendeeName,
    'scheduler first name': firstName(attendeeName),
    'scheduler last name': lastName(attendeeName),
    location,
    'event duration': `${durationMinutes} mins`,
    'host/attendee': `${organizerName} and ${attendeeName}`,
  };
  return customName.replace(/\{([^}]+)\}/g, (match, name: string) => values[name.toLowerCase()] ?? match);
}
