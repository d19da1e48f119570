// Team scheduling fixtures made through the API, as a client would.
import { createHost, type Host } from '../slots/helpers.js';
import { addTeamMember, createTeam } from './tenancy.js';
import type { TestApp } from './test-app.js';

/**
 * Creates a team event type through POST /v2/teams/{teamId}/event-types and returns `data`: the event
 * type, or for a managed one the parent followed by its children. Throws on anything but 201.
 */
export async function createTeamEventType(api: TestApp, apiKey: string, teamId: number, body: Record<string, unknown>): Promise<any> {
  const response = await api.request('POST', `/v2/teams/${teamId}/event-types`, { key: apiKey, body });
  if (response.status !== 201) throw new Error(`createTeamEventType: ${response.status} ${response.text}`);
  return response.body.data;
}

/** A standalone team owned by a new UTC user, with `hosts` as accepted members. */
export async function createTeamWithHosts(api: TestApp, hosts: readonly Host[]) {
  const asMember = (host: Host) => ({ user: { id: host.userId, email: '', username: host.username }, apiKey: host.apiKey });
  const owner = await createHost(api, 'UTC');
  const team = await createTeam(api, asMember(owner));
  for (const host of hosts) await addTeamMember(api, owner.apiKey, team.id, asMember(host));
  return { team, owner };
}

/**
 * A team of `members` with one event type of it, made by the team's owner: no notice, a slug of its
 * own, and every member a host unless `body` names the hosts.
 */
export async function createTeamWithEventType(api: TestApp, members: readonly Host[], body: Record<string, unknown>) {
  const { team, owner } = await createTeamWithHosts(api, members);
  const eventType = await createTeamEventType(api, owner.apiKey, team.id, {
    slug: `team-type-${Math.random().toString(36).slice(2, 8)}`,
    minimumBookingNotice: 0,
    hosts: members.map((member) => ({ userId: member.userId })),
    ...body,
  });
  return { team, owner, eventType };
}
