/**
 * Wall-clock <-> instant conversion for IANA zones, on integer epoch milliseconds. Semantics are
 * Temporal's "compatible" disambiguation: a local time inside a spring-forward gap moves forward by
 * the gap, and an ambiguous local time (fall-back overlap) takes the earlier instant.
 *
 * Offsets come from Intl, read once per zone and span of 6 days: the span's transitions (the
 * instants its offset changes) are found by probing every 3 days and bisecting to the second, and
 * every lookup is then a binary search over them. No Intl call is made per instant, so the first
 * query in a process costs about what later ones do.
 */
const MINUTE = 60_000;
const QUARTER_HOUR = 15 * MINUTE;
const DAY = 86_400_000;
/**
 * Probe spacing: shorter than any stay in an offset between two transitions that undo each other (the
 * shortest in the tz database: Africa/Freetown, 3.99 days in 1939), so no such pair falls between two
 * probes. Transitions that do not undo each other are all found by the bisection, however close.
 */
const PROBE_STEP = 3 * DAY;
const PROBES_PER_SPAN = 2;
const SPAN = PROBES_PER_SPAN * PROBE_STEP;
/** JavaScript's instants end 8.64e15 ms either side of 1970. */
const LAST_INSTANT = 8.64e15;
/** Spans kept before the tables are dropped (a few hundred bytes each). */
const MAX_CACHED_SPANS = 50_000;

/**
 * The work the tables save, counted since start: Intl probes (one format call each), table searches
 * (a lookup the last-offset cache did not answer), and dates of years 0-99 (the slow way round
 * Date.UTC's reading of them as 1900-1999). Tests hold the caches and shortcuts to these.
 */
const work = { intlProbes: 0, tableSearches: 0, yearsBelow100: 0 };
export const zoneWork = (): Readonly<typeof work> => ({ ...work });

/**
 * Date.UTC for any year: Date.UTC reads years 0-99 as 1900-1999. Month and day may overflow, as with
 * Date.UTC.
 */
export function utcTime(year: number, monthIndex: number, day: number, hours = 0, minutes = 0, seconds = 0): number {
  if (year < 0 || year > 99) return Date.UTC(year, monthIndex, day, hours, minutes, seconds);
  work.yearsBelow100 += 1;
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  date.setUTCHours(hours, minutes, seconds, 0);
  return date.getTime();
}

/**
 * Nothing the API offers or stores may end at or after this instant: a day before the end of year
 * 9999, so that every instant before it is still in year 9999 in every zone (offsets stay within
 * 15 hours), and prints and stores as an ISO 8601 four-digit year.
 */
export const END_OF_TIME = Date.UTC(9999, 11, 31);

/** A formatter that prints `zone`'s offset, e.g. `3/1/2026, GMT+05:45` (seconds too where it has them). */
const offsetFormatterFor = (zone: string) => new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });


/** `zone`'s UTC offset at `epochMs` in seconds, as Intl reports it. */
function probeOffsetSeconds(formatter: Intl.DateTimeFormat, epochMs: number): number {
  work.intlProbes += 1;
  const text = formatter.format(epochMs);
  const at = text.lastIndexOf('GMT') + 3;
  if (at === text.length) return 0; // "GMT": UTC itself
  const digits = (from: number) => (text.charCodeAt(from) - 48) * 10 + text.charCodeAt(from + 1) - 48;
  const seconds = digits(at + 1) * 3600 + digits(at + 4) * 60 + (text.length > at + 6 ? digits(at + 7) : 0);
  return text.charCodeAt(at) === 45 || text.charCodeAt(at) === 0x2212 ? -seconds : seconds; // '-' or U+2212 minus
}

/** Offsets are read in whole minutes (local mean times before 1900 had seconds). */
const toMinutes = (seconds: number) => Math.round(seconds / 60);

/** One span of a zone: where each of its offsets begins (the first at the span's start). */
interface Span {
  starts: number[];
  offsets: number[];
  /** Intl's offsets (seconds) at the span's start and end, which its neighbours probe too. */
  startSeconds: number;
  endSeconds: number;
}

interface ZoneTable {
  formatter: Intl.DateTimeFormat;
  spans: Map<number, Span>;
}

// Intl's first formatter loads ICU's locale and zone data (10-30 ms once per process): paid here, on
// import (server start), rather than by the first request that converts a time.
offsetFormatterFor('UTC').format(0);

const tables = new Map<string, ZoneTable>();
let cachedSpans = 0;

/** A whole second in (from, to] where the offset stops being `before` (it is `before` at `from`, not at `to`). */
function firstChange(formatter: Intl.DateTimeFormat, from: number, before: number, to: number): number {
  let low = from;
  let high = to;
  // Bisection on a grid keeps the offset `before` at `low` and not at `high`: first on quarter hours,
  // where nearly every transition falls, then (once `high` - 1 s is found still past it) to the second.
  const narrow = (grain: number) => {
    for (;;) {
      const first = Math.floor(low / grain) * grain + grain;
      const last = Math.ceil(high / grain) * grain - grain;
      if (first > last) return;
      const mid = first + Math.floor((last - first) / grain / 2) * grain;
      if (probeOffsetSeconds(formatter, mid) === before) low = mid;
      else high = mid;
    }
  };
  narrow(QUARTER_HOUR);
  if (high - 1000 > low) {
    if (probeOffsetSeconds(formatter, high - 1000) === before) return high;
    high -= 1000;
    narrow(1000);
  }
  return high;
}

/**
 * Reads span `index` of a zone from Intl: a probe every PROBE_STEP, bisection where two probes differ.
 * A neighbouring span already read gives the probe at the edge they share.
 */
function readSpan({ formatter, spans }: ZoneTable, index: number): Span {
  const spanStart = index * SPAN;
  const clamp = (at: number) => Math.min(LAST_INSTANT, Math.max(-LAST_INSTANT, at));
  let previous = clamp(spanStart);
  let previousSeconds = spans.get(index - 1)?.endSeconds ?? probeOffsetSeconds(formatter, previous);
  const startSeconds = previousSeconds;
  const starts = [spanStart];
  const offsets = [toMinutes(previousSeconds)];
  let seconds = previousSeconds;
  for (let probe = 1; probe <= PROBES_PER_SPAN; probe++) {
    const at = clamp(spanStart + probe * PROBE_STEP);
    const next = probe === PROBES_PER_SPAN ? spans.get(index + 1) : undefined;
    seconds = next ? next.startSeconds : probeOffsetSeconds(formatter, at);
    // Several transitions between two probes are found one after the other.
    while (seconds !== previousSeconds) {
      const change = firstChange(formatter, previous, previousSeconds, at);
      previous = change;
      previousSeconds = change === at ? seconds : probeOffsetSeconds(formatter, change);
      const minutes = toMinutes(previousSeconds);
      if (minutes !== offsets[offsets.length - 1]) {
        starts.push(change);
        offsets.push(minutes);
      }
    }
    previous = at;
  }
  return { starts, offsets, startSeconds, endSeconds: seconds };
}

function tableOf(zone: string): ZoneTable {
  let table = tables.get(zone);
  if (!table) {
    table = { formatter: offsetFormatterFor(zone), spans: new Map() };
    tables.set(zone, table);
  }
  return table;
}

/** The last offset looked up and the instants it holds between: engines ask near the same instant many times in a row. */
let lastZone: string | null = null;
let lastFrom = Number.NaN;
let lastUntil = Number.NaN;
let lastOffset = Number.NaN;

/** Zones whose offsets are held (read from Intl since start or since forgetZoneTables). */
export const cachedZoneCount = (): number => tables.size;

/** Drops every zone's offsets and formatter: the next lookup in each zone reads Intl again. */
export function forgetZoneTables(): void {
  tables.clear();
  cachedSpans = 0;
  lastZone = null;
  lastFrom = lastUntil = lastOffset = Number.NaN;
}

/** UTC offset of `zone` at `epochMs`, in minutes (e.g. 330 for Asia/Kolkata). */
export function offsetMinutes(zone: string, epochMs: number): number {
  if (epochMs >= lastFrom && epochMs < lastUntil && zone === lastZone) return lastOffset;
  if (!(Math.abs(epochMs) <= LAST_INSTANT)) throw new RangeError(`Invalid time value: ${epochMs}`);
  work.tableSearches += 1;
  const index = Math.floor(epochMs / SPAN);
  let table = tableOf(zone);
  let span = table.spans.get(index);
  if (!span) {
    if (cachedSpans >= MAX_CACHED_SPANS) {
      tables.clear();
      cachedSpans = 0;
      table = tableOf(zone);
    }
    span = readSpan(table, index);
    table.spans.set(index, span);
    cachedSpans += 1;
  }
  const { starts, offsets } = span;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= epochMs) low = mid;
    else high = mid - 1;
  }
  lastZone = zone;
  lastFrom = starts[low]!;
  lastUntil = low + 1 < starts.length ? starts[low + 1]! : (index + 1) * SPAN;
  lastOffset = offsets[low]!;
  return lastOffset;
}

/** The instant of a wall-clock time in `zone`; `minuteOfDay` may be 1440 (the next day's midnight). */
export function zonedToEpoch(zone: string, year: number, month: number, day: number, minuteOfDay: number): number {
  return epochOfWallClock(zone, utcTime(year, month - 1, day) + minuteOfDay * MINUTE);
}

/**
 * The instant of a wall-clock time in `zone`, given as the instant that wall-clock time would be in
 * UTC (for the start of a day number, `dayNo * 86_400_000`).
 */
export function epochOfWallClock(zone: string, wall: number): number {
  // Nearly always a day either side lies in the offset looked up last.
  if (wall - DAY >= lastFrom && wall + DAY < lastUntil && zone === lastZone) return wall - lastOffset * MINUTE;
  const before = offsetMinutes(zone, wall - DAY);
  const after = offsetMinutes(zone, wall + DAY);
  if (before === after) return wall - before * MINUTE;
  const withBefore = wall - before * MINUTE;
  const withAfter = wall - after * MINUTE;
  const beforeFits = offsetMinutes(zone, withBefore) === before;
  const afterFits = offsetMinutes(zone, withAfter) === after;
  if (beforeFits && afterFits) return Math.min(withBefore, withAfter); // overlap: the earlier instant
  if (afterFits) return withAfter;
  // Either the time exists only with the earlier offset, or it is in a gap: the earlier offset moves
  // a gap time forward by the length of the gap.
  return withBefore;
}

export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

/** The local calendar date in `zone` at `epochMs`. */
export function localDateOf(zone: string, epochMs: number): LocalDate {
  const local = new Date(epochMs + offsetMinutes(zone, epochMs) * MINUTE);
  return { year: local.getUTCFullYear(), month: local.getUTCMonth() + 1, day: local.getUTCDate() };
}

/**
 * The last day number whose dates, with a day to spare either side, JavaScript can still hold (they
 * end about 273,790 years after 1970). Nothing later can be converted to an instant.
 */
export const LAST_DAY_NUMBER = 100_000_000 - 2;

/** Days since 1970-01-01 of a calendar date: a zone-free day number for stepping through dates. */
export function dayNumber(date: LocalDate): number {
  return Math.floor(utcTime(date.year, date.month - 1, date.day) / DAY);
}

export function dateOfDayNumber(dayNo: number): LocalDate {
  const date = new Date(dayNo * DAY);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** 0 = Sunday ... 6 = Saturday. */
export function weekdayOfDayNumber(dayNo: number): number {
  return (((dayNo + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
}

export function formatDate(date: LocalDate): string {
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}

export function parseDate(text: string): LocalDate {
  const [year, month, day] = text.split('-').map(Number) as [number, number, number];
  return { year, month, day };
}

/** Day number (see `dayNumber`) of the local date in `zone` at `epochMs`. */
export function localDayNumber(zone: string, epochMs: number): number {
  return Math.floor((epochMs + offsetMinutes(zone, epochMs) * MINUTE) / DAY);
}

/** The first instant of a local date in `zone` (its midnight, or the end of a gap at midnight). */
export function startOfDayNumber(zone: string, dayNo: number): number {
  const { year, month, day } = dateOfDayNumber(dayNo);
  return zonedToEpoch(zone, year, month, day, 0);
}

const pad2 = (value: number) => String(value).padStart(2, '0');

/** ISO 8601 with milliseconds and `zone`'s offset at that instant, e.g. `2050-09-05T09:00:00.000+02:00`. */
export function formatWithOffset(epochMs: number, zone: string): string {
  const offset = offsetMinutes(zone, epochMs);
  const local = new Date(epochMs + offset * MINUTE).toISOString().slice(0, 23);
  const magnitude = Math.abs(offset);
  return `${local}${offset < 0 ? '-' : '+'}${pad2(Math.floor(magnitude / 60))}:${pad2(magnitude % 60)}`;
}
