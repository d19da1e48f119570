// The booking page of the 50-host round-robin team (../shared/bench/roundrobin-50-hosts.json, built as
// bench/team-e2e.ts builds it) over loopback: the goal is the book page's first paint and the
// day's times under 300 ms, with the page's bytes reported. Prints ONE JSON object on stdout.
//   npm run -s bench -- --only=pages      (or: node --import tsx bench/booking-pages.ts)
// Per store (the embedded store, then PostgreSQL when it answers): a fresh `svc serve` child process
// (test/support/child-server.ts) with its clock at the file's `now` (SVC_NOW), the team built through the
// API (buildTeam), then, with plain fetch from this process, one request at a time over a kept-alive
// connection, the two kinds taking turns (A B A B...):
//   page: GET /team/{team}/{type}?tz=Asia/Kolkata&month=YYYY-MM&date=YYYY-MM-DD, the whole server-rendered
//         page (the month's days with free times and the chosen day's times);
//   day:  the same with &partial=day, the day's times alone (what the page's script fetches on a click);
// 10 warm-up each, then 100 measured each, timed from fetch() to the whole body read. The day is the one
// of the file's window with the most times in that zone (GET /v2/slots, as the page asks it); the day's
// time links must be there (and as many as GET /v2/slots lists), else ok is false. Bytes are the bodies
// as sent (svc does not compress). With Debian's chromium (/usr/bin/chromium, driven by playwright-core):
// the page 20 times (after 1 discarded), each in a fresh browser context (no cache, no connection kept),
// reading first-contentful-paint and the navigation's responseEnd (ms since the navigation began).
// metTarget: page p90, day p90 and (with a browser) first-contentful-paint p90 all at most 300 ms.
import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { killAllChildren, startServer } from '../test/support/child-server.js';
import { EVENT_TYPES_API_VERSION, SLOTS_API_VERSION } from './slots-e2e.js';
import { buildTeam, loadTeamFixture, type TeamFixture, teamServerEnv } from './team-e2e.js';
import { onBothStores, stopServer } from './store-runs.js';

export const PAGES_GOAL_MS = 300;
const WARMUP = 10;
const SAMPLES = 100;
const BROWSER_WARMUP = 1;
const BROWSER_SAMPLES = 20;
const ZONE = 'Asia/Kolkata';
const CHROMIUM = '/usr/bin/chromium';
/** As bench/run.ts: the system admin's key, no rate limit in the way, a fixed sealing key on PostgreSQL. */
const ADMIN_API_KEY = 'svc_0123456789abcdef0123456789abcdef';
const BENCH_ENV = { SVC_ADMIN_API_KEY: ADMIN_API_KEY, RATE_LIMIT_API_KEY: '100000000', RATE_LIMIT_ANONYMOUS: '100000000' };

const log = (message: string) => process.stderr.write(`[pages] ${message}\n`);
const round = (value: number) => Math.round(value * 100) / 100;
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const summary = (values: number[]) => ({ p50Ms: round(quantile(values, 0.5)), p90Ms: round(quantile(values, 0.9)), maxMs: round(Math.max(...values)) });

/** Time links of a page or fragment: each time of the day is a link to the form for its start (`slot=`). */
const timeLinks = (htmlText: string) => (htmlText.match(/<li><a href="[^"]*[?&;]slot=/g) ?? []).length;

interface Fetched {
  status: number;
  ms: number;
  bytes: number;
  text: string;
}

/** One GET, timed from fetch() to the whole body read. */
async function timedGet(url: string): Promise<Fetched> {
  const began = performance.now();
  const response = await fetch(url);
  const body = new Uint8Array(await response.arrayBuffer());
  const ms = performance.now() - began;
  return { status: response.status, ms, bytes: body.byteLength, text: new TextDecoder().decode(body) };
}

async function getJson<T>(url: string, headers: Record<string, string>, what: string): Promise<T> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 500)}`);
  return (JSON.parse(text) as { data: T }).data;
}

/** The page's path as the API gives it (the event type's bookingUrl: <APP_URL>/team/<team slug>/<slug>). */
async function bookingPath(baseUrl: string, teamId: number, eventTypeId: number): Promise<string> {
  const types = await getJson<{ id: number; bookingUrl: string }[]>(`${baseUrl}/v2/teams/${teamId}/event-types`, { 'svc-api-version': EVENT_TYPES_API_VERSION }, `GET /v2/teams/${teamId}/event-types`);
  const type = types.find((candidate) => candidate.id === eventTypeId);
  if (!type) throw new Error(`event type ${eventTypeId} is not one of team ${teamId}'s`);
  const pagePath = new URL(type.bookingUrl).pathname;
  if (!pagePath.startsWith('/team/')) throw new Error(`unexpected bookingUrl ${type.bookingUrl}`);
  return pagePath;
}

/**
 * The month and day the page shows: the window's month, and its day (in ZONE) with the most times, all
 * of them inside the file's window, as GET /v2/slots lists them for the query the page makes.
 */
async function chooseDay(baseUrl: string, eventTypeId: number, fixture: TeamFixture): Promise<{ month: string; date: string; times: number }> {
  const month = fixture.window.start.slice(0, 7);
  const [year, number] = month.split('-').map(Number) as [number, number];
  const end = `${month}-${String(new Date(Date.UTC(year, number, 0)).getUTCDate()).padStart(2, '0')}`;
  const query = new URLSearchParams({ eventTypeId: String(eventTypeId), start: `${month}-01`, end, timeZone: ZONE });
  const slots = await getJson<Record<string, { start: string }[]>>(`${baseUrl}/v2/slots?${query}`, { 'svc-api-version': SLOTS_API_VERSION }, 'GET /v2/slots');
  const from = Date.parse(fixture.window.start);
  const to = Date.parse(fixture.window.end);
  let best: { month: string; date: string; times: number } | null = null;
  for (const [date, list] of Object.entries(slots).sort(([a], [b]) => a.localeCompare(b))) {
    const inside = list.every((slot) => Date.parse(slot.start) >= from && Date.parse(slot.start) <= to);
    if (inside && list.length > (best?.times ?? 0)) best = { month, date, times: list.length };
  }
  if (!best) throw new Error(`no day of ${month} in ${ZONE} has times inside the window`);
  return best;
}

interface BrowserFigures {
  fcpP50Ms: number;
  fcpP90Ms: number;
  responseEndP50Ms: number;
  responseEndP90Ms: number;
  samples: number;
}

/** What the page's `performance` answers here (this project's types have no DOM). */
interface PagePerformance {
  getEntriesByName(name: string): { startTime: number }[];
  getEntriesByType(type: string): { responseEnd?: number }[];
}

/** First-contentful-paint and responseEnd of the page in chromium, each navigation in a fresh context. */
async function browserRun(browser: Browser, url: string): Promise<BrowserFigures> {
  const fcp: number[] = [];
  const responseEnd: number[] = [];
  for (let index = 0; index < BROWSER_WARMUP + BROWSER_SAMPLES; index += 1) {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const response = await page.goto(url, { waitUntil: 'load' });
      if (response?.status() !== 200) throw new Error(`chromium: the page answered ${response?.status()}`);
      // One function, no names declared in it (tsx would wrap those in a helper the page has not); the
      // page's CSP forbids eval, so no string expressions (nor page.waitForFunction with one).
      const figures = await page.evaluate(async () => {
        const timing = (globalThis as unknown as { performance: PagePerformance }).performance;
        for (let waited = 0; timing.getEntriesByName('first-contentful-paint').length === 0 && waited < 10_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
        return { fcp: timing.getEntriesByName('first-contentful-paint')[0]?.startTime, responseEnd: timing.getEntriesByType('navigation')[0]?.responseEnd };
      });
      if (figures.fcp === undefined || figures.responseEnd === undefined) throw new Error(`chromium: no first-contentful-paint or navigation entry (${JSON.stringify(figures)})`);
      if (index >= BROWSER_WARMUP) {
        fcp.push(figures.fcp);
        responseEnd.push(figures.responseEnd);
      }
    } finally {
      await context.close();
    }
  }
  return {
    fcpP50Ms: round(quantile(fcp, 0.5)),
    fcpP90Ms: round(quantile(fcp, 0.9)),
    responseEndP50Ms: round(quantile(responseEnd, 0.5)),
    responseEndP90Ms: round(quantile(responseEnd, 0.9)),
    samples: BROWSER_SAMPLES,
  };
}

/** The whole benchmark on one fresh store. */
async function storeRun(store: 'embedded' | 'postgres', storeEnv: Record<string, string>, browser: Browser | null, browserMissing: string) {
  const fixture = loadTeamFixture();
  const server = await startServer({ ...storeEnv, ...BENCH_ENV, ...teamServerEnv(fixture) });
  try {
    log(`${store}: building the team through the API`);
    const team = await buildTeam(server.baseUrl, ADMIN_API_KEY, fixture, log);
    log(`${store}: team built in ${team.setupMs} ms`);
    const pagePath = await bookingPath(server.baseUrl, team.teamId, team.eventTypeId);
    const { month, date, times: expectedTimes } = await chooseDay(server.baseUrl, team.eventTypeId, fixture);
    const pageUrl = `${server.baseUrl}${pagePath}?${new URLSearchParams({ tz: ZONE, month, date })}`;
    const dayUrl = `${pageUrl}&partial=day`;
    log(`${store}: ${pagePath} month ${month} date ${date} (${expectedTimes} times): ${WARMUP} + ${SAMPLES} of each kind`);

    const latencies = { page: [] as number[], day: [] as number[] };
    const last: { page: Fetched | null; day: Fetched | null } = { page: null, day: null };
    const failures: string[] = [];
    for (let index = 0; index < 2 * (WARMUP + SAMPLES); index += 1) {
      const kind = index % 2 === 0 ? 'page' : 'day';
      const fetched = await timedGet(kind === 'page' ? pageUrl : dayUrl);
      if (fetched.status !== 200 && failures.length < 3) failures.push(`${kind}: ${fetched.status} ${fetched.text.slice(0, 300)}`);
      if (index >= 2 * WARMUP) latencies[kind].push(fetched.ms);
      last[kind] = fetched;
    }
    const page = last.page!;
    const day = last.day!;
    const scriptPath = /<script src="([^"]+)"/.exec(page.text)?.[1];
    const script = scriptPath ? await timedGet(`${server.baseUrl}${scriptPath.replaceAll('&amp;', '&')}`) : null;
    if (!script || script.status !== 200) failures.push(`script ${scriptPath ?? '(no <script src> in the page)'}: ${script?.status ?? 'not fetched'}`);

    let browserFigures: BrowserFigures | null = null;
    let browserSkipped = browserMissing;
    if (browser) {
      log(`${store}: chromium: ${BROWSER_WARMUP} + ${BROWSER_SAMPLES} navigations`);
      try {
        browserFigures = await browserRun(browser, pageUrl);
      } catch (error) {
        browserSkipped = `the browser run FAILED: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
        failures.push(browserSkipped);
      }
    }
    const dayTimes = timeLinks(day.text);
    const pageTimes = timeLinks(page.text);
    const figures = {
      page: { ...summary(latencies.page), bytes: page.bytes, times: pageTimes },
      day: { ...summary(latencies.day), bytes: day.bytes, times: dayTimes },
    };
    const ok = failures.length === 0 && dayTimes > 0 && dayTimes === expectedTimes && pageTimes === dayTimes;
    return {
      store,
      setup: { setupMs: team.setupMs, busyBookings: team.busyBookings, busyBlocks: team.busyBlocks },
      path: pagePath,
      tz: ZONE,
      month,
      date,
      ...figures,
      expectedTimes,
      script: { path: scriptPath ?? null, bytes: script?.bytes ?? 0 },
      browser: browserFigures,
      ...(browserFigures ? {} : { browserSkipped }),
      samplesEach: SAMPLES,
      goalMs: PAGES_GOAL_MS,
      ...(failures.length ? { failures } : {}),
      ok,
      metTarget: ok && figures.page.p90Ms <= PAGES_GOAL_MS && figures.day.p90Ms <= PAGES_GOAL_MS && (browserFigures === null || browserFigures.fcpP90Ms <= PAGES_GOAL_MS),
    };
  } finally {
    await stopServer(log, store, server);
  }
}

async function main() {
  let browser: Browser | null = null;
  let browserMissing = `${CHROMIUM} does not exist (apt-get install -y chromium)`;
  if (fs.existsSync(CHROMIUM)) {
    try {
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    } catch (error) {
      browserMissing = `chromium did not start: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
    }
  }
  try {
    const { embedded, postgres } = await onBothStores(log, 'pages', (store, env) => storeRun(store, env, browser, browserMissing));
    process.stdout.write(`${JSON.stringify({ pages: { embedded, postgres, goalMs: PAGES_GOAL_MS } })}\n`);
  } finally {
    await browser?.close();
    await killAllChildren();
  }
}

await main();
