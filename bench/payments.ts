// Payments: the figure, per store (embedded, then PostgreSQL). ONE JSON object on stdout.
//   npm run -s bench -- --only=payments      (or: node --import tsx bench/payments.ts)
// Confirming 500 payments by webhook takes under 5 s on one process: 500 bookings of paid event types wait
// for their payment, then the local Stripe (test/support/fake-stripe.ts, in this process) posts their
// signed checkout.session.completed events 16 at a time (also 64 and 1, each on 500 bookings of their own).
// How: NOTE.
import fs from 'node:fs';
import os from 'node:os';
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../src/db/client.js';
import { type ChildServer, startServer } from '../test/support/child-server.js';
import { type FakeStripe, startFakeStripe } from '../test/support/fake-stripe.js';
import { type BenchSmtp, startBenchSmtp } from './mail-e2e.js';
import { benchCall, benchOnBothStores, freeStarts, settleSmtp, stopServer, withStoreDb } from './store-runs.js';
import { machineCpuMs, postgresCpuMs, statCpuMs } from './proc-cpu.js';

const PAYMENTS = 500;
const HOSTS = 10;
/** Concurrent deliveries of each run, in order: the goal's first (on the store with the fewest bookings yet), then the others. */
const CONCURRENCIES = [16, 64, 1] as const;
const GOAL_CONCURRENCY = 16;
const GOAL_S = 5;
const GOAL = '< 5 s for 500 on one process';
/** Messages a confirmed booking queues (scheduled: attendee and organizer). */
const MAILS_PER_BOOKING = 2;
/** How long to wait for a run's mail to drain before going on without it. */
const DRAIN_GIVE_UP_MS = 120_000;
/** Long enough that no hold ends during the run (svc's default is 30 min). */
const HOLD_MINUTES = 240;
const PRICE = 5000;
const CURRENCY = 'eur';
const BOOKINGS_VERSION = '2024-08-13';
const EVENT_TYPES_VERSION = '2024-06-14';
const DAY = 86_400_000;
/** As bench/run.ts: the system admin's key, no rate limit in the way. */
const ADMIN_API_KEY = 'svc_0123456789abcdef0123456789abcdef';
const BENCH_ENV = {
  SVC_ADMIN_API_KEY: ADMIN_API_KEY,
  RATE_LIMIT_API_KEY: '100000000',
  RATE_LIMIT_ANONYMOUS: '100000000',
  SVC_PAYMENT_HOLD_MINUTES: String(HOLD_MINUTES),
};

const NOTE =
  `payments: per store a fresh \`svc serve\` child (its own job runner, LOG_LEVEL=info, SMTP_URL at an SMTP sink in the bench process that accepts at once, ` +
  `STRIPE_* at the local Stripe of test/support/fake-stripe.ts, also in the bench process, its webhookUrl svc's /v2/stripe/webhook; SVC_PAYMENT_HOLD_MINUTES=${HOLD_MINUTES}). ` +
  `Setup (not timed): ${HOSTS} hosts made with POST /v2/admin/users (UTC, default Mon-Fri 09:00-17:00), each connecting its own Stripe account through ` +
  `Stripe Connect's consent (GET /v2/stripe/connect, the local Stripe's authorize page, its redirect to /v2/stripe/save) and owning one 30-min paid event ` +
  `type (${PRICE} ${CURRENCY}, minimumBookingNotice 0); then ${PAYMENTS} bookings per run (${PAYMENTS / HOSTS} per host) with POST /v2/bookings ` +
  `(svc-api-version ${BOOKINGS_VERSION}, anonymous), each to the host's next free start of GET /v2/slots from tomorrow, one host per connection, ` +
  `${HOSTS} at a time: each 201 pending with payment awaiting (svc opened a Checkout Session on the host's account). Measured: per run, the local Stripe's ` +
  `pay() of the run's ${PAYMENTS} sessions (session completed, signed checkout.session.completed posted to svc), N at a time (concurrency), from the ` +
  `first send until the last answer; every answer must be 200 {received: true, outcome: confirmed}. latency* = per delivery, pay() called to body read ` +
  `(client), and the server's own "request completed" ms (server*). serverCpuS/postgresCpuS: CPU seconds of the svc process / of every process named ` +
  `postgres over the measured span (from /proc, 10 ms ticks; the svc process's includes its job runner sending the run's mail meanwhile), and per payment; ` +
  `machineBusyPercent of all cores (anything else running on the machine shows here and in loadAvg1m). Runs in order ${CONCURRENCIES.join(', ')}, each on bookings of its ` +
  `own, after the previous run's mail drained. mailDrainedS (not part of the goal): from the first send until the SMTP sink had the run's ` +
  `${MAILS_PER_BOOKING} x ${PAYMENTS} messages (null: not within ${DRAIN_GIVE_UP_MS / 1000} s). verification (not timed, SQL on the store with the ` +
  `server stopped): per run, bookings accepted, payments paid, exactly one BOOKING_PAID and one BOOKING_CREATED event per booking, and the total ` +
  `of BOOKING_PAID rows; mail and jobs as the store has them at the end. met (per store): the concurrency-${GOAL_CONCURRENCY} run confirmed all ` +
  `${PAYMENTS} in under ${GOAL_S} s and verified; met (top level): both stores met.`;

const log = (message: string) => process.stderr.write(`[payments] ${message}\n`);
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const rowsOf = async <T>(db: Db, query: SQL) => ((await db.execute(query)) as unknown as { rows: T[] }).rows;



// ---- CPU from /proc (null where it is not available) ----

interface CpuSnapshot { serverMs: number; postgresMs: number; busyMs: number; totalMs: number }

function cpuSnapshot(serverPid: number | undefined): CpuSnapshot | null {
  try {
    const { busyMs, totalMs } = machineCpuMs();
    return { serverMs: serverPid === undefined ? Number.NaN : statCpuMs(fs.readFileSync(`/proc/${serverPid}/stat`, 'utf8')), postgresMs: postgresCpuMs(), busyMs, totalMs };
  } catch {
    return null;
  }
}

function cpuBetween(before: CpuSnapshot | null, after: CpuSnapshot | null, payments: number) {
  if (!before || !after) return null;
  const serverMs = after.serverMs - before.serverMs;
  const postgresMs = after.postgresMs - before.postgresMs;
  return {
    serverCpuS: round(serverMs / 1000),
    serverCpuMsPerPayment: round(serverMs / payments),
    postgresCpuS: round(postgresMs / 1000),
    postgresCpuMsPerPayment: round(postgresMs / payments),
    machineBusyPercent: round((100 * (after.busyMs - before.busyMs)) / Math.max(1, after.totalMs - before.totalMs), 1),
  };
}

// ---- setup ----

interface Host { userId: number; apiKey: string; eventTypeId: number; accountId: string }

/** A host: made by the admin, its own Stripe account connected as a browser does it, one paid event type. */
async function makeHost(baseUrl: string, stripe: FakeStripe, index: number): Promise<Host> {
  const made = await benchCall<{ user: { id: number }; apiKey: string }>(baseUrl, 'POST', '/v2/admin/users', ADMIN_API_KEY, { email: `pay-host-${index}@example.com`, name: `Host ${index}`, timeZone: 'UTC' }, 201, `host ${index}`);
  const before = new Set(stripe.accounts.keys());
  const { authUrl } = await benchCall<{ authUrl: string }>(baseUrl, 'GET', '/v2/stripe/connect', made.apiKey, undefined, 200, `host ${index} connect`);
  const consent = await fetch(authUrl, { redirect: 'manual' });
  await consent.arrayBuffer();
  if (consent.status !== 302) throw new Error(`host ${index}: Stripe's consent answered ${consent.status}`);
  const back = new URL(consent.headers.get('location')!);
  // Stripe sends the browser to svc's redirect_uri (APP_URL); this svc listens on a bench port.
  const saved = await fetch(`${baseUrl}${back.pathname}${back.search}`, { redirect: 'manual' });
  const savedText = await saved.text();
  if (saved.status !== 200) throw new Error(`host ${index}: GET ${back.pathname} answered ${saved.status}: ${savedText.slice(0, 500)}`);
  const accountId = [...stripe.accounts.keys()].find((id) => !before.has(id));
  if (!accountId) throw new Error(`host ${index}: no Stripe account was connected`);
  const body = { title: 'Consultation', slug: `paid-${index}`, lengthInMinutes: 30, minimumBookingNotice: 0, price: PRICE, currency: CURRENCY };
  const eventType = await benchCall<{ id: number }>(baseUrl, 'POST', '/v2/event-types', made.apiKey, body, 201, `host ${index} event type`, { 'svc-api-version': EVENT_TYPES_VERSION });
  return { userId: made.user.id, apiKey: made.apiKey, eventTypeId: eventType.id, accountId };
}


interface Awaiting { bookingUid: string; paymentUid: string; sessionId: string }

/** One anonymous booking of a paid event type: 201, pending, its payment awaiting. */
async function bookPaid(baseUrl: string, eventTypeId: number, start: string, email: string): Promise<{ uid: string; paymentUid: string }> {
  const body = { eventTypeId, start, attendee: { name: 'Guest', email, timeZone: 'Europe/Berlin', language: 'en' } };
  const data = await benchCall<{ uid: string; status: string; payment?: { uid: string; status: string } }>(baseUrl, 'POST', '/v2/bookings', null, body, 201, `booking ${start}`, { 'svc-api-version': BOOKINGS_VERSION });
  if (data.status !== 'pending' || data.payment?.status !== 'awaiting') throw new Error(`booking ${start}: ${data.status}, payment ${JSON.stringify(data.payment)}`);
  return { uid: data.uid, paymentUid: data.payment.uid };
}

/** The run's bookings: PAYMENTS / HOSTS per host, each host's in turn on its own connection, all hosts at once. */
async function makeBookings(baseUrl: string, stripe: FakeStripe, hosts: Host[], starts: Map<number, string[]>, run: string): Promise<Awaiting[]> {
  const perHost = PAYMENTS / HOSTS;
  const made = await Promise.all(
    hosts.map(async (host, h) => {
      const free = starts.get(host.eventTypeId)!;
      if (free.length < perHost) throw new Error(`host ${h}: ${free.length} free starts left, ${perHost} needed`);
      const out: { uid: string; paymentUid: string }[] = [];
      for (let i = 0; i < perHost; i++) out.push(await bookPaid(baseUrl, host.eventTypeId, free.shift()!, `${run}-h${h}-${i}@example.com`));
      return out;
    }),
  );
  // The Checkout Session of each payment: the local Stripe names the payment as client_reference_id.
  const sessionOf = new Map<string, string>();
  for (const [id, { object }] of stripe.sessions) if (typeof object.client_reference_id === 'string') sessionOf.set(object.client_reference_id, id);
  return made.flat().map(({ uid, paymentUid }) => {
    const sessionId = sessionOf.get(paymentUid);
    if (!sessionId) throw new Error(`payment ${paymentUid}: no Checkout Session at the local Stripe`);
    return { bookingUid: uid, paymentUid, sessionId };
  });
}

// ---- the measured part ----

interface RequestLine { route?: unknown; method?: unknown; status?: unknown; ms?: unknown; level?: unknown; msg?: unknown }

/** The server's JSON log lines, from `from` (a character offset of its stdout). */
function logLinesSince(server: ChildServer, from: number): RequestLine[] {
  return server.stdout().slice(from).split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as RequestLine];
    } catch {
      return [];
    }
  });
}


async function payAll(server: ChildServer, stripe: FakeStripe, smtp: BenchSmtp, awaiting: Awaiting[], concurrency: number) {
  const mailBase = smtp.received();
  const logFrom = server.stdout().length;
  const latencies: number[] = [];
  const failures: string[] = [];
  let next = 0;
  const cpuBefore = cpuSnapshot(server.child.pid);
  const began = performance.now();
  const worker = async () => {
    while (next < awaiting.length) {
      const { sessionId } = awaiting[next++]!;
      const sent = performance.now();
      const delivery = await stripe.pay(sessionId);
      latencies.push(performance.now() - sent);
      let outcome: unknown;
      try {
        outcome = (JSON.parse(delivery.body) as { outcome?: unknown }).outcome;
      } catch {
        outcome = undefined;
      }
      if (delivery.status !== 200 || outcome !== 'confirmed') failures.push(`${sessionId}: ${delivery.status} ${delivery.body.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - began;
  const cpu = cpuBetween(cpuBefore, cpuSnapshot(server.child.pid), awaiting.length);
  const answeredAt = Date.now();
  // Not part of the goal: until the SMTP sink had the run's messages (the booking mails, sent by jobs).
  const expectedMails = MAILS_PER_BOOKING * awaiting.length;
  let mailDrainedS: number | null = null;
  while (Date.now() < answeredAt + DRAIN_GIVE_UP_MS) {
    if (smtp.received() - mailBase >= expectedMails) {
      mailDrainedS = round((performance.now() - began) / 1000);
      break;
    }
    await sleep(20);
  }
  await sleep(300);
  const webhookLines = logLinesSince(server, logFrom).filter((line) => line.msg === 'request completed' && line.route === '/v2/stripe/webhook');
  const serverMs = webhookLines.map((line) => Number(line.ms));
  const seconds = ms / 1000;
  return {
    concurrency,
    payments: awaiting.length,
    confirmed: awaiting.length - failures.length,
    failures: failures.length,
    failureSamples: failures.slice(0, 5),
    seconds: round(seconds, 3),
    paymentsPerSecond: round(awaiting.length / seconds, 1),
    latencyP50Ms: round(quantile(latencies, 0.5)),
    latencyP95Ms: round(quantile(latencies, 0.95)),
    latencyMaxMs: round(Math.max(...latencies)),
    serverP50Ms: serverMs.length ? round(quantile(serverMs, 0.5)) : null,
    serverP95Ms: serverMs.length ? round(quantile(serverMs, 0.95)) : null,
    serverMaxMs: serverMs.length ? round(Math.max(...serverMs)) : null,
    serverLines: serverMs.length,
    ...cpu,
    mailDrainedS,
    mailReceived: smtp.received() - mailBase,
  };
}

/** What the store says of each run's bookings (by the attendee's address, `c<concurrency>-...`) afterwards. */
async function verify(db: Db) {
  const perRun = await rowsOf<Record<string, number | string>>(
    db,
    sql`select split_part(a.email, '-', 1) as run, count(*)::int as bookings,
        count(*) filter (where b.status = 'accepted')::int as accepted,
        count(*) filter (where p.status = 'paid')::int as paid,
        count(*) filter (where ev.paid = 1)::int as "onePaidEvent",
        count(*) filter (where ev.created = 1)::int as "oneCreatedEvent"
      from bookings b
      join booking_attendees a on a.booking_id = b.id
      left join payments p on p.id = b.payment_id
      left join lateral (select count(*) filter (where e.trigger = 'BOOKING_PAID')::int as paid, count(*) filter (where e.trigger = 'BOOKING_CREATED')::int as created
        from booking_events e where e.booking_uid = b.uid) ev on true
      where a.email like 'c%-h%@example.com'
      group by 1 order by 1`,
  );
  const [paidEvents] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from booking_events where trigger = 'BOOKING_PAID'`);
  const mail = await rowsOf<{ status: string; n: number }>(db, sql`select status, count(*)::int as n from mail_messages group by status order by status`);
  const jobs = await rowsOf<{ kind: string; status: string; n: number; retried: number }>(
    db,
    sql`select kind, status, count(*)::int as n, count(*) filter (where attempts > 1)::int as retried from jobs group by kind, status order by kind, status`,
  );
  return { perRun, bookingPaidRows: paidEvents!.n, mail: Object.fromEntries(mail.map((row) => [row.status, row.n])), jobs };
}

const results: Record<string, boolean> = {};

async function storeRun(store: 'embedded' | 'postgres', storeEnv: Record<string, string>) {
  const loadAvgAtStart = os.loadavg().map((value) => round(value));
  const smtp = await startBenchSmtp();
  const stripe = await startFakeStripe();
  const env = {
    ...storeEnv,
    ...BENCH_ENV,
    SMTP_URL: smtp.url,
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_CLIENT_ID: stripe.clientId,
    STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
    STRIPE_API_URL: stripe.url,
    STRIPE_CONNECT_URL: stripe.url,
  };
  const server = await startServer(env);
  let stopped = false;
  try {
    stripe.webhookUrl = `${server.baseUrl}/v2/stripe/webhook`;
    let began = performance.now();
    const hosts: Host[] = [];
    for (let i = 0; i < HOSTS; i++) hosts.push(await makeHost(server.baseUrl, stripe, i));
    const from = Date.now() + DAY;
    const starts = new Map(await Promise.all(hosts.map(async (host) => [host.eventTypeId, await freeStarts(server.baseUrl, host.eventTypeId, from)] as const)));
    log(`${store}: ${HOSTS} hosts with Stripe accounts and paid event types in ${Math.round(performance.now() - began)} ms`);
    const runs = [];
    for (const concurrency of CONCURRENCIES) {
      began = performance.now();
      const awaiting = await makeBookings(server.baseUrl, stripe, hosts, starts, `c${concurrency}`);
      const setupS = round((performance.now() - began) / 1000);
      await settleSmtp(smtp);
      log(`${store}: ${awaiting.length} bookings awaiting payment in ${setupS} s; paying, ${concurrency} at a time`);
      const run = await payAll(server, stripe, smtp, awaiting, concurrency);
      log(`${store}: concurrency ${concurrency}: ${run.confirmed}/${run.payments} confirmed in ${run.seconds} s (${run.paymentsPerSecond}/s, p50 ${run.latencyP50Ms} ms, p95 ${run.latencyP95Ms} ms, max ${run.latencyMaxMs} ms); mail drained ${run.mailDrainedS} s`);
      runs.push({ ...run, bookingSetupS: setupS });
    }
    // Errors and warnings the server logged meanwhile (pino levels 50+ and 40), and any 5xx it answered.
    const lines = logLinesSince(server, 0);
    const serverErrors = lines.filter((line) => Number(line.level) >= 50).length;
    const serverWarnings = lines.filter((line) => Number(line.level) === 40);
    const warningMessages = [...new Set(serverWarnings.map((line) => String(line.msg)))].slice(0, 5);
    const server5xx = lines.filter((line) => line.msg === 'request completed' && Number(line.status) >= 500).length;
    await stopServer(log, store, server);
    stopped = true;
    const db = await withStoreDb(storeEnv, verify);
    const expected = PAYMENTS * CONCURRENCIES.length;
    const verified =
      db.bookingPaidRows === expected &&
      CONCURRENCIES.every((c) => {
        const row = db.perRun.find((found) => found.run === `c${c}`);
        return row !== undefined && [row.bookings, row.accepted, row.paid, row.onePaidEvent, row.oneCreatedEvent].every((n) => n === PAYMENTS);
      });
    const goalRun = runs.find((run) => run.concurrency === GOAL_CONCURRENCY)!;
    const met = verified && goalRun.failures === 0 && goalRun.seconds < GOAL_S;
    results[store] = met;
    const loadAvg1m = [loadAvgAtStart[0], round(os.loadavg()[0]!)];
    return { store, goal: GOAL, met, seconds: goalRun.seconds, verified, runs, verification: db, serverErrors, serverWarnings: serverWarnings.length, warningMessages, server5xx, cpus: os.cpus().length, loadAvg1m };
  } finally {
    if (!stopped) await stopServer(log, store, server);
    await stripe.close();
    await smtp.close();
  }
}

await benchOnBothStores(log, 'payments', storeRun, {
  note: NOTE,
  goal: GOAL,
  // Read when the JSON is written, after both stores ran.
  get met() {
    return results.embedded === true && results.postgres === true;
  },
});
