// A routing form's calculate-slots against GET /v2/slots for the same 50 hosts. The issue's goal:
// "calculate-slots for a 50-member segment >= 80% of the throughput of GET /v2/slots for the same hosts".
// Prints ONE JSON object on stdout.
//   npm run -s bench -- --only=routing      (or: node --import tsx bench/routing-forms.ts)
// Per store (the embedded store, then PostgreSQL when it answers): a fresh `svc serve` child process
// (test/support/child-server.ts) with its clock at the file's `now` (SVC_NOW); the 50-host round-robin team
// of ../shared/bench/roundrobin-50-hosts.json built through the API as bench/team-e2e.ts builds it
// (buildTeam: the users, their schedules and busy bookings, a plain team); then, through the API, an
// organization owned by a new user with the same 50 users as accepted members, one organization team with
// them as accepted members and a round-robin event type hosted by all 50 with the plain team's settings
// (30 min, slotInterval 15, 30 min notice), a Region attribute (Europe / Americas) with Europe given to
// every host, and a team routing form whose one question (region) routes Europe to that event type keeping
// the hosts whose attributes.region equals the answer (all 50: the segment), anything else to a message.
// check: POST /v2/routing-forms/{id}/calculate-slots?start&end&timeZone=UTC with {region: 'Europe'} over
// the file's window must route to the event type with the 50 hosts and list the same starts as
// GET /v2/slots of that event type for the same window (and those must be the plain team's and
// computeSlots' on the file's data, as bench/team-e2e.ts checks).
// throughput: autocannon from this process, CONNECTIONS connections, no pipelining: a WARMUP_S s warm-up of
// each, then DURATION_S s measured runs in the order A B B A (A = calculate-slots, B = GET /v2/slots), so
// neither gets the quieter moment; rps is the mean over an endpoint's two runs (each autocannon's mean of
// per-second samples), p50/p99 the worse of its two runs. ratio = rps(A) / rps(B); metTarget: ok and
// ratio >= ROUTING_GOAL_RATIO. svc keeps computed slot listings (one key per event type, window, length
// and, for a routing form, its members), so these repeated identical requests are answered from that
// cache on both sides. uncached: once more each (A then B, 1 s warm-up, DURATION_S s), every request with
// a window end of its own (the file's end minus 1, 2, 3... ms: the same slots, a new listing key), so each
// one computes its listing (the hosts' busy time still comes from svc's availability cache).
import autocannon from 'autocannon';
import { startServer } from '../test/support/child-server.js';
import { SLOTS_API_VERSION } from './slots-e2e.js';
import { type BuiltTeam, buildTeam, expectedTeamStarts, loadTeamFixture, type TeamFixture, teamServerEnv, teamSlotsPath, windowQuery } from './team-e2e.js';
import { benchOnBothStores, stopServer } from './store-runs.js';

export const ROUTING_GOAL_RATIO = 0.8;
const CONNECTIONS = 10;
const WARMUP_S = 2;
const DURATION_S = 8;
const UNCACHED_WARMUP_S = 1;
const SETUP_PARALLEL = 5;
/** The zone of the organization team and of both requests (as the plain team's in bench/team-e2e.ts). */
const ZONE = 'UTC';
/** As bench/run.ts: the system admin's key, no rate limit in the way, a fixed sealing key on PostgreSQL. */
const ADMIN_API_KEY = 'svc_0123456789abcdef0123456789abcdef';
const BENCH_ENV = { SVC_ADMIN_API_KEY: ADMIN_API_KEY, RATE_LIMIT_API_KEY: '100000000', RATE_LIMIT_ANONYMOUS: '100000000' };

const log = (message: string) => process.stderr.write(`[routing] ${message}\n`);
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

// ---- the API ----

async function call<T>(baseUrl: string, method: string, route: string, key: string | null, body: unknown, expected: number, what: string): Promise<T> {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${route}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${what}: ${method} ${route} answered ${response.status}: ${text.slice(0, 500)}`);
  return (JSON.parse(text) as { data: T }).data;
}

async function inBatches<T, R>(items: readonly T[], size: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let first = 0; first < items.length; first += size) {
    results.push(...(await Promise.all(items.slice(first, first + size).map((item, offset) => work(item, first + offset)))));
  }
  return results;
}

interface RoutingSetup {
  organizationId: number;
  teamId: number;
  eventTypeId: number;
  formId: string;
  setupMs: number;
}

/**
 * Adds each host to `membershipsPath` as an accepted MEMBER (by the owner); a membership left pending is
 * accepted by the host with its own key, as an invitee would.
 */
async function addMembers(baseUrl: string, ownerKey: string, team: BuiltTeam, membershipsPath: string): Promise<void> {
  await inBatches(team.hostIds, SETUP_PARALLEL, async (userId, index) => {
    const membership = await call<{ id: number; accepted: boolean }>(baseUrl, 'POST', membershipsPath, ownerKey, { userId, role: 'MEMBER', accepted: true }, 201, `host ${index}`);
    if (!membership.accepted) await call(baseUrl, 'POST', `${membershipsPath}/${membership.id}/accept`, team.hostAccess[index]!.apiKey, undefined, 200, `host ${index} accepts`);
  });
}

/** The organization, its team of the 50 hosts, their round-robin event type, the Region attribute and the form. */
async function buildRoutingForm(baseUrl: string, fixture: TeamFixture, team: BuiltTeam): Promise<RoutingSetup> {
  const startedAt = performance.now();
  const owner = await call<{ user: { id: number }; apiKey: string }>(
    baseUrl,
    'POST',
    '/v2/admin/users',
    ADMIN_API_KEY,
    { email: 'routing-owner@example.com', name: 'Routing Owner', username: 'routing-owner', timeZone: ZONE },
    201,
    'organization owner',
  );
  const key = owner.apiKey;
  const organization = await call<{ id: number }>(baseUrl, 'POST', '/v2/admin/organizations', ADMIN_API_KEY, { name: 'Routing bench', ownerId: owner.user.id, isPlatform: false }, 201, 'organization');
  const org = `/v2/organizations/${organization.id}`;
  await addMembers(baseUrl, key, team, `${org}/memberships`);
  const orgTeam = await call<{ id: number }>(baseUrl, 'POST', `${org}/teams`, key, { name: 'Sales 50', slug: 'sales-50', timeZone: ZONE }, 201, 'organization team');
  await addMembers(baseUrl, key, team, `${org}/teams/${orgTeam.id}/memberships`);
  // The plain team's round-robin event type (bench/team-e2e.ts buildTeam), in the organization team.
  const eventType = await call<{ id: number }>(
    baseUrl,
    'POST',
    `${org}/teams/${orgTeam.id}/event-types`,
    key,
    {
      title: 'Round robin',
      slug: 'round-robin',
      lengthInMinutes: fixture.lengthInMinutes,
      slotInterval: fixture.slotInterval,
      minimumBookingNotice: fixture.minimumBookingNotice,
      schedulingType: 'ROUND_ROBIN',
      hosts: team.hostIds.map((userId) => ({ userId })),
    },
    201,
    'round-robin event type',
  );
  const attribute = await call<{ id: string }>(
    baseUrl,
    'POST',
    `${org}/attributes`,
    key,
    { name: 'Region', slug: 'region', type: 'SINGLE_SELECT', options: [{ value: 'Europe', slug: 'eu' }, { value: 'Americas', slug: 'am' }] },
    201,
    'Region attribute',
  );
  const options = await call<{ id: string; value: string }[]>(baseUrl, 'GET', `${org}/attributes/${attribute.id}/options`, key, undefined, 200, 'Region options');
  const europe = options.find((option) => option.value === 'Europe');
  if (!europe) throw new Error(`the Region attribute has no Europe option: ${JSON.stringify(options)}`);
  await inBatches(team.hostIds, SETUP_PARALLEL, (userId, index) =>
    call(baseUrl, 'POST', `${org}/attributes/options/${userId}`, key, { attributeId: attribute.id, attributeOptionId: europe.id }, 201, `Europe for host ${index}`),
  );
  const form = await call<{ id: string }>(
    baseUrl,
    'POST',
    `${org}/teams/${orgTeam.id}/routing-forms`,
    key,
    {
      name: 'Contact',
      fields: [{ identifier: 'region', label: 'Region', type: 'select', required: true, options: [{ label: 'Europe' }, { label: 'Americas' }] }],
      routes: [
        {
          condition: { '==': [{ var: 'answers.region' }, 'Europe'] },
          action: { type: 'eventType', eventTypeId: eventType.id, membersQuery: { '==': [{ var: 'attributes.region' }, { var: 'answers.region' }] } },
        },
        { isFallback: true, action: { type: 'customPageMessage', message: 'Bye' } },
      ],
    },
    201,
    'routing form',
  );
  return { organizationId: organization.id, teamId: orgTeam.id, eventTypeId: eventType.id, formId: form.id, setupMs: Math.round(performance.now() - startedAt) };
}

// ---- the two requests ----

const ANSWERS = JSON.stringify({ region: 'Europe' });
const JSON_HEADERS = { 'content-type': 'application/json' };
const SLOTS_HEADERS = { 'svc-api-version': SLOTS_API_VERSION };

function calculatePath(formId: string, bounds: { start: string; end: string }): string {
  return `/v2/routing-forms/${formId}/calculate-slots?${new URLSearchParams({ start: bounds.start, end: bounds.end, timeZone: ZONE })}`;
}

type Slots = Record<string, { start: string }[]>;
const startsOf = (slots: Slots) => Object.values(slots).flat().map((slot) => Date.parse(slot.start));

/** The first index where two lists of starts differ, or -1. */
function firstDifference(a: readonly number[], b: readonly number[]): number {
  const index = a.findIndex((start, at) => b[at] !== start);
  return index >= 0 ? index : a.length !== b.length ? Math.min(a.length, b.length) : -1;
}

interface RoutingCheck {
  members: number;
  routedToEventType: boolean;
  calculateSlots: number;
  getSlots: number;
  /** calculate-slots lists exactly GET /v2/slots' starts, in order. */
  sameStarts: boolean;
  /** The two `slots` objects print the same (dates and entries). */
  sameBody: boolean;
  /** GET /v2/slots of the organization team's type lists the plain team's starts (bench/team-e2e.ts's type). */
  plainTeamSame: boolean;
  /** ...and computeSlots' on the file's data, run in this process. */
  matchesEngine: boolean;
  firstDifference: string | null;
  calculateBytes: number;
  slotsBytes: number;
  ok: boolean;
}

async function checkRouting(baseUrl: string, fixture: TeamFixture, team: BuiltTeam, setup: RoutingSetup): Promise<RoutingCheck> {
  const bounds = windowQuery(fixture);
  const calculated = await fetch(`${baseUrl}${calculatePath(setup.formId, bounds)}`, { method: 'POST', headers: JSON_HEADERS, body: ANSWERS });
  const calculatedText = await calculated.text();
  if (calculated.status !== 200) throw new Error(`calculate-slots answered ${calculated.status}: ${calculatedText.slice(0, 500)}`);
  const routed = (JSON.parse(calculatedText) as { data: { eventTypeId?: number; routing?: { teamMemberIds: number[] }; slots?: Slots } }).data;
  const listed = async (eventTypeId: number) => {
    const response = await fetch(`${baseUrl}${teamSlotsPath(eventTypeId, bounds)}`, { headers: SLOTS_HEADERS });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`GET /v2/slots answered ${response.status}: ${text.slice(0, 500)}`);
    return { slots: (JSON.parse(text) as { data: Slots }).data, bytes: Buffer.byteLength(text) };
  };
  const orgSlots = await listed(setup.eventTypeId);
  const plainSlots = await listed(team.eventTypeId);
  const members = [...(routed.routing?.teamMemberIds ?? [])].sort((a, b) => a - b);
  const hosts = [...team.hostIds].sort((a, b) => a - b);
  const calculatedStarts = startsOf(routed.slots ?? {});
  const listedStarts = startsOf(orgSlots.slots);
  const differs = firstDifference(calculatedStarts, listedStarts);
  const show = (value: number | undefined) => (value === undefined ? 'none' : new Date(value).toISOString());
  const check = {
    members: members.length,
    routedToEventType: routed.eventTypeId === setup.eventTypeId,
    calculateSlots: calculatedStarts.length,
    getSlots: listedStarts.length,
    sameStarts: differs < 0,
    sameBody: JSON.stringify(routed.slots) === JSON.stringify(orgSlots.slots),
    plainTeamSame: firstDifference(listedStarts, startsOf(plainSlots.slots)) < 0,
    matchesEngine: firstDifference(listedStarts, expectedTeamStarts(fixture, team.hostIds)) < 0,
    firstDifference: differs < 0 ? null : `#${differs}: calculate-slots ${show(calculatedStarts[differs])}, GET /v2/slots ${show(listedStarts[differs])}`,
    calculateBytes: Buffer.byteLength(calculatedText),
    slotsBytes: orgSlots.bytes,
  };
  const sameMembers = members.length === hosts.length && members.every((id, index) => id === hosts[index]);
  return { ...check, ok: sameMembers && check.routedToEventType && check.sameStarts && listedStarts.length > 0 && check.plainTeamSame && check.matchesEngine };
}

// ---- load ----

interface Target {
  method: 'GET' | 'POST';
  /** The request's path for the n-th request (n >= 1 when uncached; 0: the file's window). */
  path(serial: number): string;
  headers: Record<string, string>;
  body?: string | undefined;
}

interface Run {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** One autocannon run; with `next`, every request gets a path of its own (next() numbers them). */
async function loadRun(baseUrl: string, target: Target, seconds: number, next?: () => number): Promise<Run> {
  const result = await autocannon({
    url: `${baseUrl}${target.path(0)}`,
    connections: CONNECTIONS,
    duration: seconds,
    method: target.method,
    headers: target.headers,
    ...(target.body === undefined ? {} : { body: target.body }),
    ...(next
      ? {
          setupClient(client) {
            client.setRequests([
              {
                method: target.method,
                headers: target.headers,
                ...(target.body === undefined ? {} : { body: target.body }),
                setupRequest(request) {
                  request.path = target.path(next());
                  return request;
                },
              },
            ]);
          },
        }
      : {}),
  });
  return {
    rps: round(result.requests.mean),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: result.latency.mean,
    requests: result['2xx'] + result.non2xx,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** An endpoint's runs summed up: the mean rps, the worse p50/p99, the counts added. */
function summarize(runs: Run[]) {
  return {
    rps: round(runs.reduce((sum, run) => sum + run.rps, 0) / runs.length),
    p50Ms: Math.max(...runs.map((run) => run.p50Ms)),
    p99Ms: Math.max(...runs.map((run) => run.p99Ms)),
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.errors + run.timeouts, 0),
    runs: runs.map((run) => ({ rps: run.rps, p50Ms: run.p50Ms, p99Ms: run.p99Ms, meanMs: round(run.meanMs, 2), requests: run.requests })),
  };
}

const allAnswered = (summary: ReturnType<typeof summarize>) => summary.non2xx === 0 && summary.errors === 0 && summary.requests > 0;

/** The whole benchmark on one fresh store. */
async function storeRun(store: 'embedded' | 'postgres', storeEnv: Record<string, string>) {
  const fixture = loadTeamFixture();
  const server = await startServer({ ...storeEnv, ...BENCH_ENV, ...teamServerEnv(fixture) });
  try {
    log(`${store}: building the team through the API`);
    const team = await buildTeam(server.baseUrl, ADMIN_API_KEY, fixture, log);
    log(`${store}: team built in ${team.setupMs} ms; the organization, its team, attribute and form`);
    const setup = await buildRoutingForm(server.baseUrl, fixture, team);
    log(`${store}: routing form ${setup.formId} made in ${setup.setupMs} ms; checking calculate-slots against GET /v2/slots`);
    const check = await checkRouting(server.baseUrl, fixture, team, setup);
    log(`${store}: ${check.members} members, ${check.calculateSlots} vs ${check.getSlots} slots (${check.ok ? 'ok' : `NOT ok: ${JSON.stringify(check)}`})`);

    const bounds = windowQuery(fixture);
    // Uncached paths: the file's end minus `serial` ms (serial >= 1), the same slots under a listing key of its own.
    const boundsOf = (serial: number) => (serial === 0 ? bounds : { start: bounds.start, end: new Date(Date.parse(bounds.end) - serial).toISOString() });
    const calculate: Target = { method: 'POST', path: (serial) => calculatePath(setup.formId, boundsOf(serial)), headers: JSON_HEADERS, body: ANSWERS };
    const slots: Target = { method: 'GET', path: (serial) => teamSlotsPath(setup.eventTypeId, boundsOf(serial)), headers: SLOTS_HEADERS };

    log(`${store}: warm-up ${WARMUP_S} s each, then ${DURATION_S} s runs A B B A (A calculate-slots, B GET /v2/slots), ${CONNECTIONS} connections`);
    await loadRun(server.baseUrl, calculate, WARMUP_S);
    await loadRun(server.baseUrl, slots, WARMUP_S);
    const runs = { calculate: [] as Run[], slots: [] as Run[] };
    for (const kind of ['calculate', 'slots', 'slots', 'calculate'] as const) {
      const run = await loadRun(server.baseUrl, kind === 'calculate' ? calculate : slots, DURATION_S);
      log(`${store}: ${kind} ${run.rps} req/s (p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms)`);
      runs[kind].push(run);
    }
    const cached = { calculateSlots: summarize(runs.calculate), slots: summarize(runs.slots) };
    const ratio = round(cached.calculateSlots.rps / cached.slots.rps, 3);

    log(`${store}: uncached: every request with a window end of its own, ${UNCACHED_WARMUP_S} s warm-up + ${DURATION_S} s each`);
    let serial = 0;
    const next = () => (serial += 1);
    const uncachedRun = async (target: Target) => {
      await loadRun(server.baseUrl, target, UNCACHED_WARMUP_S, next);
      return loadRun(server.baseUrl, target, DURATION_S, next);
    };
    const uncachedCalculate = summarize([await uncachedRun(calculate)]);
    const uncachedSlots = summarize([await uncachedRun(slots)]);
    const uncachedRatio = round(uncachedCalculate.rps / uncachedSlots.rps, 3);
    log(`${store}: uncached calculate ${uncachedCalculate.rps} req/s, slots ${uncachedSlots.rps} req/s (ratio ${uncachedRatio})`);

    const ok = check.ok && allAnswered(cached.calculateSlots) && allAnswered(cached.slots) && allAnswered(uncachedCalculate) && allAnswered(uncachedSlots);
    return {
      store,
      setup: { teamSetupMs: team.setupMs, routingSetupMs: setup.setupMs, busyBookings: team.busyBookings, busyBlocks: team.busyBlocks, hosts: team.hostIds.length },
      window: { ...bounds, timeZone: ZONE },
      check,
      calculateSlots: cached.calculateSlots,
      slots: cached.slots,
      ratio,
      uncached: { calculateSlots: uncachedCalculate, slots: uncachedSlots, ratio: uncachedRatio, distinctWindows: serial },
      connections: CONNECTIONS,
      durationS: DURATION_S,
      order: 'warm-up A, B; then A B B A',
      goalRatio: ROUTING_GOAL_RATIO,
      ok,
      metTarget: ok && ratio >= ROUTING_GOAL_RATIO,
    };
  } finally {
    await stopServer(log, store, server);
  }
}

await benchOnBothStores(log, 'routing', storeRun, { goalRatio: ROUTING_GOAL_RATIO });

