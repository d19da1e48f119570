/**
 * A brute-force, deliberately literal implementation of docs/slot-rules.md, used as the oracle the slot
 * engine (`src/scheduling/slots.ts`) is compared against. It shares no code with src/scheduling: only
 * the engine's input/output types are imported. Every wall-clock <-> instant conversion and every local
 * date, weekday, week, month and year comes from Temporal (temporal-polyfill).
 *
 * It favours being obviously right over being fast; the only shortcuts are caches (pieces per host and
 * date, period bounds per organizer date) and working per local date of the organizer's zone, which is
 * also how filters 4 and 5 are phrased.
 *
 * Readings taken where the document leaves room:
 * - `ignoreBookingUid` only ignores anything when it is a non-empty value (undefined never equals undefined here).
 * - An ignored block (rescheduled booking, non-blocking pending booking) is ignored completely: it is
 *   neither busy time nor a seat occupancy.
 * - An occupancy keeps its own `bufferBefore`/`bufferAfter` in the free test of section 2 and in the
 *   blocking intervals of showOptimizedSlots ("occupancies included" / "an occupancy counts here too").
 * - "Occupancies with the same [start, end) add up" within one host's busy list. The occupancy of
 *   `[s, e)` used by filter 3 (and reported as `booked`) is the largest such sum over the hosts in the
 *   start's `hostIds` (a booking with several hosts is listed in each host's busy list and must not be
 *   counted twice). The booking to join is the first occupancy with a `bookingUid` among those hosts
 *   (hosts in query order, blocks in list order), else null. Seat capacity is part of "free" (section 2,
 *   condition 3): a host whose occupancy of exactly [s, e) is full does not offer s, another may.
 * - showOptimizedSlots with several hosts works on each host combination (the fixed hosts, or the fixed
 *   hosts plus one round-robin host): its pieces are the intersected pieces, its W their union, its
 *   blocks those of every host of the combination. A free grid start that lies in no free stretch (only
 *   possible for a start sitting exactly on an occupancy) keeps its piece grid.
 * - Round-robin hosts with a null or undefined groupId form one group.
 * - The rolling search looks at the 365 local dates today .. today+364; if fewer than N qualify, the
 *   window ends at the start of today+365.
 */
import { Temporal } from 'temporal-polyfill';
import type { BusyBlock, HostAvailability, IntervalLimits, Slot, SlotQuery } from '../../src/scheduling/slot-query.js';
import type { HostSchedule } from '../../src/scheduling/working-hours.js';

const MIN = 60_000;
type Interval = [number, number];
type Date_ = Temporal.PlainDate;

// ---------------------------------------------------------------------------------------------------
// Temporal helpers

/** The instant of wall-clock `date minute` in `zone`; 1440 is the next midnight; gaps move forward, overlaps take the earlier instant. */
function wallClock(zone: string, date: Date_, minute: number): number {
  const day = minute === 1440 ? date.add({ days: 1 }) : date;
  const m = minute === 1440 ? 0 : minute;
  return day
    .toPlainDateTime({ hour: Math.floor(m / 60), minute: m % 60 })
    .toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
}

function localDate(zone: string, ms: number): Date_ {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone).toPlainDate();
}

/** 0 = Sunday ... 6 = Saturday. */
const weekdayOf = (date: Date_): number => date.dayOfWeek % 7;

// ---------------------------------------------------------------------------------------------------
// Section 1: working time

/** Merges intervals that overlap or touch. */
function mergeTouching(intervals: Interval[]): Interval[] {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Interval[] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** `from` minus `take`, both merged. */
function without(from: Interval[], take: Interval[]): Interval[] {
  let out = from;
  for (const [x0, x1] of take) {
    const next: Interval[] = [];
    for (const [f0, f1] of out) {
      if (f1 <= x0 || x1 <= f0) next.push([f0, f1]);
      else {
        if (f0 < x0) next.push([f0, x0]);
        if (x1 < f1) next.push([x1, f1]);
      }
    }
    out = next;
  }
  return out;
}

class HostCtx {
  readonly id: number;
  readonly fixed: boolean;
  readonly group: string;
  readonly schedule: HostSchedule | null;
  /** Blocks in effect (ignored ones dropped), with a flag for seat occupancies. */
  readonly blocks: { b: BusyBlock; occupancy: boolean }[];
  /** Times away (out of office), merged: not working time. */
  readonly away: Interval[];
  private readonly pieceCache = new Map<string, Interval[]>();

  constructor(host: HostAvailability, fixed: boolean, query: SlotQuery) {
    this.id = host.userId;
    this.fixed = fixed;
    this.group = host.groupId ?? '\u0000none';
    this.schedule = host.schedule;
    // Bare intervals are calendar blocks without buffers.
    const plain = (host.plainBusy ?? []).map(([start, end]): BusyBlock => ({ start, end, bufferBefore: 0, bufferAfter: 0, source: 'calendar' }));
    this.blocks = [...host.busy, ...plain].filter((b) => inEffect(b, query)).map((b) => ({ b, occupancy: isOccupancy(b, query) }));
    this.away = mergeTouching((host.away ?? []).filter(([start, end]) => end > start).map(([start, end]) => [start, end]));
  }

  /** The pieces of one local date of the host's zone. */
  piecesOf(date: Date_): Interval[] {
    const schedule = this.schedule;
    if (!schedule) return [];
    const key = date.toString();
    let pieces = this.pieceCache.get(key);
    if (!pieces) {
      const zone = schedule.timeZone;
      const overrides = schedule.overrides.filter((o) => o.date === key);
      const ranges =
        overrides.length > 0
          ? overrides.filter((o) => !(o.startMinute === 0 && o.endMinute === 0))
          : schedule.weeklyRules.filter((r) => r.days.includes(weekdayOf(date)));
      const intervals: Interval[] = [];
      for (const r of ranges) {
        const a = wallClock(zone, date, r.startMinute);
        const b = wallClock(zone, date, r.endMinute);
        if (b > a) intervals.push([a, b]);
      }
      pieces = mergeTouching(intervals);
      this.pieceCache.set(key, pieces);
    }
    return pieces;
  }

  /** Pieces of every local date from two days before the date of `from` to two days after the date of `to`. */
  piecesAround(from: number, to: number): Interval[] {
    if (!this.schedule) return [];
    const zone = this.schedule.timeZone;
    const first = localDate(zone, from).subtract({ days: 2 });
    const last = localDate(zone, to).add({ days: 2 });
    const out: Interval[] = [];
    for (let d = first; Temporal.PlainDate.compare(d, last) <= 0; d = d.add({ days: 1 })) out.push(...this.piecesOf(d));
    return out;
  }
}

// ---------------------------------------------------------------------------------------------------
// Section 2: busy time

function inEffect(b: BusyBlock, q: SlotQuery): boolean {
  if (q.ignoreBookingUid != null && q.ignoreBookingUid !== '' && b.bookingUid === q.ignoreBookingUid) return false;
  if (b.pending === true && b.blocksWhilePending !== true) return false;
  return true;
}

function isOccupancy(b: BusyBlock, q: SlotQuery): boolean {
  return (
    q.seatsPerTimeSlot !== null &&
    q.eventTypeId !== null &&
    (b.source === 'booking' || b.source === 'reservation') &&
    b.eventTypeId === q.eventTypeId
  );
}

/** Half-open intervals overlap when they share an instant (an empty interval overlaps nothing). */
const overlaps = (a0: number, a1: number, b0: number, b1: number): boolean => a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1;

// ---------------------------------------------------------------------------------------------------
// The whole computation for one query

class Oracle {
  private readonly q: SlotQuery;
  private readonly step: number;
  private readonly fixed: HostCtx[];
  private readonly roundRobin: HostCtx[];
  private readonly allHosts: HostCtx[];
  private readonly zo: string;
  private readonly today: Date_;
  private readonly dateInfo = new Map<string, { start: number; end: number }>();
  private readonly limitBookings: { start: number; end: number }[];
  private window: { lo: number; hi: number } | undefined;

  constructor(q: SlotQuery) {
    this.q = q;
    this.step = (q.slotInterval ?? q.duration) * MIN;
    const alone = q.hosts.length === 1;
    this.allHosts = q.hosts.map((h) => new HostCtx(h, alone || h.fixed, q));
    this.fixed = this.allHosts.filter((h) => h.fixed);
    this.roundRobin = this.allHosts.filter((h) => !h.fixed);
    this.zo = q.organizerTimeZone;
    this.today = localDate(this.zo, q.now);
    this.limitBookings = q.limitBookings.filter(
      (b) => !(q.ignoreBookingUid != null && q.ignoreBookingUid !== '' && b.uid === q.ignoreBookingUid),
    );
  }

  /** Start and end instants of a local date of the organizer's zone. */
  private day(date: Date_): { start: number; end: number } {
    const key = date.toString();
    let info = this.dateInfo.get(key);
    if (!info) {
      info = { start: wallClock(this.zo, date, 0), end: wallClock(this.zo, date.add({ days: 1 }), 0) };
      this.dateInfo.set(key, info);
    }
    return info;
  }

  // ---- section 2: free

  private free(host: HostCtx, w: Interval[], s: number, e: number): boolean {
    if (!w.some(([a, b]) => a <= s && e <= b)) return false;
    const { beforeEventBuffer: bb, afterEventBuffer: ab, seatsPerTimeSlot } = this.q;
    let seatsTaken = 0;
    for (const { b, occupancy } of host.blocks) {
      if (occupancy && b.start === s && b.end === e) {
        seatsTaken += b.seatsTaken ?? 1;
        continue;
      }
      if (overlaps(s - bb * MIN, e + ab * MIN, b.start - b.bufferBefore * MIN, b.end + b.bufferAfter * MIN)) return false;
    }
    // Section 2, condition 3: the host's own occupancy of exactly [s, e) must leave a seat.
    return seatsPerTimeSlot === null || seatsTaken < seatsPerTimeSlot;
  }

  // ---- section 3: grid of one host combination

  /** The offered starts in [from, to) of a combination of hosts that must all be free. */
  private comboStarts(combo: HostCtx[], from: number, to: number): Set<number> {
    const q = this.q;
    const dur = q.duration * MIN;
    // Section 1: working time W, away time taken out.
    const ws = combo.map((h) => without(mergeTouching(h.piecesAround(from, to)), h.away));
    // Pieces: each non-empty intersection of one piece of every host.
    let pieces: Interval[] = combo[0]!.piecesAround(from, to);
    for (const host of combo.slice(1)) {
      const next: Interval[] = [];
      for (const [a0, a1] of pieces) {
        for (const [b0, b1] of host.piecesAround(from, to)) {
          const s = Math.max(a0, b0);
          const e = Math.min(a1, b1);
          if (s < e) next.push([s, e]);
        }
      }
      pieces = next;
    }
    const freeAll = (s: number) => combo.every((h, i) => this.free(h, ws[i]!, s, s + dur));
    const grid = (anchor: number, end: number) => {
      const out: number[] = [];
      for (let s = anchor + q.offsetStart * MIN; s < end; s += this.step) out.push(s);
      return out;
    };

    const starts = new Set<number>();
    for (const [ps, pe] of pieces) {
      const pieceGrid = grid(ps, pe).filter(freeAll);
      if (!q.showOptimizedSlots) {
        for (const s of pieceGrid) starts.add(s);
        continue;
      }
      // Free stretches: the piece minus every blocking interval of every host of the combination.
      let stretches: Interval[] = [[ps, pe]];
      for (const host of combo) {
        stretches = without(stretches, host.away);
        for (const { b } of host.blocks) {
          const x0 = b.start - b.bufferBefore * MIN - q.afterEventBuffer * MIN;
          const x1 = b.end + b.bufferAfter * MIN + q.beforeEventBuffer * MIN;
          const next: Interval[] = [];
          for (const [f0, f1] of stretches) {
            if (!overlaps(f0, f1, x0, x1)) {
              next.push([f0, f1]);
              continue;
            }
            if (f0 < x0) next.push([f0, x0]);
            if (x1 < f1) next.push([x1, f1]);
          }
          stretches = next;
        }
      }
      const secondGridStretches: Interval[] = [];
      for (const [fs, fe] of stretches) {
        const first = pieceGrid.filter((s) => fs <= s && s < fe);
        const second = grid(fs, fe).filter(freeAll);
        if (second.length > first.length) {
          secondGridStretches.push([fs, fe]);
          for (const s of second) starts.add(s);
        }
      }
      for (const s of pieceGrid) {
        if (!secondGridStretches.some(([fs, fe]) => fs <= s && s < fe)) starts.add(s);
      }
    }
    for (const s of [...starts]) if (s < from || s >= to) starts.delete(s);
    return starts;
  }

  /** Section 3, several hosts: start -> hostIds, for starts in [from, to). */
  private offered(from: number, to: number): Map<number, number[]> {
    const result = new Map<number, number[]>();
    const fixedIds = this.fixed.map((h) => h.id);
    if (this.roundRobin.length === 0) {
      if (this.fixed.length === 0) return result;
      for (const s of this.comboStarts(this.fixed, from, to)) result.set(s, [...fixedIds]);
      return result;
    }
    const byHost = this.roundRobin.map((r) => ({ r, starts: this.comboStarts([...this.fixed, r], from, to) }));
    const groups = [...new Set(this.roundRobin.map((r) => r.group))];
    const all = new Set<number>();
    for (const { starts } of byHost) for (const s of starts) all.add(s);
    for (const s of all) {
      const offering = byHost.filter(({ starts }) => starts.has(s)).map(({ r }) => r);
      if (!groups.every((g) => offering.some((r) => r.group === g))) continue;
      result.set(s, [...fixedIds, ...offering.map((r) => r.id)]);
    }
    return result;
  }

  // ---- section 4: filters

  private passesNotice(s: number): boolean {
    return s >= this.q.now + this.q.minimumBookingNotice * MIN;
  }

  private periodOf(kind: keyof IntervalLimits, date: Date_): Interval {
    if (kind === 'day') {
      const { start, end } = this.day(date);
      return [start, end];
    }
    if (kind === 'week') {
      const back = (weekdayOf(date) - this.q.weekStart + 7) % 7;
      const first = date.subtract({ days: back });
      return [this.day(first).start, this.day(first.add({ days: 7 })).start];
    }
    if (kind === 'month') {
      const first = date.with({ day: 1 });
      return [this.day(first).start, this.day(first.add({ months: 1 })).start];
    }
    const first = Temporal.PlainDate.from({ year: date.year, month: 1, day: 1 });
    return [this.day(first).start, this.day(first.add({ years: 1 })).start];
  }

  /** `date` is the organizer-zone local date of `s`. */
  private passesLimits(s: number, date: Date_): boolean {
    const q = this.q;
    const e = s + q.duration * MIN;
    for (const kind of ['day', 'week', 'month', 'year'] as const) {
      const countLimit = q.bookingLimitsCount?.[kind];
      const durationLimit = q.bookingLimitsDuration?.[kind];
      if (countLimit === undefined && durationLimit === undefined) continue;
      // Every period [s, e) overlaps: the periods of every local date the slot touches.
      const periods = new Map<string, Interval>();
      for (let d = date; this.day(d).start < e; d = d.add({ days: 1 })) {
        const p = this.periodOf(kind, d);
        if (overlaps(s, e, p[0], p[1])) periods.set(`${p[0]}`, p);
      }
      for (const [p0, p1] of periods.values()) {
        const inP = this.limitBookings.filter((b) => overlaps(b.start, b.end, p0, p1));
        if (countLimit !== undefined && !(inP.length < countLimit)) return false;
        if (durationLimit !== undefined) {
          const total = inP.reduce((sum, b) => sum + (b.end - b.start), 0);
          if (!(total + q.duration * MIN <= durationLimit * MIN)) return false;
        }
      }
    }
    return this.passesTeamLimits(s, e);
  }

  /**
   * The team's count limits (the bookings of every event type of the team), each period taken in the
   * team's own zone and week start, which need not be the organizer's.
   */
  private passesTeamLimits(s: number, e: number): boolean {
    const team = this.q.teamLimits;
    if (!team) return true;
    const ignored = this.q.ignoreBookingUid;
    const bookings = team.bookings.filter((b) => !(ignored != null && ignored !== '' && b.uid === ignored));
    const dayStart = (date: Date_) => wallClock(team.timeZone, date, 0);
    for (const kind of ['day', 'week', 'month', 'year'] as const) {
      const limit = team.count[kind];
      if (limit === undefined) continue;
      for (let date = localDate(team.timeZone, s); dayStart(date) < e; date = date.add({ days: 1 })) {
        let first = date;
        let next: Date_;
        if (kind === 'day') next = date.add({ days: 1 });
        else if (kind === 'week') {
          first = date.subtract({ days: (weekdayOf(date) - team.weekStart + 7) % 7 });
          next = first.add({ days: 7 });
        } else if (kind === 'month') {
          first = date.with({ day: 1 });
          next = first.add({ months: 1 });
        } else {
          first = Temporal.PlainDate.from({ year: date.year, month: 1, day: 1 });
          next = first.add({ years: 1 });
        }
        const [p0, p1] = [dayStart(first), dayStart(next)];
        if (!overlaps(s, e, p0, p1)) continue;
        if (!(bookings.filter((b) => overlaps(b.start, b.end, p0, p1)).length < limit)) return false;
      }
    }
    return true;
  }

  /** Seats taken at exactly [s, e): per host, its occupancies of exactly [s, e) add up; the start takes the largest over its hosts. */
  private occupancyAt(s: number, hostIds: number[]): { booked: number; bookingUid: string | null } {
    const e = s + this.q.duration * MIN;
    let booked = 0;
    let bookingUid: string | null = null;
    for (const host of this.allHosts) {
      if (!hostIds.includes(host.id)) continue;
      let seats = 0;
      for (const { b, occupancy } of host.blocks) {
        if (!occupancy || b.start !== s || b.end !== e) continue;
        seats += b.seatsTaken ?? 1;
        if (bookingUid === null && b.source === 'booking' && b.bookingUid !== undefined) bookingUid = b.bookingUid;
      }
      booked = Math.max(booked, seats);
    }
    return { booked, bookingUid };
  }

  private passesSeats(s: number, hostIds: number[]): boolean {
    const seats = this.q.seatsPerTimeSlot;
    return seats === null || this.occupancyAt(s, hostIds).booked < seats;
  }

  private passes123(s: number, hostIds: number[], date: Date_): boolean {
    // Filter 2 spares a seated slot with a booking to join: joining adds an attendee, not a booking.
    const joins = this.q.seatsPerTimeSlot !== null && this.occupancyAt(s, hostIds).bookingUid !== null;
    return this.passesNotice(s) && (joins || this.passesLimits(s, date)) && this.passesSeats(s, hostIds);
  }

  /** Offered starts on one local date of the organizer's zone. */
  private startsOn(date: Date_): Map<number, number[]> {
    const { start, end } = this.day(date);
    return this.offered(start, end);
  }

  private bookingWindow(): { lo: number; hi: number } {
    if (this.window) return this.window;
    const w = this.q.bookingWindow;
    let lo = -Infinity;
    let hi = Infinity;
    if (w === null) {
      // unlimited
    } else if (w.type === 'range') {
      lo = this.day(Temporal.PlainDate.from(w.start)).start;
      hi = this.day(Temporal.PlainDate.from(w.end).add({ days: 1 })).start;
    } else if (!w.rolling && w.type === 'calendarDays') {
      hi = this.day(this.today.add({ days: w.days + 1 })).start;
    } else if (!w.rolling && w.type === 'businessDays') {
      let d = this.today;
      for (let i = 0; i < w.days; i++) {
        d = d.add({ days: 1 });
        while (weekdayOf(d) === 0 || weekdayOf(d) === 6) d = d.add({ days: 1 });
      }
      hi = this.day(d.add({ days: 1 })).start;
    } else {
      // rolling: the end of the N-th qualifying local date counting from today, searching 365 days.
      let found = 0;
      hi = this.day(this.today.add({ days: 365 })).start;
      for (let i = 0; i < 365; i++) {
        const d = this.today.add({ days: i });
        if (w.type === 'businessDays' && (weekdayOf(d) === 0 || weekdayOf(d) === 6)) continue;
        const qualifies = [...this.startsOn(d)].some(([s, hostIds]) => this.passes123(s, hostIds, d));
        if (qualifies && ++found === w.days) {
          hi = this.day(d.add({ days: 1 })).start;
          break;
        }
      }
    }
    this.window = { lo, hi };
    return this.window;
  }

  private passesWindow(s: number): boolean {
    const { lo, hi } = this.bookingWindow();
    return lo <= s && s < hi;
  }

  run(): Slot[] {
    const q = this.q;
    if (q.to <= q.from) return [];
    const firstDate = localDate(this.zo, q.from);
    const lastDate = localDate(this.zo, q.to - 1);
    const slots: Slot[] = [];
    for (let d = firstDate; Temporal.PlainDate.compare(d, lastDate) <= 0; d = d.add({ days: 1 })) {
      const offered = this.startsOn(d);
      // Filters 1-4 over the whole local date.
      let kept = [...offered.keys()].sort((a, b) => a - b).filter((s) => this.passes123(s, offered.get(s)!, d) && this.passesWindow(s));
      // Filter 5: the earliest start of the whole local date.
      if (q.onlyShowFirstAvailableSlot) kept = kept.slice(0, 1);
      // Filter 6: the query window.
      for (const s of kept) {
        if (!(q.from <= s && s < q.to)) continue;
        const slot: Slot = { start: s, end: s + q.duration * MIN, hostIds: [...offered.get(s)!].sort((a, b) => a - b) };
        if (q.seatsPerTimeSlot !== null) {
          const { booked, bookingUid } = this.occupancyAt(s, slot.hostIds);
          slot.seats = { booked, total: q.seatsPerTimeSlot, bookingUid };
        }
        slots.push(slot);
      }
    }
    return slots.sort((a, b) => a.start - b.start);
  }
}

export function oracleSlots(query: SlotQuery): Slot[] {
  return new Oracle(query).run();
}
