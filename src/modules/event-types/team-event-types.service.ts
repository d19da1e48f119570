import { assertSegmentQuery } from '../attributes/attribute-segments.js';
import { attributeSlugsOf } from '../attributes/attributes.repository.js';
import type { ChangeEvent, ChangeFeed } from '../../db/change-feed.js';
import type { Database, Db } from '../../db/client.js';
import type { EventTypeEmailSettings, SchedulingType } from '../../db/schema.js';
import { badRequest, DomainError, fieldRejected, invalidField, notFound } from '../../lib/errors.js';
import { emptiedAsStandard } from '../calendar-invites/calendar-invites.service.js';
import { membershipPath } from '../teams/membership-invitations.service.js';
import type { CalendarInvites } from './event-type-model.js';
import { type EventTypeRow, type EventTypeState, updateEventType } from './event-types.repository.js';
import {
  applyChanges,
  assertRules,
  type EventTypeChanges,
  initialState,
  stateOf,
} from './event-type-changes.js';
import { assertCalendarFieldsUsable } from './event-type-calendars.js';
import { assertLocationAppsInstalled } from '../conferencing/conferencing.service.js';
import { assertCanCharge } from '../payments/event-type-prices.js';
import { hostRow, syncChildren } from './team-event-type-members.js';
import * as repo from './team-event-types.repository.js';
import { type TeamEventTypeView, viewOf, viewsOf } from './team-event-type-views.js';
import type { NewHost, TeamRow } from './team-event-types.repository.js';

export type { TeamEventTypeView };

export interface HostChange {
  userId: number;
  mandatory?: boolean | undefined;
  /** 0 (lowest) to 4 (highest). */
  priority?: number | undefined;
  weight?: number | undefined;
}

/** A parsed team create or update body: the personal fields plus the team's. */
export interface TeamEventTypeChanges extends EventTypeChanges {
  schedulingType?: SchedulingType | undefined;
  hosts?: HostChange[] | undefined;
  assignAllTeamMembers?: boolean | undefined;
  emailSettings?: Partial<EventTypeEmailSettings> | undefined;
  rescheduleWithSameRoundRobinHost?: boolean | undefined;
  assignRRMembersUsingSegment?: boolean | undefined;
  /** null removes the condition. */
  rrSegmentQuery?: Record<string, unknown> | null | undefined;
  isRRWeightsEnabled?: boolean | undefined;
}

export interface CreateTeamEventTypeInput extends TeamEventTypeChanges {
  title: string;
  slug: string;
  lengthInMinutes: number;
  schedulingType: SchedulingType;
}

interface Deps {
  database: Database;
  changes: ChangeFeed;
}


const eventTypeNotFound = (id: number) => notFound('event_type_not_found', `Event type with id ${id} not found`);

/** The reference also lets its internal upper-case names through. */
export function normalizeSchedulingType(value: string): SchedulingType {
  if (value === 'COLLECTIVE') return 'collective';
  if (value === 'ROUND_ROBIN') return 'roundRobin';
  if (value === 'MANAGED') return 'managed';
  return value as SchedulingType;
}

/**
 * Each host named once, and only accepted members of the team. Anyone else is the reference's 404
 * (its validateHosts); a member who has not accepted yet is told which membership waits for them and how
 * they accept it, since svc makes nobody a host without their consent.
 */
async function assertHostsAreMembers(db: Db, team: TeamRow, hosts: HostChange[]): Promise<void> {
  const seen = new Set<number>();
  for (const host of hosts) {
    if (seen.has(host.userId)) throw fieldRejected('hosts', 'duplicate_host', `hosts names user ${host.userId} more than once`, host.userId);
    seen.add(host.userId);
  }
  const held = await repo.membershipsOfUsers(db, team.id, [...seen]);
  const accepted = new Set(held.filter((membership) => membership.accepted).map((membership) => membership.userId));
  const invalid = hosts.map((host) => host.userId).filter((userId) => !accepted.has(userId));
  if (invalid.length === 0) return;
  const pending = held
    .filter((membership) => !membership.accepted)
    .sort((a, b) => invalid.indexOf(a.userId) - invalid.indexOf(b.userId))
    .map((membership) => ({ userId: membership.userId, membershipId: membership.id, accept: `POST ${membershipPath(team, membership.id)}/accept` }));
  const waiting = pending.map(({ userId, membershipId, accept }) => ` The membership of user ${userId} (id ${membershipId}) is pending until they accept it: ${accept}, with their own credentials.`);
  throw new DomainError('not_found', 'host_not_team_member', `Invalid hosts: ${invalid.join(', ')} are not members of team with id ${team.id}.${waiting.join('')}`, {
    hosts: invalid,
    ...(pending.length > 0 ? { pendingMemberships: pending } : {}),
  });
}

/**
 * Spec 2.1: `hosts` and `assignAllTeamMembers` exclude each other for collective and managed types;
 * round robin accepts both, the hosts then only marking fixed (mandatory) hosts.
 */
function assertHostsOrAssignAll(type: SchedulingType, hosts: HostChange[] | undefined, assignAll: boolean): void {
  if (assignAll && hosts && hosts.length > 0 && type !== 'roundRobin') {
    throw invalidField('hosts', `cannot be sent with assignAllTeamMembers: true for ${type} event types (provide either hosts or assignAllTeamMembers)`, hosts.map((host) => host.userId));
  }
}

/** The host rows of a collective or round-robin type. */
async function hostRows(db: Db, teamId: number, type: SchedulingType, hosts: HostChange[] | undefined, assignAll: boolean): Promise<NewHost[]> {
  if (!assignAll) return (hosts ?? []).map((host) => hostRow(type, host));
  const fixed = new Map((hosts ?? []).filter((host) => host.mandatory === true).map((host) => [host.userId, host]));
  return (await repo.acceptedMemberIds(db, teamId)).map((userId) => hostRow(type, fixed.get(userId) ?? { userId }));
}

/** `emailSettings` exists only on organization team event types. */
function applyEmailSettings(team: TeamRow, current: EventTypeEmailSettings | null, sent: Partial<EventTypeEmailSettings> | undefined): EventTypeEmailSettings | null {
  if (sent === undefined) return current;
  if (team.parentId === null) throw invalidField('emailSettings', 'is only available for event types of organization teams', sent);
  if (sent.disableEmailsToAttendees === undefined && sent.disableEmailsToHosts === undefined) return current;
  return {
    disableEmailsToAttendees: sent.disableEmailsToAttendees ?? current?.disableEmailsToAttendees ?? false,
    disableEmailsToHosts: sent.disableEmailsToHosts ?? current?.disableEmailsToHosts ?? false,
  };
}

async function assertSlugFree(db: Db, teamId: number, slug: string | undefined, exceptId?: number): Promise<void> {
  if (slug !== undefined && (await repo.isTeamSlugTaken(db, teamId, slug, exceptId))) {
    throw fieldRejected('slug', 'event_type_slug_taken', 'Team event type with this slug already exists', slug);
  }
}

/** A team event type's schedule is the team's own or one of its hosts'. */
async function assertScheduleOfTeam(db: Db, teamId: number, scheduleId: number | undefined, hostIds: number[]): Promise<void> {
  if (scheduleId === undefined) return;
  if (!(await repo.scheduleExists(db, scheduleId))) throw notFound('schedule_not_found', `Schedule with id ${scheduleId} not found`);
  if (!(await repo.isScheduleOfTeamOrUsers(db, scheduleId, teamId, hostIds))) {
    throw invalidField('scheduleId', `must be the schedule of team ${teamId} or of one of the event type's hosts`, scheduleId);
  }
}

/** A member who already has an event type of their own with the slug cannot get a child with it (unique per user). */
async function assertOwnersCanTakeSlug(db: Db, ownerIds: number[], slug: string, parentId?: number): Promise<void> {
  const taken = await repo.usersWithSlug(db, ownerIds, slug, parentId);
  if (taken.length > 0) {
    throw fieldRejected('hosts', 'host_slug_taken', `Users ${taken.join(', ')} already have an event type with the slug "${slug}": a managed event type's members get one with its slug.`, taken);
  }
}

/** The team fields split from the personal ones, which `applyChanges` knows. */
function splitTeamFields(changes: TeamEventTypeChanges) {
  const { hosts, emailSettings, schedulingType, assignAllTeamMembers, rescheduleWithSameRoundRobinHost, isRRWeightsEnabled, assignRRMembersUsingSegment, rrSegmentQuery, ...personal } = changes;
  return { hosts, emailSettings, schedulingType, assignAllTeamMembers, rescheduleWithSameRoundRobinHost, isRRWeightsEnabled, segment: { assignRRMembersUsingSegment, rrSegmentQuery }, personal };
}

/**
 * The segment settings as they will be stored: a segment is for round robin in an organization's team,
 * and its condition names only attributes of that organization (a 400 naming the field otherwise).
 */
async function settledSegment(
  db: Db,
  team: TeamRow,
  schedulingType: string,
  current: { assignRRMembersUsingSegment: boolean; rrSegmentQuery: Record<string, unknown> | null },
  sent: { assignRRMembersUsingSegment?: boolean | undefined; rrSegmentQuery?: Record<string, unknown> | null | undefined },
): Promise<{ assignRRMembersUsingSegment: boolean; rrSegmentQuery: Record<string, unknown> | null }> {
  const using = sent.assignRRMembersUsingSegment ?? current.assignRRMembersUsingSegment;
  const query = sent.rrSegmentQuery === undefined ? current.rrSegmentQuery : sent.rrSegmentQuery;
  if (using && schedulingType !== 'roundRobin') throw invalidField('assignRRMembersUsingSegment', 'is for round-robin event types only', true);
  if (using && team.parentId === null) throw invalidField('assignRRMembersUsingSegment', "is for the teams of an organization: hosts are chosen by the organization's attributes", true);
  if (sent.rrSegmentQuery !== undefined && sent.rrSegmentQuery !== null) {
    if (team.parentId === null) throw invalidField('rrSegmentQuery', "is for the teams of an organization: it reads the organization's attributes");
    assertSegmentQuery(sent.rrSegmentQuery, await attributeSlugsOf(db, team.parentId), 'rrSegmentQuery');
  }
  return { assignRRMembersUsingSegment: using, rrSegmentQuery: query };
}

type Announce = (event: ChangeEvent) => Promise<void>;

/** The event type's cached slot profile goes, and so do its hosts' (a host's own slots may change). */
async function announceChanges(announce: Announce, eventTypeId: number, userIds: Iterable<number>): Promise<void> {
  await announce({ kind: 'teamEventType', eventTypeId });
  for (const userId of new Set(userIds)) await announce({ kind: 'availability', userId });
}

/** Spec 2.9: a custom template emptied by sanitization inherits the organization's default, or is `standard` without one. */
function settledInvites(team: TeamRow, invites: CalendarInvites | null, emptied: readonly ('host' | 'guest')[] | undefined): CalendarInvites | null {
  return team.isOrganization || team.parentId !== null ? invites : emptiedAsStandard(invites, emptied);
}

/**
 * Creates a team event type. A managed one gets a child per member it is assigned to, and the answer
 * is the parent followed by its children, as the reference's.
 */
export async function createTeamEventType(deps: Deps, team: TeamRow, input: CreateTeamEventTypeInput): Promise<TeamEventTypeView[]> {
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    const { hosts, emailSettings, schedulingType, assignAllTeamMembers, rescheduleWithSameRoundRobinHost, isRRWeightsEnabled, segment, personal } = splitTeamFields(input);
    const assignAll = assignAllTeamMembers ?? false;
    assertCalendarFieldsUsable(personal, 'team');
    await assertLocationAppsInstalled(tx, { kind: 'team', teamId: team.id }, personal.locations);
    await assertCanCharge(tx, { kind: 'team', teamId: team.id }, personal.price);
    assertHostsOrAssignAll(schedulingType!, hosts, assignAll);
    if (hosts) await assertHostsAreMembers(tx, team, hosts);
    await assertSlugFree(tx, team.id, personal.slug);
    const state: EventTypeState = {
      ...applyChanges(initialState(), personal),
      teamId: team.id,
      schedulingType: schedulingType!,
      assignAllTeamMembers: assignAll,
      rescheduleWithSameRoundRobinHost: rescheduleWithSameRoundRobinHost ?? false,
      isRRWeightsEnabled: isRRWeightsEnabled ?? false,
      ...(await settledSegment(tx, team, schedulingType!, { assignRRMembersUsingSegment: false, rrSegmentQuery: null }, segment)),
      emailSettings: applyEmailSettings(team, null, emailSettings),
    };
    state.calendarInvites = settledInvites(team, state.calendarInvites, personal.emptiedCalendarInvites);
    assertRules(state, personal);

    if (schedulingType === 'managed') {
      const ownerIds = assignAll ? await repo.acceptedMemberIds(tx, team.id) : (hosts ?? []).map((host) => host.userId);
      await assertOwnersCanTakeSlug(tx, ownerIds, state.slug);
      await assertScheduleOfTeam(tx, team.id, personal.scheduleId, ownerIds);
      const parent = await repo.insertEventTypeOf(tx, null, state);
      await syncChildren(tx, parent, ownerIds);
      await announceChanges(announce, parent.id, ownerIds);
      const children = (await repo.listChildren(tx, [parent.id])).map(({ child }) => ({ eventType: child, team, hosts: [] }));
      return [await viewOf(tx, parent, team), ...children];
    }

    const rows = await hostRows(tx, team.id, schedulingType!, hosts, assignAll);
    await assertScheduleOfTeam(tx, team.id, personal.scheduleId, rows.map((host) => host.userId));
    const eventType = await repo.insertEventTypeOf(tx, null, state);
    await repo.replaceHosts(tx, eventType.id, rows);
    await announceChanges(announce, eventType.id, rows.map((host) => host.userId));
    return [await viewOf(tx, eventType, team)];
  });
}

export async function getTeamEventType(db: Db, team: TeamRow, id: number): Promise<TeamEventTypeView> {
  const row = await repo.findTeamEventType(db, team.id, id);
  if (!row) throw eventTypeNotFound(id);
  return viewOf(db, row, team);
}

export interface TeamEventTypesQuery {
  eventSlug?: string | undefined;
  sortCreatedAt?: 'asc' | 'desc' | undefined;
}

/** The team's event types (public, as in the reference); a team that does not exist has none. */
export async function listTeamEventTypes(db: Db, teamId: number, query: TeamEventTypesQuery): Promise<TeamEventTypeView[]> {
  const team = await repo.findTeam(db, teamId);
  if (!team || team.isOrganization) return [];
  const rows = await repo.listEventTypesOfTeams(db, [teamId], { slug: query.eventSlug, order: query.sortCreatedAt ?? 'asc' });
  return viewsOf(db, rows, new Map([[team.id, team]]));
}

/** `GET /v2/organizations/{orgId}/teams/event-types`: every event type of the organization's teams. */
export async function listOrganizationTeamsEventTypes(
  db: Db,
  organizationId: number,
  query: { skip: number; take: number; sortCreatedAt?: 'asc' | 'desc' | undefined },
): Promise<TeamEventTypeView[]> {
  const teamIds = await repo.teamIdsOfOrganization(db, organizationId);
  const rows = await repo.listEventTypesOfTeams(db, teamIds, { order: query.sortCreatedAt ?? 'asc', page: { skip: query.skip, take: query.take } });
  const teams = await repo.findTeams(db, [...new Set(rows.map((row) => row.teamId!))]);
  return viewsOf(db, rows, new Map(teams.map((team) => [team.id, team])));
}

/** Switching between collective and round robin needs the hosts of the new type (the reference's 400); managed stays managed. */
function nextSchedulingType(current: SchedulingType, sent: SchedulingType | undefined, changes: TeamEventTypeChanges): SchedulingType {
  if (sent === undefined || sent === current) return current;
  if (sent === 'managed' || current === 'managed') {
    throw invalidField('schedulingType', `cannot change a ${current} event type into ${sent}: delete it and create a new one`, sent);
  }
  if (changes.hosts === undefined && changes.assignAllTeamMembers !== true) {
    throw badRequest(
      'hosts_required',
      "Hosts required when switching schedulingType. Please provide 'hosts' or set 'assignAllTeamMembers: true' to specify how hosts should be configured for the new scheduling type.",
    );
  }
  return sent;
}

export async function updateTeamEventType(deps: Deps, team: TeamRow, id: number, changes: TeamEventTypeChanges): Promise<TeamEventTypeView> {
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    const row = await repo.lockTeamEventType(tx, team.id, id);
    if (!row) throw eventTypeNotFound(id);
    const { hosts, emailSettings, schedulingType, assignAllTeamMembers, rescheduleWithSameRoundRobinHost, isRRWeightsEnabled, segment, personal } = splitTeamFields(changes);
    const type = nextSchedulingType(row.schedulingType!, schedulingType, changes);
    // Hosts sent alone to a collective or managed type replace "all members".
    const assignAll = assignAllTeamMembers ?? (hosts !== undefined && type !== 'roundRobin' ? false : row.assignAllTeamMembers);
    assertCalendarFieldsUsable(personal, 'team');
    await assertLocationAppsInstalled(tx, { kind: 'team', teamId: team.id }, personal.locations);
    await assertCanCharge(tx, { kind: 'team', teamId: team.id }, personal.price);
    if (assignAllTeamMembers !== undefined || hosts !== undefined) assertHostsOrAssignAll(type, hosts, assignAll);
    if (hosts) await assertHostsAreMembers(tx, team, hosts);
    await assertSlugFree(tx, team.id, personal.slug, id);
    const state: EventTypeState = {
      ...applyChanges(stateOf(row), personal),
      schedulingType: type,
      assignAllTeamMembers: assignAll,
      rescheduleWithSameRoundRobinHost: rescheduleWithSameRoundRobinHost ?? row.rescheduleWithSameRoundRobinHost,
      isRRWeightsEnabled: isRRWeightsEnabled ?? row.isRRWeightsEnabled,
      ...(await settledSegment(tx, team, type, row, segment)),
      emailSettings: applyEmailSettings(team, row.emailSettings, emailSettings),
    };
    state.calendarInvites = settledInvites(team, state.calendarInvites, personal.emptiedCalendarInvites);
    assertRules(state, personal);

    const before = type === 'managed' ? (await repo.listChildren(tx, [id])).map(({ child }) => child.userId!) : (await repo.listHostRows(tx, id)).map((host) => host.userId);
    let after: number[];
    if (type === 'managed') {
      after = assignAll ? await repo.acceptedMemberIds(tx, team.id) : hosts ? hosts.map((host) => host.userId) : before;
      await assertOwnersCanTakeSlug(tx, after, state.slug, id);
      await assertScheduleOfTeam(tx, team.id, personal.scheduleId, after);
      const updated = await updateEventType(tx, id, state);
      await syncChildren(tx, updated, after);
    } else {
      const recompute = hosts !== undefined || assignAllTeamMembers === true || type !== row.schedulingType;
      const rows = recompute ? await hostRows(tx, team.id, type, hosts ?? (await currentHostChanges(tx, id)), assignAll) : undefined;
      after = rows ? rows.map((host) => host.userId) : before;
      await assertScheduleOfTeam(tx, team.id, personal.scheduleId, after);
      await updateEventType(tx, id, state);
      if (rows) await repo.replaceHosts(tx, id, rows);
    }
    await announceChanges(announce, id, [...before, ...after]);
    return viewOf(tx, (await repo.findTeamEventType(tx, team.id, id))!, team);
  });
}

/** The current hosts as a host list, to recompute their rows for a new scheduling type. */
async function currentHostChanges(db: Db, eventTypeId: number): Promise<HostChange[]> {
  return (await repo.listHostRows(db, eventTypeId)).map(({ userId, mandatory, priority, weight }) => ({ userId, mandatory, priority, weight }));
}

/** Deletes the event type with its hosts and, for a managed one, its children. */
export async function deleteTeamEventType(deps: Deps, team: TeamRow, id: number): Promise<EventTypeRow> {
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    const row = await repo.lockTeamEventType(tx, team.id, id);
    if (!row) throw eventTypeNotFound(id);
    const affected = row.schedulingType === 'managed' ? (await repo.listChildren(tx, [id])).map(({ child }) => child.userId!) : (await repo.listHostRows(tx, id)).map((host) => host.userId);
    await repo.deleteEventType(tx, id);
    await announceChanges(announce, id, affected);
    return row;
  });
}
