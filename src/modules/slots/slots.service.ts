import { memberValues, segmentMatcher } from '../attributes/attribute-segments.js';
import { heldValues } from '../attributes/attributes.repository.js';
import type { Db } from '../../db/client.js';
import { invalidField, notFound } from '../../lib/errors.js';
import { type BookingWindow, type EventRules, type IntervalLimits, PLAIN_EVENT_RULES } from '../../scheduling/slot-query.js';
import type { HostSchedule } from '../../scheduling/working-hours.js';
import { END_OF_TIME } from '../../scheduling/zones.js';
import { WEEKDAY_NAMES } from '../schedules/schedule-rules.js';
import type { AvailabilityCache } from './availability-cache.js';
import * as repo from './slots.repository.js';

const MINUTE = 60_000;

import { hostIdsOf } from './slot-query-builder.js';

export { buildSlotQuery, hostIdsOf, type QueryOptions } from './slot-query-builder.js';

export type SlotTarget =
  | { kind: 'eventTypeId'; eventTypeId: number }
  | { kind: 'userEventType'; username: string; eventTypeSlug: string; organizationSlug?: string | undefined }
  | { kind: 'teamEventType'; teamSlug: string; eventTypeSlug: string; organizationSlug?: string | undefined }
  | { kind: 'dynamic'; usernames: string[]; organizationSlug?: string | undefined };

export interface SlotHost {
  userId: number;
  schedule: HostSchedule | null;
  /** Must attend (collective hosts, mandatory round-robin hosts). */
  fixed: boolean;
  /** Round robin: one host of each group attends. */
  groupId?: string | null | undefined;
  /** Round robin: 0 lowest ... 4 highest. */
  priority?: number | undefined;
  weight?: number | undefined;
}

/** What a team event type adds: its team, how hosts are chosen, and the team's own limits. */
export interface SlotTeam {
  id: number;
  schedulingType: 'collective' | 'roundRobin' | 'managed';
  isRRWeightsEnabled: boolean;
  /** The team's booking-count limits, in its zone and week; null when it has none. */
  limits: { count: IntervalLimits; timeZone: string; weekStart: number; includeManaged: boolean } | null;
}

/** An event type as the slot engine sees it, with its hosts and their schedules. */
export interface SlotEventType {
  /** null for a dynamic group event. */
  id: number | null;
  lengthInMinutes: number;
  lengthInMinutesOptions: number[];
  rules: EventRules;
  /** In the order given: the first fixed host organizes. */
  hosts: SlotHost[];
  organizerTimeZone: string;
  weekStart: number;
  team: SlotTeam | null;
}

/** The reference's dynamic group event: 30 minutes (15 to 90 on request), two hours' notice, everyone attends. */
const DYNAMIC_EVENT = { lengthInMinutes: 30, lengthInMinutesOptions: [15, 30, 45, 60, 90], minimumBookingNotice: 120 };

const weekdayNumber = (name: string) => Math.max(0, WEEKDAY_NAMES.indexOf(name as (typeof WEEKDAY_NAMES)[number]));

function scheduleOf(row: { scheduleTimeZone: string | null; availability: repo.SlotProfileRow['availability']; overrides: repo.SlotProfileRow['overrides'] }): HostSchedule | null {
  if (row.scheduleTimeZone === null || row.availability === null) return null;
  return { timeZone: row.scheduleTimeZone, weeklyRules: row.availability, overrides: row.overrides ?? [] };
}

export function slotEventTypeOf(row: repo.SlotProfileRow): SlotEventType {
  return slotEventTypeFrom(row, { id: row.ownerId, weekStart: row.ownerWeekStart }, scheduleOf(row));
}

type RuleColumns = Pick<
  repo.SlotProfileRow,
  | 'id' | 'lengthInMinutes' | 'lengthInMinutesOptions' | 'slotInterval' | 'offsetStart' | 'minimumBookingNotice' | 'beforeEventBuffer'
  | 'afterEventBuffer' | 'bookingWindow' | 'bookingLimitsCount' | 'bookingLimitsDuration' | 'onlyShowFirstAvailableSlot' | 'showOptimizedSlots' | 'seatsPerTimeSlot'
>;

function slotEventTypeFrom(row: RuleColumns, owner: { id: number; weekStart: string }, schedule: HostSchedule | null): SlotEventType {
  return {
    id: row.id,
    lengthInMinutes: row.lengthInMinutes,
    lengthInMinutesOptions: row.lengthInMinutesOptions,
    rules: {
      slotInterval: row.slotInterval,
      offsetStart: row.offsetStart,
      minimumBookingNotice: row.minimumBookingNotice,
      beforeEventBuffer: row.beforeEventBuffer,
      afterEventBuffer: row.afterEventBuffer,
      bookingWindow: row.bookingWindow as BookingWindow | null,
      bookingLimitsCount: nonEmpty(row.bookingLimitsCount),
      bookingLimitsDuration: nonEmpty(row.bookingLimitsDuration),
      onlyShowFirstAvailableSlot: row.onlyShowFirstAvailableSlot,
      showOptimizedSlots: row.showOptimizedSlots,
      seatsPerTimeSlot: row.seatsPerTimeSlot,
    },
    hosts: [{ userId: owner.id, schedule, fixed: true }],
    organizerTimeZone: schedule?.timeZone ?? 'UTC',
    weekStart: weekdayNumber(owner.weekStart),
    team: null,
  };
}

/**
 * A team event type: collective hosts all attend; round-robin hosts attend one per group, beside the
 * mandatory ones. Its zone (booking window, limits, "first slot of the day") is its schedule's, else
 * the team's.
 */
function teamSlotEventType(row: repo.TeamSlotProfileRow, hostRows: repo.TeamHostRow[]): SlotEventType {
  const schedulingType = row.schedulingType ?? 'collective';
  const roundRobin = schedulingType === 'roundRobin';
  const base = slotEventTypeFrom(row, { id: 0, weekStart: row.teamWeekStart }, null);
  const limits = nonEmpty(row.teamBookingLimits as IntervalLimits | null);
  return {
    ...base,
    // A managed type is a template: its members' children are booked, never the parent.
    hosts:
      schedulingType === 'managed'
        ? []
        : hostRows.map((host) => ({
            userId: host.userId,
            schedule: scheduleOf(host),
            fixed: !roundRobin || host.mandatory,
            groupId: host.groupId,
            priority: host.priority,
            weight: host.weight,
          })),
    organizerTimeZone: row.scheduleTimeZone ?? row.teamTimeZone,
    team: {
      id: row.teamId,
      schedulingType,
      isRRWeightsEnabled: row.isRRWeightsEnabled,
      limits: limits && { count: limits, timeZone: row.teamTimeZone, weekStart: weekdayNumber(row.teamWeekStart), includeManaged: row.includeManagedEventsInLimits },
    },
  };
}

async function loadTeamSlotEventType(db: Db, row: repo.TeamSlotProfileRow | undefined): Promise<SlotEventType | null> {
  if (!row) return null;
  return teamSlotEventType(row, await inSegmentOnly(db, row, await repo.listTeamHosts(db, row.id, row.teamId, row.assignAllTeamMembers)));
}

/**
 * Round robin by segment: the hosts whose organization attributes satisfy the event type's condition
 * (mandatory hosts always attend). Read with the profile, so slots and bookings (which re-check under
 * the hosts' locks with the same profile) see the same hosts; attribute changes are announced as
 * tenancy changes, which drop every team profile in every process.
 */
async function inSegmentOnly(db: Db, row: repo.TeamSlotProfileRow, hosts: repo.TeamHostRow[]): Promise<repo.TeamHostRow[]> {
  if (!row.assignRRMembersUsingSegment || row.schedulingType !== 'roundRobin' || !row.rrSegmentQuery || row.organizationId === null) return hosts;
  const values = memberValues(await heldValues(db, row.organizationId, hosts.map((host) => host.userId)));
  const inSegment = segmentMatcher(row.rrSegmentQuery);
  return hosts.filter((host) => host.mandatory || inSegment(values.get(host.userId) ?? {}));
}

/** An event type to book, its organizer and its slot rules, read at once. */
/** Whether a user answers to `username` within the organization of `organizationSlug` (by their profile there). */
export function organizationUserExists(db: Db, username: string, organizationSlug: string): Promise<boolean> {
  return repo.userExistsByUsername(db, username, organizationSlug);
}

export async function findBookingProfile(db: Db, by: { id: number } | { username: string; slug: string; organizationSlug?: string | undefined }) {
  const row = await repo.findBookingProfile(db, by);
  if (!row) return undefined;
  const { eventType, organizer } = row;
  return { eventType, organizer, slotEventType: slotEventTypeFrom(eventType, organizer, scheduleOf(row)) };
}

/** A reset limit is stored as `{}`: no limit. */
function nonEmpty(limits: IntervalLimits | null): IntervalLimits | null {
  return limits && Object.keys(limits).length > 0 ? limits : null;
}

async function dynamicEventType(db: Db, usernames: string[]): Promise<SlotEventType> {
  const rows = await repo.findDynamicHosts(db, usernames);
  // The first user named (and found) organizes.
  const order = usernames.map((name) => name.toLowerCase());
  rows.sort((a, b) => order.indexOf(a.username!.toLowerCase()) - order.indexOf(b.username!.toLowerCase()));
  const hosts = rows.map((row) => ({ userId: row.id, schedule: scheduleOf(row), fixed: true }));
  const organizer = rows[0];
  return {
    id: null,
    lengthInMinutes: DYNAMIC_EVENT.lengthInMinutes,
    lengthInMinutesOptions: DYNAMIC_EVENT.lengthInMinutesOptions,
    rules: { ...PLAIN_EVENT_RULES, minimumBookingNotice: DYNAMIC_EVENT.minimumBookingNotice },
    hosts,
    organizerTimeZone: (organizer && scheduleOf(organizer)?.timeZone) ?? 'UTC',
    weekStart: organizer ? weekdayNumber(organizer.weekStart) : 0,
    team: null,
  };
}

const eventTypeNotFound = () => notFound('event_type_not_found', 'Event Type not found');

/** svc groups no dynamic event by organization: a group inside one names something that does not exist. */
function assertNoOrganization(organizationSlug: string | undefined): void {
  if (organizationSlug !== undefined) throw notFound('organization_not_found', `Organization with slug ${organizationSlug} not found`);
}

/** A target inside an organization that does not exist: the reference's wording, its file name included. */
async function assertOrganizationExists(db: Db, organizationSlug: string | undefined): Promise<void> {
  if (organizationSlug !== undefined && !(await repo.organizationExistsBySlug(db, organizationSlug))) {
    throw notFound('organization_not_found', `slots-input.service.ts: Organization with slug ${organizationSlug} not found`);
  }
}


/** Reads through `cache` when one is given (the listing), straight from `db` otherwise (writes under lock). */
function cachedProfile(cache: AvailabilityCache | null, key: string, load: () => Promise<SlotEventType | null>): Promise<SlotEventType | null> {
  return cache ? cache.profile(key, load, hostIdsOf, (eventType) => eventType.team !== null) : load();
}

/** A personal event type by id, else a team one. */
async function loadSlotEventTypeById(db: Db, eventTypeId: number): Promise<SlotEventType | null> {
  const row = await repo.findSlotProfile(db, eventTypeId);
  if (row) return slotEventTypeOf(row);
  return loadTeamSlotEventType(db, await repo.findTeamSlotProfile(db, eventTypeId));
}

/** The key a target's profile (and its listings) are cached under. */
export function targetKey(target: SlotTarget): string {
  switch (target.kind) {
    case 'eventTypeId':
      return `id:${target.eventTypeId}`;
    case 'userEventType':
      return `slug:${target.organizationSlug === undefined ? '' : `${target.organizationSlug.toLowerCase()}:`}${target.username.toLowerCase()}/${target.eventTypeSlug.toLowerCase()}`;
    case 'teamEventType':
      return `team:${target.organizationSlug?.toLowerCase() ?? ''}/${target.teamSlug.toLowerCase()}/${target.eventTypeSlug.toLowerCase()}`;
    case 'dynamic':
      return `dynamic:${target.usernames.map((name) => name.toLowerCase()).join(',')}`;
  }
}

/** The event type `target` names as the cache keeps it, without reading the store (undefined: not kept). */
export function keptSlotEventType(cache: AvailabilityCache, target: SlotTarget): SlotEventType | undefined {
  return cache.keptProfile<SlotEventType>(targetKey(target));
}

export async function resolveSlotTarget(db: Db, target: SlotTarget, cache: AvailabilityCache | null = null): Promise<SlotEventType> {
  const key = targetKey(target);
  switch (target.kind) {
    case 'eventTypeId': {
      const eventType = await cachedProfile(cache, key, () => loadSlotEventTypeById(db, target.eventTypeId));
      if (!eventType) throw eventTypeNotFound();
      return eventType;
    }
    case 'userEventType': {
      const { username, eventTypeSlug, organizationSlug } = target;
      const load = async () => {
        const row = await repo.findSlotProfileBySlug(db, username, eventTypeSlug, organizationSlug);
        return row ? slotEventTypeOf(row) : null;
      };
      // A name within an organization is its profile's, which no announced change covers: read each time.
      const eventType = organizationSlug === undefined ? await cachedProfile(cache, key, load) : await load();
      if (eventType) return eventType;
      await assertOrganizationExists(db, organizationSlug);
      if (!(await repo.userExistsByUsername(db, username, organizationSlug))) throw notFound('user_not_found', `User with username ${username} not found`);
      throw eventTypeNotFound();
    }
    case 'teamEventType': {
      const { teamSlug, eventTypeSlug, organizationSlug } = target;
      const load = async () => loadTeamSlotEventType(db, await repo.findTeamSlotProfileBySlug(db, teamSlug, eventTypeSlug, organizationSlug));
      const eventType = await cachedProfile(cache, key, load);
      if (eventType) return eventType;
      await assertOrganizationExists(db, organizationSlug);
      if (!(await repo.teamExistsBySlug(db, teamSlug, organizationSlug))) throw notFound('team_not_found', `Team with slug ${teamSlug} not found`);
      throw eventTypeNotFound();
    }
    case 'dynamic': {
      assertNoOrganization(target.organizationSlug);
      // Only a group whose every user exists is kept: a user created later must join it.
      const complete = async () => {
        const eventType = await dynamicEventType(db, target.usernames);
        return eventType.hosts.length === target.usernames.length ? eventType : null;
      };
      return (await cachedProfile(cache, key, complete)) ?? dynamicEventType(db, target.usernames);
    }
  }
}

/** The slot length: the event length, or one of its options (`field` names the input for the error). */
export function chooseDuration(eventType: SlotEventType, requested: number | undefined, field = 'duration'): number {
  if (requested === undefined || requested === eventType.lengthInMinutes) return eventType.lengthInMinutes;
  if (!eventType.lengthInMinutesOptions.includes(requested)) {
    const allowed = eventType.lengthInMinutesOptions.length > 0 ? eventType.lengthInMinutesOptions : [eventType.lengthInMinutes];
    throw invalidField(field, `must be one of the event type's lengths: ${allowed.join(', ')}`, requested);
  }
  return requested;
}

/**
 * A booking or reservation must end before END_OF_TIME (9999-12-31T00:00:00Z): later instants cannot
 * be printed in every zone or stored. `starts` are the occurrences, each `minutes` long.
 */
export function assertEndsInTime(field: string, starts: readonly number[], minutes: number, sent: number): void {
  if (starts.every((start) => Number.isFinite(start) && start + minutes * MINUTE < END_OF_TIME)) return;
  const what = starts.length > 1 ? 'every occurrence of the series' : `a ${minutes}-minute booking`;
  throw invalidField(field, `must leave ${what} ending before ${new Date(END_OF_TIME).toISOString()}`, new Date(sent).toISOString());
}

