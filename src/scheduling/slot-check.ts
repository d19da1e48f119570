import { fixedWindowBounds } from './booking-window.js';
import type { Slot, SlotQuery } from './slot-query.js';
import { computeSlots } from './slots.js';
import { localDayNumber, startOfDayNumber } from './zones.js';

const MINUTE = 60_000;

/**
 * The slot starting exactly at `start`, or null. It is the very computation `computeSlots` lists
 * (over the start's whole local date), so a start is bookable exactly when it is listed.
 */
export function findSlot(query: SlotQuery, start: number): Slot | null {
  const zone = query.organizerTimeZone;
  const dayNo = localDayNumber(zone, start);
  const day = { from: startOfDayNumber(zone, dayNo), to: startOfDayNumber(zone, dayNo + 1) };
  return computeSlots({ ...query, ...day }).find((slot) => slot.start === start) ?? null;
}

export type UnavailableReason =
  | 'in_the_past'
  | 'too_soon'
  | 'outside_booking_window'
  | 'reserved'
  | 'booked'
  | 'seats_full'
  | 'booking_limit_reached'
  | 'booker_limit_reached'
  | 'out_of_office'
  | 'not_available';

const withoutBusy = (query: SlotQuery, drop: (source: string) => boolean): SlotQuery => ({
  ...query,
  hosts: query.hosts.map((host) => ({ ...host, busy: host.busy.filter((block) => !drop(block.source)) })),
});

const present = (query: SlotQuery): SlotQuery => ({ ...query, hosts: query.hosts.map((host) => ({ ...host, away: [] })) });

/**
 * Why `start` is not a slot (call it when `findSlot` returned null): the first rule that, relaxed,
 * would let the start through. Only for error messages; `findSlot` alone decides.
 */
export function explainUnavailable(query: SlotQuery, start: number): UnavailableReason {
  if (start < query.now) return 'in_the_past';
  const { bookerLimit } = query;
  if (bookerLimit && bookerLimit.activeBookings >= bookerLimit.maximumActiveBookings) return 'booker_limit_reached';
  if (start < query.now + query.minimumBookingNotice * MINUTE) return 'too_soon';
  const window = query.bookingWindow && fixedWindowBounds(query.bookingWindow, query.organizerTimeZone, query.now);
  if (window && (start < window.start || start >= window.end)) return 'outside_booking_window';
  const unlimited = { ...query, bookerLimit: null, bookingLimitsCount: null, bookingLimitsDuration: null, teamLimits: null, bookingWindow: null, onlyShowFirstAvailableSlot: false };
  if (findSlot(unlimited, start)) {
    if (query.bookingWindow && !findSlot({ ...unlimited, bookingWindow: query.bookingWindow }, start)) return 'outside_booking_window';
    const limited = { ...unlimited, bookingLimitsCount: query.bookingLimitsCount, bookingLimitsDuration: query.bookingLimitsDuration, teamLimits: query.teamLimits };
    if (!findSlot(limited, start)) return 'booking_limit_reached';
    return 'not_available';
  }
  // Away is named only when it alone stands in the way; the checks after it take the hosts as present.
  const here = present(unlimited);
  if (findSlot(here, start)) return 'out_of_office';
  if (query.seatsPerTimeSlot !== null && findSlot({ ...here, seatsPerTimeSlot: Number.MAX_SAFE_INTEGER }, start)) return 'seats_full';
  if (findSlot(withoutBusy(here, (source) => source === 'reservation'), start)) return 'reserved';
  if (findSlot(withoutBusy(here, (source) => source === 'booking'), start)) return 'booked';
  return 'not_available';
}
