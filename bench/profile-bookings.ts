// Where a POST /v2/bookings of the bench's bookings case spends its time, in process:
//   SVC_TEST_BACKEND=pglite|postgres node --import tsx bench/profile-bookings.ts
// Builds svc in this process (test/support/test-app.ts) on a fresh database, creates the bench's hosts
// and event types, then books distinct slots through app.inject (no sockets): one at a time (latency,
// CPU per booking, and on PostgreSQL every statement with its round-trip time), then 20 at a time
// (each worker on its own host, as bench/run.ts does), with CPU per booking.
//   PROFILE_CPU=file.cpuprofile   also writes a V8 CPU profile of the concurrent phase and prints its
//                                 self time grouped by package / source directory.
//   PROFILE_STATEMENTS=1          also counts every statement of the concurrent phase (the job runner's too)
//                                 per booking, by its first 100 characters.
//   PROFILE_SMTP=1                sends booking mail over SMTP to a receiver in this process (else: the log).
//   PROFILE_CASE=team             books the 50-host round-robin team of bench/team-e2e.ts instead (built
//                                 through the API, clock at its fixture's now), every booking on a start of
//                                 its own, decided side by side (each takes the best-ranked host whose lock is free).
import fs from 'node:fs';
import inspector from 'node:inspector';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { ADMIN_API_KEY, backend, createTestApp } from '../test/support/test-app.js';
import { BOOKING_MINUTES, BOOKINGS_API_VERSION, BOOKINGS_CONNECTIONS, BOOKINGS_HOSTS, BOOKINGS_ZONE, bookingBody, type BookingHost, bookingsPlan, SlotDealer } from './bookings-e2e.js';
import { startBenchSmtp } from './mail-e2e.js';
import { EVENT_TYPES_API_VERSION } from './slots-e2e.js';
import { buildTeam, loadTeamFixture, teamBookingsPlan, teamServerEnv } from './team-e2e.js';

const SEQUENTIAL = Number(process.env.PROFILE_SEQUENTIAL ?? 100);
const CONCURRENT = Number(process.env.PROFILE_CONCURRENT ?? 600);
const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const post = (session: inspector.Session, method: string, params?: object) =>
  new Promise<any>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));

// Every statement svc sends to PostgreSQL, with its round trip (pool clients are pg.Client instances).
interface Statement {
  text: string;
  ms: number;
}
let recording: Statement[] | null = null;
const originalQuery = pg.Client.prototype.query as (...args: any[]) => any;
pg.Client.prototype.query = function (this: pg.Client, ...args: any[]) {
  const log = recording;
  if (!log) return originalQuery.apply(this, args);
  const first = args[0];
  const text: string = typeof first === 'string' ? first : (first?.text ?? String(first));
  const started = performance.now();
  const done = () => log.push({ text: text.replace(/\s+/g, ' ').slice(0, 140), ms: performance.now() - started });
  const callback = args.at(-1);
  if (typeof callback === 'function') {
    return originalQuery.apply(this, [
      ...args.slice(0, -1),
      (...results: unknown[]) => {
        done();
        callback(...results);
      },
    ]);
  }
  const result = originalQuery.apply(this, args);
  if (result && typeof result.then === 'function') {
    void result.then(done, () => {});
  }
  return result;
} as any;

/** PostgreSQL: CPU time (ms) so far of the backends connected to this test's database (0 on PGlite). */
async function databaseCpuMs(): Promise<number> {
  if (backend !== 'postgres') return 0;
  const result = (await app.runtime.ctx.database.db.execute(sql`select pid from pg_stat_activity where datname = current_database()`)) as unknown as { rows: { pid: number }[] };
  let total = 0;
  for (const { pid } of result.rows) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

const teamCase = process.env.PROFILE_CASE === 'team';
const fixture = loadTeamFixture();
// PROFILE_SMTP=1: mail goes over SMTP to a receiver in this process (bench/mail-e2e.ts), as in the mail bench.
const smtp = process.env.PROFILE_SMTP ? await startBenchSmtp() : null;
const app = await createTestApp({ LOG_LEVEL: 'silent', ...(teamCase ? teamServerEnv(fixture) : {}), ...(smtp ? { SMTP_URL: smtp.url } : {}) });
try {
  const inject = (body: string) =>
    app.runtime.app.inject({ method: 'POST', url: '/v2/bookings', headers: { 'content-type': 'application/json', 'svc-api-version': BOOKINGS_API_VERSION }, payload: body });
  let serial = 0;
  let book: (host: number) => Promise<void>;
  if (teamCase) {
    const team = await buildTeam(app.baseUrl, ADMIN_API_KEY, fixture, (message) => process.stderr.write(`${message}\n`));
    const starts = await teamBookingsPlan(app.baseUrl, team.eventTypeId, fixture.lengthInMinutes);
    book = async () => {
      const start = starts[serial];
      if (start === undefined) throw new Error(`only ${starts.length} team starts to book`);
      const response = await inject(JSON.stringify({ eventTypeId: team.eventTypeId, start: new Date(start).toISOString(), attendee: { name: `Team Booker ${serial}`, email: `team-${serial++}@example.com`, timeZone: 'UTC' } }));
      if (response.statusCode !== 201) throw new Error(`POST /v2/bookings answered ${response.statusCode}: ${response.body.slice(0, 500)}`);
    };
  } else {
    const hosts: BookingHost[] = [];
    for (let i = 0; i < BOOKINGS_HOSTS; i++) {
      const user = await app.request('POST', '/v2/admin/users', {
        key: ADMIN_API_KEY,
        body: { email: `bookings-host-${i}@example.com`, name: `Bookings Host ${i}`, username: `bookings-host-${i}`, timeZone: BOOKINGS_ZONE },
      });
      const eventType = await app.request('POST', '/v2/event-types', {
        key: user.body.data.apiKey,
        version: EVENT_TYPES_API_VERSION,
        body: { title: `Bench ${BOOKING_MINUTES}`, slug: `bench-${BOOKING_MINUTES}`, lengthInMinutes: BOOKING_MINUTES, minimumBookingNotice: 0 },
      });
      hosts.push({ userId: user.body.data.user.id, eventTypeId: eventType.body.data.id, apiKey: user.body.data.apiKey });
    }
    const dealer = new SlotDealer(bookingsPlan(Date.now()), 'measured', hosts.length);
    book = async (host: number) => {
      const response = await inject(bookingBody(hosts[host]!, dealer.next(host), 'measured', serial++));
      if (response.statusCode !== 201) throw new Error(`POST /v2/bookings answered ${response.statusCode}: ${response.body.slice(0, 500)}`);
    };
  }
  const hostCount = teamCase ? BOOKINGS_CONNECTIONS : BOOKINGS_HOSTS;

  // Warm-up: every host once, then some more.
  for (let i = 0; i < 60; i++) await book(i % hostCount);

  // 1. One at a time.
  const latencies: number[] = [];
  let statements: Statement[] = [];
  const seqPg0 = await databaseCpuMs();
  const seqCpu0 = cpuMs();
  const seqWall0 = performance.now();
  for (let i = 0; i < SEQUENTIAL; i++) {
    const log: Statement[] = [];
    if (backend === 'postgres') recording = log;
    const t0 = performance.now();
    await book(i % hostCount);
    latencies.push(performance.now() - t0);
    recording = null;
    await new Promise((resolve) => setImmediate(resolve));
    if (i === SEQUENTIAL - 1) statements = log;
  }
  const seqCpu = cpuMs() - seqCpu0;
  const seqPg = (await databaseCpuMs()) - seqPg0;
  const seqWall = performance.now() - seqWall0;
  latencies.sort((a, b) => a - b);

  // 2. BOOKINGS_CONNECTIONS at a time, worker w on host w.
  const session = process.env.PROFILE_CPU ? new inspector.Session() : null;
  if (session) {
    session.connect();
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.setSamplingInterval', { interval: 200 });
    await post(session, 'Profiler.start');
  }
  const perWorker = Math.ceil(CONCURRENT / BOOKINGS_CONNECTIONS);
  // Every statement of the phase (the job runner's too), when asked for.
  const concurrentStatements: Statement[] = [];
  if (process.env.PROFILE_STATEMENTS && backend === 'postgres') recording = concurrentStatements;
  const conPg0 = await databaseCpuMs();
  const conCpu0 = cpuMs();
  const conWall0 = performance.now();
  /** [ms after the phase began that the request was sent, its latency ms] */
  const concurrentLatencies: [number, number][] = [];
  await Promise.all(
    Array.from({ length: BOOKINGS_CONNECTIONS }, async (_, worker) => {
      for (let i = 0; i < perWorker; i++) {
        const t0 = performance.now();
        await book(worker % hostCount);
        concurrentLatencies.push([t0 - conWall0, performance.now() - t0]);
      }
    }),
  );
  const sortedConcurrent = concurrentLatencies.map(([, ms]) => ms).sort((a, b) => a - b);
  const slowest = [...concurrentLatencies].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([at, ms]) => `${round(ms, 1)} ms, sent at ${round(at, 0)} ms`);
  const conWall = performance.now() - conWall0;
  recording = null;
  const conCpu = cpuMs() - conCpu0;
  const conPg = (await databaseCpuMs()) - conPg0;
  const concurrentCount = perWorker * BOOKINGS_CONNECTIONS;
  let profileSummary: Record<string, number> | undefined;
  if (session) {
    const { profile } = await post(session, 'Profiler.stop');
    session.disconnect();
    fs.writeFileSync(process.env.PROFILE_CPU!, JSON.stringify(profile));
    profileSummary = summarize(profile, concurrentCount);
  }

  const statementMs = statements.reduce((sum, statement) => sum + statement.ms, 0);
  const statementsByText = new Map<string, number>();
  for (const statement of concurrentStatements) statementsByText.set(statement.text.slice(0, 100), (statementsByText.get(statement.text.slice(0, 100)) ?? 0) + 1);
  process.stdout.write(
    `${JSON.stringify(
      {
        backend,
        sequential: {
          bookings: SEQUENTIAL,
          p50Ms: round(latencies[Math.floor(SEQUENTIAL / 2)]!),
          p95Ms: round(latencies[Math.floor(SEQUENTIAL * 0.95)]!),
          cpuMsPerBooking: round(seqCpu / SEQUENTIAL),
          /** Wall time per booking not spent on this process's CPU: waiting on the database (or other processes). */
          waitMsPerBooking: round((seqWall - seqCpu) / SEQUENTIAL),
          ...(backend === 'postgres' ? { postgresCpuMsPerBooking: round(seqPg / SEQUENTIAL) } : {}),
          ...(backend === 'postgres'
            ? { statementsPerBooking: statements.length, statementRoundTripsMs: round(statementMs), statements: statements.map((statement) => `${round(statement.ms, 2)} ms  ${statement.text}`) }
            : {}),
        },
        concurrent: {
          bookings: concurrentCount,
          workers: BOOKINGS_CONNECTIONS,
          perSecond: round((concurrentCount * 1000) / conWall, 1),
          cpuMsPerBooking: round(conCpu / concurrentCount),
          ...(backend === 'postgres' ? { postgresCpuMsPerBooking: round(conPg / concurrentCount) } : {}),
          processBusyPercent: round((100 * conCpu) / conWall, 1),
          p50Ms: round(sortedConcurrent[Math.floor(sortedConcurrent.length / 2)]!, 1),
          p99Ms: round(sortedConcurrent[Math.floor(sortedConcurrent.length * 0.99)]!, 1),
          slowest,
          ...(profileSummary ? { profileSelfMsPerBooking: profileSummary } : {}),
          ...(concurrentStatements.length > 0
            ? {
                statementsPerBooking: round(concurrentStatements.length / concurrentCount, 2),
                statementCounts: [...statementsByText].sort((a, b) => b[1] - a[1]).map(([text, count]) => `${round(count / concurrentCount, 2)}  ${text}`),
              }
            : {}),
        },
      },
      null,
      1,
    )}\n`,
  );
} finally {
  await app.close();
  await smtp?.close();
}

/** Self time of a V8 CPU profile by package (node_modules/<name>), svc source directory or V8 category, ms per booking. */
function summarize(profile: { nodes: { id: number; callFrame: { url: string; functionName: string } }[]; samples: number[]; timeDeltas: number[] }, count: number) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const frame = byId.get(id)!.callFrame;
    const url = frame.url;
    let key: string;
    if (!url) key = frame.functionName.startsWith('(') ? frame.functionName : `native ${frame.functionName}`;
    else if (url.includes('/node_modules/')) {
      const rest = url.slice(url.lastIndexOf('/node_modules/') + 14).split('/');
      key = rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
    } else if (url.includes('/src/')) key = `svc ${url.slice(url.indexOf('/src/') + 1).split('/').slice(0, -1).join('/')}`;
    else if (url.startsWith('node:')) key = `node ${url.slice(5).split('/')[0]}`;
    else key = url.split('/').slice(-2).join('/');
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  return Object.fromEntries([...totals].sort((a, b) => b[1] - a[1]).slice(0, 18).map(([key, ms]) => [key, round(ms / count)]));
}
