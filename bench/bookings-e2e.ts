// Data, request generator and checks for the POST /v2/bookings load test: BOOKINGS_HOSTS users with the
// default Mon-Fri 09:00-17:00 America/New_York schedule, one 15-minute event type each (no notice, no
// buffers), and a plan that gives every request a (host, start) pair no other request gets.
//
// Connection c of the load generator books only host c (BOOKINGS_HOSTS = connections), so no two
// requests in flight ever wait on the same host's time lock, and each host's slots are handed out in
// order, so no request ever finds its slot taken. The warm-up and the measured run use disjoint date
// ranges, which lets the check count each run's bookings on its own.
import { dateOfDayNumber, formatDate, localDayNumber, weekdayOfDayNumber, zonedToEpoch } from '../src/scheduling/zones.js';

export const BOOKINGS_ZONE = 'America/New_York';
export const BOOKINGS_API_VERSION = '2024-08-13';
export const BOOKINGS_CONNECTIONS = 20;
export const BOOKINGS_HOSTS = BOOKINGS_CONNECTIONS;
export const BOOKING_MINUTES = 15;
/** 09:00-17:00 in 15-minute slots. */
export const SLOTS_PER_DAY = ((17 - 9) * 60) / BOOKING_MINUTES;
/** Weekdays of the warm-up range and of the measured range (per host: 32 slots a weekday). */
export const WARMUP_WEEKDAYS = 10;
export const MEASURED_WEEKDAYS = 60;

export interface BookingHost {
  userId: number;
  eventTypeId: number;
  apiKey: string;
}

export interface BookingsPlan {
  /** Weekdays (day numbers) in order: the first WARMUP_WEEKDAYS are the warm-up's, then the measured run's. */
  weekdays: number[];
  /** The first instant of the measured range: warm-up bookings start before it, measured ones at or after. */
  measuredFrom: number;
  firstDate: string;
  lastDate: string;
}

/** Weekdays from the first Monday of next year (in New York), far from today and from the slots test's window. */
export function bookingsPlan(now: number): BookingsPlan {
  const today = localDayNumber(BOOKINGS_ZONE, now);
  const year = dateOfDayNumber(today).year + 1;
  let day = Math.floor(Date.UTC(year, 0, 1) / 86_400_000);
  while (weekdayOfDayNumber(day) !== 1) day += 1;
  const weekdays: number[] = [];
  for (; weekdays.length < WARMUP_WEEKDAYS + MEASURED_WEEKDAYS; day += 1) {
    const weekday = weekdayOfDayNumber(day);
    if (weekday >= 1 && weekday <= 5) weekdays.push(day);
  }
  const startOf = (dayNo: number) => {
    const { year: y, month, day: d } = dateOfDayNumber(dayNo);
    return zonedToEpoch(BOOKINGS_ZONE, y, month, d, 0);
  };
  return {
    weekdays,
    measuredFrom: startOf(weekdays[WARMUP_WEEKDAYS]!),
    firstDate: formatDate(dateOfDayNumber(weekdays[0]!)),
    lastDate: formatDate(dateOfDayNumber(weekdays.at(-1)!)),
  };
}

/** The start of the `index`-th slot of a range (09:00 + 15 min steps, local time, DST-correct). */
function slotStart(plan: BookingsPlan, firstWeekday: number, index: number): number {
  const dayNo = plan.weekdays[firstWeekday + Math.floor(index / SLOTS_PER_DAY)];
  if (dayNo === undefined) throw new Error(`bookings plan exhausted at slot ${index}`);
  const { year, month, day } = dateOfDayNumber(dayNo);
  return zonedToEpoch(BOOKINGS_ZONE, year, month, day, 9 * 60 + (index % SLOTS_PER_DAY) * BOOKING_MINUTES);
}

export type BookingsPhase = 'warmup' | 'measured';

/** Slots a host has in a phase's range. */
export const phaseCapacity = (phase: BookingsPhase) => (phase === 'warmup' ? WARMUP_WEEKDAYS : MEASURED_WEEKDAYS) * SLOTS_PER_DAY;

/**
 * Hands out (host, start) pairs: `next(host)` gives that host's next unused slot of the phase's range.
 * Every pair handed out is distinct; `handedOut` counts them (a request was built for each).
 */
export class SlotDealer {
  private readonly used: number[];
  handedOut = 0;
  constructor(
    private readonly plan: BookingsPlan,
    readonly phase: BookingsPhase,
    hosts: number,
  ) {
    this.used = new Array<number>(hosts).fill(0);
  }

  next(host: number): number {
    const index = this.used[host]!;
    if (index >= phaseCapacity(this.phase)) throw new Error(`bookings plan: host ${host} has no ${this.phase} slot left`);
    this.used[host] = index + 1;
    this.handedOut += 1;
    return slotStart(this.plan, this.phase === 'warmup' ? 0 : WARMUP_WEEKDAYS, index);
  }
}

export function bookingBody(host: BookingHost, start: number, phase: BookingsPhase, serial: number): string {
  return JSON.stringify({
    eventTypeId: host.eventTypeId,
    start: new Date(start).toISOString(),
    attendee: { name: `Bench Booker ${serial}`, email: `booker-${phase}-${serial}@example.com`, timeZone: 'UTC' },
  });
}

/**
 * autocannon options for POST /v2/bookings over BOOKINGS_CONNECTIONS connections: connection c books
 * only host c (modulo the hosts), each request the host's next slot from `dealer`. `onAnswer` gets each
 * answer with the connection's host index.
 */
export function bookingRequests(baseUrl: string, hosts: BookingHost[], dealer: SlotDealer, onAnswer: (status: number, body: string, host: number) => void) {
  let clients = 0;
  let serial = dealer.handedOut;
  return {
    url: `${baseUrl}/v2/bookings`,
    connections: BOOKINGS_CONNECTIONS,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', 'svc-api-version': BOOKINGS_API_VERSION },
    setupClient(client: { setRequests(requests: object[]): void }) {
      const host = clients++ % hosts.length;
      client.setRequests([
        {
          setupRequest(request: { body?: string }) {
            request.body = bookingBody(hosts[host]!, dealer.next(host), dealer.phase, serial++);
            return request;
          },
          onResponse: (status: number, body: string) => onAnswer(status, body, host),
        },
      ]);
    },
  };
}

/** What the store holds for the bench hosts after the runs (read with SQL). */
export interface BookingsCheck {
  warmupBookings: number;
  measuredBookings: number;
  /** Bookings by status (all should be accepted). */
  statuses: Record<string, number>;
  /** Pairs of live (accepted or pending) bookings of one host whose times overlap. */
  overlappingPairs: number;
  /** Bookings with a start that is not on a 15-minute 09:00-17:00 weekday slot of the plan, or not 15 minutes long. */
  offPlan: number;
  /** Bookings without exactly one attendee. */
  withoutOneAttendee: number;
  /** Booking rows per host: min and max. */
  perHost: { min: number; max: number };
}

/** One SQL statement answering BookingsCheck (ids are integers checked here, so inlining them is safe). */
export function checkBookingsSql(hostIds: number[], plan: BookingsPlan): string {
  if (!hostIds.every(Number.isInteger)) throw new Error(`bad host ids ${hostIds.join(',')}`);
  const ids = hostIds.join(',');
  const from = new Date(plan.measuredFrom).toISOString();
  return `with b as (select * from bookings where user_id in (${ids}))
select
  (select count(*)::int from b where start_at < '${from}') as "warmupBookings",
  (select count(*)::int from b where start_at >= '${from}') as "measuredBookings",
  (select coalesce(json_object_agg(status, n), '{}') from (select status, count(*)::int as n from b group by status) s) as "statuses",
  (select count(*)::int from b x join b y on x.user_id = y.user_id and x.id < y.id
     and x.status in ('accepted', 'pending') and y.status in ('accepted', 'pending')
     and x.start_at < y.end_at and y.start_at < x.end_at) as "overlappingPairs",
  (select count(*)::int from b where end_at - start_at <> interval '${BOOKING_MINUTES} minutes'
     or extract(isodow from start_at at time zone '${BOOKINGS_ZONE}') > 5
     or (start_at at time zone '${BOOKINGS_ZONE}')::time not between '09:00' and '16:45'
     or extract(minute from start_at at time zone '${BOOKINGS_ZONE}')::int % ${BOOKING_MINUTES} <> 0) as "offPlan",
  (select count(*)::int from b where (select count(*) from booking_attendees a where a.booking_id = b.id) <> 1) as "withoutOneAttendee",
  (select json_build_object('min', coalesce(min(n), 0), 'max', coalesce(max(n), 0)) from
     (select h.id, count(b.id)::int as n from unnest(array[${ids}]) as h(id) left join b on b.user_id = h.id group by h.id) c) as "perHost"`;
}
