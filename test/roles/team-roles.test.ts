// Organization team roles: the reference's OrganizationsTeamsRolesController and
// OrganizationsTeamsRolesPermissionsController. Every route needs ORG_ADMIN (not TEAM_ADMIN) unless a custom
// role holds the PBAC permission; IsTeamInOrg answers 404 "IsTeamInOrg - Team (T) not found." for a team of
// another organization; permissions are those of the team scope (no '*.*', no organization.*).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMember, createOrganization, createOrgMember, type Member } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const INVALID = (permission: string) => `Permission '${permission}' must be a valid permission string in format 'resource.action' (e.g., 'eventType.read', 'booking.create')`;


async function orgTeam(api: TestApp, orgId: number, key: string, name: string): Promise<{ id: number }> {
  const response = await api.request('POST', `/v2/organizations/${orgId}/teams`, { key, body: { name } });
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

describe('organization team roles (/v2/organizations/{orgId}/teams/{teamId}/roles)', () => {
  let api: TestApp;
  let orgId: number;
  let owner: Member;
  let teamId: number;
  let roles: string;
  before(async () => {
    api = await createTestApp();
    const made = await createOrganization(api);
    orgId = made.organization.id;
    owner = made.owner;
    teamId = (await orgTeam(api, orgId, owner.apiKey, 'Sales')).id;
    roles = `/v2/organizations/${orgId}/teams/${teamId}/roles`;
  });
  after(() => api.close());

  test('an organization admin manages a team\'s roles, with exact outputs naming teamId; the team\'s roles are its own', async () => {
    const admin = await createOrgMember(api, orgId, owner.apiKey, 'ADMIN');
    const created = await api.request('POST', roles, { key: admin.apiKey, body: { name: 'Closers', color: '#123456', permissions: ['booking.readTeamBookings', 'team.read'] } });
    assert.equal(created.status, 201, created.text);
    const role = created.body.data;
    assert.deepEqual(role, {
      id: role.id,
      name: 'Closers',
      color: '#123456',
      description: null,
      teamId,
      type: 'CUSTOM',
      permissions: ['booking.readTeamBookings', 'team.read'],
      createdAt: role.createdAt,
      updatedAt: role.createdAt,
    });
    assert.ok(!('organizationId' in role));
    assert.deepEqual((await api.request('GET', `${roles}/${role.id}`, { key: admin.apiKey })).body.data, role);
    assert.deepEqual((await api.request('GET', roles, { key: admin.apiKey })).body.data, [role]);
    assert.deepEqual((await api.request('GET', `/v2/organizations/${orgId}/roles`, { key: admin.apiKey })).body.data, [], 'a team role is not an organization role');
    const orgView = await api.request('GET', `/v2/organizations/${orgId}/roles/${role.id}`, { key: admin.apiKey });
    assert.deepEqual([orgView.status, orgView.body.error.message], [404, `Role with id ${role.id} within team id ${orgId} not found`]);

    const patched = await api.request('PATCH', `${roles}/${role.id}`, { key: admin.apiKey, body: { description: 'Close deals', permissions: ['booking.read'] } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual({ ...patched.body.data, updatedAt: undefined }, { ...role, description: 'Close deals', permissions: ['booking.read'], updatedAt: undefined });

    const permissions = `${roles}/${role.id}/permissions`;
    assert.deepEqual((await api.request('POST', permissions, { key: admin.apiKey, body: { permissions: ['booking.readRecordings'] } })).body, {
      status: 'success',
      data: ['booking.read', 'booking.readRecordings'],
    });
    assert.deepEqual((await api.request('PUT', permissions, { key: admin.apiKey, body: { permissions: ['team.invite', 'team.remove', 'team.read'] } })).body.data, ['team.invite', 'team.remove', 'team.read']);
    assert.deepEqual((await api.request('DELETE', `${permissions}/team.invite`, { key: admin.apiKey })).status, 204);
    const several = await api.request('DELETE', `${permissions}?permissions=team.remove`, { key: admin.apiKey });
    assert.deepEqual([several.status, several.text], [204, '']);
    assert.deepEqual((await api.request('GET', permissions, { key: admin.apiKey })).body.data, ['team.read']);

    const deleted = await api.request('DELETE', `${roles}/${role.id}`, { key: admin.apiKey });
    assert.deepEqual([deleted.status, deleted.body.data.id, deleted.body.data.teamId], [200, role.id, teamId]);
    assert.equal((await api.request('GET', `${roles}/${role.id}`, { key: admin.apiKey })).status, 404);
  });

  test('validation follows the team scope; names are unique per team (400 naming name, as the reference); 400s name their field', async () => {
    for (const permission of ['*.*', 'organization.read', 'team.create', 'booking.readOrgBookings']) {
      const response = await api.request('POST', roles, { key: owner.apiKey, body: { name: 'Scoped', permissions: [permission] } });
      assert.deepEqual([response.status, response.body.error.message, response.body.error.details.errors[0].property], [400, INVALID(permission), 'permissions'], permission);
    }
    assert.equal((await api.request('POST', roles, { key: owner.apiKey, body: {} })).body.error.details.errors[0].property, 'name');
    assert.equal((await api.request('POST', roles, { key: owner.apiKey, body: { name: 'Dup' } })).status, 201);
    const taken = await api.request('POST', roles, { key: owner.apiKey, body: { name: 'DUP' } });
    assert.deepEqual([taken.status, taken.body.error.details.errors[0].property], [400, 'name']);
    const sibling = await orgTeam(api, orgId, owner.apiKey, 'Sibling');
    assert.equal((await api.request('POST', `/v2/organizations/${orgId}/teams/${sibling.id}/roles`, { key: owner.apiKey, body: { name: 'Dup' } })).status, 201, 'another team may use the name');
    const badRoleId = await api.request('GET', `${roles}/${'x'.repeat(65)}`, { key: owner.apiKey });
    assert.deepEqual([badRoleId.status, badRoleId.body.error.details.errors[0].property], [400, 'roleId']);
  });

  test('SYSTEM roles of a team are readable with team permissions and read-only', async () => {
    const admin = await api.request('GET', `${roles}/admin_role`, { key: owner.apiKey });
    assert.deepEqual([admin.status, admin.body.data.type, admin.body.data.teamId], [200, 'SYSTEM', null]);
    assert.ok(admin.body.data.permissions.includes('booking.readTeamBookings'));
    assert.ok(!admin.body.data.permissions.some((permission: string) => permission.startsWith('organization.')), 'no organization permissions in a team role');
    const patch = await api.request('PATCH', `${roles}/owner_role`, { key: owner.apiKey, body: { color: '#fff' } });
    assert.deepEqual([patch.status, patch.body.error.message], [400, 'Cannot update default roles']);
    const remove = await api.request('DELETE', `${roles}/admin_role`, { key: owner.apiKey });
    assert.deepEqual([remove.status, remove.body.error.message], [400, 'Cannot delete default roles']);
    const add = await api.request('POST', `${roles}/member_role/permissions`, { key: owner.apiKey, body: { permissions: ['team.update'] } });
    assert.deepEqual([add.status, add.body.error.message], [400, 'Cannot update default roles']);
  });

  test('refusals: outsider 403, organization MEMBER 403 even as TEAM ADMIN, team of another organization 404, role of another team 404', async () => {
    const outsider = await createOrganization(api);
    const member = await createOrgMember(api, orgId, owner.apiKey);
    const teamAdmin = await api.request('POST', `/v2/organizations/${orgId}/teams/${teamId}/memberships`, { key: owner.apiKey, body: { userId: member.user.id, role: 'ADMIN', accepted: true } });
    assert.equal(teamAdmin.status, 201, teamAdmin.text);
    const role = (await api.request('POST', roles, { key: owner.apiKey, body: { name: 'Guarded' } })).body.data;

    for (const [method, path, body] of [
      ['GET', roles, undefined],
      ['POST', roles, { name: 'Sneaky' }],
      ['PATCH', `${roles}/${role.id}`, { name: 'Sneaky' }],
      ['PUT', `${roles}/${role.id}/permissions`, { permissions: ['team.update'] }],
    ] as const) {
      const byOutsider = await api.request(method, path, { key: outsider.owner.apiKey, body });
      assert.deepEqual([byOutsider.status, byOutsider.body.error.message], [403, `RolesGuard - User is not part of the organization with id=${orgId}.`], `${method} ${path}`);
      const byMember = await api.request(method, path, { key: member.apiKey, body });
      assert.equal(byMember.status, 403, `${method} ${path}: a team ADMIN who is an organization MEMBER`);
      assert.match(byMember.body.error.message, /minimum required role=ORG_ADMIN/);
    }

    const foreignTeam = await orgTeam(api, outsider.organization.id, outsider.owner.apiKey, 'Foreign');
    for (const path of [`/v2/organizations/${orgId}/teams/${foreignTeam.id}/roles`, `/v2/organizations/${orgId}/teams/${foreignTeam.id}/roles/owner_role/permissions`]) {
      const crossed = await api.request('GET', path, { key: owner.apiKey });
      assert.deepEqual([crossed.status, crossed.body.error.message], [404, `IsTeamInOrg - Team (${foreignTeam.id}) not found.`], path);
    }

    const sibling = await orgTeam(api, orgId, owner.apiKey, 'Other Team');
    const siblingRole = (await api.request('POST', `/v2/organizations/${orgId}/teams/${sibling.id}/roles`, { key: owner.apiKey, body: { name: 'Theirs' } })).body.data;
    const message = `Role with id ${siblingRole.id} within team id ${teamId} not found`;
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['PATCH', '', { name: 'Mine' }],
      ['DELETE', '', undefined],
      ['POST', '/permissions', { permissions: ['team.read'] }],
      ['DELETE', '/permissions/team.read', undefined],
    ] as const) {
      const response = await api.request(method, `${roles}/${siblingRole.id}${suffix}`, { key: owner.apiKey, body });
      assert.deepEqual([response.status, response.body.error.message], [404, message], `${method} ${suffix}`);
    }
  });

  test('a custom team role with role.read lets a team member read the team\'s roles (PBAC on the team)', async () => {
    const member = await createOrgMember(api, orgId, owner.apiKey);
    const joined = await api.request('POST', `/v2/organizations/${orgId}/teams/${teamId}/memberships`, { key: owner.apiKey, body: { userId: member.user.id, role: 'MEMBER', accepted: true } });
    assert.equal(joined.status, 201, joined.text);
    assert.equal((await api.request('GET', roles, { key: member.apiKey })).status, 403);
    const role = (await api.request('POST', roles, { key: owner.apiKey, body: { name: 'Team Role Readers', permissions: ['role.read'] } })).body.data;
    const assigned = await api.request('PATCH', `/v2/organizations/${orgId}/teams/${teamId}/memberships/${joined.body.data.id}`, { key: owner.apiKey, body: { roleId: role.id } });
    assert.equal(assigned.status, 200, assigned.text);
    assert.equal((await api.request('GET', roles, { key: member.apiKey })).status, 200);
    assert.equal((await api.request('GET', `/v2/organizations/${orgId}/roles`, { key: member.apiKey })).status, 403, 'a team role grants nothing on the organization');
    assert.equal((await api.request('DELETE', `${roles}/${role.id}/permissions?permissions=role.read`, { key: owner.apiKey })).status, 204);
    assert.equal((await api.request('GET', roles, { key: member.apiKey })).status, 403);
  });
});
