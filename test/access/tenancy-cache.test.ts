// The organization and team reads of every tenant route (the caller's memberships for the access
// check, a team's member list) are served from memory and dropped by any tenancy change, here at once
// and in other processes through the change feed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/eventually.js';
import { createMember, createOrganization, type Member } from '../support/tenancy.js';
import { backend, createPeerApp, createTestApp, type TestApp } from '../support/test-app.js';

async function orgWithAdmin(api: TestApp) {
  const { organization, owner } = await createOrganization(api);
  const admin = await createMember(api);
  const added = await api.request('POST', `/v2/organizations/${organization.id}/memberships`, { key: owner.apiKey, body: { userId: admin.user.id, role: 'ADMIN', accepted: true } });
  assert.equal(added.status, 201, added.text);
  const accepted = await api.request('POST', `/v2/organizations/${organization.id}/memberships/${added.body.data.id}/accept`, { key: admin.apiKey });
  assert.equal(accepted.status, 200, accepted.text);
  return { orgId: organization.id as number, owner, admin, adminMembershipId: added.body.data.id as number };
}

const sql = (api: TestApp, text: string) => api.runtime.ctx.database.db.execute(text as never);

describe('tenancy cache, in one process', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('the access check is served from memory: a change nobody announces is not seen until one is', async () => {
    const { orgId, owner, admin, adminMembershipId } = await orgWithAdmin(api);
    const path = `/v2/organizations/${orgId}/memberships`;
    assert.equal((await api.request('GET', path, { key: admin.apiKey })).status, 200);
    // Behind svc's back: the membership goes without a tenancy change being announced.
    await sql(api, `delete from memberships where id = ${adminMembershipId}`);
    assert.equal((await api.request('GET', path, { key: admin.apiKey })).status, 200, 'still the cached decision');
    // Any announced tenancy change (here: the owner creates a team) drops it.
    assert.equal((await api.request('POST', `/v2/organizations/${orgId}/teams`, { key: owner.apiKey, body: { name: 'Announce' } })).status, 201);
    assert.equal((await api.request('GET', path, { key: admin.apiKey })).status, 403);
  });

  test('every write through the API is seen by the next request: role changes, removals and member lists', async () => {
    const { orgId, owner, admin, adminMembershipId } = await orgWithAdmin(api);
    const path = `/v2/organizations/${orgId}/memberships`;
    const before = await api.request('GET', path, { key: admin.apiKey });
    assert.equal(before.body.data.length, 2);
    const member: Member = await createMember(api);
    const invited = await api.request('POST', path, { key: owner.apiKey, body: { userId: member.user.id } });
    assert.equal((await api.request('GET', path, { key: admin.apiKey })).body.data.length, 3, 'the list changed with the new member');
    assert.equal((await api.request('GET', path, { key: admin.apiKey })).body.data[2].user, undefined, 'pending: nothing of theirs shown');
    assert.equal((await api.request('POST', `${path}/${invited.body.data.id}/accept`, { key: member.apiKey })).status, 200);
    assert.equal((await api.request('GET', path, { key: admin.apiKey })).body.data[2].user.email, member.user.email, 'accepting reaches the cached member list');
    assert.equal((await api.request('PATCH', `${path}/${adminMembershipId}`, { key: owner.apiKey, body: { role: 'MEMBER' } })).status, 200);
    assert.equal((await api.request('GET', path, { key: admin.apiKey })).status, 403, 'demoted: refused at once');
    await api.request('PATCH', `/v2/me`, { key: member.apiKey, body: { name: 'Renamed Member' } });
    const names = (await api.request('GET', path, { key: owner.apiKey })).body.data.map((m: any) => m.user?.name);
    assert.ok(names.includes('Renamed Member'), 'a user change reaches the cached member list');
  });
});

describe('tenancy cache across processes (PostgreSQL)', { skip: backend !== 'postgres' && 'needs two processes on one database' }, () => {
  test('a membership removed through one process is refused by the other, which had cached it', async () => {
    const first = await createTestApp();
    const second = await createPeerApp(first);
    try {
      const { orgId, owner, admin, adminMembershipId } = await orgWithAdmin(first);
      const path = `/v2/organizations/${orgId}/memberships`;
      assert.equal((await second.request('GET', path, { key: admin.apiKey })).status, 200);
      assert.equal((await second.request('GET', path, { key: admin.apiKey })).status, 200);
      assert.equal((await first.request('DELETE', `${path}/${adminMembershipId}`, { key: owner.apiKey })).status, 200);
      await eventually(async () => (await second.request('GET', path, { key: admin.apiKey })).status === 403);
    } finally {
      await second.close();
      await first.close();
    }
  });
});
