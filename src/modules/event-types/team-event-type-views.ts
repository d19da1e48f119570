// A team event type as it is read: its row, its team and its hosts (a managed parent's are its
// children's owners), several at once in two queries.
import type { Db } from '../../db/client.js';
import type { EventTypeRow } from './event-types.repository.js';
import { DEFAULT_PRIORITY, DEFAULT_WEIGHT } from './team-event-type-members.js';
import * as repo from './team-event-types.repository.js';
import type { HostView, TeamRow } from './team-event-types.repository.js';

/**
 * A team event type with its team and hosts. A managed parent's hosts are its children's owners; a
 * managed child (returned by a managed create) has the parent's team.
 */
export interface TeamEventTypeView {
  eventType: EventTypeRow;
  team: TeamRow;
  hosts: HostView[];
}

/** Hosts of a managed parent as outputs show them: its children's owners. */
async function childOwnersAsHosts(db: Db, parentIds: number[]): Promise<HostView[]> {
  const children = await repo.listChildren(db, parentIds);
  return children.map(({ child, name, username, avatarUrl }) => ({
    eventTypeId: child.parentId!,
    userId: child.userId!,
    mandatory: false,
    priority: DEFAULT_PRIORITY,
    weight: DEFAULT_WEIGHT,
    name,
    username,
    avatarUrl,
  }));
}

/** Views of several event types, hosts loaded in two queries. */
export async function viewsOf(db: Db, rows: EventTypeRow[], teamsById: Map<number, TeamRow>): Promise<TeamEventTypeView[]> {
  const managed = rows.filter((row) => row.schedulingType === 'managed').map((row) => row.id);
  const others = rows.filter((row) => row.schedulingType !== 'managed').map((row) => row.id);
  const hosts = [...(await repo.listHosts(db, others)), ...(await childOwnersAsHosts(db, managed))];
  return rows.map((eventType) => ({
    eventType,
    team: teamsById.get(eventType.teamId!)!,
    hosts: hosts.filter((host) => host.eventTypeId === eventType.id),
  }));
}

export async function viewOf(db: Db, row: EventTypeRow, team: TeamRow): Promise<TeamEventTypeView> {
  return (await viewsOf(db, [row], new Map([[team.id, team]])))[0]!;
}
