// Platform OAuth clients (the reference's OAuthClientsController, contract 2.2, spec 2.3): created,
// read, changed and deleted with an API key of an admin or owner of a platform organization; the
// secret is 256 random bits, shown on the client object and stored only sealed and hashed; and the
// platform credentials (x-svc-client-id + x-svc-secret-key) act as the organization's OWNER, within
// that organization only, with the reference's 401 messages.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { platformOAuthClients } from '../../src/db/schema.js';
import { createMember, createOrganization, createOrgMember, type Member } from '../support/tenancy.js';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';
import { assertNamesField, createClient, platformHeaders } from './helpers.js';

const ALL = ['EVENT_TYPE_READ', 'EVENT_TYPE_WRITE', 'BOOKING_READ', 'BOOKING_WRITE', 'SCHEDULE_READ', 'SCHEDULE_WRITE', 'APPS_READ', 'APPS_WRITE', 'PROFILE_READ', 'PROFILE_WRITE'];

describe('OAuth clients (/v2/oauth-clients)', () => {
  let api: TestApp;
  let orgId: number;
  let owner: Member;
  let admin: Member;
  let member: Member;
  let otherOrgId: number;
  let otherOwner: Member;
  let plainOrgOwner: Member;
  before(async () => {
    api = await createTestApp();
    const platform = await createOrganization(api, { isPlatform: true });
    orgId = platform.organization.id;
    owner = platform.owner;
    admin = await createOrgMember(api, orgId, owner.apiKey, 'ADMIN');
    member = await createOrgMember(api, orgId, owner.apiKey, 'MEMBER');
    const other = await createOrganization(api, { isPlatform: true });
    otherOrgId = other.organization.id;
    otherOwner = other.owner;
    plainOrgOwner = (await createOrganization(api, { isPlatform: false })).owner;
  });
  after(() => api.close());

  const db = () => api.runtime.ctx.database.db;

  test('an admin creates a client: its id and a 256-bit secret, shown again on the client object with the defaults', async () => {
    const created = await api.request('POST', '/v2/oauth-clients', {
      key: admin.apiKey,
      body: { name: 'Acme app', redirectUris: ['https://app.acme.test', 'https://*.acme.test'], permissions: ['*'], logo: 'https://acme.test/logo.png' },
    });
    assert.equal(created.status, 201, created.text);
    const { clientId, clientSecret } = created.body.data;
    assert.match(clientId, /^c[0-9a-z]{24}$/);
    assert.ok(Buffer.from(clientSecret, 'base64url').length >= 32, 'at least 256 bits');

    const read = await api.request('GET', `/v2/oauth-clients/${clientId}`, { key: owner.apiKey });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body.data, {
      id: clientId,
      name: 'Acme app',
      secret: clientSecret,
      permissions: ALL,
      logo: 'https://acme.test/logo.png',
      redirectUris: ['https://app.acme.test', 'https://*.acme.test'],
      organizationId: orgId,
      createdAt: read.body.data.createdAt,
      areEmailsEnabled: false,
      areDefaultEventTypesEnabled: false,
      areCalendarEventsEnabled: true,
    });
    assert.ok(!Number.isNaN(Date.parse(read.body.data.createdAt)));
  });

  test('the secret is stored sealed and hashed, never in clear', async () => {
    const { clientId, clientSecret } = await createClient(api, owner.apiKey, { permissions: ['BOOKING_READ'] });
    const [row] = await db().select().from(platformOAuthClients).where(eq(platformOAuthClients.id, clientId));
    assert.ok(row);
    assert.ok(!JSON.stringify(row).includes(clientSecret), 'no column holds the secret');
    assert.match(row.secretSealed, /^v1:/);
    assert.match(row.secretHash, /^[0-9a-f]{64}$/);
    assert.deepEqual(row.permissions, ['BOOKING_READ']);
  });

  test('the input rules: at least one permission, at most 10 redirect URIs, known permissions, a name', async () => {
    const body = { name: 'x', redirectUris: [], permissions: ['BOOKING_READ'] };
    assertNamesField(await api.request('POST', '/v2/oauth-clients', { key: owner.apiKey, body: { ...body, permissions: [] } }), 'permissions');
    assertNamesField(await api.request('POST', '/v2/oauth-clients', { key: owner.apiKey, body: { ...body, permissions: ['TEAM_PROFILE_READ'] } }), 'permissions.0');
    const eleven = Array.from({ length: 11 }, (_, i) => `https://app${i}.acme.test`);
    assertNamesField(await api.request('POST', '/v2/oauth-clients', { key: owner.apiKey, body: { ...body, redirectUris: eleven } }), 'redirectUris');
    assertNamesField(await api.request('POST', '/v2/oauth-clients', { key: owner.apiKey, body: { redirectUris: [], permissions: ['BOOKING_READ'] } }), 'name');
    const ten = await api.request('POST', '/v2/oauth-clients', { key: owner.apiKey, body: { ...body, redirectUris: eleven.slice(0, 10) } });
    assert.equal(ten.status, 201, ten.text);
  });

  test('the booking redirect URIs are any strings, as the reference takes them (a path, an app scheme)', async () => {
    // create-oauth-client.input.ts and update-oauth-client.input.ts: @IsOptional() @IsString() bookingRedirectUri (and the cancel and reschedule ones)
    const created = await api.request('POST', '/v2/oauth-clients', {
      key: owner.apiKey,
      body: { name: 'Paths', redirectUris: [], permissions: ['BOOKING_READ'], bookingRedirectUri: '/booked', bookingCancelRedirectUri: 'acmeapp://cancelled' },
    });
    assert.equal(created.status, 201, created.text);
    const path = `/v2/oauth-clients/${created.body.data.clientId}`;
    const read = await api.request('GET', path, { key: owner.apiKey });
    assert.equal(read.body.data.bookingRedirectUri, '/booked');
    assert.equal(read.body.data.bookingCancelRedirectUri, 'acmeapp://cancelled');
    const patched = await api.request('PATCH', path, { key: owner.apiKey, body: { bookingRescheduleRedirectUri: 'reschedule?step=2' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.bookingRescheduleRedirectUri, 'reschedule?step=2');
    assertNamesField(await api.request('PATCH', path, { key: owner.apiKey, body: { bookingRedirectUri: 'x'.repeat(2049) } }), 'bookingRedirectUri');
  });

  test('who may create: admins and owners of a platform organization; members, other organizations and outsiders get 403', async () => {
    const body = { name: 'x', redirectUris: [], permissions: ['BOOKING_READ'] };
    for (const key of [member.apiKey, plainOrgOwner.apiKey, (await createMember(api)).apiKey]) {
      const refused = await api.request('POST', '/v2/oauth-clients', { key, body });
      assert.equal(refused.status, 403, refused.text);
    }
    // An admin of a platform organization cannot name another one.
    const elsewhere = await api.request('POST', `/v2/oauth-clients?organizationId=${otherOrgId}`, { key: owner.apiKey, body });
    assert.equal(elsewhere.status, 403, elsewhere.text);
    // The system admin names the organization, which must be a platform organization.
    assertNamesField(await api.request('POST', '/v2/oauth-clients', { key: ADMIN_API_KEY, body }), 'organizationId');
    const bySystemAdmin = await api.request('POST', `/v2/oauth-clients?organizationId=${otherOrgId}`, { key: ADMIN_API_KEY, body });
    assert.equal(bySystemAdmin.status, 201, bySystemAdmin.text);
    const read = await api.request('GET', `/v2/oauth-clients/${bySystemAdmin.body.data.clientId}`, { key: otherOwner.apiKey });
    assert.equal(read.body.data.organizationId, otherOrgId);
  });

  test('an owner of two platform organizations names the one with organizationId', async () => {
    const both = await createMember(api);
    const first = await createOrganization(api, { isPlatform: true, owner: both });
    const second = await createOrganization(api, { isPlatform: true, owner: both });
    const body = { name: 'x', redirectUris: [], permissions: ['BOOKING_READ'] };
    assertNamesField(await api.request('POST', '/v2/oauth-clients', { key: both.apiKey, body }), 'organizationId');
    const created = await api.request('POST', `/v2/oauth-clients?organizationId=${second.organization.id}`, { key: both.apiKey, body });
    assert.equal(created.status, 201, created.text);
    const listed = await api.request('GET', '/v2/oauth-clients', { key: both.apiKey });
    assert.deepEqual(listed.body.data.map((client: { organizationId: number }) => client.organizationId), [second.organization.id]);
    assert.ok(first.organization.id);
  });

  test("the list holds the caller's organizations' clients only; another organization's client is a 403, an unknown one a 404", async () => {
    const mine = await createClient(api, owner.apiKey);
    const theirs = await createClient(api, otherOwner.apiKey);
    const listed = await api.request('GET', '/v2/oauth-clients', { key: admin.apiKey });
    assert.equal(listed.status, 200);
    const ids = listed.body.data.map((client: { id: string }) => client.id);
    assert.ok(ids.includes(mine.clientId));
    assert.ok(!ids.includes(theirs.clientId));
    assert.ok(listed.body.data.every((client: { organizationId: number }) => client.organizationId === orgId));

    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'taken over' }], ['DELETE', undefined]] as const) {
      const refused = await api.request(method, `/v2/oauth-clients/${theirs.clientId}`, { key: owner.apiKey, ...(body ? { body } : {}) });
      assert.equal(refused.status, 403, `${method}: ${refused.text}`);
      assert.equal(refused.body.error.details.reason, 'oauth_client_not_in_organization');
      const byMember = await api.request(method, `/v2/oauth-clients/${mine.clientId}`, { key: member.apiKey, ...(body ? { body } : {}) });
      assert.equal(byMember.status, 403, `member ${method}: ${byMember.text}`);
    }
    const unknown = await api.request('GET', '/v2/oauth-clients/cnosuchclient000000000000', { key: owner.apiKey });
    assert.equal(unknown.status, 404);
    assert.equal((await api.request('GET', '/v2/oauth-clients', { key: member.apiKey })).status, 403);
    assert.equal((await api.request('GET', `/v2/oauth-clients/${mine.clientId}`, { key: otherOwner.apiKey })).status, 403);
  });

  test('PATCH changes what is sent, never the permissions (a 400 naming them)', async () => {
    const { clientId } = await createClient(api, owner.apiKey, { permissions: ['BOOKING_READ'] });
    const patched = await api.request('PATCH', `/v2/oauth-clients/${clientId}`, {
      key: admin.apiKey,
      body: { name: 'Renamed', redirectUris: ['https://new.acme.test'], bookingRedirectUri: 'https://acme.test/booked', areEmailsEnabled: true, areDefaultEventTypesEnabled: true, areCalendarEventsEnabled: false },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(
      { ...patched.body.data, createdAt: undefined, secret: undefined },
      {
        id: clientId,
        name: 'Renamed',
        secret: undefined,
        permissions: ['BOOKING_READ'],
        logo: null,
        redirectUris: ['https://new.acme.test'],
        organizationId: orgId,
        createdAt: undefined,
        areEmailsEnabled: true,
        areDefaultEventTypesEnabled: true,
        areCalendarEventsEnabled: false,
        bookingRedirectUri: 'https://acme.test/booked',
      },
    );
    assertNamesField(await api.request('PATCH', `/v2/oauth-clients/${clientId}`, { key: owner.apiKey, body: { permissions: ['*'] } }), 'permissions');
    const read = await api.request('GET', `/v2/oauth-clients/${clientId}`, { key: owner.apiKey });
    assert.deepEqual(read.body.data.permissions, ['BOOKING_READ']);
    assert.equal(read.body.data.name, 'Renamed');
  });

  test("platform credentials act as the organization's OWNER on its routes, and only there", async () => {
    const { organization, owner: orgOwner } = await createOrganization(api, { isPlatform: true });
    const { clientId, clientSecret } = await createClient(api, orgOwner.apiKey);
    const headers = platformHeaders(clientId, clientSecret);
    const members = await api.request('GET', `/v2/organizations/${organization.id}/memberships`, { headers });
    assert.equal(members.status, 200, members.text);
    assert.ok(members.body.data.some((row: { userId: number; role: string }) => row.userId === orgOwner.user.id && row.role === 'OWNER'));
    const team = await api.request('POST', `/v2/organizations/${organization.id}/teams`, { headers, body: { name: 'Made by the client' } });
    assert.equal(team.status, 201, team.text);

    // The owner of this organization who also owns another: the client does not reach the other.
    const elsewhere = await createOrganization(api, { isPlatform: true, owner: orgOwner });
    const refused = await api.request('GET', `/v2/organizations/${elsewhere.organization.id}/memberships`, { headers });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.details.reason, 'outside_oauth_client_organization');
    const standalone = await api.request('POST', '/v2/teams', { key: orgOwner.apiKey, body: { name: 'Owner standalone' } });
    const viaTeams = await api.request('GET', `/v2/teams/${standalone.body.data.id}`, { headers });
    assert.equal(viaTeams.status, 403, viaTeams.text);
    const inOrg = await api.request('GET', `/v2/teams/${team.body.data.id}`, { headers });
    assert.notEqual(inOrg.status, 403, inOrg.text);
    // Personal routes are not theirs.
    const me = await api.request('GET', '/v2/me', { headers });
    assert.equal(me.status, 401, me.text);
  });

  test("the reference's 401 for each missing or wrong part of the platform credentials", async () => {
    const { clientId, clientSecret } = await createClient(api, admin.apiKey);
    const path = `/v2/organizations/${orgId}/memberships`;
    const wrongSecret = await api.request('GET', path, { headers: platformHeaders(clientId, `${clientSecret}x`) });
    assert.deepEqual([wrongSecret.status, wrongSecret.body.error.message], [401, 'Invalid client secret']);
    const unknown = await api.request('GET', path, { headers: platformHeaders('cunknown', clientSecret) });
    assert.deepEqual([unknown.status, unknown.body.error.message], [401, 'Client with ID cunknown not found']);
    const onlyId = await api.request('GET', path, { headers: { 'x-svc-client-id': clientId } });
    assert.equal(onlyId.status, 401);
    assert.match(onlyId.body.error.message, /Only 'x-svc-client-id' header provided/);
    const onlySecret = await api.request('GET', path, { headers: { 'x-svc-secret-key': clientSecret } });
    assert.equal(onlySecret.status, 401);
    assert.match(onlySecret.body.error.message, /Only 'x-svc-secret-key' header provided/);
    // On a public route half a pair is no credential at all (platform embeds send the client id alone).
    const publicRoute = await api.request('GET', '/v2/event-types?username=nobody-here', { headers: { 'x-svc-client-id': clientId } });
    assert.notEqual(publicRoute.status, 401, publicRoute.text);
    // The client routes themselves take API keys only.
    const ownRoute = await api.request('GET', `/v2/oauth-clients/${clientId}`, { headers: { 'x-svc-secret-key': clientSecret } });
    assert.equal(ownRoute.status, 401, ownRoute.text);
  });

  test("an Idempotency-Key sent with platform credentials is the client's, not the owner's it acts as", async () => {
    const first = await createClient(api, admin.apiKey);
    const second = await createClient(api, admin.apiKey);
    const send = (client: { clientId: string; clientSecret: string }) =>
      api.request('POST', `/v2/organizations/${orgId}/webhooks`, {
        headers: { ...platformHeaders(client.clientId, client.clientSecret), 'idempotency-key': 'same-key' },
        body: { subscriberUrl: 'https://example.com/idempotent', active: true, triggers: ['BOOKING_CREATED'] },
      });
    const made = await send(first);
    assert.equal(made.status, 201, made.text);
    const retried = await send(first);
    assert.deepEqual([retried.status, retried.headers.get('idempotent-replayed'), retried.body.data.id], [201, 'true', made.body.data.id]);
    const other = await send(second);
    assert.equal(other.headers.get('idempotent-replayed'), null, "another client does not get the first client's answer");
    assert.equal(other.status, 409, other.text);
  });

  test('deleting a client answers it and ends its credentials', async () => {
    const { clientId, clientSecret } = await createClient(api, admin.apiKey);
    const headers = platformHeaders(clientId, clientSecret);
    assert.equal((await api.request('GET', `/v2/organizations/${orgId}/memberships`, { headers })).status, 200);
    const deleted = await api.request('DELETE', `/v2/oauth-clients/${clientId}`, { key: admin.apiKey });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.data.id, clientId);
    const after = await api.request('GET', `/v2/organizations/${orgId}/memberships`, { headers });
    assert.deepEqual([after.status, after.body.error.message], [401, `Client with ID ${clientId} not found`]);
    assert.equal((await api.request('GET', `/v2/oauth-clients/${clientId}`, { key: owner.apiKey })).status, 404);
  });
});
