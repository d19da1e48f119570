// Dates in a zone and locale for workflow messages: the reference formats them with dayjs, so custom
// formats like `{EVENT_DATE_ddd, MMM D, YYYY h:mma}` use dayjs's tokens. This is a small formatter of
// those tokens over Intl (no dependency): the wall clock of any IANA zone, names in any locale Intl knows.

/** The wall clock of an instant in a zone, with the zone's offset then. */
export interface ZonedParts {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  /** 0 (Sunday) - 6 */
  weekday: number;
  hour: number;
  minute: number;
  second: number;
  offsetMinutes: number;
}

const MAX_CACHED = 500;
/** Formatters by zone or locale: making one costs far more than formatting with it. */
const clockFormatters = new Map<string, Intl.DateTimeFormat>();
// Building a formatter costs far more than formatting with it: one per language and zone is kept.
const longDateFormatters = new Map<string, Intl.DateTimeFormat>();
const localeNames = new Map<string, LocaleNames>();
const resolvedLocales = new Map<string, string>();
const knownZones = new Map<string, boolean>();

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, value);
  return value;
}

/** The locale itself when Intl knows it (BCP 47: 'de', 'pt-BR'), else 'en'. */
export function supportedLocale(locale: string | null | undefined): string {
  if (!locale) return 'en';
  const cached = resolvedLocales.get(locale);
  if (cached) return cached;
  let resolved = 'en';
  try {
    resolved = Intl.DateTimeFormat.supportedLocalesOf([locale])[0] ?? 'en';
  } catch {
    // a malformed tag (RangeError): English
  }
  return remember(resolvedLocales, locale, resolved);
}

/** True for zone names this runtime knows. */
export function isKnownZone(timeZone: string): boolean {
  const cached = knownZones.get(timeZone);
  if (cached !== undefined) return cached;
  let known = false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    known = true;
  } catch {
    known = false;
  }
  return remember(knownZones, timeZone, known);
}

function clockFormatter(timeZone: string): Intl.DateTimeFormat {
  return (
    clockFormatters.get(timeZone) ??
    remember(
      clockFormatters,
      timeZone,
      new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        weekday: 'short',
      }),
    )
  );
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The instant's wall clock in the zone (an unknown zone reads as UTC). */
export function zonedParts(instant: Date, timeZone: string): ZonedParts {
  const zone = isKnownZone(timeZone) ? timeZone : 'UTC';
  const fields: Record<string, string> = {};
  for (const part of clockFormatter(zone).formatToParts(instant)) fields[part.type] = part.value;
  const number = (type: string) => Number(fields[type]);
  const parts = {
    year: number('year'),
    month: number('month'),
    day: number('day'),
    weekday: WEEKDAYS.indexOf(fields.weekday ?? ''),
    hour: number('hour'),
    minute: number('minute'),
    second: number('second'),
  };
  // The wall clock read as UTC, less the instant (to the whole second the clock shows), is the offset.
  const wallAsUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  const offsetMinutes = Math.round((wallAsUtc - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
  return { ...parts, offsetMinutes };
}

interface LocaleNames {
  monthsLong: string[];
  monthsShort: string[];
  weekdaysLong: string[];
  weekdaysShort: string[];
}

/** Month and weekday names in the locale, as dates print them ("15. Januar": the form used beside a day). */
function namesOf(locale: string): LocaleNames {
  const cached = localeNames.get(locale);
  if (cached) return cached;
  const partOf = (options: Intl.DateTimeFormatOptions, type: Intl.DateTimeFormatPartTypes) => {
    const format = new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' });
    return (date: Date) => format.formatToParts(date).find((part) => part.type === type)?.value ?? '';
  };
  const monthLong = partOf({ day: 'numeric', month: 'long' }, 'month');
  const monthShort = partOf({ day: 'numeric', month: 'short' }, 'month');
  const weekdayLong = partOf({ weekday: 'long' }, 'weekday');
  const weekdayShort = partOf({ weekday: 'short' }, 'weekday');
  const months = Array.from({ length: 12 }, (_, month) => new Date(Date.UTC(2024, month, 15)));
  // 2024-01-07 was a Sunday.
  const days = Array.from({ length: 7 }, (_, weekday) => new Date(Date.UTC(2024, 0, 7 + weekday)));
  return remember(localeNames, locale, {
    monthsLong: months.map(monthLong),
    monthsShort: months.map(monthShort),
    weekdaysLong: days.map(weekdayLong),
    weekdaysShort: days.map(weekdayShort),
  });
}

const pad = (value: number, width = 2) => String(Math.abs(value)).padStart(width, '0');

function offsetText(offsetMinutes: number, separator: string): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const minutes = Math.abs(offsetMinutes);
  return `${sign}${pad(Math.floor(minutes / 60))}${separator}${pad(minutes % 60)}`;
}

// Longest tokens first, as dayjs matches them; text in [brackets] is kept as written.
const TOKENS = /\[([^\]]*)]|YYYY|YY|MMMM|MMM|MM|M|DD|D|dddd|ddd|dd|d|HH|H|hh|h|mm|m|ss|s|A|a|ZZ|Z/g;

/**
 * The instant in dayjs's format tokens (YYYY YY MMMM MMM MM M DD D dddd ddd dd d HH H hh h mm m ss s A a
 * Z ZZ), in the zone, with month and weekday names in the locale (unknown locales: English). A and a are
 * AM/PM and am/pm, as dayjs prints them for locales without their own meridiem.
 */
export function formatInZone(instant: Date, format: string, timeZone: string, locale: string | null | undefined): string {
  const clock = zonedParts(instant, timeZone);
  const names = namesOf(supportedLocale(locale));
  const hour12 = clock.hour % 12 === 0 ? 12 : clock.hour % 12;
  const token = (match: string): string => {
    switch (match) {
      case 'YYYY': return pad(clock.year, 4);
      case 'YY': return pad(clock.year % 100);
      case 'MMMM': return names.monthsLong[clock.month - 1] ?? '';
      case 'MMM': return names.monthsShort[clock.month - 1] ?? '';
      case 'MM': return pad(clock.month);
      case 'M': return String(clock.month);
      case 'DD': return pad(clock.day);
      case 'D': return String(clock.day);
      case 'dddd': return names.weekdaysLong[clock.weekday] ?? '';
      case 'ddd': return names.weekdaysShort[clock.weekday] ?? '';
      // dayjs's shortest weekday names are two letters ("Su", "Mo").
      case 'dd': return Array.from(names.weekdaysShort[clock.weekday] ?? '').slice(0, 2).join('');
      case 'd': return String(clock.weekday);
      case 'HH': return pad(clock.hour);
      case 'H': return String(clock.hour);
      case 'hh': return pad(hour12);
      case 'h': return String(hour12);
      case 'mm': return pad(clock.minute);
      case 'm': return String(clock.minute);
      case 'ss': return pad(clock.second);
      case 's': return String(clock.second);
      case 'A': return clock.hour < 12 ? 'AM' : 'PM';
      case 'a': return clock.hour < 12 ? 'am' : 'pm';
      case 'Z': return offsetText(clock.offsetMinutes, ':');
      default: return offsetText(clock.offsetMinutes, '');
    }
  };
  return format.replace(TOKENS, (match, literal: string | undefined) => (literal !== undefined ? literal : token(match)));
}

/** "Monday, January 15, 2025" in the locale and zone (the reference's EVENT_DATE: Intl, weekday and month long). */
export function longDateInZone(instant: Date, timeZone: string, locale: string | null | undefined): string {
  const zone = isKnownZone(timeZone) ? timeZone : 'UTC';
  const language = supportedLocale(locale);
  const key = `${language}|${zone}`;
  let format = longDateFormatters.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(language, { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric', timeZone: zone });
    longDateFormatters.set(key, format);
  }
  return format.format(instant);
}
