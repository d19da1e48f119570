// Two admins changing roles at once: each change judges its caller's standing inside its transaction,
// after the team's lock, so the second of two admins demoting each other is refused instead of leaving
// the team with no admin. Races need PostgreSQL (PGlite is one session and serializes everything).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMember, createOrganization, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, backend, createTestApp, type TestApp } from '../support/test-app.js';

const ROUNDS = 12;

describe('role changes racing', { skip: backend !== 'postgres' && 'needs PostgreSQL: PGlite serializes every transaction' }, () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  async function raceOn(base: string, first: Member & { membershipId: number }, second: Member & { membershipId: number }) {
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const admin of [first, second]) {
        const reset = await api.request('PATCH', `${base}/${admin.membershipId}`, { key: ADMIN_API_KEY, body: { role: 'ADMIN' } });
        assert.equal(reset.status, 200, reset.text);
      }
      const [a, b] = await Promise.all([
        api.request('PATCH', `${base}/${second.membershipId}`, { key: first.apiKey, body: { role: 'MEMBER' } }),
        api.request('PATCH', `${base}/${first.membershipId}`, { key: second.apiKey, body: { role: 'MEMBER' } }),
      ]);
      const statuses = [a.status, b.status].sort();
      assert.deepEqual(statuses, [200, 403], `round ${round}: exactly one demotion wins (${a.text} / ${b.text})`);
      const refused = a.status === 403 ? a : b;
      assert.ok(['member_above_own_role', 'insufficient_role'].includes(refused.body.error.details.reason), `the loser, a MEMBER by then, may not touch an ADMIN: ${refused.text}`);
      const list = (await api.request('GET', `${base}?take=250`, { key: ADMIN_API_KEY })).body.data as { userId: number; role: string }[];
      const roles = [first, second].map((admin) => list.find((membership) => membership.userId === admin.user.id)!.role).sort();
      assert.deepEqual(roles, ['ADMIN', 'MEMBER'], `round ${round}: one admin is left`);
    }
  }

  async function seat(base: string, role: string): Promise<Member & { membershipId: number }> {
    const member = await createMember(api);
    const response = await api.request('POST', base, { key: ADMIN_API_KEY, body: { userId: member.user.id, role, accepted: true } });
    assert.equal(response.status, 201, response.text);
    return { ...member, membershipId: response.body.data.id };
  }

  test('two team admins demoting each other at once: one wins, the other is refused, one admin is left', async () => {
    const owner = await createMember(api);
    const team = await api.request('POST', '/v2/teams', { key: owner.apiKey, body: { name: `Race ${Math.random()}` } });
    const base = `/v2/teams/${team.body.data.id}/memberships`;
    await raceOn(base, await seat(base, 'ADMIN'), await seat(base, 'ADMIN'));
  });

  test('two organization admins demoting each other at once: the same', async () => {
    const { organization } = await createOrganization(api);
    const base = `/v2/organizations/${organization.id}/memberships`;
    await raceOn(base, await seat(base, 'ADMIN'), await seat(base, 'ADMIN'));
  });
});
