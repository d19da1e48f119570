/**
 * The slot engine's input and output: plain data, epoch milliseconds for instants, minutes for
 * lengths. The rules these fields drive are described in `docs/slot-rules.md`.
 */
import type { Interval } from './intervals.js';
import type { HostSchedule } from './working-hours.js';

/** Booking-count or booked-minutes limits per period; absent keys are unlimited. */
export interface IntervalLimits {
  day?: number | undefined;
  week?: number | undefined;
  month?: number | undefined;
  year?: number | undefined;
}

/** How far ahead bookings are allowed; null means unlimited. Dates are local to the organizer's zone. */
export type BookingWindow =
  | { type: 'businessDays' | 'calendarDays'; days: number; rolling: boolean }
  | { type: 'range'; start: string; end: string };

/** Something that keeps a host busy. */
export interface BusyBlock {
  start: number;
  end: number;
  /** Its own buffers in minutes (a booking's event-type buffers); 0 for calendar events. */
  bufferBefore: number;
  bufferAfter: number;
  source: 'booking' | 'reservation' | 'calendar';
  /** Event type of a booking or reservation. */
  eventTypeId?: number | null | undefined;
  /** An unconfirmed booking blocks only when its event type says so (`blocksWhilePending`). */
  pending?: boolean | undefined;
  blocksWhilePending?: boolean | undefined;
  /** Seats a seated booking holds (its attendees); a reservation holds 1. */
  seatsTaken?: number | undefined;
  bookingUid?: string | undefined;
}

export interface HostAvailability {
  userId: number;
  /** null: the host has no schedule and is never available. */
  schedule: HostSchedule | null;
  busy: readonly BusyBlock[];
  /**
   * More busy time as bare intervals, in any order: time that blocks as it is, with no buffers, seats
   * or pending state of its own (connected calendars' events). A caller that keeps them sorted and
   * merged passes them this way so they are not planned one block at a time.
   */
  plainBusy?: readonly Interval[] | undefined;
  /**
   * Times the host is away (out of office), in any order: not working time, as a day off is not, so
   * no slot overlaps them while buffers may reach into them.
   */
  away?: readonly Interval[] | undefined;
  /** Fixed hosts must all attend; of the others (round robin), one per group is enough. */
  fixed: boolean;
  groupId?: string | null | undefined;
}

/** A booking of the queried event type, counted by its booking limits. */
export interface LimitBooking {
  start: number;
  end: number;
  uid?: string | undefined;
}

export interface TeamLimits {
  count: IntervalLimits;
  timeZone: string;
  weekStart: number;
  bookings: readonly LimitBooking[];
}

export interface SlotQuery {
  now: number;
  /** Slot starts in [from, to). */
  from: number;
  to: number;
  /** The queried event type (null for a dynamic group event): seated bookings of it can be joined. */
  eventTypeId: number | null;
  /** Length of the slots, minutes. */
  duration: number;
  /** Spacing of slot starts, minutes; null: the duration. */
  slotInterval: number | null;
  offsetStart: number;
  minimumBookingNotice: number;
  beforeEventBuffer: number;
  afterEventBuffer: number;
  bookingWindow: BookingWindow | null;
  bookingLimitsCount: IntervalLimits | null;
  bookingLimitsDuration: IntervalLimits | null;
  onlyShowFirstAvailableSlot: boolean;
  showOptimizedSlots: boolean;
  /** null: one booking per slot; otherwise at least 1 (event types refuse less). */
  seatsPerTimeSlot: number | null;
  /** Zone of the organizer's schedule: booking window, limit periods and "first slot of the day" use its dates. */
  organizerTimeZone: string;
  /** First day of a limit week, 0 = Sunday ... 6 = Saturday. */
  weekStart: number;
  hosts: readonly HostAvailability[];
  /** Active bookings of this event type (accepted or pending), for its booking limits. */
  limitBookings: readonly LimitBooking[];
  /**
   * A team's own booking-count limits (`bookingLimits`), over every booking of the team's event types,
   * in the team's zone and week.
   */
  teamLimits?: TeamLimits | null | undefined;
  /** A booking being rescheduled: its own time is free and it does not count toward limits. */
  ignoreBookingUid?: string | null | undefined;
  /**
   * `bookerActiveBookingsLimit` with the booker's upcoming bookings of this event type: a booker who
   * already holds the maximum gets no slot. Known only when the booker is (at booking time).
   */
  bookerLimit?: { maximumActiveBookings: number; activeBookings: number } | null | undefined;
}

/** The settings of an event type that shape its slots. */
export type EventRules = Pick<
  SlotQuery,
  | 'slotInterval' | 'offsetStart' | 'minimumBookingNotice' | 'beforeEventBuffer' | 'afterEventBuffer' | 'bookingWindow'
  | 'bookingLimitsCount' | 'bookingLimitsDuration' | 'onlyShowFirstAvailableSlot' | 'showOptimizedSlots' | 'seatsPerTimeSlot'
>;

/** Rules that leave availability as the schedules say: no buffers, notice, window, limits or seats. */
export const PLAIN_EVENT_RULES: EventRules = {
  slotInterval: null,
  offsetStart: 0,
  minimumBookingNotice: 0,
  beforeEventBuffer: 0,
  afterEventBuffer: 0,
  bookingWindow: null,
  bookingLimitsCount: null,
  bookingLimitsDuration: null,
  onlyShowFirstAvailableSlot: false,
  showOptimizedSlots: false,
  seatsPerTimeSlot: null,
};

export interface SlotSeats {
  booked: number;
  total: number;
  /** The seated booking a new attendee would join, if there is one. */
  bookingUid: string | null;
}

export interface Slot {
  start: number;
  end: number;
  /**
   * Hosts free for the whole slot: every fixed host and, for round robin, each available candidate.
   * Consecutive slots with the same hosts share one array: read it, do not change it.
   */
  hostIds: number[];
  seats?: SlotSeats | undefined;
}
