// The bookings lists (a user's, a team's, an organization's): their filters, and the page and count
// statements that walk per-source indexes.
import { and, asc, desc, eq, getTableColumns, gte, inArray, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { bookingAttendees, bookingHosts, bookings, eventTypes, memberships, profiles, teams, users } from '../../db/schema.js';
import type { BookingRow } from './bookings.repository.js';

export type ListStatus = 'upcoming' | 'recurring' | 'past' | 'cancelled' | 'unconfirmed';

/**
 * Whose bookings a list holds. `user`: those the user hosts or attends with this (verified) email, and
 * those of the event types of the teams they administer (see administeredTeams); `team`: those of the team's event types, managed ones' copies included; `organization`: those of
 * its teams' event types, and those its own users (created by it, still members) host or attend.
 */
export type BookingListScope =
  | { kind: 'user'; userId: number; email: string | null }
  | { kind: 'team'; teamId: number }
  | { kind: 'organization'; organizationId: number };

export interface BookingListFilter {
  scope: BookingListScope;
  /** Only bookings one of these users hosts, or one of these (verified) emails attends. */
  participants?: { userIds: number[]; emails: string[] } | undefined;
  /** Only bookings one of these users, or the users with these emails, host (as organizer or other host). */
  hostedBy?: { userIds: number[]; emails: string[] } | undefined;
  now: number;
  statuses?: ListStatus[] | undefined;
  attendeeEmail?: string | undefined;
  attendeeName?: string | undefined;
  bookingUid?: string | undefined;
  /** Event types, or managed event types whose members' copies count too. */
  eventTypeIds?: number[] | undefined;
  teamIds?: number[] | undefined;
  afterStart?: number | undefined;
  beforeEnd?: number | undefined;
  afterCreatedAt?: number | undefined;
  beforeCreatedAt?: number | undefined;
  afterUpdatedAt?: number | undefined;
  beforeUpdatedAt?: number | undefined;
  order: { column: 'start' | 'end' | 'created' | 'updated'; direction: 'asc' | 'desc' };
  take: number;
  skip: number;
}

const ORDER_COLUMNS = { start: bookings.startAt, end: bookings.endAt, created: bookings.createdAt, updated: bookings.updatedAt };

/** Attendee conditions are matched through a sub-query, so a booking with many attendees is listed once. */
function attendeeMatches(condition: SQL): SQL {
  return sql`exists (select 1 from ${bookingAttendees} where ${bookingAttendees.bookingId} = ${bookings.id} and ${condition})`;
}

const valueList = (values: readonly (number | string)[]) => sql.join(values.map((value) => sql`${value}`), sql`, `);

// A scope is the set of booking ids a union of sub-queries finds, each through an index (booking_hosts
// by user, booking_attendees by lower(email), bookings by event type), so that no list reads every
// booking to test each against an OR of conditions.
const hostedBy = (userIds: SQL) => sql`select bh.booking_id from ${bookingHosts} bh where bh.user_id in (${userIds})`;
const attendedBy = (lowerEmails: SQL) => sql`select ba.booking_id from ${bookingAttendees} ba where lower(ba.email) in (${lowerEmails})`;
const bookingIdsIn = (...sets: SQL[]) => sql`${bookings.id} in (${sql.join(sets, sql` union `)})`;

/** The event types of these teams, and the members' copies of their managed event types. */
// The copies are read per parent (lateral): without statistics (the embedded store is never analyzed)
// `parent_id in (...)` was planned as a scan of every event type.
const teamEventTypes = (teamIds: SQL) =>
  sql`select et.id from ${eventTypes} et where et.team_id in (${teamIds})
    union all select copy.id from ${eventTypes} parent cross join lateral (select et.id from ${eventTypes} et where et.parent_id = parent.id) copy
      where parent.team_id in (${teamIds})`;
const ofTeamEventTypes = (teamIds: SQL) => sql`select b.id from ${bookings} b where b.event_type_id in (${teamEventTypes(teamIds)})`;

/** Bookings of these teams' event types, or of the members' copies of their managed event types. */
function ofTeams(teamIds: SQL): SQL {
  return sql`${bookings.eventTypeId} in (${teamEventTypes(teamIds)})`;
}

/**
 * The teams whose event types' bookings a user lists besides their own, as the reference's getBookings:
 * those where they are ADMIN or OWNER, only the organization and its teams when the user has a profile in
 * an organization (their first: the reference's main profile).
 */
function administeredTeams(userId: number): SQL {
  return sql`select m.team_id from ${memberships} m join ${teams} t on t.id = m.team_id
    where m.user_id = ${userId} and m.role in ('ADMIN', 'OWNER')
      and coalesce((select p.organization_id from ${profiles} p where p.user_id = ${userId} order by p.id limit 1) in (t.id, coalesce(t.parent_id, 0)), true)`;
}

function participantSets(userIds: readonly number[], emails: readonly string[]): SQL[] {
  const hosted = hostedBy(valueList(userIds.length > 0 ? userIds : [-1]));
  return emails.length === 0 ? [hosted] : [hosted, attendedBy(valueList(emails.map((email) => email.toLowerCase())))];
}

function hostSets(userIds: readonly number[], emails: readonly string[]): SQL[] {
  const sets = userIds.length > 0 ? [hostedBy(valueList(userIds))] : [];
  if (emails.length > 0) sets.push(hostedBy(sql`select u.id from ${users} u where lower(u.email) in (${valueList(emails.map((email) => email.toLowerCase()))})`));
  return sets;
}

/**
 * An organization's users are those it created that are still its members: a user merely added to it
 * keeps their other bookings to themselves (any user id can be added to an organization).
 */
const organizationUsers = (organizationId: number) => sql`from ${users} u where u.organization_id = ${organizationId}
    and exists (select 1 from ${memberships} m where m.user_id = u.id and m.team_id = ${organizationId})`;
const organizationTeams = (organizationId: number) => sql`select t.id from ${teams} t where t.parent_id = ${organizationId} or t.id = ${organizationId}`;

function organizationCondition(organizationId: number): SQL {
  const ownUsers = organizationUsers(organizationId);
  return bookingIdsIn(
    ofTeamEventTypes(organizationTeams(organizationId)),
    hostedBy(sql`select u.id ${ownUsers}`),
    attendedBy(sql`select lower(u.verified_email) ${ownUsers} and u.verified_email is not null`),
  );
}

function scopeCondition(scope: BookingListScope): SQL {
  switch (scope.kind) {
    case 'user':
      return bookingIdsIn(...participantSets([scope.userId], scope.email === null ? [] : [scope.email]), ofTeamEventTypes(administeredTeams(scope.userId)));
    case 'team':
      return ofTeams(sql`${scope.teamId}`);
    case 'organization':
      return organizationCondition(scope.organizationId);
  }
}

/** The reference's list statuses (they are filters over time and status, not booking statuses). */
function statusCondition(status: ListStatus, now: Date): SQL {
  const live = inArray(bookings.status, ['accepted', 'pending']);
  switch (status) {
    case 'upcoming':
      return and(gte(bookings.endAt, now), or(and(sql`${bookings.recurringBookingUid} is null`, live), eq(bookings.status, 'accepted')))!;
    case 'recurring':
      return and(gte(bookings.endAt, now), sql`${bookings.recurringBookingUid} is not null`, live)!;
    case 'past':
      return and(lte(bookings.endAt, now), live)!;
    case 'cancelled':
      return inArray(bookings.status, ['cancelled', 'rejected']);
    case 'unconfirmed':
      return and(gte(bookings.endAt, now), eq(bookings.status, 'pending'))!;
  }
}

/** Statuses whose bookings all end at or after `now`. */
const ENDING_LATER: readonly ListStatus[] = ['upcoming', 'recurring', 'unconfirmed'];

/**
 * An instant no booking of the list starts before, implied by its filters: a booking ends at most 24
 * hours after it starts (bookings_span_check), so one ending at or after `now` started at most 24 hours
 * before. Lists walk their indexes from it rather than from each source's first booking.
 */
function startsNoEarlierThan(filter: BookingListFilter): number | undefined {
  const bounds: number[] = [];
  if (filter.statuses?.length && filter.statuses.every((status) => ENDING_LATER.includes(status))) bounds.push(filter.now - 86_400_000);
  if (filter.afterStart !== undefined) bounds.push(filter.afterStart);
  return bounds.length > 0 ? Math.max(...bounds) : undefined;
}

/** The list's conditions besides its scope. */
function filterConditions(filter: BookingListFilter): SQL[] {
  const at = (epochMs: number) => new Date(epochMs);
  const conditions: SQL[] = [];
  if (filter.participants) conditions.push(bookingIdsIn(...participantSets(filter.participants.userIds, filter.participants.emails)));
  if (filter.hostedBy) conditions.push(bookingIdsIn(...hostSets(filter.hostedBy.userIds, filter.hostedBy.emails)));
  if (filter.statuses?.length) conditions.push(or(...filter.statuses.map((status) => statusCondition(status, at(filter.now))))!);
  if (filter.attendeeEmail !== undefined) conditions.push(attendeeMatches(sql`lower(${bookingAttendees.email}) = lower(${filter.attendeeEmail})`));
  if (filter.attendeeName !== undefined) conditions.push(attendeeMatches(eq(bookingAttendees.name, filter.attendeeName)));
  if (filter.bookingUid !== undefined) conditions.push(eq(bookings.uid, filter.bookingUid));
  if (filter.eventTypeIds !== undefined) {
    const ids = valueList(filter.eventTypeIds.length > 0 ? filter.eventTypeIds : [-1]);
    conditions.push(sql`(${bookings.eventTypeId} in (${ids}) or ${bookings.eventTypeId} in (select ${eventTypes.id} from ${eventTypes} where ${eventTypes.parentId} in (${ids})))`);
  }
  if (filter.teamIds !== undefined) conditions.push(ofTeams(valueList(filter.teamIds.length > 0 ? filter.teamIds : [-1])));
  if (filter.afterStart !== undefined) conditions.push(gte(bookings.startAt, at(filter.afterStart)));
  if (filter.beforeEnd !== undefined) conditions.push(lte(bookings.endAt, at(filter.beforeEnd)));
  if (filter.afterCreatedAt !== undefined) conditions.push(gte(bookings.createdAt, at(filter.afterCreatedAt)));
  if (filter.beforeCreatedAt !== undefined) conditions.push(lte(bookings.createdAt, at(filter.beforeCreatedAt)));
  if (filter.afterUpdatedAt !== undefined) conditions.push(gte(bookings.updatedAt, at(filter.afterUpdatedAt)));
  if (filter.beforeUpdatedAt !== undefined) conditions.push(lte(bookings.updatedAt, at(filter.beforeUpdatedAt)));
  return conditions;
}

/** Whether any of these ids is an event type (a managed one's id stands for its members' copies too). */
export async function anyEventTypeExists(db: Db, ids: readonly number[]): Promise<boolean> {
  if (ids.length === 0) return false;
  const [row] = await db.select({ id: eventTypes.id }).from(eventTypes).where(inArray(eventTypes.id, [...ids])).limit(1);
  return row !== undefined;
}

/** The booking with this uid, if the scope holds it. */
export async function findScopedBooking(db: Db, scope: BookingListScope, uid: string): Promise<BookingRow | undefined> {
  const [row] = await db.select().from(bookings).where(and(eq(bookings.uid, uid), scopeCondition(scope)));
  return row;
}

/**
 * Where a list's bookings come from, each through its own index: those these users host (booking_hosts
 * by user and time), those these lowercased emails attend (booking_attendees by lower(email)), those of
 * these event types (bookings by event type and time). `users` and `eventTypes` select one column, `id`.
 */
type BookingSource =
  | { kind: 'hosted'; users: SQL; oneUser: boolean }
  | { kind: 'attended'; lowerEmails: SQL }
  | { kind: 'eventTypes'; eventTypes: SQL };

/** The sources of a scope (the same bookings as scopeCondition), event types last: see sourceCount. */
function scopeSources(scope: BookingListScope): BookingSource[] {
  switch (scope.kind) {
    case 'user': {
      const sources: BookingSource[] = [{ kind: 'hosted', users: sql`select ${scope.userId}::int as id`, oneUser: true }];
      if (scope.email !== null) sources.push({ kind: 'attended', lowerEmails: sql`${scope.email.toLowerCase()}` });
      sources.push({ kind: 'eventTypes', eventTypes: teamEventTypes(administeredTeams(scope.userId)) });
      return sources;
    }
    case 'team':
      return [{ kind: 'eventTypes', eventTypes: teamEventTypes(sql`${scope.teamId}`) }];
    case 'organization': {
      const ownUsers = organizationUsers(scope.organizationId);
      return [
        { kind: 'hosted', users: sql`select u.id ${ownUsers}`, oneUser: false },
        { kind: 'attended', lowerEmails: sql`select lower(u.verified_email) ${ownUsers} and u.verified_email is not null` },
        { kind: 'eventTypes', eventTypes: teamEventTypes(organizationTeams(scope.organizationId)) },
      ];
    }
  }
}

/** A row count written into the statement: a LIMIT bound as a parameter is planned as unknown, which can turn an index walk into a sort of every row. */
function literalCount(value: number): SQL {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`not a row count: ${value}`);
  return sql.raw(String(value));
}

/**
 * The first `limit` bookings of one source in the list's order that pass the filters, as (id, key). By
 * start or end time this walks an index in that order (per host, per event type) from `since` and stops
 * after `limit` rows, so a page costs what it shows and skips, whatever the source holds; by created
 * or updated time every booking of the source is sorted.
 */
function sourcePage(source: BookingSource, filters: ListFilters, order: BookingListFilter['order'], limit: number): SQL {
  const column = ORDER_COLUMNS[order.column];
  const direction = sql.raw(order.direction);
  const rows = literalCount(limit);
  const filtered = filters.where ? sql` and ${filters.where}` : sql``;
  switch (source.kind) {
    case 'hosted': {
      // booking_hosts keeps its booking's start and end (the booking's triggers).
      const hostColumn = order.column === 'start' ? sql`bh.start_at` : order.column === 'end' ? sql`bh.end_at` : null;
      const hosts = sql`bh.user_id = host.id${filters.since ? sql` and bh.start_at >= ${filters.since}::timestamptz` : sql``}`;
      // Without filters on the booking, its host rows carry all the walk needs: booking_hosts' index alone is read.
      const hostRows = hostColumn && !filters.where
        ? sql`select bh.booking_id as id, ${hostColumn} as key from ${bookingHosts} bh where ${hosts}`
        : sql`select ${bookings.id} as id, ${column} as key from ${bookingHosts} bh join ${bookings} on ${bookings.id} = bh.booking_id where ${hosts}${filtered}`;
      return sql`select pick.id, pick.key from (${source.users}) host cross join lateral (${hostRows} order by ${hostColumn ?? column} ${direction}, bh.booking_id asc limit ${rows}) pick`;
    }
    case 'attended':
      return sql`select pick.id, pick.key from (${attendedIds(source)}) attended cross join lateral (
        select ${bookings.id} as id, ${column} as key from ${bookings} where ${bookings.id} = attended.id${startsFrom(filters)}${filtered}) pick
        order by pick.key ${direction}, pick.id asc limit ${rows}`;
    case 'eventTypes':
      return sql`select pick.id, pick.key from (${source.eventTypes}) event_type cross join lateral (
        select ${bookings.id} as id, ${column} as key from ${bookings} where ${bookings.eventTypeId} = event_type.id${startsFrom(filters)}${filtered}
        order by ${column} ${direction}, ${bookings.id} asc limit ${rows}) pick`;
  }
}

const attendedIds = (source: Extract<BookingSource, { kind: 'attended' }>) =>
  sql`select distinct ba.booking_id as id from ${bookingAttendees} ba where lower(ba.email) in (${source.lowerEmails})`;

/** The list's filters: `where` on the bookings row, and `since` (ISO), the start no booking of the list comes before. */
interface ListFilters {
  where: SQL | undefined;
  since: string | undefined;
}

const startsFrom = (filters: ListFilters) => (filters.since ? sql` and ${bookings.startAt} >= ${filters.since}::timestamptz` : sql``);

/** Whether the source holds the booking of the enclosing `bookings` row. */
function sourceHolds(source: BookingSource): SQL {
  switch (source.kind) {
    case 'hosted':
      return sql`exists (select 1 from ${bookingHosts} held where held.booking_id = ${bookings.id} and held.user_id in (${source.users}))`;
    case 'attended':
      return sql`exists (select 1 from ${bookingAttendees} held where held.booking_id = ${bookings.id} and lower(held.email) in (${source.lowerEmails}))`;
    case 'eventTypes':
      return sql`${bookings.eventTypeId} in (${source.eventTypes})`;
  }
}

/**
 * The bookings of one source that pass the filters and that no `earlier` source holds, each read
 * through its index per host, per event type or per attended booking (lateral), so that the count
 * never scans the bookings table, statistics or not. Without filters a host's bookings are counted
 * on booking_hosts' index alone.
 */
function sourceCount(source: BookingSource, filters: ListFilters, earlier: BookingSource[]): SQL {
  const conditions = [...(filters.where ? [filters.where] : []), ...earlier.map((other) => sql`not ${sourceHolds(other)}`)];
  const filtered = conditions.length > 0 ? sql` and ${and(...conditions)}` : sql``;
  switch (source.kind) {
    case 'hosted': {
      const hosts = sql`bh.user_id = host.id${filters.since ? sql` and bh.start_at >= ${filters.since}::timestamptz` : sql``}`;
      const hostRows = conditions.length === 0
        ? sql`select bh.booking_id as id from ${bookingHosts} bh where ${hosts}`
        : sql`select bh.booking_id as id from ${bookingHosts} bh join ${bookings} on ${bookings.id} = bh.booking_id where ${hosts}${filtered}`;
      // Several hosts of one booking can be among the users.
      return sql`select ${source.oneUser ? sql`count(*)` : sql`count(distinct counted.id)`} from (${source.users}) host cross join lateral (${hostRows}) counted`;
    }
    case 'attended':
      if (conditions.length === 0) return sql`select count(*) from (${attendedIds(source)}) attended`;
      return sql`select count(*) from (${attendedIds(source)}) attended cross join lateral (select 1 from ${bookings} where ${bookings.id} = attended.id${startsFrom(filters)}${filtered}) counted`;
    case 'eventTypes':
      return sql`select count(*) from (${source.eventTypes}) event_type cross join lateral (
        select 1 from ${bookings} where ${bookings.eventTypeId} = event_type.id${startsFrom(filters)}${filtered}) counted`;
  }
}

/**
 * The two statements of a list (exported so that their plans can be read). The page: each source's
 * first skip + take bookings in the list's order (the page lies among them), merged, and the page cut
 * from those. The count: each source's bookings less those an earlier source holds, summed, so that
 * no set of every booking id of the scope is built to remove duplicates.
 */
export function bookingListStatements(db: Db, filter: BookingListFilter) {
  const sources = scopeSources(filter.scope);
  const conditions = filterConditions(filter);
  const since = startsNoEarlierThan(filter);
  const filters: ListFilters = { where: conditions.length > 0 ? and(...conditions) : undefined, since: since === undefined ? undefined : new Date(since).toISOString() };
  const column = ORDER_COLUMNS[filter.order.column];
  const direction = sql.raw(filter.order.direction);
  const candidates = sql.join(
    sources.map((source) => sql`(${sourcePage(source, filters, filter.order, filter.skip + filter.take)})`),
    sql` union all `,
  );
  const pageIds = sql`select page.id from (select distinct candidate.id, candidate.key from (${candidates}) candidate
    order by candidate.key ${direction}, candidate.id asc limit ${literalCount(filter.take)} offset ${literalCount(filter.skip)}) page`;
  const terms = sources.map((source, index) => sql`(${sourceCount(source, filters, sources.slice(0, index))})`);
  const count = sql`select (${sql.join(terms, sql` + `)})::int as total`;
  const order = [filter.order.direction === 'asc' ? asc(column) : desc(column), asc(bookings.id)];
  return {
    page: db.select().from(bookings).where(sql`${bookings.id} in (${pageIds})`).orderBy(...order),
    count,
    // What a list runs: the page with the count riding along (an uncorrelated subquery runs once), one round trip.
    pageWithCount: db
      .select({ ...getTableColumns(bookings), listTotal: sql<number>`(${count})`.as('list_total') })
      .from(bookings)
      .where(sql`${bookings.id} in (${pageIds})`)
      .orderBy(...order),
  };
}

export async function listBookings(db: Db, filter: BookingListFilter): Promise<{ rows: BookingRow[]; total: number }> {
  const statements = bookingListStatements(db, filter);
  const page = await statements.pageWithCount;
  const rows = page.map(({ listTotal: _total, ...row }) => row);
  if (page.length > 0 || filter.skip === 0) return { rows, total: Number(page[0]?.listTotal ?? 0) };
  // Past the last page: no row carried the count.
  const counted = (await db.execute(statements.count)) as unknown as { rows: { total: number }[] };
  return { rows, total: Number(counted.rows[0]?.total ?? 0) };
}
