/**
 * Which round-robin host takes a booking, among those free for it. Pure: the booking flow reads each
 * host's standing under the event type's lock and asks here.
 *
 * Order (the reference's LuckyUserService, made deterministic):
 * 1. with weights on, the host furthest below their weighted share of this period's bookings
 *    (share = weight / sum of weights x bookings of every round-robin host of the group), larger
 *    weight first on equal shortfall;
 * 2. higher priority (0 lowest ... 4 highest);
 * 3. least recently booked (never booked first);
 * 4. the host given first in the event type's host list (the reference keeps host order too, #10339).
 */
export interface RoundRobinStanding {
  userId: number;
  priority: number;
  weight: number;
  /** Bookings of this event type the host took in the current period. */
  bookingsInPeriod: number;
  /** When the host last took a booking of this event type (epoch ms); null: never. */
  lastBookedAt: number | null;
}

/**
 * The hosts of `candidates` best first. `group` holds every round-robin host of the candidates' group,
 * free or not, in host order: weighted shares are of the whole group's bookings.
 */
export function rankRoundRobinHosts(group: readonly RoundRobinStanding[], candidates: ReadonlySet<number>, weighted: boolean): number[] {
  const totalWeight = group.reduce((sum, host) => sum + host.weight, 0);
  const totalBookings = group.reduce((sum, host) => sum + host.bookingsInPeriod, 0);
  // How far below its share a host is, times totalWeight (the same positive factor for every host, or 0
  // for all when no host has weight): weights and counts are integers, so comparisons are exact.
  const shortfall = (host: RoundRobinStanding) => host.weight * totalBookings - host.bookingsInPeriod * totalWeight;
  // Never booked sorts as booked at the first instant a Date can hold.
  const lastBooked = (host: RoundRobinStanding) => host.lastBookedAt ?? -8.64e15;
  return group
    .filter((host) => candidates.has(host.userId))
    .sort((a, b) => {
      if (weighted) {
        const byShortfall = shortfall(b) - shortfall(a);
        if (byShortfall !== 0) return byShortfall;
        if (a.weight !== b.weight) return b.weight - a.weight;
      }
      if (a.priority !== b.priority) return b.priority - a.priority;
      // Ties keep host order: Array.prototype.sort is stable, and `group` is in host order.
      return lastBooked(a) - lastBooked(b);
    })
    .map((host) => host.userId);
}

/** Start of the UTC calendar month holding `now`: the period weighted shares are counted over. */
export function roundRobinPeriodStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}
