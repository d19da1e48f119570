import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTeamEventType } from '../support/team-scheduling.js';
import { addTeamMember, createMember, createOrganization, createOrgMember, createTeam, type Member } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { V } from './helpers.js';

const slug = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

/** The caller's own event types (GET /v2/event-types), by slug. */
async function ownEventTypes(api: TestApp, member: Member): Promise<Map<string, any>> {
  const response = await api.request('GET', '/v2/event-types', { key: member.apiKey, version: V });
  assert.equal(response.status, 200, response.text);
  return new Map(response.body.data.map((eventType: { slug: string }) => [eventType.slug, eventType]));
}

async function hostIds(api: TestApp, key: string, teamId: number, id: number): Promise<number[]> {
  const response = await api.request('GET', `/v2/teams/${teamId}/event-types/${id}`, { key });
  assert.equal(response.status, 200, response.text);
  return response.body.data.hosts.map((host: { userId: number }) => host.userId).sort((a: number, b: number) => a - b);
}

describe('managed team event types and membership', () => {
  let api: TestApp;
  let owner: Member;
  let alice: Member;
  let bob: Member;
  let team: { id: number; slug: string };
  before(async () => {
    api = await createTestApp();
    [owner, alice, bob] = [await createMember(api), await createMember(api), await createMember(api)];
    team = await createTeam(api, owner);
    await addTeamMember(api, owner.apiKey, team.id, alice);
    await addTeamMember(api, owner.apiKey, team.id, bob);
  });
  after(() => api.close());

  test('a managed create answers the parent and one child per host; each child is its member\'s own event type', async () => {
    const eventSlug = slug('onboarding');
    const data = await createTeamEventType(api, owner.apiKey, team.id, {
      title: 'Onboarding', slug: eventSlug, lengthInMinutes: 30, schedulingType: 'managed', hosts: [{ userId: alice.user.id }, { userId: bob.user.id }], minimumBookingNotice: 60,
    });
    assert.ok(Array.isArray(data), JSON.stringify(data));
    const [parent, ...children] = data;
    assert.equal(parent.schedulingType, 'managed');
    assert.equal(parent.teamId, team.id);
    assert.equal(parent.ownerId, null);
    assert.deepEqual(parent.hosts.map((host: { userId: number }) => host.userId).sort(), [alice.user.id, bob.user.id].sort());
    assert.equal(children.length, 2);
    for (const child of children) {
      assert.equal(child.parentEventTypeId, parent.id);
      assert.equal(child.teamId, null);
      assert.equal(child.slug, eventSlug);
      assert.equal(child.minimumBookingNotice, 60);
    }
    assert.deepEqual(children.map((child: { ownerId: number }) => child.ownerId).sort(), [alice.user.id, bob.user.id].sort());
    const mine = (await ownEventTypes(api, alice)).get(eventSlug);
    assert.ok(mine, 'the child is listed among alice\'s event types');
    assert.equal(mine.ownerId, alice.user.id);
    assert.equal(mine.title, 'Onboarding');
  });

  test('parent updates reach the children except their locations and schedule; removing a host deletes their child', async () => {
    const eventSlug = slug('kickoff');
    const [parent] = await createTeamEventType(api, owner.apiKey, team.id, { title: 'Kickoff', slug: eventSlug, lengthInMinutes: 30, schedulingType: 'managed', hosts: [{ userId: alice.user.id }, { userId: bob.user.id }] });
    const aliceChild = (await ownEventTypes(api, alice)).get(eventSlug);
    // Alice changes her own location (unlocked) ...
    const ownLocation = [{ type: 'address', address: 'Alice street 1', public: true }];
    const mineChanged = await api.request('PATCH', `/v2/event-types/${aliceChild.id}`, { key: alice.apiKey, version: V, body: { locations: ownLocation } });
    assert.equal(mineChanged.status, 200, mineChanged.text);
    // ... but not a locked field, nor may she delete it.
    const locked = await api.request('PATCH', `/v2/event-types/${aliceChild.id}`, { key: alice.apiKey, version: V, body: { title: 'Mine now' } });
    assert.equal(locked.status, 400, locked.text);
    assert.match(locked.body.error.message, /title is locked/);
    const deleted = await api.request('DELETE', `/v2/event-types/${aliceChild.id}`, { key: alice.apiKey, version: V });
    assert.equal(deleted.status, 400, deleted.text);

    const updated = await api.request('PATCH', `/v2/teams/${team.id}/event-types/${parent.id}`, {
      key: owner.apiKey,
      body: { title: 'Kickoff v2', lengthInMinutes: 45, locations: [{ type: 'link', link: 'https://meet.example.com/k', public: true }] },
    });
    assert.equal(updated.status, 200, updated.text);
    const aliceAfter = (await ownEventTypes(api, alice)).get(eventSlug);
    assert.equal(aliceAfter.title, 'Kickoff v2');
    assert.equal(aliceAfter.lengthInMinutes, 45);
    assert.deepEqual(aliceAfter.locations, ownLocation, 'locations stay the member\'s');

    const removed = await api.request('PATCH', `/v2/teams/${team.id}/event-types/${parent.id}`, { key: owner.apiKey, body: { hosts: [{ userId: alice.user.id }] } });
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(removed.body.data.hosts.map((host: { userId: number }) => host.userId), [alice.user.id]);
    assert.equal((await ownEventTypes(api, bob)).has(eventSlug), false, 'bob\'s child is gone');
    assert.equal((await ownEventTypes(api, alice)).has(eventSlug), true);

    const gone = await api.request('DELETE', `/v2/teams/${team.id}/event-types/${parent.id}`, { key: owner.apiKey });
    assert.equal(gone.status, 200, gone.text);
    assert.equal((await ownEventTypes(api, alice)).has(eventSlug), false, 'deleting the parent deletes the children');
  });

  test('a member who owns the slug cannot be given a child (400 naming them), and nothing is created', async () => {
    const eventSlug = slug('taken');
    const own = await api.request('POST', '/v2/event-types', { key: bob.apiKey, version: V, body: { title: 'Mine', slug: eventSlug, lengthInMinutes: 15 } });
    assert.equal(own.status, 201, own.text);
    const refused = await api.request('POST', `/v2/teams/${team.id}/event-types`, { key: owner.apiKey, body: { title: 'T', slug: eventSlug, lengthInMinutes: 30, schedulingType: 'managed', hosts: [{ userId: bob.user.id }] } });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.error.message, new RegExp(`Users ${bob.user.id} already have`));
    const list = await api.request('GET', `/v2/teams/${team.id}/event-types?eventSlug=${eventSlug}`);
    assert.deepEqual(list.body.data, []);
  });

  test('assignAllTeamMembers follows membership: joining gives a child and a host row, leaving takes them away', async () => {
    const localTeam = await createTeam(api, owner);
    const managedSlug = slug('all-managed');
    const [managed] = await createTeamEventType(api, owner.apiKey, localTeam.id, { title: 'All managed', slug: managedSlug, lengthInMinutes: 30, schedulingType: 'managed', assignAllTeamMembers: true });
    const roundRobin = await createTeamEventType(api, owner.apiKey, localTeam.id, {
      title: 'All RR', slug: slug('all-rr'), lengthInMinutes: 30, schedulingType: 'roundRobin', assignAllTeamMembers: true, hosts: [{ userId: owner.user.id, mandatory: true }],
    });
    const collective = await createTeamEventType(api, owner.apiKey, localTeam.id, { title: 'Picked', slug: slug('picked'), lengthInMinutes: 30, schedulingType: 'collective', hosts: [{ userId: owner.user.id }] });
    assert.deepEqual(managed.hosts.map((host: { userId: number }) => host.userId), [owner.user.id]);
    assert.deepEqual(roundRobin.hosts.map((host: { userId: number; mandatory: boolean }) => [host.userId, host.mandatory]), [[owner.user.id, true]]);

    // A pending invitation gives nothing; accepting it does.
    const carol = await createMember(api);
    const membership = await addTeamMember(api, owner.apiKey, localTeam.id, carol, 'MEMBER', false);
    assert.equal((await ownEventTypes(api, carol)).has(managedSlug), false);
    assert.deepEqual(await hostIds(api, owner.apiKey, localTeam.id, roundRobin.id), [owner.user.id]);
    const byOwner = await api.request('PATCH', `/v2/teams/${localTeam.id}/memberships/${membership.id}`, { key: owner.apiKey, body: { accepted: true } });
    assert.deepEqual([byOwner.status, byOwner.body.error.details.reason], [403, 'membership_acceptance_by_member_only'], 'only carol accepts for carol');
    assert.deepEqual(await hostIds(api, owner.apiKey, localTeam.id, roundRobin.id), [owner.user.id]);
    const accepted = await api.request('POST', `/v2/teams/${localTeam.id}/memberships/${membership.id}/accept`, { key: carol.apiKey });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal((await ownEventTypes(api, carol)).get(managedSlug)?.title, 'All managed');
    assert.deepEqual(await hostIds(api, owner.apiKey, localTeam.id, roundRobin.id), [owner.user.id, carol.user.id].sort((a, b) => a - b));
    assert.deepEqual(await hostIds(api, owner.apiKey, localTeam.id, managed.id), [owner.user.id, carol.user.id].sort((a, b) => a - b));
    const rrHosts = (await api.request('GET', `/v2/teams/${localTeam.id}/event-types/${roundRobin.id}`, { key: owner.apiKey })).body.data.hosts;
    assert.equal(rrHosts.find((host: { userId: number }) => host.userId === carol.user.id).mandatory, false, 'a joining member is not a fixed host');
    // Hosts picked by hand do not follow membership.
    assert.deepEqual(await hostIds(api, owner.apiKey, localTeam.id, collective.id), [owner.user.id]);

    // Made a host by hand, then leaving: every trace goes.
    const picked = await api.request('PATCH', `/v2/teams/${localTeam.id}/event-types/${collective.id}`, { key: owner.apiKey, body: { hosts: [{ userId: owner.user.id }, { userId: carol.user.id }] } });
    assert.equal(picked.status, 200, picked.text);
    const left = await api.request('DELETE', `/v2/teams/${localTeam.id}/memberships/${membership.id}`, { key: owner.apiKey });
    assert.equal(left.status, 200, left.text);
    assert.equal((await ownEventTypes(api, carol)).has(managedSlug), false);
    assert.deepEqual(await hostIds(api, owner.apiKey, localTeam.id, roundRobin.id), [owner.user.id]);
    assert.deepEqual(await hostIds(api, owner.apiKey, localTeam.id, collective.id), [owner.user.id]);
    assert.deepEqual(await hostIds(api, owner.apiKey, localTeam.id, managed.id), [owner.user.id]);
  });

  test('leaving the organization removes the member from its teams\' event types', async () => {
    const { organization, owner: orgOwner } = await createOrganization(api);
    const dave = await createOrgMember(api, organization.id, orgOwner.apiKey);
    const orgTeam = (await api.request('POST', `/v2/organizations/${organization.id}/teams`, { key: orgOwner.apiKey, body: { name: `T ${slug('t')}` } })).body.data;
    const base = `/v2/organizations/${organization.id}/teams/${orgTeam.id}`;
    const joined = await api.request('POST', `${base}/memberships`, { key: orgOwner.apiKey, body: { userId: dave.user.id, accepted: true } });
    assert.equal(joined.status, 201, joined.text);
    const managedSlug = slug('org-managed');
    const created = await api.request('POST', `${base}/event-types`, { key: orgOwner.apiKey, body: { title: 'Org managed', slug: managedSlug, lengthInMinutes: 30, schedulingType: 'managed', assignAllTeamMembers: true } });
    assert.equal(created.status, 201, created.text);
    assert.equal((await ownEventTypes(api, dave)).has(managedSlug), true);
    const left = await api.request('DELETE', `/v2/organizations/${organization.id}/memberships/${dave.membershipId}`, { key: orgOwner.apiKey });
    assert.equal(left.status, 200, left.text);
    assert.equal((await ownEventTypes(api, dave)).has(managedSlug), false);
  });
});
