// The hosts' busy time as the slot engine reads it (SQL of the slot listing's hot path): hosted bookings,
// live reservations, times away (out of office), calendar busy time and calendars that cannot be
// trusted, in one round trip.
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { CalendarDegradation, HostBusy } from './availability-cache.js';

export const iso = (epochMs: number) => new Date(epochMs).toISOString();
const utcDate = (epochMs: number) => iso(epochMs).slice(0, 10);
const DAY = 86_400_000;

interface BusyRow {
  user_id: number;
  start_ms: number;
  end_ms: number;
  buffer_before: number;
  buffer_after: number;
  event_type_id: number | null;
  pending: boolean;
  blocks_while_pending: boolean;
  uid: string | null;
  source: 'booking' | 'reservation' | 'calendar' | 'unavailable' | 'away';
  seats: number;
  live_until_ms: number | null;
  /** Unavailable rows: why the host's calendars cannot be trusted, and since when. */
  reason: CalendarDegradation['reason'] | null;
  since_ms: number | null;
  /** Calendar rows: all of one host's calendar busy time, as big-endian float8 epoch ms, start then end. */
  spans: Uint8Array | null;
}

/**
 * No booking or reservation lasts longer than this (check constraints on bookings, booking_hosts and
 * slot_reservations): an overlap query bounds end_at on both sides, so the (user, end_at) index reads
 * the window's rows only, not every later booking of the host.
 */
export const LONGEST_BOOKING = sql`interval '24 hours'`;

export interface BusyQuery {
  /** Hosts whose bookings and reservations are read. */
  userIds: number[];
  /** Hosts whose calendars are read (busy time, and whether it can be trusted); `userIds` if not given. */
  calendarUserIds?: number[] | undefined;
  /** Blocks overlapping [from, to) are read. */
  from: number;
  to: number;
  now: number;
  /** A reservation to leave out (the one being changed). */
  exceptReservationUid?: string | undefined;
}

/**
 * The statement listBusyBlocks runs (exported so a test can read its plan). Calendar busy time comes
 * back as one row per host, its intervals joined into one value (`spans`): a host with a connected
 * calendar has hundreds of events in a cold listing's range (a team of 50 with 200 events a month each,
 * 10,000 in a month's listing), and reading them as rows of this union's fourteen columns cost far more
 * than the query (the driver parses every field of every row). They are read from calendar_busy_days,
 * the pieces already encoded per source and UTC date (float8 bytes: no number is printed or parsed as
 * text), so the statement visits no event: the dates a piece overlapping [from, to) can start on (pieces
 * last at most 24 hours), with the pieces beside the range dropped as they are read.
 */
export function busyBlocksStatement(query: BusyQuery): SQL {
  const from = iso(query.from);
  const to = iso(query.to);
  const calendarUserIds = query.calendarUserIds ?? query.userIds;
  const parts: SQL[] = [];
  if (query.userIds.length > 0) parts.push(bookingsPart(query, from, to));
  if (calendarUserIds.length > 0) parts.push(calendarsPart(query, calendarUserIds, to));
  return sql.join(parts, sql` union all `);
}

function bookingsPart(query: BusyQuery, from: string, to: string): SQL {
  return sql`
    select bh.user_id, (extract(epoch from b.start_at) * 1000)::float8 as start_ms, (extract(epoch from b.end_at) * 1000)::float8 as end_ms,
      coalesce(et.before_event_buffer, 0) as buffer_before, coalesce(et.after_event_buffer, 0) as buffer_after,
      b.event_type_id, b.status = 'pending' as pending,
      (b.payment_id is not null or coalesce((et.confirmation_policy ->> 'blockUnconfirmedBookingsInBooker')::boolean, false)) as blocks_while_pending,
      b.uid, 'booking' as source,
      case when et.seats_per_time_slot is null then 1 else (select count(*)::int from booking_attendees a where a.booking_id = b.id) end as seats,
      null::float8 as live_until_ms, null::text as reason, null::float8 as since_ms, null::bytea as spans
    from booking_hosts bh join bookings b on b.id = bh.booking_id left join event_types et on et.id = b.event_type_id
    where bh.user_id in ${query.userIds} and bh.status in ('accepted', 'pending')
      and bh.end_at > ${from}::timestamptz and bh.end_at < ${to}::timestamptz + ${LONGEST_BOOKING}
      and bh.start_at > ${from}::timestamptz - ${LONGEST_BOOKING} and bh.start_at < ${to}::timestamptz
    union all
    select r.user_id, (extract(epoch from r.slot_start) * 1000)::float8, (extract(epoch from r.slot_end) * 1000)::float8,
      et.before_event_buffer, et.after_event_buffer, r.event_type_id, false, false, null, 'reservation', 1,
      (extract(epoch from r.reserved_until) * 1000)::float8, null, null, null
    from slot_reservations r join event_types et on et.id = r.event_type_id
    where r.user_id in ${query.userIds} and r.reserved_until > ${iso(query.now)}::timestamptz
      and r.slot_end > ${from}::timestamptz and r.slot_end < ${to}::timestamptz + ${LONGEST_BOOKING} and r.slot_start < ${to}::timestamptz
      and r.uid <> ${query.exceptReservationUid ?? ''}
    union all
    select o.user_id, (extract(epoch from o.start_at) * 1000)::float8, (extract(epoch from o.end_at) * 1000)::float8,
      0, 0, null, false, false, null, 'away', 1, null, null, null, null
    from out_of_office_entries o
    where o.user_id in ${query.userIds} and o.end_at > ${from}::timestamptz and o.start_at < ${to}::timestamptz
  `;
}

function calendarsPart(query: BusyQuery, userIds: number[], to: string): SQL {
  return sql`
    select c.user_id, null::float8 as start_ms, null::float8 as end_ms, 0 as buffer_before, 0 as buffer_after, null::int as event_type_id, false as pending,
      false as blocks_while_pending, null::text as uid, 'calendar' as source, 1 as seats, null::float8 as live_until_ms, null::text as reason, null::float8 as since_ms,
      string_agg(c.spans, ''::bytea) as spans
    from calendar_busy_days c join calendar_sources s on s.id = c.source_id
    where c.user_id in ${userIds} and s.selected and c.day >= ${utcDate(query.from - DAY)}::date and c.day <= ${utcDate(query.to)}::date
    group by c.user_id
    union all
    select s.user_id,
      case when cc.invalid or s.degraded then ${query.from}::float8 else greatest(${query.from}::float8, (extract(epoch from s.synced_to) * 1000)::float8) end,
      ${query.to}::float8, 0, 0, null, false, false, null, 'unavailable', 1, null,
      case when cc.invalid then 'invalid_credentials' when s.last_synced_at is null then 'never_synced' when s.degraded then 'sync_failing' else 'beyond_sync_range' end,
      (extract(epoch from coalesce(case when cc.invalid then cc.updated_at end, s.failing_since, s.created_at)) * 1000)::float8, null
    from calendar_sources s join calendar_connections cc on cc.id = s.connection_id
    where s.user_id in ${userIds} and s.selected and (cc.invalid or s.degraded or s.synced_to is null or s.synced_to < ${to}::timestamptz)
  `;
}

/**
 * Busy time of the hosts: accepted and pending bookings they host, as organizer or not (with their event type's buffers and
 * confirmation policy, and the seats their attendees hold), reservations live at `now`, and calendars
 * that cannot be trusted, as blocks; their calendars' busy time as bare intervals (`plain`: no
 * buffers, seats or states to carry, so no object per event); in one round trip.
 */
export async function listBusyBlocks(db: Db, query: BusyQuery): Promise<Map<number, HostBusy>> {
  const byUser = new Map<number, HostBusy>([...query.userIds, ...(query.calendarUserIds ?? [])].map((id) => [id, { blocks: [], plain: [], away: [] }]));
  if (byUser.size === 0) return byUser;
  const result = await db.execute(busyBlocksStatement(query));
  for (const row of (result as unknown as { rows: BusyRow[] }).rows) {
    const busy = byUser.get(row.user_id);
    if (!busy) continue;
    if (row.source === 'calendar') {
      if (!row.spans) continue;
      const spans = new DataView(row.spans.buffer, row.spans.byteOffset, row.spans.byteLength);
      for (let at = 0; at + 16 <= spans.byteLength; at += 16) {
        const start = spans.getFloat64(at);
        const end = spans.getFloat64(at + 8);
        // Whole dates are read: pieces beside the range are left out.
        if (end <= query.from || start >= query.to) continue;
        busy.plain.push([start, end]);
      }
      continue;
    }
    if (row.source === 'away') {
      busy.away.push([row.start_ms, row.end_ms]);
      continue;
    }
    if (row.source === 'unavailable') {
      busy.blocks.push({
        start: row.start_ms,
        end: row.end_ms,
        bufferBefore: 0,
        bufferAfter: 0,
        source: 'calendar',
        degraded: { reason: row.reason!, since: row.since_ms! },
      });
      continue;
    }
    busy.blocks.push({
      start: row.start_ms,
      end: row.end_ms,
      bufferBefore: row.buffer_before,
      bufferAfter: row.buffer_after,
      source: row.source,
      eventTypeId: row.event_type_id,
      pending: row.pending,
      blocksWhilePending: row.blocks_while_pending,
      seatsTaken: row.seats,
      ...(row.uid ? { bookingUid: row.uid } : {}),
      ...(row.live_until_ms !== null ? { liveUntil: row.live_until_ms } : {}),
    });
  }
  return byUser;
}
