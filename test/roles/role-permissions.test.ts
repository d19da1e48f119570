// The permissions of an organization role (the reference's OrganizationsRolesPermissionsController: POST adds
// and answers 200 with the list, GET lists, PUT replaces, DELETE ?permissions=a,b and DELETE /{permission}
// answer 204 without a body), and what assigning a custom role does: the reference's PbacGuard lets a member
// through when the custom role of their membership holds the route's permission, and RolesGuard refuses otherwise.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMember, createOrganization, type Member } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const INVALID = (permission: string) => `Permission '${permission}' must be a valid permission string in format 'resource.action' (e.g., 'eventType.read', 'booking.create')`;

describe('organization role permissions and custom role assignment', () => {
  let api: TestApp;
  let orgId: number;
  let owner: Member;
  let roles: string;
  before(async () => {
    api = await createTestApp();
    const made = await createOrganization(api);
    orgId = made.organization.id;
    owner = made.owner;
    roles = `/v2/organizations/${orgId}/roles`;
  });
  after(() => api.close());

  test('add (200 with the list, no duplicates), list, replace, remove one and remove several (204, no body)', async () => {
    const role = (await api.request('POST', roles, { key: owner.apiKey, body: { name: 'Granular', permissions: ['booking.read'] } })).body.data;
    const permissions = `${roles}/${role.id}/permissions`;

    const added = await api.request('POST', permissions, { key: owner.apiKey, body: { permissions: ['eventType.read', 'booking.read', 'team.read', 'role.read'] } });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(added.body, { status: 'success', data: ['booking.read', 'eventType.read', 'team.read', 'role.read'] });
    assert.deepEqual((await api.request('GET', permissions, { key: owner.apiKey })).body.data, ['booking.read', 'eventType.read', 'team.read', 'role.read']);
    assert.deepEqual((await api.request('GET', `${roles}/${role.id}`, { key: owner.apiKey })).body.data.permissions, ['booking.read', 'eventType.read', 'team.read', 'role.read']);

    const one = await api.request('DELETE', `${permissions}/eventType.read`, { key: owner.apiKey });
    assert.deepEqual([one.status, one.text], [204, '']);
    const several = await api.request('DELETE', `${permissions}?permissions=booking.read,team.read`, { key: owner.apiKey });
    assert.deepEqual([several.status, several.text], [204, '']);
    assert.deepEqual((await api.request('GET', permissions, { key: owner.apiKey })).body.data, ['role.read']);
    const notHeld = await api.request('DELETE', `${permissions}/webhook.read`, { key: owner.apiKey });
    assert.equal(notHeld.status, 204, 'removing a permission the role lacks changes nothing');

    const replaced = await api.request('PUT', permissions, { key: owner.apiKey, body: { permissions: ['workflow.read', 'workflow.update'] } });
    assert.deepEqual([replaced.status, replaced.body.data], [200, ['workflow.read', 'workflow.update']]);
    const repeated = await api.request('DELETE', `${permissions}?permissions=workflow.read&permissions=workflow.update`, { key: owner.apiKey });
    assert.equal(repeated.status, 204, 'the parameter may be repeated');
    assert.deepEqual((await api.request('GET', permissions, { key: owner.apiKey })).body.data, []);
    const cleared = await api.request('PUT', permissions, { key: owner.apiKey, body: { permissions: [] } });
    assert.deepEqual([cleared.status, cleared.body.data], [200, []]);
  });

  test('permission validation: 400s name the body field, the query parameter or the path parameter', async () => {
    const role = (await api.request('POST', roles, { key: owner.apiKey, body: { name: 'Validated', permissions: ['booking.read'] } })).body.data;
    const permissions = `${roles}/${role.id}/permissions`;
    const cases: [string, string, unknown, string, string | null][] = [
      ['POST', permissions, {}, 'permissions', null],
      ['POST', permissions, { permissions: 'booking.read' }, 'permissions', null],
      ['POST', permissions, { permissions: ['booking.readTeamBookings'] }, 'permissions', INVALID('booking.readTeamBookings')],
      ['PUT', permissions, { permissions: ['booking.read', 'eventType'] }, 'permissions', INVALID('eventType')],
      ['PUT', permissions, {}, 'permissions', null],
      ['DELETE', `${permissions}?permissions=booking.read,booking.fly`, undefined, 'permissions', INVALID('booking.fly')],
      ['DELETE', `${permissions}?permissions=`, undefined, 'permissions', 'permissions cannot be empty.'],
      ['DELETE', `${permissions}/notapermission`, undefined, 'permission', INVALID('notapermission')],
    ];
    for (const [method, path, body, field, message] of cases) {
      const response = await api.request(method, path, { key: owner.apiKey, body });
      assert.equal(response.status, 400, `${method} ${path} ${JSON.stringify(body)}: ${response.text}`);
      assert.equal(response.body.error.details.errors[0].property, field, `${method} ${path}`);
      if (message) assert.equal(response.body.error.message, message);
    }
    assert.deepEqual((await api.request('GET', permissions, { key: owner.apiKey })).body.data, ['booking.read'], 'nothing changed');
  });

  test('a custom role assigned to a MEMBER changes what they may do at once, and stops when the permission is removed', async () => {
    const member = await createMember(api);
    const joined = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey, body: { userId: member.user.id, role: 'MEMBER', accepted: true } });
    assert.equal(joined.status, 201, joined.text);
    const membershipId = joined.body.data.id;

    const before = await api.request('GET', roles, { key: member.apiKey });
    assert.equal(before.status, 403, 'an organization MEMBER needs ORG_ADMIN');

    const role = (await api.request('POST', roles, { key: owner.apiKey, body: { name: 'Role Readers', permissions: ['role.read'] } })).body.data;
    const assigned = await api.request('PATCH', `/v2/organizations/${orgId}/memberships/${membershipId}`, { key: owner.apiKey, body: { roleId: role.id } });
    assert.equal(assigned.status, 200, assigned.text);
    assert.deepEqual([assigned.body.data.role, assigned.body.data.customRoleId], ['MEMBER', role.id]);

    const allowed = await api.request('GET', roles, { key: member.apiKey });
    assert.equal(allowed.status, 200, allowed.text);
    assert.ok(allowed.body.data.some((r: any) => r.id === role.id));
    assert.equal((await api.request('GET', `${roles}/${role.id}/permissions`, { key: member.apiKey })).status, 200);
    const write = await api.request('POST', roles, { key: member.apiKey, body: { name: 'Escalate', permissions: ['*.*'] } });
    assert.equal(write.status, 403, 'role.read does not grant role.create');

    const removed = await api.request('DELETE', `${roles}/${role.id}/permissions/role.read`, { key: owner.apiKey });
    assert.equal(removed.status, 204);
    const after = await api.request('GET', roles, { key: member.apiKey });
    assert.equal(after.status, 403, 'the removed permission no longer lets the member through');
    assert.match(after.body.error.message, /minimum required role=ORG_ADMIN/);

    // Granting it again, then deleting the role: the membership goes on without it.
    await api.request('POST', `${roles}/${role.id}/permissions`, { key: owner.apiKey, body: { permissions: ['role.read'] } });
    assert.equal((await api.request('GET', roles, { key: member.apiKey })).status, 200);
    assert.equal((await api.request('DELETE', `${roles}/${role.id}`, { key: owner.apiKey })).status, 200);
    const membership = await api.request('GET', `/v2/organizations/${orgId}/memberships/${membershipId}`, { key: owner.apiKey });
    assert.deepEqual([membership.status, membership.body.data.role, membership.body.data.customRoleId], [200, 'MEMBER', null]);
    assert.equal((await api.request('GET', roles, { key: member.apiKey })).status, 403);
  });
});
