// Data and checks for the GET /v2/slots load test (case (a) of bench/engine.ts, over HTTP): one user with
// the default Mon-Fri 09:00-17:00 America/New_York schedule, a 30-minute event type with 120 minutes'
// notice, and 200 seeded bookings inside working hours in the 30-day window starting next Monday.
import { CHANGES_CHANNEL, formatChange } from '../src/db/change-feed.js';
import { computeSlots } from '../src/scheduling/slots.js';
import { dateOfDayNumber, formatDate, localDayNumber, startOfDayNumber, weekdayOfDayNumber } from '../src/scheduling/zones.js';
import { busyOf, eventQuery, generateBookings, seededRandom, WINDOW_DAYS, WORKING_HOURS, type GeneratedBooking } from './engine.js';

export const SLOTS_ZONE = 'America/New_York';
export const SLOTS_BOOKINGS = 200;
export const SLOTS_API_VERSION = '2024-09-04';
export const EVENT_TYPES_API_VERSION = '2024-06-14';

export interface SlotsPlan {
  /** First and last local date of the window (YYYY-MM-DD), as sent in start and end. */
  startDate: string;
  endDate: string;
  from: number;
  to: number;
  bookings: GeneratedBooking[];
}

/** The window starts on the Monday after today (in New York): at least 1 day ahead, so minimum notice never matters. */
export function slotsPlan(now: number): SlotsPlan {
  const today = localDayNumber(SLOTS_ZONE, now);
  const firstDay = today + (((1 - weekdayOfDayNumber(today) + 7) % 7) || 7);
  const bookings = generateBookings(seededRandom(0x5eed_00a1), { zone: SLOTS_ZONE, firstDay, days: WINDOW_DAYS, count: SLOTS_BOOKINGS, insideWorkingHours: true });
  return {
    startDate: formatDate(dateOfDayNumber(firstDay)),
    endDate: formatDate(dateOfDayNumber(firstDay + WINDOW_DAYS - 1)),
    from: startOfDayNumber(SLOTS_ZONE, firstDay),
    to: startOfDayNumber(SLOTS_ZONE, firstDay + WINDOW_DAYS),
    bookings,
  };
}

export function slotsPath(plan: SlotsPlan, eventTypeId: number): string {
  const query = new URLSearchParams({ eventTypeId: String(eventTypeId), start: plan.startDate, end: plan.endDate, timeZone: SLOTS_ZONE });
  return `/v2/slots?${query}`;
}

/** One multi-row INSERT of the plan's bookings and its change notification (all values generated here, so inlining them is safe). */
export function insertBookingsSql(plan: SlotsPlan, userId: number, eventTypeId: number): string {
  if (!Number.isInteger(userId) || !Number.isInteger(eventTypeId)) throw new Error(`bad ids ${userId}, ${eventTypeId}`);
  const rows = plan.bookings.map(
    (booking, index) =>
      `('bench-${userId}-${index}', ${eventTypeId}, ${userId}, 'Bench booking ${index}', '${new Date(booking.start).toISOString()}', '${new Date(booking.end).toISOString()}', 'accepted')`,
  );
  // Announced like svc's own booking writes, so a running server drops the host's cached busy time.
  const notify = `select pg_notify('${CHANGES_CHANNEL}', '${formatChange({ kind: 'busyTime', userId })}');`;
  return `insert into bookings (uid, event_type_id, user_id, title, start_at, end_at, status) values\n${rows.join(',\n')};\n${notify}`;
}

/** The starts the engine offers for this plan, in process (the event type's buffers are 0, like the bookings'). */
export function expectedStarts(plan: SlotsPlan, now: number, withBookings = true): number[] {
  const query = eventQuery({
    now,
    from: plan.from,
    to: plan.to,
    organizerTimeZone: SLOTS_ZONE,
    hosts: [{ userId: 1, fixed: true, schedule: { timeZone: SLOTS_ZONE, weeklyRules: [WORKING_HOURS], overrides: [] }, busy: withBookings ? busyOf(plan.bookings) : [] }],
  });
  return computeSlots(query).map((slot) => slot.start);
}

export interface SlotsCheck {
  slotsInResponse: number;
  responseBytes: number;
  /** Slots the same schedule offers without bookings: the bookings removed this many. */
  slotsWithoutBookings: number;
  /** A slot start (ISO) that exists without bookings, is covered by the first booking, and is absent. */
  coveredSlotAbsent: string;
  /** Whether the response lists exactly the starts computeSlots gives in process for the same data. */
  matchesEngine: boolean;
}

/** Throws unless the response is 200 with slots and the first booking's slot is missing. */
export function checkSlotsResponse(status: number, text: string, plan: SlotsPlan, now: number): SlotsCheck {
  if (status !== 200) throw new Error(`GET /v2/slots answered ${status}: ${text.slice(0, 500)}`);
  const body = JSON.parse(text) as { status: string; data: Record<string, { start: string }[]> };
  const starts = Object.values(body.data)
    .flat()
    .map((item) => Date.parse(item.start));
  if (starts.length === 0) throw new Error(`GET /v2/slots answered 200 with no slots: ${text.slice(0, 500)}`);
  const listed = new Set(starts);
  const free = expectedStarts(plan, now, false);
  const first = plan.bookings[0]!;
  const covered = free.find((start) => start < first.end && start + 30 * 60_000 > first.start);
  if (covered === undefined) throw new Error('bench bug: the first booking covers no slot of the empty schedule');
  if (listed.has(covered)) throw new Error(`GET /v2/slots lists ${new Date(covered).toISOString()}, which booking bench-0 (${new Date(first.start).toISOString()}) covers`);
  const expected = expectedStarts(plan, now, true);
  const matchesEngine = expected.length === starts.length && expected.every((start, index) => start === starts[index]);
  return {
    slotsInResponse: starts.length,
    responseBytes: Buffer.byteLength(text),
    slotsWithoutBookings: free.length,
    coveredSlotAbsent: new Date(covered).toISOString(),
    matchesEngine,
  };
}

/**
 * The slots fixture's seeded bookings overlap one another (about half start inside an earlier one), which
 * the bookings_host_time_no_overlap exclusion constraint (migration 0006) now refuses for accepted
 * bookings of one host. Trim each booking to start where the earlier ones end and drop those wholly
 * inside them: the host's busy time (the union) is exactly the same, so the slots listed are too.
 */
export function withoutOverlaps(plan: SlotsPlan): SlotsPlan {
  const bookings: GeneratedBooking[] = [];
  let busyUntil = -Infinity;
  for (const booking of plan.bookings) {
    if (booking.end <= busyUntil) continue;
    bookings.push({ ...booking, start: Math.max(booking.start, busyUntil) });
    busyUntil = booking.end;
  }
  return { ...plan, bookings };
}
