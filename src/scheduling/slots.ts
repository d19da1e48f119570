import { bookingLimitChecker } from './booking-limits.js';
import { fixedWindowBounds, isBusinessDay, ROLLING_WINDOW_SEARCH_DAYS } from './booking-window.js';
import { work } from './engine-work.js';
import { fits, type HostPlan, planHost, seatLeft, seatUseAt, sharedPieces, sharedStretches } from './host-availability.js';
import { type HostRuns, type ListOf, startsOfRuns } from './host-runs.js';
import { type Interval, intersectIntervals } from './intervals.js';
import type { Slot, SlotQuery } from './slot-query.js';
import { END_OF_TIME, localDayNumber, startOfDayNumber } from './zones.js';

const MINUTE = 60_000;

/**
 * Receives the starts `first`, `first + step`, ..., `last`, runs in ascending order; returning an
 * instant skips every later start before it.
 */
type EmitRun = (first: number, last: number) => number | void;

/** The first start of the grid `first + k * step` at or after `at`. */
const gridAt = (first: number, step: number, at: number) => (first >= at ? first : first + Math.ceil((at - first) / step) * step);

/**
 * Starts a set of hosts can all take, in ascending order, as runs of consecutive grid starts: the
 * grid of each shared piece (or, with showOptimizedSlots, the better of two grids per free stretch),
 * keeping the starts whose candidate is free for every host of the set.
 */
function runsOfHostSet(plans: readonly HostPlan[], query: SlotQuery, spanStart: number, spanEnd: number, emit: EmitRun): void {
  const duration = query.duration * MINUTE;
  const step = (query.slotInterval ?? query.duration) * MINUTE;
  const offset = query.offsetStart * MINUTE;
  const seats = query.seatsPerTimeSlot;
  const pieces = sharedPieces(plans);

  if (!query.showOptimizedSlots) {
    // A candidate is free for every host when it lies in one interval of their shared free time (free
    // lists never touch, so neither do their intersections): each free interval holds one run of the
    // piece's grid, read off with no search per start. Seated bookings are then checked start by start.
    const free = plans.slice(1).reduce((shared, plan) => intersectIntervals(shared, plan.free), plans[0]!.free);
    const seated = plans.filter((plan) => plan.occupancies.length > 0);
    let first = 0;
    let resume = spanStart;
    for (let piece = 0; piece < pieces.length; piece++) {
      const anchor = pieces[piece]![0] + offset;
      const limit = Math.min(pieces[piece]![1], spanEnd);
      // Pieces and free intervals are both ascending: one too short for this piece's starts is too short for the next.
      while (first < free.length && free[first]![1] - duration < Math.max(anchor, resume)) first++;
      for (let index = first; index < free.length && free[index]![0] < limit; index++) {
        work.freeScans += 1;
        const freeStart = free[index]![0];
        const freeEnd = free[index]![1];
        const runFirst = gridAt(anchor, step, Math.max(freeStart, resume));
        if (runFirst >= limit || runFirst + duration > freeEnd) continue;
        // The last start before `limit` whose candidate ends within the free interval.
        const runLast = runFirst + Math.min(Math.ceil((limit - runFirst) / step) - 1, Math.floor((freeEnd - duration - runFirst) / step)) * step;
        if (seated.length === 0) {
          resume = Math.max(resume, emit(runFirst, runLast) ?? resume);
          continue;
        }
        for (let start = runFirst; start <= runLast; start += step) {
          work.startChecks += 1;
          if (start >= resume && seated.every((plan) => seatLeft(plan, start, start + duration, seats))) resume = Math.max(resume, emit(start, start) ?? resume);
        }
      }
    }
    return;
  }

  const fitsAll = (start: number) => plans.every((plan) => fits(plan, start, start + duration, seats));
  const inSpan = (start: number) => start >= spanStart && start < spanEnd;
  const stretches = sharedStretches(plans);
  const countFitting = (first: number, end: number) => {
    let count = 0;
    for (let start = first; start < end; start += step) if (fitsAll(start)) count++;
    return count;
  };
  // A date's pieces are ascending, so a skip asked for in one piece holds for the next.
  let resume = -Infinity;
  for (const piece of pieces) {
    const [pieceStart, pieceEnd] = piece;
    const gridFirst = pieceStart + offset;
    // Stretches whose own grid fits more slots than the piece's grid does there.
    const shifted: Interval[] = [];
    for (const [stretchStart, stretchEnd] of intersectIntervals(stretches, [piece])) {
      const firstOnGrid = gridFirst + Math.max(0, Math.ceil((stretchStart - gridFirst) / step)) * step;
      if (countFitting(stretchStart + offset, stretchEnd) > countFitting(firstOnGrid, stretchEnd)) shifted.push([stretchStart, stretchEnd]);
    }
    const starts: number[] = [];
    for (let start = gridFirst; start < pieceEnd; start += step) {
      if (!shifted.some(([from, to]) => start >= from && start < to) && inSpan(start) && fitsAll(start)) starts.push(start);
    }
    for (const [stretchStart, stretchEnd] of shifted) {
      for (let start = stretchStart + offset; start < stretchEnd; start += step) if (inSpan(start) && fitsAll(start)) starts.push(start);
    }
    starts.sort((a, b) => a - b);
    for (const start of starts) {
      if (start < resume) continue;
      resume = emit(start, start) ?? resume;
    }
  }
}

/** The sorted union of two ascending id lists, without repeats. */
function unionOfSorted(a: readonly number[], b: readonly number[]): number[] {
  const union: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!;
    if (union[union.length - 1] !== next) union.push(next);
  }
  return union;
}

/** Every start the hosts offer in [spanStart, spanEnd), with the hosts free for it (ascending ids). */
function offeredStarts(prepared: Prepared, query: SlotQuery, spanStart: number, spanEnd: number, take: (start: number, hostIds: number[]) => number | void): void {
  const { plans, roundRobinGroups } = prepared;
  const step = (query.slotInterval ?? query.duration) * MINUTE;
  const fixed = plans.filter((plan) => plan.fixed);
  const fixedIds = unionOfSorted(fixed.map((plan) => plan.userId).sort((a, b) => a - b), []);
  if (roundRobinGroups.size === 0) {
    if (fixed.length === 0) return;
    runsOfHostSet(fixed, query, spanStart, spanEnd, (first, last) => {
      let resume = -Infinity;
      for (let start = first; start <= last; start += step) {
        if (start < resume) start = gridAt(first, step, resume);
        if (start > last) break;
        resume = take(start, fixedIds) ?? resume;
      }
      return resume;
    });
    return;
  }
  // Round-robin hosts in id order, so the hosts of a start come out sorted.
  const roundRobin = plans.filter((plan) => !plan.fixed).sort((a, b) => a.userId - b.userId);
  const groupIndex = new Map([...roundRobinGroups].map((group, index) => [group, index]));
  // Every group must be served, including one whose hosts have no schedule at all.
  if (new Set(roundRobin.map((plan) => plan.group)).size < groupIndex.size) return;
  const userIds = roundRobin.map((plan) => plan.userId);
  const runs: HostRuns = { userIds, hosts: [], firsts: [], lasts: [] };
  let host = 0;
  const addRun = (first: number, last: number) => {
    runs.hosts.push(host);
    runs.firsts.push(first);
    runs.lasts.push(last);
  };
  for (; host < roundRobin.length; host++) runsOfHostSet([roundRobin[host]!, ...fixed], query, spanStart, spanEnd, addRun);
  // A stretch's hosts as the slot lists them: user ids (ascending, once each) with the fixed hosts;
  // none unless every group is served. Usually the round-robin ids alone are that list (no fixed
  // hosts, no user listed twice).
  const plainIds = fixedIds.length === 0 && new Set(userIds).size === userIds.length;
  const groupOf = roundRobin.map((plan) => groupIndex.get(plan.group)!);
  const servedIn = new Int32Array(groupIndex.size);
  let stretch = 0;
  const listOf: ListOf = (hosts, ids) => {
    if (groupIndex.size > 1) {
      work.groupChecks += 1;
      stretch++;
      let served = 0;
      for (let i = 0; i < hosts.length; i++) {
        const group = groupOf[hosts[i]!]!;
        if (servedIn[group] !== stretch) {
          servedIn[group] = stretch;
          served++;
        }
      }
      if (served < groupIndex.size) return null;
    }
    return plainIds ? ids.slice() : unionOfSorted(fixedIds, ids);
  };
  let resume = -Infinity;
  startsOfRuns(runs, step, roundRobin.length, listOf, (start, hostIds) => {
    if (start >= resume) resume = take(start, hostIds) ?? resume;
  });
}

interface Prepared {
  plans: HostPlan[];
  /** Groups of the round-robin hosts, whether or not they have a schedule. */
  roundRobinGroups: Set<string>;
  withinLimits: ((start: number, end: number) => boolean) | null;
}

/** Plans every host for starts in [spanStart, spanEnd); null when a fixed host can never attend. */
function prepare(query: SlotQuery, spanStart: number, spanEnd: number): Prepared | null {
  const plans: HostPlan[] = [];
  const roundRobinGroups = new Set<string>();
  for (const host of query.hosts) {
    if (!host.fixed) roundRobinGroups.add(host.groupId ?? '');
    const plan = planHost(host, query, spanStart, spanEnd);
    if (plan) plans.push(plan);
    else if (host.fixed) return null;
  }
  const eventTypeLimits = bookingLimitChecker(
    { count: query.bookingLimitsCount, duration: query.bookingLimitsDuration, timeZone: query.organizerTimeZone, weekStart: query.weekStart },
    query.limitBookings,
    query.ignoreBookingUid,
  );
  const team = query.teamLimits;
  const teamLimits = team ? bookingLimitChecker({ count: team.count, duration: null, timeZone: team.timeZone, weekStart: team.weekStart }, team.bookings, query.ignoreBookingUid) : null;
  const withinLimits =
    eventTypeLimits && teamLimits ? (start: number, end: number) => eventTypeLimits(start, end) && teamLimits(start, end) : (eventTypeLimits ?? teamLimits);
  return { plans, roundRobinGroups, withinLimits };
}

/**
 * Slots in [spanStart, spanEnd) passing minimum notice, booking limits and seats (section 4, filters
 * 1-3). Starts before the notice ends are never generated, so a long notice costs nothing. With
 * `firstPerDate` (onlyShowFirstAvailableSlot, and the rolling window's count of dates), only the first
 * slot of each local date (organizer's zone) is wanted: the rest of the date is skipped.
 */
function candidateSlots(query: SlotQuery, spanStart: number, spanEnd: number, firstPerDate: boolean): Slot[] {
  const earliest = query.now + query.minimumBookingNotice * MINUTE;
  const from = Math.max(spanStart, earliest);
  const duration = query.duration * MINUTE;
  // A slot must end before END_OF_TIME, where instants stop being printable and storable.
  spanEnd = Math.min(spanEnd, END_OF_TIME - duration);
  const prepared = prepare(query, from, spanEnd);
  if (!prepared) return [];
  const { plans, withinLimits } = prepared;
  const zone = query.organizerTimeZone;
  const byUser = new Map(plans.map((plan) => [plan.userId, plan]));
  const slots: Slot[] = [];
  offeredStarts(prepared, query, from, spanEnd, (start, hostIds) => {
    const end = start + duration;
    const seats = query.seatsPerTimeSlot === null ? undefined : seatsOf(query, plans, byUser, hostIds, start, end);
    // Joining a seated booking adds an attendee, not a booking: limits count bookings (reference #17221).
    if (withinLimits && !seats?.bookingUid && !withinLimits(start, end)) return;
    slots.push(seats ? { start, end, hostIds, seats } : { start, end, hostIds });
    return firstPerDate ? startOfDayNumber(zone, localDayNumber(zone, start) + 1) : undefined;
  });
  return slots;
}

function seatsOf(query: SlotQuery, plans: readonly HostPlan[], byUser: Map<number, HostPlan>, hostIds: readonly number[], start: number, end: number) {
  let booked = 0;
  let bookingUid: string | null = null;
  const ids = new Set(hostIds);
  // Host order of the query decides which booking a new attendee joins.
  for (const plan of plans) {
    if (!ids.has(plan.userId)) continue;
    const use = seatUseAt(byUser.get(plan.userId)!, start, end);
    booked = Math.max(booked, use.seats);
    bookingUid ??= use.bookingUid;
  }
  return { booked, total: query.seatsPerTimeSlot!, bookingUid };
}

/** End of a rolling window: the end of the N-th local date from today with a slot left (business days only count Monday-Friday). */
function rollingWindowEnd(query: SlotQuery, days: number, businessDaysOnly: boolean): number {
  const zone = query.organizerTimeZone;
  const today = localDayNumber(zone, query.now);
  // Searched with firstPerDate, so each date has one slot at most and needs no de-duplication.
  const counted = (slots: Slot[]) => {
    const dates: number[] = [];
    for (const slot of slots) {
      const dayNo = localDayNumber(zone, slot.start);
      if (dayNo >= today && (!businessDaysOnly || isBusinessDay(dayNo))) dates.push(dayNo);
    }
    return dates;
  };
  // Most windows are found in a short search; the whole year is read only when needed.
  for (const searchDays of [days * 2 + 7, ROLLING_WINDOW_SEARCH_DAYS]) {
    const span = Math.min(searchDays, ROLLING_WINDOW_SEARCH_DAYS);
    work.windowSearchDays += span;
    const dates = counted(candidateSlots(query, startOfDayNumber(zone, today), startOfDayNumber(zone, today + span), true));
    if (dates.length >= days) return startOfDayNumber(zone, dates[days - 1]! + 1);
    if (span === ROLLING_WINDOW_SEARCH_DAYS) break;
  }
  return startOfDayNumber(zone, today + ROLLING_WINDOW_SEARCH_DAYS);
}

function windowBounds(query: SlotQuery): { start: number; end: number } | null {
  const window = query.bookingWindow;
  if (!window) return null;
  const fixed = fixedWindowBounds(window, query.organizerTimeZone, query.now);
  if (fixed || window.type === 'range') return fixed;
  return { start: -Infinity, end: rollingWindowEnd(query, window.days, window.type === 'businessDays') };
}

/**
 * The slots of an event type whose starts lie in [query.from, query.to), ascending (docs/slot-rules.md).
 * The result for a given start never depends on the query window: candidates are computed over whole
 * local dates of the organizer's zone.
 */
export function computeSlots(query: SlotQuery): Slot[] {
  // An empty or inverted range gives an empty span (and the final cut keeps nothing).
  if (query.duration <= 0) return [];
  if (query.bookerLimit && query.bookerLimit.activeBookings >= query.bookerLimit.maximumActiveBookings) return [];
  const zone = query.organizerTimeZone;
  const firstDay = localDayNumber(zone, query.from);
  const bounds = windowBounds(query);
  // Window bounds are local midnights, so clipping the span to them keeps it whole local dates.
  const spanStart = Math.max(startOfDayNumber(zone, firstDay), bounds?.start ?? -Infinity);
  const spanEnd = Math.min(startOfDayNumber(zone, localDayNumber(zone, query.to - 1) + 1), bounds?.end ?? Infinity);
  const slots = candidateSlots(query, spanStart, spanEnd, query.onlyShowFirstAvailableSlot);
  // Slots are in order of start: the window keeps one stretch of them.
  const first = slots.findIndex((slot) => slot.start >= query.from);
  if (first < 0) return [];
  let end = slots.length;
  while (end > first && slots[end - 1]!.start >= query.to) end--;
  return slots.slice(first, end);
}
