// GET /v2/slots: the listing use case (size cap, kept listings, notice cut-off) on top of the slot
// targets and queries of slots.service.ts.
import type { Db } from '../../db/client.js';
import { invalidField } from '../../lib/errors.js';
import type { Slot, SlotQuery } from '../../scheduling/slot-query.js';
import { computeSlots } from '../../scheduling/slots.js';
import type { HostSchedule } from '../../scheduling/working-hours.js';
import { dateOfDayNumber, formatDate, localDayNumber } from '../../scheduling/zones.js';
import { awayHostsOf } from '../out-of-office/out-of-office.service.js';
import { assertLinkOf, findUsableLink } from '../event-types/private-links.service.js';
import type { AvailabilityCache, CalendarDegradation, StoredBusyBlock } from './availability-cache.js';
import { buildSlotQuery, chooseDuration, hostIdsOf, resolveSlotTarget, type SlotEventType, type SlotTarget, targetKey } from './slots.service.js';

const MINUTE = 60_000;

export interface ListSlotsInput {
  /** null: the private link names the event type. */
  target: SlotTarget | null;
  /** svc: a private link of the event type, which must still be usable. */
  privateLinkId?: string | undefined;
  /** Slot starts in [from, to). */
  from: number;
  to: number;
  duration?: number | undefined;
  bookingUidToReschedule?: string | undefined;
  /** Round robin: only these of its hosts may take the slot (a routing form's members); fixed hosts still attend. */
  onlyHostIds?: readonly number[] | undefined;
}

export interface SlotList {
  slots: Slot[];
  duration: number;
  seatsPerTimeSlot: number | null;
  /** Hosts counted busy over part of the window because their connected calendars cannot be read there. */
  degradedHosts: DegradedHost[];
  /** Hosts out of office somewhere in the window, with who covers for them. */
  awayHosts: AwayHost[];
}

export type AwayHost = Awaited<ReturnType<typeof awayHostsOf>>[number];

export interface DegradedHost extends CalendarDegradation {
  userId: number;
}

/** The hosts whose calendars cannot be trusted somewhere in [from, to), once each (the earliest reason). */
function degradedHostsOf(query: SlotQuery, from: number, to: number): DegradedHost[] {
  const found: DegradedHost[] = [];
  for (const host of query.hosts) {
    for (const block of host.busy as readonly StoredBusyBlock[]) {
      if (block.degraded && block.start < to && block.end > from) {
        found.push({ userId: host.userId, ...block.degraded });
        break;
      }
    }
  }
  return found;
}

/**
 * Most grid starts one listing may consider: the starts inside the hosts' working time over the
 * window (a host counts by the share of the week its schedule works). That is what the engine visits,
 * so it bounds the work and the answer of any request, whatever the event type: 34 days at 1-minute
 * spacing for one host available round the clock, a year at 15-minute spacing, or a month for a team
 * of 50 working 40-hour weeks.
 */
export const MAX_SLOT_STARTS_PER_REQUEST = 50_000;

const WEEK_MINUTES = 7 * 1440;

/**
 * The share (0-1) of [from, to) a schedule may work: its weekly hours over the week, plus the hours
 * of its overrides on dates of the window (counted on top of the weekly hours they replace).
 */
function workingShare(schedule: HostSchedule | null, from: number, to: number): number {
  if (!schedule) return 0;
  const perWeekday = [0, 0, 0, 0, 0, 0, 0];
  for (const rule of schedule.weeklyRules) for (const day of rule.days) perWeekday[day]! += rule.endMinute - rule.startMinute;
  let minutes = perWeekday.reduce((sum, dayMinutes) => sum + Math.min(1440, dayMinutes), 0) / WEEK_MINUTES;
  if (schedule.overrides.length > 0) {
    const zone = schedule.timeZone;
    const first = formatDate(dateOfDayNumber(localDayNumber(zone, from)));
    const last = formatDate(dateOfDayNumber(localDayNumber(zone, to)));
    for (const override of schedule.overrides) {
      if (override.date >= first && override.date <= last) minutes += (override.endMinute - override.startMinute) / ((to - from) / MINUTE);
    }
  }
  return Math.min(1, minutes);
}

function assertListingSize(eventType: SlotEventType, duration: number, from: number, to: number): void {
  const step = eventType.rules.slotInterval ?? duration;
  const hostShares = eventType.hosts.reduce((sum, host) => sum + workingShare(host.schedule, from, to), 0);
  const starts = Math.ceil((to - from) / (step * MINUTE)) * hostShares;
  if (starts <= MAX_SLOT_STARTS_PER_REQUEST) return;
  const days = Math.max(1, Math.floor((MAX_SLOT_STARTS_PER_REQUEST / hostShares) * step / 1440));
  const hosts = eventType.hosts.length;
  const spacing = `${hosts > 1 ? `${hosts} hosts with ` : ''}slots every ${step} minute${step === 1 ? '' : 's'}`;
  throw invalidField('end', `is too far from start: with ${spacing}, one request may cover at most ${days} day${days === 1 ? '' : 's'}; move end closer to start and ask for the rest separately`, undefined);
}

/** A listing as the cache keeps it: computed at `computedAt` for `eventType`, good until `validUntil`. */
interface KeptSlotList {
  eventType: SlotEventType;
  list: SlotList;
  computedAt: number;
  validUntil: number;
}

/**
 * Whether a listing computed earlier can serve a later `now`: true when time only moves the notice's
 * cut-off (no booking window, no "first slot of the day", no optimized grids, no team limits read
 * outside the cache, no booking being rescheduled).
 */
function listingOutlivesNow(eventType: SlotEventType, input: ListSlotsInput): boolean {
  const { rules } = eventType;
  return input.bookingUidToReschedule === undefined && rules.bookingWindow === null && !rules.onlyShowFirstAvailableSlot && !rules.showOptimizedSlots && !eventType.team?.limits;
}

/** When the first reservation among the query's busy blocks stops holding time (and frees what it held). */
function firstReservationEnd(query: SlotQuery): number {
  let end = Infinity;
  for (const host of query.hosts) for (const block of host.busy as readonly StoredBusyBlock[]) if (block.liveUntil !== undefined) end = Math.min(end, block.liveUntil);
  return end;
}

/** The listing at a later `now`: the starts the notice has since passed are gone (the grid never moves with it). */
function withNotice(list: SlotList, cutoff: number): SlotList {
  const { slots } = list;
  if (slots.length === 0 || slots[0]!.start >= cutoff) return list;
  let low = 0;
  let high = slots.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (slots[mid]!.start < cutoff) low = mid + 1;
    else high = mid;
  }
  return { ...list, slots: slots.slice(low) };
}

const NO_HOSTS: number[] = [];

/** The event type with only these of its hosts besides the fixed ones (who attend whoever else does). */
export function withOnlyHosts(eventType: SlotEventType, hostIds: readonly number[]): SlotEventType {
  const allowed = new Set(hostIds);
  return { ...eventType, hosts: eventType.hosts.filter((host) => host.fixed || allowed.has(host.userId)) };
}

/**
 * The listing reads through the availability cache (writes re-read the store under lock), and keeps
 * what it computed: the same request is answered from it until one of the hosts' settings or busy
 * time changes, a reservation it saw ends, or the clock goes back.
 */
export async function listSlots(db: Db, cache: AvailabilityCache, input: ListSlotsInput, now: number): Promise<SlotList> {
  const link = input.privateLinkId === undefined ? null : await findUsableLink(db, input.privateLinkId, now);
  const target = input.target ?? { kind: 'eventTypeId', eventTypeId: link!.eventTypeId };
  const resolved = await resolveSlotTarget(db, target, cache);
  if (link) assertLinkOf(link, resolved.id);
  const eventType = input.onlyHostIds ? withOnlyHosts(resolved, input.onlyHostIds) : resolved;
  const duration = chooseDuration(eventType, input.duration);
  assertListingSize(eventType, duration, input.from, input.to);
  const compute = async () => {
    const query = await buildSlotQuery(db, eventType, { from: input.from, to: input.to, duration, now, ignoreBookingUid: input.bookingUidToReschedule }, cache);
    // The listing is printed without its hosts: they are not kept.
    const slots = computeSlots(query).map((slot) => ({ ...slot, hostIds: NO_HOSTS }));
    // Entries are read only for hosts whose time away meets the window: most listings have none.
    const awayIds = query.hosts.filter((host) => host.away?.some(([start, end]) => start < input.to && end > input.from)).map((host) => host.userId);
    const awayHosts = await awayHostsOf(db, awayIds, input.from, input.to);
    return { query, list: { slots, duration, seatsPerTimeSlot: eventType.rules.seatsPerTimeSlot, degradedHosts: degradedHostsOf(query, input.from, input.to), awayHosts } };
  };
  if (!listingOutlivesNow(eventType, input)) return (await compute()).list;
  const key = `${targetKey(target)}|${input.from}|${input.to}|${duration}${input.onlyHostIds ? `|only:${[...input.onlyHostIds].sort((a, b) => a - b).join(',')}` : ''}`;
  // Kept against the event type as the cache holds it: a narrowed copy is made afresh on every call.
  const reusable = (kept: KeptSlotList) => kept.eventType === resolved && kept.computedAt <= now && now < kept.validUntil;
  const kept = await cache.listing<KeptSlotList>(key, reusable, async () => {
    const { query, list } = await compute();
    const value = { eventType: resolved, list, computedAt: now, validUntil: firstReservationEnd(query) };
    return { value, userIds: hostIdsOf(eventType), dependsOnTeams: eventType.team !== null, slots: list.slots.length };
  });
  return withNotice(kept.list, now + eventType.rules.minimumBookingNotice * MINUTE);
}
