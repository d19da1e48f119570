// Roles cannot climb: a generated matrix of (caller's standing) x (target's role) x (role given) x (route),
// on a standalone team, an organization and an organization's team, each outcome taken from one table
// written from the reference's role manager ("Only owners can award owner role", "You can not change the
// role of an owner if you are an admin.", "You can not change yourself to a higher role.") and this
// issue's rule that no permission is a ladder. Every role-related route and permission must be in the table.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { MembershipRole } from '../../src/db/schema.js';
import { ORGANIZATION_PERMISSIONS, permissionsGrant, permissionsHeldByRole, TEAM_PERMISSIONS } from '../../src/modules/access/permissions.js';
import { documentedOperations } from '../support/api-operations.js';
import { createMember, createOrganization, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';

const RANK: Record<MembershipRole, number> = { MEMBER: 0, ADMIN: 1, OWNER: 2 };
type Scope = 'team' | 'org' | 'orgTeam';

// --- The table -------------------------------------------------------------------------------------------

/** Every route that makes, changes or ends a membership or a role, and what the matrix or a test below does with it. */
const ROLE_ROUTES: Record<string, string> = {
  'POST /v2/teams': 'the creator becomes OWNER of a new team (nobody else is given anything)',
  'POST /v1/teams': 'the creator (or, for the system admin, ownerId) becomes OWNER of a new team',
  'POST /v2/organizations/{orgId}/teams': 'the creator becomes OWNER of a new team',
  'POST /v2/admin/organizations': 'system admin only',
  'POST /v2/organizations/{orgId}/organizations': 'the caller becomes OWNER of a new managed organization',
  'POST /v2/teams/{teamId}/memberships': 'matrix: team, POST',
  'PATCH /v2/teams/{teamId}/memberships/{membershipId}': 'matrix: team, PATCH role and roleId',
  'DELETE /v2/teams/{teamId}/memberships/{membershipId}': 'matrix: team, DELETE',
  'POST /v2/organizations/{orgId}/memberships': 'matrix: org, POST and the upsert',
  'PATCH /v2/organizations/{orgId}/memberships/{membershipId}': 'matrix: org, PATCH role and roleId',
  'DELETE /v2/organizations/{orgId}/memberships/{membershipId}': 'matrix: org, DELETE',
  'POST /v2/organizations/{orgId}/teams/{teamId}/memberships': 'matrix: orgTeam, POST',
  'PATCH /v2/organizations/{orgId}/teams/{teamId}/memberships/{membershipId}': 'matrix: orgTeam, PATCH role and roleId',
  'DELETE /v2/organizations/{orgId}/teams/{teamId}/memberships/{membershipId}': 'matrix: orgTeam, DELETE',
  'POST /v2/organizations/{orgId}/users': 'organizationRole: the new-member rule (test below)',
  'DELETE /v2/organizations/{orgId}/users/{userId}': 'removes the membership: the removal rule (test below)',
  'POST /v2/organizations/{orgId}/roles': 'role writes grant only held permissions (test below)',
  'PATCH /v2/organizations/{orgId}/roles/{roleId}': 'role writes (test below)',
  'DELETE /v2/organizations/{orgId}/roles/{roleId}': 'role writes (test below)',
  'POST /v2/organizations/{orgId}/roles/{roleId}/permissions': 'role writes (test below)',
  'PUT /v2/organizations/{orgId}/roles/{roleId}/permissions': 'role writes (test below)',
  'DELETE /v2/organizations/{orgId}/roles/{roleId}/permissions': 'role writes (test below)',
  'DELETE /v2/organizations/{orgId}/roles/{roleId}/permissions/{permission}': 'role writes (test below)',
  'POST /v2/organizations/{orgId}/teams/{teamId}/roles': 'role writes (test below)',
  'PATCH /v2/organizations/{orgId}/teams/{teamId}/roles/{roleId}': 'role writes (test below)',
  'DELETE /v2/organizations/{orgId}/teams/{teamId}/roles/{roleId}': 'role writes (test below)',
  'POST /v2/organizations/{orgId}/teams/{teamId}/roles/{roleId}/permissions': 'role writes (test below)',
  'PUT /v2/organizations/{orgId}/teams/{teamId}/roles/{roleId}/permissions': 'role writes (test below)',
  'DELETE /v2/organizations/{orgId}/teams/{teamId}/roles/{roleId}/permissions': 'role writes (test below)',
  'DELETE /v2/organizations/{orgId}/teams/{teamId}/roles/{roleId}/permissions/{permission}': 'role writes (test below)',
  'POST /v2/organizations/{orgId}/teams/{teamId}/invite': 'an invitation link: joining through it is the joiner\'s own act, as MEMBER',
  'POST /v2/teams/{teamId}/invite': 'an invitation link: joining through it is the joiner\'s own act, as MEMBER',
  'PATCH /v2/organizations/{orgId}/users/{userId}': 'changes the account, never a role',
  'POST /v2/oauth-clients/{clientId}/users': "a managed user joins its client's organization as MEMBER",
  'PATCH /v2/oauth-clients/{clientId}/users/{userId}': 'changes the account, never a role',
  'DELETE /v2/oauth-clients/{clientId}/users/{userId}': 'the client deletes its own managed user, membership and all',
  'POST /v2/admin/users': 'system admin only',
  'DELETE /v2/admin/users/{id}': 'system admin only',
};

/** Permissions that give power over roles and memberships (in the matrix's callers' custom roles), and the rest. */
const ROLE_POWER = new Set([
  '*.*', 'team.changeMemberRole', 'team.invite', 'team.remove', 'organization.changeMemberRole', 'organization.invite', 'organization.remove',
  'role.create', 'role.update', 'role.delete', 'organization.create', 'team.create',
]);
const UNRELATED = /^(eventType|booking|insights|workflow|routingForm|webhook|watchlist|organization\.attributes)\.|^(team|organization)\.(read|update|delete|listMembers|listMembersPrivate|impersonate|manageBilling)$|^role\.read$/;

/** What a route lets through before the role rules: its `access.tenant` rule (role or PBAC permission). */
const ROUTE_PERMISSION: Record<Scope, Record<'POST' | 'PATCH' | 'DELETE', string | null>> = {
  team: { POST: null, PATCH: null, DELETE: null },
  org: { POST: 'organization.invite', PATCH: 'organization.changeMemberRole', DELETE: 'organization.remove' },
  orgTeam: { POST: 'team.invite', PATCH: 'team.changeMemberRole', DELETE: 'team.remove' },
};

interface Standing {
  /** Membership role in the scope's team or organization, and (orgTeam) in the organization. */
  role: MembershipRole | null;
  orgRole: MembershipRole | null;
  custom: string[];
  orgCustom: string[];
}

interface Target {
  name: string;
  role: MembershipRole;
  custom: string[];
  self: boolean;
}

/** A role given: `role` (null: the target keeps theirs, as a custom roleId leaves it), `custom` (null: unchanged; []: none). */
type Given = { role: MembershipRole | null; custom: string[] | null; via: 'role' | 'roleId' };
type Outcome = { status: number; reason?: string };

const rank = (role: MembershipRole | null) => (role === null ? -1 : RANK[role]);

function callerRank(scope: Scope, caller: Standing): number {
  return Math.max(rank(caller.role), scope === 'orgTeam' ? rank(caller.orgRole) : -1);
}

function callerHolds(scope: Scope, caller: Standing): string[] {
  const own = caller.role ? permissionsHeldByRole(caller.role, scope === 'org' ? 'organization' : 'team') : [];
  const org = scope === 'orgTeam' && caller.orgRole ? permissionsHeldByRole(caller.orgRole, 'organization') : [];
  return [...own, ...caller.custom, ...org, ...caller.orgCustom];
}

const holdsAll = (held: string[], wanted: string[]) => wanted.every((permission) => permissionsGrant(held, [permission]));

/** Does the route's access rule let the caller in (minimum ADMIN, or the PBAC permission)? */
function routeLetsIn(scope: Scope, method: 'POST' | 'PATCH' | 'DELETE', caller: Standing): boolean {
  if (scope === 'team') return rank(caller.role) >= RANK.ADMIN;
  if (scope === 'org') return rank(caller.role) >= RANK.ADMIN || permissionsGrant(caller.custom, [ROUTE_PERMISSION.org[method]!]);
  if (caller.orgRole === null) return false;
  return rank(caller.orgRole) >= RANK.ADMIN || rank(caller.role) >= RANK.ADMIN || permissionsGrant([...caller.custom, ...caller.orgCustom], [ROUTE_PERMISSION.orgTeam[method]!]);
}

/** The expected answer of a change (`target` null: a new member; `given` null: removal). */
function expected(scope: Scope, method: 'POST' | 'PATCH' | 'DELETE', caller: Standing, target: Target | null, asked: Given | null): Outcome {
  if (!routeLetsIn(scope, method, caller)) return { status: 403 };
  const given = asked && { role: asked.role ?? target?.role ?? 'MEMBER', custom: asked.custom === null ? (target?.custom ?? null) : asked.custom };
  const mine = callerRank(scope, caller);
  const held = callerHolds(scope, caller);
  const roleMoves = given !== null && (target === null || given.role !== target.role);
  // "Only owners can award owner role"
  if (given && roleMoves && given.role === 'OWNER' && mine < RANK.OWNER) return { status: 403, reason: 'owner_role_owners_only' };
  if (target && !target.self) {
    // "You can not change the role of an owner if you are an admin." (and remove none)
    if (target.role === 'OWNER' && mine < RANK.OWNER) return { status: 403, reason: 'owner_membership_owners_only' };
    // Nobody acts on a member ranked or holding above them.
    if (RANK[target.role] > mine || !holdsAll(held, target.custom)) return { status: 403, reason: 'member_above_own_role' };
  }
  if (given) {
    // "You can not change yourself to a higher role."
    if (target?.self && RANK[given.role] > RANK[target.role]) return { status: 403, reason: 'own_role_raise' };
    const customMoves = given.custom !== null && (target === null || given.custom.join() !== target.custom.join());
    if ((roleMoves || customMoves) && RANK[given.role] > mine) return { status: 403, reason: 'role_above_own' };
    if (customMoves && !holdsAll(held, given.custom!)) return { status: 403, reason: 'permission_not_held' };
  }
  return { status: method === 'POST' ? 201 : 200 };
}

// --- The world the matrix runs in ---------------------------------------------------------------------------

const WEAK: Record<Scope, string[]> = { team: [], org: ['organization.read'], orgTeam: ['team.read'] };
const STRONG: Record<Scope, string[]> = { team: [], org: ['organization.impersonate'], orgTeam: ['team.impersonate'] };

interface Place {
  scope: Scope;
  orgId: number | null;
  teamId: number;
  base: string;
  /** Custom role ids by their permissions (joined). */
  roleIds: Map<string, string>;
  /** The organization's custom role ids (orgTeam: the organization-level roles). */
  orgRoleIds: Map<string, string>;
}

const admin = (api: TestApp, method: string, path: string, body?: unknown) => api.request(method, path, { key: ADMIN_API_KEY, ...(body !== undefined ? { body } : {}) });

async function ok(response: Promise<{ status: number; text: string; body: any }>, status = 200): Promise<any> {
  const answered = await response;
  assert.equal(answered.status, status, answered.text);
  return answered.body.data;
}

async function makePlace(api: TestApp, scope: Scope, owner: Member): Promise<Place> {
  const roleIds = new Map<string, string>();
  const orgRoleIds = new Map<string, string>();
  if (scope === 'team') {
    const team = await ok(api.request('POST', '/v2/teams', { key: owner.apiKey, body: { name: `Matrix ${Math.random()}` } }), 201);
    return { scope, orgId: null, teamId: team.id, base: `/v2/teams/${team.id}/memberships`, roleIds, orgRoleIds };
  }
  const { organization } = await createOrganization(api, { owner });
  const orgId = organization.id;
  for (const permissions of [WEAK.org, STRONG.org, ['organization.changeMemberRole'], ['organization.invite'], ['organization.remove'], ['*.*'], ['team.changeMemberRole']]) {
    const role = await ok(api.request('POST', `/v2/organizations/${orgId}/roles`, { key: owner.apiKey, body: { name: permissions.join('+'), permissions } }), 201);
    orgRoleIds.set(permissions.join(), role.id);
  }
  if (scope === 'org') return { scope, orgId, teamId: orgId, base: `/v2/organizations/${orgId}/memberships`, roleIds: orgRoleIds, orgRoleIds };
  const team = await ok(api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: `Matrix team ${Math.random()}` } }), 201);
  for (const permissions of [WEAK.orgTeam, STRONG.orgTeam, ['team.changeMemberRole'], ['team.invite'], ['team.remove']]) {
    const role = await ok(api.request('POST', `/v2/organizations/${orgId}/teams/${team.id}/roles`, { key: owner.apiKey, body: { name: permissions.join('+'), permissions } }), 201);
    roleIds.set(permissions.join(), role.id);
  }
  return { scope, orgId, teamId: team.id, base: `/v2/organizations/${orgId}/teams/${team.id}/memberships`, roleIds, orgRoleIds };
}

/**
 * Makes `user` a member of the place as `role` with `custom`, as the system admin; on an organization's
 * team, first a member of the organization as `org.role` with `org.custom` (unless `org` is null: already one).
 */
async function seat(api: TestApp, place: Place, user: Member, role: MembershipRole | null, custom: string[], org: { role: MembershipRole; custom: string[] } | null = { role: 'MEMBER', custom: [] }): Promise<number | null> {
  if (place.scope === 'orgTeam' && org) {
    const orgMembership = await ok(admin(api, 'POST', `/v2/organizations/${place.orgId}/memberships`, { userId: user.user.id, role: org.role, accepted: true }), 201);
    if (org.custom.length) await ok(admin(api, 'PATCH', `/v2/organizations/${place.orgId}/memberships/${orgMembership.id}`, { roleId: place.orgRoleIds.get(org.custom.join()) }));
  }
  if (role === null) return null;
  const membership = await ok(admin(api, 'POST', place.base, { userId: user.user.id, role, accepted: true }), 201);
  if (custom.length) await ok(admin(api, 'PATCH', `${place.base}/${membership.id}`, { roleId: place.roleIds.get(custom.join()) }));
  return membership.id;
}

/** The membership of `userId` in the place as the system admin reads it: [role, customRoleId], or null. */
async function membershipOf(api: TestApp, place: Place, userId: number): Promise<[string, string | null] | null> {
  const list = await ok(admin(api, 'GET', `${place.base}?take=250`));
  const found = list.find((membership: any) => membership.userId === userId);
  return found ? [found.role, found.customRoleId] : null;
}

interface CallerCase {
  name: string;
  standing: Standing;
}

function callersOf(scope: Scope): CallerCase[] {
  const plain = (role: MembershipRole, custom: string[] = []): CallerCase => ({ name: `${role}${custom.length ? `+${custom.join('+')}` : ''}`, standing: { role, orgRole: 'MEMBER', custom, orgCustom: [] } });
  if (scope === 'team') return [plain('OWNER'), plain('ADMIN'), plain('MEMBER')];
  if (scope === 'org') {
    return [plain('OWNER'), plain('ADMIN'), plain('MEMBER'), plain('MEMBER', ['organization.changeMemberRole']), plain('MEMBER', ['organization.invite']), plain('MEMBER', ['organization.remove']), plain('MEMBER', ['*.*']), plain('ADMIN', ['organization.impersonate'])];
  }
  return [
    plain('OWNER'),
    plain('ADMIN'),
    plain('MEMBER'),
    plain('MEMBER', ['team.changeMemberRole']),
    plain('MEMBER', ['team.invite']),
    plain('MEMBER', ['team.remove']),
    { name: 'organization ADMIN, not in the team', standing: { role: null, orgRole: 'ADMIN', custom: [], orgCustom: [] } },
    { name: 'organization MEMBER with team.changeMemberRole, not in the team', standing: { role: null, orgRole: 'MEMBER', custom: [], orgCustom: ['team.changeMemberRole'] } },
  ];
}

function givensOf(scope: Scope): Given[] {
  const roles: Given[] = (['MEMBER', 'ADMIN', 'OWNER'] as const).map((role) => ({ role, custom: null, via: 'role' }));
  const systemIds: Given[] = (['MEMBER', 'ADMIN', 'OWNER'] as const).map((role) => ({ role, custom: [], via: 'roleId' }));
  return scope === 'team' ? [...roles, ...systemIds] : [...roles, ...systemIds, { role: null, custom: WEAK[scope], via: 'roleId' }, { role: null, custom: STRONG[scope], via: 'roleId' }];
}

describe('roles cannot climb: the role table', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('every route that makes, changes or ends a membership or role is in the table, and the table names only routes that exist', async () => {
    const operations = await documentedOperations(api);
    const names = new Set(operations.map((op) => `${op.method} ${op.path}`));
    const touching = operations.filter((op) => op.method !== 'GET' && /\/(memberships|roles|users)(\/\{\w+\})?$|\/roles\/\{roleId\}\/permissions|\/invite$|\/teams$|\/organizations$/.test(op.path));
    for (const op of touching) assert.ok(ROLE_ROUTES[`${op.method} ${op.path}`], `${op.method} ${op.path} makes or changes memberships or roles: add it to ROLE_ROUTES with how it is checked`);
    for (const name of Object.keys(ROLE_ROUTES)) assert.ok(names.has(name), `ROLE_ROUTES names ${name}, which the API document does not have`);
  });

  test('every permission of the catalogue is classified: power over roles, or unrelated', () => {
    for (const permission of new Set([...ORGANIZATION_PERMISSIONS, ...TEAM_PERMISSIONS])) {
      assert.ok(ROLE_POWER.has(permission) !== UNRELATED.test(permission), `${permission}: classify it as ROLE_POWER or UNRELATED (exactly one)`);
    }
  });

  test('what a role holds covers every permission its routes let it use by role alone', async () => {
    for (const op of await documentedOperations(api)) {
      if (!op.tenant) continue;
      const role = op.tenant.role.slice(op.tenant.role.indexOf('_') + 1) as MembershipRole;
      const scope = op.tenant.role.startsWith('ORG_') ? 'organization' : 'team';
      const missing = op.tenant.permissions.filter((permission) => !permissionsGrant(permissionsHeldByRole(role, scope), [permission]));
      assert.deepEqual(missing, [], `${op.method} ${op.path}: an ${op.tenant.role} reaches it by role alone but is not counted as holding ${missing.join(', ')} (permissions.ts ROLE_FALLBACK_PERMISSIONS)`);
    }
  });
});

for (const scope of ['team', 'org', 'orgTeam'] as const) {
  describe(`roles cannot climb: the ${scope} matrix`, () => {
    let api: TestApp;
    before(async () => {
      api = await createTestApp();
    });
    after(() => api.close());

    for (const callerCase of callersOf(scope)) {
      test(`caller ${callerCase.name}: every target, role given and route answers as the table says; a refusal changes nothing`, async () => {
        const owner = await createMember(api);
        const place = await makePlace(api, scope, owner);
        const caller = await createMember(api);
        const { standing } = callerCase;
        await seat(api, place, caller, standing.role, standing.custom, { role: standing.orgRole ?? 'MEMBER', custom: standing.orgCustom });
        // A second owner, so that no target is ever the last one.
        const targets: (Target & { user: Member })[] = [];
        for (const [name, role, custom] of [['OWNER', 'OWNER', []], ['ADMIN', 'ADMIN', []], ['MEMBER', 'MEMBER', []], ['MEMBER holding more', 'MEMBER', STRONG[scope]]] as const) {
          if (scope === 'team' && custom.length) continue;
          const user = await createMember(api);
          await seat(api, place, user, role, [...custom]);
          targets.push({ name, role, custom: [...custom], self: false, user });
        }
        if (standing.role !== null) targets.push({ name: 'self', role: standing.role, custom: standing.custom, self: true, user: caller });
        const newcomer = await createMember(api);
        await seat(api, place, newcomer, null, []);

        const failures: string[] = [];
        const check = (label: string, outcome: Outcome, response: { status: number; body: any; text: string }) => {
          const reason = response.body?.error?.details?.reason;
          if (response.status !== outcome.status || (outcome.reason && reason !== outcome.reason)) {
            failures.push(`${label}: expected ${outcome.status} ${outcome.reason ?? ''}, got ${response.status} ${reason ?? ''} ${response.body?.error?.message ?? ''}`);
          }
        };
        const restore = async (target: Target & { user: Member }) => {
          const now = await membershipOf(api, place, target.user.user.id);
          const customRoleId = target.custom.length ? place.roleIds.get(target.custom.join())! : null;
          if (now === null) {
            await seat(api, place, target.user, target.role, target.custom, null);
          } else if (now[0] !== target.role || now[1] !== customRoleId) {
            const id = (await ok(admin(api, 'GET', `${place.base}?take=250`))).find((m: any) => m.userId === target.user.user.id).id;
            await ok(admin(api, 'PATCH', `${place.base}/${id}`, { role: target.role, roleId: customRoleId }));
          }
        };
        const idOf = async (userId: number) => (await ok(admin(api, 'GET', `${place.base}?take=250`))).find((m: any) => m.userId === userId).id as number;

        for (const target of targets) {
          const before = await membershipOf(api, place, target.user.user.id);
          const run = async (label: string, method: 'POST' | 'PATCH' | 'DELETE', path: string, body: unknown, outcome: Outcome) => {
            const response = await api.request(method, path, { key: caller.apiKey, ...(body !== undefined ? { body } : {}) });
            check(`${label} on ${target.name}`, outcome, response);
            if (response.status >= 400) {
              const after = await membershipOf(api, place, target.user.user.id);
              if (JSON.stringify(after) !== JSON.stringify(before)) failures.push(`${label} on ${target.name}: refused, yet the membership changed (${JSON.stringify(before)} -> ${JSON.stringify(after)})`);
            }
            await restore(target);
          };
          for (const given of givensOf(scope)) {
            const roleId = given.via === 'role' ? undefined : given.custom?.length ? place.roleIds.get(given.custom.join()) : `${given.role!.toLowerCase()}_role`;
            const body = given.via === 'role' ? { role: given.role } : { roleId };
            const label = `PATCH ${JSON.stringify(body).replace(/"[0-9a-f-]{36}"/, `"custom ${given.custom?.join('+')}"`)}`;
            await run(label, 'PATCH', `${place.base}/${await idOf(target.user.user.id)}`, body, expected(scope, 'PATCH', standing, target, given));
            if (scope === 'org' && given.via === 'role') {
              await run(`POST upsert ${given.role}`, 'POST', place.base, { userId: target.user.user.id, role: given.role, accepted: true }, expected(scope, 'POST', standing, target, given));
            }
          }
          await run('DELETE', 'DELETE', `${place.base}/${await idOf(target.user.user.id)}`, undefined, expected(scope, 'DELETE', standing, target, null));
        }
        for (const role of ['MEMBER', 'ADMIN', 'OWNER'] as const) {
          const response = await api.request('POST', place.base, { key: caller.apiKey, body: { userId: newcomer.user.id, role, accepted: true } });
          check(`POST a new member as ${role}`, expected(scope, 'POST', standing, null, { role, custom: null, via: 'role' }), response);
          const made = await membershipOf(api, place, newcomer.user.id);
          if (response.status >= 400 && made !== null) failures.push(`POST a new member as ${role}: refused, yet a membership was made`);
          if (made !== null) await ok(admin(api, 'DELETE', `${place.base}/${await idOf(newcomer.user.id)}`));
        }
        assert.deepEqual(failures, []);
      });
    }
  });
}

describe('roles cannot climb: custom roles, organization users and the ladders the probe climbed', () => {
  let api: TestApp;
  let owner: Member;
  let orgId: number;
  let orgBase: string;
  before(async () => {
    api = await createTestApp();
    owner = await createMember(api);
    orgId = (await createOrganization(api, { owner })).organization.id;
    orgBase = `/v2/organizations/${orgId}`;
  });
  after(() => api.close());

  /** A new member of the organization as `role`, with a custom role holding `permissions` when given. */
  async function orgMember(role: MembershipRole, permissions: string[] = []): Promise<Member & { membershipId: number }> {
    const member = await createMember(api);
    const membership = await ok(admin(api, 'POST', `${orgBase}/memberships`, { userId: member.user.id, role, accepted: true }), 201);
    if (permissions.length) {
      const custom = await ok(api.request('POST', `${orgBase}/roles`, { key: owner.apiKey, body: { name: `Holds ${Math.random()}`, permissions } }), 201);
      await ok(admin(api, 'PATCH', `${orgBase}/memberships/${membership.id}`, { roleId: custom.id }));
    }
    return { ...member, membershipId: membership.id };
  }

  const refused = (response: { status: number; body: any; text: string }, reason: string) => assert.deepEqual([response.status, response.body?.error?.details?.reason], [403, reason], response.text);

  test('an ADMIN makes no *.* role nor any role holding what an ADMIN does not hold; what it holds it may grant', async () => {
    const orgAdmin = await orgMember('ADMIN');
    const everything = await api.request('POST', `${orgBase}/roles`, { key: orgAdmin.apiKey, body: { name: 'Everything', permissions: ['*.*'] } });
    refused(everything, 'permission_not_held');
    assert.match(everything.body.error.message, /You can not grant permissions you do not hold: \*\.\*/);
    refused(await api.request('POST', `${orgBase}/roles`, { key: orgAdmin.apiKey, body: { name: 'Impersonators', permissions: ['organization.impersonate', 'booking.read'] } }), 'permission_not_held');
    const names = (await ok(api.request('GET', `${orgBase}/roles`, { key: owner.apiKey }))).map((role: any) => role.name);
    assert.ok(!names.includes('Everything') && !names.includes('Impersonators'), 'nothing was made');
    const fine = await ok(api.request('POST', `${orgBase}/roles`, { key: orgAdmin.apiKey, body: { name: 'Readers', permissions: ['booking.read', 'organization.changeMemberRole'] } }), 201);

    for (const [method, path, body] of [
      ['PATCH', `${orgBase}/roles/${fine.id}`, { permissions: ['*.*'] }],
      ['POST', `${orgBase}/roles/${fine.id}/permissions`, { permissions: ['organization.impersonate'] }],
      ['PUT', `${orgBase}/roles/${fine.id}/permissions`, { permissions: ['booking.read', 'watchlist.read'] }],
    ] as const) {
      refused(await api.request(method, path, { key: orgAdmin.apiKey, body }), 'permission_not_held');
    }
    assert.deepEqual(await ok(api.request('GET', `${orgBase}/roles/${fine.id}/permissions`, { key: owner.apiKey })), ['booking.read', 'organization.changeMemberRole'], 'unchanged');

    // A role holding more than the caller is not the caller's to change, trim or delete.
    const strong = await ok(api.request('POST', `${orgBase}/roles`, { key: owner.apiKey, body: { name: 'Strong', permissions: ['organization.impersonate', 'booking.read'] } }), 201);
    refused(await api.request('PATCH', `${orgBase}/roles/${strong.id}`, { key: orgAdmin.apiKey, body: { name: 'Weakened' } }), 'permission_not_held');
    refused(await api.request('DELETE', `${orgBase}/roles/${strong.id}/permissions/booking.read`, { key: orgAdmin.apiKey }), 'permission_not_held');
    refused(await api.request('DELETE', `${orgBase}/roles/${strong.id}`, { key: orgAdmin.apiKey }), 'permission_not_held');
    assert.equal((await ok(api.request('GET', `${orgBase}/roles/${strong.id}`, { key: owner.apiKey }))).name, 'Strong');
    assert.equal((await api.request('DELETE', `${orgBase}/roles/${strong.id}`, { key: owner.apiKey })).status, 200, 'the owner may');
  });

  test('a MEMBER whose custom role holds role.create or role.update grants only what it holds, and cannot grow its own role', async () => {
    const maker = await orgMember('MEMBER', ['role.create', 'role.update']);
    refused(await api.request('POST', `${orgBase}/roles`, { key: maker.apiKey, body: { name: 'Climb', permissions: ['organization.changeMemberRole'] } }), 'permission_not_held');
    const made = await ok(api.request('POST', `${orgBase}/roles`, { key: maker.apiKey, body: { name: `Mine ${Math.random()}`, permissions: ['booking.read', 'role.create'] } }), 201);
    // Its own custom role: adding to it what it does not hold is refused.
    const ownRoleId = (await ok(admin(api, 'GET', `${orgBase}/memberships/${maker.membershipId}`))).customRoleId;
    refused(await api.request('POST', `${orgBase}/roles/${ownRoleId}/permissions`, { key: maker.apiKey, body: { permissions: ['organization.invite'] } }), 'permission_not_held');
    assert.deepEqual(await ok(api.request('GET', `${orgBase}/roles/${ownRoleId}/permissions`, { key: owner.apiKey })), ['role.create', 'role.update']);
    assert.equal((await api.request('PATCH', `${orgBase}/roles/${made.id}`, { key: maker.apiKey, body: { permissions: ['booking.read'] } })).status, 200);
  });

  test('the probe\'s ladders: a MEMBER with changeMemberRole or invite makes nobody OWNER or ADMIN; an ADMIN hands out no *.* role', async () => {
    const changer = await orgMember('MEMBER', ['organization.changeMemberRole']);
    const friend = await orgMember('MEMBER');
    refused(await api.request('PATCH', `${orgBase}/memberships/${changer.membershipId}`, { key: changer.apiKey, body: { role: 'OWNER' } }), 'owner_role_owners_only');
    refused(await api.request('PATCH', `${orgBase}/memberships/${changer.membershipId}`, { key: changer.apiKey, body: { roleId: 'admin_role' } }), 'own_role_raise');
    refused(await api.request('PATCH', `${orgBase}/memberships/${friend.membershipId}`, { key: changer.apiKey, body: { roleId: 'owner_role' } }), 'owner_role_owners_only');
    refused(await api.request('PATCH', `${orgBase}/memberships/${friend.membershipId}`, { key: changer.apiKey, body: { role: 'ADMIN' } }), 'role_above_own');

    const inviter = await orgMember('MEMBER', ['organization.invite']);
    const outsider = await createMember(api);
    refused(await api.request('POST', `${orgBase}/memberships`, { key: inviter.apiKey, body: { userId: outsider.user.id, role: 'OWNER', accepted: true } }), 'owner_role_owners_only');
    refused(await api.request('POST', `${orgBase}/memberships`, { key: inviter.apiKey, body: { userId: friend.user.id, role: 'ADMIN', accepted: true } }), 'role_above_own');
    refused(await api.request('POST', `${orgBase}/memberships`, { key: inviter.apiKey, body: { userId: inviter.user.id, role: 'OWNER', accepted: true } }), 'owner_role_owners_only');

    const orgAdmin = await orgMember('ADMIN');
    refused(await api.request('PATCH', `${orgBase}/memberships/${orgAdmin.membershipId}`, { key: orgAdmin.apiKey, body: { role: 'OWNER' } }), 'owner_role_owners_only');
    const ownerMembership = (await ok(admin(api, 'GET', `${orgBase}/memberships?take=250`))).find((m: any) => m.userId === owner.user.id);
    refused(await api.request('PATCH', `${orgBase}/memberships/${ownerMembership.id}`, { key: orgAdmin.apiKey, body: { role: 'MEMBER' } }), 'owner_membership_owners_only');
    refused(await api.request('DELETE', `${orgBase}/memberships/${ownerMembership.id}`, { key: orgAdmin.apiKey }), 'owner_membership_owners_only');
    const roles = await ok(admin(api, 'GET', `${orgBase}/memberships?take=250`));
    assert.deepEqual(
      roles.filter((m: any) => [changer, friend, inviter, orgAdmin, owner].some((who) => who.user.id === m.userId)).map((m: any) => m.role).sort(),
      ['ADMIN', 'MEMBER', 'MEMBER', 'MEMBER', 'OWNER'],
      'nobody climbed',
    );
  });

  test('organization users: an ADMIN creates no OWNER user and removes no OWNER; an OWNER may do both', async () => {
    const orgAdmin = await orgMember('ADMIN');
    const email = () => `made-${Math.random().toString(36).slice(2)}@example.com`;
    const asOwnerByAdmin = await api.request('POST', `${orgBase}/users`, { key: orgAdmin.apiKey, body: { email: email(), organizationRole: 'OWNER' } });
    refused(asOwnerByAdmin, 'owner_role_owners_only');
    const made = await ok(api.request('POST', `${orgBase}/users`, { key: owner.apiKey, body: { email: email(), organizationRole: 'OWNER' } }), 201);
    refused(await api.request('DELETE', `${orgBase}/users/${made.id}`, { key: orgAdmin.apiKey }), 'owner_membership_owners_only');
    assert.equal((await api.request('DELETE', `${orgBase}/users/${made.id}`, { key: owner.apiKey })).status, 200);
  });
});
