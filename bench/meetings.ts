// What a provider's meeting costs POST /v2/bookings: bookings of an event type on Zoom (a local server
// implementing Zoom's documented API, test/support/fake-zoom.ts) against bookings of one on the built-in
// video, on PostgreSQL and on the embedded store. Prints ONE JSON object on stdout.
//   npm run -s bench -- --only=meetings      (or: node --import tsx bench/meetings.ts)
// One svc in this process (its job runner too, so the meeting jobs' work shares the machine with the
// requests, as in a real server), one request at a time from this process over loopback, the two kinds
// taking turns (A B A B...) so that neither gets the quieter moments; every booking at its own start
// (15-minute event types, each host its own type). Reported: median and p90 latency of each kind, the
// ratio of medians (the goal: at most 1.05), and how long after the last request every Zoom
// booking carried its meeting link (the bench fails if one does not).
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/db/client.js';
import { type ConferencingProviders, startConferencingProviders } from '../test/support/conferencing-providers.js';
import { createTestDatabase } from '../test/support/postgres.js';
import { createTestApp, type TestApp } from '../test/support/test-app.js';

const WARMUP = 20;
const SAMPLES = 150;
const BOOKINGS_VERSION = '2024-08-13';
export const MEETINGS_MAX_RATIO = 1.05;

const round = (value: number) => Math.round(value * 100) / 100;
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

/** Free 15-minute starts of a Monday-to-Friday 09:00-17:00 (UTC) host, from 2027-01-04 on. */
function* starts(): Generator<string> {
  for (let day = 0; ; day += 1) {
    const date = new Date(Date.UTC(2027, 0, 4 + day));
    if (date.getUTCDay() === 0 || date.getUTCDay() === 6) continue;
    for (let minute = 9 * 60; minute < 17 * 60; minute += 15) yield new Date(date.getTime() + minute * 60_000).toISOString();
  }
}

async function connectZoom(api: TestApp, key: string): Promise<void> {
  const answer = await api.request('GET', '/v2/conferencing/zoom/oauth/auth-url', { key });
  assert.equal(answer.status, 200, answer.text);
  const page = await fetch(answer.body.data.url, { redirect: 'manual' });
  const callback = new URL(page.headers.get('location')!);
  const back = await fetch(`${api.baseUrl}${callback.pathname}${callback.search}`);
  assert.equal(back.status, 200, await back.text());
}

async function eventType(api: TestApp, key: string, locations: unknown[]): Promise<number> {
  const created = await api.request('POST', '/v2/event-types', {
    key,
    version: '2024-06-14',
    body: { title: 'Call', slug: `call-${Math.random().toString(36).slice(2, 8)}`, lengthInMinutes: 15, minimumBookingNotice: 0, locations },
  });
  assert.equal(created.status, 201, created.text);
  return created.body.data.id;
}

async function storeRun(store: 'postgres' | 'pglite', providers: ConferencingProviders) {
  const created = store === 'postgres' ? await createTestDatabase() : null;
  const database = await openDatabase(created ? { databaseUrl: created.url, poolSize: 10 } : {});
  const api = await createTestApp(providers.env, { database, ...(created ? { url: created.url } : {}) });
  try {
    const plainHost = await api.createUser({ timeZone: 'UTC' });
    const zoomHost = await api.createUser({ timeZone: 'UTC' });
    await connectZoom(api, zoomHost.apiKey);
    const types = {
      builtIn: await eventType(api, plainHost.apiKey, [{ type: 'integration', integration: 'svc-video' }]),
      zoom: await eventType(api, zoomHost.apiKey, [{ type: 'integration', integration: 'zoom' }]),
    };
    const free = { builtIn: starts(), zoom: starts() };
    const latencies = { builtIn: [] as number[], zoom: [] as number[] };
    const zoomUids: string[] = [];
    let lastRequestAt = 0;
    for (let index = 0; index < 2 * (WARMUP + SAMPLES); index += 1) {
      const kind = index % 2 === 0 ? 'builtIn' : 'zoom';
      const body = { eventTypeId: types[kind], start: free[kind].next().value, attendee: { name: 'Bea', email: `bea-${index}@example.com`, timeZone: 'Asia/Kathmandu' } };
      const began = performance.now();
      const response = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body });
      const ms = performance.now() - began;
      assert.equal(response.status, 201, response.text);
      if (kind === 'zoom') zoomUids.push(response.body.data.uid);
      if (index >= 2 * WARMUP) latencies[kind].push(ms);
      lastRequestAt = performance.now();
    }
    // Every Zoom booking carries a link Zoom made.
    const db = api.runtime.ctx.database.db;
    let linked = 0;
    for (;;) {
      const rows = (await db.execute(sql`select count(*)::int as n from bookings b join booking_meetings m on m.booking_id = b.id where b.location = m.join_url`)) as unknown as { rows: { n: number }[] };
      linked = rows.rows[0]!.n;
      if (linked >= zoomUids.length || performance.now() - lastRequestAt > 60_000) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(linked, zoomUids.length, 'every Zoom booking got its meeting');
    const summary = (values: number[]) => ({ p50Ms: round(quantile(values, 0.5)), p90Ms: round(quantile(values, 0.9)) });
    const ratio = round(quantile(latencies.zoom, 0.5) / quantile(latencies.builtIn, 0.5));
    return {
      samplesEach: SAMPLES,
      builtInVideo: summary(latencies.builtIn),
      zoom: summary(latencies.zoom),
      ratioOfMedians: ratio,
      linksDoneMsAfterLastRequest: Math.round(performance.now() - lastRequestAt),
      meetingsMade: linked,
      metTarget: ratio <= MEETINGS_MAX_RATIO,
    };
  } finally {
    await api.close();
    await created?.drop();
  }
}

async function main() {
  const providers = await startConferencingProviders('https://svc.example.test');
  try {
    const postgres = await storeRun('postgres', providers);
    const embedded = await storeRun('pglite', providers);
    process.stdout.write(`${JSON.stringify({ meetings: { postgres, embedded, goalRatio: MEETINGS_MAX_RATIO } })}\n`);
  } finally {
    await providers.close();
  }
}

await main();
