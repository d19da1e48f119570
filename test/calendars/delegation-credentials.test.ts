// Organizations' delegation credentials against the local Google and Microsoft servers: a Google
// Workspace service account (a JWT grant signed with its key, domain-wide delegation) and a Microsoft 365
// app (client credentials, app-only tokens on /users/{address}) read and write the calendars of the
// organization's accepted members in the credential's domain, without a consent page of theirs.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { eventually } from '../support/eventually.js';
import { type FakeGoogle, startFakeGoogle } from '../support/fake-google.js';
import { type FakeMicrosoft, startFakeMicrosoft } from '../support/fake-microsoft.js';
import { createOrganization, createOrgMember, type Member } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertNamesField, createEventType, createHost, type Host, slotsOf, startsOf } from '../slots/helpers.js';

const BOOKINGS_VERSION = '2024-08-13';
// 2027-01-11 is a Monday; London is on UTC then.
const MONDAY = '2027-01-11';
const iso = (time: string) => new Date(Date.parse(`${MONDAY}T${time}:00.000Z`)).toISOString();

const keyPair = () => generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });

describe('delegation credentials', () => {
  let google: FakeGoogle;
  let microsoft: FakeMicrosoft;
  let api: TestApp;
  let orgId: number;
  let owner: Member;
  let ada: Host;
  let bob: Host;
  let carol: Host;
  let member: Member;
  const serviceAccount = { ...keyPair(), clientEmail: 'svc-reader@acme-project.iam.gserviceaccount.example', clientId: '104512345678901234567' };
  const tenantApp = { tenantId: 'b1e2c3d4-0000-4000-8000-000000000001', clientId: 'c2f3a4b5-0000-4000-8000-000000000002', clientSecret: 'app~secret~value' };
  const googleKey = { type: 'service_account', project_id: 'acme-project', client_email: serviceAccount.clientEmail, client_id: serviceAccount.clientId, private_key: serviceAccount.privateKey };

  before(async () => {
    google = await startFakeGoogle({ clientId: 'unused', clientSecret: 'unused' });
    for (const email of ['ada@acme.example', 'bob@acme.example', 'carol@other.example']) google.addAccount(email, 'Europe/London');
    microsoft = await startFakeMicrosoft({ tenantApp, user: { mail: 'dan@contoso.example', userPrincipalName: 'dan@contoso.onmicrosoft.example' } });
    // Only the providers' addresses: svc has no OAuth app of its own at either.
    api = await createTestApp({
      SVC_GOOGLE_TOKEN_URL: google.endpoints.token,
      SVC_GOOGLE_API_URL: google.endpoints.api,
      SVC_MICROSOFT_TOKEN_URL: microsoft.endpoints.token,
      SVC_MICROSOFT_API_URL: microsoft.endpoints.api,
    });
    ({ organization: { id: orgId }, owner } = await createOrganization(api));
    const join = async (host: Host, accept: boolean) => {
      const added = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey, body: { userId: host.userId, role: 'MEMBER', accepted: true } });
      assert.equal(added.status, 201, added.text);
      if (accept && !added.body.data.accepted) {
        const accepted = await api.request('POST', `/v2/organizations/${orgId}/memberships/${added.body.data.id}/accept`, { key: host.apiKey });
        assert.equal(accepted.status, 200, accepted.text);
      }
    };
    ada = await createHost(api, 'Europe/London', { email: 'Ada@Acme.example', name: 'Ada' });
    bob = await createHost(api, 'Europe/London', { email: 'bob@acme.example' });
    carol = await createHost(api, 'Europe/London', { email: 'carol@other.example' });
    await join(ada, true);
    await join(bob, false); // invited, never accepted: no consent, no calendar read
    await join(carol, true); // another domain
    member = await createOrgMember(api, orgId, owner.apiKey);
  });
  after(async () => {
    await api?.close();
    await google?.close();
    await microsoft?.close();
  });

  const create = (body: unknown, key = owner.apiKey) => api.request('POST', `/v2/organizations/${orgId}/delegation-credentials`, { key, body });
  const patch = (id: string, body: unknown, key = owner.apiKey) => api.request('PATCH', `/v2/organizations/${orgId}/delegation-credentials/${id}`, { key, body });
  const connectionsOf = async (host: Host) => (await api.request('GET', '/v2/calendars', { key: host.apiKey })).body.data.connectedCalendars as any[];

  test('create: checked per platform, stored disabled and sealed, never returned; one per domain', async () => {
    assertNamesField(await create({ workspacePlatformSlug: 'zoho', domain: 'acme.example', serviceAccountKey: googleKey }), 'workspacePlatformSlug');
    assertNamesField(await create({ workspacePlatformSlug: 'google', domain: 'not a domain', serviceAccountKey: googleKey }), 'domain');
    assertNamesField(await create({ workspacePlatformSlug: 'google', domain: 'acme.example', serviceAccountKey: { ...googleKey, client_email: undefined } }), 'serviceAccountKey.client_email');
    assertNamesField(await create({ workspacePlatformSlug: 'google', domain: 'acme.example', serviceAccountKey: { ...googleKey, private_key: 'not a key' } }), 'serviceAccountKey.private_key');
    assertNamesField(await create({ workspacePlatformSlug: 'office365', domain: 'contoso.example', serviceAccountKey: { client_id: 'x', private_key: 'y' } }), 'serviceAccountKey.tenant_id');
    const refused = await create({ workspacePlatformSlug: 'google', domain: 'acme.example', serviceAccountKey: googleKey }, member.apiKey);
    assert.equal(refused.status, 403, refused.text);

    const created = await create({ workspacePlatformSlug: 'google', domain: '@ACME.example', serviceAccountKey: googleKey });
    assert.equal(created.status, 201, created.text);
    const { id, ...rest } = created.body.data;
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.deepEqual({ ...rest, createdAt: undefined, updatedAt: undefined }, { enabled: false, domain: 'acme.example', organizationId: orgId, workspacePlatform: { name: 'Google', slug: 'google' }, createdAt: undefined, updatedAt: undefined });
    assert.ok(!created.text.includes('PRIVATE KEY') && !created.text.includes(serviceAccount.clientEmail));
    const stored = (await api.runtime.ctx.database.db.execute(sql`select key_sealed from delegation_credentials where id = ${id}`)) as unknown as { rows: { key_sealed: string }[] };
    assert.match(stored.rows[0]!.key_sealed, /^v1:/);
    assert.ok(!stored.rows[0]!.key_sealed.includes('PRIVATE KEY'));
    const again = await create({ workspacePlatformSlug: 'google', domain: 'acme.example', serviceAccountKey: googleKey });
    assert.equal(again.status, 409, again.text);
    // Disabled: nobody's calendar is connected.
    assert.deepEqual(await connectionsOf(ada), []);
  });

  test('enable: a key the workspace has not authorized is refused and changes nothing; once authorized, accepted members of the domain are connected', async () => {
    const listed = (await api.runtime.ctx.database.db.execute(sql`select id from delegation_credentials where organization_id = ${orgId} and workspace_platform = 'google'`)) as unknown as { rows: { id: string }[] };
    const id = listed.rows[0]!.id;
    const notAuthorized = await patch(id, { enabled: true });
    assert.equal(notAuthorized.status, 400, notAuthorized.text);
    assert.equal(notAuthorized.body.error.details.reason, 'delegation_credential_not_working');
    assert.match(notAuthorized.body.error.message, /ada@acme\.example.*unauthorized/i);
    assert.ok(!notAuthorized.text.includes('PRIVATE KEY'));
    const otherOrg = await createOrganization(api);
    const foreign = await api.request('PATCH', `/v2/organizations/${otherOrg.organization.id}/delegation-credentials/${id}`, { key: otherOrg.owner.apiKey, body: { enabled: true } });
    assert.equal(foreign.status, 404, foreign.text);
    const foreignOrg = await patch(id, { enabled: true }, otherOrg.owner.apiKey);
    assert.equal(foreignOrg.status, 403, foreignOrg.text);

    google.authorizeServiceAccount({ clientEmail: serviceAccount.clientEmail, clientId: serviceAccount.clientId, publicKeyPem: serviceAccount.publicKey, domain: 'acme.example' });
    google.addEvent('ada@acme.example', { summary: 'Dentist', start: { dateTime: iso('10:00') }, end: { dateTime: iso('11:00') } });
    const enabled = await patch(id, { enabled: true });
    assert.equal(enabled.status, 200, enabled.text);
    assert.equal(enabled.body.data.enabled, true);
    await eventually(async () => (await connectionsOf(ada)).length === 1, 10_000);
    const [connection] = await connectionsOf(ada);
    assert.equal(connection.integration.type, 'google_calendar');
    assert.equal(connection.delegationCredentialId, id);
    assert.equal(connection.primary.externalId, 'ada@acme.example');
    assert.equal(connection.primary.isSelected, true);
    assert.equal(connection.primary.delegationCredentialId, id);
    assert.deepEqual(await connectionsOf(bob), [], 'an invitation not accepted connects nothing');
    assert.deepEqual(await connectionsOf(carol), [], 'another domain is not covered');
    // Tokens came from JWT grants signed with the key, for Ada; no client secret anywhere.
    const grants = google.tokenGrants.filter((grant) => grant.grant_type === 'urn:ietf:params:oauth:grant-type:jwt-bearer');
    assert.ok(grants.length >= 1);
    assert.ok(grants.every((grant) => grant.client_secret === undefined));

    // Ada's busy time is read: her dentist is gone from her slots.
    const eventType = await createEventType(api, ada, { lengthInMinutes: 60, title: 'Intro' });
    await eventually(async () => !startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY })).includes(iso('10:00')), 10_000);
    assert.ok(startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY })).includes(iso('11:00')));

    // A booking is written into her Google calendar through the delegated session.
    const booked = await api.request('POST', '/v2/bookings', {
      version: BOOKINGS_VERSION,
      body: { eventTypeId: eventType.id, start: iso('14:00'), attendee: { name: 'Bea Booker', email: 'bea@example.com', timeZone: 'Europe/Paris' } },
    });
    assert.equal(booked.status, 201, booked.text);
    await eventually(async () => google.events('ada@acme.example').some((event) => event.iCalUID === booked.body.data.icsUid), 10_000);

    // Selected and destination calendars name the credential; a wrong one is refused.
    const selectedBody = { integration: 'google_calendar', externalId: 'ada@acme.example', credentialId: connection.credentialId };
    assertNamesField(await api.request('POST', '/v2/selected-calendars', { key: ada.apiKey, body: { ...selectedBody, delegationCredentialId: 'another' } }), 'delegationCredentialId');
    const selected = await api.request('POST', '/v2/selected-calendars', { key: ada.apiKey, body: { ...selectedBody, delegationCredentialId: id } });
    assert.equal(selected.status, 201, selected.text);
    const destination = await api.request('PUT', '/v2/destination-calendars', { key: ada.apiKey, body: { integration: 'google_calendar', externalId: 'ada@acme.example', delegationCredentialId: id } });
    assert.equal(destination.status, 200, destination.text);
    const wrongDestination = await api.request('PUT', '/v2/destination-calendars', { key: ada.apiKey, body: { integration: 'google_calendar', externalId: 'ada@acme.example', delegationCredentialId: 'another' } });
    assert.equal(wrongDestination.status, 404, wrongDestination.text);

    // Bob accepts later: the sweep's provisioning connects him too.
    const pending = (await api.runtime.ctx.database.db.execute(sql`select id from memberships where team_id = ${orgId} and user_id = ${bob.userId}`)) as unknown as { rows: { id: number }[] };
    const accepted = await api.request('POST', `/v2/organizations/${orgId}/memberships/${pending.rows[0]!.id}/accept`, { key: bob.apiKey });
    assert.equal(accepted.status, 200, accepted.text);
    const { queueDelegationProvisioning } = await import('../../src/modules/calendars/delegation-credentials.service.js');
    await queueDelegationProvisioning({ database: api.runtime.ctx.database }, new Date());
    await eventually(async () => (await connectionsOf(bob)).length === 1, 10_000);

    // Disabled: the connections made by it are gone, and with them the busy time.
    const disabled = await patch(id, { enabled: false });
    assert.equal(disabled.status, 200, disabled.text);
    assert.deepEqual(await connectionsOf(ada), []);
    assert.deepEqual(await connectionsOf(bob), []);
    assert.ok(startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY })).includes(iso('10:00')));
  });

  test('a member the workspace cannot read: the organization\'s webhooks hear of it once, and it is tried again an hour later; a refused connection is restored the same way, without mailing the member', async () => {
    const { ctx } = api.runtime;
    const rows = async <T>(query: ReturnType<typeof sql>) => ((await ctx.database.db.execute(query)) as unknown as { rows: T[] }).rows;
    const hook = await api.request('POST', `/v2/organizations/${orgId}/webhooks`, { key: owner.apiKey, body: { subscriberUrl: 'http://127.0.0.1:9/delegation', active: true, triggers: ['DELEGATION_CREDENTIAL_ERROR'] } });
    assert.equal(hook.status, 201, hook.text);
    const erin = await createHost(api, 'Europe/London', { email: 'erin@acme.example' }); // not in the Google workspace
    const added = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey, body: { userId: erin.userId, role: 'MEMBER', accepted: true } });
    if (!added.body.data.accepted) await api.request('POST', `/v2/organizations/${orgId}/memberships/${added.body.data.id}/accept`, { key: erin.apiKey });
    const id = (await rows<{ id: string }>(sql`select id from delegation_credentials where organization_id = ${orgId} and workspace_platform = 'google'`))[0]!.id;
    assert.equal((await patch(id, { enabled: true })).status, 200);
    await eventually(async () => (await connectionsOf(ada)).length === 1, 10_000);
    const deliveries = async () => rows<{ body: string }>(sql`select d.body from webhook_deliveries d where d.webhook_id = ${hook.body.data.id} and d.trigger = 'DELEGATION_CREDENTIAL_ERROR' order by d.id`);
    await eventually(async () => (await deliveries()).length === 1, 10_000);
    const [first] = await deliveries();
    const payload = JSON.parse(first!.body).payload;
    assert.deepEqual(payload.user, { id: erin.userId, email: 'erin@acme.example', organizationId: orgId });
    assert.equal(payload.credential.delegationCredentialId, id);
    assert.match(payload.error.message, /unauthorized/);
    assert.deepEqual(await connectionsOf(erin), []);

    // Provisioning again within the hour neither asks Google for Erin nor tells the organization again.
    const { provisionDelegatedCalendars } = await import('../../src/modules/calendars/delegation-credentials.service.js');
    const { calendarReaders } = await import('../../src/modules/calendars/calendar-oauth.js');
    const deps = { database: ctx.database, secrets: ctx.secrets, config: ctx.config, readers: calendarReaders(ctx.config), clock: ctx.clock, changes: ctx.changes };
    const grantsFor = (subject: string) => google.tokenGrants.filter((grant) => grant.assertion && JSON.parse(Buffer.from(grant.assertion.split('.')[1]!, 'base64url').toString()).sub === subject).length;
    const asked = grantsFor('erin@acme.example');
    assert.deepEqual(await provisionDelegatedCalendars(deps, id), { connected: 0, failed: 0, dropped: 0, restored: 0 });
    assert.equal(grantsFor('erin@acme.example'), asked);
    assert.equal((await deliveries()).length, 1);
    // An hour later she is tried again (and still fails, quietly).
    assert.equal((await provisionDelegatedCalendars(deps, id, Date.now() + 3_600_001)).failed, 1);
    assert.equal(grantsFor('erin@acme.example'), asked + 1);
    assert.equal((await deliveries()).length, 1);

    // The workspace withdraws the key's delegation: Ada's sync is refused, her connection flagged, the organization told, Ada not mailed.
    google.withdrawServiceAccount(serviceAccount.clientEmail);
    const { syncCalendarSource } = await import('../../src/modules/calendars/calendar-sync.js');
    const [source] = await rows<{ id: number }>(sql`select id from calendar_sources where user_id = ${ada.userId} and selected`);
    assert.equal(await syncCalendarSource(deps, source!.id, Date.now()), 'failed');
    assert.equal((await connectionsOf(ada))[0].invalid, true);
    assert.equal((await deliveries()).length, 2);
    assert.equal(JSON.parse((await deliveries())[1]!.body).payload.user.id, ada.userId);
    const mails = await rows<{ count: number }>(sql`select count(*)::int as count from mail_messages where kind = 'calendarBroken' and lower(recipient_email) = 'ada@acme.example'`);
    assert.equal(mails[0]!.count, 0, 'the member cannot mend a delegated connection: not mailed');
    // Authorized again: the next try (after the hour) restores the connection.
    google.authorizeServiceAccount({ clientEmail: serviceAccount.clientEmail, clientId: serviceAccount.clientId, publicKeyPem: serviceAccount.publicKey, domain: 'acme.example' });
    assert.equal((await provisionDelegatedCalendars(deps, id)).restored, 0, 'not before its retry');
    assert.equal((await provisionDelegatedCalendars(deps, id, Date.now() + 3_600_001)).restored, 1);
    assert.equal((await connectionsOf(ada))[0].invalid, false);
    assert.ok(['synced', 'unchanged'].includes(await syncCalendarSource(deps, source!.id, Date.now())), 'read again');
  });

  test('Microsoft 365: app-only tokens of the tenant reach the member\'s mailbox at /users/{address}', async () => {
    const dan = await createHost(api, 'Europe/London', { email: 'dan@contoso.example' });
    const added = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: owner.apiKey, body: { userId: dan.userId, role: 'MEMBER', accepted: true } });
    if (!added.body.data.accepted) await api.request('POST', `/v2/organizations/${orgId}/memberships/${added.body.data.id}/accept`, { key: dan.apiKey });
    const wrongSecret = await create({ workspacePlatformSlug: 'office365', domain: 'contoso.example', serviceAccountKey: { tenant_id: tenantApp.tenantId, client_id: tenantApp.clientId, private_key: 'wrong' } });
    assert.equal(wrongSecret.status, 201, wrongSecret.text);
    const id = wrongSecret.body.data.id;
    const refused = await patch(id, { enabled: true });
    assert.equal(refused.status, 400, refused.text);
    assert.ok(!refused.text.includes('wrong'), 'the secret is not echoed');
    const fixed = await patch(id, { enabled: true, serviceAccountKey: { tenant_id: tenantApp.tenantId, client_id: tenantApp.clientId, private_key: tenantApp.clientSecret } });
    assert.equal(fixed.status, 200, fixed.text);
    await eventually(async () => (await connectionsOf(dan)).length === 1, 10_000);
    const [connection] = await connectionsOf(dan);
    assert.equal(connection.integration.type, 'office365_calendar');
    assert.equal(connection.delegationCredentialId, id);
    assert.equal(connection.primary.externalId, microsoft.defaultCalendarId);
    assert.ok(microsoft.requests.some((request) => request.path.startsWith('/v1.0/users/dan%40contoso.example/calendars')), 'the member\'s mailbox by address');
    assert.ok(!microsoft.requests.some((request) => request.path.startsWith('/v1.0/me')), 'never /me with an app-only token');
    assert.ok(microsoft.tokenGrants.includes('client_credentials'));
  });
});
