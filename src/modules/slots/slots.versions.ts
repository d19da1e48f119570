import type { Static } from 'typebox';
import { pickVariant, type ApiVersion, type VersionTable } from '../../http/api-version.js';
import { badRequest, invalidField } from '../../lib/errors.js';
import { dateOfDayNumber, dayNumber, utcTime, zonedToEpoch } from '../../scheduling/zones.js';
import type { ReservationView, ReserveSlotInput } from './slot-reservations.service.js';
import { formatInstant, presentSlots, type SlotPresentation } from './slots.presenter.js';
import { MAX_WINDOW_DAYS, type ReserveSlotBody_2024_09_04, type SlotsQuery_2024_09_04 } from './slots.schemas.js';
import type { ListSlotsInput } from './slot-listing.service.js';
import type { SlotTarget } from './slots.service.js';

type SlotsQuery = Static<typeof SlotsQuery_2024_09_04>;
type ReserveBody = Static<typeof ReserveSlotBody_2024_09_04>;

const DAY = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

function isRealDate(year: number, month: number, day: number): boolean {
  const date = dateOfDayNumber(dayNumber({ year, month, day }));
  return date.year === year && date.month === month && date.day === day;
}

function offsetMinutesOf(designator: string): number {
  if (designator.toUpperCase() === 'Z') return 0;
  const sign = designator.startsWith('-') ? -1 : 1;
  const digits = designator.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
}

/**
 * A window bound: a bare date is local midnight in `zone` (for `end`, the end of that day), a
 * date-time with an offset is that instant, one without is wall-clock time in `zone`. Returns the
 * instant as an exclusive bound for `end`.
 */
export function parseWindowBound(text: string, zone: string, field: 'start' | 'end'): number {
  const date = DATE.exec(text);
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    if (!isRealDate(year, month, day)) throw invalidField(field, 'must be a real calendar date', text);
    return zonedToEpoch(zone, year, month, day, field === 'end' ? 1440 : 0);
  }
  const time = DATE_TIME.exec(text);
  if (!time) throw invalidField(field, 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time', text);
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((index) => Number(time[index] ?? 0)) as [number, number, number, number, number, number];
  if (!isRealDate(year, month, day) || hour > 23 || minute > 59 || second > 59) throw invalidField(field, 'must be a valid date-time', text);
  const millis = Number((time[7] ?? '').padEnd(3, '0').slice(0, 3)) + second * 1000;
  const instant = time[8]
    ? utcTime(year, month - 1, day, hour, minute) - offsetMinutesOf(time[8]) * 60_000 + millis
    : zonedToEpoch(zone, year, month, day, hour * 60 + minute) + millis;
  return field === 'end' ? instant + 1 : instant;
}

/** Which event type the query names, in the reference's order of precedence; null when only a private link names it. */
function targetOf(query: SlotsQuery): SlotTarget | null {
  if (query.eventTypeId !== undefined) return { kind: 'eventTypeId', eventTypeId: query.eventTypeId };
  if (query.eventTypeSlug !== undefined) {
    if (query.username !== undefined) return { kind: 'userEventType', username: query.username, eventTypeSlug: query.eventTypeSlug, organizationSlug: query.organizationSlug };
    if (query.teamSlug !== undefined) return { kind: 'teamEventType', teamSlug: query.teamSlug, eventTypeSlug: query.eventTypeSlug, organizationSlug: query.organizationSlug };
    throw invalidField('username', 'or teamSlug is required with eventTypeSlug');
  }
  if (query.usernames !== undefined) {
    const usernames = [...new Set(query.usernames.split(',').map((name) => name.trim()).filter(Boolean))];
    if (usernames.length < 2) throw invalidField('usernames', 'must name at least 2 different users (comma-separated)', query.usernames);
    return { kind: 'dynamic', usernames, organizationSlug: query.organizationSlug };
  }
  if (query.privateLinkId !== undefined) return null;
  throw invalidField('eventTypeId', 'is required, unless eventTypeSlug with username (or teamSlug), usernames, or privateLinkId names the event type');
}

function formatOf(query: SlotsQuery): SlotPresentation['format'] {
  const format = (query.format ?? 'time').toLowerCase();
  if (format === '' || format === 'time') return 'time';
  if (format === 'range') return 'range';
  throw invalidField('format', "must be either 'range' or 'time'", query.format);
}

function toListInput(query: SlotsQuery): { input: ListSlotsInput; presentation: SlotPresentation } {
  const zone = query.timeZone ?? 'UTC';
  const target = targetOf(query);
  const from = parseWindowBound(query.start, zone, 'start');
  const to = parseWindowBound(query.end, zone, 'end');
  if (to <= from) {
    throw badRequest('invalid_time_range', "Invalid time range given - check the 'start' and 'end' query parameters.", {
      errors: [{ property: 'end', value: query.end, constraints: { end: 'end must not be before start' } }],
    });
  }
  if (to - from > MAX_WINDOW_DAYS * DAY + 1) throw invalidField('end', `must be at most ${MAX_WINDOW_DAYS} days after start`, query.end);
  return {
    input: { target, privateLinkId: query.privateLinkId, from, to, duration: query.duration, bookingUidToReschedule: query.bookingUidToReschedule },
    presentation: { timeZone: query.timeZone ?? null, format: formatOf(query) },
  };
}

function toReserveInput(body: ReserveBody): ReserveSlotInput {
  return {
    eventTypeId: body.eventTypeId,
    slotStart: Date.parse(body.slotStart),
    slotDuration: body.slotDuration,
    reservationDuration: body.reservationDuration,
  };
}

function presentReservedSlot(view: ReservationView) {
  return {
    eventTypeId: view.eventTypeId,
    slotStart: formatInstant(view.slotStart, null),
    slotEnd: formatInstant(view.slotEnd, null),
    slotDuration: view.slotDuration,
    reservationUid: view.uid,
    reservationUntil: formatInstant(view.reservedUntil, null),
  };
}

function presentReservation(view: ReservationView) {
  const { reservationUntil, ...rest } = presentReservedSlot(view);
  return { ...rest, reservationDuration: view.reservationDuration, reservationUntil };
}

const v2024_09_04 = { toListInput, presentSlots, toReserveInput, presentReservation, presentReservedSlot };

/**
 * Slots and reservations take the 2024-09-04 shapes. The reference answers header-less calls with its
 * retired 2024-04-15 slot routes (other paths and bodies); svc serves the 2024-09-04 shapes to every
 * version instead, as it does for schedules and event types.
 */
export const slotVersions: VersionTable<typeof v2024_09_04> = { variants: { '2024-09-04': v2024_09_04 }, fallback: v2024_09_04 };

export function slotVariant(version: ApiVersion) {
  return pickVariant(slotVersions, version)!;
}
