// End-to-end team scheduling benchmark on the round-robin team of ../shared/bench/roundrobin-50-hosts.json
// (50 hosts over 10 zones and 5 weekly shapes, 20 busy blocks each; see ../shared/bench/README.md), built
// through svc's HTTP API on a server whose clock stands at the file's `now` (SVC_NOW):
//
// 1. the team: 50 users, each with a default schedule of the file's availability in their zone, their
//    busy blocks booked with POST /v2/bookings on a personal event type (on an all-day schedule, since
//    some blocks run past working hours), all members of one team with one round-robin event type
//    (30 min, slots every 15 min, 30 min notice) hosted by all 50;
// 2. GET /v2/slots of that event type over the file's window, checked equal to computeSlots run here on
//    the file's data, then loaded with autocannon;
// 3. (PostgreSQL) POST /v2/bookings of that event type from 20 connections, every request on a start of
//    its own, then an SQL check of the hosts' booking_hosts rows.
import fs from 'node:fs';
import autocannon from 'autocannon';
import { type BusyBlock, PLAIN_EVENT_RULES, type SlotQuery } from '../src/scheduling/slot-query.js';
import { computeSlots } from '../src/scheduling/slots.js';
import { BOOKINGS_API_VERSION } from './bookings-e2e.js';
import { roundRobin50Path } from './roundrobin-50.js';
import { EVENT_TYPES_API_VERSION, SLOTS_API_VERSION } from './slots-e2e.js';

const MINUTE = 60_000;
const SCHEDULES_API_VERSION = '2024-06-11';
/** The reference's own slot code lists 2,335 slots on this file (../shared/bench/README.md): all but the last, which ends after the window. */
const REFERENCE_SLOTS = 2335;
/** The team's zone (the file's booker zone): it decides only the notice's and limits' dates, none of which matter here. */
const TEAM_ZONE = 'UTC';
/** Busy blocks are booked in pieces of at most this many minutes (the personal event type's longest length). */
const LONGEST_PIECE = 120;
const PIECE_LENGTHS = [15, 30, 45, 60, 75, 90, 105, 120];
const SETUP_PARALLEL = 5;
export const TEAM_BOOKINGS_CONNECTIONS = 20;
const WARMUP_BOOKINGS = 200;
const MEASURED_BOOKINGS = 1500;
/** Round-robin bookings go to these months (UTC dates), after the file's window, so its busy time and slots are left as they are. */
const BOOKING_MONTHS = [
  { start: '2026-04-01', end: '2026-04-30' },
  { start: '2026-05-01', end: '2026-05-31' },
  { start: '2026-06-01', end: '2026-06-30' },
];
export const TEAM_SLOTS_TARGET_RPS = 300;
export const TEAM_BOOKINGS_TARGET_RPS = 200;

export interface FixtureHost {
  name: string;
  timeZone: string;
  availability: { days: number[]; startTime: string; endTime: string }[];
  overrides: { date: string; startTime: string; endTime: string }[];
  busy: { start: string; end: string }[];
}

export interface TeamFixture {
  now: string;
  window: { start: string; end: string };
  lengthInMinutes: number;
  slotInterval: number;
  minimumBookingNotice: number;
  hosts: FixtureHost[];
}

export function loadTeamFixture(): TeamFixture {
  return JSON.parse(fs.readFileSync(roundRobin50Path(), 'utf8')) as TeamFixture;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const minuteOf = (time: string) => (time === '23:59' ? 1440 : Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5)));

/**
 * A host's busy time as bookings one host can hold: the union of the blocks (accepted bookings of one
 * host may not overlap, the bookings_host_time_no_overlap constraint), cut into pieces of at most
 * LONGEST_PIECE minutes. The busy time, and so every slot, is the same as the file's.
 */
export function busyPieces(blocks: readonly { start: string; end: string }[]): { start: number; end: number }[] {
  const sorted = blocks.map((block) => ({ start: Date.parse(block.start), end: Date.parse(block.end) })).sort((a, b) => a.start - b.start);
  const union: { start: number; end: number }[] = [];
  for (const block of sorted) {
    const last = union.at(-1);
    if (last && block.start <= last.end) last.end = Math.max(last.end, block.end);
    else union.push({ ...block });
  }
  const pieces: { start: number; end: number }[] = [];
  for (const stretch of union) {
    for (let start = stretch.start; start < stretch.end; start += LONGEST_PIECE * MINUTE) pieces.push({ start, end: Math.min(stretch.end, start + LONGEST_PIECE * MINUTE) });
  }
  return pieces;
}

/** The file's window as GET /v2/slots bounds: from its first instant to (and including) its last. */
export const windowQuery = (fixture: TeamFixture) => ({ start: fixture.window.start, end: fixture.window.end });

/**
 * What GET /v2/slots must list: computeSlots in this process on the file's own data (its busy blocks,
 * overlaps and all), plus `extraBusy` of each host (by its index in the file) where given.
 */
export function expectedTeamStarts(fixture: TeamFixture, hostIds: readonly number[], extraBusy?: (index: number) => readonly BusyBlock[]): number[] {
  const query: SlotQuery = {
    ...PLAIN_EVENT_RULES,
    slotInterval: fixture.slotInterval,
    minimumBookingNotice: fixture.minimumBookingNotice,
    now: Date.parse(fixture.now),
    from: Date.parse(fixture.window.start),
    to: Date.parse(fixture.window.end) + 1,
    eventTypeId: null,
    duration: fixture.lengthInMinutes,
    organizerTimeZone: TEAM_ZONE,
    weekStart: 0,
    limitBookings: [],
    hosts: fixture.hosts.map((host, index) => ({
      userId: hostIds[index]!,
      fixed: false,
      schedule: {
        timeZone: host.timeZone,
        weeklyRules: host.availability.map((rule) => ({ days: rule.days, startMinute: minuteOf(rule.startTime), endMinute: minuteOf(rule.endTime) })),
        overrides: host.overrides.map((override) => ({ date: override.date, startMinute: minuteOf(override.startTime), endMinute: minuteOf(override.endTime) })),
      },
      busy: [
        ...host.busy.map((block): BusyBlock => ({ start: Date.parse(block.start), end: Date.parse(block.end), bufferBefore: 0, bufferAfter: 0, source: 'booking' })),
        ...(extraBusy?.(index) ?? []),
      ],
    })),
  };
  return computeSlots(query).map((slot) => slot.start);
}

// ---- building the team through the API ----

async function postJson(url: string, headers: Record<string, string>, body: unknown, what: string): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text).data;
}

async function inBatches<T, R>(items: readonly T[], size: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let first = 0; first < items.length; first += size) {
    results.push(...(await Promise.all(items.slice(first, first + size).map((item, offset) => work(item, first + offset)))));
  }
  return results;
}

export interface BuiltTeam {
  teamId: number;
  eventTypeId: number;
  /** Per host of the file, in its order. */
  hostIds: number[];
  busyBookings: number;
  busyBlocks: number;
  setupMs: number;
  /** The team owner's API key (to add event types to the team). */
  ownerApiKey: string;
  /** Per host of the file, in its order: its API key and its default schedule (to change it). */
  hostAccess: { apiKey: string; scheduleId: number }[];
}

/** One host: user, schedules, personal event type, and its busy time booked through POST /v2/bookings. */
async function buildHost(baseUrl: string, adminKey: string, host: FixtureHost, index: number, prefix: string) {
  const admin = { authorization: `Bearer ${adminKey}` };
  const created = await postJson(
    `${baseUrl}/v2/admin/users`,
    admin,
    { email: `${prefix}team-host-${index}@example.com`, name: `Team Host ${index}`, username: `${prefix}team-host-${index}`, timeZone: host.timeZone },
    `POST /v2/admin/users (team host ${index})`,
  );
  const own = { authorization: `Bearer ${created.apiKey}`, 'svc-api-version': SCHEDULES_API_VERSION };
  const rules = (availability: FixtureHost['availability']) => availability.map((rule) => ({ days: rule.days.map((day) => WEEKDAYS[day]), startTime: rule.startTime, endTime: rule.endTime }));
  const working = await postJson(`${baseUrl}/v2/schedules`, own, { name: 'Working hours', timeZone: host.timeZone, isDefault: true, availability: rules(host.availability), overrides: host.overrides }, `POST /v2/schedules (team host ${index})`);
  // Some busy blocks run past working hours: the personal event type that books them is open all day.
  const allDay = await postJson(
    `${baseUrl}/v2/schedules`,
    own,
    { name: 'All day', timeZone: host.timeZone, isDefault: false, availability: [{ days: WEEKDAYS, startTime: '00:00', endTime: '23:59' }] },
    `POST /v2/schedules all day (team host ${index})`,
  );
  const busyType = await postJson(
    `${baseUrl}/v2/event-types`,
    { authorization: `Bearer ${created.apiKey}`, 'svc-api-version': EVENT_TYPES_API_VERSION },
    { title: 'Busy', slug: 'busy', lengthInMinutes: PIECE_LENGTHS[0], lengthInMinutesOptions: PIECE_LENGTHS, slotInterval: 15, minimumBookingNotice: 0, scheduleId: allDay.id },
    `POST /v2/event-types (team host ${index})`,
  );
  const pieces = busyPieces(host.busy);
  for (const [serial, piece] of pieces.entries()) {
    await postJson(
      `${baseUrl}/v2/bookings`,
      { 'svc-api-version': BOOKINGS_API_VERSION },
      {
        eventTypeId: busyType.id,
        start: new Date(piece.start).toISOString(),
        lengthInMinutes: (piece.end - piece.start) / MINUTE,
        attendee: { name: `Busy ${index}-${serial}`, email: `busy-${index}-${serial}@example.com`, timeZone: 'UTC' },
      },
      `POST /v2/bookings busy block ${serial} (team host ${index})`,
    );
  }
  return { userId: created.user.id as number, pieces: pieces.length, apiKey: created.apiKey as string, scheduleId: working.id as number };
}

/** The whole fixture through the API, as a client would make it; `prefix` makes its users and team another copy of it. */
export async function buildTeam(baseUrl: string, adminKey: string, fixture: TeamFixture, log: (message: string) => void, prefix = ''): Promise<BuiltTeam> {
  const startedAt = performance.now();
  const admin = { authorization: `Bearer ${adminKey}` };
  const owner = await postJson(`${baseUrl}/v2/admin/users`, admin, { email: `${prefix}team-owner@example.com`, name: 'Team Owner', username: `${prefix}team-owner`, timeZone: TEAM_ZONE }, 'POST /v2/admin/users (team owner)');
  const ownerAuth = { authorization: `Bearer ${owner.apiKey}` };
  const hosts = await inBatches(fixture.hosts, SETUP_PARALLEL, (host, index) => buildHost(baseUrl, adminKey, host, index, prefix));
  log(`team: ${hosts.length} hosts with ${hosts.reduce((sum, host) => sum + host.pieces, 0)} busy bookings`);
  const team = await postJson(`${baseUrl}/v2/teams`, ownerAuth, { name: `${prefix}Round robin 50`, slug: `${prefix}round-robin-50`, timeZone: TEAM_ZONE }, 'POST /v2/teams');
  // Added by the system admin: members the owner adds stay pending until each accepts (no host until then).
  await inBatches(hosts, SETUP_PARALLEL, (host) =>
    postJson(`${baseUrl}/v2/teams/${team.id}/memberships`, admin, { userId: host.userId, role: 'MEMBER', accepted: true }, `POST /v2/teams/${team.id}/memberships`),
  );
  const eventType = await postJson(
    `${baseUrl}/v2/teams/${team.id}/event-types`,
    ownerAuth,
    {
      title: 'Round robin',
      slug: 'round-robin',
      lengthInMinutes: fixture.lengthInMinutes,
      slotInterval: fixture.slotInterval,
      minimumBookingNotice: fixture.minimumBookingNotice,
      schedulingType: 'roundRobin',
      hosts: hosts.map((host) => ({ userId: host.userId })),
    },
    `POST /v2/teams/${team.id}/event-types`,
  );
  return {
    teamId: team.id,
    eventTypeId: eventType.id,
    hostIds: hosts.map((host) => host.userId),
    busyBookings: hosts.reduce((sum, host) => sum + host.pieces, 0),
    busyBlocks: fixture.hosts.reduce((sum, host) => sum + host.busy.length, 0),
    setupMs: Math.round(performance.now() - startedAt),
    ownerApiKey: owner.apiKey as string,
    hostAccess: hosts.map((host) => ({ apiKey: host.apiKey, scheduleId: host.scheduleId })),
  };
}

// ---- GET /v2/slots ----

export function teamSlotsPath(eventTypeId: number, bounds: { start: string; end: string }): string {
  return `/v2/slots?${new URLSearchParams({ eventTypeId: String(eventTypeId), start: bounds.start, end: bounds.end, timeZone: TEAM_ZONE })}`;
}

async function servedStarts(baseUrl: string, eventTypeId: number, bounds: { start: string; end: string }): Promise<{ starts: number[]; bytes: number }> {
  const response = await fetch(`${baseUrl}${teamSlotsPath(eventTypeId, bounds)}`, { headers: { 'svc-api-version': SLOTS_API_VERSION } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /v2/slots answered ${response.status}: ${text.slice(0, 500)}`);
  const data = JSON.parse(text).data as Record<string, { start: string }[]>;
  return { starts: Object.values(data).flat().map((slot) => Date.parse(slot.start)), bytes: Buffer.byteLength(text) };
}

export interface TeamSlotsCheck {
  /** Slots computeSlots lists in this process for the file's data. */
  expected: number;
  /** Slots GET /v2/slots listed. */
  got: number;
  /** Every start equal, in order. */
  ok: boolean;
  firstDifference: string | null;
  referenceSlots: number;
  responseBytes: number;
}

export async function checkTeamSlots(baseUrl: string, fixture: TeamFixture, team: BuiltTeam): Promise<TeamSlotsCheck> {
  const expected = expectedTeamStarts(fixture, team.hostIds);
  const { starts, bytes } = await servedStarts(baseUrl, team.eventTypeId, windowQuery(fixture));
  const index = expected.findIndex((start, at) => starts[at] !== start);
  const differs = index >= 0 ? index : expected.length !== starts.length ? expected.length : -1;
  const show = (value: number | undefined) => (value === undefined ? 'none' : new Date(value).toISOString());
  return {
    expected: expected.length,
    got: starts.length,
    ok: differs < 0,
    firstDifference: differs < 0 ? null : `#${differs}: expected ${show(expected[differs])}, got ${show(starts[differs])}`,
    referenceSlots: REFERENCE_SLOTS,
    responseBytes: bytes,
  };
}

// ---- POST /v2/bookings ----

/**
 * Starts to book: the event type's slots in BOOKING_MONTHS as GET /v2/slots lists them, keeping
 * only starts at least one event length apart. No two bookings then overlap, so none takes a host
 * another needs: every start stays bookable whichever host each booking gets and in whatever order
 * they commit.
 */
export async function teamBookingsPlan(baseUrl: string, eventTypeId: number, lengthInMinutes: number): Promise<number[]> {
  const starts: number[] = [];
  for (const month of BOOKING_MONTHS) starts.push(...(await servedStarts(baseUrl, eventTypeId, month)).starts);
  const plan: number[] = [];
  for (const start of starts) if (plan.length === 0 || start >= plan.at(-1)! + lengthInMinutes * MINUTE) plan.push(start);
  return plan;
}

export interface TeamBookingsRun {
  requests: number;
  statuses: Record<string, number>;
  failures: string[];
  errors: number;
  elapsedMs: number;
  latency: { p50: number; p99: number; mean: number };
}

/** Exactly `starts.length` POST /v2/bookings over TEAM_BOOKINGS_CONNECTIONS connections, each request on the next start of the list. */
export async function runTeamBookings(baseUrl: string, eventTypeId: number, starts: readonly number[], phase: string): Promise<TeamBookingsRun> {
  const statuses: Record<string, number> = {};
  const failures: string[] = [];
  let next = 0;
  let lastAnswerAt = 0;
  const startedAt = performance.now();
  const result = await autocannon({
    url: `${baseUrl}/v2/bookings`,
    connections: TEAM_BOOKINGS_CONNECTIONS,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'svc-api-version': BOOKINGS_API_VERSION },
    amount: starts.length,
    setupClient(client: { setRequests(requests: object[]): void }) {
      client.setRequests([
        {
          setupRequest(request: { body?: string }) {
            const serial = next++;
            const start = starts[serial % starts.length]!;
            request.body = JSON.stringify({ eventTypeId, start: new Date(start).toISOString(), attendee: { name: `Team Booker ${serial}`, email: `team-${phase}-${serial}@example.com`, timeZone: 'UTC' } });
            return request;
          },
          onResponse(status: number, body: string) {
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (status !== 201 && failures.length < 3) failures.push(`${status} ${body.slice(0, 300)}`);
            lastAnswerAt = performance.now();
          },
        },
      ]);
    },
  });
  return {
    requests: Object.values(statuses).reduce((sum, count) => sum + count, 0),
    statuses,
    failures,
    errors: result.errors + result.timeouts,
    elapsedMs: lastAnswerAt - startedAt,
    latency: { p50: result.latency.p50, p99: result.latency.p99, mean: result.latency.mean },
  };
}

export interface TeamBookingsCheck {
  /** Bookings of the round-robin event type, by status. */
  statuses: Record<string, number>;
  bookings: number;
  /** Bookings of the round-robin type without exactly one booking_hosts row. */
  withoutOneHost: number;
  /** Pairs of accepted booking_hosts rows of one host (any event type) whose times overlap. */
  overlappingHostRows: number;
  /** Bookings of the round-robin type not 30 minutes long or at a start that was not planned. */
  offPlan: number;
  /** Round-robin bookings per host: min and max. */
  perHost: { min: number; max: number };
}

/** One SQL statement answering TeamBookingsCheck (all values are integers checked here or instants formatted here). */
export function checkTeamBookingsSql(eventTypeId: number, hostIds: readonly number[], planned: readonly number[], lengthInMinutes: number): string {
  if (![eventTypeId, lengthInMinutes, ...hostIds].every(Number.isInteger)) throw new Error('bad ids');
  const ids = hostIds.join(',');
  const starts = planned.map((start) => `'${new Date(start).toISOString()}'`).join(',');
  return `with b as (select * from bookings where event_type_id = ${eventTypeId}),
h as (select * from booking_hosts where user_id in (${ids}) and status = 'accepted')
select
  (select coalesce(json_object_agg(status, n), '{}') from (select status, count(*)::int as n from b group by status) s) as "statuses",
  (select count(*)::int from b) as "bookings",
  (select count(*)::int from b where (select count(*) from booking_hosts x where x.booking_id = b.id) <> 1) as "withoutOneHost",
  (select count(*)::int from h x join h y on x.user_id = y.user_id and x.booking_id < y.booking_id and x.start_at < y.end_at and y.start_at < x.end_at) as "overlappingHostRows",
  (select count(*)::int from b where end_at - start_at <> interval '${lengthInMinutes} minutes' or start_at <> all (array[${starts || 'null'}]::timestamptz[])) as "offPlan",
  (select json_build_object('min', coalesce(min(n), 0), 'max', coalesce(max(n), 0)) from
     (select u.id, count(x.booking_id)::int as n from unnest(array[${ids}]) as u(id)
        left join booking_hosts x on x.user_id = u.id and x.booking_id in (select id from b) group by u.id) c) as "perHost"`;
}

export interface TeamHarness {
  startServer(env: Record<string, string>, label: string): Promise<{ baseUrl: string; child: { pid?: number | undefined }; stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> }>;
  /** autocannon on a GET (bench/run.ts's `load`). */
  load(url: string, headers: Record<string, string>, serverPid?: number): Promise<{ rps: number; non2xx: number; errors: number; timeouts: number }>;
  /** The first row of one SELECT on the store, while the server runs (PostgreSQL); null where the store cannot be read then (PGlite). */
  queryRow: (<T>(sqlText: string) => Promise<T>) | null;
  /** CPU time per request between two snapshots (bench/run.ts). */
  cpuSnapshot(serverPid: number | undefined): unknown;
  cpuSplit(before: unknown, after: unknown, requests: number): unknown;
  /** PostgreSQL: CPU time (ms) so far of the backends connected to this run's database. */
  databaseCpuMs?: (() => Promise<number>) | undefined;
  log(message: string): void;
  notes: string[];
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The setup as printed: the owner's and hosts' keys stay out of the bench JSON. */
export const withoutKey = ({ ownerApiKey: _key, hostAccess: _hosts, ...setup }: BuiltTeam) => setup;

/** The server env that puts svc's clock at the file's `now`. */
export const teamServerEnv = (fixture: TeamFixture) => ({ SVC_NOW: fixture.now });

/** The whole benchmark on one fresh store; what `npm run bench` prints as `team` per backend. */
export async function teamBench(harness: TeamHarness, env: Record<string, string>, adminKey: string, label: string) {
  const { log } = harness;
  const fixture = loadTeamFixture();
  const server = await harness.startServer({ ...env, ...teamServerEnv(fixture) }, label);
  try {
    log(`${label}: building the team through the API`);
    const team = await buildTeam(server.baseUrl, adminKey, fixture, log);
    log(`${label}: team built in ${team.setupMs} ms; checking GET /v2/slots against computeSlots`);
    const check = await checkTeamSlots(server.baseUrl, fixture, team);
    if (!check.ok) harness.notes.push(`${label}: team GET /v2/slots differs from computeSlots: ${check.firstDifference}`);
    log(`${label}: team slots expected ${check.expected}, got ${check.got} (${check.ok ? 'equal' : 'DIFFERENT'}); autocannon GET /v2/slots`);
    const measured = await harness.load(`${server.baseUrl}${teamSlotsPath(team.eventTypeId, windowQuery(fixture))}`, { 'svc-api-version': SLOTS_API_VERSION }, server.child.pid);
    log(`${label}: team slots ${measured.rps} req/s`);
    const slots = {
      ...measured,
      expected: check.expected,
      got: check.got,
      ok: check.ok,
      check,
      targetRps: TEAM_SLOTS_TARGET_RPS,
      metTarget: check.ok && measured.rps >= TEAM_SLOTS_TARGET_RPS && measured.non2xx === 0 && measured.errors === 0,
    };
    if (!harness.queryRow) return { setup: withoutKey(team), slots };

    const plan = await teamBookingsPlan(server.baseUrl, team.eventTypeId, fixture.lengthInMinutes);
    const warmupStarts = plan.slice(0, WARMUP_BOOKINGS);
    const measuredStarts = plan.slice(WARMUP_BOOKINGS, WARMUP_BOOKINGS + MEASURED_BOOKINGS);
    if (measuredStarts.length < MEASURED_BOOKINGS) harness.notes.push(`${label}: only ${plan.length} non-overlapping team starts to book`);
    log(`${label}: team bookings: ${warmupStarts.length} warm-up + ${measuredStarts.length} measured over ${TEAM_BOOKINGS_CONNECTIONS} connections`);
    const warmup = await runTeamBookings(server.baseUrl, team.eventTypeId, warmupStarts, 'warmup');
    const databaseBefore = await harness.databaseCpuMs?.();
    const before = harness.cpuSnapshot(server.child.pid);
    const run = await runTeamBookings(server.baseUrl, team.eventTypeId, measuredStarts, 'measured');
    const after = harness.cpuSnapshot(server.child.pid);
    const databaseMs = databaseBefore === undefined ? undefined : (await harness.databaseCpuMs!()) - databaseBefore;
    const rps = (run.requests * 1000) / run.elapsedMs;
    const created = run.statuses['201'] ?? 0;
    log(`${label}: team bookings ${round(rps)} /s, ${created} created of ${run.requests}; checking the store`);
    const verification = await harness.queryRow<TeamBookingsCheck>(checkTeamBookingsSql(team.eventTypeId, team.hostIds, plan, fixture.lengthInMinutes));
    const expectedBookings = (warmup.statuses['201'] ?? 0) + created;
    const verified = {
      ...verification,
      expectedBookings,
      ok:
        verification.bookings === expectedBookings &&
        Object.keys(verification.statuses).every((status) => status === 'accepted') &&
        verification.withoutOneHost === 0 &&
        verification.overlappingHostRows === 0 &&
        verification.offPlan === 0,
    };
    if (!verified.ok) harness.notes.push(`${label}: the team bookings check FAILED: ${JSON.stringify(verified)}`);
    const bookings = {
      rps: round(rps),
      requests: run.requests,
      created,
      statuses: run.statuses,
      ...(run.failures.length ? { failures: run.failures } : {}),
      errors: run.errors,
      durationS: round(run.elapsedMs / 1000, 2),
      p50Ms: run.latency.p50,
      p99Ms: run.latency.p99,
      meanMs: run.latency.mean,
      connections: TEAM_BOOKINGS_CONNECTIONS,
      cpuMsPerRequest: harness.cpuSplit(before, after, run.requests),
      ...(databaseMs === undefined ? {} : { postgresThisDatabaseMsPerRequest: round(databaseMs / run.requests, 3) }),
      warmup: { requests: warmup.requests, statuses: warmup.statuses, rps: round((warmup.requests * 1000) / warmup.elapsedMs), ...(warmup.failures.length ? { failures: warmup.failures } : {}) },
      plannedStarts: plan.length,
      verification: verified,
      targetRps: TEAM_BOOKINGS_TARGET_RPS,
      metTarget: rps >= TEAM_BOOKINGS_TARGET_RPS && created === run.requests && run.errors === 0 && verified.ok,
    };
    return { setup: withoutKey(team), slots, bookings };
  } finally {
    const stopped = await server.stop();
    if (stopped.code !== 0) harness.notes.push(`${label}: team server exited with code ${stopped.code} signal ${stopped.signal} after SIGTERM`);
  }
}

export const TEAM_NOTE =
  `team: ../shared/bench/roundrobin-50-hosts.json, built through the API on a server started with SVC_NOW at the file's now (2026-02-27T00:00:00Z; the clock stands still), so its dates lie ahead as they did for the file: ` +
  `50 users made by the system admin, each with a default schedule of the file's availability in their zone and their busy blocks booked through POST /v2/bookings on a personal event type (15-120 min variable length, slots every 15 min, no notice) on an all-day schedule of theirs, because ${114} of the 1,000 blocks run past the host's working hours; ` +
  `overlapping blocks of one host (73 pairs) cannot both be accepted bookings (the per-host no-overlap constraint), so each host's blocks are booked as their union cut into pieces of at most ${LONGEST_PIECE} min: the same busy time. ` +
  `One team (zone ${TEAM_ZONE}) with the 50 as accepted members and one round-robin event type hosted by all of them (30 min, slotInterval 15, minimumBookingNotice 30). ` +
  `slots: GET /v2/slots of that event type over the file's window (start ${'2026-03-01T00:00:00.000Z'}, end ${'2026-03-30T23:59:59.999Z'}, timeZone ${TEAM_ZONE}); expected = computeSlots run in the bench process on the file's own data (its blocks, overlaps included, the same now), got = what the server listed, ok = the same starts in the same order. The reference's slot code lists ${REFERENCE_SLOTS} on this input: it leaves out the window's last slot (23:45Z on 03-30), which ends after the window; svc lists starts in the window. Loaded like the other slots runs (autocannon, ${'10'} connections, 1 s warm-up, 5 s measured). ` +
  `bookings (PostgreSQL only): POST /v2/bookings of the round-robin type over ${TEAM_BOOKINGS_CONNECTIONS} connections, every request on a start of its own from the slots the server lists for ${BOOKING_MONTHS[0]!.start}..${BOOKING_MONTHS.at(-1)!.end} (after the window, one request a month), keeping starts at least 30 min apart so that no booking takes a host another request needs: every request must get 201. ${WARMUP_BOOKINGS} warm-up bookings, then ${MEASURED_BOOKINGS} measured: rps = answered / (first request to last answer). A plain round robin (one group, no fixed host, nothing counted) is decided side by side: each booking takes the best-ranked host whose lock is free (team-hosts.service.ts), re-checked under that lock. ` +
  `verification: SQL after the runs: every booking of the type accepted, exactly one booking_hosts row each, 30 min at a planned start, and no two accepted booking_hosts rows of one host overlapping (busy-block bookings included).`;
