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

/** Adds `member` to a standalone team as `role`, through the owner's API key. */
export async function addTeamMember(api: TestApp, ownerKey: string, teamId: number, member: Member, role = 'MEMBER', accepted = true) {
  const response = await api.request('POST', `/v2/teams/${teamId}/memberships`, { key: ownerKey, body: { userId: member.user.id, role, accepted } });
  if (response.status !== 201) throw new Error(`addTeamMember: ${response.status} ${response.text}`);
  return response.body.data as { id: number };
}
