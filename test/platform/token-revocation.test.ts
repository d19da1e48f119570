// A managed user who leaves the platform organization (membership removed, account deleted through any
// route, or their OAuth client deleted) keeps no working token: access and refresh tokens are deleted in
// the same transaction and every process's credential cache drops them at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { accessTokens, platformRefreshTokens } from '../../src/db/schema.js';
import { eventually } from '../support/eventually.js';
import { createOrganization, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, backend, createPeerApp, createTestApp, type ApiResponse, type TestApp } from '../support/test-app.js';
import { createClient, createManagedUser, type ManagedUser } from './helpers.js';

interface Platform {
  orgId: number;
  owner: Member;
}

type Client = { clientId: string; clientSecret: string };

/** Each way a managed user stops belonging to the platform organization, through the API. */
const REMOVALS: ReadonlyArray<[string, (api: TestApp, platform: Platform, client: Client, managed: ManagedUser) => Promise<ApiResponse>]> = [
  [
    'removing their organization membership',
    async (api, { orgId, owner }, _client, managed) => {
      const list = await api.request('GET', `/v2/organizations/${orgId}/memberships?take=250`, { key: owner.apiKey });
      const membership = list.body.data.find((row: { userId: number }) => row.userId === managed.user.id);
      return api.request('DELETE', `/v2/organizations/${orgId}/memberships/${membership.id}`, { key: owner.apiKey });
    },
  ],
  ['deleting them with their OAuth client\'s secret', (api, _platform, client, managed) =>
    api.request('DELETE', `/v2/oauth-clients/${client.clientId}/users/${managed.user.id}`, { headers: { 'x-svc-secret-key': client.clientSecret } })],
  ['deleting them through the organization\'s users route', (api, { orgId, owner }, _client, managed) =>
    api.request('DELETE', `/v2/organizations/${orgId}/users/${managed.user.id}`, { key: owner.apiKey })],
  ['deleting them as the system admin', (api, _platform, _client, managed) => api.request('DELETE', `/v2/admin/users/${managed.user.id}`, { key: ADMIN_API_KEY })],
  ['deleting their OAuth client', (api, { owner }, client) => api.request('DELETE', `/v2/oauth-clients/${client.clientId}`, { key: owner.apiKey })],
];

/** A client with a managed user in the platform organization, and another in a managed organization of it. */
async function platformWithManagedOrganization(api: TestApp, orgId: number, owner: Member): Promise<{ managedOrgId: number; managedUsers: ManagedUser[] }> {
  const managedOrg = await api.request('POST', `/v2/organizations/${orgId}/organizations`, { key: owner.apiKey, body: { name: `Managed ${orgId} ${Math.random().toString(36).slice(2, 8)}` } });
  assert.equal(managedOrg.status, 201, managedOrg.text);
  const managedOrgId: number = managedOrg.body.data.id;
  const clients = [];
  for (const organizationId of [orgId, managedOrgId]) {
    const response = await api.request('POST', `/v2/oauth-clients?organizationId=${organizationId}`, {
      key: owner.apiKey,
      body: { name: `Client of ${organizationId}`, redirectUris: ['https://app.example.test'], permissions: ['*'] },
    });
    assert.equal(response.status, 201, response.text);
    clients.push(response.body.data as Client);
  }
  return { managedOrgId, managedUsers: [await createManagedUser(api, clients[0]!), await createManagedUser(api, clients[1]!)] };
}

const me = (api: TestApp, managed: ManagedUser) => api.request('GET', '/v2/me', { key: managed.accessToken });

async function storedTokens(api: TestApp, userId: number): Promise<{ access: number; refresh: number }> {
  const db = api.runtime.ctx.database.db;
  return {
    access: (await db.select().from(accessTokens).where(eq(accessTokens.userId, userId))).length,
    refresh: (await db.select().from(platformRefreshTokens).where(eq(platformRefreshTokens.userId, userId))).length,
  };
}

describe('a managed user removed from the platform organization loses its tokens', () => {
  let api: TestApp;
  let platform: Platform;
  before(async () => {
    api = await createTestApp({ SVC_AUTH_CACHE_TTL_MS: '60000' });
    const made = await createOrganization(api, { isPlatform: true });
    platform = { orgId: made.organization.id, owner: made.owner };
  });
  after(() => api.close());

  for (const [name, remove] of REMOVALS) {
    test(`${name}: its cached access token answers 401 at once, its refresh token is refused, neither is stored`, async () => {
      const client = await createClient(api, platform.owner.apiKey);
      const managed = await createManagedUser(api, client);
      assert.equal((await me(api, managed)).status, 200, 'the token works and is cached');
      const removed = await remove(api, platform, client, managed);
      assert.equal(removed.status, 200, removed.text);
      const after = await me(api, managed);
      assert.equal(after.status, 401, after.text);
      const refreshed = await api.request('POST', `/v2/oauth/${client.clientId}/refresh`, { headers: { 'x-svc-secret-key': client.clientSecret }, body: { refreshToken: managed.refreshToken } });
      assert.notEqual(refreshed.status, 200, refreshed.text);
      assert.deepEqual(await storedTokens(api, managed.user.id), { access: 0, refresh: 0 });
    });
  }

  test("deleting the platform organization ends every token of its clients and of its managed organizations' clients", async () => {
    const made = await createOrganization(api, { isPlatform: true });
    const { managedUsers } = await platformWithManagedOrganization(api, made.organization.id, made.owner);
    for (const managed of managedUsers) assert.equal((await me(api, managed)).status, 200);
    const deleted = await api.request('DELETE', `/v2/admin/organizations/${made.organization.id}`, { key: ADMIN_API_KEY });
    assert.equal(deleted.status, 200, deleted.text);
    for (const managed of managedUsers) {
      assert.equal((await me(api, managed)).status, 401);
      assert.deepEqual(await storedTokens(api, managed.user.id), { access: 0, refresh: 0 });
    }
  });

  test("deleting a managed organization ends its clients' tokens, not its manager's", async () => {
    const made = await createOrganization(api, { isPlatform: true });
    const { managedOrgId, managedUsers: [inManager, inManaged] } = await platformWithManagedOrganization(api, made.organization.id, made.owner);
    assert.equal((await me(api, inManaged!)).status, 200);
    const deleted = await api.request('DELETE', `/v2/organizations/${made.organization.id}/organizations/${managedOrgId}`, { key: made.owner.apiKey });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await me(api, inManaged!)).status, 401);
    assert.equal((await me(api, inManager!)).status, 200);
  });

  test("removing the membership ends only the tokens of that organization's clients, not the user's other credentials", async () => {
    const client = await createClient(api, platform.owner.apiKey);
    const managed = await createManagedUser(api, client);
    const other = await createManagedUser(api, client);
    await REMOVALS[0]![1](api, platform, client, managed);
    assert.equal((await me(api, other)).status, 200, "another user's token of the same client still works");
  });
});

// PGlite is one process by construction; the cross-process cases need PostgreSQL.
describe('managed-user removal across processes sharing one PostgreSQL', { skip: backend !== 'postgres' && 'needs PostgreSQL (PGlite is single-process)' }, () => {
  let a: TestApp;
  let b: TestApp;
  let platform: Platform;
  // Long enough that only an invalidation, never the cache's own expiry, can end the cached entry.
  const longTtl = { SVC_AUTH_CACHE_TTL_MS: '600000' };
  before(async () => {
    a = await createTestApp(longTtl);
    b = await createPeerApp(a, longTtl);
    const made = await createOrganization(a, { isPlatform: true });
    platform = { orgId: made.organization.id, owner: made.owner };
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  test('deleting the platform organization on one process: the other, which had its clients\' tokens cached, refuses them', async () => {
    const made = await createOrganization(a, { isPlatform: true });
    const { managedUsers } = await platformWithManagedOrganization(a, made.organization.id, made.owner);
    for (const managed of managedUsers) assert.equal((await me(b, managed)).status, 200, 'cached on the second process');
    assert.equal((await a.request('DELETE', `/v2/admin/organizations/${made.organization.id}`, { key: ADMIN_API_KEY })).status, 200);
    for (const managed of managedUsers) await eventually(async () => (await me(b, managed)).status === 401);
  });

  for (const [name, remove] of REMOVALS) {
    test(`${name} on one process: the other, which had the token cached, refuses it`, async () => {
      const client = await createClient(a, platform.owner.apiKey);
      const managed = await createManagedUser(a, client);
      assert.equal((await me(b, managed)).status, 200, 'cached on the second process');
      const removed = await remove(a, platform, client, managed);
      assert.equal(removed.status, 200, removed.text);
      await eventually(async () => (await me(b, managed)).status === 401);
    });
  }
});
