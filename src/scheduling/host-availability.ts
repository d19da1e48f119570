import { work } from './engine-work.js';
import { type Interval, intersectIntervals, normalizeIntervals, subtractIntervals } from './intervals.js';
import type { BusyBlock, HostAvailability, SlotQuery } from './slot-query.js';
import { workingPieces, workingRunAfter } from './working-hours.js';

const MINUTE = 60_000;

/** A seated booking (or seat reservation) of the queried event type: joinable at exactly [start, end). */
interface Occupancy {
  start: number;
  end: number;
  /** Its footprint with both events' buffers: a candidate overlapping it, other than [start, end) itself, is blocked. */
  blockedFrom: number;
  blockedUntil: number;
  seats: number;
  bookingUid: string | null;
}

/** One host prepared for a query: where slots may be anchored and where a candidate fits. */
export interface HostPlan {
  userId: number;
  fixed: boolean;
  group: string;
  /** Per-date pieces of working time: each anchors a grid of starts. */
  pieces: Interval[];
  /** Working time minus every blocking footprint (occupancies aside): a candidate must lie inside it. */
  free: Interval[];
  /** Working time minus every footprint, occupancies included (showOptimizedSlots anchors here). */
  stretches: Interval[];
  occupancies: Occupancy[];
}

export interface SeatUse {
  seats: number;
  bookingUid: string | null;
}

function inEffect(block: BusyBlock, ignoreBookingUid: string | null | undefined): boolean {
  if (ignoreBookingUid && block.bookingUid === ignoreBookingUid) return false;
  return !block.pending || block.blocksWhilePending === true;
}

/**
 * Prepares a host for candidates starting in [spanStart, spanEnd). Each busy block becomes its
 * footprint for this event type: the block with its own buffers, widened by the queried type's
 * buffers, so that `[s, e)` is blocked exactly when the two buffered intervals overlap.
 */
export function planHost(host: HostAvailability, query: SlotQuery, spanStart: number, spanEnd: number): HostPlan | null {
  if (!host.schedule) return null;
  const before = query.beforeEventBuffer * MINUTE;
  const after = query.afterEventBuffer * MINUTE;
  const seated = query.seatsPerTimeSlot !== null && query.eventTypeId !== null;
  const pieces = workingPieces(host.schedule, spanStart, spanEnd);
  // A candidate may run past its piece into the next one, and showOptimizedSlots counts fits over the
  // whole of a piece: working time is read to the last piece's end plus one slot.
  const lastEnd = pieces.length > 0 ? Math.max(spanEnd, pieces[pieces.length - 1]![1]) : spanEnd;
  const scheduled = normalizeIntervals(pieces.concat(workingRunAfter(host.schedule, lastEnd, lastEnd + query.duration * MINUTE)));
  const working = subtractIntervals(scheduled, normalizeIntervals(host.away ?? []));
  const blocking: Interval[] = [];
  const occupancies: Occupancy[] = [];
  for (let i = 0; i < host.busy.length; i++) {
    const block = host.busy[i]!;
    if (!inEffect(block, query.ignoreBookingUid)) continue;
    const blockedFrom = block.start - block.bufferBefore * MINUTE - after;
    const blockedUntil = block.end + block.bufferAfter * MINUTE + before;
    const occupies = seated && (block.source === 'booking' || block.source === 'reservation') && block.eventTypeId === query.eventTypeId;
    if (occupies) {
      occupancies.push({ start: block.start, end: block.end, blockedFrom, blockedUntil, seats: block.seatsTaken ?? 1, bookingUid: block.bookingUid ?? null });
    } else blocking.push([blockedFrom, blockedUntil]);
  }
  const blocked = normalizeIntervals(blocking);
  // Widened like every footprint: a sorted list stays sorted, so it is merged without a sort.
  const plainBlocked = normalizeIntervals((host.plainBusy ?? []).map((interval) => [interval[0] - after, interval[1] + before] as const));
  const free = subtractIntervals(subtractIntervals(working, blocked), plainBlocked);
  const stretches = subtractIntervals(free, normalizeIntervals(occupancies.map((o) => [o.blockedFrom, o.blockedUntil] as const)));
  return { userId: host.userId, fixed: host.fixed, group: host.groupId ?? '', pieces, free, stretches, occupancies };
}

/** Index of the last interval starting at or before `at`, or -1. */
function lastStartingBy(list: readonly Interval[], at: number): number {
  let low = 0;
  let high = list.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (list[mid]![0] <= at) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}

/** Seats taken at exactly [start, end) on this host (0 and null when none). */
export function seatUseAt(plan: HostPlan, start: number, end: number): SeatUse {
  let seats = 0;
  let bookingUid: string | null = null;
  for (const occupancy of plan.occupancies) {
    if (occupancy.start === start && occupancy.end === end) {
      seats += occupancy.seats;
      bookingUid ??= occupancy.bookingUid;
    }
  }
  return { seats, bookingUid };
}

/** Whether [start, end) is free for the host: inside its free time, clear of other occupancies, and with a seat left. */
export function fits(plan: HostPlan, start: number, end: number, seatsPerTimeSlot: number | null): boolean {
  const index = lastStartingBy(plan.free, start);
  if (index < 0 || plan.free[index]![1] < end) return false;
  return seatLeft(plan, start, end, seatsPerTimeSlot);
}

/** Clear of every occupancy but one of exactly [start, end), and that one (if any) has a seat left. */
export function seatLeft(plan: HostPlan, start: number, end: number, seatsPerTimeSlot: number | null): boolean {
  work.seatChecks += 1;
  let seats = 0;
  for (const occupancy of plan.occupancies) {
    if (occupancy.start === start && occupancy.end === end) seats += occupancy.seats;
    else if (occupancy.blockedFrom < end && occupancy.blockedUntil > start) return false;
  }
  return seatsPerTimeSlot === null || seats < seatsPerTimeSlot;
}

/** Pieces shared by every plan: each non-empty intersection of one piece of each. */
export function sharedPieces(plans: readonly HostPlan[]): Interval[] {
  let pieces = plans[0]!.pieces;
  for (let i = 1; i < plans.length; i++) pieces = intersectIntervals(pieces, plans[i]!.pieces);
  return pieces;
}

export function sharedStretches(plans: readonly HostPlan[]): Interval[] {
  let stretches = plans[0]!.stretches;
  for (let i = 1; i < plans.length; i++) stretches = intersectIntervals(stretches, plans[i]!.stretches);
  return stretches;
}
