// Organizations, teams and members for tests, made through the API as a user would.
import { ADMIN_API_KEY, type TestApp } from './test-app.js';

export interface Member {
  user: { id: number; email: string; username: string };
  apiKey: string;
}

let counter = 0;
const tag = () => `${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 7)}`;

export async function createMember(api: TestApp): Promise<Member> {
  return api.createUser();
}

/** An organization owned by a new user (or `owner`), made by the system admin. */
export async function createOrganization(api: TestApp, options: { owner?: Member; isPlatform?: boolean; name?: string } = {}) {
  const owner = options.owner ?? (await createMember(api));
  const name = options.name ?? `Org ${tag()}`;
  const response = await api.request('POST', '/v2/admin/organizations', { key: ADMIN_API_KEY, body: { name, ownerId: owner.user.id, isPlatform: options.isPlatform ?? false } });
  if (response.status !== 201) throw new Error(`createOrganization: ${response.status} ${response.text}`);
  return { organization: response.body.data as { id: number; slug: string; name: string }, owner };
}

/** A standalone team created by `owner` through POST /v2/teams. */
export async function createTeam(api: TestApp, owner: Member, body: Record<string, unknown> = {}) {
  const response = await api.request('POST', '/v2/teams', { key: owner.apiKey, body: { name: `Team ${tag()}`, ...body } });
  if (response.status !== 201) throw new Error(`createTeam: ${response.status} ${response.text}`);
  return response.body.data as { id: number; slug: string; name: string; parentId: number | null };
}

/**
 * The invitee's consent: `member` accepts the pending membership `path` names (`.../memberships/{id}`),
 * as a user invited by someone else must before the membership counts.
 */
export async function acceptMembership(api: TestApp, member: Member, path: string) {
  const response = await api.request('POST', `${path}/accept`, { key: member.apiKey });
  if (response.status !== 200) throw new Error(`acceptMembership: ${response.status} ${response.text}`);
  return response.body.data as { id: number; accepted: boolean };
}

/** Adds `member` to a standalone team as `role`, through the owner's API key; with `accepted`, the member accepts the invitation. */
export async function addTeamMember(api: TestApp, ownerKey: string, teamId: number, member: Member, role = 'MEMBER', accepted = true) {
  const response = await api.request('POST', `/v2/teams/${teamId}/memberships`, { key: ownerKey, body: { userId: member.user.id, role, accepted } });
  if (response.status !== 201) throw new Error(`addTeamMember: ${response.status} ${response.text}`);
  const membership = response.body.data as { id: number; accepted: boolean };
  if (accepted && !membership.accepted) return acceptMembership(api, member, `/v2/teams/${teamId}/memberships/${membership.id}`);
  return membership;
}

/** A new user added to the organization as `role` through the organization memberships route, who accepts the invitation. */
export async function createOrgMember(api: TestApp, orgId: number, adminKey: string, role = 'MEMBER'): Promise<Member & { membershipId: number }> {
  const member = await createMember(api);
  const response = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: adminKey, body: { userId: member.user.id, role, accepted: true } });
  if (response.status !== 201) throw new Error(`createOrgMember: ${response.status} ${response.text}`);
  if (!response.body.data.accepted) await acceptMembership(api, member, `/v2/organizations/${orgId}/memberships/${response.body.data.id}`);
  return { ...member, membershipId: response.body.data.id };
}

/**
 * Marks a user (made by the system admin, so with an API key) as created by the organization, as
 * POST /v2/organizations/{orgId}/users would have: its admins may then change or delete the account.
 */
export async function markCreatedByOrganization(api: TestApp, userId: number, orgId: number): Promise<void> {
  await api.runtime.ctx.database.db.execute(`update users set organization_id = ${Number(orgId)} where id = ${Number(userId)}` as never);
}
