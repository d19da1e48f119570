import type { Db } from '../../../db/client.js';
import { badRequest, fieldRejected, forbidden, invalidField, notFound } from '../../../lib/errors.js';
import { guestsDisabled } from '../../event-types/booking-fields.js';
import { findEventTypeById } from '../../event-types/event-types.repository.js';
import { setAttendeesAbsent } from './booking-details.repository.js';
import { type BookingEventScope, recordBookingChange, recordBookingEvent } from '../booking-events.js';
import * as repo from '../bookings.repository.js';
import { listMeetingsOfBooking } from '../../conferencing/booking-meetings.repository.js';
import type { BookingRecord, BookingRow } from '../bookings.repository.js';
import { MAX_GUESTS_PER_BOOKING } from '../create/booking-responses.js';
import { isBookingAttendee as isAttendee, isBookingOrganizer as isOrganizer } from '../../access/resource-policy.js';
import { type CalendarLink, calendarLinks } from './calendar-links.js';

/** The signed-in user acting on a booking. */
export interface Caller {
  id: number;
  /** The address attendee rights follow: the user's verified email, never an unverified one. */
  attendeeEmail: string | null;
}

const MAX_GUESTS_PER_REQUEST = 10;
const E164 = /^\+[1-9]\d{6,14}$/;
const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/i;

const missing = (uid: string) => notFound('booking_not_found', `Booking with uid=${uid} was not found in the database`);
const isClosed = (booking: BookingRow) => booking.status === 'cancelled' || booking.status === 'rejected';

async function recordOf(db: Db, uid: string, lock: boolean): Promise<BookingRecord> {
  // Writers lock the row: two changes to one booking (e.g. guests added twice at once) apply in turn.
  const row = lock ? await repo.lockBookingByUid(db, uid) : await repo.findBookingByUid(db, uid);
  if (!row) throw missing(uid);
  const [record] = await repo.loadRecords(db, [row]);
  return record!;
}

async function reload(db: Db, booking: BookingRow): Promise<BookingRecord> {
  const row = await repo.findBookingByUid(db, booking.uid);
  const [record] = await repo.loadRecords(db, [row!]);
  return record!;
}

export interface MarkAbsentInput {
  host?: boolean | undefined;
  attendees?: { email: string; absent: boolean }[] | undefined;
}

function noShowMessage(host: boolean | undefined, changes: { email: string; noShow: boolean }[]): string {
  const parts: string[] = [];
  if (host !== undefined) parts.push(host ? 'Host marked as no-show' : 'Host no longer marked as no-show');
  const absent = changes.filter((change) => change.noShow).map((change) => change.email);
  const present = changes.filter((change) => !change.noShow).map((change) => change.email);
  if (absent.length > 0) parts.push(`${absent.join(', ')} marked as no-show`);
  if (present.length > 0) parts.push(`${present.join(', ')} no longer marked as no-show`);
  return parts.join('; ');
}

/** Marks the host and/or attendees absent (or present again) once the booking has started. */
export async function markAbsent(scope: BookingEventScope, caller: Caller, uid: string, input: MarkAbsentInput, now: number): Promise<BookingRecord> {
  const { tx, listener } = scope;
  const record = await recordOf(tx, uid, true);
  const { booking } = record;
  if (!isOrganizer(booking, caller.id)) throw forbidden('not_booking_organizer', 'You are not allowed to access this booking');
  if (isClosed(booking)) throw badRequest('booking_not_active', `Absences cannot be marked on a ${booking.status} booking.`);
  if (now < booking.startAt.getTime()) {
    throw badRequest(
      'booking_not_started',
      `Bookings can only be marked as absent after their scheduled start time. Current time in UTC+0: ${new Date(now).toISOString()}, Booking start time in UTC+0: ${booking.startAt.toISOString()}`,
    );
  }
  const byEmail = new Map(record.attendees.map((attendee) => [attendee.email.toLowerCase(), attendee]));
  const changes = (input.attendees ?? []).map((entry, index) => {
    const attendee = byEmail.get(entry.email.toLowerCase());
    if (!attendee) throw invalidField(`attendees.${index}.email`, 'is not an attendee of this booking', entry.email);
    return { attendee, absent: entry.absent };
  });
  if (input.host === undefined && changes.length === 0) return record;

  for (const absent of [true, false]) {
    const ids = changes.filter((change) => change.absent === absent).map((change) => change.attendee.id);
    await setAttendeesAbsent(tx, booking.id, ids, absent);
  }
  if (input.host !== undefined) await repo.updateBooking(tx, booking.id, { absentHost: input.host });
  const updated = await reload(tx, booking);
  const attendees = changes.map((change) => ({ email: change.attendee.email, noShow: change.absent }));
  await recordBookingEvent({ tx, listener }, 'BOOKING_NO_SHOW_UPDATED', updated, { message: noShowMessage(input.host, attendees), attendees });
  return updated;
}

export interface NewGuest {
  email: string;
  name?: string | undefined;
  timeZone?: string | undefined;
  phoneNumber?: string | undefined;
  language?: string | undefined;
}

async function assertGuestsAllowed(tx: Db, record: BookingRecord): Promise<void> {
  const { booking } = record;
  if (isClosed(booking)) throw fieldRejected('guests', 'booking_not_active', `Guests cannot be added to a ${booking.status} booking.`);
  if (record.seating) throw fieldRejected('guests', 'seated_booking', 'Guests cannot be added to a seated booking: each attendee books their own seat.');
  if (booking.eventTypeId === null) return;
  const eventType = await findEventTypeById(tx, booking.eventTypeId);
  if (eventType && guestsDisabled(eventType.bookingFields)) {
    throw fieldRejected(
      'guests',
      'guests_disabled',
      `Cannot add guests to this booking. The guests field is disabled for event type "${eventType.title}" (ID: ${eventType.id}). Please contact the event organizer to enable guest additions.`,
    );
  }
}

/** Adds guests (as attendees and to the `guests` answer); emails already attending are skipped. */
export async function addGuests(scope: BookingEventScope, caller: Caller, uid: string, guests: NewGuest[]): Promise<BookingRecord> {
  const { tx } = scope;
  if (guests.length > MAX_GUESTS_PER_REQUEST) throw fieldRejected('guests', 'too_many_guests', 'Cannot add more than 10 guests at a time', guests.length);
  const record = await recordOf(tx, uid, true);
  const { booking, attendees } = record;
  if (!isOrganizer(booking, caller.id) && !isAttendee(record, caller.attendeeEmail)) {
    throw forbidden('not_booking_participant', "You don't have necessary permissions to access this resource");
  }
  await assertGuestsAllowed(tx, record);
  const taken = new Set(attendees.map((attendee) => attendee.email.toLowerCase()));
  const fresh = guests.filter((guest) => {
    const email = guest.email.toLowerCase();
    if (taken.has(email)) return false;
    taken.add(email);
    return true;
  });
  if (fresh.length === 0) throw fieldRejected('guests', 'no_new_guests', 'guests must be new, valid and unique emails', guests.map((guest) => guest.email));
  const present = attendees.filter((attendee) => attendee.isGuest).length;
  if (present + fresh.length > MAX_GUESTS_PER_BOOKING) {
    const room = Math.max(0, MAX_GUESTS_PER_BOOKING - present);
    throw fieldRejected(
      'guests',
      'too_many_attendees',
      `Cannot add ${fresh.length} guests. This booking already has ${present} guests. Maximum total guests allowed is ${MAX_GUESTS_PER_BOOKING}. You can add up to ${room} more guests.`,
      guests.map((guest) => guest.email),
    );
  }

  const bookerTimeZone = attendees.find((attendee) => !attendee.isGuest)?.timeZone ?? record.host.timeZone;
  await repo.insertAttendees(
    tx,
    fresh.map((guest) => ({
      bookingId: booking.id,
      name: guest.name ?? guest.email,
      email: guest.email,
      timeZone: guest.timeZone ?? bookerTimeZone,
      locale: guest.language ?? null,
      phoneNumber: guest.phoneNumber ?? null,
      isGuest: true,
    })),
  );
  const listed = Array.isArray(booking.responses.guests) ? (booking.responses.guests as string[]) : [];
  await repo.updateBooking(tx, booking.id, { responses: { ...booking.responses, guests: [...listed, ...fresh.map((guest) => guest.email)] } });
  const updated = await reload(tx, booking);
  await recordBookingChange(scope, 'guestsAdded', updated);
  return updated;
}

export const LOCATION_UPDATE_TYPES = ['address', 'link', 'phone', 'attendeeAddress', 'attendeePhone', 'attendeeDefined'] as const;
type LocationUpdateType = (typeof LOCATION_UPDATE_TYPES)[number];

export interface LocationUpdate {
  type: string;
  address?: string | undefined;
  link?: string | undefined;
  phone?: string | undefined;
  location?: string | undefined;
}

const LOCATION_KEY: Record<LocationUpdateType, 'address' | 'link' | 'phone' | 'location'> = {
  address: 'address',
  link: 'link',
  phone: 'phone',
  attendeeAddress: 'address',
  attendeePhone: 'phone',
  attendeeDefined: 'location',
};

/** The kind and the text of a new location, each kind's value checked. */
export function parseLocationUpdate(update: LocationUpdate): { type: LocationUpdateType; value: string } {
  if (!(LOCATION_UPDATE_TYPES as readonly string[]).includes(update.type)) {
    throw fieldRejected(
      'location.type',
      'unsupported_location_type',
      `Unsupported booking location type '${update.type}'. Valid types are address, link, phone, attendeePhone, attendeeAddress, and attendeeDefined.`,
      update.type,
    );
  }
  const type = update.type as LocationUpdateType;
  const key = LOCATION_KEY[type];
  const property = `location.${key}`;
  const value = update[key]?.trim();
  if (!value) throw invalidField(property, `is required for a location of type ${type}`, update[key]);
  if (key === 'link' && !HTTP_URL.test(value)) throw invalidField(property, 'must be an http(s) URL', update[key]);
  if (key === 'phone' && !E164.test(value)) throw invalidField(property, 'must be a phone number in international (E.164) format, e.g. +37120993151', update[key]);
  return { type, value };
}

/** Changes where the booking happens (its `location` text and the `location` answer); no body: unchanged. */
export async function updateLocation(scope: BookingEventScope, caller: Caller, uid: string, update: LocationUpdate | undefined): Promise<BookingRecord> {
  const { tx } = scope;
  const parsed = update ? parseLocationUpdate(update) : null;
  const record = await recordOf(tx, uid, true);
  const { booking } = record;
  if (!isOrganizer(booking, caller.id)) {
    throw forbidden(
      'not_booking_organizer',
      'User is not authorized to update this booking location. User must be the event type owner, host, team admin or owner, or org admin or owner.',
    );
  }
  if (!parsed) return record;
  // The booking leaves its built-in video room, if it had one.
  const { videoCallUrl, ...metadata } = booking.metadata;
  await repo.updateBooking(tx, booking.id, {
    location: parsed.value,
    responses: { ...booking.responses, location: { value: parsed.type, optionValue: parsed.value } },
    ...(videoCallUrl === undefined ? {} : { metadata }),
  });
  const updated = await reload(tx, booking);
  await recordBookingChange(scope, 'locationChanged', updated);
  return updated;
}

/** A seated booking's attendees are its seats: other seat holders are only listed where the booking shows them. */
function visibleAttendees(record: BookingRecord, caller: Caller) {
  if (!record.seating || record.seating.showAttendees || isOrganizer(record.booking, caller.id)) return record.attendees;
  const own = caller.attendeeEmail?.toLowerCase();
  return record.attendees.filter((attendee) => attendee.email.toLowerCase() === own);
}

/** "Add to calendar" links for the booking's organizer and attendees. */
export async function bookingCalendarLinks(db: Db, caller: Caller, uid: string): Promise<CalendarLink[]> {
  const record = await recordOf(db, uid, false);
  const { booking, host } = record;
  if (!isOrganizer(booking, caller.id) && !isAttendee(record, caller.attendeeEmail)) throw forbidden('not_booking_participant', 'You are not allowed to access this booking');
  return calendarLinks({
    icsUid: booking.icsUid,
    revisedAt: booking.updatedAt,
    start: booking.startAt,
    end: booking.endAt,
    title: booking.title,
    description: booking.description,
    // `integrations:<app>` names a conferencing app, not a place (bookings made before svc-video rooms kept it).
    location: booking.location && !booking.location.startsWith('integrations:') ? booking.location : null,
    status: booking.status,
    organizer: { name: host.name ?? host.username ?? host.email, email: host.email },
    attendees: visibleAttendees(record, caller).map((attendee) => ({ name: attendee.name, email: attendee.email })),
  });
}

export const REFERENCE_TYPES = ['google_calendar', 'office365_calendar', 'apple_calendar', 'caldav_calendar', 'daily_video', 'google_video', 'office365_video', 'zoom_video'] as const;

export interface BookingReference {
  id: number;
  type: string;
  eventUid: string;
  destinationCalendarId: string | null;
}

/**
 * The calendar events and provider meetings svc made for a booking, as the reference lists its booking
 * references: the id at the provider (a CalDAV event's is its iCalendar UID) and the calendar, if any.
 */
export async function referencesOfBooking(db: Db, bookingId: number, type?: string): Promise<BookingReference[]> {
  const events = await repo.listCalendarEventsOfBooking(db, bookingId);
  const meetings = await listMeetingsOfBooking(db, bookingId);
  const references = [
    ...events.map((event) => ({
      id: event.id,
      type: event.type,
      eventUid: event.type === 'apple_calendar' || event.type === 'caldav_calendar' ? event.icsUid : event.eventId,
      destinationCalendarId: event.calendarExternalId,
    })),
    // A provider's meeting: its id at the provider, in no calendar.
    ...meetings.map((meeting) => ({ id: meeting.id, type: meeting.type, eventUid: meeting.externalId, destinationCalendarId: null })),
  ];
  return references.filter((reference) => type === undefined || reference.type === type).sort((a, b) => a.id - b.id);
}

/** The booking's references, for its organizer (the reference's check). */
export async function bookingReferences(db: Db, caller: Caller, uid: string, type?: string): Promise<BookingReference[]> {
  const record = await recordOf(db, uid, false);
  if (!isOrganizer(record.booking, caller.id)) throw forbidden('not_booking_organizer', `Booking with uid ${uid} does not belong to user`);
  return referencesOfBooking(db, record.booking.id, type);
}
