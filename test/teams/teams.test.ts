// /v2/teams and /v2/teams/{teamId}/memberships: the reference's TeamsController and
// TeamsMembershipsController (RolesGuard with TEAM_MEMBER / TEAM_ADMIN / TEAM_OWNER).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addTeamMember, createMember, createTeam, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';

describe('teams (/v2/teams)', () => {
  let api: TestApp;
  let owner: Member;
  before(async () => {
    api = await createTestApp();
    owner = await createMember(api);
  });
  after(() => api.close());

  test('POST makes the caller an accepted OWNER, a kebab slug from the name, Europe/London and Sunday by default, and a default schedule', async () => {
    const response = await api.request('POST', '/v2/teams', { key: owner.apiKey, body: { name: 'Ünïcode Sales  Team!' } });
    assert.equal(response.status, 201, response.text);
    const team = response.body.data;
    assert.deepEqual(
      [team.slug, team.timeZone, team.weekStart, team.isOrganization, team.parentId, team.hideBranding, team.metadata],
      ['unicode-sales-team', 'Europe/London', 'Sunday', false, null, false, {}],
    );
    const memberships = await api.request('GET', `/v2/teams/${team.id}/memberships`, { key: owner.apiKey });
    assert.equal(memberships.status, 200, memberships.text);
    assert.deepEqual(memberships.body.data.map((m: any) => [m.userId, m.role, m.accepted]), [[owner.user.id, 'OWNER', true]]);
    assert.equal(memberships.body.data[0].user.email, owner.user.email);
    const [schedule] = await api.runtime.ctx.database.db.execute(
      `select s.time_zone, s.team_id, s.user_id from schedules s join teams t on t.default_schedule_id = s.id where t.id = ${Number(team.id)}` as never,
    ).then((result: any) => result.rows ?? result);
    assert.deepEqual([schedule.time_zone, schedule.team_id, schedule.user_id], ['Europe/London', team.id, null]);
  });

  test('a team answers exactly the fields of the reference\'s TeamOutputDto (calVideoLogo spelled svcVideoLogo)', async () => {
    const team = await createTeam(api, owner, { bio: 'Shape', brandColor: '#123456', timeFormat: 24 });
    const reference = [
      'id', 'parentId', 'name', 'slug', 'logoUrl', 'svcVideoLogo', 'appLogo', 'appIconLogo', 'bio', 'hideBranding', 'isOrganization', 'isPrivate',
      'hideBookATeamMember', 'metadata', 'theme', 'brandColor', 'darkBrandColor', 'bannerUrl', 'timeFormat', 'timeZone', 'weekStart',
    ];
    assert.deepEqual(Object.keys(team).sort(), [...reference].sort());
    const read = await api.request('GET', `/v2/teams/${team.id}`, { key: owner.apiKey });
    assert.deepEqual(Object.keys(read.body.data).sort(), [...reference].sort());
    assert.deepEqual([read.body.data.bio, read.body.data.brandColor, read.body.data.timeFormat], ['Shape', '#123456', 24]);
  });

  test('the team schedule is made in the team\'s time zone; autoAcceptCreator false leaves the OWNER membership pending', async () => {
    const team = await createTeam(api, owner, { timeZone: 'Asia/Kathmandu', autoAcceptCreator: false });
    const rows: any = await api.runtime.ctx.database.db.execute(`select s.time_zone from schedules s join teams t on t.default_schedule_id = s.id where t.id = ${team.id}` as never);
    assert.equal((rows.rows ?? rows)[0].time_zone, 'Asia/Kathmandu');
    const memberships = await api.request('GET', `/v2/teams/${team.id}/memberships`, { key: owner.apiKey });
    assert.equal(memberships.body.data[0].accepted, false);
  });

  test('a taken slug is a 409 naming slug; a name the caller already has a team of is the reference 400; bad fields are 400s naming them', async () => {
    const first = await createTeam(api, owner);
    const other = await createMember(api);
    const taken = await api.request('POST', '/v2/teams', { key: other.apiKey, body: { name: 'Anything', slug: first.slug.toUpperCase().toLowerCase() } });
    assert.equal(taken.status, 409, taken.text);
    assert.equal(taken.body.error.details.errors[0].property, 'slug');
    const sameName = await api.request('POST', '/v2/teams', { key: owner.apiKey, body: { name: first.name, slug: `x-${first.slug}` } });
    assert.equal(sameName.status, 400);
    assert.equal(sameName.body.error.message, `You already have created a team with name=${first.name}`);
    for (const [field, value] of [['slug', 'Not Kebab'], ['timeZone', 'Mars/Base'], ['weekStart', 'Funday'], ['metadata', 'text'], ['brandColor', 'red'], ['name', '']] as const) {
      const response = await api.request('POST', '/v2/teams', { key: owner.apiKey, body: { name: 'Valid', [field]: value } });
      assert.equal(response.status, 400, `${field}: ${response.text}`);
      assert.equal(response.body.error.details.errors[0].property, field);
    }
  });

  test('GET lists the caller\'s teams, pending ones included; GET one needs any membership (outsider 403); PATCH and DELETE need the OWNER (admin 403)', async () => {
    const team = await createTeam(api, owner);
    const admin = await createMember(api);
    const pending = await createMember(api);
    const outsider = await createMember(api);
    await addTeamMember(api, owner.apiKey, team.id, admin, 'ADMIN');
    await addTeamMember(api, owner.apiKey, team.id, pending, 'MEMBER', false);

    assert.ok((await api.request('GET', '/v2/teams', { key: pending.apiKey })).body.data.some((t: any) => t.id === team.id));
    assert.deepEqual((await api.request('GET', '/v2/teams', { key: outsider.apiKey })).body.data, []);
    assert.equal((await api.request('GET', `/v2/teams/${team.id}`, { key: pending.apiKey })).status, 200);
    const refused = await api.request('GET', `/v2/teams/${team.id}`, { key: outsider.apiKey });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.message, `RolesGuard - User is not a member of the team with id=${team.id}.`);

    const byAdmin = await api.request('PATCH', `/v2/teams/${team.id}`, { key: admin.apiKey, body: { name: 'Renamed' } });
    assert.equal(byAdmin.status, 403);
    assert.match(byAdmin.body.error.message, /minimum required role=TEAM_OWNER/);
    const patched = await api.request('PATCH', `/v2/teams/${team.id}`, { key: owner.apiKey, body: { name: 'Renamed', bio: 'We sell' } });
    assert.deepEqual([patched.status, patched.body.data.name, patched.body.data.bio, patched.body.data.slug], [200, 'Renamed', 'We sell', team.slug]);

    assert.equal((await api.request('DELETE', `/v2/teams/${team.id}`, { key: admin.apiKey })).status, 403);
    const deleted = await api.request('DELETE', `/v2/teams/${team.id}`, { key: owner.apiKey });
    assert.deepEqual([deleted.status, deleted.body.data.id], [200, team.id]);
    assert.equal((await api.request('GET', `/v2/teams/${team.id}`, { key: owner.apiKey })).status, 403, 'gone with its memberships');
    const left: any = await api.runtime.ctx.database.db.execute(`select (select count(*) from memberships where team_id = ${team.id})::int as m, (select count(*) from schedules where team_id = ${team.id})::int as s` as never);
    assert.deepEqual([(left.rows ?? left)[0].m, (left.rows ?? left)[0].s], [0, 0]);
  });

  test('the system admin may read, change and delete any team; a missing one is 404 for it', async () => {
    const team = await createTeam(api, owner);
    assert.equal((await api.request('GET', `/v2/teams/${team.id}`, { key: ADMIN_API_KEY })).status, 200);
    assert.equal((await api.request('GET', '/v2/teams/99999999', { key: ADMIN_API_KEY })).status, 404);
    assert.equal((await api.request('GET', '/v2/teams/99999999', { key: owner.apiKey })).status, 403);
  });
});

describe('team memberships (/v2/teams/{teamId}/memberships)', () => {
  let api: TestApp;
  let owner: Member;
  before(async () => {
    api = await createTestApp();
    owner = await createMember(api);
  });
  after(() => api.close());

  test('create, read, update and delete, with the reference output; a member may not manage memberships (403); the invitee alone accepts', async () => {
    const team = await createTeam(api, owner);
    const member = await createMember(api);
    const created = await api.request('POST', `/v2/teams/${team.id}/memberships`, { key: owner.apiKey, body: { userId: member.user.id, accepted: true } });
    assert.equal(created.status, 201, created.text);
    const { id, ...rest } = created.body.data;
    assert.deepEqual(
      rest,
      { userId: member.user.id, teamId: team.id, accepted: false, role: 'MEMBER', disableImpersonation: false, customRoleId: null },
      'pending whatever accepted says, and nothing of the user is shown until they accept',
    );
    assert.equal((await api.request('GET', `/v2/teams/${team.id}/memberships`, { key: member.apiKey })).status, 403);
    const forced = await api.request('PATCH', `/v2/teams/${team.id}/memberships/${id}`, { key: owner.apiKey, body: { accepted: true } });
    assert.deepEqual([forced.status, forced.body.error.details.reason], [403, 'membership_acceptance_by_member_only']);
    const accepted = await api.request('POST', `/v2/teams/${team.id}/memberships/${id}/accept`, { key: member.apiKey });
    assert.equal(accepted.status, 200, accepted.text);
    assert.deepEqual(accepted.body.data.user, { avatarUrl: null, username: member.user.username, name: (member.user as any).name, email: member.user.email, bio: null, metadata: {} });
    const patched = await api.request('PATCH', `/v2/teams/${team.id}/memberships/${id}`, { key: owner.apiKey, body: { disableImpersonation: true } });
    assert.deepEqual([patched.status, patched.body.data.accepted, patched.body.data.role, patched.body.data.disableImpersonation], [200, true, 'MEMBER', true], 'only what is sent changes');
    assert.equal((await api.request('GET', `/v2/teams/${team.id}/memberships/${id}`, { key: owner.apiKey })).body.data.accepted, true);
    const deleted = await api.request('DELETE', `/v2/teams/${team.id}/memberships/${id}`, { key: owner.apiKey });
    assert.deepEqual([deleted.status, deleted.body.data.id], [200, id]);
    assert.equal((await api.request('GET', `/v2/teams/${team.id}/memberships/${id}`, { key: owner.apiKey })).status, 404);
  });

  test('a duplicate is 409; an unknown user is a 400 naming userId; a bad role is a 400 naming role', async () => {
    const team = await createTeam(api, owner);
    const member = await createMember(api);
    await addTeamMember(api, owner.apiKey, team.id, member);
    assert.equal((await api.request('POST', `/v2/teams/${team.id}/memberships`, { key: owner.apiKey, body: { userId: member.user.id } })).status, 409);
    const unknown = await api.request('POST', `/v2/teams/${team.id}/memberships`, { key: owner.apiKey, body: { userId: 99999999 } });
    assert.deepEqual([unknown.status, unknown.body.error.details.errors[0].property], [400, 'userId']);
    const badRole = await api.request('POST', `/v2/teams/${team.id}/memberships`, { key: owner.apiKey, body: { userId: member.user.id, role: 'KING' } });
    assert.deepEqual([badRole.status, badRole.body.error.details.errors[0].property], [400, 'role']);
  });

  test('?emails= filters the list: comma-separated or repeated, trimmed, any case, at most 20 distinct addresses; a pending invitee matches nothing', async () => {
    // The reference's GetTeamMembershipsInput: emails split on commas (a repeated parameter too), trimmed, lower-cased and
    // de-duplicated, then `@ArrayMaxSize(20, { message: "emails array cannot contain more than 20 email addresses for team
    // membership filtering" })` and `@IsEmail({}, { each: true, message: "Each email must be a valid email address" })`;
    // its e2e "should handle empty emails array gracefully" (`?emails=` lists everyone) and "should validate email array
    // size limits" (21 addresses, `.expect(400)`).
    const team = await createTeam(api, owner);
    const [alice, bob, carol] = [await createMember(api), await createMember(api), await createMember(api)];
    const aliceMembership = await addTeamMember(api, owner.apiKey, team.id, alice);
    const bobMembership = await addTeamMember(api, owner.apiKey, team.id, bob, 'ADMIN');
    await addTeamMember(api, owner.apiKey, team.id, carol, 'MEMBER', false);
    const base = `/v2/teams/${team.id}/memberships`;
    const list = async (query: string) => {
      const response = await api.request('GET', `${base}?${query}`, { key: owner.apiKey });
      assert.equal(response.status, 200, response.text);
      return response.body.data.map((membership: any) => membership.id);
    };
    const q = encodeURIComponent;
    assert.deepEqual(await list(`emails=${q(alice.user.email.toUpperCase())}`), [aliceMembership.id]);
    assert.deepEqual(await list(`emails=${q(`${alice.user.email}, ${bob.user.email}`)}`), [aliceMembership.id, bobMembership.id]);
    assert.deepEqual(await list(`emails=${q(bob.user.email)}&emails=${q(alice.user.email)}`), [aliceMembership.id, bobMembership.id]);
    assert.deepEqual(await list(`emails=${q(`${alice.user.email},${bob.user.email}`)}&skip=1&take=1`), [bobMembership.id]);
    assert.deepEqual(await list(`emails=${q('nobody@example.com')}`), []);
    assert.equal((await list('emails=')).length, 4, 'an empty filter lists everyone');
    assert.deepEqual(await list(`emails=${q(carol.user.email)}`), [], 'who a pending invitee is stays hidden');
    const twenty = Array.from({ length: 20 }, (_, i) => `person${i}@example.com`);
    assert.deepEqual(await list(`emails=${q([...twenty, twenty[0]!.toUpperCase()].join(','))}`), [], 'duplicates count once');

    const tooMany = await api.request('GET', `${base}?emails=${q([...twenty, 'one-more@example.com'].join(','))}`, { key: owner.apiKey });
    assert.deepEqual(
      [tooMany.status, tooMany.body.error.code, tooMany.body.error.message, tooMany.body.error.details.errors[0].property],
      [400, 'BadRequestException', 'emails array cannot contain more than 20 email addresses for team membership filtering', 'emails'],
    );
    const invalid = await api.request('GET', `${base}?emails=${q(`${alice.user.email},not-an-email`)}`, { key: owner.apiKey });
    assert.deepEqual([invalid.status, invalid.body.error.message, invalid.body.error.details.errors[0].property], [400, 'Each email must be a valid email address', 'emails']);
  });

  test('POST /v2/teams/{teamId}/invite: a link for the team\'s admins (200), as the reference\'s TeamsInviteController', async () => {
    // The reference's TeamsInviteController: `@Post("/invite") @Roles("TEAM_ADMIN") @HttpCode(HttpStatus.OK)`, answering
    // `{ status: SUCCESS_STATUS, data: result }` with TeamService.createInvite's `{ token, inviteLink }`.
    const team = await createTeam(api, owner);
    const [admin, member] = [await createMember(api), await createMember(api)];
    await addTeamMember(api, owner.apiKey, team.id, admin, 'ADMIN');
    await addTeamMember(api, owner.apiKey, team.id, member);
    const response = await api.request('POST', `/v2/teams/${team.id}/invite`, { key: admin.apiKey });
    assert.equal(response.status, 200, response.text);
    const { token, inviteLink } = response.body.data;
    assert.match(token, /^[0-9a-f]{64}$/);
    assert.equal(inviteLink, `${api.config.appUrl.replace(/\/+$/, '')}/teams?token=${token}`);
    const byMember = await api.request('POST', `/v2/teams/${team.id}/invite`, { key: member.apiKey });
    assert.deepEqual([byMember.status, byMember.body.error.message], [403, `RolesGuard - user with id=${member.user.id} does not have the minimum required role=TEAM_ADMIN within team with id=${team.id}.`]);
  });

  test('a membership that is not the team\'s: GET is the reference\'s "Organization\'s Team membership not found", DELETE names it', async () => {
    // TeamsMembershipsService.getTeamMembership: `throw new NotFoundException("Organization's Team membership not found")`;
    // deleteTeamMembership: `throw new NotFoundException(`Membership with id ${membershipId} not found in team ${teamId}`)`.
    const team = await createTeam(api, owner);
    const got = await api.request('GET', `/v2/teams/${team.id}/memberships/2147483000`, { key: owner.apiKey });
    assert.deepEqual([got.status, got.body.error.message], [404, "Organization's Team membership not found"]);
    const deleted = await api.request('DELETE', `/v2/teams/${team.id}/memberships/2147483000`, { key: owner.apiKey });
    assert.deepEqual([deleted.status, deleted.body.error.message], [404, `Membership with id 2147483000 not found in team ${team.id}`]);
  });

  test('the last OWNER can be neither demoted nor removed (400 naming it); with a second owner both work', async () => {
    const team = await createTeam(api, owner);
    const ownMembership = (await api.request('GET', `/v2/teams/${team.id}/memberships`, { key: owner.apiKey })).body.data[0];
    const demote = await api.request('PATCH', `/v2/teams/${team.id}/memberships/${ownMembership.id}`, { key: owner.apiKey, body: { role: 'ADMIN' } });
    assert.equal(demote.status, 400);
    assert.equal(demote.body.error.details.reason, 'last_owner');
    assert.equal(demote.body.error.details.membershipId, ownMembership.id);
    assert.equal((await api.request('DELETE', `/v2/teams/${team.id}/memberships/${ownMembership.id}`, { key: owner.apiKey })).status, 400);

    const second = await createMember(api);
    await addTeamMember(api, owner.apiKey, team.id, second, 'OWNER');
    assert.equal((await api.request('PATCH', `/v2/teams/${team.id}/memberships/${ownMembership.id}`, { key: owner.apiKey, body: { role: 'ADMIN' } })).status, 200);
    assert.equal((await api.request('DELETE', `/v2/teams/${team.id}/memberships/${ownMembership.id}`, { key: second.apiKey })).status, 200);
  });
});
