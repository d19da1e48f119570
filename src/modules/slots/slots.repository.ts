import { and, eq, gt, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { eventTypes, schedules, slotReservations, teams, users } from '../../db/schema.js';
import type { LimitBooking } from '../../scheduling/slot-query.js';
import { iso, LONGEST_BOOKING } from './busy-blocks.repository.js';

/**
 * The availability read model: what the slot engine needs about an event type, its hosts and their
 * busy time, read across the event-type, schedule, booking and reservation tables in as few round
 * trips as the hot path allows.
 */

const slotProfileColumns = {
  id: eventTypes.id,
  slug: eventTypes.slug,
  lengthInMinutes: eventTypes.lengthInMinutes,
  lengthInMinutesOptions: eventTypes.lengthInMinutesOptions,
  slotInterval: eventTypes.slotInterval,
  minimumBookingNotice: eventTypes.minimumBookingNotice,
  beforeEventBuffer: eventTypes.beforeEventBuffer,
  afterEventBuffer: eventTypes.afterEventBuffer,
  offsetStart: eventTypes.offsetStart,
  seatsPerTimeSlot: eventTypes.seatsPerTimeSlot,
  onlyShowFirstAvailableSlot: eventTypes.onlyShowFirstAvailableSlot,
  showOptimizedSlots: eventTypes.showOptimizedSlots,
  bookingLimitsCount: eventTypes.bookingLimitsCount,
  bookingLimitsDuration: eventTypes.bookingLimitsDuration,
  bookingWindow: eventTypes.bookingWindow,
  ownerId: users.id,
  ownerWeekStart: users.weekStart,
  scheduleTimeZone: schedules.timeZone,
  availability: schedules.availability,
  overrides: schedules.overrides,
};

/** The event type's schedule, else its owner's default one. */
const scheduleOfEventType = eq(schedules.id, sql`coalesce(${eventTypes.scheduleId}, ${users.defaultScheduleId})`);

function selectSlotProfiles(db: Db) {
  return db.select(slotProfileColumns).from(eventTypes).innerJoin(users, eq(users.id, eventTypes.userId)).leftJoin(schedules, scheduleOfEventType);
}

export type SlotProfileRow = Awaited<ReturnType<typeof selectSlotProfiles>>[number];

export async function findSlotProfile(db: Db, eventTypeId: number): Promise<SlotProfileRow | undefined> {
  const [row] = await selectSlotProfiles(db).where(eq(eventTypes.id, eventTypeId));
  return row;
}

/** The user a link names: by username, or within an organization by their username there (their profile's). */
function namedUser(username: string, organizationSlug: string | undefined): SQL {
  if (organizationSlug === undefined) return sql`lower(${users.username}) = lower(${username})`;
  return sql`${users.id} in (select p.user_id from profiles p join teams o on o.id = p.organization_id
    where o.is_organization and o.parent_id is null and lower(o.slug) = lower(${organizationSlug}) and lower(p.username) = lower(${username}))`;
}

export async function findSlotProfileBySlug(db: Db, username: string, slug: string, organizationSlug?: string): Promise<SlotProfileRow | undefined> {
  const [row] = await selectSlotProfiles(db).where(and(namedUser(username, organizationSlug), sql`lower(${eventTypes.slug}) = lower(${slug})`));
  return row;
}

const bookingProfileColumns = {
  eventType: eventTypes,
  organizer: { id: users.id, name: users.name, email: users.email, username: users.username, timeZone: users.timeZone, weekStart: users.weekStart },
  scheduleTimeZone: schedules.timeZone,
  availability: schedules.availability,
  overrides: schedules.overrides,
};

/** An event type with its organizer and schedule, in one read: what booking it needs. */
export async function findBookingProfile(db: Db, by: { id: number } | { username: string; slug: string; organizationSlug?: string | undefined }) {
  const where = 'id' in by ? eq(eventTypes.id, by.id) : and(namedUser(by.username, by.organizationSlug), sql`lower(${eventTypes.slug}) = lower(${by.slug})`);
  const [row] = await db.select(bookingProfileColumns).from(eventTypes).innerJoin(users, eq(users.id, eventTypes.userId)).leftJoin(schedules, scheduleOfEventType).where(where);
  return row;
}

export async function userExistsByUsername(db: Db, username: string, organizationSlug?: string): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(namedUser(username, organizationSlug));
  return row !== undefined;
}

export interface DynamicHostRow {
  id: number;
  username: string | null;
  weekStart: string;
  scheduleTimeZone: string | null;
  availability: SlotProfileRow['availability'];
  overrides: SlotProfileRow['overrides'];
}

/** Users of a dynamic group event with their default schedules; unknown usernames are left out. */
export async function findDynamicHosts(db: Db, usernames: string[]): Promise<DynamicHostRow[]> {
  const lowered = usernames.map((name) => name.toLowerCase());
  return db
    .select({
      id: users.id,
      username: users.username,
      weekStart: users.weekStart,
      scheduleTimeZone: schedules.timeZone,
      availability: schedules.availability,
      overrides: schedules.overrides,
    })
    .from(users)
    .leftJoin(schedules, eq(schedules.id, users.defaultScheduleId))
    .where(inArray(sql`lower(${users.username})`, lowered));
}


/** The statement listLimitBookings runs (exported so a test can read its plan). */
export function listLimitBookingsStatement(eventTypeId: number, from: number, to: number): SQL {
  return sql`
    select (extract(epoch from start_at) * 1000)::float8 as start_ms, (extract(epoch from end_at) * 1000)::float8 as end_ms, uid
    from bookings
    where event_type_id = ${eventTypeId} and status in ('accepted', 'pending')
      and end_at > ${iso(from)}::timestamptz and end_at < ${iso(to)}::timestamptz + ${LONGEST_BOOKING}
      and start_at > ${iso(from)}::timestamptz - ${LONGEST_BOOKING} and start_at < ${iso(to)}::timestamptz
  `;
}

/** Accepted and pending bookings of an event type overlapping [from, to), for its booking limits. */
export async function listLimitBookings(db: Db, eventTypeId: number, from: number, to: number): Promise<LimitBooking[]> {
  const result = await db.execute(listLimitBookingsStatement(eventTypeId, from, to));
  return (result as unknown as { rows: { start_ms: number; end_ms: number; uid: string }[] }).rows.map((row) => ({ start: row.start_ms, end: row.end_ms, uid: row.uid }));
}

export type ReservationRow = typeof slotReservations.$inferSelect;

/** A reservation as one row per held host; the rows differ only in `userId`. */
export async function insertReservation(db: Db, row: Omit<ReservationRow, 'userId'>, userIds: readonly number[]): Promise<ReservationRow> {
  const [inserted] = await db.insert(slotReservations).values(userIds.map((userId) => ({ ...row, userId }))).returning();
  return inserted!;
}

/** A live reservation (its first host's row: the others share everything else). */
export async function findLiveReservation(db: Db, uid: string, now: number): Promise<ReservationRow | undefined> {
  const [row] = await db
    .select()
    .from(slotReservations)
    .where(and(eq(slotReservations.uid, uid), gt(slotReservations.reservedUntil, new Date(now))))
    .limit(1);
  return row;
}

/** Removes every host's row of the reservation; returns them. */
export async function deleteReservation(db: Db, uid: string): Promise<ReservationRow[]> {
  return db.delete(slotReservations).where(eq(slotReservations.uid, uid)).returning();
}

/** Expired reservations hold nothing; they are removed now and then so the table stays small. */
export async function deleteExpiredReservations(db: Db, now: number): Promise<void> {
  await db.execute(sql`delete from slot_reservations where reserved_until < ${iso(now - 3_600_000)}::timestamptz`);
}

/** A team event type as the slot engine and the booking flow need it, with its team's rules. */
const teamSlotProfileColumns = {
  ...slotProfileColumns,
  ownerId: sql<number | null>`null`,
  ownerWeekStart: teams.weekStart,
  teamId: teams.id,
  teamSlug: teams.slug,
  teamTimeZone: teams.timeZone,
  teamWeekStart: teams.weekStart,
  teamBookingLimits: teams.bookingLimits,
  includeManagedEventsInLimits: teams.includeManagedEventsInLimits,
  schedulingType: eventTypes.schedulingType,
  assignAllTeamMembers: eventTypes.assignAllTeamMembers,
  isRRWeightsEnabled: eventTypes.isRRWeightsEnabled,
  organizationId: teams.parentId,
  assignRRMembersUsingSegment: eventTypes.assignRRMembersUsingSegment,
  rrSegmentQuery: eventTypes.rrSegmentQuery,
  eventScheduleId: eventTypes.scheduleId,
};

function selectTeamSlotProfiles(db: Db) {
  return db.select(teamSlotProfileColumns).from(eventTypes).innerJoin(teams, eq(teams.id, eventTypes.teamId)).leftJoin(schedules, eq(schedules.id, eventTypes.scheduleId));
}

export type TeamSlotProfileRow = Awaited<ReturnType<typeof selectTeamSlotProfiles>>[number];

export async function findTeamSlotProfile(db: Db, eventTypeId: number): Promise<TeamSlotProfileRow | undefined> {
  const [row] = await selectTeamSlotProfiles(db).where(eq(eventTypes.id, eventTypeId));
  return row;
}

/**
 * A team event type by its team's slug: a team inside the organization with `organizationSlug`, or a
 * team outside any organization without it.
 */
export async function findTeamSlotProfileBySlug(db: Db, teamSlug: string, slug: string, organizationSlug: string | undefined): Promise<TeamSlotProfileRow | undefined> {
  const parent = organizationSlug === undefined
    ? sql`${teams.parentId} is null and not ${teams.isOrganization}`
    : sql`${teams.parentId} = (select o.id from teams o where o.is_organization and o.parent_id is null and lower(o.slug) = lower(${organizationSlug}))`;
  const [row] = await selectTeamSlotProfiles(db).where(and(sql`lower(${teams.slug}) = lower(${teamSlug})`, parent, sql`lower(${eventTypes.slug}) = lower(${slug})`));
  return row;
}

/** Whether a team exists under that slug (and organization), for the reference's 404 wording. */
export async function teamExistsBySlug(db: Db, teamSlug: string, organizationSlug: string | undefined): Promise<boolean> {
  const result = await db.execute(sql`
    select 1 from teams t
    where lower(t.slug) = lower(${teamSlug}) and not t.is_organization
      and ${organizationSlug === undefined ? sql`t.parent_id is null` : sql`t.parent_id = (select o.id from teams o where o.is_organization and o.parent_id is null and lower(o.slug) = lower(${organizationSlug}))`}
  `);
  return (result as unknown as { rows: unknown[] }).rows.length > 0;
}

/** Whether an organization (top-level) has this slug. */
export async function organizationExistsBySlug(db: Db, organizationSlug: string): Promise<boolean> {
  const result = await db.execute(sql`select 1 from teams o where o.is_organization and o.parent_id is null and lower(o.slug) = lower(${organizationSlug})`);
  return (result as unknown as { rows: unknown[] }).rows.length > 0;
}

export interface TeamHostRow {
  userId: number;
  mandatory: boolean;
  priority: number;
  weight: number;
  groupId: string | null;
  username: string | null;
  scheduleTimeZone: string | null;
  availability: SlotProfileRow['availability'];
  overrides: SlotProfileRow['overrides'];
}

/**
 * The hosts of a team event type that are accepted members of its team, in the order they were
 * given, each with their schedule: the host's own for this event type, else the event type's, else
 * their default. With `assignAllTeamMembers` every accepted member hosts, keeping a host row's
 * settings (fixed, priority, weight) where there is one.
 */
export async function listTeamHosts(db: Db, eventTypeId: number, teamId: number, assignAll: boolean): Promise<TeamHostRow[]> {
  const result = await db.execute(sql`
    select m.user_id as "userId", coalesce(h.mandatory, false) as mandatory, coalesce(h.priority, 2) as priority,
      coalesce(h.weight, 100) as weight, h.group_id as "groupId", u.username,
      s.time_zone as "scheduleTimeZone", s.availability, s.overrides
    from memberships m
    join users u on u.id = m.user_id
    join event_types et on et.id = ${eventTypeId}
    left join event_type_hosts h on h.event_type_id = et.id and h.user_id = m.user_id
    left join schedules s on s.id = coalesce(h.schedule_id, et.schedule_id, u.default_schedule_id)
    where m.team_id = ${teamId} and m.accepted and (${assignAll} or h.user_id is not null)
    order by h.position nulls last, m.id
  `);
  return (result as unknown as { rows: TeamHostRow[] }).rows;
}

/**
 * Accepted and pending bookings counted by a team's booking limits over [from, to): those of the
 * team's event types, and of the managed children of its managed event types when
 * `includeManaged` (the reference's `includeManagedEventsInLimits`).
 */
export async function listTeamLimitBookings(db: Db, teamId: number, includeManaged: boolean, from: number, to: number): Promise<LimitBooking[]> {
  const result = await db.execute(sql`
    select (extract(epoch from b.start_at) * 1000)::float8 as start_ms, (extract(epoch from b.end_at) * 1000)::float8 as end_ms, b.uid
    from bookings b join event_types et on et.id = b.event_type_id
    left join event_types parent on parent.id = et.parent_id
    where (et.team_id = ${teamId} or (${includeManaged} and parent.team_id = ${teamId}))
      and b.status in ('accepted', 'pending')
      and b.end_at > ${iso(from)}::timestamptz and b.start_at < ${iso(to)}::timestamptz
  `);
  return (result as unknown as { rows: { start_ms: number; end_ms: number; uid: string }[] }).rows.map((row) => ({ start: row.start_ms, end: row.end_ms, uid: row.uid }));
}
