import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTeamEventType } from '../support/team-scheduling.js';
import { addTeamMember, createMember, createOrganization, createOrgMember, createTeam, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';

const slug = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

describe('team event types: create, read, list, update, delete', () => {
  let api: TestApp;
  let owner: Member;
  let admin: Member;
  let member: Member;
  let pending: Member;
  let outsider: Member;
  let pendingMembershipId: number;
  let team: { id: number; slug: string; name: string };
  before(async () => {
    api = await createTestApp({ APP_URL: 'https://book.example.com' });
    [owner, admin, member, pending, outsider] = [await createMember(api), await createMember(api), await createMember(api), await createMember(api), await createMember(api)];
    team = await createTeam(api, owner, { brandColor: '#112233' });
    await addTeamMember(api, owner.apiKey, team.id, admin, 'ADMIN');
    await addTeamMember(api, owner.apiKey, team.id, member, 'MEMBER');
    pendingMembershipId = (await addTeamMember(api, owner.apiKey, team.id, pending, 'MEMBER', false)).id;
  });
  after(() => api.close());

  test('a collective create answers the team output; GET one and the public list read the same', async () => {
    const data = await createTeamEventType(api, admin.apiKey, team.id, {
      title: 'Team sync',
      slug: 'Team Sync!',
      lengthInMinutes: 45,
      schedulingType: 'collective',
      hosts: [{ userId: member.user.id, priority: 'highest' }, { userId: admin.user.id, mandatory: false }],
    });
    assert.equal(data.slug, 'team-sync');
    assert.equal(data.teamId, team.id);
    assert.equal(data.ownerId, null);
    assert.equal(data.parentEventTypeId, null);
    assert.equal(data.schedulingType, 'collective');
    assert.equal(data.assignAllTeamMembers, false);
    assert.equal(data.rescheduleWithSameRoundRobinHost, false);
    assert.equal(data.bookingUrl, `https://book.example.com/team/${team.slug}/team-sync`);
    assert.equal('users' in data, false);
    assert.equal('emailSettings' in data, false);
    assert.deepEqual(data.team, {
      id: team.id, slug: team.slug, name: team.name, bannerUrl: null, logoUrl: null, weekStart: 'Sunday', brandColor: '#112233', darkBrandColor: null, theme: null,
    });
    // Collective hosts print no mandatory/priority: every one of them attends. Hosts come by user id.
    const expectedHosts = [member, admin]
      .map(({ user }) => ({ userId: user.id, name: (user as { name?: string }).name ?? '', username: user.username, avatarUrl: null }))
      .sort((a, b) => a.userId - b.userId);
    assert.deepEqual(data.hosts, expectedHosts);
    assert.equal(data.lengthInMinutes, 45);
    assert.deepEqual(data.locations, [{ type: 'integration', integration: 'svc-video' }]);

    const one = await api.request('GET', `/v2/teams/${team.id}/event-types/${data.id}`, { key: owner.apiKey });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body.data, data);
    const list = await api.request('GET', `/v2/teams/${team.id}/event-types`);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.data.find((item: { id: number }) => item.id === data.id), data);
    const bySlug = await api.request('GET', `/v2/teams/${team.id}/event-types?eventSlug=team-sync&hostsLimit=1`);
    assert.deepEqual(bySlug.body.data.map((item: { id: number }) => item.id), [data.id]);
    assert.equal(bySlug.body.data[0].hosts.length, 1);
    // Stored rows: collective hosts are all mandatory, at medium priority.
    const rows = await api.runtime.ctx.database.db.execute(`select user_id, mandatory, priority from event_type_hosts where event_type_id = ${data.id} order by user_id` as never);
    const hostRows = ((rows as unknown as { rows: { mandatory: boolean; priority: number }[] }).rows);
    assert.deepEqual(hostRows.map((row) => [row.mandatory, row.priority]), [[true, 2], [true, 2]]);
  });

  test('round robin prints mandatory, priority and weight of each host', async () => {
    const data = await createTeamEventType(api, owner.apiKey, team.id, {
      title: 'Demo', slug: slug('demo'), lengthInMinutes: 30, schedulingType: 'roundRobin',
      hosts: [{ userId: member.user.id, mandatory: true, priority: 'low', weight: 50 }, { userId: admin.user.id }],
      rescheduleWithSameRoundRobinHost: true,
    });
    assert.equal(data.schedulingType, 'roundRobin');
    assert.equal(data.rescheduleWithSameRoundRobinHost, true);
    assert.deepEqual(
      data.hosts.map((host: any) => [host.userId, host.mandatory, host.priority, host.weight]),
      [
        [member.user.id, true, 'low', 50],
        [admin.user.id, false, 'medium', 100],
      ].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
  });

  test('assignAllTeamMembers makes every accepted member a host, and not pending ones', async () => {
    const data = await createTeamEventType(api, owner.apiKey, team.id, { title: 'All', slug: slug('all'), lengthInMinutes: 30, schedulingType: 'COLLECTIVE', assignAllTeamMembers: true });
    assert.equal(data.schedulingType, 'collective');
    assert.equal(data.assignAllTeamMembers, true);
    assert.deepEqual(data.hosts.map((host: any) => host.userId).sort(), [owner.user.id, admin.user.id, member.user.id].sort());
  });

  test('hosts must be accepted members; hosts and assignAllTeamMembers exclude each other except for round robin; emailSettings needs an organization team', async () => {
    const post = (body: Record<string, unknown>) =>
      api.request('POST', `/v2/teams/${team.id}/event-types`, { key: owner.apiKey, body: { title: 'Rules', slug: slug('rules'), lengthInMinutes: 30, ...body } });
    const expectRejected = async (body: Record<string, unknown>, field: string, pattern: RegExp) => {
      const response = await post(body);
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.error.details.errors?.[0]?.property ?? response.body.error.details.property, field, response.text);
      assert.match(response.body.error.message, pattern);
    };
    // The reference's InputOrganizationsEventTypesService.validateHosts: `throw new NotFoundException(`Invalid hosts: ${...} are not
    // members of team with id ${teamId}.`)`, and its e2e "should not be able to create event-type for user outside org" `.expect(404)`.
    const outside = await post({ schedulingType: 'collective', hosts: [{ userId: outsider.user.id }] });
    assert.deepEqual(
      [outside.status, outside.body.error.code, outside.body.error.message, outside.body.error.details.reason],
      [404, 'NotFoundException', `Invalid hosts: ${outsider.user.id} are not members of team with id ${team.id}.`, 'host_not_team_member'],
    );
    // A pending member is not a host until they accept: the message says which membership and how.
    const notYet = await post({ schedulingType: 'roundRobin', hosts: [{ userId: member.user.id }, { userId: pending.user.id }, { userId: outsider.user.id }] });
    const acceptPath = `POST /v2/teams/${team.id}/memberships/${pendingMembershipId}/accept`;
    assert.deepEqual(
      [notYet.status, notYet.body.error.message],
      [404, `Invalid hosts: ${pending.user.id}, ${outsider.user.id} are not members of team with id ${team.id}. The membership of user ${pending.user.id} (id ${pendingMembershipId}) is pending until they accept it: ${acceptPath}, with their own credentials.`],
    );
    assert.deepEqual(notYet.body.error.details.pendingMemberships, [{ userId: pending.user.id, membershipId: pendingMembershipId, accept: acceptPath }]);
    await expectRejected({ schedulingType: 'collective', assignAllTeamMembers: true, hosts: [{ userId: member.user.id }] }, 'hosts', /assignAllTeamMembers/);
    await expectRejected({ schedulingType: 'managed', assignAllTeamMembers: true, hosts: [{ userId: member.user.id }] }, 'hosts', /assignAllTeamMembers/);
    await expectRejected({ schedulingType: 'collective', hosts: [{ userId: member.user.id }], emailSettings: { disableEmailsToHosts: true } }, 'emailSettings', /organization teams/);
    // Round robin takes both: everyone hosts, and the mandatory entry marks a fixed host; non-mandatory entries are ignored.
    const data = await createTeamEventType(api, owner.apiKey, team.id, {
      title: 'RR all', slug: slug('rr-all'), lengthInMinutes: 30, schedulingType: 'roundRobin', assignAllTeamMembers: true,
      hosts: [{ userId: member.user.id, mandatory: true }, { userId: admin.user.id, mandatory: false, priority: 'highest' }],
    });
    const byId = new Map(data.hosts.map((host: any) => [host.userId, host]));
    assert.deepEqual([...byId.keys()].sort(), [owner.user.id, admin.user.id, member.user.id].sort());
    assert.equal((byId.get(member.user.id) as any).mandatory, true);
    assert.equal((byId.get(admin.user.id) as any).mandatory, false);
    assert.equal((byId.get(admin.user.id) as any).priority, 'medium', 'a non-mandatory entry is ignored');
    // Nothing was half-written by the refused requests.
    const listed = await api.request('GET', `/v2/teams/${team.id}/event-types`, { key: owner.apiKey });
    assert.equal(listed.body.data.filter((eventType: any) => eventType.title === 'Rules').length, 0);
  });

  test('PATCH changes fields and hosts; switching collective -> round robin needs hosts', async () => {
    const data = await createTeamEventType(api, owner.apiKey, team.id, { title: 'Switch', slug: slug('switch'), lengthInMinutes: 30, schedulingType: 'collective', hosts: [{ userId: member.user.id }] });
    const refused = await api.request('PATCH', `/v2/teams/${team.id}/event-types/${data.id}`, { key: admin.apiKey, body: { schedulingType: 'roundRobin' } });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.error.message, /Hosts required when switching schedulingType/);
    const updated = await api.request('PATCH', `/v2/teams/${team.id}/event-types/${data.id}`, {
      key: admin.apiKey,
      body: { schedulingType: 'roundRobin', title: 'Switched', hosts: [{ userId: admin.user.id, priority: 'high' }, { userId: owner.user.id }] },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.data.title, 'Switched');
    assert.equal(updated.body.data.schedulingType, 'roundRobin');
    assert.deepEqual(
      updated.body.data.hosts.map((host: any) => [host.userId, host.priority]),
      [[admin.user.id, 'high'], [owner.user.id, 'medium']].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
    const again = await api.request('GET', `/v2/teams/${team.id}/event-types/${data.id}`, { key: admin.apiKey });
    assert.deepEqual(again.body.data, updated.body.data);
  });

  test('DELETE answers {id, title}; the event type and its hosts are gone', async () => {
    const data = await createTeamEventType(api, owner.apiKey, team.id, { title: 'Gone', slug: slug('gone'), lengthInMinutes: 30, schedulingType: 'collective', hosts: [{ userId: member.user.id }] });
    const deleted = await api.request('DELETE', `/v2/teams/${team.id}/event-types/${data.id}`, { key: admin.apiKey });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body.data, { id: data.id, title: 'Gone' });
    const read = await api.request('GET', `/v2/teams/${team.id}/event-types/${data.id}`, { key: admin.apiKey });
    assert.equal(read.status, 404, read.text);
    const again = await api.request('DELETE', `/v2/teams/${team.id}/event-types/${data.id}`, { key: admin.apiKey });
    assert.equal(again.status, 404, again.text);
  });

  test('access: members read only through the public list; other teams and outsiders are refused', async () => {
    const data = await createTeamEventType(api, owner.apiKey, team.id, { title: 'Guarded', slug: slug('guarded'), lengthInMinutes: 30, schedulingType: 'collective', hosts: [{ userId: member.user.id }] });
    const path = `/v2/teams/${team.id}/event-types/${data.id}`;
    for (const [method, body] of [['GET', undefined], ['PATCH', { title: 'Nope' }], ['DELETE', undefined]] as const) {
      const asMember = await api.request(method, path, { key: member.apiKey, ...(body ? { body } : {}) });
      assert.equal(asMember.status, 403, `${method} as member: ${asMember.text}`);
      const asOutsider = await api.request(method, path, { key: outsider.apiKey, ...(body ? { body } : {}) });
      assert.equal(asOutsider.status, 403, `${method} as outsider: ${asOutsider.text}`);
    }
    const create = await api.request('POST', `/v2/teams/${team.id}/event-types`, { key: member.apiKey, body: { title: 'X', slug: 'x', lengthInMinutes: 30, schedulingType: 'collective' } });
    assert.equal(create.status, 403, create.text);
    // Another team's admin, through their own team's path: the event type is not theirs (404).
    const otherOwner = await createMember(api);
    const otherTeam = await createTeam(api, otherOwner);
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const response = await api.request(method, `/v2/teams/${otherTeam.id}/event-types/${data.id}`, { key: otherOwner.apiKey, ...(method === 'PATCH' ? { body: { title: 'Nope' } } : {}) });
      assert.equal(response.status, 404, `${method} through another team: ${response.text}`);
    }
    const still = await api.request('GET', path, { key: owner.apiKey });
    assert.equal(still.body.data.title, 'Guarded');
    assert.equal((await api.request('GET', `/v2/teams/${otherTeam.id}/event-types`)).body.data.length, 0);
    // The system admin may act on any team.
    assert.equal((await api.request('GET', path, { key: ADMIN_API_KEY })).status, 200);
  });
});

describe('organization team event types', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('org admins create, read, update and delete on the organization path; emailSettings only there; the team must be the organization\'s', async () => {
    const { organization, owner } = await createOrganization(api);
    const orgAdmin = await createOrgMember(api, organization.id, owner.apiKey, 'ADMIN');
    const host = await createOrgMember(api, organization.id, owner.apiKey);
    const teamResponse = await api.request('POST', `/v2/organizations/${organization.id}/teams`, { key: owner.apiKey, body: { name: `Org team ${slug('t')}` } });
    assert.equal(teamResponse.status, 201, teamResponse.text);
    const team = teamResponse.body.data;
    const joined = await api.request('POST', `/v2/organizations/${organization.id}/teams/${team.id}/memberships`, { key: owner.apiKey, body: { userId: host.user.id, accepted: true } });
    assert.equal(joined.status, 201, joined.text);
    const base = `/v2/organizations/${organization.id}/teams/${team.id}/event-types`;

    const created = await api.request('POST', base, {
      key: orgAdmin.apiKey,
      body: { title: 'Org call', slug: 'org-call', lengthInMinutes: 20, schedulingType: 'roundRobin', hosts: [{ userId: host.user.id }], emailSettings: { disableEmailsToHosts: true } },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.data.emailSettings, { disableEmailsToAttendees: false, disableEmailsToHosts: true });
    const id = created.body.data.id;
    const one = await api.request('GET', `${base}/${id}`, { key: orgAdmin.apiKey });
    assert.deepEqual(one.body.data, created.body.data);
    const list = await api.request('GET', base);
    assert.deepEqual(list.body.data.map((item: { id: number }) => item.id), [id]);
    const all = await api.request('GET', `/v2/organizations/${organization.id}/teams/event-types`, { key: orgAdmin.apiKey });
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.body.data.map((item: { id: number }) => item.id), [id]);
    const asMember = await api.request('GET', `/v2/organizations/${organization.id}/teams/event-types`, { key: host.apiKey });
    assert.equal(asMember.status, 403, asMember.text);

    const patched = await api.request('PATCH', `${base}/${id}`, { key: orgAdmin.apiKey, body: { emailSettings: { disableEmailsToAttendees: true } } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.data.emailSettings, { disableEmailsToAttendees: true, disableEmailsToHosts: true });

    // Another organization's team under this organization's path: 404.
    const other = await createOrganization(api);
    const otherTeam = await api.request('POST', `/v2/organizations/${other.organization.id}/teams`, { key: other.owner.apiKey, body: { name: `Other ${slug('t')}` } });
    const crossed = await api.request('GET', `/v2/organizations/${organization.id}/teams/${otherTeam.body.data.id}/event-types/${id}`, { key: owner.apiKey });
    assert.equal(crossed.status, 404, crossed.text);
    const crossedList = await api.request('GET', `/v2/organizations/${organization.id}/teams/${otherTeam.body.data.id}/event-types`);
    assert.equal(crossedList.status, 404, crossedList.text);
    // The other organization's owner cannot reach this organization's event type.
    const foreign = await api.request('GET', `${base}/${id}`, { key: other.owner.apiKey });
    assert.equal(foreign.status, 403, foreign.text);

    const deleted = await api.request('DELETE', `${base}/${id}`, { key: owner.apiKey });
    assert.deepEqual(deleted.body.data, { id, title: 'Org call' });
  });
});
