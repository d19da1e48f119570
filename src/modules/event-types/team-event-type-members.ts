// What a team event type's hosts and managed children are made of, and how they follow membership:
// shared by the team event-type service and the membership hooks the team services call.
import type { Db } from '../../db/client.js';
import type { SchedulingType } from '../../db/schema.js';
import type { EventTypeRow, EventTypeState } from './event-types.repository.js';
import { stateOf } from './event-type-changes.js';
import * as repo from './team-event-types.repository.js';
import type { NewHost } from './team-event-types.repository.js';
import type { HostChange } from './team-event-types.service.js';

export const DEFAULT_PRIORITY = 2;
export const DEFAULT_WEIGHT = 100;

/**
 * The fields a managed parent imposes on its children. As in the reference, everything is locked
 * except locations and the schedule (its `unlockedManagedEventTypeProps`; `MANAGED_CHILD_UNLOCKED_FIELDS`),
 * which each member keeps.
 * A child behaves as its member's personal event type: no team, no scheduling type.
 */
function lockedFields(parent: EventTypeRow): Partial<EventTypeState> {
  const { locations: _locations, scheduleId: _scheduleId, teamId: _teamId, parentId: _parentId, schedulingType: _type, assignAllTeamMembers: _all, ...locked } = stateOf(parent);
  return locked;
}

export function childState(parent: EventTypeRow): EventTypeState {
  return { ...stateOf(parent), teamId: null, parentId: parent.id, schedulingType: null, assignAllTeamMembers: false, scheduleId: null };
}

export function hostRow(type: SchedulingType, host: HostChange): NewHost {
  // The reference makes every collective host fixed, at medium priority.
  if (type === 'collective') return { userId: host.userId, mandatory: true, priority: DEFAULT_PRIORITY, weight: host.weight ?? DEFAULT_WEIGHT };
  return { userId: host.userId, mandatory: host.mandatory ?? false, priority: host.priority ?? DEFAULT_PRIORITY, weight: host.weight ?? DEFAULT_WEIGHT };
}


/** Creates, updates (locked fields) and removes children so that exactly `ownerIds` have one. */
export async function syncChildren(db: Db, parent: EventTypeRow, ownerIds: number[]): Promise<void> {
  const current = (await repo.listChildren(db, [parent.id])).map(({ child }) => child.userId!);
  await repo.deleteChildren(db, parent.id, current.filter((userId) => !ownerIds.includes(userId)));
  await repo.updateChildren(db, parent.id, lockedFields(parent));
  for (const userId of ownerIds.filter((id) => !current.includes(id))) await repo.insertEventTypeOf(db, userId, childState(parent));
}

/**
 * Membership hook (called by the team and organization membership services, in their transaction):
 * makes the user's hosts and managed children of the team follow their membership. An accepted member
 * is a host of every collective and round-robin type with `assignAllTeamMembers` and has a child of
 * every such managed type; anyone else is host of none and has no child of the team's managed types.
 * The hosts of "all members" types are stored rows, kept here, so that slots and bookings read one
 * table whatever the assignment.
 */
export async function syncTeamMemberEventTypes(db: Db, teamId: number, userId: number): Promise<void> {
  if (!(await repo.isAcceptedMember(db, teamId, userId))) {
    await repo.deleteHostOfTeam(db, teamId, userId);
    await repo.deleteChildrenOfTeam(db, teamId, userId);
    return;
  }
  for (const eventType of await repo.listAssignAllEventTypes(db, teamId)) {
    if (eventType.schedulingType !== 'managed') {
      await repo.insertHostIfMissing(db, eventType.id, hostRow(eventType.schedulingType!, { userId }));
    } else if (!(await repo.hasChild(db, eventType.id, userId)) && (await repo.usersWithSlug(db, [userId], eventType.slug)).length === 0) {
      // A member who has an event type of their own with the slug keeps it and gets no child.
      await repo.insertEventTypeOf(db, userId, childState(eventType));
    }
  }
}

/** The same for every team of an organization (a member leaving the organization leaves its teams). */
export async function syncOrganizationMemberEventTypes(db: Db, organizationId: number, userId: number): Promise<void> {
  for (const teamId of await repo.teamIdsOfOrganization(db, organizationId)) await syncTeamMemberEventTypes(db, teamId, userId);
}
