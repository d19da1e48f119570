// Organization roles: the reference's OrganizationsRolesController and OrganizationsRolesPermissionsController
// (IsOrgGuard 403, RolesGuard ORG_ADMIN 403 unless a custom role holds the PBAC permission; RolesService
// messages "Role with id R within team id T not found", "Cannot update default roles", "Cannot delete default roles";
// the permission validator's "Permission 'x' must be a valid permission string ..."; POST permissions 200, DELETE 204).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMember, createOrganization, createOrgMember, type Member } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const INVALID = (permission: string) => `Permission '${permission}' must be a valid permission string in format 'resource.action' (e.g., 'eventType.read', 'booking.create')`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;


describe('organization roles (/v2/organizations/{orgId}/roles)', () => {
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

  test('an organization admin creates, reads, lists (take/skip), updates and deletes a custom role, with exact outputs', async () => {
    const admin = await createOrgMember(api, orgId, owner.apiKey, 'ADMIN');
    const created = await api.request('POST', roles, {
      key: admin.apiKey,
      body: { name: 'Schedulers', color: '#00ff00', description: 'Reads bookings', permissions: ['booking.read', 'eventType.read', 'booking.read'] },
    });
    assert.equal(created.status, 201, created.text);
    const role = created.body.data;
    assert.match(role.id, UUID);
    assert.ok(!Number.isNaN(Date.parse(role.createdAt)) && role.createdAt === role.updatedAt);
    assert.deepEqual(role, {
      id: role.id,
      name: 'Schedulers',
      color: '#00ff00',
      description: 'Reads bookings',
      organizationId: orgId,
      type: 'CUSTOM',
      permissions: ['booking.read', 'eventType.read'],
      createdAt: role.createdAt,
      updatedAt: role.createdAt,
    });
    const bare = await api.request('POST', roles, { key: admin.apiKey, body: { name: 'Bare' } });
    assert.equal(bare.status, 201, bare.text);
    assert.deepEqual([bare.body.data.color, bare.body.data.description, bare.body.data.permissions], [null, null, []]);

    assert.deepEqual((await api.request('GET', `${roles}/${role.id}`, { key: admin.apiKey })).body, { status: 'success', data: role });
    const list = await api.request('GET', roles, { key: admin.apiKey });
    assert.deepEqual(list.body.data.map((r: any) => r.name), ['Schedulers', 'Bare'], 'custom roles only, oldest first');
    assert.deepEqual((await api.request('GET', `${roles}?take=1&skip=1`, { key: admin.apiKey })).body.data.map((r: any) => r.name), ['Bare']);
    assert.equal((await api.request('GET', `${roles}?take=0`, { key: admin.apiKey })).body.error.details.errors[0].property, 'take');

    const patched = await api.request('PATCH', `${roles}/${role.id}`, { key: admin.apiKey, body: { name: 'Planners', permissions: ['team.read'] } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(
      { ...patched.body.data, updatedAt: undefined },
      { ...role, name: 'Planners', permissions: ['team.read'], updatedAt: undefined },
      'only the fields sent change; permissions are replaced whole',
    );
    assert.ok(Date.parse(patched.body.data.updatedAt) >= Date.parse(role.updatedAt));
    const sameName = await api.request('PATCH', `${roles}/${role.id}`, { key: admin.apiKey, body: { name: 'PLANNERS', description: 'Plans' } });
    assert.deepEqual([sameName.status, sameName.body.data.name, sameName.body.data.description], [200, 'PLANNERS', 'Plans'], 'a role may keep its own name');

    const deleted = await api.request('DELETE', `${roles}/${role.id}`, { key: admin.apiKey });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.data.id, role.id);
    assert.equal(deleted.body.data.name, 'PLANNERS');
    const gone = await api.request('GET', `${roles}/${role.id}`, { key: admin.apiKey });
    assert.deepEqual([gone.status, gone.body.error.message], [404, `Role with id ${role.id} within team id ${orgId} not found`]);
    assert.deepEqual((await api.request('GET', roles, { key: admin.apiKey })).body.data.map((r: any) => r.name), ['Bare']);
  });

  test('validation: every 400 names its field; a taken name (case-insensitive) is the reference 400 naming name', async () => {
    for (const [field, body] of [
      ['name', {}],
      ['name', { name: '' }],
      ['name', { name: 42 }],
      ['color', { name: 'X', color: 7 }],
      ['description', { name: 'X', description: ['no'] }],
      ['permissions', { name: 'X', permissions: 'booking.read' }],
      ['permissions.0', { name: 'X', permissions: [3] }],
    ] as const) {
      const response = await api.request('POST', roles, { key: owner.apiKey, body });
      assert.equal(response.status, 400, `${field}: ${response.text}`);
      assert.equal(response.body.error.details.errors[0].property, field, JSON.stringify(body));
    }
    // Team-only and unknown permissions are refused in an organization role.
    for (const permission of ['booking.readTeamBookings', 'eventType.fly', 'nonsense']) {
      const response = await api.request('POST', roles, { key: owner.apiKey, body: { name: 'X', permissions: ['booking.read', permission] } });
      assert.deepEqual([response.status, response.body.error.message], [400, INVALID(permission)]);
      assert.deepEqual(response.body.error.details.errors[0], { property: 'permissions', value: permission, constraints: { permissions: INVALID(permission) } });
    }
    assert.equal((await api.request('POST', roles, { key: owner.apiKey, body: { name: 'Everything', permissions: ['*.*'] } })).status, 201, '*.* is an organization permission');

    const first = await api.request('POST', roles, { key: owner.apiKey, body: { name: 'Auditors' } });
    assert.equal(first.status, 201);
    const taken = await api.request('POST', roles, { key: owner.apiKey, body: { name: 'aUDITORS' } });
    assert.deepEqual([taken.status, taken.body.error.message, taken.body.error.details.errors[0].property], [400, 'Role with name "aUDITORS" already exists', 'name']);
    const other = await api.request('POST', roles, { key: owner.apiKey, body: { name: 'Reviewers' } });
    const renamed = await api.request('PATCH', `${roles}/${other.body.data.id}`, { key: owner.apiKey, body: { name: 'auditors' } });
    assert.deepEqual([renamed.status, renamed.body.error.details.errors[0].property], [400, 'name']);
    const badPatch = await api.request('PATCH', `${roles}/${other.body.data.id}`, { key: owner.apiKey, body: { permissions: ['role.fly'] } });
    assert.deepEqual([badPatch.status, badPatch.body.error.message, badPatch.body.error.details.errors[0].property], [400, INVALID('role.fly'), 'permissions']);
    const emptyName = await api.request('PATCH', `${roles}/${other.body.data.id}`, { key: owner.apiKey, body: { name: '' } });
    assert.deepEqual([emptyName.status, emptyName.body.error.details.errors[0].property], [400, 'name']);

    const anotherOrg = await createOrganization(api);
    assert.equal((await api.request('POST', `/v2/organizations/${anotherOrg.organization.id}/roles`, { key: anotherOrg.owner.apiKey, body: { name: 'Auditors' } })).status, 201, 'names are unique per organization only');
  });

  test('SYSTEM roles are readable by id and read-only; lists show only custom roles', async () => {
    const ownerRole = await api.request('GET', `${roles}/owner_role`, { key: owner.apiKey });
    assert.equal(ownerRole.status, 200, ownerRole.text);
    assert.deepEqual({ ...ownerRole.body.data, createdAt: undefined, updatedAt: undefined }, {
      id: 'owner_role',
      name: 'Owner',
      color: null,
      description: 'Built-in role of every OWNER membership',
      organizationId: null,
      type: 'SYSTEM',
      permissions: ['*.*'],
      createdAt: undefined,
      updatedAt: undefined,
    });
    const member = await api.request('GET', `${roles}/member_role/permissions`, { key: owner.apiKey });
    assert.equal(member.status, 200);
    assert.ok(member.body.data.includes('role.read') && member.body.data.includes('organization.read') && !member.body.data.includes('role.update'));
    assert.equal((await api.request('GET', `${roles}/admin_role`, { key: owner.apiKey })).body.data.type, 'SYSTEM');
    assert.ok((await api.request('GET', roles, { key: owner.apiKey })).body.data.every((r: any) => r.type === 'CUSTOM'));

    const refusals: [string, string, unknown, string][] = [
      ['PATCH', `${roles}/admin_role`, { name: 'Boss' }, 'Cannot update default roles'],
      ['DELETE', `${roles}/member_role`, undefined, 'Cannot delete default roles'],
      ['POST', `${roles}/member_role/permissions`, { permissions: ['role.update'] }, 'Cannot update default roles'],
      ['PUT', `${roles}/admin_role/permissions`, { permissions: [] }, 'Cannot update default roles'],
      ['DELETE', `${roles}/owner_role/permissions/role.read`, undefined, 'Cannot update default roles'],
      ['DELETE', `${roles}/owner_role/permissions?permissions=role.read`, undefined, 'Cannot update default roles'],
    ];
    for (const [method, path, body, message] of refusals) {
      const response = await api.request(method, path, { key: owner.apiKey, body });
      assert.deepEqual([response.status, response.body.error.message], [400, message], `${method} ${path}`);
    }
    assert.deepEqual((await api.request('GET', `${roles}/owner_role`, { key: owner.apiKey })).body.data.permissions, ['*.*'], 'unchanged');
  });

  test('refusals: not an organization 403, outsider 403, organization MEMBER 403, a role of another organization 404', async () => {
    const member = await createOrgMember(api, orgId, owner.apiKey);
    const outsider = await createOrganization(api);
    const role = (await api.request('POST', roles, { key: owner.apiKey, body: { name: 'Guarded' } })).body.data;
    const foreignRole = (await api.request('POST', `/v2/organizations/${outsider.organization.id}/roles`, { key: outsider.owner.apiKey, body: { name: 'Foreign' } })).body.data;

    const team = (await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: 'Not An Org' } })).body.data;
    const notOrg = await api.request('GET', `/v2/organizations/${team.id}/roles`, { key: owner.apiKey });
    assert.deepEqual([notOrg.status, notOrg.body.error.message], [403, `IsOrgGuard - provided organization id=${team.id} does not represent any existing organization.`]);

    for (const [method, path, body] of [
      ['GET', roles, undefined],
      ['POST', roles, { name: 'Sneaky' }],
      ['GET', `${roles}/${role.id}`, undefined],
      ['PATCH', `${roles}/${role.id}`, { name: 'Sneaky' }],
      ['DELETE', `${roles}/${role.id}`, undefined],
      ['GET', `${roles}/${role.id}/permissions`, undefined],
      ['POST', `${roles}/${role.id}/permissions`, { permissions: ['*.*'] }],
      ['DELETE', `${roles}/${role.id}/permissions/role.read`, undefined],
    ] as const) {
      const byOutsider = await api.request(method, path, { key: outsider.owner.apiKey, body });
      assert.deepEqual([byOutsider.status, byOutsider.body.error.message], [403, `RolesGuard - User is not a member of the organization with id=${orgId}.`], `${method} ${path}`);
      const byMember = await api.request(method, path, { key: member.apiKey, body });
      assert.equal(byMember.status, 403, `${method} ${path}`);
      assert.match(byMember.body.error.message, /minimum required role=ORG_ADMIN/);
    }

    const notFound = `Role with id ${foreignRole.id} within team id ${orgId} not found`;
    for (const [method, path, body] of [
      ['GET', `${roles}/${foreignRole.id}`, undefined],
      ['PATCH', `${roles}/${foreignRole.id}`, { name: 'Mine' }],
      ['DELETE', `${roles}/${foreignRole.id}`, undefined],
      ['GET', `${roles}/${foreignRole.id}/permissions`, undefined],
      ['POST', `${roles}/${foreignRole.id}/permissions`, { permissions: ['role.read'] }],
      ['PUT', `${roles}/${foreignRole.id}/permissions`, { permissions: ['role.read'] }],
      ['DELETE', `${roles}/${foreignRole.id}/permissions?permissions=role.read`, undefined],
      ['DELETE', `${roles}/${foreignRole.id}/permissions/role.read`, undefined],
    ] as const) {
      const response = await api.request(method, path, { key: owner.apiKey, body });
      assert.deepEqual([response.status, response.body.error.message], [404, notFound], `${method} ${path}`);
    }
    const untouched = await api.request('GET', `/v2/organizations/${outsider.organization.id}/roles/${foreignRole.id}`, { key: outsider.owner.apiKey });
    assert.deepEqual([untouched.status, untouched.body.data.name, untouched.body.data.permissions], [200, 'Foreign', []]);
  });
});
