// Where a GET /v2/slots request of the team benchmark (bench/team-e2e.ts) spends its time, in process:
//   SVC_TEST_BACKEND=pglite|postgres node --import tsx bench/profile-team-slots.ts
// Builds svc in this process (test/support/test-app.ts) with its clock at the fixture's now, builds the
// 50-host round-robin team through the API, then times each phase of the handler (median of N calls)
// and whole requests. PROFILE_CPU=file.cpuprofile records a V8 CPU profile of the HTTP phase.
import fs from 'node:fs';
import inspector from 'node:inspector';
import { presentSlots } from '../src/modules/slots/slots.presenter.js';
import { buildSlotQuery, listSlots, resolveSlotTarget } from '../src/modules/slots/slots.service.js';
import { computeSlots } from '../src/scheduling/slots.js';
import { ADMIN_API_KEY, backend, createTestApp } from '../test/support/test-app.js';
import { SLOTS_API_VERSION } from './slots-e2e.js';
import { buildTeam, loadTeamFixture, teamServerEnv, teamSlotsPath, windowQuery } from './team-e2e.js';

const post = (session: inspector.Session, method: string) =>
  new Promise<unknown>((resolve, reject) => session.post(method, (error, result) => (error ? reject(error) : resolve(result))));

const N = Number(process.env.PROFILE_CALLS ?? 100);
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

const fixture = loadTeamFixture();
const app = await createTestApp({ LOG_LEVEL: 'silent', ...teamServerEnv(fixture) });
try {
  const team = await buildTeam(app.baseUrl, ADMIN_API_KEY, fixture, (message) => process.stderr.write(`${message}\n`));
  const { ctx } = app.runtime;
  const db = ctx.database.db;
  const now = ctx.clock();
  const from = Date.parse(fixture.window.start);
  const to = Date.parse(fixture.window.end) + 1;
  const target = { kind: 'eventTypeId' as const, eventTypeId: team.eventTypeId };
  const input = { target, from, to };
  const eventType = await resolveSlotTarget(db, target, ctx.availability);
  const query = await buildSlotQuery(db, eventType, { from, to, duration: 30, now }, ctx.availability);
  const list = await listSlots(db, ctx.availability, input, now);
  const presentation = { timeZone: 'UTC', format: 'time' as const };
  const presented = presentSlots(list, presentation);
  const result = process.env.PROFILE_HTTP_ONLY === '1' ? {} : {
    backend,
    slots: list.slots.length,
    resolveCached: await timeMs(() => resolveSlotTarget(db, target, ctx.availability)),
    buildQueryCached: await timeMs(() => buildSlotQuery(db, eventType, { from, to, duration: 30, now }, ctx.availability)),
    engine: await timeMs(() => computeSlots(query)),
    listSlots: await timeMs(() => listSlots(db, ctx.availability, input, now)),
    present: await timeMs(() => presentSlots(list, presentation)),
    jsonStringify: await timeMs(() => JSON.stringify({ status: 'success', data: presented })),
  };
  const session = process.env.PROFILE_CPU ? new inspector.Session() : null;
  if (session) {
    session.connect();
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.start');
  }
  const url = `${app.baseUrl}${teamSlotsPath(team.eventTypeId, windowQuery(fixture))}`;
  const http = {
    httpSequential: await timeMs(async () => {
      const response = await fetch(url, { headers: { 'svc-api-version': SLOTS_API_VERSION } });
      await response.text();
    }),
  };
  if (session) {
    const { profile } = (await post(session, 'Profiler.stop')) as { profile: unknown };
    fs.writeFileSync(process.env.PROFILE_CPU!, JSON.stringify(profile));
    session.disconnect();
  }
  process.stdout.write(`${JSON.stringify({ ...result, ...http }, null, 1)}\n`);
} finally {
  await app.close();
}
