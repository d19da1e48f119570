// The engine query of an event type: its hosts with the busy time, limit bookings and team limits the
// window needs, read through the availability cache when given.
import type { Db } from '../../db/client.js';
import { limitHorizon } from '../../scheduling/booking-limits.js';
import { ROLLING_WINDOW_SEARCH_DAYS } from '../../scheduling/booking-window.js';
import type { HostAvailability, SlotQuery, TeamLimits } from '../../scheduling/slot-query.js';
import { END_OF_TIME, localDayNumber, startOfDayNumber } from '../../scheduling/zones.js';
import type { AvailabilityCache, BusyRead } from './availability-cache.js';
import { listBusyBlocks } from './busy-blocks.repository.js';
import * as repo from './slots.repository.js';
import type { SlotEventType, SlotTeam } from './slots.service.js';

const MINUTE = 60_000;

export const hostIdsOf = (eventType: SlotEventType) => eventType.hosts.map((host) => host.userId);

export interface QueryOptions {
  from: number;
  to: number;
  duration: number;
  now: number;
  ignoreBookingUid?: string | undefined;
  exceptReservationUid?: string | undefined;
  /** The booker's standing against bookerActiveBookingsLimit (known when booking). */
  bookerLimit?: SlotQuery['bookerLimit'];
}

/**
 * The engine query for `eventType` with the busy time and limit bookings it needs, read for exactly
 * the instants that can matter: candidates of whole local dates around [from, to) (from today on, for
 * a rolling window), widened by the event's buffers.
 */
export async function buildSlotQuery(db: Db, eventType: SlotEventType, options: QueryOptions, cache: AvailabilityCache | null = null): Promise<SlotQuery> {
  const zone = eventType.organizerTimeZone;
  const { rules } = eventType;
  // Nothing starts before the notice ends, and nothing is stored from END_OF_TIME on: the ranges
  // read stay between the two, however far in the past or future the query lies.
  const earliestDay = localDayNumber(zone, options.now + rules.minimumBookingNotice * MINUTE) - 1;
  let spanStart = startOfDayNumber(zone, Math.max(localDayNumber(zone, options.from) - 1, earliestDay));
  let spanEnd = Math.max(spanStart, Math.min(END_OF_TIME, startOfDayNumber(zone, Math.min(localDayNumber(zone, options.to - 1), localDayNumber(zone, END_OF_TIME)) + 2)));
  const window = rules.bookingWindow;
  if (window && window.type !== 'range' && window.rolling) {
    const today = localDayNumber(zone, options.now);
    spanStart = Math.min(spanStart, startOfDayNumber(zone, today));
    spanEnd = Math.max(spanEnd, startOfDayNumber(zone, today + ROLLING_WINDOW_SEARCH_DAYS + 1));
  }
  const busyFrom = spanStart - rules.beforeEventBuffer * MINUTE;
  const busyTo = Math.min(END_OF_TIME, spanEnd + (options.duration + rules.afterEventBuffer) * MINUTE);
  const userIds = hostIdsOf(eventType);
  const limits = { count: rules.bookingLimitsCount, duration: rules.bookingLimitsDuration, timeZone: zone, weekStart: eventType.weekStart };
  const horizon = eventType.id === null ? null : limitHorizon(limits, spanStart, busyTo);
  const limitRange = horizon && { start: horizon.start, end: Math.min(END_OF_TIME, horizon.end) };
  const loadBusy = (ids: BusyRead, range: { from: number; to: number }) =>
    listBusyBlocks(db, { userIds: ids.bookings, calendarUserIds: ids.calendars, ...range, now: options.now, exceptReservationUid: options.exceptReservationUid });
  const loadLimits = (range: { from: number; to: number }) => repo.listLimitBookings(db, eventType.id!, range.from, range.to);
  const busyRange = { from: busyFrom, to: busyTo };
  // One statement at a time: `db` may be a transaction, which is a single connection.
  const busy = cache ? await cache.busyBlocks(userIds, busyRange, options.now, loadBusy) : await loadBusy({ bookings: userIds, calendars: userIds }, busyRange);
  const limitBookings = !limitRange
    ? []
    : cache
      ? await cache.limitBookings(eventType.id!, userIds, { from: limitRange.start, to: limitRange.end }, loadLimits)
      : await loadLimits({ from: limitRange.start, to: limitRange.end });
  const teamLimits = await loadTeamLimits(db, eventType.team, spanStart, busyTo);
  const hosts: HostAvailability[] = eventType.hosts.map((host) => ({ userId: host.userId, schedule: host.schedule, fixed: host.fixed, groupId: host.groupId, busy: busy.get(host.userId)?.blocks ?? [], plainBusy: busy.get(host.userId)?.plain, away: busy.get(host.userId)?.away }));
  return {
    ...rules,
    now: options.now,
    from: options.from,
    to: options.to,
    eventTypeId: eventType.id,
    duration: options.duration,
    organizerTimeZone: zone,
    weekStart: eventType.weekStart,
    hosts,
    limitBookings,
    teamLimits,
    ignoreBookingUid: options.ignoreBookingUid ?? null,
    bookerLimit: options.bookerLimit ?? null,
  };
}

/** The team's limits with the bookings they count over every period [from, to) touches. */
async function loadTeamLimits(db: Db, team: SlotTeam | null, from: number, to: number): Promise<TeamLimits | null> {
  const limits = team?.limits;
  if (!limits) return null;
  const horizon = limitHorizon({ count: limits.count, duration: null, timeZone: limits.timeZone, weekStart: limits.weekStart }, from, to);
  const bookings = horizon ? await repo.listTeamLimitBookings(db, team.id, limits.includeManaged, horizon.start, Math.min(END_OF_TIME, horizon.end)) : [];
  return { count: limits.count, timeZone: limits.timeZone, weekStart: limits.weekStart, bookings };
}
