// Webhook delivery benchmark: bookings made through the API with two subscriptions per host (the
// host's user webhook and its event type's, both signed), delivered by the server's own worker to a
// loopback receiver in this process.
//
// 1. saturated: POST /v2/bookings at full speed with the worker on (bookings and deliveries share the
//    process and the store); each delivery's commit-to-delivery time is its arrival at the receiver
//    minus the 201 of its booking (the commit happened just before).
// 2. paced: bookings at half the saturated rate: commit-to-delivery when the server keeps up.
// 3. backlog: the same bookings with `svc serve --no-worker` (deliveries queued, none sent), then the
//    server restarted with its worker: deliveriesPerSecond is how fast that one worker drains them
//    (first to last arrival), with nothing else running.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { secretBox } from '../src/lib/secrets.js';
import { BOOKINGS_API_VERSION, BOOKINGS_CONNECTIONS, bookingBody, type BookingHost, bookingRequests, bookingsPlan, SlotDealer } from './bookings-e2e.js';

export const WEBHOOKS_ENCRYPTION_KEY = '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0';
/** Every subscription of the bench benchmarks signs with this secret; the receiver checks it. */
export const WEBHOOK_SECRET = 'bench-webhook-secret';
export const SUBSCRIPTIONS_PER_HOST = 2;
const LIVE_BOOKINGS = { pglite: 600, postgres: 1200 } as const;
/** The backlog is sized to this many seconds of the live phase's booking rate. */
const BACKLOG_SECONDS = 8;
const PACED_SECONDS = 5;
const MAX_BACKLOG_BOOKINGS = 5000;
const DELIVERY_TIMEOUT_MS = 60_000;
const TARGET_DELIVERIES_PER_SECOND = 500;

interface Arrival {
  id: string;
  uid: string | null;
  at: number;
}

/** A loopback receiver: answers 200 at once, checks the signature, records when each delivery arrived. */
export interface BenchReceiver {
  url: string;
  arrivals: Arrival[];
  /** Requests that failed the checks (bad signature, not the default body). */
  errors: number;
  reset(): void;
  waitFor(count: number, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export async function startBenchReceiver(): Promise<BenchReceiver> {
  const receiver: BenchReceiver = {
    url: '',
    arrivals: [],
    errors: 0,
    reset() {
      receiver.arrivals = [];
      receiver.errors = 0;
    },
    async waitFor(count, timeoutMs) {
      const started = performance.now();
      while (receiver.arrivals.length < count) {
        if (performance.now() - started > timeoutMs) return false;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      response.writeHead(200).end();
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(request.headers['webhook-id'] ?? '');
      let uid: string | null = null;
      try {
        uid = JSON.parse(body).payload.uid ?? null;
      } catch {
        // counted below
      }
      const signed = request.headers['x-svc-signature-256'] === createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex');
      if (!signed || uid === null || !id) receiver.errors += 1;
      receiver.arrivals.push({ id, uid, at });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** One user webhook and one event-type webhook per host, signed with WEBHOOK_SECRET (ids are integers, checked). */
export function subscriptionsSql(hosts: BookingHost[], url: string): string {
  const box = secretBox(Buffer.from(WEBHOOKS_ENCRYPTION_KEY, 'hex'));
  if (!hosts.every((host) => Number.isInteger(host.userId) && Number.isInteger(host.eventTypeId))) throw new Error('bad host ids');
  if (!/^http:\/\/127\.0\.0\.1:\d+\/hook$/.test(url)) throw new Error(`unexpected receiver url ${url}`);
  const rows = hosts.flatMap((host) => [
    `('user', ${host.userId}, null, '${url}', true, array['BOOKING_CREATED'], '${box.seal(WEBHOOK_SECRET)}')`,
    `('eventType', null, ${host.eventTypeId}, '${url}', true, array['BOOKING_CREATED'], '${box.seal(WEBHOOK_SECRET)}')`,
  ]);
  return `insert into webhooks (owner_kind, user_id, event_type_id, subscriber_url, active, triggers, secret_sealed) values ${rows.join(', ')}`;
}

interface Booked {
  /** performance.now() of each booking's 201, by uid. */
  createdAt: Map<string, number>;
  non201: number;
  errors: number;
  elapsedMs: number;
}

/** POST /v2/bookings `amount` times over BOOKINGS_CONNECTIONS connections at full speed, each connection on its own host's next slots. */
async function bookMany(baseUrl: string, hosts: BookingHost[], dealer: SlotDealer, amount: number): Promise<Booked> {
  const createdAt = new Map<string, number>();
  let non201 = 0;
  let lastAnswerAt = performance.now();
  const started = performance.now();
  const result = await autocannon({
    ...bookingRequests(baseUrl, hosts, dealer, (status, body) => {
      const at = performance.now();
      lastAnswerAt = at;
      if (status !== 201) non201 += 1;
      else createdAt.set(JSON.parse(body).data.uid, at);
    }),
    amount,
  });
  // To the last answer: autocannon itself only returns at its next one-second tick.
  return { createdAt, non201, errors: result.errors, elapsedMs: lastAnswerAt - started };
}

/** Commit-to-delivery of each arrival of these bookings (ms, sorted; arrivals before the 201 count as 0). */
function latenciesOf(arrivals: Arrival[], booked: Booked): { sorted: number[]; before201: number } {
  const sorted: number[] = [];
  let before201 = 0;
  for (const arrival of arrivals) {
    const created = arrival.uid === null ? undefined : booked.createdAt.get(arrival.uid);
    if (created === undefined) continue;
    if (arrival.at < created) before201 += 1;
    sorted.push(Math.max(0, arrival.at - created));
  }
  return { sorted: sorted.sort((a, b) => a - b), before201 };
}

/**
 * POST /v2/bookings `amount` times, one every 1/rate s (evenly spaced, not in bursts: autocannon's
 * overallRate fires every connection at once), hosts in turn.
 */
async function bookPaced(baseUrl: string, hosts: BookingHost[], dealer: SlotDealer, amount: number, rate: number): Promise<Booked> {
  const createdAt = new Map<string, number>();
  let non201 = 0;
  let errors = 0;
  let serial = dealer.handedOut;
  const started = performance.now();
  const requests: Promise<void>[] = [];
  for (let i = 0; i < amount; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const host = i % hosts.length;
    const body = bookingBody(hosts[host]!, dealer.next(host), dealer.phase, serial++);
    requests.push(
      fetch(`${baseUrl}/v2/bookings`, { method: 'POST', headers: { 'content-type': 'application/json', 'svc-api-version': BOOKINGS_API_VERSION }, body })
        .then(async (response) => {
          const text = await response.text();
          const at = performance.now();
          if (response.status === 201) createdAt.set(JSON.parse(text).data.uid, at);
          else non201 += 1;
        })
        .catch(() => void (errors += 1)),
    );
  }
  await Promise.all(requests);
  return { createdAt, non201, errors, elapsedMs: performance.now() - started };
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : Number.NaN);
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

export interface BenchServer {
  baseUrl: string;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface WebhooksHarness {
  startServer(env: Record<string, string>, label: string, args?: string[]): Promise<BenchServer>;
  createHosts(baseUrl: string, label: string): Promise<BookingHost[]>;
  /** Runs SQL on the store (on PGlite only while no server has it open). */
  insertSql(sqlText: string): Promise<void>;
  whileServerRuns: boolean;
  log(message: string): void;
  notes: string[];
}

/** Both phases on a fresh store; the result is what `npm run bench` prints as `webhooks` per backend. */
export async function webhooksBench(harness: WebhooksHarness, env: Record<string, string>, label: string, backend: 'pglite' | 'postgres') {
  const { log } = harness;
  const serverEnv = { ...env, SVC_ALLOW_PRIVATE_WEBHOOKS: '1', SVC_ENCRYPTION_KEY: WEBHOOKS_ENCRYPTION_KEY };
  const receiver = await startBenchReceiver();
  let server = await harness.startServer(serverEnv, label);
  const stop = async (what: string) => {
    const stopped = await server.stop();
    if (stopped.code !== 0) harness.notes.push(`${label}: server exited with code ${stopped.code} signal ${stopped.signal} after SIGTERM (${what})`);
  };
  let running = true;
  try {
    const hosts = await harness.createHosts(server.baseUrl, label);
    const insert = subscriptionsSql(hosts, receiver.url);
    if (harness.whileServerRuns) await harness.insertSql(insert);
    else {
      await stop('before adding subscriptions');
      await harness.insertSql(insert);
      server = await harness.startServer(serverEnv, label);
    }
    const plan = bookingsPlan(Date.now());

    const liveDealer = new SlotDealer(plan, 'warmup', hosts.length);
    let deliveries = 0;
    let receiverErrors = 0;
    let complete = true;
    /** Books, waits for every delivery, and describes the phase. */
    const livePhase = async (name: string, amount: number, rate?: number) => {
      receiver.reset();
      log(`${label}: webhooks ${name}: ${amount} bookings${rate ? ` at ${rate}/s` : ' at full speed'} x ${SUBSCRIPTIONS_PER_HOST} subscriptions`);
      const booked = rate ? await bookPaced(server.baseUrl, hosts, liveDealer, amount, rate) : await bookMany(server.baseUrl, hosts, liveDealer, amount);
      const expected = booked.createdAt.size * SUBSCRIPTIONS_PER_HOST;
      complete = (await receiver.waitFor(expected, DELIVERY_TIMEOUT_MS)) && complete;
      const { sorted, before201 } = latenciesOf(receiver.arrivals, booked);
      const bookingsPerSecond = (booked.createdAt.size * 1000) / booked.elapsedMs;
      deliveries += receiver.arrivals.length;
      receiverErrors += receiver.errors;
      log(`${label}: ${name}: ${round(bookingsPerSecond)} bookings/s, ${receiver.arrivals.length} of ${expected} deliveries, p50 ${round(percentile(sorted, 50))} ms, p99 ${round(percentile(sorted, 99))} ms`);
      return {
        bookings: booked.createdAt.size,
        bookingsPerSecond: round(bookingsPerSecond),
        deliveriesExpected: expected,
        deliveriesArrived: receiver.arrivals.length,
        distinctWebhookIds: new Set(receiver.arrivals.map((arrival) => arrival.id)).size,
        arrivedBefore201: before201,
        commitToDeliveryMs: { p50: round(percentile(sorted, 50)), p90: round(percentile(sorted, 90)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? Number.NaN) },
        non201: booked.non201,
        errors: booked.errors,
      };
    };

    // 1. saturated: bookings at full speed, delivered as they commit, by the same process.
    const saturated = await livePhase('saturated', LIVE_BOOKINGS[backend]);
    // 2. paced: half that rate for about PACED_SECONDS.
    const pacedRate = Math.max(10, Math.round(saturated.bookingsPerSecond / 2));
    const paced = await livePhase('paced', pacedRate * PACED_SECONDS, pacedRate);

    // 2. backlog: queue deliveries with no worker running, then let the server's worker drain them.
    await stop('after the live phase');
    server = await harness.startServer(serverEnv, `${label}-no-worker`, ['--no-worker']);
    const backlogAmount = Math.min(MAX_BACKLOG_BOOKINGS, Math.max(500, Math.round((saturated.bookingsPerSecond * BACKLOG_SECONDS) / BOOKINGS_CONNECTIONS) * BOOKINGS_CONNECTIONS));
    log(`${label}: webhooks backlog: ${backlogAmount} bookings with no worker running`);
    const backlog = await bookMany(server.baseUrl, hosts, new SlotDealer(plan, 'measured', hosts.length), backlogAmount);
    await stop('after queueing the backlog');
    receiver.reset();
    const backlogExpected = backlog.createdAt.size * SUBSCRIPTIONS_PER_HOST;
    server = await harness.startServer(serverEnv, label);
    const drained = await receiver.waitFor(backlogExpected, DELIVERY_TIMEOUT_MS);
    const arrivals = receiver.arrivals;
    const spanMs = arrivals.length > 1 ? arrivals.at(-1)!.at - arrivals[0]!.at : Number.NaN;
    const deliveriesPerSecond = ((arrivals.length - 1) * 1000) / spanMs;
    const backlogIds = new Set(arrivals.map((arrival) => arrival.id)).size;
    log(`${label}: drained ${arrivals.length} of ${backlogExpected} deliveries at ${round(deliveriesPerSecond)} /s`);
    await stop('after draining');
    running = false;

    return {
      deliveriesPerSecond: round(deliveriesPerSecond),
      commitToDeliveryMs: { p50: paced.commitToDeliveryMs.p50, p99: paced.commitToDeliveryMs.p99 },
      deliveries: deliveries + arrivals.length,
      receiverErrors: receiverErrors + receiver.errors,
      targetDeliveriesPerSecond: TARGET_DELIVERIES_PER_SECOND,
      metTarget: deliveriesPerSecond >= TARGET_DELIVERIES_PER_SECOND && drained && complete,
      paced,
      saturated,
      backlog: {
        bookings: backlog.createdAt.size,
        deliveriesExpected: backlogExpected,
        deliveriesArrived: arrivals.length,
        distinctWebhookIds: backlogIds,
        drainSeconds: round(spanMs / 1000, 2),
        non201: backlog.non201,
        errors: backlog.errors,
      },
    };
  } finally {
    if (running) await server.stop().catch(() => undefined);
    await receiver.close();
  }
}

export const WEBHOOKS_NOTE =
  `webhooks: a fresh store per backend; ${BOOKINGS_CONNECTIONS} hosts (as the bookings test) each with ${SUBSCRIPTIONS_PER_HOST} subscriptions to BOOKING_CREATED (the host's user webhook and its event type's, both with a secret, so every delivery is signed both ways) pointing at a node:http receiver in this bench process on 127.0.0.1, which answers 200 at once and checks X-Svc-Signature-256 (receiverErrors: failed checks). ` +
  `Deliveries are made by the server's own worker (one process, default settings: 64 jobs at once). commitToDeliveryMs = arrival at the receiver minus the moment this process read the booking's 201 (the commit precedes the 201, so this slightly understates it; arrivals before the 201 count as 0, see arrivedBefore201). ` +
  `saturated: POST /v2/bookings over ${BOOKINGS_CONNECTIONS} connections at full speed (${LIVE_BOOKINGS.pglite} bookings on PGlite, ${LIVE_BOOKINGS.postgres} on PostgreSQL) with the worker on: bookings and deliveries share one process and its store (PGlite: one session; PostgreSQL: a pool of 10), so deliveries queue behind bookings and their latency is mostly queueing. ` +
  `paced (the headline commitToDeliveryMs): bookings at half the saturated rate for ${PACED_SECONDS} s, evenly spaced (one request every 1/rate s, hosts in turn; autocannon's overallRate would fire all connections at once). ` +
  `backlog: about ${BACKLOG_SECONDS} s worth of saturated bookings made with \`svc serve --no-worker\` (deliveries queued, none sent), then the server restarted with its worker; deliveriesPerSecond = (arrivals - 1) / (last arrival - first arrival) while that one worker drains the queue with nothing else running. deliveries counts all three phases.`;
