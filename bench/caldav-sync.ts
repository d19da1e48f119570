// CalDAV sync of a 2,000-event calendar on a real server (Debian's Radicale on 127.0.0.1): the first,
// full sync, then the incremental sync after 5 changes made directly on the server (3 edited, 1 added,
// 1 deleted). Prints ONE JSON object on stdout: {firstSyncMs, incrementalSyncMs, events, ..., stores}.
//   npm run -s bench -- --only=caldav      (or: node --import tsx bench/caldav-sync.ts)
// The events are written straight into Radicale's storage folder before it starts (its layout: one
// file per object), in about a second. Radicale then builds its item cache and sync history on the
// first request that reads them (about 9 seconds for 2,000 items here), work it would have done at PUT
// time; one raw sync-collection request does that first (serverWarmupMs), so firstSyncMs is the
// adapter's first sync against a server that already knows its calendar.
// `stores` times the whole sync job (calendar-sync.ts syncCalendarSource: read, expand, store the busy
// time in one transaction, tell the caches) on the embedded store and on PostgreSQL: the connect
// request (discovery, calendar list, the primary calendar read and stored at once), a full read again,
// the incremental read after 5 more changes, and whether the next GET /v2/calendars/busy-times shows them.
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/db/client.js';
import { syncCalendar } from '../src/integrations/caldav/index.js';
import { CALENDAR_READERS } from '../src/modules/calendars/calendar-providers.js';
import { syncCalendarSource } from '../src/modules/calendars/calendar-sync.js';
import { createTestDatabase } from '../test/support/postgres.js';
import { eventIcs, RADICALE_SKIP, type RadicaleServer, startRadicale, writeCalendarFiles } from '../test/support/radicale.js';
import { createTestApp } from '../test/support/test-app.js';

const EVENTS = 2_000;
const policy = { allowPrivate: true, timeoutMs: 60_000, maxResponseBytes: 20_000_000 };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// From tomorrow 09:00Z, one event every 3 hours (250 days): all within the range a sync stores.
const start = Math.floor(Date.now() / DAY) * DAY + DAY + 9 * HOUR;
/** Event i, `shiftHours` later than its place in the series when moved. */
const event = (i: number, summary = `Meeting ${i}`, shiftHours = 0) => {
  const from = start + i * 3 * HOUR + shiftHours * HOUR;
  return eventIcs(`bench-${i}`, new Date(from), new Date(from + HOUR), summary, [`DESCRIPTION:${'Agenda item. '.repeat(8)}`]);
};

const round = (ms: number) => Math.round(ms * 10) / 10;
async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const began = performance.now();
  const result = await run();
  return [result, performance.now() - began];
}

/**
 * The whole sync job on one store, for a new user connecting the bench account: `changed` are the
 * indexes of the events this store's round edits (the first three) and deletes (the fourth); it also
 * adds event `added`: 5 changes.
 */
async function storeSync(radicale: RadicaleServer, store: 'embedded' | 'postgres', changed: [number, number, number, number], added: number) {
  const postgres = store === 'postgres' ? await createTestDatabase() : null;
  const existing = postgres ? { database: await openDatabase({ databaseUrl: postgres.url, poolSize: 10 }), url: postgres.url } : undefined;
  const api = await createTestApp({}, existing);
  try {
    const { ctx } = api.runtime;
    const { user, apiKey } = await api.createUser({ timeZone: 'UTC' });
    const [connected, connectMs] = await timed(() =>
      api.request('POST', '/v2/calendars/caldav/credentials', { key: apiKey, body: radicale.credentials('bench') }),
    );
    if (connected.status !== 201) throw new Error(`connect: HTTP ${connected.status} ${connected.text}`);
    const rows = async <T>(query: ReturnType<typeof sql>) => ((await ctx.database.db.execute(query)) as unknown as { rows: T[] }).rows;
    const [source] = await rows<{ id: number }>(sql`select id from calendar_sources where user_id = ${user.id} and selected`);
    if (!source) throw new Error('connect: no selected calendar');
    const storedCount = async () => Number((await rows<{ n: string }>(sql`select count(*) as n from calendar_busy_times where source_id = ${source.id}`))[0]!.n);
    const afterConnect = await storedCount();
    if (afterConnect !== EVENTS) throw new Error(`connect stored ${afterConnect} busy intervals`);

    const deps = { database: ctx.database, secrets: ctx.secrets, config: ctx.config, readers: CALENDAR_READERS, clock: ctx.clock, changes: ctx.changes };
    await ctx.database.db.execute(sql`update calendar_sources set synced_from = null where id = ${source.id}`);
    const [full, fullSyncMs] = await timed(() => syncCalendarSource(deps, source.id, Date.now()));
    if (full !== 'synced' || (await storedCount()) !== afterConnect) throw new Error(`full sync: ${full}`);
    const [unchanged, unchangedSyncMs] = await timed(() => syncCalendarSource(deps, source.id, Date.now()));
    if (unchanged !== 'unchanged') throw new Error(`unchanged sync: ${unchanged}`);

    const calendar = radicale.calendarUrl('bench', 'big');
    const [first, second, third, deleted] = changed;
    for (const i of [first, second, third]) await radicale.putRaw('bench', `${calendar}bench-${i}.ics`, event(i, `Moved ${i}`, 1));
    await radicale.putRaw('bench', `${calendar}bench-${added}.ics`, event(added));
    await radicale.deleteRaw('bench', `${calendar}bench-${deleted}.ics`);
    const [incremental, incrementalSyncMs] = await timed(() => syncCalendarSource(deps, source.id, Date.now()));
    if (incremental !== 'synced') throw new Error(`incremental sync: ${incremental}`);

    // Each edited event moved an hour later; the added one is busy, the deleted one is not.
    const busyOver = async (i: number) => {
      const query = new URLSearchParams({ dateFrom: new Date(start + i * 3 * HOUR - DAY).toISOString().slice(0, 10), dateTo: new Date(start + i * 3 * HOUR + DAY).toISOString().slice(0, 10), loggedInUsersTz: 'UTC' });
      const answer = await api.request('GET', `/v2/calendars/busy-times?${query}`, { key: apiKey });
      if (answer.status !== 200) throw new Error(`busy-times: HTTP ${answer.status} ${answer.text}`);
      return (answer.body.data as { start: string }[]).map((busy) => Date.parse(busy.start));
    };
    const at = (i: number) => start + i * 3 * HOUR;
    const seen =
      !(await busyOver(deleted)).includes(at(deleted)) && (await busyOver(added)).includes(at(added)) && !(await busyOver(first)).includes(at(first));
    if (!seen) throw new Error("GET /v2/calendars/busy-times does not show the incremental sync's changes");
    return {
      connectMs: round(connectMs),
      fullSyncMs: round(fullSyncMs),
      unchangedSyncMs: round(unchangedSyncMs),
      incrementalSyncMs: round(incrementalSyncMs),
      busyIntervalsStored: afterConnect,
    };
  } finally {
    await api.close();
    await postgres?.drop();
  }
}

if (RADICALE_SKIP) {
  console.error(RADICALE_SKIP);
  process.exit(1);
}

const loadStarted = performance.now();
const radicale = await startRadicale({
  users: { bench: 'bench-Pa55word' },
  seed: (storageDir) =>
    writeCalendarFiles(
      storageDir,
      'bench',
      'big',
      { name: 'Big' },
      Array.from({ length: EVENTS }, (_, i) => ({ name: `bench-${i}.ics`, ics: event(i) })),
    ),
});
const loadMs = performance.now() - loadStarted;
try {
  const creds = radicale.credentials('bench');
  const calendar = radicale.calendarUrl('bench', 'big');
  /** A sync-collection REPORT sent with plain fetch, outside the adapter. */
  const rawSyncReport = async (token: string | null) => {
    const answer = await fetch(calendar, {
      method: 'REPORT',
      headers: { authorization: `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`, depth: '0', 'content-type': 'application/xml' },
      body: `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token ?? ''}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`,
    });
    await answer.text();
    if (answer.status !== 207) throw new Error(`sync-collection: HTTP ${answer.status}`);
  };
  const [, serverWarmupMs] = await timed(() => rawSyncReport(null));

  const [first, firstSyncMs] = await timed(() => syncCalendar(creds, calendar, { syncToken: null, ctag: null }, policy));
  if (!first.full || first.upserted.length !== EVENTS) throw new Error(`first sync: full=${first.full}, ${first.upserted.length} events`);

  const [unchanged, unchangedSyncMs] = await timed(() => syncCalendar(creds, calendar, first.state, policy));
  if (unchanged.upserted.length || unchanged.removed.length) throw new Error('an unchanged calendar reported changes');
  // The same one request without the adapter: what of unchangedSyncMs is the server's.
  const [, rawUnchangedReportMs] = await timed(() => rawSyncReport(first.state.syncToken));

  for (const i of [10, 500, 1500]) await radicale.putRaw('bench', `${calendar}bench-${i}.ics`, event(i, `Moved ${i}`));
  await radicale.putRaw('bench', `${calendar}bench-${EVENTS}.ics`, event(EVENTS));
  await radicale.deleteRaw('bench', `${calendar}bench-42.ics`);

  const [incremental, incrementalSyncMs] = await timed(() => syncCalendar(creds, calendar, first.state, policy));
  if (incremental.full || incremental.upserted.length !== 4 || incremental.removed.length !== 1) {
    throw new Error(`incremental sync: full=${incremental.full}, ${incremental.upserted.length} upserted, ${incremental.removed.length} removed`);
  }

  // The same full sync again, Radicale's cache now warm: how much of the first was the server's.
  const [, warmFullSyncMs] = await timed(() => syncCalendar(creds, calendar, { syncToken: null, ctag: null }, policy));

  const stores = {
    embedded: await storeSync(radicale, 'embedded', [100, 200, 300, 400], EVENTS + 1),
    postgres: await storeSync(radicale, 'postgres', [110, 210, 310, 410], EVENTS + 2),
  };
  console.log(
    JSON.stringify({
      firstSyncMs: round(firstSyncMs),
      incrementalSyncMs: round(incrementalSyncMs),
      events: EVENTS,
      changes: { upserted: incremental.upserted.length, removed: incremental.removed.length },
      unchangedSyncMs: round(unchangedSyncMs),
      rawUnchangedReportMs: round(rawUnchangedReportMs),
      warmFullSyncMs: round(warmFullSyncMs),
      load: { method: 'files written into the storage folder before radicale starts', ms: round(loadMs) },
      serverWarmupMs: round(serverWarmupMs),
      server: 'Debian radicale on 127.0.0.1 (multifilesystem storage)',
      stores,
    }),
  );
} finally {
  await radicale.stop();
}
