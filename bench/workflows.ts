// Workflows: the two figures, per store (embedded, then PostgreSQL). ONE JSON object on stdout.
//   npm run -s bench -- --only=workflows      (or: node --import tsx bench/workflows.ts)
// burst: 10,000 reminders due at the same instant, all sent within a minute by one worker. latency: a
// booking's request time with 3 workflows on its event type at most 5% over none. How: NOTE.
import os from 'node:os';
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../src/db/client.js';
import { type ChildServer, startServer } from '../test/support/child-server.js';
import { type BenchSmtp, startBenchSmtp } from './mail-e2e.js';
import { benchCall, benchOnBothStores, freeStarts, settleSmtp, stopServer, withStoreDb } from './store-runs.js';

const REMINDERS = 10_000;
const API_BOOKINGS = 40;
const BURST_GOAL_S = 60;
/** PostgreSQL: how far ahead the reminders are made due (the server keeps running meanwhile). */
const DUE_AHEAD_MS = 3_000;
const GIVE_UP_MS = 180_000;
const WARMUP = 20;
const PER_RUN = 200;
const LATENCY_GOAL_RATIO = 1.05;
const JOB_CONCURRENCY = 64;
const BOOKINGS_VERSION = '2024-08-13';
const DAY = 86_400_000;
/** As bench/run.ts: the system admin's key, no rate limit in the way. */
const ADMIN_API_KEY = 'svc_0123456789abcdef0123456789abcdef';
const BENCH_ENV = { SVC_ADMIN_API_KEY: ADMIN_API_KEY, RATE_LIMIT_API_KEY: '100000000', RATE_LIMIT_ANONYMOUS: '100000000' };

const NOTE =
  `workflows: per store a fresh \`svc serve\` child (its own job runner, SVC_JOB_CONCURRENCY unset = ${JOB_CONCURRENCY}, LOG_LEVEL=info, SMTP_URL at an SMTP sink ` +
  'in the bench process that accepts at once), an organization team made over HTTP with 4 hosts (UTC, default hours), each hosting one 30-min collective event type. ' +
  `burst: type R has a beforeEvent 24 h workflow (one email_attendee step, template reminder, event attached); ${API_BOOKINGS} bookings of R over HTTP (the app ` +
  `queues their workflow.due jobs), then up to ${REMINDERS} bookings with SQL in one transaction: copied from the last HTTP one (30-min slots back to back from 2 days ` +
  'after it), one attendee each, each with its workflow.due job as svc queues it (same payload and dedupe key: still owed when due); then ANALYZE (statistics ' +
  'as a store grown to this size has them); then every workflow.due job of R gets run_at = dueAt: on PostgreSQL with the server running, now + ' +
  `${DUE_AHEAD_MS / 1000} s; on the embedded store (one process opens the data dir) with the server stopped, dueAt falling after the restarted server is ready ` +
  '(readyBeforeDueMs). From dueAt: firstReceivedS and allReceivedS at the sink, allSentS the last "mail sent" log line of kind workflow (marked sent in the store; ' +
  'pino time); seconds = the later of the two; db: counted in the store afterwards; ok: all 10,000 reminders and messages sent, seconds < 60. latency: ' +
  'A = no workflows; B = 3 workflows (beforeEvent 24 h email_attendee + email_host, afterEvent 1 h email_host, newEvent email_attendee); C = 3 timed ones (B with ' +
  'beforeEvent 1 h in place of newEvent: nothing sent at once); each type on its own host. POST /v2/bookings without credentials, one at a time, each to the next ' +
  `free slot of GET /v2/slots, timed from fetch() to the body read (server*: the server's own "request completed" ms); ${WARMUP} warm-up each taking turns, then ` +
  `runs A B C C B A of ${PER_RUN}. The runner works meanwhile (booking mails; B also the newEvent message). Ratios = side / A; ok: B's mean and median ratios <= ` +
  `${LATENCY_GOAL_RATIO}.`;

const log = (message: string) => process.stderr.write(`[workflows] ${message}\n`);
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const rowsOf = async <T>(db: Db, query: SQL) => ((await db.execute(query)) as unknown as { rows: T[] }).rows;



type Side = 'a' | 'b' | 'c';

interface Setup {
  typeIds: Record<Side | 'r', number>;
  burst: { workflowId: number };
}

const step = (stepNumber: number, action: string, template: string, extra: Record<string, unknown> = {}) =>
  ({ stepNumber, action, recipient: action === 'email_attendee' ? 'attendee' : 'const', template, sender: 'Acme Scheduling', message: { subject: '', html: '' }, ...extra });

async function setUp(baseUrl: string): Promise<Setup> {
  const admin = <T>(route: string, body: unknown, what: string) => benchCall<T>(baseUrl, 'POST', route, ADMIN_API_KEY, body, 201, what);
  const user = (name: string) => admin<{ user: { id: number }; apiKey: string }>('/v2/admin/users', { email: `${name}@example.com`, name, timeZone: 'UTC' }, name);
  const owner = await user('wf-owner');
  const org = `/v2/organizations/${(await admin<{ id: number }>('/v2/admin/organizations', { name: 'Workflows bench', ownerId: owner.user.id, isPlatform: false }, 'organization')).id}`;
  const post = <T>(route: string, body: unknown, what: string) => benchCall<T>(baseUrl, 'POST', route, owner.apiKey, body, 201, what);
  const team = `${org}/teams/${(await post<{ id: number }>(`${org}/teams`, { name: 'Care' }, 'team')).id}`;
  const typeIds: number[] = [];
  for (const slug of ['plain', 'with-workflows', 'timed-workflows', 'reminders']) {
    const host = await user(`wf-host-${slug}`);
    for (const path of [`${org}/memberships`, `${team}/memberships`]) {
      const joined = await post<{ id: number; accepted: boolean }>(path, { userId: host.user.id, role: 'MEMBER', accepted: true }, `${slug} host joins`);
      if (!joined.accepted) await benchCall(baseUrl, 'POST', `${path}/${joined.id}/accept`, host.apiKey, undefined, 200, `${slug} host accepts`);
    }
    const body = { title: 'Consultation', slug, lengthInMinutes: 30, minimumBookingNotice: 0, schedulingType: 'COLLECTIVE', hosts: [{ userId: host.user.id }], locations: [{ type: 'address', address: 'Rue de la Paix 1, Paris', public: true }] };
    typeIds.push((await post<{ id: number }>(`${team}/event-types`, body, `${slug} event type`)).id);
  }
  const [a, b, c, r] = typeIds as [number, number, number, number];
  const workflow = (name: string, eventTypeIds: number[], trigger: unknown, steps: unknown[]) =>
    post<{ id: number; steps: { id: number }[] }>(`${team}/workflows`, { name, activation: { activeOnEventTypeIds: eventTypeIds }, trigger, steps }, name);
  const day = { type: 'beforeEvent', offset: { value: 24, unit: 'hour' } };
  await workflow('Reminder', [b, c], day, [step(1, 'email_attendee', 'reminder'), step(2, 'email_host', 'reminder')]);
  await workflow('Follow-up', [b, c], { type: 'afterEvent', offset: { value: 1, unit: 'hour' } }, [step(1, 'email_host', 'completed')]);
  const welcome = [step(1, 'email_attendee', 'custom', { message: { subject: 'Booked: {EVENT_NAME}', html: '<p>Hello {ATTENDEE}, see you at {START_TIME_h:mma} {TIMEZONE}.</p>' } })];
  await workflow('Welcome', [b], { type: 'newEvent' }, welcome);
  await workflow('Heads-up', [c], { type: 'beforeEvent', offset: { value: 1, unit: 'hour' } }, welcome);
  const burst = await workflow('Burst reminder', [r], day, [step(1, 'email_attendee', 'reminder', { includeCalendarEvent: true })]);
  return { typeIds: { a, b, c, r }, burst: { workflowId: burst.id } };
}


let guest = 0;
/** One anonymous POST /v2/bookings, timed from fetch() to the body read (ms). */
async function book(baseUrl: string, eventTypeId: number, start: string): Promise<number> {
  guest += 1;
  const body = { eventTypeId, start, attendee: { name: `Guest ${guest}`, email: `guest-${guest}@example.com`, timeZone: 'Europe/Berlin', language: 'en' } };
  const began = performance.now();
  const response = await fetch(`${baseUrl}/v2/bookings`, { method: 'POST', headers: { 'content-type': 'application/json', 'svc-api-version': BOOKINGS_VERSION }, body: JSON.stringify(body) });
  const text = await response.text();
  const ms = performance.now() - began;
  if (response.status !== 201) throw new Error(`POST /v2/bookings ${start} answered ${response.status}: ${text.slice(0, 500)}`);
  return ms;
}

const stats = (client: number[], server: number[]) => ({
  p50Ms: round(quantile(client, 0.5)),
  p90Ms: round(quantile(client, 0.9)),
  meanMs: round(mean(client)),
  serverP50Ms: round(quantile(server, 0.5)),
  serverMeanMs: round(mean(server)),
  requests: client.length,
});
type Stats = ReturnType<typeof stats>;
const ratios = (side: Stats, base: Stats) => ({
  meanRatio: round(side.meanMs / base.meanMs, 3),
  medianRatio: round(side.p50Ms / base.p50Ms, 3),
  serverMeanRatio: round(side.serverMeanMs / base.serverMeanMs, 3),
  serverMedianRatio: round(side.serverP50Ms / base.serverP50Ms, 3),
});

async function latency(server: ChildServer, store: string, setup: Setup) {
  const from = Date.now() + 2 * DAY;
  const sides = ['a', 'b', 'c'] as const;
  const slots = Object.fromEntries(await Promise.all(sides.map(async (side) => [side, await freeStarts(server.baseUrl, setup.typeIds[side], from)] as const))) as Record<Side, string[]>;
  const need = WARMUP + 2 * PER_RUN;
  if (sides.some((side) => slots[side].length < need)) throw new Error(`not enough free slots (${need} needed): ${sides.map((side) => slots[side].length)}`);
  const order: Side[] = [];
  const next = (side: Side) => (order.push(side), book(server.baseUrl, setup.typeIds[side], slots[side].shift()!));
  for (let i = 0; i < WARMUP; i++) for (const side of sides) await next(side);
  const client: Record<Side, number[]> = { a: [], b: [], c: [] };
  const runs: { side: string; p50Ms: number; meanMs: number }[] = [];
  for (const side of ['a', 'b', 'c', 'c', 'b', 'a'] as const) {
    const run: number[] = [];
    for (let i = 0; i < PER_RUN; i++) run.push(await next(side));
    client[side].push(...run);
    runs.push({ side: side.toUpperCase(), p50Ms: round(quantile(run, 0.5)), meanMs: round(mean(run)) });
    log(`${store}: latency run ${side.toUpperCase()}: p50 ${round(quantile(run, 0.5))} ms, mean ${round(mean(run))} ms`);
  }
  // The server's own time: its "request completed" line of each booking, in the order they were made.
  await sleep(500);
  const lines = server.logs().filter((line) => line.msg === 'request completed' && line.route === '/v2/bookings' && line.method === 'POST');
  if (lines.length !== order.length) throw new Error(`${lines.length} POST /v2/bookings log lines for ${order.length} bookings`);
  const own: Record<Side, number[]> = { a: [], b: [], c: [] };
  lines.slice(WARMUP * sides.length).forEach((line, index) => own[order[WARMUP * sides.length + index]!].push(Number(line.ms)));
  const [without, withWorkflows, timedOnly] = sides.map((side) => stats(client[side], own[side])) as [Stats, Stats, Stats];
  const b = ratios(withWorkflows, without);
  return {
    without,
    with3Workflows: withWorkflows,
    ...b,
    with3TimedWorkflows: { ...timedOnly, ...ratios(timedOnly, without) },
    runs,
    order: 'warm-up A B C taking turns, then A B C C B A',
    goalRatio: LATENCY_GOAL_RATIO,
    ok: b.meanRatio <= LATENCY_GOAL_RATIO && b.medianRatio <= LATENCY_GOAL_RATIO,
  };
}


/** The rest of the burst's bookings, each owed its reminder by a workflow.due job as svc queues it, and every due job of the burst at `dueAt`. */
async function seedBurst(db: Db, setup: Setup, dueAt: () => number) {
  const { workflowId } = setup.burst;
  const seeded = await db.transaction(async (tx) => {
    const [made] = await rowsOf<{ made: number; template: number }>(
      tx,
      sql`select count(*)::int as made, max((payload->>'bookingId')::int) as template from jobs where kind = 'workflow.due' and (payload->>'workflowId')::int = ${workflowId}`,
    );
    const missing = REMINDERS - made!.made;
    await tx.execute(sql`with t as (select * from bookings where id = ${made!.template}),
      a as (select * from booking_attendees where booking_id = ${made!.template} order by id limit 1),
      b as (
        insert into bookings (uid, event_type_id, user_id, title, description, start_at, end_at, status, location, metadata, responses)
        select 'wf-bench-' || g, t.event_type_id, t.user_id, t.title, t.description, s, s + (t.end_at - t.start_at), t.status, t.location, t.metadata,
          jsonb_set(t.responses, '{email}', to_jsonb('wf-bench-' || g || '@example.com'), false)
        from t, generate_series(0, ${missing - 1}::int) g, lateral (select date_trunc('day', t.end_at) + interval '2 days' + g * interval '30 minutes' as s) start
        returning id, uid
      )
      insert into booking_attendees (booking_id, name, email, time_zone, locale, phone_number)
      select b.id, a.name, b.uid || '@example.com', a.time_zone, a.locale, a.phone_number from b, a`);
    await tx.execute(sql`insert into jobs (kind, payload, run_at, max_attempts, dedupe_key)
      select 'workflow.due', jsonb_build_object('workflowId', ${workflowId}::int, 'bookingId', b.id, 'dueAt', due.ms, 'occasion', 'bench'), b.start_at - interval '24 hours', 10,
        'wf-due:' || ${workflowId}::int || ':' || b.id || ':at:' || due.ms
      from bookings b, lateral (select (extract(epoch from b.start_at - interval '24 hours') * 1000)::bigint as ms) due
      where b.uid like 'wf-bench-%'`);
    return { apiBookings: made!.made, sqlBookings: missing };
  });
  // Statistics as a store that grew to this size over time has them (autovacuum; on the embedded store the hourly housekeeping).
  await db.execute(sql`analyze`);
  const due = dueAt();
  const [moved] = await rowsOf<{ jobs: number }>(db, sql`with moved as (update jobs set run_at = ${new Date(due).toISOString()}::timestamptz
        where kind = 'workflow.due' and status = 'pending' and (payload->>'workflowId')::int = ${workflowId}
        returning id) select count(*)::int as jobs from moved`);
  if (moved!.jobs !== REMINDERS) throw new Error(`${moved!.jobs} due jobs made due, not ${REMINDERS}`);
  return { ...seeded, dueAt: due };
}

/** What the store says of the burst afterwards. */
async function burstInStore(db: Db, workflowId: number) {
  const [row] = await rowsOf<Record<string, number>>(
    db,
    sql`select count(*) filter (where r.status = 'sent')::int as "remindersSent", count(*) filter (where r.status <> 'sent')::int as "remindersNotSent",
      count(m.id) filter (where m.status = 'sent')::int as "mailSent", count(m.id) filter (where m.status = 'pending')::int as "mailPending",
      count(m.id) filter (where m.status = 'failed')::int as "mailFailed",
      (select count(*)::int from jobs j where j.kind = 'workflow.due' and j.attempts > 1 and (j.payload->>'workflowId')::int = ${workflowId}) as "sendJobRetries",
      (select count(*)::int from jobs j where j.kind = 'mail.send' and j.attempts > 1
        and (j.payload->>'messageId')::bigint in (select m2.id from mail_messages m2 join workflow_reminders r2 on r2.message_uid = m2.uid where r2.workflow_id = ${workflowId})) as "mailJobRetries"
    from workflow_reminders r left join mail_messages m on m.uid = r.message_uid where r.workflow_id = ${workflowId}`,
  );
  return row!;
}

/** Watches the sink and the server's "mail sent" log lines of kind workflow from `dueAt` until all came (or GIVE_UP_MS). */
async function watchBurst(server: ChildServer, smtp: BenchSmtp, dueAt: number) {
  const base = smtp.received();
  let scanned = server.stdout().length;
  let sent = 0;
  let lastSentAt = 0;
  let firstAt: number | null = null;
  let receivedAt: number | null = null;
  const everyFiveS: number[] = [];
  await sleep(dueAt - Date.now());
  while (Date.now() < dueAt + GIVE_UP_MS) {
    const now = Date.now();
    const received = smtp.received() - base;
    if (firstAt === null && received > 0) firstAt = now;
    if (receivedAt === null && received >= REMINDERS) receivedAt = now;
    while (everyFiveS.length < Math.floor((now - dueAt) / 5_000)) everyFiveS.push(received);
    const text = server.stdout();
    const end = text.lastIndexOf('\n') + 1;
    for (const line of end > scanned ? text.slice(scanned, end).split('\n') : []) {
      if (!line.includes('"msg":"mail sent"') || !line.includes('"kind":"workflow"')) continue;
      sent += 1;
      lastSentAt = Math.max(lastSentAt, (JSON.parse(line) as { time: number }).time);
    }
    scanned = Math.max(scanned, end);
    if (receivedAt !== null && sent >= REMINDERS) break;
    await sleep(20);
  }
  const seconds = (at: number | null) => (at === null ? null : round((at - dueAt) / 1000));
  return { received: smtp.received() - base, sentLogged: sent, firstReceivedS: seconds(firstAt), allReceivedS: seconds(receivedAt), allSentS: sent >= REMINDERS ? seconds(lastSentAt) : null, receivedEvery5s: everyFiveS };
}

async function storeRun(store: 'embedded' | 'postgres', storeEnv: Record<string, string>) {
  const loadAvgAtStart = os.loadavg().map((value) => round(value));
  const smtp = await startBenchSmtp();
  const env = { ...storeEnv, ...BENCH_ENV, SMTP_URL: smtp.url };
  let began = performance.now();
  let server = await startServer(env);
  const startMs = performance.now() - began;
  try {
    const setup = await setUp(server.baseUrl);
    log(`${store}: set up; latency: ${WARMUP} warm-up each, then A B C C B A of ${PER_RUN}`);
    const latencyFigures = await latency(server, store, setup);
    log(`${store}: latency B/A mean ${latencyFigures.meanRatio}, median ${latencyFigures.medianRatio}; burst: ${API_BOOKINGS} bookings over HTTP`);
    const starts = (await freeStarts(server.baseUrl, setup.typeIds.r, Date.now() + 2 * DAY)).slice(0, API_BOOKINGS);
    for (const start of starts) await book(server.baseUrl, setup.typeIds.r, start);
    await settleSmtp(smtp);
    began = performance.now();
    let readyBeforeDueMs: number | null = null;
    let seeded: Awaited<ReturnType<typeof seedBurst>>;
    if (store === 'postgres') {
      seeded = await withStoreDb(storeEnv, (db) => seedBurst(db, setup, () => Date.now() + DUE_AHEAD_MS));
    } else {
      await stopServer(log, store, server);
      seeded = await withStoreDb(storeEnv, (db) => seedBurst(db, setup, () => Date.now() + Math.max(5_000, 2 * startMs + 3_000)));
      server = await startServer(env);
      readyBeforeDueMs = Math.round(seeded.dueAt - Date.now());
      if (readyBeforeDueMs < 0) log(`${store}: the server was ready ${-readyBeforeDueMs} ms after the reminders came due`);
    }
    log(`${store}: ${seeded.sqlBookings} bookings and reminders written with SQL in ${Math.round(performance.now() - began)} ms; ${REMINDERS} due at ${new Date(seeded.dueAt).toISOString()}`);
    const watched = await watchBurst(server, smtp, seeded.dueAt);
    log(`${store}: burst: ${watched.received} received in ${watched.allReceivedS} s, all marked sent in ${watched.allSentS} s`);
    if (store === 'embedded') await stopServer(log, store, server);
    const db = await withStoreDb(storeEnv, (opened) => burstInStore(opened, setup.burst.workflowId));
    const seconds = watched.allReceivedS === null || watched.allSentS === null ? null : Math.max(watched.allReceivedS, watched.allSentS);
    const allSent = db.remindersSent === REMINDERS && db.mailSent === REMINDERS;
    const burst = {
      reminders: REMINDERS,
      apiBookings: seeded.apiBookings,
      sqlBookings: seeded.sqlBookings,
      jobConcurrency: JOB_CONCURRENCY,
      dueAt: new Date(seeded.dueAt).toISOString(),
      readyBeforeDueMs,
      ...watched,
      seconds,
      messagesPerSecond: seconds === null ? null : Math.round(REMINDERS / seconds),
      db,
      goalSeconds: BURST_GOAL_S,
      ok: seconds !== null && seconds < BURST_GOAL_S && allSent && (readyBeforeDueMs ?? 0) >= 0,
    };
    // On a shared machine the figures move with its load: the 1-minute averages at start and end.
    const loadAvg1m = [loadAvgAtStart[0], round(os.loadavg()[0]!)];
    return { store, burst, latency: latencyFigures, cpus: os.cpus().length, loadAvg1m, ok: burst.ok && latencyFigures.ok };
  } finally {
    await stopServer(log, store, server);
    await smtp.close();
  }
}

await benchOnBothStores(log, 'workflows', storeRun, { note: NOTE });

