import type { Static } from 'typebox';
import { formatWithOffset, offsetMinutes } from '../../scheduling/zones.js';
import type { SlotsOutput_2024_09_04 } from './slots.schemas.js';
import type { SlotList } from './slot-listing.service.js';

type SlotsOutput = Static<typeof SlotsOutput_2024_09_04>;
type SlotItem = SlotsOutput[string][number];

const MINUTE = 60_000;
const DAY = 86_400_000;

export interface SlotPresentation {
  /** null: printed in UTC with "Z". */
  timeZone: string | null;
  format: 'time' | 'range';
}

/** The reference prints UTC (no zone, or the zone named UTC or GMT) with "Z", any other zone with its offset. */
const printsAsZ = (zone: string | null) => zone === null || /^(utc|gmt)$/i.test(zone);

export function formatInstant(epochMs: number, zone: string | null): string {
  return printsAsZ(zone) ? new Date(epochMs).toISOString() : formatWithOffset(epochMs, zone!);
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, value) => String(value).padStart(2, '0'));
const offsetText = (offset: number) => `${offset < 0 ? '-' : '+'}${TWO_DIGITS[Math.floor(Math.abs(offset) / 60)]}:${TWO_DIGITS[Math.abs(offset) % 60]}`;

/**
 * formatInstant for many instants in a row: a listing prints thousands of starts on a few dozen local
 * dates, so the date part and the offset are formatted once per date and offset, the time of day by
 * table. `date` is the local date (YYYY-MM-DD) of the last instant printed.
 */
export function instantPrinter(zone: string | null): { print(epochMs: number): string; date: string } {
  const utc = printsAsZ(zone);
  let dayStart = Number.NaN;
  let dayOffset = Number.NaN;
  let prefix = '';
  let designator = 'Z';
  const printer = {
    date: '',
    print(epochMs: number): string {
      const offset = utc ? 0 : offsetMinutes(zone!, epochMs);
      const local = epochMs + offset * MINUTE;
      const intoDay = ((local % DAY) + DAY) % DAY;
      if (local - intoDay !== dayStart || offset !== dayOffset) {
        dayStart = local - intoDay;
        dayOffset = offset;
        const iso = new Date(dayStart).toISOString();
        prefix = iso.slice(0, iso.indexOf('T') + 1);
        printer.date = prefix.slice(0, -1);
        designator = utc ? 'Z' : offsetText(offset);
      }
      const millis = intoDay % 1000;
      const seconds = Math.floor(intoDay / 1000);
      return `${prefix}${TWO_DIGITS[Math.floor(seconds / 3600)]}:${TWO_DIGITS[Math.floor(seconds / 60) % 60]}:${TWO_DIGITS[seconds % 60]}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}${designator}`;
    },
  };
  return printer;
}

/**
 * Printed listings of the lists the availability cache keeps, by zone and format: a kept list is
 * answered many times, and its printed form never changes (nobody writes to either).
 */
const printed = new WeakMap<SlotList, Map<string, SlotsOutput>>();
/** Printed forms kept per list: a few zones and formats are asked for most. */
const PRINTED_PER_LIST = 4;

/** `data` of GET /v2/slots: slots by local date in the requested zone. */
export function presentSlots(list: SlotList, presentation: SlotPresentation): SlotsOutput {
  const key = `${presentation.timeZone}|${presentation.format}`;
  let forList = printed.get(list);
  const kept = forList?.get(key);
  if (kept) return kept;
  const output = printSlots(list, presentation);
  if (!forList) printed.set(list, (forList = new Map()));
  if (forList.size < PRINTED_PER_LIST) forList.set(key, output);
  return output;
}

function printSlots(list: SlotList, presentation: SlotPresentation): SlotsOutput {
  const { timeZone, format } = presentation;
  const printer = instantPrinter(timeZone);
  const endPrinter = format === 'range' ? instantPrinter(timeZone) : null;
  const byDate: SlotsOutput = {};
  let date = '';
  let items: SlotItem[] = [];
  for (const slot of list.slots) {
    const start = printer.print(slot.start);
    if (printer.date !== date) {
      date = printer.date;
      items = byDate[date] ??= [];
    }
    const item: SlotItem = endPrinter ? { start, end: endPrinter.print(slot.end) } : { start };
    if (slot.seats) {
      item.seatsBooked = slot.seats.booked;
      item.seatsRemaining = slot.seats.total - slot.seats.booked;
      item.seatsTotal = slot.seats.total;
      if (slot.seats.bookingUid) item.bookingUid = slot.seats.bookingUid;
    }
    items.push(item);
  }
  return byDate;
}
