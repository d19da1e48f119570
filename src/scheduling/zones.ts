/**
 * Wall-clock <-> instant conversion for IANA zones, on integer epoch milliseconds. Semantics are
 * Temporal's "compatible" disambiguation: a local time inside a spring-forward gap moves forward by
 * the gap, and an ambiguous local time (fall-back overlap) takes the earlier instant.
 *
 * Offsets come from Intl and are cached per zone and quarter hour. A bucket whose two ends share an
 * offset holds it throughout (no zone changes offset twice within 15 minutes); a bucket holding a
 * transition (most fall on quarter hours, but e.g. St John's changed at 00:01 local until 2011) is
 * resolved exactly for each instant.
 */
const MINUTE = 60_000;
const QUARTER_HOUR = 15 * MINUTE;
const DAY = 86_400_000;
const MAX_CACHED_OFFSETS = 250_000;

/**
 * Date.UTC for any year: Date.UTC reads years 0-99 as 1900-1999. Month and day may overflow, as with
 * Date.UTC.
 */
export function utcTime(year: number, monthIndex: number, day: number, hours = 0, minutes = 0, seconds = 0): number {
  if (year < 0 || year > 99) return Date.UTC(year, monthIndex, day, hours, minutes, seconds);
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

const formatters = new Map<string, Intl.DateTimeFormat>();
/** Offsets by zone, then by quarter-hour bucket (numeric keys: no string built per lookup). */
const offsetCache = new Map<string, Map<number, number>>();
let cachedOffsets = 0;

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

function computeOffsetMinutes(zone: string, epochMs: number): number {
  const parts: Record<string, string> = {};
  for (const { type, value } of formatterFor(zone).formatToParts(epochMs)) parts[type] = value;
  const year = parts.era === 'BC' ? 1 - Number(parts.year) : Number(parts.year);
  const asUtc = utcTime(year, Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return Math.round((asUtc - Math.floor(epochMs / 1000) * 1000) / MINUTE);
}

/** Cache marker of a bucket whose offset changes inside it. */
const CHANGES_INSIDE = Number.NaN;

/** The last bucket looked up: engines ask for the same quarter hour many times in a row. */
let lastZone = '';
let lastBucket = Number.NaN;
let lastOffset = Number.NaN;

/** UTC offset of `zone` at `epochMs`, in minutes (e.g. 330 for Asia/Kolkata). */
export function offsetMinutes(zone: string, epochMs: number): number {
  const bucket = Math.floor(epochMs / QUARTER_HOUR);
  let offset: number | undefined;
  if (bucket === lastBucket && zone === lastZone) offset = lastOffset;
  else {
    let zoneOffsets = offsetCache.get(zone);
    if (!zoneOffsets) offsetCache.set(zone, (zoneOffsets = new Map()));
    offset = zoneOffsets.get(bucket);
    if (offset === undefined) {
      if (cachedOffsets >= MAX_CACHED_OFFSETS) {
        offsetCache.clear();
        offsetCache.set(zone, (zoneOffsets = new Map()));
        cachedOffsets = 0;
      }
      const atStart = computeOffsetMinutes(zone, bucket * QUARTER_HOUR);
      const atEnd = computeOffsetMinutes(zone, (bucket + 1) * QUARTER_HOUR - 1000);
      offset = atStart === atEnd ? atStart : CHANGES_INSIDE;
      zoneOffsets.set(bucket, offset);
      cachedOffsets += 1;
    }
    lastZone = zone;
    lastBucket = bucket;
    lastOffset = offset;
  }
  return Number.isNaN(offset) ? computeOffsetMinutes(zone, epochMs) : offset;
}

/** The instant of a wall-clock time in `zone`; `minuteOfDay` may be 1440 (the next day's midnight). */
export function zonedToEpoch(zone: string, year: number, month: number, day: number, minuteOfDay: number): number {
  const wall = utcTime(year, month - 1, day) + minuteOfDay * MINUTE;
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
