import type { Static } from 'typebox';
import { formatWithOffset } from '../../scheduling/zones.js';
import type { SlotsOutput_2024_09_04 } from './slots.schemas.js';
import type { SlotList } from './slots.service.js';

type SlotsOutput = Static<typeof SlotsOutput_2024_09_04>;
type SlotItem = SlotsOutput[string][number];

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

/** `data` of GET /v2/slots: slots by local date in the requested zone. */
export function presentSlots(list: SlotList, presentation: SlotPresentation): SlotsOutput {
  const { timeZone, format } = presentation;
  const byDate: SlotsOutput = {};
  for (const slot of list.slots) {
    const start = formatInstant(slot.start, timeZone);
    const item: SlotItem = format === 'range' ? { start, end: formatInstant(slot.end, timeZone) } : { start };
    if (slot.seats) {
      item.seatsBooked = slot.seats.booked;
      item.seatsRemaining = slot.seats.total - slot.seats.booked;
      item.seatsTotal = slot.seats.total;
      if (slot.seats.bookingUid) item.bookingUid = slot.seats.bookingUid;
    }
    const date = start.slice(0, 10);
    (byDate[date] ??= []).push(item);
  }
  return byDate;
}
