import type { Db } from '../../../db/client.js';
import { lockEventTypeBookings, lockHostTime, lockTeamBookings, tryLockFirstHostTime, tryLockHostTime } from '../../../db/locks.js';
import { rankRoundRobinHosts, roundRobinPeriodStart, type RoundRobinStanding } from '../../../scheduling/round-robin.js';
import type { Slot } from '../../../scheduling/slot-query.js';
import type { SlotEventType, SlotHost } from '../../slots/slots.service.js';
import type { AvailabilityCache } from '../../slots/availability-cache.js';
import { type HostStandingRow, listHostStandings } from './booking-hosts.repository.js';

const isRoundRobin = (eventType: SlotEventType) => eventType.team?.schedulingType === 'roundRobin';

/**
 * The locks a booking of `eventType` is decided under, taken before anything is read: a team's (when
 * it limits its bookings), the team event type's (round-robin choices and its limits), then every
 * host's time with `alsoHosts` (a rescheduled booking's organizer) in one ordered batch. Round robin
 * locks no host here: its fixed hosts and first choices are locked together once ranked
 * (`chooseHosts`) and re-checked under those locks, so that no host lock is ever waited for after
 * another was taken.
 */
export async function lockBookingScope(tx: Db, eventType: SlotEventType, alsoHosts: readonly number[] = [], options: { spread?: boolean } = {}): Promise<void> {
  if (eventType.team) {
    if (eventType.team.limits) await lockTeamBookings(tx, eventType.team.id);
    if (!options.spread) await lockEventTypeBookings(tx, eventType.id!);
  }
  if (isRoundRobin(eventType)) return;
  await lockHostTime(tx, [...eventType.hosts.map((host) => host.userId), ...alsoHosts]);
}

/**
 * Whether new bookings of `eventType` may be decided side by side rather than one at a time under the
 * event type's lock: round robin with one group and no fixed host, counting nothing under that lock
 * (booking limits, seats, a booker's active bookings). Each host's own lock then keeps its time, and
 * concurrent bookings spread over the best-ranked hosts (`chooseHosts`), instead of all waiting for
 * one another's commit.
 */
export function spreadsBookings(eventType: SlotEventType, bookerLimited: boolean): boolean {
  if (!isRoundRobin(eventType) || bookerLimited || eventType.team!.limits) return false;
  const { rules, hosts } = eventType;
  if (rules.bookingLimitsCount || rules.bookingLimitsDuration || rules.seatsPerTimeSlot !== null) return false;
  return hosts.every((host) => !host.fixed && (host.groupId ?? '') === (hosts[0]!.groupId ?? ''));
}

/** Whether the given hosts (fixed ones and the round-robin hosts chosen so far) can take every occurrence, read under their locks. */
export type HostsRecheck = (hosts: SlotHost[]) => Promise<boolean>;

export interface ChooseHostsOptions {
  now: number;
  /** Round robin: this host first if free (rescheduleWithSameRoundRobinHost). */
  preferredHostId?: number | null | undefined;
  recheck: HostsRecheck;
  /** Decided side by side (`spreadsBookings`): hosts other bookings hold are passed over. */
  spread?: boolean | undefined;
  /**
   * Standings may come from the availability cache: they only rank hosts (each choice is re-checked
   * under its lock), and every booking change of a host drops that host's standing, in this process
   * at once and in others through the change feed.
   */
  cache?: AvailabilityCache | null | undefined;
}

const noStanding = (userId: number): HostStandingRow => ({ userId, bookingsInPeriod: 0, lastBookedAt: null });

async function hostStandings(tx: Db, eventTypeId: number, userIds: number[], periodStart: number, cache: AvailabilityCache | null): Promise<HostStandingRow[]> {
  const load = async (ids: readonly number[]) => new Map((await listHostStandings(tx, eventTypeId, ids, periodStart)).map((row) => [row.userId, row]));
  if (cache) return cache.hostStandings(eventTypeId, periodStart, userIds, load, noStanding);
  const loaded = await load(userIds);
  return userIds.map((userId) => loaded.get(userId) ?? noStanding(userId));
}

/**
 * The hosts of a new booking whose occurrences are `slots`, organizer first: every host the slots
 * name for personal and collective event types; for round robin the fixed hosts and one host of each
 * group free at every occurrence, the best ranked (src/scheduling/round-robin.ts) whose lock can be
 * had and who is still free under it. Null when no host of some group can take it.
 */
export async function chooseHosts(tx: Db, eventType: SlotEventType, slots: readonly Slot[], options: ChooseHostsOptions): Promise<number[] | null> {
  if (!isRoundRobin(eventType)) {
    const free = new Set(slots[0]?.hostIds ?? []);
    return eventType.hosts.filter((host) => free.has(host.userId)).map((host) => host.userId);
  }
  const fixed = eventType.hosts.filter((host) => host.fixed);
  const groups = new Map<string, SlotHost[]>();
  for (const host of eventType.hosts) {
    if (host.fixed) continue;
    const group = host.groupId ?? '';
    groups.set(group, [...(groups.get(group) ?? []), host]);
  }
  const freeAtEvery = (userId: number) => slots.every((slot) => slot.hostIds.includes(userId));
  const standings = new Map((await hostStandings(tx, eventType.id!, [...groups.values()].flat().map((host) => host.userId), roundRobinPeriodStart(options.now), options.cache ?? null)).map((row) => [row.userId, row]));
  const ranked = [...groups.values()].map((members) => {
    const group: RoundRobinStanding[] = members.map((host) => ({
      userId: host.userId,
      priority: host.priority ?? 2,
      weight: host.weight ?? 100,
      bookingsInPeriod: standings.get(host.userId)?.bookingsInPeriod ?? 0,
      lastBookedAt: standings.get(host.userId)?.lastBookedAt ?? null,
    }));
    const order = rankRoundRobinHosts(group, new Set(members.filter((host) => freeAtEvery(host.userId)).map((host) => host.userId)), eventType.team!.isRRWeightsEnabled);
    const preferred = options.preferredHostId;
    return preferred != null && order.includes(preferred) ? [preferred, ...order.filter((id) => id !== preferred)] : order;
  });
  if (ranked.some((order) => order.length === 0)) return null;
  const byId = new Map(eventType.hosts.map((host) => [host.userId, host]));
  if (options.spread) return spreadChoice(tx, ranked[0]!, byId, options.recheck);
  // The first choices are locked with the fixed hosts in one ordered batch; a later candidate is only
  // tried, so that no lock is ever waited for out of order.
  await lockHostTime(tx, [...fixed.map((host) => host.userId), ...ranked.map((order) => order[0]!)]);
  const chosen: SlotHost[] = [];
  for (const order of ranked) {
    let taken: SlotHost | null = null;
    for (const [index, userId] of order.entries()) {
      if (index > 0 && !(await tryLockHostTime(tx, userId))) continue;
      const host = byId.get(userId)!;
      if (await options.recheck([...fixed, ...chosen, host])) {
        taken = host;
        break;
      }
    }
    if (!taken) return null;
    chosen.push(taken);
  }
  return [...fixed, ...chosen].map((host) => host.userId);
}

/**
 * One group, no fixed host, no event type lock: the best-ranked host whose lock is free at once and
 * who is still free under it, so that bookings made together take different hosts. Only when every
 * candidate is held by another booking (and this one holds no host) is the best of them waited for.
 */
async function spreadChoice(tx: Db, order: readonly number[], byId: ReadonlyMap<number, SlotHost>, recheck: HostsRecheck): Promise<number[] | null> {
  const heldByOthers: number[] = [];
  let untried = order;
  while (untried.length > 0) {
    const locked = await tryLockFirstHostTime(tx, untried);
    const at = locked === null ? untried.length : untried.indexOf(locked);
    heldByOthers.push(...untried.slice(0, at));
    if (locked !== null && (await recheck([byId.get(locked)!]))) return [locked];
    untried = untried.slice(at + 1);
  }
  // A host lock is never waited for after another was taken.
  if (heldByOthers.length === 0 || heldByOthers.length < order.length) return null;
  await lockHostTime(tx, [heldByOthers[0]!]);
  if (await recheck([byId.get(heldByOthers[0]!)!])) return [heldByOthers[0]!];
  for (const userId of heldByOthers.slice(1)) {
    if ((await tryLockHostTime(tx, userId)) && (await recheck([byId.get(userId)!]))) return [userId];
  }
  return null;
}
