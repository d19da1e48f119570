import { invalidField } from '../../lib/errors.js';
import * as repo from './calendars.repository.js';
import type { CalendarsDeps } from './calendars.service.js';

/**
 * GET /v2/calendars/busy-times: the stored busy time of the caller's calendars named in
 * `calendarsToLoad` (all selected ones when none are named) over [from, to). Another user's calendar
 * is refused.
 */
export async function busyTimes(
  deps: CalendarsDeps,
  userId: number,
  input: { from: number; to: number; calendarsToLoad: { credentialId: number; externalId: string }[] },
): Promise<{ start: string; end: string; source: string }[]> {
  const sources = await repo.listSourcesOf(deps.database.db, userId);
  let ids: number[] | null = null;
  if (input.calendarsToLoad.length > 0) {
    ids = [];
    for (const [index, wanted] of input.calendarsToLoad.entries()) {
      const source = sources.find((row) => row.connectionId === wanted.credentialId && row.externalId === wanted.externalId);
      if (!source) throw invalidField(`calendarsToLoad.${index}`, 'must name one of your connected calendars (credentialId and externalId)', wanted);
      ids.push(source.id);
    }
  }
  const names = new Map(sources.map((source) => [source.id, source.name]));
  const intervals = await repo.listBusyIntervals(deps.database.db, userId, input.from, input.to, ids);
  return joinPieces(intervals).map((interval) => ({ start: new Date(interval.start).toISOString(), end: new Date(interval.end).toISOString(), source: names.get(interval.sourceId) ?? '' }));
}

/** Pieces of one calendar that touch (a long event stored by the day) are one interval again. */
function joinPieces(intervals: readonly repo.StoredBusyInterval[]): repo.StoredBusyInterval[] {
  const joined: repo.StoredBusyInterval[] = [];
  const lastOf = new Map<number, repo.StoredBusyInterval>();
  for (const interval of intervals) {
    const last = lastOf.get(interval.sourceId);
    if (last && last.end === interval.start) {
      last.end = interval.end;
      continue;
    }
    const copy = { ...interval };
    joined.push(copy);
    lastOf.set(interval.sourceId, copy);
  }
  return joined;
}
