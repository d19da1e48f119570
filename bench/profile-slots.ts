// Where a GET /v2/slots request of the bench's slots case spends its time, in process:
//   SVC_TEST_BACKEND=pglite|postgres node --import tsx bench/profile-slots.ts
// Builds svc in this process (test/support/test-app.ts) on a fresh database, creates the same fixture as
// bench/run.ts, then times each phase of the handler sequentially (median of N calls) and whole requests.
import fs from 'node:fs';
import inspector from 'node:inspector';
import { buildSlotQuery, resolveSlotTarget } from '../src/modules/slots/slots.service.js';
import { presentSlots } from '../src/modules/slots/slots.presenter.js';
import * as repo from '../src/modules/slots/slots.repository.js';
import { computeSlots } from '../src/scheduling/slots.js';
import { createTestApp, backend, ADMIN_API_KEY } from '../test/support/test-app.js';
import { EVENT_TYPES_API_VERSION, insertBookingsSql, SLOTS_API_VERSION, SLOTS_ZONE, slotsPath, slotsPlan } from './slots-e2e.js';

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

const app = await createTestApp({ LOG_LEVEL: 'silent' });
try {
  const host = await app.request('POST', '/v2/admin/users', {
    key: ADMIN_API_KEY,
    body: { email: 'slots@example.com', name: 'Slots Host', username: 'slots-host', timeZone: SLOTS_ZONE },
  });
  const created = await app.request('POST', '/v2/event-types', {
    key: host.body.data.apiKey,
    version: EVENT_TYPES_API_VERSION,
    body: { title: 'Bench 30', slug: 'bench-30', lengthInMinutes: 30, minimumBookingNotice: 120 },
  });
  const eventTypeId: number = created.body.data.id;
  const plan = slotsPlan(Date.now());
  const database = app.runtime.ctx.database;
  await database.exec(insertBookingsSql(plan, host.body.data.user.id, eventTypeId));
  const db = database.db;
  const now = Date.now();

  const eventType = await resolveSlotTarget(db, { kind: 'eventTypeId', eventTypeId });
  const query = await buildSlotQuery(db, eventType, { from: plan.from, to: plan.to, duration: 30, now });
  const slots = computeSlots(query);
  const list = { slots, duration: 30, seatsPerTimeSlot: null };
  const presented = presentSlots(list, { timeZone: SLOTS_ZONE, format: 'time' });
  const busyArgs = { userIds: [host.body.data.user.id], from: plan.from - 86_400_000, to: plan.to + 86_400_000, now, seatedEventTypeId: null };

  // PROFILE_HTTP_ONLY=1 (e.g. under node --cpu-prof): only the sequential HTTP requests.
  const httpOnly = process.env.PROFILE_HTTP_ONLY === '1';
  const result = httpOnly ? {} : {
    backend,
    busyBlocks: query.hosts[0]!.busy.length,
    slots: slots.length,
    profileQuery: await timeMs(() => repo.findSlotProfile(db, eventTypeId)),
    busyQuery: await timeMs(() => repo.listBusyBlocks(db, busyArgs)),
    selectOne: await timeMs(() => database.exec('select 1')),
    engine: await timeMs(() => computeSlots(query)),
    present: await timeMs(() => presentSlots(list, { timeZone: SLOTS_ZONE, format: 'time' })),
    jsonStringify: await timeMs(() => JSON.stringify({ status: 'success', data: presented })),
  };
  // PROFILE_CPU=file.cpuprofile: a V8 CPU profile of the HTTP phase only (open in Chrome DevTools).
  const session = process.env.PROFILE_CPU ? new inspector.Session() : null;
  if (session) {
    session.connect();
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.start');
  }
  const http = {
    httpSequential: await timeMs(async () => {
      const response = await fetch(`${app.baseUrl}${slotsPath(plan, eventTypeId)}`, { headers: { 'svc-api-version': SLOTS_API_VERSION } });
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
