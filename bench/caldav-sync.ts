// CalDAV sync of a 2,000-event calendar on a real server (Debian's Radicale on 127.0.0.1): the first,
// full sync, then the incremental sync after 5 changes made directly on the server (3 edited, 1 added,
// 1 deleted). Prints ONE JSON object on stdout: {firstSyncMs, incrementalSyncMs, events, ...}.
//   node --import tsx bench/caldav-sync.ts
// The events are written straight into Radicale's storage folder before it starts (its layout: one
// file per object), in about a second. Radicale then builds its item cache and sync history on the
// first request that reads them (40-odd seconds for 2,000 items here, fsync per file), work it would
// have done at PUT time; one raw sync-collection request does that first (serverWarmupMs), so
// firstSyncMs is the adapter's first sync against a server that already knows its calendar.
import { syncCalendar } from '../src/integrations/caldav/index.js';
import { eventIcs, RADICALE_SKIP, startRadicale, writeCalendarFiles } from '../test/support/radicale.js';

const EVENTS = 2_000;
const policy = { allowPrivate: true, timeoutMs: 60_000, maxResponseBytes: 20_000_000 };
const start = Date.parse('2026-01-05T09:00:00Z');
const event = (i: number, summary = `Meeting ${i}`) =>
  eventIcs(`bench-${i}`, new Date(start + i * 3 * 3_600_000), new Date(start + i * 3 * 3_600_000 + 3_600_000), summary, [`DESCRIPTION:${'Agenda item. '.repeat(8)}`]);

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
  const timed = async <T>(run: () => Promise<T>): Promise<[T, number]> => {
    const began = performance.now();
    const result = await run();
    return [result, performance.now() - began];
  };

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

  const round = (ms: number) => Math.round(ms * 10) / 10;
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
    }),
  );
} finally {
  await radicale.stop();
}
