/**
 * Random slot-engine queries for the oracle property tests (test/engine/slots-oracle.test.ts), and the
 * comparison that turns a disagreement into a readable report (ISO times, both slot lists).
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import type { DateOverride, WeeklyRule } from '../../src/scheduling/availability-rules.js';
import type { BookingWindow, BusyBlock, HostAvailability, IntervalLimits, LimitBooking, Slot, SlotQuery } from '../../src/scheduling/slot-query.js';
import { oracleSlots } from '../engine/oracle.js';
import { TEST_ZONES } from './zones.js';

const M = 60_000;
const DAY = 1440 * M;
const ALL_DAYS = [0, 1, 2, 3, 4, 5, 6];
export const iso = (ms: number) => new Date(ms).toISOString().replace(':00.000Z', 'Z');
const midnight = (zone: string, date: string) =>
  Temporal.PlainDate.from(date).toPlainDateTime({ hour: 0 }).toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
const addDays = (date: string, days: number) => Temporal.PlainDate.from(date).add({ days }).toString();

const TRANSITIONS: Record<string, string[]> = {
  'America/New_York': ['2026-03-08', '2026-11-01'],
  'America/St_Johns': ['2026-03-08', '2026-11-01'],
  'Europe/London': ['2026-03-29', '2026-10-25'],
  'Europe/Berlin': ['2026-03-29', '2026-10-25'],
  'Australia/Lord_Howe': ['2026-04-05', '2026-10-04'],
  'Australia/Sydney': ['2026-04-05', '2026-10-04'],
  'Pacific/Chatham': ['2026-04-05', '2026-09-27'],
  'America/Santiago': ['2026-04-04', '2026-04-05', '2026-09-06'],
};
const ALL_TRANSITIONS = [...new Set(Object.values(TRANSITIONS).flat())];
const ORDINARY = ['2026-06-15', '2026-01-14', '2026-08-19', '2026-12-31', '2027-01-01', '2026-02-28', '2026-03-01', '2026-05-31', '2026-12-27'];

export interface GenOptions {
  hosts: { min: number; max: number };
  /** Force seats on (true), off (false) or draw it. */
  seats?: boolean;
  /** Always draw a booking window and limits. */
  windowsAndLimits?: boolean;
  /** showOptimizedSlots always on, with more busy blocks. */
  optimized?: boolean;
  /** Hosts without a schedule (schedule: null) now and then. */
  nullSchedules?: boolean;
  /** Round-the-clock hosts in zones other than the organizer's: pieces touch at every host midnight and straddle organizer dates. */
  roundTheClock?: boolean;
  /**
   * A team of one scheduling type, its hosts each in a zone of their own, one of them Asia/Kathmandu
   * (+05:45), on a DST change of one of the hosts' zones: `collective` (every host fixed), `roundRobin`
   * (every host a candidate of one group), `roundRobinWithFixed` (1 to all but one fixed, the rest
   * candidates), `groups` (candidates in 2 or 3 groups, each group served, sometimes with a fixed host).
   */
  team?: TeamType;
}

export type TeamType = 'collective' | 'roundRobin' | 'roundRobinWithFixed' | 'groups';
/** +05:45: every team has a host there. */
const KATHMANDU = 'Asia/Kathmandu';

const minutes5 = (min: number, max: number) => fc.integer({ min: Math.ceil(min / 5), max: Math.floor(max / 5) }).map((n) => n * 5);
const anyOrAligned = (min: number, max: number) => fc.oneof({ weight: 3, arbitrary: minutes5(min, max) }, { weight: 1, arbitrary: fc.integer({ min, max }) });
const maybeZero = (arb: fc.Arbitrary<number>) => fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: arb });

const ruleArb: fc.Arbitrary<WeeklyRule[]> = fc.oneof(
  // independent rules (overlaps happen naturally)
  fc.array(
    fc.record({
      days: fc.oneof({ weight: 1, arbitrary: fc.constant(ALL_DAYS) }, { weight: 1, arbitrary: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }) }),
      startMinute: fc.oneof(fc.integer({ min: 0, max: 95 }).map((n) => n * 15), fc.integer({ min: 0, max: 1439 }), fc.constant(0)),
      length: fc.oneof({ weight: 2, arbitrary: fc.constant(1440) }, { weight: 4, arbitrary: fc.integer({ min: 15, max: 720 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 60 }) }),
    }).map(({ days, startMinute, length }) => ({ days, startMinute, endMinute: Math.min(1440, startMinute + length) })),
    { minLength: 1, maxLength: 3 },
  ),
  // adjacent rules [a, b) + [b, c), possibly with an evening rule to 1440 and a morning rule from 0
  fc.record({
    days: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }),
    a: fc.integer({ min: 0, max: 40 }).map((n) => n * 15),
    b: fc.integer({ min: 41, max: 70 }).map((n) => n * 15),
    c: fc.integer({ min: 71, max: 96 }).map((n) => n * 15),
    midnight: fc.boolean(),
  }).map(({ days, a, b, c, midnight }) => [
    { days, startMinute: a, endMinute: b },
    { days, startMinute: b, endMinute: c },
    ...(midnight ? [{ days: ALL_DAYS, startMinute: 1320, endMinute: 1440 }, { days: ALL_DAYS, startMinute: 0, endMinute: 60 }] : []),
  ]),
);

const overrideArb = fc.record({
  dayOffset: fc.integer({ min: -1, max: 3 }),
  kind: fc.constantFrom('dayOff', 'range', 'split'),
  start: fc.oneof(fc.integer({ min: 0, max: 95 }).map((n) => n * 15), fc.integer({ min: 0, max: 1439 })),
  length: fc.oneof(fc.integer({ min: 15, max: 600 }), fc.constant(1440)),
});

const busyArb = fc.record({
  offset: anyOrAligned(-360, 3 * 1440 + 360),
  length: anyOrAligned(5, 240),
  source: fc.constantFrom('booking', 'booking', 'reservation', 'calendar', 'calendar'),
  bufferBefore: maybeZero(fc.integer({ min: 0, max: 30 })),
  bufferAfter: maybeZero(fc.integer({ min: 0, max: 30 })),
  eventTypeId: fc.constantFrom(7, 8, undefined),
  pending: fc.constantFrom(undefined, false, true),
  blocksWhilePending: fc.constantFrom(undefined, false, true),
  uid: fc.constantFrom('b1', 'b2', 'b3', undefined),
  seatsTaken: fc.constantFrom(undefined, 1, 2, 3),
});

const hostArb = (options: GenOptions) => fc.record({
  ownZone: fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...TEST_ZONES) }), // null: the organizer's zone
  noSchedule: fc.nat(24).map((n) => n === 17), // rare (fast-check biases towards 0)
  rules: ruleArb,
  overrides: fc.array(overrideArb, { maxLength: 2 }),
  busy: fc.array(busyArb, { maxLength: 5 }),
  extraBusy: fc.array(busyArb, { maxLength: 3 }),
  // With seats forced on, mostly round robin: a full seated booking of one host is then next to free hosts.
  fixed: options.seats === true ? fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }) : fc.boolean(),
  groupId: fc.constantFrom(undefined, null, 'a', 'b'),
  // The host's calendar blocks given as bare intervals (plainBusy), as the service passes connected calendars.
  plainCalendar: fc.boolean(),
  // Times away (out of office): about one host in four, up to two stretches of up to two days.
  away: fc.oneof(
    { weight: 3, arbitrary: fc.constant([] as { offset: number; length: number }[]) },
    { weight: 1, arbitrary: fc.array(fc.record({ offset: anyOrAligned(-1440, 3 * 1440), length: anyOrAligned(0, 2 * 1440) }), { minLength: 1, maxLength: 2 }) },
  ),
});

/** Each period kind present about one time in three. */
const limitsArb = (min: number, max: number): fc.Arbitrary<IntervalLimits> => {
  const value = fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min, max }) });
  return fc.record({ day: value, week: value, month: value, year: value }).map((limits) => {
    const out: IntervalLimits = {};
    for (const kind of ['day', 'week', 'month', 'year'] as const) if (limits[kind] !== undefined) out[kind] = limits[kind];
    return out;
  });
};

const windowArb = fc.oneof(
  fc.record({ type: fc.constantFrom('calendarDays' as const, 'businessDays' as const), days: fc.integer({ min: 1, max: 5 }), rolling: fc.boolean() }),
  fc.record({ type: fc.constant('range' as const), startOffset: fc.integer({ min: -2, max: 1 }), length: fc.integer({ min: 0, max: 3 }) }),
);

const seatPickArb = fc.record({
  index: fc.oneof(fc.nat(3), fc.nat()), // small indexes stack several picks on one slot
  hostPick: fc.nat(),
  seats: fc.constantFrom(undefined, 1, 2, 3),
  kind: fc.constantFrom('booking' as const, 'reservation' as const),
  pending: fc.constantFrom(undefined, true),
  buffers: fc.boolean(),
  uid: fc.constantFrom('s1', 's2', 'b1'),
});

export function rawQueryArb(options: GenOptions) {
  const optional = <T>(arb: fc.Arbitrary<T>) =>
    options.windowsAndLimits ? arb : fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
  return fc.record({
    organizerZone: fc.constantFrom(...TEST_ZONES),
    onTransition: fc.boolean(),
    datePick: fc.nat(),
    dayShift: fc.integer({ min: -1, max: 1 }),
    viewZone: fc.option(fc.constantFrom(...TEST_ZONES), { freq: 2 }), // null: the organizer's zone
    fromJitter: maybeZero(fc.integer({ min: -720, max: 720 })),
    days: fc.integer({ min: 1, max: 3 }),
    toJitter: maybeZero(fc.integer({ min: -600, max: 600 })),
    nowKind: fc.oneof({ weight: 6, arbitrary: fc.constant('before') }, { weight: 3, arbitrary: fc.constant('inside') }, { weight: 1, arbitrary: fc.constant('after') }),
    nowOffset: anyOrAligned(0, 5 * 1440),
    hosts: fc.array(hostArb(options), { minLength: options.hosts.min, maxLength: options.hosts.max }),
    duration: fc.oneof(fc.constantFrom(15, 30, 45, 60, 90, 120), fc.integer({ min: 5, max: 120 })),
    slotInterval: fc.option(fc.oneof(fc.constantFrom(5, 10, 15, 20, 30, 60, 90), fc.integer({ min: 5, max: 90 })), { freq: 2 }),
    offsetStart: maybeZero(fc.integer({ min: 0, max: 30 })),
    minimumBookingNotice: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 240 }), fc.integer({ min: 0, max: 3000 })),
    beforeEventBuffer: maybeZero(fc.integer({ min: 0, max: 60 })),
    afterEventBuffer: maybeZero(fc.integer({ min: 0, max: 60 })),
    bookingWindow: optional(windowArb),
    bookingLimitsCount: optional(limitsArb(1, 5)),
    bookingLimitsDuration: optional(limitsArb(30, 600)),
    limitBookings: fc.array(
      fc.record({ midnightCross: fc.boolean(), offset: anyOrAligned(-2 * 1440, 4 * 1440), length: anyOrAligned(5, 240), uid: fc.constantFrom('b1', 'b2', 'l3', undefined) }),
      { maxLength: 4 },
    ),
    weekStart: fc.integer({ min: 0, max: 6 }),
    /** A team's count limits over the bookings of all its event types, in a zone of the team's own. */
    teamLimits: optional(
      fc.record({
        count: limitsArb(1, 4),
        zone: fc.constantFrom(...TEST_ZONES),
        weekStart: fc.integer({ min: 0, max: 6 }),
        bookings: fc.array(fc.record({ offset: anyOrAligned(-2 * 1440, 4 * 1440), length: anyOrAligned(5, 240), uid: fc.constantFrom('b1', 't2', undefined) }), { maxLength: 5 }),
      }),
    ),
    onlyShowFirstAvailableSlot: fc.boolean(),
    showOptimizedSlots: options.optimized ? fc.constant(true) : fc.boolean(),
    denseBusy: fc.constant(options.optimized === true),
    nullSchedules: fc.constant(options.nullSchedules === true),
    roundTheClock: fc.constant(options.roundTheClock === true),
    /** Every host takes host 0's zone and weekly rules (a team with common hours; overrides and busy stay their own). */
    sameHours: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    hostZones: fc.array(fc.constantFrom(...TEST_ZONES), { minLength: 3, maxLength: 3 }),
    team: fc.constant(options.team ?? null),
    /** Distinct zones: one with DST changes first, Kathmandu at a drawn position. */
    teamDstZone: fc.constantFrom(...Object.keys(TRANSITIONS)),
    teamZones: fc.shuffledSubarray(TEST_ZONES.filter((zone) => zone !== KATHMANDU), { minLength: options.hosts.max - 1, maxLength: options.hosts.max - 1 }),
    kathmanduAt: fc.nat(),
    /** Per host: open round the clock (mostly, so that hosts across zones overlap) or its drawn rules. */
    allDay: fc.array(fc.oneof({ weight: 2, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }), { minLength: options.hosts.max, maxLength: options.hosts.max }),
    fixedPick: fc.nat(),
    groupCount: fc.integer({ min: 2, max: 3 }),
    groupPicks: fc.array(fc.nat(2), { minLength: options.hosts.max, maxLength: options.hosts.max }),
    seatsPerTimeSlot:
      options.seats === true ? fc.oneof(fc.constantFrom(1, 2), fc.integer({ min: 1, max: 4 })) : options.seats === false ? fc.constant(null) : fc.option(fc.integer({ min: 1, max: 4 }), { freq: 2 }),
    nullEventType: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    seatPicks: fc.array(seatPickArb, { minLength: options.seats ? 1 : 0, maxLength: 4 }),
    ignoreBookingUid: fc.constantFrom(undefined, null, 'b1', 'b2', 's1'),
  });
}

type RawQuery = ReturnType<typeof rawQueryArb> extends fc.Arbitrary<infer T> ? T : never;

/** Per host of a team: its zone, whether it is fixed, its group. */
function teamRoles(raw: RawQuery): { zone: string; fixed: boolean; groupId: string | null }[] {
  const zones = [raw.teamDstZone, ...raw.teamZones.filter((zone) => zone !== raw.teamDstZone)];
  zones.splice(raw.kathmanduAt % raw.hosts.length, 0, KATHMANDU);
  const count = raw.hosts.length;
  return raw.hosts.map((_, i) => {
    const zone = zones[i]!;
    switch (raw.team!) {
      case 'collective':
        return { zone, fixed: true, groupId: null };
      case 'roundRobin':
        return { zone, fixed: false, groupId: null };
      case 'roundRobinWithFixed':
        return { zone, fixed: i < 1 + (raw.fixedPick % (count - 1)), groupId: null };
      case 'groups': {
        // The first hosts cover every group; with 4 or more hosts the last may be fixed.
        const fixed = count >= 4 && i === count - 1 && raw.fixedPick % 2 === 0;
        return { zone, fixed, groupId: fixed ? null : `g${i < raw.groupCount ? i : raw.groupPicks[i]! % raw.groupCount}` };
      }
    }
  });
}

export function buildQuery(raw: RawQuery): SlotQuery {
  const zo = raw.organizerZone;
  const roles = raw.team ? teamRoles(raw) : null;
  // A team's dates are DST changes of its hosts' zones (teamDstZone is always one of them).
  const teamDstZones = roles?.map((role) => role.zone).filter((zone) => TRANSITIONS[zone]) ?? [];
  const dates = roles ? TRANSITIONS[teamDstZones[raw.datePick % teamDstZones.length]!]! : raw.onTransition ? (TRANSITIONS[zo] ?? ALL_TRANSITIONS) : ORDINARY;
  const baseDate = addDays(dates[raw.datePick % dates.length]!, raw.dayShift);
  const from = midnight(raw.viewZone ?? zo, baseDate) + raw.fromJitter * M;
  const to = from + raw.days * DAY + raw.toJitter * M;
  const now = raw.nowKind === 'before' ? from - raw.nowOffset * M : raw.nowKind === 'inside' ? from + (raw.nowOffset % (raw.days * 1440)) * M : to + raw.nowOffset * M;

  const hosts: HostAvailability[] = raw.hosts.map((h, i) => {
    const lead = raw.sameHours ? raw.hosts[0]! : h;
    const role = roles?.[i];
    const zone = role ? role.zone : raw.roundTheClock ? raw.hostZones[i]! : (lead.ownZone ?? zo);
    const allDay = raw.roundTheClock || (role !== undefined && raw.allDay[i]!);
    const overrides: DateOverride[] = [];
    for (const o of h.overrides) {
      const date = addDays(baseDate, o.dayOffset);
      if (o.kind === 'dayOff') overrides.push({ date, startMinute: 0, endMinute: 0 });
      else if (o.kind === 'range') overrides.push({ date, startMinute: o.start, endMinute: Math.min(1440, o.start + o.length) });
      else {
        const mid = Math.min(1439, o.start + Math.floor(o.length / 3));
        overrides.push({ date, startMinute: Math.floor(o.start / 2), endMinute: mid }, { date, startMinute: Math.min(1439, mid + 30), endMinute: 1440 });
      }
    }
    const blocks: BusyBlock[] = (raw.denseBusy ? [...h.busy, ...h.extraBusy] : h.busy).map((b) => {
      const seated = b.source === 'booking' || b.source === 'reservation';
      const result: BusyBlock = {
        start: from + b.offset * M,
        end: from + (b.offset + b.length) * M,
        bufferBefore: seated ? b.bufferBefore : 0,
        bufferAfter: seated ? b.bufferAfter : 0,
        source: b.source,
      };
      if (seated) {
        result.eventTypeId = b.eventTypeId;
        if (b.pending !== undefined) result.pending = b.pending;
        if (b.blocksWhilePending !== undefined) result.blocksWhilePending = b.blocksWhilePending;
        if (b.source === 'booking' && b.uid !== undefined) result.bookingUid = b.uid;
        if (b.seatsTaken !== undefined) result.seatsTaken = b.seatsTaken;
      }
      return result;
    });
    const plain = (block: BusyBlock) => h.plainCalendar && block.source === 'calendar';
    const busy = blocks.filter((block) => !plain(block));
    const plainBusy = blocks.filter(plain).map((block) => [block.start, block.end] as const);
    const noSchedule = h.noSchedule && raw.nullSchedules;
    const availability: HostAvailability = {
      userId: 30 - i * 7, // host order is not id order: hostIds must really be sorted
      schedule: noSchedule ? null : { timeZone: zone, weeklyRules: allDay ? [{ days: ALL_DAYS, startMinute: 0, endMinute: 1440 }] : lead.rules, overrides },
      busy,
      fixed: role ? role.fixed : h.fixed,
    };
    if (plainBusy.length > 0) availability.plainBusy = plainBusy;
    if (h.away.length > 0) availability.away = h.away.map((a) => [from + a.offset * M, from + (a.offset + a.length) * M] as const);
    if (role) {
      if (role.groupId !== null) availability.groupId = role.groupId;
    } else if (h.groupId !== undefined) availability.groupId = h.groupId;
    return availability;
  });

  let bookingWindow: BookingWindow | null = null;
  if (raw.bookingWindow) {
    const w = raw.bookingWindow;
    if (w.type === 'range') {
      const start = addDays(baseDate, w.startOffset);
      bookingWindow = { type: 'range', start, end: addDays(start, w.length) };
    } else bookingWindow = { type: w.type, days: w.days, rolling: w.rolling };
  }

  const limitBookings: LimitBooking[] = raw.limitBookings.map((b) => {
    // midnightCross: around an organizer-zone midnight near the window.
    const start = b.midnightCross
      ? midnight(zo, addDays(baseDate, Math.floor(b.offset / 1440) % 4)) - (b.length % 120 + 5) * M
      : from + b.offset * M;
    const booking: LimitBooking = { start, end: start + (b.midnightCross ? b.length + 130 : b.length) * M };
    if (b.uid !== undefined) booking.uid = b.uid;
    return booking;
  });

  const query: SlotQuery = {
    now,
    from,
    to,
    eventTypeId: raw.nullEventType && raw.seatsPerTimeSlot === null ? null : 7,
    duration: raw.duration,
    slotInterval: raw.slotInterval,
    offsetStart: raw.offsetStart,
    minimumBookingNotice: raw.minimumBookingNotice,
    beforeEventBuffer: raw.beforeEventBuffer,
    afterEventBuffer: raw.afterEventBuffer,
    bookingWindow,
    bookingLimitsCount: raw.bookingLimitsCount,
    bookingLimitsDuration: raw.bookingLimitsDuration,
    onlyShowFirstAvailableSlot: raw.onlyShowFirstAvailableSlot,
    showOptimizedSlots: raw.showOptimizedSlots,
    seatsPerTimeSlot: raw.seatsPerTimeSlot,
    organizerTimeZone: zo,
    weekStart: raw.weekStart,
    hosts,
    limitBookings,
  };
  if (raw.ignoreBookingUid !== undefined) query.ignoreBookingUid = raw.ignoreBookingUid;
  if (raw.teamLimits) {
    const team = raw.teamLimits;
    query.teamLimits = {
      count: team.count,
      timeZone: team.zone,
      weekStart: team.weekStart,
      bookings: team.bookings.map((b) => ({ start: from + b.offset * M, end: from + (b.offset + b.length) * M, ...(b.uid !== undefined ? { uid: b.uid } : {}) })),
    };
  }

  // Seated bookings/reservations of the queried event type placed exactly on slots the query offers
  // without them (and anywhere busy blocks above happen to land).
  if (query.seatsPerTimeSlot !== null && raw.seatPicks.length > 0) {
    const plain = oracleSlots({ ...query, now: Math.min(now, from - 400 * DAY), bookingWindow: null, bookingLimitsCount: null, bookingLimitsDuration: null, teamLimits: null, onlyShowFirstAvailableSlot: false, seatsPerTimeSlot: null });
    if (plain.length > 0) {
      for (const pick of raw.seatPicks) {
        const slot = plain[pick.index % plain.length]!;
        const ids = pick.hostPick % 3 === 0 ? query.hosts.map((h) => h.userId) : slot.hostIds;
        const owner = query.hosts.find((h) => h.userId === ids[pick.hostPick % ids.length])!;
        const seatBlock: BusyBlock = {
          start: slot.start,
          end: slot.end,
          bufferBefore: pick.kind === 'booking' && pick.buffers ? query.beforeEventBuffer : 0,
          bufferAfter: pick.kind === 'booking' && pick.buffers ? query.afterEventBuffer : 0,
          source: pick.kind,
          eventTypeId: 7,
        };
        if (pick.seats !== undefined) seatBlock.seatsTaken = pick.seats;
        if (pick.kind === 'booking') {
          seatBlock.bookingUid = pick.index % 2 === 0 ? pick.uid : `${pick.uid}-${pick.index % 5}`; // 's1'/'b1' may be ignoreBookingUid
          if (pick.pending) seatBlock.pending = true;
        }
        (owner.busy as BusyBlock[]).push(seatBlock);
      }
    }
  }
  return query;
}

// -------------------------------------------------------------------------------------------------
// Comparison and readable failure reports

export function describeQuery(q: SlotQuery) {
  return {
    ...q,
    now: iso(q.now),
    from: iso(q.from),
    to: iso(q.to),
    hosts: q.hosts.map((h) => ({
      ...h,
      busy: h.busy.map((b) => ({ ...b, start: iso(b.start), end: iso(b.end) })),
      ...(h.plainBusy ? { plainBusy: h.plainBusy.map(([start, end]) => [iso(start), iso(end)]) } : {}),
      ...(h.away ? { away: h.away.map(([start, end]) => [iso(start), iso(end)]) } : {}),
    })),
    limitBookings: q.limitBookings.map((b) => ({ ...b, start: iso(b.start), end: iso(b.end) })),
  };
}

const showSlot = (slot: Slot) =>
  `${iso(slot.start)}..${iso(slot.end)} hosts=${JSON.stringify(slot.hostIds)}${slot.seats ? ` seats=${slot.seats.booked}/${slot.seats.total}${slot.seats.bookingUid ? `(${slot.seats.bookingUid})` : ''}` : ''}`;

/** Drops `seats: undefined` (same meaning as an absent key); nothing else is touched. */
function normalize(slots: Slot[]): Slot[] {
  return slots.map((slot) => {
    if ('seats' in slot && slot.seats === undefined) {
      const { seats: _seats, ...rest } = slot;
      return rest;
    }
    return slot;
  });
}

/** Throws a readable report (query with ISO times, the slots only one side has, both lists) unless equal. */
export function assertSameSlots(query: SlotQuery, expected: Slot[], actual: Slot[], title: string, labels = ['oracle', 'engine']): void {
  if (isDeepStrictEqual(actual, expected)) return;
  const e = new Set(expected.map(showSlot));
  const a = new Set(actual.map(showSlot));
  throw new Error(
    [
      title,
      `query (ISO): ${JSON.stringify(describeQuery(query))}`,
      `query (raw): ${JSON.stringify(query)}`,
      `only in ${labels[0]} (expected): ${[...e].filter((x) => !a.has(x)).join(', ') || '-'}`,
      `only in ${labels[1]} (actual):   ${[...a].filter((x) => !e.has(x)).join(', ') || '-'}`,
      `expected: ${expected.map(showSlot).join(' | ') || '(none)'}`,
      `actual:   ${actual.map(showSlot).join(' | ') || '(none)'}`,
    ].join('\n'),
  );
}

/** Runs the engine (on a copy: it must not depend on mutating its input) and throws a readable report unless it gives the oracle's answer. */
export function runEngine(query: SlotQuery, computeSlots: (query: SlotQuery) => Slot[]): Slot[] {
  try {
    return normalize(computeSlots(structuredClone(query)));
  } catch (error) {
    throw new Error(`engine threw ${(error as Error).stack}\nquery: ${JSON.stringify(describeQuery(query))}`);
  }
}

export function compare(query: SlotQuery, computeSlots: (query: SlotQuery) => Slot[]): void {
  const expected = oracleSlots(structuredClone(query));
  assertSameSlots(query, expected, runEngine(query, computeSlots), 'engine and oracle disagree');
}

export const queryArb = (options: GenOptions) => rawQueryArb(options).map(buildQuery);
