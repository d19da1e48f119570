import { utcTime } from '../scheduling/zones.js';

/**
 * ISO 8601 as the reference's `@IsDateString({ strict: true })` takes it in list filters: a date
 * (`2030-09-01`) or a date-time with or without seconds, fraction and offset. A value without an
 * offset is read as UTC: never in the machine's zone.
 */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|z|[+-]\d{2}:?\d{2})?)?$/;

function isValidDate(year: number, month: number, day: number): boolean {
  const date = new Date(utcTime(year, month - 1, day));
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Epoch milliseconds of an ISO 8601 date or date-time, or null when it is not one. */
export function parseIsoInstant(text: string): number | null {
  const match = ISO_8601.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, offset] = match;
  if (!isValidDate(Number(year), Number(month), Number(day))) return null;
  if (hour === undefined) return utcTime(Number(year), Number(month) - 1, Number(day));
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59) return null;
  if (offset && offset !== 'Z' && offset !== 'z') {
    const [, hours, minutes] = /^[+-](\d{2}):?(\d{2})$/.exec(offset)!;
    if (Number(hours) > 23 || Number(minutes) > 59) return null;
  }
  const normalized = text.replace(' ', 'T').replace(/z$/, 'Z');
  const parsed = Date.parse(offset ? normalized.replace(/([+-]\d{2})(\d{2})$/, '$1:$2') : `${normalized}Z`);
  return Number.isNaN(parsed) ? null : parsed;
}
