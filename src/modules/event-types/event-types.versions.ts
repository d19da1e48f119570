import type { Static } from 'typebox';
import { pickVariant, type ApiVersion, type VersionTable } from '../../http/api-version.js';
import { invalidField } from '../../lib/errors.js';
import { parseBookingFields } from './booking-fields.js';
import {
  parseBookerActiveBookingsLimit,
  parseBookingWindow,
  parseConfirmationPolicy,
  parseIntervalLimits,
  parseRecurrence,
  parseSeats,
} from './event-type-limits.js';
import { emptiedInviteAudiences, parseCalendarInvites, parseSettings } from './event-type-settings.js';
import type { CreateEventTypeBody_2024_06_14, UpdateEventTypeBody_2024_06_14 } from './event-types.schemas.js';
import { presentDeletedEventType, presentEventType, presentEventTypeInList } from './event-types.presenter.js';
import type { CreateEventTypeInput, EventTypeChanges } from './event-type-changes.js';
import { parseLocations } from './locations.js';
import { parseRefundPolicy } from '../payments/event-type-prices.js';

type CreateBody = Static<typeof CreateEventTypeBody_2024_06_14>;
type UpdateBody = Static<typeof UpdateEventTypeBody_2024_06_14>;

interface EventTypeVariant {
  /** Whether `calendarInvites` is part of the body; where it is not, it is dropped before validation, like any unknown property. */
  acceptsCalendarInvites: boolean;
  toCreateInput(body: CreateBody): CreateEventTypeInput;
  toUpdateInput(body: UpdateBody): EventTypeChanges;
  present: typeof presentEventType;
  presentInList: typeof presentEventTypeInList;
  presentDeleted: typeof presentDeletedEventType;
}

/** The reference's lenient slug: lower case, and every run of other characters than a-z and 0-9 becomes one "-". */
export function normalizeSlug(slug: string): string {
  const normalized = slug.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  if (!normalized) throw invalidField('slug', 'must contain a letter or a digit', slug);
  return normalized;
}

/** Wire -> internal for the 2024-06-14 body; every field is parsed once here, the service sees only stored forms. */
export function toChanges(body: UpdateBody, withCalendarInvites: boolean): EventTypeChanges {
  const {
    slug, locations, bookingFields, bookingLimitsCount, bookingLimitsDuration, bookerActiveBookingsLimit, bookingWindow,
    confirmationPolicy, recurrence, seats, calendarInvites, destinationCalendar,
    title, description, lengthInMinutes, lengthInMinutesOptions, slotInterval, minimumBookingNotice, beforeEventBuffer,
    afterEventBuffer, offsetStart, scheduleId, hidden, onlyShowFirstAvailableSlot, showOptimizedSlots,
    bookingRequiresAuthentication, disableGuests, price, currency, refundPolicy, ...settings
  } = body;
  return {
    title, description, lengthInMinutes, lengthInMinutesOptions, slotInterval, minimumBookingNotice, beforeEventBuffer,
    afterEventBuffer, offsetStart, scheduleId, hidden, onlyShowFirstAvailableSlot, showOptimizedSlots,
    bookingRequiresAuthentication, disableGuests, destinationCalendar, price,
    currency: currency?.toLowerCase(),
    refundPolicy: refundPolicy === undefined ? undefined : parseRefundPolicy(refundPolicy),
    slug: slug === undefined ? undefined : normalizeSlug(slug),
    locations: locations && parseLocations(locations),
    bookingFields: bookingFields && parseBookingFields(bookingFields),
    bookingLimitsCount: bookingLimitsCount && parseIntervalLimits(bookingLimitsCount, 'bookingLimitsCount'),
    bookingLimitsDuration: bookingLimitsDuration && parseIntervalLimits(bookingLimitsDuration, 'bookingLimitsDuration'),
    bookerActiveBookingsLimit: bookerActiveBookingsLimit && parseBookerActiveBookingsLimit(bookerActiveBookingsLimit),
    bookingWindow: bookingWindow && parseBookingWindow(bookingWindow),
    confirmationPolicy: confirmationPolicy && parseConfirmationPolicy(confirmationPolicy),
    recurrence: recurrence && parseRecurrence(recurrence),
    seats: seats && parseSeats(seats),
    settings: parseSettings(settings),
    ...(withCalendarInvites && calendarInvites ? invitesOf(calendarInvites) : {}),
  };
}

/** `calendarInvites` as stored, and which audiences sanitization emptied (they are settled once written). */
function invitesOf(sent: NonNullable<UpdateBody['calendarInvites']>): Pick<EventTypeChanges, 'calendarInvites' | 'emptiedCalendarInvites'> {
  const calendarInvites = parseCalendarInvites(sent);
  return { calendarInvites, emptiedCalendarInvites: emptiedInviteAudiences(sent, calendarInvites) };
}

function variant(acceptsCalendarInvites: boolean): EventTypeVariant {
  return {
    acceptsCalendarInvites,
    toCreateInput: (body) => {
      const changes = toChanges(body, acceptsCalendarInvites);
      return { ...changes, title: body.title, slug: changes.slug ?? normalizeSlug(body.slug), lengthInMinutes: body.lengthInMinutes };
    },
    toUpdateInput: (body) => toChanges(body, acceptsCalendarInvites),
    present: presentEventType,
    presentInList: presentEventTypeInList,
    presentDeleted: presentDeletedEventType,
  };
}

const v2024_06_14 = variant(true);

/**
 * Event types take the 2024-06-14 shape; 2026-06-12 (the calendar-invites version) sends the same body
 * and may also carry `calendarInvites`.
 *
 * Without the header, or with any other value, the reference routes the call to its deprecated
 * 2024-04-15 event-type controller (contract 1.1), whose bodies (`length`, `locations` as internal
 * strings...) it no longer documents. svc does not reproduce that controller: such a call is served
 * with the same documented 2024-06-14 shapes (as schedules do), except that `calendarInvites` is
 * dropped like any unknown property, since the spec accepts it only with 2024-06-14 or 2026-06-12.
 */
export const eventTypeVersions: VersionTable<EventTypeVariant> = {
  variants: { '2024-06-14': v2024_06_14, '2026-06-12': v2024_06_14 },
  fallback: variant(false),
};

export function eventTypeVariant(version: ApiVersion): EventTypeVariant {
  return pickVariant(eventTypeVersions, version)!;
}
