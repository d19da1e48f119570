// Organization teams, their memberships and invites, and organization memberships: the reference's
// OrganizationsTeamsController, OrganizationsTeamsMembershipsController, OrganizationsTeamsInviteController
// and OrganizationsMembershipsController, behind IsOrgGuard (403), RolesGuard (403) and IsTeamInOrg (404).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, createManagedUser } from '../platform/helpers.js';
import { createMember, createOrganization, createOrgMember, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, backend, createPeerApp, createTestApp, type TestApp } from '../support/test-app.js';


describe('organization teams (/v2/organizations/{orgId}/teams)', () => {
  let api: TestApp;
  let orgId: number;
  let owner: Member;
  before(async () => {
    api = await createTestApp();
    const made = await createOrganization(api);
    orgId = made.organization.id;
    owner = made.owner;
  });
  after(() => api.close());

  test('an organization admin creates, lists, reads, updates and deletes teams; the creator is the team OWNER; slugs are unique within the organization only', async () => {
    const admin = await createOrgMember(api, orgId, owner.apiKey, 'ADMIN');
    const created = await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: admin.apiKey, body: { name: 'Support Desk' } });
    assert.equal(created.status, 201, created.text);
    const team = created.body.data;
    assert.deepEqual([team.parentId, team.slug, team.isOrganization], [orgId, 'support-desk', false]);
    const members = await api.request('GET', `/v2/organizations/${orgId}/teams/${team.id}/memberships`, { key: admin.apiKey });
    assert.deepEqual(members.body.data.map((m: any) => [m.userId, m.role, m.accepted]), [[admin.user.id, 'OWNER', true]]);

    assert.equal((await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: admin.apiKey, body: { name: 'Support Desk' } })).status, 409);
    const other = await createOrganization(api);
    assert.equal((await api.request('POST', `/v2/organizations/${other.organization.id}/teams`, { key: other.owner.apiKey, body: { name: 'Support Desk' } })).status, 201, 'another organization may use the slug');

    const list = await api.request('GET', `/v2/organizations/${orgId}/teams`, { key: admin.apiKey });
    assert.deepEqual(list.body.data.map((t: any) => t.id), [team.id]);
    assert.equal((await api.request('GET', `/v2/organizations/${orgId}/teams/${team.id}`, { key: admin.apiKey })).body.data.name, 'Support Desk');
    const patched = await api.request('PATCH', `/v2/organizations/${orgId}/teams/${team.id}`, { key: owner.apiKey, body: { name: 'Support', slug: 'support' } });
    assert.deepEqual([patched.status, patched.body.data.slug], [200, 'support']);
    const deleted = await api.request('DELETE', `/v2/organizations/${orgId}/teams/${team.id}`, { key: admin.apiKey });
    assert.deepEqual([deleted.status, deleted.body.data.id], [200, team.id]);
    const gone = await api.request('GET', `/v2/organizations/${orgId}/teams/${team.id}`, { key: admin.apiKey });
    assert.deepEqual([gone.status, gone.body.error.message], [404, `IsTeamInOrg - Team (${team.id}) not found.`]);
  });

  test('the system admin creates a team without joining it', async () => {
    const created = await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: ADMIN_API_KEY, body: { name: 'Made By Admin' } });
    assert.equal(created.status, 201, created.text);
    const members = await api.request('GET', `/v2/organizations/${orgId}/teams/${created.body.data.id}/memberships`, { key: owner.apiKey });
    assert.deepEqual(members.body.data, []);
  });

  test('refusals follow the reference guards: not an organization 403, outsider 403, member 403, team of another organization 404', async () => {
    const member = await createOrgMember(api, orgId, owner.apiKey);
    const outsider = await createMember(api);
    const team = (await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: 'Guarded' } })).body.data;

    const notOrg = await api.request('GET', `/v2/organizations/${team.id}/teams`, { key: owner.apiKey });
    assert.deepEqual([notOrg.status, notOrg.body.error.message], [403, `IsOrgGuard - provided organization id=${team.id} does not represent any existing organization.`]);
    assert.equal((await api.request('GET', '/v2/organizations/99999999/teams', { key: owner.apiKey })).status, 403, 'a missing organization is 403 too');

    const byOutsider = await api.request('GET', `/v2/organizations/${orgId}/teams/${team.id}`, { key: outsider.apiKey });
    assert.deepEqual([byOutsider.status, byOutsider.body.error.message], [403, `RolesGuard - User is not part of the organization with id=${orgId}.`]);
    const listByMember = await api.request('GET', `/v2/organizations/${orgId}/teams`, { key: member.apiKey });
    assert.equal(listByMember.status, 403);
    assert.match(listByMember.body.error.message, /minimum required role=ORG_ADMIN/);
    const teamByMember = await api.request('GET', `/v2/organizations/${orgId}/teams/${team.id}`, { key: member.apiKey });
    assert.equal(teamByMember.status, 403, 'a member outside the team');

    const other = await createOrganization(api);
    const foreignTeam = (await api.request('POST', `/v2/organizations/${other.organization.id}/teams`, { key: other.owner.apiKey, body: { name: 'Foreign' } })).body.data;
    const crossed = await api.request('GET', `/v2/organizations/${orgId}/teams/${foreignTeam.id}`, { key: owner.apiKey });
    assert.deepEqual([crossed.status, crossed.body.error.message], [404, `IsTeamInOrg - Team (${foreignTeam.id}) not found.`]);
    assert.equal((await api.request('DELETE', `/v2/organizations/${orgId}/teams/${foreignTeam.id}`, { key: owner.apiKey })).status, 404);
    assert.equal((await api.request('GET', `/v2/organizations/${other.organization.id}/teams/${foreignTeam.id}`, { key: other.owner.apiKey })).status, 200, 'still there');
  });

  test('teams/me: admins see every team, members their own with role and accepted; a team admin who is an organization member manages the team', async () => {
    const org = await createOrganization(api);
    const oid = org.organization.id;
    const a = (await api.request('POST', `/v2/organizations/${oid}/teams`, { key: org.owner.apiKey, body: { name: 'A' } })).body.data;
    const b = (await api.request('POST', `/v2/organizations/${oid}/teams`, { key: org.owner.apiKey, body: { name: 'B' } })).body.data;
    const member = await createOrgMember(api, oid, org.owner.apiKey);
    const added = await api.request('POST', `/v2/organizations/${oid}/teams/${b.id}/memberships`, { key: org.owner.apiKey, body: { userId: member.user.id, role: 'ADMIN' } });
    assert.equal(added.status, 201, added.text);

    const mine = await api.request('GET', `/v2/organizations/${oid}/teams/me`, { key: member.apiKey });
    assert.deepEqual(mine.body.data.map((t: any) => [t.id, t.role, t.accepted]), [[b.id, 'ADMIN', false]]);
    const all = await api.request('GET', `/v2/organizations/${oid}/teams/me`, { key: org.owner.apiKey });
    assert.deepEqual(all.body.data.map((t: any) => [t.id, t.role]), [[a.id, 'OWNER'], [b.id, 'OWNER']]);

    assert.equal((await api.request('GET', `/v2/organizations/${oid}/teams/${b.id}`, { key: member.apiKey })).status, 200, 'TEAM_ADMIN reads its team');
    assert.equal((await api.request('GET', `/v2/organizations/${oid}/teams/${a.id}`, { key: member.apiKey })).status, 403);
    assert.equal((await api.request('GET', `/v2/organizations/${oid}/teams/${b.id}/memberships`, { key: member.apiKey })).status, 200);
    assert.equal((await api.request('PATCH', `/v2/organizations/${oid}/teams/${b.id}`, { key: member.apiKey, body: { name: 'Nope' } })).status, 403, 'updating needs ORG_ADMIN');
  });

  test('invite: a 64-hex token and a link under APP_URL, stored only as a hash', async () => {
    const team = (await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: 'Invited' } })).body.data;
    const response = await api.request('POST', `/v2/organizations/${orgId}/teams/${team.id}/invite`, { key: owner.apiKey });
    assert.equal(response.status, 200, response.text);
    const { token, inviteLink } = response.body.data;
    assert.match(token, /^[0-9a-f]{64}$/);
    assert.equal(inviteLink, `${api.config.appUrl.replace(/\/+$/, '')}/teams?token=${token}`);
    const rows: any = await api.runtime.ctx.database.db.execute(`select hashed_token from team_invite_tokens where team_id = ${team.id}` as never);
    const stored = (rows.rows ?? rows).map((row: any) => row.hashed_token);
    assert.equal(stored.length, 1);
    assert.notEqual(stored[0], token);
  });
});

describe('organization team memberships and organization memberships', () => {
  let api: TestApp;
  let orgId: number;
  let owner: Member;
  before(async () => {
    api = await createTestApp();
    const made = await createOrganization(api);
    orgId = made.organization.id;
    owner = made.owner;
  });
  after(() => api.close());

  test('a team membership needs a user of the organization (422 otherwise); reads and changes answer 404 outside the team', async () => {
    const team = (await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: 'Members' } })).body.data;
    const stranger = await createMember(api);
    const refused = await api.request('POST', `/v2/organizations/${orgId}/teams/${team.id}/memberships`, { key: owner.apiKey, body: { userId: stranger.user.id } });
    assert.deepEqual([refused.status, refused.body.error.message], [422, 'User is not part of the Organization']);

    const member = await createOrgMember(api, orgId, owner.apiKey);
    const created = await api.request('POST', `/v2/organizations/${orgId}/teams/${team.id}/memberships`, { key: owner.apiKey, body: { userId: member.user.id, accepted: true } });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    const patched = await api.request('PATCH', `/v2/organizations/${orgId}/teams/${team.id}/memberships/${id}`, { key: owner.apiKey, body: { role: 'ADMIN' } });
    assert.deepEqual([patched.body.data.role, patched.body.data.accepted], ['ADMIN', true]);
    const otherTeam = (await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: 'Other' } })).body.data;
    const wrongTeam = await api.request('GET', `/v2/organizations/${orgId}/teams/${otherTeam.id}/memberships/${id}`, { key: owner.apiKey });
    assert.deepEqual([wrongTeam.status, wrongTeam.body.error.message], [404, "Organization's Team membership not found"]);
    // OrganizationsTeamsMembershipsService.deleteOrgTeamMembership: `Membership with id ${membershipId} not found in team ${teamId} of organization ${organizationId}`.
    const wrongDelete = await api.request('DELETE', `/v2/organizations/${orgId}/teams/${otherTeam.id}/memberships/${id}`, { key: owner.apiKey });
    assert.deepEqual([wrongDelete.status, wrongDelete.body.error.message], [404, `Membership with id ${id} not found in team ${otherTeam.id} of organization ${orgId}`]);
    assert.equal((await api.request('DELETE', `/v2/organizations/${orgId}/teams/${team.id}/memberships/${id}`, { key: owner.apiKey })).status, 200);
  });

  test('organization memberships: the reference output with attributes, upsert on a second create, 404 for another organization\'s membership', async () => {
    const user = await createMember(api);
    const created = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey, body: { userId: user.user.id } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(
      [created.body.data.teamId, created.body.data.role, created.body.data.accepted, created.body.data.attributes, created.body.data.user],
      [orgId, 'MEMBER', false, [], undefined],
      'pending, and nothing of the invitee shown',
    );
    const forced = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey, body: { userId: user.user.id, role: 'ADMIN', accepted: true } });
    assert.deepEqual([forced.status, forced.body.error.details.reason], [403, 'membership_acceptance_by_member_only'], 'the upsert accepts for nobody');
    const again = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey, body: { userId: user.user.id, role: 'ADMIN' } });
    assert.deepEqual([again.status, again.body.data.id, again.body.data.role, again.body.data.accepted], [201, created.body.data.id, 'ADMIN', false]);
    const accepted = await api.request('POST', `/v2/organizations/${orgId}/memberships/${created.body.data.id}/accept`, { key: user.apiKey });
    assert.deepEqual([accepted.status, accepted.body.data.accepted, accepted.body.data.role, accepted.body.data.user.email], [200, true, 'ADMIN', user.user.email]);

    const other = await createOrganization(api);
    const foreign = await api.request('GET', `/v2/organizations/${orgId}/memberships/${(await api.request('GET', `/v2/organizations/${other.organization.id}/memberships`, { key: other.owner.apiKey })).body.data[0].id}`, { key: owner.apiKey });
    assert.equal(foreign.status, 404);
    assert.match(foreign.body.error.message, /^IsMembershipInOrg - Membership \(\d+\) not found\.$/);
    assert.equal((await api.request('GET', `/v2/organizations/${orgId}/memberships`, { key: other.owner.apiKey })).status, 403, 'another organization\'s owner');
  });

  test("platform organizations and their clients' managed users join only each other, as the reference's canUserBeAddedToOrg decides", async () => {
    // OrganizationsMembershipService.createOrgMembership first calls canUserBeAddedToOrg: a user no client manages joins an
    // organization without clients, a managed user one of whose clients manages them; anything else is a BadRequestException
    // with REGULAR_USER_BEING_ADDED_TO_PLATFORM_ORG_ERROR, PLATFORM_USER_BEING_ADDED_TO_REGULAR_ORG_ERROR or
    // MANAGED_USER_AND_MANAGED_ORG_CREATED_WITH_DIFFERENT_OAUTH_CLIENTS_ERROR.
    const platform = await createOrganization(api, { isPlatform: true });
    const otherPlatform = await createOrganization(api, { isPlatform: true });
    const client = await createClient(api, platform.owner.apiKey);
    await createClient(api, otherPlatform.owner.apiKey);
    const managed = (await createManagedUser(api, client)).user;
    const regular = await createMember(api);
    const add = (organizationId: number, key: string, userId: number) => api.request('POST', `/v2/organizations/${organizationId}/memberships`, { key, body: { userId } });

    const intoRegular = await add(orgId, owner.apiKey, managed.id);
    assert.deepEqual(
      [intoRegular.status, intoRegular.body.error.message, intoRegular.body.error.details.reason],
      [400, "Can't add user to organization - the user is platform managed user but organization is not because organization probably was not created using OAuth credentials.", 'managed_user_regular_organization'],
    );
    const intoOtherPlatform = await add(otherPlatform.organization.id, otherPlatform.owner.apiKey, managed.id);
    assert.deepEqual(
      [intoOtherPlatform.status, intoOtherPlatform.body.error.message, intoOtherPlatform.body.error.details.reason],
      [400, "Can't add user to organization - managed user and organization were created using different OAuth clients.", 'managed_user_other_client'],
    );
    const regularIntoPlatform = await add(platform.organization.id, platform.owner.apiKey, regular.user.id);
    assert.deepEqual(
      [regularIntoPlatform.status, regularIntoPlatform.body.error.message, regularIntoPlatform.body.error.details.reason],
      [400, "Can't add user to organization - the user is not platform managed user but organization is platform managed. Both have to be created using OAuth credentials.", 'regular_user_platform_organization'],
    );
    const own = await add(platform.organization.id, platform.owner.apiKey, managed.id);
    assert.deepEqual([own.status, own.body.data.userId], [201, managed.id], 'its own client\'s user: the upsert takes them');
    // A platform organization without clients yet takes anyone, as the reference (no client to compare with).
    assert.equal((await add(otherPlatform.organization.id, otherPlatform.owner.apiKey, regular.user.id)).status, 400);
    const fresh = await createOrganization(api, { isPlatform: true });
    assert.equal((await add(fresh.organization.id, fresh.owner.apiKey, regular.user.id)).status, 201);
  });

  test('leaving the organization removes the member from its teams and its profile there', async () => {
    const member = await createOrgMember(api, orgId, owner.apiKey);
    const team = (await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: 'Leavers' } })).body.data;
    await api.request('POST', `/v2/organizations/${orgId}/teams/${team.id}/memberships`, { key: owner.apiKey, body: { userId: member.user.id } });
    const removed = await api.request('DELETE', `/v2/organizations/${orgId}/memberships/${member.membershipId}`, { key: owner.apiKey });
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual((await api.request('GET', `/v2/organizations/${orgId}/teams/${team.id}/memberships`, { key: owner.apiKey })).body.data.map((m: any) => m.userId), [owner.user.id]);
    const rows: any = await api.runtime.ctx.database.db.execute(`select count(*)::int as n from profiles where organization_id = ${orgId} and user_id = ${member.user.id}` as never);
    assert.equal((rows.rows ?? rows)[0].n, 0);
  });

  test('the last OWNER of an organization stays: demoting or removing it is a 400 naming it', async () => {
    const list = await api.request('GET', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey });
    const own = list.body.data.find((m: any) => m.userId === owner.user.id);
    const demote = await api.request('PATCH', `/v2/organizations/${orgId}/memberships/${own.id}`, { key: owner.apiKey, body: { role: 'MEMBER' } });
    assert.deepEqual([demote.status, demote.body.error.details.reason, demote.body.error.details.userId], [400, 'last_owner', owner.user.id]);
    assert.equal((await api.request('DELETE', `/v2/organizations/${orgId}/memberships/${own.id}`, { key: owner.apiKey })).status, 400);
  });

  test('deleting the organization removes its teams, memberships and profiles in one go; its users stay', async () => {
    const org = await createOrganization(api);
    const oid = org.organization.id;
    const team = (await api.request('POST', `/v2/organizations/${oid}/teams`, { key: org.owner.apiKey, body: { name: 'Doomed' } })).body.data;
    const deleted = await api.request('DELETE', `/v2/admin/organizations/${oid}`, { key: ADMIN_API_KEY });
    assert.equal(deleted.status, 200, deleted.text);
    const rows: any = await api.runtime.ctx.database.db.execute(
      `select (select count(*) from teams where id in (${oid}, ${team.id}))::int as t, (select count(*) from memberships where team_id in (${oid}, ${team.id}))::int as m, (select count(*) from profiles where organization_id = ${oid})::int as p` as never,
    );
    assert.deepEqual({ ...(rows.rows ?? rows)[0] }, { t: 0, m: 0, p: 0 });
    assert.equal((await api.request('GET', '/v2/me', { key: org.owner.apiKey })).status, 200);
  });
});

describe('the last OWNER under concurrency (PostgreSQL)', { skip: backend !== 'postgres' && 'needs several database sessions' }, () => {
  test('two processes removing the last two OWNERs at once leave one', async () => {
    const first = await createTestApp();
    const second = await createPeerApp(first);
    try {
      for (let round = 0; round < 5; round++) {
        const made = await createOrganization(first);
        const orgId = made.organization.id;
        const coOwner = await createOrgMember(first, orgId, made.owner.apiKey, 'OWNER');
        const own = (await first.request('GET', `/v2/organizations/${orgId}/memberships`, { key: made.owner.apiKey })).body.data.find((m: any) => m.userId === made.owner.user.id);
        const results = await Promise.all([
          first.request('DELETE', `/v2/organizations/${orgId}/memberships/${own.id}`, { key: ADMIN_API_KEY }),
          second.request('DELETE', `/v2/organizations/${orgId}/memberships/${coOwner.membershipId}`, { key: ADMIN_API_KEY }),
        ]);
        assert.deepEqual(results.map((r) => r.status).sort(), [200, 400], results.map((r) => r.text).join('\n'));
        const owners = (await first.request('GET', `/v2/organizations/${orgId}/memberships`, { key: ADMIN_API_KEY })).body.data.filter((m: any) => m.role === 'OWNER');
        assert.equal(owners.length, 1);
      }
    } finally {
      await second.close();
      await first.close();
    }
  });
});
