// Latency at a fixed request rate (`npm run bench -- --only=latency`): for each route, the maximum
// throughput first (autocannon, closed loop, as the other runs), then an open-loop run at
// LATENCY_LOAD of it: requests are sent on a fixed schedule whether or not earlier ones have been
// answered, and each latency runs from the request's scheduled time to the end of its answer, so a
// server that stalls is charged for the requests that queue behind the stall (autocannon's closed loop
// would send fewer of them instead, and its histogram counts whole milliseconds).
//
// Routes, on one server per store whose clock stands at the team file's `now` (SVC_NOW):
// - GET /v2/slots, personal: the slots fixture (bench/slots-e2e.ts), one host with 200 bookings;
// - GET /v2/slots, collective: a collective event type of the team of bench/team-e2e.ts hosted by
//   its four America/New_York members (four weekly shapes, 20 busy blocks each);
// - GET /v2/slots, round robin: the 50-host round-robin event type of bench/team-e2e.ts;
// - POST /v2/bookings: bench/bookings-e2e.ts's hosts, every request on a (host, start) of its own;
// - GET /v2/me with an API key.
import net from 'node:net';
import autocannon from 'autocannon';
import { BOOKINGS_API_VERSION, bookingBody, type BookingHost, bookingRequests, bookingsPlan, SlotDealer } from './bookings-e2e.js';
import { checkSlotsResponse, EVENT_TYPES_API_VERSION, insertBookingsSql, SLOTS_API_VERSION, slotsPath, slotsPlan, withoutOverlaps } from './slots-e2e.js';
import { buildTeam, loadTeamFixture, teamServerEnv, teamSlotsPath, windowQuery } from './team-e2e.js';

/** The fixed rate, as a share of the route's measured maximum. */
export const LATENCY_LOAD = 0.5;
const MAX_WARMUP_S = 1;
const MAX_DURATION_S = 5;
const MAX_CONNECTIONS = 10;
const BOOKINGS_MAX_CONNECTIONS = 20;
const RATE_WARMUP_S = 1;
const RATE_DURATION_S = 8;
/** Sockets the open-loop generator may hold open; a request finding all busy waits (and that wait is counted). */
const MAX_SOCKETS = 128;
const REQUEST_TIMEOUT_MS = 10_000;
/** The collective event type's hosts: the team file's America/New_York members (indexes in the file). */
const COLLECTIVE_HOSTS = [0, 10, 20, 30];

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface LatencyServer {
  baseUrl: string;
  child: { pid?: number | undefined };
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface LatencyHarness {
  startServer(env: Record<string, string>, label: string): Promise<LatencyServer>;
  createBookingHosts(baseUrl: string, label: string): Promise<BookingHost[]>;
  postJson(url: string, headers: Record<string, string>, body: unknown, what: string): Promise<any>;
  /** Runs SQL on the store (PGlite: only while no server has it open). */
  insertSql(sqlText: string): Promise<void>;
  whileServerRuns: boolean;
  log(message: string): void;
  notes: string[];
}

/** One request of a route: a GET route hands out one object (sent as the same bytes), bookings a new one with a start of its own. */
interface RouteRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Route {
  name: string;
  /** The maximum throughput, answers per second. */
  max(): Promise<{ rps: number; non2xx: number; errors: number }>;
  next(): RouteRequest;
  expectStatus: number;
}

export interface OpenLoopResult {
  /** The rate asked for and the rate answers came at (answers / (first scheduled send to last answer)). */
  targetRps: number;
  achievedRps: number;
  requests: number;
  /** From each request's scheduled send to the end of its answer, ms. */
  latencyMs: { p50: number; p95: number; p99: number; max: number; mean: number };
  /** From the actual send to the end of the answer (the generator's own lateness left out), ms. */
  fromSendMs: { p50: number; p95: number; p99: number };
  /** How late the generator sent, ms (p99 and max): a large value means this process, not the server, fell behind. */
  sendLagMs: { p99: number; max: number };
  unexpectedStatus: number;
  errors: number;
  /** Up to 3 unexpected answers, for diagnosis. */
  failures?: string[];
}

const percentile = (sorted: readonly number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN);

const wireCache = new WeakMap<RouteRequest, Buffer>();

/** A request as bytes on the wire (HTTP/1.1, keep-alive); a request object sent again is serialized once. */
function wireRequest(host: string, request: RouteRequest): Buffer {
  const cached = wireCache.get(request);
  if (cached) return cached;
  const bytes = serialize(host, request);
  wireCache.set(request, bytes);
  return bytes;
}

function serialize(host: string, request: RouteRequest): Buffer {
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers = { host, ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
  const head = `${request.method} ${request.path} HTTP/1.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
  return body ? Buffer.concat([Buffer.from(head), body]) : Buffer.from(head);
}

/**
 * Reads HTTP/1.1 answers off one keep-alive socket: `feed` takes what arrived and returns the answers
 * it completed (status and, when `keepBody` says so, the body; others' bodies are skipped unread).
 */
class AnswerReader {
  private buffered: Buffer = Buffer.alloc(0);
  constructor(private readonly keepBody: (status: number) => boolean) {}

  feed(chunk: Buffer): { status: number; body: string }[] {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    const answers: { status: number; body: string }[] = [];
    for (;;) {
      const answer = this.one();
      if (!answer) return answers;
      answers.push(answer);
    }
  }

  private one(): { status: number; body: string } | null {
    const headEnd = this.buffered.indexOf('\r\n\r\n');
    if (headEnd < 0) return null;
    const head = this.buffered.toString('latin1', 0, headEnd);
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    let bodyStart = headEnd + 4;
    let body: Buffer;
    if (length) {
      const end = bodyStart + Number(length[1]);
      if (this.buffered.length < end) return null;
      body = this.buffered.subarray(bodyStart, end);
      this.buffered = this.buffered.subarray(end);
    } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = this.buffered.indexOf('\r\n', bodyStart);
        if (lineEnd < 0) return null;
        const size = Number.parseInt(this.buffered.toString('latin1', bodyStart, lineEnd), 16);
        if (this.buffered.length < lineEnd + 2 + size + 2) return null;
        if (size === 0) {
          this.buffered = this.buffered.subarray(lineEnd + 4);
          break;
        }
        parts.push(this.buffered.subarray(lineEnd + 2, lineEnd + 2 + size));
        bodyStart = lineEnd + 2 + size + 2;
      }
      body = Buffer.concat(parts);
    } else {
      body = Buffer.alloc(0);
      this.buffered = this.buffered.subarray(bodyStart);
    }
    return { status, body: this.keepBody(status) ? body.toString('utf8') : '' };
  }
}

/**
 * `rate` requests a second for `durationS`, evenly spaced (one every 1/rate s; when the timer wakes late,
 * every request already due goes at once and keeps its scheduled time), each on an idle keep-alive
 * connection or a new one (up to MAX_SOCKETS; beyond that it waits for one, and the wait counts). Plain
 * sockets and a minimal reader, not node:http: that cost this process 3-4 times autocannon's CPU per
 * request, and this process shares the cores with the server.
 */
export async function openLoop(baseUrl: string, rate: number, durationS: number, next: () => RouteRequest, expectStatus: number): Promise<OpenLoopResult> {
  const origin = new URL(baseUrl);
  const host = origin.host;
  const total = Math.max(1, Math.round(rate * durationS));
  const interval = 1000 / rate;
  const latencies: number[] = [];
  const fromSend: number[] = [];
  const lags: number[] = [];
  const failures: string[] = [];
  let unexpectedStatus = 0;
  let errors = 0;
  let lastAnswer = 0;
  let answered = 0;
  let allAnswered: () => void = () => {};
  const finished = new Promise<void>((resolve) => (allAnswered = resolve));

  interface Pending {
    bytes: Buffer;
    due: number;
    sentAt: number;
  }
  interface Connection {
    socket: net.Socket;
    reader: AnswerReader;
    current: Pending | null;
    connected: boolean;
  }
  const idle: Connection[] = [];
  const waiting: Pending[] = [];
  let open = 0;

  const record = (pending: Pending, fault: string | null) => {
    const at = performance.now();
    lastAnswer = Math.max(lastAnswer, at);
    latencies.push(at - pending.due);
    fromSend.push(at - pending.sentAt);
    if (fault !== null && failures.length < 3) failures.push(fault);
    answered += 1;
    if (answered === total) allAnswered();
  };
  const dispatch = (connection: Connection) => {
    const pending = waiting.shift();
    if (!pending) {
      connection.current = null;
      idle.push(connection);
      return;
    }
    connection.current = pending;
    connection.socket.write(pending.bytes);
  };
  const connect = () => {
    open += 1;
    const socket = net.connect({ host: origin.hostname, port: Number(origin.port) });
    socket.setNoDelay(true);
    const connection: Connection = { socket, reader: new AnswerReader((status) => status !== expectStatus), current: null, connected: false };
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    socket.on('connect', () => {
      connection.connected = true;
      dispatch(connection);
    });
    socket.on('data', (chunk: Buffer) => {
      for (const answer of connection.reader.feed(chunk)) {
        const pending = connection.current;
        if (!pending) continue;
        if (answer.status !== expectStatus) unexpectedStatus += 1;
        record(pending, answer.status === expectStatus ? null : `${answer.status} ${answer.body.slice(0, 300)}`);
        dispatch(connection);
      }
    });
    socket.on('error', (error) => {
      // A connection that never opened takes a waiting request down with it, so a server that is gone ends the run.
      const pending = connection.current ?? (connection.connected ? undefined : waiting.shift());
      connection.current = null;
      if (pending) {
        errors += 1;
        record(pending, error.message);
      }
    });
    socket.on('close', () => {
      open -= 1;
      const at = idle.indexOf(connection);
      if (at >= 0) idle.splice(at, 1);
      if (connection.current) {
        errors += 1;
        record(connection.current, 'connection closed before the answer');
      }
      if (waiting.length > 0 && open < MAX_SOCKETS) connect();
    });
  };
  const send = (pending: Pending) => {
    const connection = idle.pop();
    if (connection) {
      connection.current = pending;
      connection.socket.write(pending.bytes);
      return;
    }
    waiting.push(pending);
    if (open < MAX_SOCKETS) connect();
  };

  const started = performance.now();
  for (let sent = 0; sent < total; ) {
    const now = performance.now();
    const due = started + sent * interval;
    if (due > now) {
      await sleep(due - now);
      continue;
    }
    lags.push(now - due);
    send({ bytes: wireRequest(host, next()), due, sentAt: performance.now() });
    sent += 1;
  }
  await finished;
  for (const connection of idle) connection.socket.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  const sortedLags = lags.sort((a, b) => a - b);
  const sortedFromSend = fromSend.sort((a, b) => a - b);
  return {
    targetRps: round(rate),
    achievedRps: round((sorted.length * 1000) / (lastAnswer - started)),
    requests: sorted.length,
    latencyMs: {
      p50: round(percentile(sorted, 50), 2),
      p95: round(percentile(sorted, 95), 2),
      p99: round(percentile(sorted, 99), 2),
      max: round(sorted.at(-1) ?? Number.NaN, 2),
      mean: round(sorted.reduce((sum, value) => sum + value, 0) / sorted.length, 2),
    },
    fromSendMs: { p50: round(percentile(sortedFromSend, 50), 2), p95: round(percentile(sortedFromSend, 95), 2), p99: round(percentile(sortedFromSend, 99), 2) },
    sendLagMs: { p99: round(percentile(sortedLags, 99), 2), max: round(sortedLags.at(-1) ?? Number.NaN, 2) },
    unexpectedStatus,
    errors,
    ...(failures.length ? { failures } : {}),
  };
}

/** autocannon on one GET, closed loop: a warm-up (discarded), then the measured run. */
async function maxGet(url: string, headers: Record<string, string>) {
  const options = { url, connections: MAX_CONNECTIONS, headers };
  await autocannon({ ...options, duration: MAX_WARMUP_S });
  const result = await autocannon({ ...options, duration: MAX_DURATION_S });
  return { rps: round(result.requests.mean), non2xx: result.non2xx, errors: result.errors + result.timeouts };
}

/** POST /v2/bookings closed loop (connection c books host c, bench/bookings-e2e.ts), answers over the measured span. */
async function maxBookings(baseUrl: string, hosts: BookingHost[], warmup: SlotDealer, measured: SlotDealer) {
  await autocannon({ ...bookingRequests(baseUrl, hosts, warmup, () => {}), connections: BOOKINGS_MAX_CONNECTIONS, duration: MAX_WARMUP_S });
  let answered = 0;
  let non2xx = 0;
  let last = 0;
  const started = performance.now();
  const result = await autocannon({
    ...bookingRequests(baseUrl, hosts, measured, (status) => {
      answered += 1;
      if (status !== 201) non2xx += 1;
      last = performance.now();
    }),
    connections: BOOKINGS_MAX_CONNECTIONS,
    duration: MAX_DURATION_S,
  });
  return { rps: round((answered * 1000) / (last - started)), non2xx, errors: result.errors + result.timeouts };
}

interface Fixture {
  setup: Record<string, number>;
  /** The routes, aimed at a running server (PGlite: the one restarted after the SQL). */
  makeRoutes(server: LatencyServer): Route[];
  /** The slots host's bookings. */
  slotsSql: string;
  /** Checks the slots routes' answers; how many slots each lists. */
  checkSlots(server: LatencyServer): Promise<Record<string, number>>;
}

/** Everything the routes need, built through the API (the slots host's bookings come as SQL). */
async function buildFixture(harness: LatencyHarness, server: LatencyServer, adminKey: string, now: number, label: string): Promise<Fixture> {
  const { postJson, log } = harness;
  const admin = { authorization: `Bearer ${adminKey}` };
  const team = loadTeamFixture();
  log(`${label}: building the 50-host team through the API`);
  const built = await buildTeam(server.baseUrl, adminKey, team, log);
  const collective = await postJson(
    `${server.baseUrl}/v2/teams/${built.teamId}/event-types`,
    { authorization: `Bearer ${built.ownerApiKey}` },
    {
      title: 'Collective',
      slug: 'collective',
      lengthInMinutes: team.lengthInMinutes,
      slotInterval: team.slotInterval,
      minimumBookingNotice: team.minimumBookingNotice,
      schedulingType: 'collective',
      hosts: COLLECTIVE_HOSTS.map((index) => ({ userId: built.hostIds[index]! })),
    },
    `${label}: POST collective team event type`,
  );
  const meUser = await postJson(`${server.baseUrl}/v2/admin/users`, admin, { email: 'latency-me@example.com', name: 'Latency Me' }, `${label}: POST /v2/admin/users (me)`);
  const slotsHost = await postJson(
    `${server.baseUrl}/v2/admin/users`,
    admin,
    { email: 'latency-slots@example.com', name: 'Slots Host', username: 'latency-slots-host', timeZone: 'America/New_York' },
    `${label}: POST /v2/admin/users (slots host)`,
  );
  const slotsType = await postJson(
    `${server.baseUrl}/v2/event-types`,
    { authorization: `Bearer ${slotsHost.apiKey}`, 'svc-api-version': EVENT_TYPES_API_VERSION },
    { title: 'Bench 30', slug: 'bench-30', lengthInMinutes: 30, minimumBookingNotice: 120 },
    `${label}: POST /v2/event-types (slots host)`,
  );
  const bookingHosts = await harness.createBookingHosts(server.baseUrl, label);
  const plan = withoutOverlaps(slotsPlan(now));
  const bookings = bookingsPlan(now);
  const warmupDealer = new SlotDealer(bookings, 'warmup', bookingHosts.length);
  const measuredDealer = new SlotDealer(bookings, 'measured', bookingHosts.length);
  const slotsHeaders = { 'svc-api-version': SLOTS_API_VERSION };
  const get = (path: string, headers: Record<string, string>): RouteRequest => ({ method: 'GET', path, headers });
  const personalPath = slotsPath(plan, slotsType.id);
  const collectivePath = teamSlotsPath(collective.id, windowQuery(team));
  const roundRobinPath = teamSlotsPath(built.eventTypeId, windowQuery(team));
  const meHeaders = { authorization: `Bearer ${meUser.apiKey}` };
  let serial = 0;
  const makeRoutes = (running: LatencyServer): Route[] => {
    const getRoute = (name: string, path: string, headers: Record<string, string>): Route => {
      const request = get(path, headers);
      return { name, max: () => maxGet(`${running.baseUrl}${path}`, headers), next: () => request, expectStatus: 200 };
    };
    return [
      getRoute('slotsPersonal', personalPath, slotsHeaders),
      getRoute('slotsCollective', collectivePath, slotsHeaders),
      getRoute('slotsRoundRobin50', roundRobinPath, slotsHeaders),
      {
        name: 'bookings',
        max: () => maxBookings(running.baseUrl, bookingHosts, warmupDealer, measuredDealer),
        next: () => {
          const host = serial % bookingHosts.length;
          const body = bookingBody(bookingHosts[host]!, measuredDealer.next(host), 'measured', 1_000_000 + serial++);
          return { method: 'POST', path: '/v2/bookings', headers: { 'content-type': 'application/json', 'svc-api-version': BOOKINGS_API_VERSION }, body };
        },
        expectStatus: 201,
      },
      getRoute('me', '/v2/me', meHeaders),
    ];
  };
  /** Each slots route answers 200 with slots (the personal one also exactly what computeSlots gives here). */
  const checkSlots = async (running: LatencyServer) => {
    const personal = await fetch(`${running.baseUrl}${personalPath}`, { headers: slotsHeaders });
    const checked = checkSlotsResponse(personal.status, await personal.text(), plan, now);
    if (!checked.matchesEngine) harness.notes.push(`${label}: latency: GET /v2/slots (personal) did not list exactly what computeSlots gives in process`);
    const listed: Record<string, number> = { slotsPersonal: checked.slotsInResponse };
    for (const [name, path] of [['slotsCollective', collectivePath], ['slotsRoundRobin50', roundRobinPath]] as const) {
      const response = await fetch(`${running.baseUrl}${path}`, { headers: slotsHeaders });
      const text = await response.text();
      listed[name] = response.status === 200 ? Object.values(JSON.parse(text).data as Record<string, unknown[]>).flat().length : 0;
      if (listed[name] === 0) throw new Error(`${label}: GET /v2/slots (${name}) answered ${response.status} with no slots: ${text.slice(0, 300)}`);
    }
    return listed;
  };
  return {
    setup: { teamSetupMs: built.setupMs, teamBusyBookings: built.busyBookings, collectiveHosts: COLLECTIVE_HOSTS.length, slotsBookings: plan.bookings.length, bookingHosts: bookingHosts.length },
    makeRoutes,
    slotsSql: insertBookingsSql(plan, slotsHost.user.id, slotsType.id),
    checkSlots,
  };
}

/** The latency benchmark on one fresh store; what `--only=latency` prints per backend. */
export async function latencyBench(harness: LatencyHarness, env: Record<string, string>, adminKey: string, label: string) {
  const { log } = harness;
  const team = loadTeamFixture();
  const now = Date.parse(team.now);
  const serverEnv = { ...env, ...teamServerEnv(team) };
  let server = await harness.startServer(serverEnv, label);
  let stopped = false;
  try {
    const built = await buildFixture(harness, server, adminKey, now, label);
    if (harness.whileServerRuns) {
      await harness.insertSql(built.slotsSql);
    } else {
      stopped = true;
      await server.stop();
      await harness.insertSql(built.slotsSql);
      server = await harness.startServer(serverEnv, label);
      stopped = false;
    }
    const slotsListed = await built.checkSlots(server);
    const routes: Record<string, unknown> = {};
    for (const route of built.makeRoutes(server)) {
      const max = await route.max();
      const rate = Math.max(1, Math.round(LATENCY_LOAD * max.rps));
      log(`${label}: ${route.name}: max ${max.rps} /s; open loop at ${rate} /s for ${RATE_DURATION_S} s`);
      await openLoop(server.baseUrl, rate, RATE_WARMUP_S, route.next, route.expectStatus);
      const measured = await openLoop(server.baseUrl, rate, RATE_DURATION_S, route.next, route.expectStatus);
      log(`${label}: ${route.name}: p50 ${measured.latencyMs.p50} ms, p95 ${measured.latencyMs.p95} ms, p99 ${measured.latencyMs.p99} ms`);
      if (max.non2xx || max.errors || measured.unexpectedStatus || measured.errors) harness.notes.push(`${label}: latency ${route.name}: unexpected answers (max run ${max.non2xx} non-2xx, ${max.errors} errors; open loop ${measured.unexpectedStatus} unexpected, ${measured.errors} errors)`);
      routes[route.name] = { maxRps: max.rps, maxRun: max, ...measured };
    }
    return { setup: { ...built.setup, slotsListed }, routes };
  } finally {
    if (!stopped) await server.stop();
  }
}

export const LATENCY_NOTE =
  `latency: per route, the maximum throughput first (autocannon, closed loop: ${MAX_CONNECTIONS} connections, ${BOOKINGS_MAX_CONNECTIONS} for bookings, ${MAX_WARMUP_S} s warm-up then ${MAX_DURATION_S} s measured), then an open-loop run at ${LATENCY_LOAD * 100}% of that rate (targetRps): one request every 1/rate s on a fixed schedule whatever the answers do (${RATE_WARMUP_S} s warm-up discarded, then ${RATE_DURATION_S} s measured), over up to ${MAX_SOCKETS} keep-alive connections from this process (plain sockets: node:http cost 3-4 times autocannon's CPU per request); latencyMs runs from each request's scheduled send to the end of its answer (so queueing behind a slow answer counts), percentiles over every request, to 0.01 ms. fromSendMs leaves out how late this process sent, and sendLagMs says how late that was (it shares the cores with the server). Requests arriving one at a time cost the server more CPU each than autocannon's bursts (GET /health: 0.18-0.21 ms against 0.06-0.09 ms, measured), so half the closed-loop maximum is more than half of what the server sustains at even spacing. ` +
  `One server per store, its clock at the team file's now (SVC_NOW 2026-02-27T00:00:00Z). slotsPersonal: the slots fixture (one host, 200 bookings in 30 days; PGlite: inserted with SQL with the server stopped, then restarted). slotsCollective: a collective event type of the team file's four America/New_York members (${COLLECTIVE_HOSTS.join(', ')}: four weekly shapes, their busy blocks), over the file's window. slotsRoundRobin50: the team file's 50-host round robin over its window (bench/team-e2e.ts). ` +
  `GET /v2/slots repeats one request, so after the first it is answered from the computed-listing cache (as a booking page asked again is): it measures the HTTP path, the cache check and the answer's size, not the engine. bookings: POST /v2/bookings on bench/bookings-e2e.ts's 20 hosts, each request a start of its own (hosts in turn, so two requests may wait on one host's lock). me: GET /v2/me with an API key (credential cache).`;
