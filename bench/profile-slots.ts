// Where a GET /v2/slots request of the bench's slots case spends its time, in process:
//   SVC_TEST_BACKEND=pglite|postgres node --import tsx bench/profile-slots.ts
// Builds svc in this process (test/support/test-app.ts) on a fresh database, creates the same fixture as
// bench/run.ts, then times each phase of the handler sequentially (median of N calls) and whole requests.
//   PROFILE_CASE=team   the 50-host round-robin team of bench/team-e2e.ts instead (built through the API,
//                       clock at its fixture's now): its listing is then answered from the kept one.
//   PROFILE_CASE=team-calendars   that team with bench/calendars-e2e.ts's calendars (every host one
//                       synced calendar of 200 events a month), written with its bulk SQL.
//   PROFILE_CPU_PHASE=cold|coldOneHost   with PROFILE_CPU: profile cold listings (an emptied cache each,
//                       or one host's change before each) instead of HTTP.
import fs from 'node:fs';
import inspector from 'node:inspector';
import { AvailabilityCache } from '../src/modules/slots/availability-cache.js';
import { listSlots } from '../src/modules/slots/slot-listing.service.js';
import { buildSlotQuery, resolveSlotTarget, type SlotTarget } from '../src/modules/slots/slots.service.js';
import { presentSlots } from '../src/modules/slots/slots.presenter.js';
import * as busy from '../src/modules/slots/busy-blocks.repository.js';
import { computeSlots } from '../src/scheduling/slots.js';
import { createTestApp, backend, ADMIN_API_KEY } from '../test/support/test-app.js';
import { EVENT_TYPES_API_VERSION, insertBookingsSql, SLOTS_API_VERSION, SLOTS_ZONE, slotsPath, slotsPlan, withoutOverlaps } from './slots-e2e.js';
import { buildTeam, loadTeamFixture, teamServerEnv, teamSlotsPath, windowQuery } from './team-e2e.js';
import { coldBusyRange, storeCalendars } from './calendars-e2e.js';

const post = (session: inspector.Session, method: string) =>
  new Promise<unknown>((resolve, reject) => session.post(method, (error, result) => (error ? reject(error) : resolve(result))));

const N = Number(process.env.PROFILE_CALLS ?? 200);
const round = (value: number) => Math.round(value * 1000) / 1000;

async function timeMs<T>(work: () => Promise<T> | T): Promise<{ medianMs: number; p95Ms: number }> {
  for (let i = 0; i < 20; i++) await work();
  const samples: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint();
    await work();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { medianMs: round(samples[Math.floor(N / 2)]!), p95Ms: round(samples[Math.floor(N * 0.95)]!) };
}

const calendarsCase = process.env.PROFILE_CASE === 'team-calendars';
const teamCase = process.env.PROFILE_CASE === 'team' || calendarsCase;
const fixture = loadTeamFixture();
const app = await createTestApp({ LOG_LEVEL: 'silent', ...(teamCase ? teamServerEnv(fixture) : {}) });
try {
  const database = app.runtime.ctx.database;
  const db = database.db;
  const now = app.runtime.ctx.clock();
  /** The event type listed, its window and the URL asking for it. */
  let eventTypeId: number;
  let window: { from: number; to: number };
  let path: string;
  let zone: string;
  if (teamCase) {
    const team = await buildTeam(app.baseUrl, ADMIN_API_KEY, fixture, (message) => process.stderr.write(`${message}\n`));
    eventTypeId = team.eventTypeId;
    if (calendarsCase) await storeCalendars(database, fixture, team.hostIds);
    window = { from: Date.parse(fixture.window.start), to: Date.parse(fixture.window.end) + 1 };
    path = teamSlotsPath(eventTypeId, windowQuery(fixture));
    zone = 'UTC';
  } else {
    const host = await app.request('POST', '/v2/admin/users', {
      key: ADMIN_API_KEY,
      body: { email: 'slots@example.com', name: 'Slots Host', username: 'slots-host', timeZone: SLOTS_ZONE },
    });
    const created = await app.request('POST', '/v2/event-types', {
      key: host.body.data.apiKey,
      version: EVENT_TYPES_API_VERSION,
      body: { title: 'Bench 30', slug: 'bench-30', lengthInMinutes: 30, minimumBookingNotice: 120 },
    });
    eventTypeId = created.body.data.id;
    const plan = withoutOverlaps(slotsPlan(now));
    await database.exec(insertBookingsSql(plan, host.body.data.user.id, eventTypeId));
    window = { from: plan.from, to: plan.to };
    path = slotsPath(plan, eventTypeId);
    zone = SLOTS_ZONE;
  }

  const target: SlotTarget = { kind: 'eventTypeId', eventTypeId };
  const eventType = await resolveSlotTarget(db, target);
  const query = await buildSlotQuery(db, eventType, { ...window, duration: 30, now });
  const slots = computeSlots(query);
  const list = { slots, duration: 30, seatsPerTimeSlot: null, degradedHosts: [], awayHosts: [] };
  const presented = presentSlots(list, { timeZone: zone, format: 'time' });
  const busyArgs = { userIds: query.hosts.map((host) => host.userId), from: window.from - 86_400_000, to: window.to + 86_400_000, now };
  /** The team: what a cold listing of every host reads. */
  const coldArgs = teamCase ? { ...busyArgs, ...coldBusyRange(fixture) } : busyArgs;
  /** A listing with every host's cached availability dropped: a fresh, enabled cache each time. */
  const coldListing = () => {
    const cache = new AvailabilityCache();
    cache.enable();
    return listSlots(db, cache, { target, ...window }, now);
  };
  /** A listing after one host's change (hosts in turn): the kept listing and that host's busy time are read again. */
  let changed = 0;
  const coldOneHostListing = () => {
    const userId = query.hosts[changed++ % query.hosts.length]!.userId;
    app.runtime.ctx.availability.invalidate({ kind: 'availability', userId });
    return listSlots(db, app.runtime.ctx.availability, { target, ...window }, now);
  };
  const cpuPhase = process.env.PROFILE_CPU_PHASE;
  const coldCpu = cpuPhase === 'cold' || cpuPhase === 'coldOneHost';

  // PROFILE_HTTP_ONLY=1 (e.g. under node --cpu-prof): only the sequential HTTP requests.
  const httpOnly = process.env.PROFILE_HTTP_ONLY === '1';
  const result = httpOnly ? {} : {
    backend,
    hosts: query.hosts.length,
    busyBlocks: query.hosts.reduce((sum, host) => sum + host.busy.length, 0),
    /** Calendar busy time, passed to the engine as bare intervals (the service's non-cached read: not merged). */
    plainBusy: query.hosts.reduce((sum, host) => sum + (host.plainBusy?.length ?? 0), 0),
    slots: slots.length,
    profileQuery: await timeMs(() => resolveSlotTarget(db, target)),
    busyQuery: await timeMs(() => busy.listBusyBlocks(db, busyArgs)),
    /** The statement alone (driver rows, no mapping) and through listBusyBlocks, over a cold listing's range. */
    coldBusyRange: { from: new Date(coldArgs.from).toISOString(), to: new Date(coldArgs.to).toISOString() },
    coldBusyRows: ((await db.execute(busy.busyBlocksStatement(coldArgs))) as unknown as { rows: unknown[] }).rows.length,
    coldBusyStatement: await timeMs(() => db.execute(busy.busyBlocksStatement(coldArgs))),
    coldBusyQuery: await timeMs(() => busy.listBusyBlocks(db, coldArgs)),
    coldListing: coldCpu ? undefined : await timeMs(coldListing),
    coldOneHostListing: coldCpu ? undefined : await timeMs(coldOneHostListing),
    selectOne: await timeMs(() => database.exec('select 1')),
    engine: await timeMs(() => computeSlots(query)),
    /** Through the availability cache, as the route lists: from the kept listing once computed. */
    listSlots: await timeMs(() => listSlots(db, app.runtime.ctx.availability, { target, ...window }, now)),
    // A copy each time: a list already printed is answered from its printed form.
    present: await timeMs(() => presentSlots({ ...list }, { timeZone: zone, format: 'time' })),
    jsonStringify: await timeMs(() => JSON.stringify({ status: 'success', data: presented })),
  };
  // PROFILE_CPU=file.cpuprofile: a V8 CPU profile of the HTTP phase only (open in Chrome DevTools), or of
  // cold listings with PROFILE_CPU_PHASE=cold.
  const session = process.env.PROFILE_CPU ? new inspector.Session() : null;
  if (session) {
    session.connect();
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.start');
  }
  const cold = cpuPhase === 'cold' ? { coldListing: await timeMs(coldListing) } : cpuPhase === 'coldOneHost' ? { coldOneHostListing: await timeMs(coldOneHostListing) } : {};
  const httpGet = async () => {
    const response = await fetch(`${app.baseUrl}${path}`, { headers: { 'svc-api-version': SLOTS_API_VERSION } });
    await response.text();
  };
  let changedOverHttp = 0;
  const http = coldCpu ? {} : {
    httpSequential: await timeMs(httpGet),
    /** One host's change (as coldOneHostListing) before each request. */
    httpColdOneHost: await timeMs(() => {
      app.runtime.ctx.availability.invalidate({ kind: 'availability', userId: query.hosts[changedOverHttp++ % query.hosts.length]!.userId });
      return httpGet();
    }),
  };
  if (session) {
    const { profile } = (await post(session, 'Profiler.stop')) as { profile: unknown };
    fs.writeFileSync(process.env.PROFILE_CPU!, JSON.stringify(profile));
    session.disconnect();
  }
  process.stdout.write(`${JSON.stringify({ ...result, ...cold, ...http }, null, 1)}\n`);
} finally {
  await app.close();
}
