// Managed organizations: the reference's OrganizationsOrganizationsController and
// ManagedOrganizationsService, behind IsOrgGuard (403), RolesGuard with ORG_ADMIN (403) and, on
// /:managedOrganizationId, IsManagedOrgInManagerOrg, whose newest version answers 403 "Managed
// organization with id=M is not owned by manager organization with id=O." (never 404). Only a platform
// organization may create them (403 otherwise); the creator becomes the accepted OWNER with a profile
// and gets an API key shown once; a slug already used answers the reference's 409; the list carries the
// reference's pagination object. svc's API keys belong to users: the key is the caller's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq, inArray, or } from 'drizzle-orm';
import { apiKeys, memberships, profiles, teams, webhooks } from '../../src/db/schema.js';
import { hashApiKey } from '../../src/lib/crypto.js';
import { createMember, createOrganization, createOrgMember, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';


function assertNamesField(response: { status: number; body: any; text: string }, field: string): void {
  assert.equal(response.status, 400, response.text);
  const properties = (response.body.error.details.errors ?? []).map((error: { property: string }) => error.property);
  assert.ok(properties.includes(field), `should name ${field}: ${response.text}`);
}

let counter = 0;
const unique = (name: string) => `${name} ${process.pid} ${++counter} ${Math.random().toString(36).slice(2, 6)}`;
const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');

describe('managed organizations (/v2/organizations/{orgId}/organizations)', () => {
  let api: TestApp;
  let managerId: number;
  let owner: Member;
  let admin: Member;
  before(async () => {
    api = await createTestApp();
    const made = await createOrganization(api, { isPlatform: true });
    managerId = made.organization.id;
    owner = made.owner;
    admin = await createOrgMember(api, managerId, owner.apiKey, 'ADMIN');
  });
  after(() => api.close());

  const db = () => api.runtime.ctx.database.db;
  const path = (id?: number, manager = managerId) => `/v2/organizations/${manager}/organizations${id === undefined ? '' : `/${id}`}`;
  const notManaged = (id: number, manager = managerId) => `IsManagedOrgInManagerOrg - Managed organization with id=${id} is not owned by manager organization with id=${manager}.`;
  const create = async (body: Record<string, unknown>, key = admin.apiKey, manager = managerId) => {
    const response = await api.request('POST', path(undefined, manager), { key, body });
    assert.equal(response.status, 201, response.text);
    return response.body.data as { id: number; name: string; slug: string; metadata: Record<string, unknown>; apiKey: string };
  };

  test('an organization admin creates one: its OWNER, with a profile, a platform organization, and an API key of the caller shown once', async () => {
    const name = unique('Acme Clinic');
    const response = await api.request('POST', path(), { key: admin.apiKey, body: { name, metadata: { region: 'eu', tier: 2, active: true } } });
    assert.equal(response.status, 201, response.text);
    const { apiKey, ...organization } = response.body.data;
    assert.deepEqual(organization, { id: organization.id, name, slug: slugOf(name), metadata: { region: 'eu', tier: 2, active: true } });
    assert.match(apiKey, /^svc_/);

    const me = await api.request('GET', '/v2/me', { key: apiKey });
    assert.deepEqual([me.status, me.body.data.id], [200, admin.user.id], "the key is the caller's");
    const [key] = await db().select().from(apiKeys).where(eq(apiKeys.hashedKey, hashApiKey(apiKey)));
    assert.equal(key!.name, `Managed organization API key. ManagerOrgId: ${managerId}. ManagedOrgId: ${organization.id}`);
    assert.ok(Math.abs(key!.expiresAt!.getTime() - (Date.now() + 30 * 86_400_000)) < 120_000, 'valid 30 days by default');

    const members = await api.request('GET', `/v2/organizations/${organization.id}/memberships`, { key: apiKey });
    assert.deepEqual(members.body.data.map((m: any) => [m.userId, m.role, m.accepted]), [[admin.user.id, 'OWNER', true]]);
    assert.equal((await db().select().from(profiles).where(and(eq(profiles.organizationId, organization.id), eq(profiles.userId, admin.user.id)))).length, 1);
    const row = (await api.request('GET', `/v2/admin/organizations/${organization.id}`, { key: ADMIN_API_KEY })).body.data;
    assert.deepEqual([row.isOrganization, row.isPlatform], [true, true], 'managed organizations are platform organizations, as the reference makes them');
    const [stored] = await db().select({ managerOrganizationId: teams.managerOrganizationId, parentId: teams.parentId }).from(teams).where(eq(teams.id, organization.id));
    assert.deepEqual(stored, { managerOrganizationId: managerId, parentId: null });

    const forever = await create({ name: unique('Forever'), slug: `forever-${counter}-${process.pid}`, apiKeyNeverExpires: true });
    assert.equal(forever.slug, `forever-${counter}-${process.pid}`);
    const [neverExpiring] = await db().select().from(apiKeys).where(eq(apiKeys.hashedKey, hashApiKey(forever.apiKey)));
    assert.equal(neverExpiring!.expiresAt, null);
    const week = await create({ name: unique('Week'), apiKeyDaysValid: 7 });
    const [weekKey] = await db().select().from(apiKeys).where(eq(apiKeys.hashedKey, hashApiKey(week.apiKey)));
    assert.ok(Math.abs(weekKey!.expiresAt!.getTime() - (Date.now() + 7 * 86_400_000)) < 120_000);

    const got = await api.request('GET', path(organization.id), { key: owner.apiKey });
    assert.deepEqual(got.body, { status: 'success', data: organization });
    const patched = await api.request('PATCH', path(organization.id), { key: admin.apiKey, body: { name: 'Renamed Clinic', metadata: { region: 'us' } } });
    assert.deepEqual([patched.status, patched.body.data], [200, { ...organization, name: 'Renamed Clinic', metadata: { region: 'us' } }], 'the slug stays');
    const unchanged = await api.request('PATCH', path(organization.id), { key: admin.apiKey, body: {} });
    assert.deepEqual(unchanged.body.data, { ...organization, name: 'Renamed Clinic', metadata: { region: 'us' } });
  });

  test("a slug already used is refused with the reference's 409, sent or generated from the name", async () => {
    const name = unique('Dup Org');
    await create({ name });
    const again = await api.request('POST', path(), { key: admin.apiKey, body: { name } });
    const message = (slug: string) => `Organization with slug '${slug}' already exists. Please, either provide a different slug or change name so that the automatically generated slug is different.`;
    assert.deepEqual([again.status, again.body.error.message], [409, message(slugOf(name))]);
    const sent = await api.request('POST', path(), { key: admin.apiKey, body: { name: 'Anything', slug: slugOf(name) } });
    assert.deepEqual([sent.status, sent.body.error.message], [409, message(slugOf(name))]);
    assert.equal((await api.request('POST', path(), { key: admin.apiKey, body: { name, slug: `${slugOf(name)}-2` } })).status, 201);
  });

  test('bad input is refused with 400 naming the field', async () => {
    const post = (body: Record<string, unknown>) => api.request('POST', path(), { key: admin.apiKey, body });
    assertNamesField(await post({}), 'name');
    assertNamesField(await post({ name: '' }), 'name');
    assertNamesField(await post({ name: 'X', slug: 'Not Kebab' }), 'slug');
    assertNamesField(await post({ name: 'X', metadata: 'text' }), 'metadata');
    assertNamesField(await post({ name: 'X', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }), 'metadata');
    assertNamesField(await post({ name: 'X', metadata: { ['k'.repeat(41)]: 1 } }), 'metadata');
    assertNamesField(await post({ name: 'X', metadata: { long: 'v'.repeat(501) } }), 'metadata.long');
    assertNamesField(await post({ name: 'X', apiKeyDaysValid: 0 }), 'apiKeyDaysValid');
    assertNamesField(await post({ name: 'X', apiKeyDaysValid: 36_501 }), 'apiKeyDaysValid');
    assertNamesField(await post({ name: 'X', apiKeyNeverExpires: 'yes' }), 'apiKeyNeverExpires');
    // As svc's api-keys module (and the reference's RefreshApiKeyInput): one or the other.
    const both = await post({ name: unique('Both'), apiKeyDaysValid: 10, apiKeyNeverExpires: true });
    assertNamesField(both, 'apiKeyNeverExpires');
    assert.equal(both.body.error.message, 'Cannot set both apiKeyDaysValid and apiKeyNeverExpires. It has to be either or none of them.');

    const made = await create({ name: unique('Valid') });
    assertNamesField(await api.request('PATCH', path(made.id), { key: admin.apiKey, body: { name: '' } }), 'name');
    assertNamesField(await api.request('PATCH', path(made.id), { key: admin.apiKey, body: { metadata: [] } }), 'metadata');
    assertNamesField(await api.request('GET', `${path()}?metadataKey=region`, { key: admin.apiKey }), 'metadataValue');
    assertNamesField(await api.request('GET', `${path()}?metadataValue=eu`, { key: admin.apiKey }), 'metadataKey');
    assertNamesField(await api.request('GET', `${path()}?take=0`, { key: admin.apiKey }), 'take');
    assertNamesField(await api.request('GET', `${path()}?skip=-1`, { key: admin.apiKey }), 'skip');
    assertNamesField(await api.request('GET', `${path()}/abc`, { key: admin.apiKey }), 'managedOrganizationId');
  });

  test('the list filters by slug and by a metadata key and value (exact, case-sensitive), with the reference pagination', async () => {
    const made = await createOrganization(api, { isPlatform: true });
    const manager = made.organization.id;
    const key = made.owner.apiKey;
    const a = await create({ name: unique('List A'), metadata: { region: 'eu' } }, key, manager);
    const b = await create({ name: unique('List B'), metadata: { region: 'EU' } }, key, manager);
    const c = await create({ name: unique('List C'), metadata: { region: 'eu', tier: 3 } }, key, manager);
    const output = ({ apiKey: _key, ...organization }: typeof a) => organization;
    const list = (query = '') => api.request('GET', `${path(undefined, manager)}${query}`, { key });

    const all = await list();
    assert.deepEqual(all.body, {
      status: 'success',
      data: [a, b, c].map(output),
      pagination: { totalItems: 3, remainingItems: 0, returnedItems: 3, itemsPerPage: 250, currentPage: 1, totalPages: 1, hasNextPage: false, hasPreviousPage: false },
    });
    const page = await list('?take=1&skip=1');
    assert.deepEqual(page.body.data, [output(b)]);
    assert.deepEqual(page.body.pagination, { totalItems: 3, remainingItems: 1, returnedItems: 1, itemsPerPage: 1, currentPage: 2, totalPages: 3, hasNextPage: true, hasPreviousPage: true });
    assert.deepEqual((await list(`?slug=${b.slug}`)).body.data, [output(b)]);
    assert.deepEqual((await list('?metadataKey=region&metadataValue=eu')).body.data, [a, c].map(output));
    assert.deepEqual((await list('?metadataKey=Region&metadataValue=eu')).body.data, []);
    const none = await list('?slug=no-such-org');
    assert.deepEqual([none.body.data, none.body.pagination.totalItems, none.body.pagination.totalPages], [[], 0, 0]);
    // Another manager's list does not show them.
    assert.ok(!(await api.request('GET', path(), { key: admin.apiKey })).body.data.some((org: any) => org.id === a.id));
  });

  test('refusals: a non-platform manager, another manager, a missing id, a MEMBER, an outsider and a non-organization get 403', async () => {
    const normal = await createOrganization(api);
    const refused = await api.request('POST', path(undefined, normal.organization.id), { key: normal.owner.apiKey, body: { name: unique('Nope') } });
    assert.deepEqual(
      [refused.status, refused.body.error.message],
      [403, "Manager organization must be a platform organization. Normal organizations can't create managed organizations yet."],
    );

    const mine = await create({ name: unique('Mine') });
    const other = await createOrganization(api, { isPlatform: true });
    const theirs = await create({ name: unique('Theirs') }, other.owner.apiKey, other.organization.id);
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'Taken Over' }], ['DELETE', undefined]] as const) {
      const crossed = await api.request(method, path(theirs.id), { key: admin.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual([crossed.status, crossed.body.error.message], [403, notManaged(theirs.id)], `${method} another manager's organization`);
      const missing = await api.request(method, path(2_000_000_000), { key: admin.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual([missing.status, missing.body.error.message], [403, notManaged(2_000_000_000)], `${method} a missing one`);
      const manager = await api.request(method, path(managerId), { key: admin.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual([manager.status, manager.body.error.message], [403, notManaged(managerId)], `${method} the manager itself`);
    }
    assert.equal((await api.request('GET', path(theirs.id, other.organization.id), { key: other.owner.apiKey })).body.data.name, theirs.name, 'untouched');

    const member = await createOrgMember(api, managerId, owner.apiKey);
    for (const [method, target, body] of [
      ['GET', path(), undefined],
      ['POST', path(), { name: unique('By Member') }],
      ['GET', path(mine.id), undefined],
      ['PATCH', path(mine.id), { name: 'By Member' }],
      ['DELETE', path(mine.id), undefined],
    ] as const) {
      const byMember = await api.request(method, target, { key: member.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual(
        [byMember.status, byMember.body.error.message],
        [403, `RolesGuard - user with id=${member.user.id} does not have the minimum required role=ORG_ADMIN within organization with id=${managerId}.`],
        `${method} ${target} by a member`,
      );
    }
    const outsider = await createMember(api);
    const byOutsider = await api.request('POST', path(), { key: outsider.apiKey, body: { name: unique('By Outsider') } });
    assert.deepEqual([byOutsider.status, byOutsider.body.error.message], [403, `RolesGuard - User is not a member of the organization with id=${managerId}.`]);
    const team = (await api.request('POST', '/v2/teams', { key: admin.apiKey, body: { name: unique('Plain Team') } })).body.data;
    const notOrg = await api.request('GET', path(undefined, team.id), { key: admin.apiKey });
    assert.deepEqual([notOrg.status, notOrg.body.error.message], [403, `IsOrgGuard - provided organization id=${team.id} does not represent any existing organization.`]);
    assert.equal((await api.request('GET', path())).status, 401);
    assert.equal((await api.request('GET', path(mine.id), { key: admin.apiKey })).body.data.name, mine.name, 'nothing changed');
  });

  test('delete removes the managed organization with everything it owns; the system admin may do it too', async () => {
    const made = await create({ name: unique('Doomed'), metadata: { plan: 'x' } });
    const inner = await api.request('POST', `/v2/organizations/${made.id}/teams`, { key: made.apiKey, body: { name: 'Inner Team' } });
    assert.equal(inner.status, 201, inner.text);
    const hook = await api.request('POST', `/v2/organizations/${made.id}/webhooks`, { key: made.apiKey, body: { subscriberUrl: 'http://127.0.0.1:9/doomed', active: true, triggers: ['BOOKING_CREATED'] } });
    assert.equal(hook.status, 201, hook.text);
    const nested = await create({ name: unique('Nested') }, made.apiKey, made.id);

    const deleted = await api.request('DELETE', path(made.id), { key: admin.apiKey });
    const { apiKey: _key, ...output } = made;
    assert.deepEqual([deleted.status, deleted.body], [200, { status: 'success', data: output }]);
    const gone = await api.request('GET', path(made.id), { key: admin.apiKey });
    assert.deepEqual([gone.status, gone.body.error.message], [403, notManaged(made.id)]);

    const ids = [made.id, inner.body.data.id, nested.id];
    assert.deepEqual(await db().select({ id: teams.id }).from(teams).where(inArray(teams.id, ids)), []);
    assert.deepEqual(await db().select({ id: memberships.id }).from(memberships).where(inArray(memberships.teamId, ids)), []);
    assert.deepEqual(await db().select({ id: profiles.id }).from(profiles).where(inArray(profiles.organizationId, ids)), []);
    assert.deepEqual(await db().select({ id: webhooks.id }).from(webhooks).where(or(eq(webhooks.id, hook.body.data.id), inArray(webhooks.organizationId, ids))), []);
    assert.equal((await api.request('DELETE', path(made.id), { key: admin.apiKey })).status, 403);

    const byAdmin = await create({ name: unique('Admin Deletes') });
    assert.equal((await api.request('DELETE', path(byAdmin.id), { key: ADMIN_API_KEY })).status, 200, 'the system admin passes every guard');
  });
});
