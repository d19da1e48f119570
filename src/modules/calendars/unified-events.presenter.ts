import type { Static } from 'typebox';
import type { UnifiedEvent, UpdateUnifiedEventBody } from './unified-events.schemas.js';

type Output = Static<typeof UnifiedEvent>;
type EventStatus = NonNullable<Output['status']>;
type ResponseStatus = NonNullable<Output['hosts'][number]['responseStatus']>;
type Location = Output['locations'][number];
type GoogleEvent = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const record = (value: unknown): Record<string, unknown> => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const records = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.map(record) : []);
/** Leaves out keys whose value is undefined (optional output fields are absent, not null). */
const defined = <T extends Record<string, unknown>>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;

const STATUS_OF_GOOGLE: Record<string, EventStatus> = { confirmed: 'accepted', tentative: 'pending', cancelled: 'cancelled' };
const RESPONSE_OF_GOOGLE: Record<string, ResponseStatus> = { accepted: 'accepted', tentative: 'pending', declined: 'declined', needsAction: 'needsAction' };
const GOOGLE_STATUS: Record<EventStatus, string> = { accepted: 'confirmed', pending: 'tentative', declined: 'cancelled', cancelled: 'cancelled' };
const GOOGLE_RESPONSE: Record<ResponseStatus, string> = { accepted: 'accepted', pending: 'tentative', declined: 'declined', needsAction: 'needsAction' };

/** A start or end as an instant (UTC) and the zone it was set in; an all-day date starts at 00:00 UTC. */
function dateTimeOf(value: unknown, calendarZone: string): Output['start'] {
  const { dateTime, date, timeZone } = record(value);
  const zone = text(timeZone) ?? calendarZone;
  if (typeof dateTime === 'string' && !Number.isNaN(Date.parse(dateTime))) return { time: new Date(Date.parse(dateTime)).toISOString(), timeZone: zone };
  if (typeof date === 'string') return { time: `${date}T00:00:00.000Z`, timeZone: zone };
  return { time: new Date(0).toISOString(), timeZone: zone };
}

/** Conference entry points first; else the Meet link; else a location that is a web address. */
function locationsOf(event: GoogleEvent): Location[] {
  const points = records(record(event.conferenceData).entryPoints);
  const fromPoints = points.flatMap((point): Location[] => {
    const type = text(point.entryPointType);
    const url = text(point.uri);
    if (!url || (type !== 'video' && type !== 'phone' && type !== 'sip' && type !== 'more')) return [];
    return [defined({ type, url, label: text(point.label), pin: text(point.pin), password: text(point.password) ?? text(point.passcode), meetingCode: text(point.meetingCode), accessCode: text(point.accessCode), regionCode: text(point.regionCode) })];
  });
  if (fromPoints.length > 0) return fromPoints;
  const meet = text(event.hangoutLink);
  if (meet) return [{ type: 'video', url: meet }];
  const place = text(event.location);
  return place && /^https?:\/\//i.test(place) ? [{ type: 'video', url: place }] : [];
}

/** A Google Calendar event in the reference's unified shape (`calendarZone`: the calendar's zone, for events without their own). */
export function presentGoogleEvent(event: GoogleEvent, calendarZone: string): Output {
  const attendees = records(event.attendees);
  const organizer = record(event.organizer);
  const response = (value: unknown) => RESPONSE_OF_GOOGLE[String(value)] ?? null;
  const hosts = attendees.filter((attendee) => attendee.organizer === true);
  const ownerEmail = text(organizer.email);
  return {
    start: dateTimeOf(event.start, calendarZone),
    end: dateTimeOf(event.end, calendarZone),
    id: String(event.id ?? ''),
    title: text(event.summary) ?? '',
    description: text(event.description) ?? null,
    locations: locationsOf(event),
    attendees: attendees.map((attendee) =>
      defined({
        email: String(attendee.email ?? ''),
        name: text(attendee.displayName),
        responseStatus: response(attendee.responseStatus),
        self: attendee.self === true ? true : undefined,
        optional: attendee.optional === true ? true : undefined,
        host: attendee.organizer === true ? true : undefined,
      }),
    ),
    status: STATUS_OF_GOOGLE[String(event.status)] ?? null,
    hosts: (hosts.length > 0 ? hosts : ownerEmail ? [{ email: ownerEmail, displayName: organizer.displayName, responseStatus: 'accepted' }] : []).map((host) =>
      defined({ email: String(host.email ?? ''), name: text(host.displayName), responseStatus: response(host.responseStatus) }),
    ),
    ...(ownerEmail ? { calendarEventOwner: defined({ email: ownerEmail, name: text(organizer.displayName) }) } : {}),
    source: 'google',
  };
}

/**
 * The update as Google's events.patch fields. A start or end given without a zone keeps the event's
 * (`current`); attendees replace the list whole.
 */
export function googlePatchOf(update: Static<typeof UpdateUnifiedEventBody>, current: GoogleEvent): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const moved = (given: { time?: string | undefined; timeZone?: string | undefined } | undefined, now: unknown) => {
    if (!given) return undefined;
    const stored = record(now);
    const timeZone = given.timeZone ?? text(stored.timeZone);
    return defined({ dateTime: given.time ?? text(stored.dateTime), timeZone });
  };
  if (update.title !== undefined) fields.summary = update.title;
  if (update.description !== undefined) fields.description = update.description ?? '';
  const start = moved(update.start, current.start);
  const end = moved(update.end, current.end);
  if (start) fields.start = start;
  if (end) fields.end = end;
  if (update.attendees !== undefined) {
    fields.attendees = update.attendees.map((attendee) =>
      defined({
        email: attendee.email,
        displayName: attendee.name,
        responseStatus: attendee.responseStatus ? GOOGLE_RESPONSE[attendee.responseStatus] : undefined,
        optional: attendee.optional ?? undefined,
      }),
    );
  }
  if (update.status) fields.status = GOOGLE_STATUS[update.status];
  return fields;
}
