import ICAL from 'ical.js';
import { isIanaTimeZone } from '../../lib/time-zones.js';
import { epochOfWallClock, localDateOf, offsetMinutes, utcTime } from '../../scheduling/zones.js';
import { CalendarProviderError, type ExternalBusyInterval } from '../calendar-types.js';
import { IanaZone, ianaZone, ianaZoneOfTzid } from './ics-zones.js';

const DAY = 86_400_000;
/** How much work one expansion may do. */
export interface ExpansionLimits {
  /** Occurrences of one event looked at (before and inside the window) before it is given up as unbounded. */
  occurrencesPerEvent: number;
  /**
   * Candidate dates ical.js may test for one event. A rule whose filters can never match
   * (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30) makes its iterator test dates forever inside a single next()
   * call, so counting occurrences alone would not stop it.
   */
  ruleStepsPerEvent: number;
  /**
   * Occurrences and candidate dates in the whole feed, past which it fails as invalid_data. The feed's
   * size is capped where it is fetched, but a small file can still ask for much work, and the
   * expansion holds the worker's event loop (about 5 µs a step on a 2-core machine).
   */
  workPerFeed: number;
}

export const DEFAULT_EXPANSION_LIMITS: ExpansionLimits = { occurrencesPerEvent: 10_000, ruleStepsPerEvent: 50_000, workPerFeed: 2_000_000 };

/** [from, to) in epoch ms. */
export interface BusyWindow {
  from: number;
  to: number;
}

/** An event left out of a feed's busy times, and why. */
export interface SkippedEvent {
  uid: string | null;
  /** `unreadable`: the VEVENT is malformed; `unbounded`: its recurrence did not reach the window's end within the limits. */
  kind: 'unreadable' | 'unbounded';
  reason: string;
}

export interface FeedBusyTimes {
  /** X-WR-CALNAME, the name calendar apps give a shared calendar. */
  calendarName: string | null;
  /** Sorted by start, not merged; each whole even where it sticks out of the window. */
  intervals: ExternalBusyInterval[];
  skipped: SkippedEvent[];
}

class UnboundedEvent extends Error {}

/** What every event's expansion shares: the window, the zone of floating times, the limits, the feed's work left. */
interface Expansion {
  window: BusyWindow;
  floatingZone: string;
  limits: ExpansionLimits;
  workLeft: number;
}

function spendWork(expansion: Expansion): void {
  if (--expansion.workLeft < 0) {
    throw new CalendarProviderError('invalid_data', `the feed's recurrences need more than ${expansion.limits.workPerFeed} steps to expand`);
  }
}

/**
 * The busy times of an iCalendar feed inside `window`: every occurrence of every VEVENT that overlaps
 * it, with RRULE/RDATE/EXDATE expanded, RECURRENCE-ID overrides replacing the occurrences they name,
 * and free, cancelled and zero-length ones left out. Zones come from the file's VTIMEZONEs, else from
 * the IANA (or Windows) name a TZID gives; floating times and all-day dates are in `floatingZone`, as
 * are times whose TZID names no zone svc knows. A malformed VEVENT is skipped and listed in `skipped`;
 * a file that is not iCalendar at all, or whose events are all unreadable, throws
 * CalendarProviderError('invalid_data'), as does one that needs more work than `limits.workPerFeed`.
 */
export function expandBusyIntervals(
  icsText: string,
  window: BusyWindow,
  floatingZone: string,
  limits: ExpansionLimits = DEFAULT_EXPANSION_LIMITS,
): FeedBusyTimes {
  if (!Number.isFinite(window.from) || !Number.isFinite(window.to) || window.from >= window.to) {
    throw new RangeError(`not a window: [${window.from}, ${window.to})`);
  }
  if (!isIanaTimeZone(floatingZone)) throw new RangeError(`not an IANA zone: ${floatingZone}`);

  const { root, eventBlocks, unterminatedBlocks } = readCalendar(icsText);
  const calendarName = textValue(root, 'x-wr-calname')?.trim() || null;
  const skipped: SkippedEvent[] = [];
  for (let index = 0; index < unterminatedBlocks; index++) skipped.push({ uid: null, kind: 'unreadable', reason: 'BEGIN:VEVENT without END:VEVENT' });

  const masters: { component: ICAL.Component; uid: string | null }[] = [];
  const overrides = new Map<string, Map<number, { component: ICAL.Component; sequence: number }>>();
  const orphanOverrides: ICAL.Component[] = [];
  for (const block of eventBlocks) {
    let component: ICAL.Component;
    try {
      const jcal: unknown = ICAL.parse(block);
      if (!Array.isArray(jcal) || jcal[0] !== 'vevent') throw new Error('not a single VEVENT');
      component = new ICAL.Component(jcal, root);
    } catch (error) {
      skipped.push({ uid: uidInText(block), kind: 'unreadable', reason: messageOf(error) });
      continue;
    }
    const uid = textValue(component, 'uid');
    try {
      pinFloatingTimes(component, floatingZone);
      const recurrenceId = component.getFirstPropertyValue('recurrence-id');
      if (recurrenceId === null) {
        masters.push({ component, uid });
        continue;
      }
      if (!(recurrenceId instanceof ICAL.Time)) throw new Error('RECURRENCE-ID is not a date or date-time');
      if (uid === null) {
        orphanOverrides.push(component);
        continue;
      }
      const key = epochOf(recurrenceId, floatingZone);
      const sequence = Number(component.getFirstPropertyValue('sequence') ?? 0) || 0;
      let byKey = overrides.get(uid);
      if (!byKey) overrides.set(uid, (byKey = new Map()));
      const present = byKey.get(key);
      // Feeds sometimes carry an outdated copy of an override next to the current one.
      if (!present || sequence >= present.sequence) byKey.set(key, { component, sequence });
    } catch (error) {
      skipped.push({ uid, kind: 'unreadable', reason: messageOf(error) });
    }
  }

  const intervals: ExternalBusyInterval[] = [];
  const expansion: Expansion = { window, floatingZone, limits, workLeft: limits.workPerFeed };
  const masterLengths = new Map<string, Length>();
  for (const { component, uid } of masters) {
    try {
      const dtstart = startOf(component);
      const length = lengthOf(component, dtstart, floatingZone);
      if (uid !== null && !masterLengths.has(uid)) masterLengths.set(uid, length);
      if (!isBusy(component)) continue;
      // Collected apart so that an event given up halfway leaves none of its occurrences behind.
      const found: ExternalBusyInterval[] = [];
      expandMaster(component, uid, dtstart, length, uid === null ? undefined : overrides.get(uid), expansion, found);
      for (const interval of found) intervals.push(interval);
    } catch (error) {
      if (error instanceof CalendarProviderError) throw error;
      skipped.push({ uid, kind: error instanceof UnboundedEvent ? 'unbounded' : 'unreadable', reason: messageOf(error) });
    }
  }
  const overrideComponents = [...[...overrides.values()].flatMap((byKey) => [...byKey.values()].map((entry) => entry.component)), ...orphanOverrides];
  for (const component of overrideComponents) {
    const uid = textValue(component, 'uid');
    try {
      if (!isBusy(component)) continue;
      const recurrenceId = component.getFirstPropertyValue('recurrence-id') as ICAL.Time;
      const start = (component.getFirstPropertyValue('dtstart') as ICAL.Time | null) ?? recurrenceId;
      const hasOwnLength = component.hasProperty('dtend') || component.hasProperty('duration');
      const length = !hasOwnLength && uid !== null ? (masterLengths.get(uid) ?? lengthOf(component, start, floatingZone)) : lengthOf(component, start, floatingZone);
      const startMs = epochOf(start, floatingZone);
      const endMs = endOf(start, startMs, length, floatingZone);
      if (endMs > startMs && startMs < window.to && endMs > window.from) intervals.push({ start: startMs, end: endMs, uid });
    } catch (error) {
      skipped.push({ uid, kind: 'unreadable', reason: messageOf(error) });
    }
  }

  const eventCount = eventBlocks.length + unterminatedBlocks;
  if (eventCount > 0 && skipped.length === eventCount && skipped.every((entry) => entry.kind === 'unreadable')) {
    throw new CalendarProviderError('invalid_data', `none of the feed's ${eventCount} events could be read (first: ${skipped[0]!.reason})`);
  }
  intervals.sort((a, b) => a.start - b.start || a.end - b.end);
  return { calendarName, intervals, skipped };
}

// ---- reading the file ----

/**
 * The calendar without its events, parsed, and each VEVENT's text on its own: one malformed line then
 * costs one event, not the feed, since ical.js's parser gives up on the whole text at the first one.
 */
function readCalendar(icsText: string): { root: ICAL.Component; eventBlocks: string[]; unterminatedBlocks: number } {
  const lines = icsText.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  if (!lines.some((line) => /^BEGIN:VCALENDAR\s*$/i.test(line))) {
    throw new CalendarProviderError('invalid_data', 'not iCalendar: no BEGIN:VCALENDAR line');
  }
  const outside: string[] = [];
  const eventBlocks: string[] = [];
  let unterminatedBlocks = 0;
  let current: string[] | null = null;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const marker = line.trimEnd().toUpperCase();
    if (current === null) {
      if (marker === 'BEGIN:VEVENT') current = [line];
      else outside.push(line);
      continue;
    }
    if (marker === 'BEGIN:VEVENT' || marker === 'END:VCALENDAR') {
      unterminatedBlocks += 1;
      current = marker === 'BEGIN:VEVENT' ? [line] : null;
      if (current === null) outside.push(line);
      continue;
    }
    current.push(withDateValueType(line));
    if (marker === 'END:VEVENT') {
      eventBlocks.push(current.join('\r\n'));
      current = null;
    }
  }
  if (current !== null) unterminatedBlocks += 1;

  let parsed: unknown;
  try {
    parsed = ICAL.parse(outside.join('\r\n'));
  } catch (error) {
    throw new CalendarProviderError('invalid_data', `unreadable iCalendar: ${messageOf(error)}`);
  }
  const components = (Array.isArray(parsed) && typeof parsed[0] === 'string' ? [parsed] : (parsed as unknown[])).filter(
    (jcal): jcal is unknown[] => Array.isArray(jcal) && jcal[0] === 'vcalendar',
  );
  if (components.length === 0) throw new CalendarProviderError('invalid_data', 'not iCalendar: no VCALENDAR component');
  const root = new ICAL.Component(components[0]!);
  // Feeds glued together from several calendars: their zone definitions all serve the events.
  for (const other of components.slice(1)) {
    for (const zone of new ICAL.Component(other).getAllSubcomponents('vtimezone')) root.addSubcomponent(zone);
  }
  return { root, eventBlocks, unterminatedBlocks };
}

const DATE_ONLY_LINE = /^(DTSTART|DTEND|RECURRENCE-ID|EXDATE|RDATE)((?:;[^:]*)?):(\d{8}(?:,\d{8})*)$/i;

/** `DTSTART:20260329` (no VALUE=DATE, which some producers leave out) read as the date it means. */
function withDateValueType(line: string): string {
  const match = DATE_ONLY_LINE.exec(line.trimEnd());
  if (!match || /;VALUE=/i.test(match[2]!)) return line;
  return `${match[1]}${match[2]};VALUE=DATE:${match[3]}`;
}

function uidInText(block: string): string | null {
  return /^UID[^:]*:(.*)$/im.exec(block)?.[1]?.trim() || null;
}

function textValue(component: ICAL.Component, name: string): string | null {
  const value = component.getFirstPropertyValue(name);
  return typeof value === 'string' ? value : null;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---- times ----

const DATE_PROPERTIES = ['dtstart', 'dtend', 'recurrence-id', 'rdate', 'exdate'];

/**
 * Gives every date-time ical.js left floating a zone: the IANA zone its TZID names when the file does
 * not define that TZID, else `floatingZone`. ical.js computes floating times as UTC, which would put
 * UNTIL and EXDATE comparisons and override matching off by the zone's offset.
 */
function pinFloatingTimes(component: ICAL.Component, floatingZone: string): void {
  for (const name of DATE_PROPERTIES) {
    for (const property of component.getAllProperties(name)) {
      const tzid = property.getParameter('tzid');
      const tzidText = Array.isArray(tzid) ? tzid[0] : tzid;
      const zone = ianaZone((typeof tzidText === 'string' ? ianaZoneOfTzid(tzidText) : null) ?? floatingZone);
      for (const value of property.getValues()) {
        if (value instanceof ICAL.Time) pin(value, zone);
        else if (value instanceof ICAL.Period) {
          pin(value.start, zone);
          if (value.end) pin(value.end, zone);
        }
      }
    }
  }
}

function pin(time: ICAL.Time, zone: IanaZone): void {
  if (!time.isDate && time.zone === ICAL.Timezone.localTimezone) time.zone = zone;
}

/** The instant of an ical.js time read in `zone` (its own by default); a date is its midnight in `floatingZone`. */
function epochOf(time: ICAL.Time, floatingZone: string, zone: ICAL.Timezone | null = time.zone): number {
  if (time.isDate) return epochOfWallClock(floatingZone, utcTime(time.year, time.month - 1, time.day));
  const wall = utcTime(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  if (zone === ICAL.Timezone.utcTimezone) return wall;
  if (zone instanceof IanaZone) return epochOfWallClock(zone.ianaName, wall);
  if (!zone || zone === ICAL.Timezone.localTimezone) return epochOfWallClock(floatingZone, wall);
  return wall - zone.utcOffset(time) * 1000; // a VTIMEZONE from the file
}

function startOf(component: ICAL.Component): ICAL.Time {
  const start = component.getFirstPropertyValue('dtstart');
  if (!(start instanceof ICAL.Time)) throw new Error('VEVENT without DTSTART');
  return start;
}

/** An occurrence's length: whole days on the calendar (23 or 25 hours across a change), then exact ms. */
interface Length {
  days: number;
  ms: number;
}

function lengthOf(component: ICAL.Component, start: ICAL.Time, floatingZone: string): Length {
  const end = component.getFirstPropertyValue('dtend');
  if (end instanceof ICAL.Time) {
    if (start.isDate && end.isDate) return { days: Math.round((utcTime(end.year, end.month - 1, end.day) - utcTime(start.year, start.month - 1, start.day)) / DAY), ms: 0 };
    // RFC 5545 3.8.5.3: a DTEND gives every occurrence the exact duration of the first.
    return { days: 0, ms: epochOf(end, floatingZone) - epochOf(start, floatingZone) };
  }
  const duration = component.getFirstPropertyValue('duration');
  if (duration instanceof ICAL.Duration) return durationLength(duration);
  return start.isDate ? { days: 1, ms: 0 } : { days: 0, ms: 0 };
}

function endOf(start: ICAL.Time, startMs: number, length: Length, floatingZone: string, zone: ICAL.Timezone | null = start.zone): number {
  if (length.days === 0) return startMs + length.ms;
  const end = start.clone();
  end.adjust(length.days, 0, 0, 0);
  return epochOf(end, floatingZone, zone) + length.ms;
}

/** The wall-clock time in `zone` at an instant, as a floating ical.js time. */
function wallClockAt(zone: ICAL.Timezone | null, epochMs: number, floatingZone: string): ICAL.Time {
  let wallMs: number;
  if (zone === ICAL.Timezone.utcTimezone) wallMs = epochMs;
  else if (zone instanceof IanaZone) wallMs = epochMs + offsetMinutes(zone.ianaName, epochMs) * 60_000;
  else if (!zone || zone === ICAL.Timezone.localTimezone) wallMs = epochMs + offsetMinutes(floatingZone, epochMs) * 60_000;
  else {
    const local = ICAL.Time.fromJSDate(new Date(epochMs), true).convertToZone(zone);
    return ICAL.Time.fromData({ year: local.year, month: local.month, day: local.day, hour: local.hour, minute: local.minute, second: local.second, isDate: false });
  }
  const date = new Date(wallMs);
  return ICAL.Time.fromData({
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    isDate: false,
  });
}

function floatingCopy(time: ICAL.Time): ICAL.Time {
  const copy = time.clone();
  copy.zone = ICAL.Timezone.localTimezone;
  return copy;
}

function isBusy(component: ICAL.Component): boolean {
  const upper = (name: string) => textValue(component, name)?.trim().toUpperCase() ?? null;
  if (upper('status') === 'CANCELLED') return false;
  if (upper('transp') === 'TRANSPARENT') return false;
  // Outlook's "free" events (TRANSP usually says so too, but not in every export).
  if (upper('x-microsoft-cdo-busystatus') === 'FREE') return false;
  return true;
}

// ---- recurrence ----

interface Occurrence {
  time: ICAL.Time;
  /** The zone `time` is read in (the iterators' times are floating copies of the series' zone). */
  zone: ICAL.Timezone | null;
  ms: number;
  /** RDATE periods carry their own end. */
  endMs: number | null;
}

/**
 * Pushes the master's occurrences that overlap `window` onto `out`, leaving out EXDATEs and the
 * occurrences an override replaces. The rule iterators, RDATEs and DTSTART are merged in time order
 * here rather than by ICAL.RecurExpansion, whose loops cannot be bounded from outside.
 */
function expandMaster(
  component: ICAL.Component,
  uid: string | null,
  dtstart: ICAL.Time,
  length: Length,
  overridden: Map<number, unknown> | undefined,
  expansion: Expansion,
  out: ExternalBusyInterval[],
): void {
  const { window, floatingZone, limits } = expansion;
  const startMs = epochOf(dtstart, floatingZone);
  const listed: Occurrence[] = [{ time: dtstart, zone: dtstart.zone, ms: startMs, endMs: null }];
  for (const property of component.getAllProperties('rdate')) {
    for (const value of property.getValues()) {
      if (value instanceof ICAL.Time) listed.push({ time: value, zone: value.zone, ms: epochOf(value, floatingZone), endMs: null });
      else if (value instanceof ICAL.Period) {
        const ms = epochOf(value.start, floatingZone);
        const endMs = value.end ? epochOf(value.end, floatingZone) : endOf(value.start, ms, durationLength(value.duration), floatingZone);
        listed.push({ time: value.start, zone: value.start.zone, ms, endMs });
      }
    }
  }
  listed.sort((a, b) => a.ms - b.ms);

  const excludedInstants = new Set<number>();
  const excludedDates = new Set<string>();
  for (const property of component.getAllProperties('exdate')) {
    for (const value of property.getValues()) {
      if (!(value instanceof ICAL.Time)) continue;
      if (value.isDate || dtstart.isDate) excludedDates.add(dateKey(value));
      else excludedInstants.add(epochOf(value, floatingZone));
    }
  }

  let stepsLeft = limits.ruleStepsPerEvent;
  const iterators: ICAL.RecurIterator[] = [];
  for (const property of component.getAllProperties('rrule')) {
    const rule = property.getFirstValue();
    if (!(rule instanceof ICAL.Recur)) continue;
    normalizeRule(rule, dtstart, window, floatingZone);
    // The rule runs on floating copies of the series' wall-clock times, UNTIL included: ical.js then
    // compares without its zone arithmetic (a VTIMEZONE's offset lookup clones objects on every call),
    // and each occurrence is read in the series' zone once, below.
    const until = rule.until;
    if (until && !until.isDate) rule.until = wallClockAt(dtstart.zone, epochOf(until, floatingZone), floatingZone);
    const iterator = rule.iterator(floatingCopy(iterationStart(rule, dtstart, startMs, length, window)));
    const checkContractingRules = iterator.check_contracting_rules.bind(iterator);
    // Every pass of the iterator's search loop calls this first: the one place to stop it.
    iterator.check_contracting_rules = () => {
      if (--stepsLeft < 0) throw new UnboundedEvent(`recurrence tested over ${limits.ruleStepsPerEvent} dates without reaching the window's end`);
      spendWork(expansion);
      return checkContractingRules();
    };
    iterators.push(iterator);
  }
  const heads: (Occurrence | null)[] = iterators.map((iterator) => nextOf(iterator, floatingZone, dtstart.zone));

  let listedIndex = 0;
  let previousMs = Number.NEGATIVE_INFINITY;
  let scanned = 0;
  for (;;) {
    let chosen: Occurrence | null = listed[listedIndex] ?? null;
    let chosenIterator = -1;
    for (let index = 0; index < heads.length; index++) {
      const head = heads[index]!;
      if (head && (chosen === null || head.ms < chosen.ms)) {
        chosen = head;
        chosenIterator = index;
      }
    }
    if (chosen === null || chosen.ms >= window.to) return;
    // The occurrence is used before its iterator advances: ical.js reuses the Time it handed out.
    if (chosen.ms !== previousMs) {
      previousMs = chosen.ms;
      if (++scanned > limits.occurrencesPerEvent) {
        throw new UnboundedEvent(`more than ${limits.occurrencesPerEvent} occurrences before the window's end`);
      }
      spendWork(expansion);
      const excluded = excludedInstants.has(chosen.ms) || (excludedDates.size > 0 && excludedDates.has(dateKey(chosen.time)));
      if (!excluded && !overridden?.has(chosen.ms)) {
        const endMs = chosen.endMs ?? endOf(chosen.time, chosen.ms, length, floatingZone, chosen.zone);
        if (endMs > chosen.ms && endMs > window.from) out.push({ start: chosen.ms, end: endMs, uid });
      }
    }
    if (chosenIterator < 0) listedIndex += 1;
    else heads[chosenIterator] = nextOf(iterators[chosenIterator]!, floatingZone, dtstart.zone);
  }
}

function nextOf(iterator: ICAL.RecurIterator, floatingZone: string, zone: ICAL.Timezone | null): Occurrence | null {
  const time = iterator.next();
  return time ? { time, zone, ms: epochOf(time, floatingZone, zone), endMs: null } : null;
}

function durationLength(duration: ICAL.Duration): Length {
  const sign = duration.isNegative ? -1 : 1;
  return { days: sign * (duration.weeks * 7 + duration.days), ms: sign * ((duration.hours * 60 + duration.minutes) * 60 + duration.seconds) * 1000 };
}

function dateIn(zone: string, epochMs: number): ICAL.Time {
  const { year, month, day } = localDateOf(zone, epochMs);
  return ICAL.Time.fromData({ year, month, day, isDate: true });
}

function dateKey(time: ICAL.Time): string {
  return `${time.year}-${time.month}-${time.day}`;
}

/**
 * Brings a rule to what RFC 5545 means where ical.js reads it otherwise, and ends it a day after the
 * window: nothing later is looked at, and ical.js searches up to year 20000 for a first occurrence of
 * a yearly rule without UNTIL that has none.
 */
function normalizeRule(rule: ICAL.Recur, dtstart: ICAL.Time, window: BusyWindow, floatingZone: string): void {
  const until = rule.until;
  if (until && !dtstart.isDate) {
    if (until.isDate) {
      rule.until = ICAL.Time.fromData({ year: until.year, month: until.month, day: until.day, hour: 23, minute: 59, second: 59, isDate: false }, dtstart.zone);
    } else if (until.zone === ICAL.Timezone.localTimezone) {
      until.zone = dtstart.zone;
    }
  }
  const limitMs = window.to + DAY;
  if (!rule.until || epochOf(rule.until, floatingZone) > limitMs) {
    rule.until = dtstart.isDate ? dateIn(floatingZone, limitMs) : ICAL.Time.fromJSDate(new Date(limitMs), true);
  }
  const parts = rule.parts;
  // A yearly rule with no day given repeats DTSTART's month and day; ical.js moves 29 February to 1 March.
  if (rule.freq === 'YEARLY' && !parts.BYDAY && !parts.BYMONTHDAY && !parts.BYYEARDAY && !parts.BYWEEKNO) {
    parts.BYMONTHDAY = [dtstart.day];
    if (!parts.BYMONTH) parts.BYMONTH = [dtstart.month];
  }
}

/**
 * Where to start iterating a daily or weekly rule without COUNT: whole periods of the rule later than
 * DTSTART, as late as still leaves every occurrence that could reach the window, so that a daily
 * event begun in 1995 does not spend the occurrence limit on the years before the window. The
 * occurrences from there are the rule's own (the period grid is kept); the first may be one the rule
 * would not make (ical.js yields its start as it is), and it ends before the window by construction.
 */
function iterationStart(rule: ICAL.Recur, dtstart: ICAL.Time, startMs: number, length: Length, window: BusyWindow): ICAL.Time {
  if (rule.count || (rule.freq !== 'DAILY' && rule.freq !== 'WEEKLY')) return dtstart;
  const periodDays = (rule.freq === 'WEEKLY' ? 7 : 1) * Math.max(1, rule.interval || 1);
  const spanDays = Math.max(0, length.days) + Math.ceil(Math.max(0, length.ms) / DAY);
  // Two days spare for the zone offsets between wall-clock days and instants.
  const gapDays = Math.floor((window.from - startMs) / DAY) - spanDays - 2;
  const periods = Math.floor(gapDays / periodDays);
  if (periods <= 0) return dtstart;
  const start = dtstart.clone();
  start.adjust(periods * periodDays, 0, 0, 0);
  return start;
}
