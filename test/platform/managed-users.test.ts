// Managed users and their tokens (the reference's OAuthClientUsersController and OAuthFlowController,
// contract 2.3): created, listed, read, changed and deleted by their OAuth client; access tokens live
// 60 minutes (then 498), refresh tokens a year and rotate on use; a reused refresh token revokes its
// whole family (an svc addition); force-refresh replaces lost tokens; an Origin must be one of the
// client's redirect URIs; tokens are stored hashed and revoked on every process at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { accessTokens, memberships, platformRefreshTokens } from '../../src/db/schema.js';
import { runHousekeeping } from '../../src/jobs/housekeeping.js';
import { hashToken } from '../../src/lib/crypto.js';
import { eventually } from '../support/eventually.js';
import { createOrganization, createOrgMember, type Member } from '../support/tenancy.js';
import { backend, createPeerApp, createTestApp, type TestApp } from '../support/test-app.js';
import { assertNamesField, createClient, createManagedUser, platformHeaders } from './helpers.js';

const MINUTE = 60_000;
const START = Date.parse('2031-03-10T08:00:30.000Z');

describe('managed users and their tokens', () => {
  let api: TestApp;
  let now = START;
  let orgId: number;
  let owner: Member;
  let admin: Member;
  let client: { clientId: string; clientSecret: string };
  let otherClient: { clientId: string; clientSecret: string };
  let foreignClient: { clientId: string; clientSecret: string };
  let foreignOwner: Member;
  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    const platform = await createOrganization(api, { isPlatform: true });
    orgId = platform.organization.id;
    owner = platform.owner;
    admin = await createOrgMember(api, orgId, owner.apiKey, 'ADMIN');
    client = await createClient(api, owner.apiKey, { redirectUris: ['https://app.acme.test', 'https://*.preview.acme.test'] });
    otherClient = await createClient(api, owner.apiKey);
    const foreign = await createOrganization(api, { isPlatform: true });
    foreignOwner = foreign.owner;
    foreignClient = await createClient(api, foreignOwner.apiKey);
  });
  after(() => api.close());

  const db = () => api.runtime.ctx.database.db;
  const secret = (c = client) => ({ 'x-svc-secret-key': c.clientSecret });
  const usersPath = (c = client) => `/v2/oauth-clients/${c.clientId}/users`;

  test('create: 201 with tokens and their expiry times, the email made the reference way, a default schedule from the time zone', async () => {
    const response = await api.request('POST', usersPath(), {
      headers: secret(),
      body: { email: 'alice@example.com', name: 'Alice', timeZone: 'America/New_York', timeFormat: 24, weekStart: 'Monday', locale: 'de', bio: 'Hi', metadata: { plan: 'gold', seats: 3 } },
    });
    assert.equal(response.status, 201, response.text);
    const { user, accessToken, refreshToken, accessTokenExpiresAt, refreshTokenExpiresAt } = response.body.data;
    assert.deepEqual(user, {
      id: user.id,
      email: `alice+${client.clientId}@example.com`,
      username: `alice-${client.clientId}-example`,
      name: 'Alice',
      bio: 'Hi',
      timeZone: 'America/New_York',
      weekStart: 'Monday',
      createdDate: user.createdDate,
      timeFormat: 24,
      defaultScheduleId: user.defaultScheduleId,
      locale: 'de',
      avatarUrl: null,
      metadata: { plan: 'gold', seats: 3 },
    });
    assert.equal(typeof user.defaultScheduleId, 'number');
    assert.match(accessToken, /^[0-9a-f]{64}$/);
    assert.match(refreshToken, /^[0-9a-f]{64}$/);
    // 60 minutes, to the minute; a year, to the day.
    assert.equal(accessTokenExpiresAt, Date.parse('2031-03-10T09:00:00.000Z'));
    assert.equal(refreshTokenExpiresAt, Date.parse('2032-03-10T00:00:00.000Z'));

    const me = await api.request('GET', '/v2/me', { key: accessToken });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.data.id, user.id);
    assert.equal(me.body.data.organizationId, orgId, 'a managed user belongs to the client\'s organization');
    const schedule = await api.request('GET', '/v2/schedules/default', { key: accessToken, version: '2024-06-11' });
    assert.equal(schedule.status, 200, schedule.text);
    assert.equal(schedule.body.data.id, user.defaultScheduleId);
    assert.equal(schedule.body.data.timeZone, 'America/New_York');
    assert.deepEqual(schedule.body.data.availability, [{ days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'], startTime: '09:00', endTime: '17:00' }]);

    // A member of the client's organization.
    const [membership] = await db().select().from(memberships).where(eq(memberships.userId, user.id));
    assert.deepEqual([membership?.teamId, membership?.role, membership?.accepted], [orgId, 'MEMBER', true]);
    // Stored only as hashes.
    const [row] = await db().select().from(accessTokens).where(eq(accessTokens.userId, user.id));
    assert.equal(row?.hashedToken, hashToken(accessToken));
    const [refresh] = await db().select().from(platformRefreshTokens).where(eq(platformRefreshTokens.userId, user.id));
    assert.equal(refresh?.hashedToken, hashToken(refreshToken));
    assert.ok(!JSON.stringify([row, refresh]).includes(accessToken) && !JSON.stringify([row, refresh]).includes(refreshToken));
  });

  test('without a time zone there is no default schedule; with areDefaultEventTypesEnabled the 4 default event types', async () => {
    const plain = await createManagedUser(api, client);
    assert.equal(plain.user.defaultScheduleId, null);
    const none = await api.request('GET', '/v2/event-types', { key: plain.accessToken, version: '2024-06-14' });
    assert.deepEqual(none.body.data, []);

    const withDefaults = await createClient(api, owner.apiKey, { areDefaultEventTypesEnabled: true });
    const managed = await createManagedUser(api, withDefaults, { timeZone: 'Europe/Rome' });
    const listed = await api.request('GET', '/v2/event-types', { key: managed.accessToken, version: '2024-06-14' });
    assert.equal(listed.status, 200, listed.text);
    const summary = listed.body.data
      .map((eventType: any) => [eventType.slug, eventType.lengthInMinutes, eventType.locations.map((location: any) => location.integration ?? location.type)])
      .sort((a: any, b: any) => String(a[0]).localeCompare(String(b[0])));
    assert.deepEqual(summary, [
      ['sixty-minutes', 60, []],
      ['sixty-minutes-video', 60, ['svc-video']],
      ['thirty-minutes', 30, []],
      ['thirty-minutes-video', 30, ['svc-video']],
    ]);
  });

  test('input rules: name required, locale from the enum, metadata at most 50 keys of 40 characters with values of 500', async () => {
    const body = { email: 'rules@example.com', name: 'Rules' };
    assertNamesField(await api.request('POST', usersPath(), { headers: secret(), body: { email: 'x@example.com' } }), 'name');
    assertNamesField(await api.request('POST', usersPath(), { headers: secret(), body: { ...body, locale: 'xx' } }), 'locale');
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    assertNamesField(await api.request('POST', usersPath(), { headers: secret(), body: { ...body, metadata: tooMany } }), 'metadata');
    assertNamesField(await api.request('POST', usersPath(), { headers: secret(), body: { ...body, metadata: { ['k'.repeat(41)]: 1 } } }), 'metadata');
    assertNamesField(await api.request('POST', usersPath(), { headers: secret(), body: { ...body, metadata: { note: 'v'.repeat(501) } } }), 'metadata.note');
    assertNamesField(await api.request('POST', usersPath(), { headers: secret(), body: { ...body, timeZone: 'Mars/Base' } }), 'timeZone');
  });

  test('inputs read as the reference reads them: the email in lower case, the time zone spelled as IANA does, a null time zone absent, timeFormat as a string', async () => {
    // create-managed-user.input.spec.ts: plainToClass(CreateManagedUserInput, { email: "Alice@Example.COM" }).email -> "alice@example.com"
    // create-managed-user.input.ts: @Transform(({ value }) => (value === null ? undefined : value)) @IsTimeZone() @CapitalizeTimeZone() timeZone; @Type(() => Number) timeFormat
    const created = await api.request('POST', usersPath(), { headers: secret(), body: { email: 'Carol.Case@Example.COM', name: 'Carol', timeZone: 'america/new_york', timeFormat: '24' } });
    assert.equal(created.status, 201, created.text);
    const user = created.body.data.user;
    assert.equal(user.email, `carol.case+${client.clientId}@example.com`);
    assert.equal(user.username, `carol.case-${client.clientId}-example`);
    assert.equal(user.timeZone, 'America/New_York');
    assert.equal(user.timeFormat, 24);
    const schedule = await api.request('GET', '/v2/schedules/default', { key: created.body.data.accessToken, version: '2024-06-11' });
    assert.equal(schedule.body.data.timeZone, 'America/New_York');
    const conflict = await api.request('POST', usersPath(), { headers: secret(), body: { email: 'carol.case@example.com', name: 'Carol again' } });
    assert.equal(conflict.status, 409, 'the same address in another case is the same user');
    const listed = await api.request('GET', `${usersPath()}?emails=CAROL.CASE@EXAMPLE.COM`, { headers: secret() });
    assert.deepEqual(listed.body.data.map((u: { id: number }) => u.id), [user.id]);

    const noZone = await api.request('POST', usersPath(), { headers: secret(), body: { email: 'nozone@example.com', name: 'No Zone', timeZone: null } });
    assert.equal(noZone.status, 201, noZone.text);
    assert.equal(noZone.body.data.user.defaultScheduleId, null);
    assertNamesField(await api.request('POST', usersPath(), { headers: secret(), body: { email: 'tf@example.com', name: 'T', timeFormat: '13' } }), 'timeFormat');

    // update-managed-user.input.spec.ts: plainToClass(UpdateManagedUserInput, { email: "Alice@Example.COM" }).email -> "alice@example.com"
    const patched = await api.request('PATCH', `${usersPath()}/${user.id}`, { headers: secret(), body: { email: 'Carol.New@Example.COM', timeZone: 'europe/rome' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.email, `carol.new+${client.clientId}@example.com`);
    assert.equal(patched.body.data.timeZone, 'Europe/Rome');
    // A zone named by an alias keeps its name: only the letter case is the IANA one.
    const alias = await api.request('PATCH', `${usersPath()}/${user.id}`, { headers: secret(), body: { timeZone: 'US/Eastern' } });
    assert.equal(alias.body.data.timeZone, 'US/Eastern');
  });

  test('one email per client: a second create is the reference 409, another client may use the same address', async () => {
    const first = await createManagedUser(api, client, { email: 'dup@example.com' });
    const again = await api.request('POST', usersPath(), { headers: secret(), body: { email: 'dup@example.com', name: 'Again' } });
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.error.message, `User with the provided e-mail already exists. Existing user ID=${first.user.id}`);
    const elsewhere = await createManagedUser(api, otherClient, { email: 'dup@example.com' });
    assert.equal(elsewhere.user.email, `dup+${otherClient.clientId}@example.com`);
  });

  test('list: limit, offset and emails (as sent or as stored); only the client\'s own users', async () => {
    const c = await createClient(api, owner.apiKey);
    const made = [];
    for (const name of ['a', 'b', 'c']) made.push(await createManagedUser(api, c, { email: `${name}@list.example.com` }));
    await createManagedUser(api, otherClient, { email: 'a@list.example.com' });
    const all = await api.request('GET', usersPath(c), { headers: secret(c) });
    assert.deepEqual(all.body.data.map((user: { id: number }) => user.id), made.map((m) => m.user.id));
    const page = await api.request('GET', `${usersPath(c)}?limit=1&offset=1`, { headers: secret(c) });
    assert.deepEqual(page.body.data.map((user: { id: number }) => user.id), [made[1]!.user.id]);
    const byEmail = await api.request('GET', `${usersPath(c)}?emails=a@list.example.com,c%2B${c.clientId}@list.example.com`, { headers: secret(c) });
    assert.deepEqual(byEmail.body.data.map((user: { id: number }) => user.id), [made[0]!.user.id, made[2]!.user.id]);
    const invalid = await api.request('GET', `${usersPath(c)}?emails=a@list.example.com,not-an-email`, { headers: secret(c) });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.error.message, 'Invalid email not-an-email');
    assertNamesField(await api.request('GET', `${usersPath(c)}?limit=0`, { headers: secret(c) }), 'limit');
  });

  test('the older list GET /v2/oauth-clients/{clientId}/managed-users answers as the users list, with limit and offset, for API keys', async () => {
    // oauth-clients.controller.ts keeps @Get("/:clientId/managed-users") (@ApiExcludeEndpoint, "just in case someone is using it"): Pagination query, findManagedUsersByOAuthClientId(clientId, offset ?? 0, limit ?? 50)
    const fresh = await createClient(api, owner.apiKey);
    const made = [await createManagedUser(api, fresh), await createManagedUser(api, fresh), await createManagedUser(api, fresh)];
    const legacy = `/v2/oauth-clients/${fresh.clientId}/managed-users`;
    const all = await api.request('GET', legacy, { key: admin.apiKey });
    assert.equal(all.status, 200, all.text);
    const current = await api.request('GET', usersPath(fresh), { headers: secret(fresh) });
    assert.deepEqual(all.body, current.body);
    assert.deepEqual(all.body.data.map((u: { id: number }) => u.id), made.map((m) => m.user.id));
    const page = await api.request('GET', `${legacy}?limit=1&offset=1`, { key: owner.apiKey });
    assert.deepEqual(page.body.data.map((u: { id: number }) => u.id), [made[1]!.user.id]);
    assertNamesField(await api.request('GET', `${legacy}?limit=0`, { key: owner.apiKey }), 'limit');
    assert.equal((await api.request('GET', legacy, { key: foreignOwner.apiKey })).status, 403);
    assert.equal((await api.request('GET', '/v2/oauth-clients/cnosuchclient000000000000/managed-users', { key: owner.apiKey })).status, 404);
    assert.equal((await api.request('GET', legacy)).status, 401);
  });

  test("get, patch and delete; another client's user is a 404; an admin's API key works, another organization's is a 403", async () => {
    const managed = await createManagedUser(api, client, { email: 'crud@example.com', timeZone: 'Asia/Tokyo' });
    const path = `${usersPath()}/${managed.user.id}`;
    assert.equal((await api.request('GET', path, { headers: secret() })).body.data.email, `crud+${client.clientId}@example.com`);
    assert.equal((await api.request('GET', path, { key: admin.apiKey })).status, 200);
    const viaOther = await api.request('GET', `${usersPath(otherClient)}/${managed.user.id}`, { headers: secret(otherClient) });
    assert.deepEqual([viaOther.status, viaOther.body.error.message], [404, `User with ID ${managed.user.id} is not part of this OAuth client.`]);
    assert.equal((await api.request('GET', path, { key: foreignOwner.apiKey })).status, 403);
    // Another client's secret on this client's path: the path names the client, so the secret is wrong.
    assert.equal((await api.request('GET', path, { headers: secret(otherClient) })).status, 401);
    assert.equal((await api.request('GET', path, { headers: secret(foreignClient) })).status, 401);

    const patched = await api.request('PATCH', path, { headers: secret(), body: { email: 'renamed@example.org', name: 'Renamed', timeFormat: 24, locale: 'fr' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.email, `renamed+${client.clientId}@example.org`);
    assert.equal(patched.body.data.username, `renamed-${client.clientId}-example`);
    assert.deepEqual([patched.body.data.name, patched.body.data.timeFormat, patched.body.data.locale], ['Renamed', 24, 'fr']);
    const me = await api.request('GET', '/v2/me', { key: managed.accessToken });
    assert.equal(me.body.data.name, 'Renamed', 'the cached user is replaced');
    assertNamesField(await api.request('PATCH', path, { headers: secret(), body: { locale: 'xx' } }), 'locale');
    const otherSchedule = await createManagedUser(api, client, { timeZone: 'UTC' });
    const notTheirs = await api.request('PATCH', path, { headers: secret(), body: { defaultScheduleId: otherSchedule.user.defaultScheduleId } });
    assert.equal(notTheirs.status, 403, notTheirs.text);
    assert.equal((await api.request('PATCH', `${usersPath(otherClient)}/${managed.user.id}`, { headers: secret(otherClient), body: { name: 'x' } })).status, 404);
    assert.equal((await api.request('DELETE', `${usersPath(otherClient)}/${managed.user.id}`, { headers: secret(otherClient) })).status, 404);

    const deleted = await api.request('DELETE', path, { headers: secret() });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.data.id, managed.user.id);
    assert.equal((await api.request('GET', path, { headers: secret() })).status, 404);
    const gone = await api.request('GET', '/v2/me', { key: managed.accessToken });
    assert.equal(gone.status, 401, 'the token of a deleted user stops working');
  });

  test("a managed user is invisible to other clients' users and other organizations: event types, schedules, bookings lists, users lists", async () => {
    const mine = await createManagedUser(api, client, { timeZone: 'UTC' });
    const theirs = await createManagedUser(api, otherClient, { timeZone: 'UTC' });
    const eventType = await api.request('POST', '/v2/event-types', { key: mine.accessToken, version: '2024-06-14', body: { title: 'Mine', slug: 'mine', lengthInMinutes: 30, minimumBookingNotice: 0 } });
    assert.equal(eventType.status, 201, eventType.text);
    const booking = await api.request('POST', '/v2/bookings', {
      version: '2024-08-13',
      body: { eventTypeId: eventType.body.data.id, start: '2031-03-11T10:00:00.000Z', attendee: { name: 'Bob', email: 'bob@example.com', timeZone: 'UTC' } },
    });
    assert.equal(booking.status, 201, booking.text);

    assert.equal((await api.request('GET', `/v2/event-types/${eventType.body.data.id}`, { key: theirs.accessToken, version: '2024-06-14' })).status, 404);
    assert.equal((await api.request('PATCH', `/v2/event-types/${eventType.body.data.id}`, { key: theirs.accessToken, version: '2024-06-14', body: { title: 'x' } })).status, 404);
    assert.equal((await api.request('GET', `/v2/schedules/${mine.user.defaultScheduleId}`, { key: theirs.accessToken, version: '2024-06-11' })).status, 403);
    const theirBookings = await api.request('GET', '/v2/bookings', { key: theirs.accessToken, version: '2024-08-13' });
    assert.deepEqual(theirBookings.body.data, []);
    const myBookings = await api.request('GET', '/v2/bookings', { key: mine.accessToken, version: '2024-08-13' });
    assert.deepEqual(myBookings.body.data.map((b: { uid: string }) => b.uid), [booking.body.data.uid]);
    const cancelByOther = await api.request('POST', `/v2/bookings/${booking.body.data.uid}/confirm`, { key: theirs.accessToken, version: '2024-08-13' });
    assert.equal(cancelByOther.status, 403, cancelByOther.text);
    // Another organization's admin sees neither the user nor the booking.
    assert.equal((await api.request('GET', `/v2/organizations/${orgId}/users`, { key: foreignOwner.apiKey })).status, 403);
    assert.equal((await api.request('GET', `/v2/organizations/${orgId}/bookings`, { key: foreignOwner.apiKey })).status, 403);
    const listedByForeignClient = await api.request('GET', `/v2/oauth-clients/${foreignClient.clientId}/users?emails=${encodeURIComponent(mine.user.email)}`, { headers: secret(foreignClient) });
    assert.deepEqual(listedByForeignClient.body.data, []);
  });

  test('an expired access token answers 498 TokenExpiredException; an unknown one 401', async () => {
    const managed = await createManagedUser(api, client);
    assert.equal((await api.request('GET', '/v2/me', { key: managed.accessToken })).status, 200);
    now = managed.accessTokenExpiresAt;
    try {
      const expired = await api.request('GET', '/v2/me', { key: managed.accessToken });
      assert.equal(expired.status, 498, expired.text);
      assert.equal(expired.body.error.code, 'TokenExpiredException');
      assert.equal(expired.body.error.message, 'ACCESS_TOKEN_IS_EXPIRED');
    } finally {
      now = START;
    }
    const unknown = await api.request('GET', '/v2/me', { key: 'f'.repeat(64) });
    assert.deepEqual([unknown.status, unknown.body.error.message], [401, 'Invalid Access Token.']);
  });

  test('an Origin must be one of the client\'s redirect URIs (wildcards too), and follows a change of them at once', async () => {
    const managed = await createManagedUser(api, client);
    const withOrigin = (origin: string) => api.request('GET', '/v2/me', { key: managed.accessToken, headers: { origin } });
    assert.equal((await withOrigin('https://app.acme.test')).status, 200);
    assert.equal((await withOrigin('https://pr-12.preview.acme.test')).status, 200);
    const refused = await withOrigin('https://evil.test');
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.details.reason, 'origin_not_allowed');
    assert.match(refused.body.error.message, /https:\/\/evil\.test/);
    // No Origin (a server-side call): allowed.
    assert.equal((await api.request('GET', '/v2/me', { key: managed.accessToken })).status, 200);

    const patched = await api.request('PATCH', `/v2/oauth-clients/${client.clientId}`, { key: owner.apiKey, body: { redirectUris: ['https://evil.test'] } });
    assert.equal(patched.status, 200, patched.text);
    try {
      assert.equal((await withOrigin('https://evil.test')).status, 200);
      assert.equal((await withOrigin('https://app.acme.test')).status, 401);
    } finally {
      await api.request('PATCH', `/v2/oauth-clients/${client.clientId}`, { key: owner.apiKey, body: { redirectUris: ['https://app.acme.test', 'https://*.preview.acme.test'] } });
    }
  });

  test('refresh rotates both tokens; the old refresh token is refused and its whole family revoked', async () => {
    const managed = await createManagedUser(api, client);
    const refresh = (refreshToken: string, c = client) => api.request('POST', `/v2/oauth/${c.clientId}/refresh`, { headers: secret(c), body: { refreshToken } });
    now = START + 10 * MINUTE;
    try {
      const rotated = await refresh(managed.refreshToken);
      assert.equal(rotated.status, 200, rotated.text);
      const pair = rotated.body.data;
      assert.deepEqual(Object.keys(pair).sort(), ['accessToken', 'accessTokenExpiresAt', 'refreshToken', 'refreshTokenExpiresAt']);
      assert.notEqual(pair.accessToken, managed.accessToken);
      assert.notEqual(pair.refreshToken, managed.refreshToken);
      assert.equal(pair.accessTokenExpiresAt, Date.parse('2031-03-10T09:10:00.000Z'));
      assert.equal((await api.request('GET', '/v2/me', { key: pair.accessToken })).status, 200);
      // The first access token lives on until it expires, as in the reference.
      assert.equal((await api.request('GET', '/v2/me', { key: managed.accessToken })).status, 200);

      const reused = await refresh(managed.refreshToken);
      assert.equal(reused.status, 400, reused.text);
      assert.equal(reused.body.error.details.reason, 'refresh_token_reused');
      for (const token of [pair.accessToken, managed.accessToken]) {
        assert.equal((await api.request('GET', '/v2/me', { key: token })).status, 401, 'every token of the family is revoked');
      }
      const newest = await refresh(pair.refreshToken);
      assert.deepEqual([newest.status, newest.body.error.details.reason], [400, 'invalid_refresh_token']);
    } finally {
      now = START;
    }
  });

  test('refresh refusals: unknown, another client\'s, expired; the client secret is checked first', async () => {
    const managed = await createManagedUser(api, client);
    const unknown = await api.request('POST', `/v2/oauth/${client.clientId}/refresh`, { headers: secret(), body: { refreshToken: 'nope' } });
    assert.deepEqual([unknown.status, unknown.body.error.message], [400, 'Invalid refresh token']);
    const viaOther = await api.request('POST', `/v2/oauth/${otherClient.clientId}/refresh`, { headers: secret(otherClient), body: { refreshToken: managed.refreshToken } });
    assert.equal(viaOther.status, 400);
    const badSecret = await api.request('POST', `/v2/oauth/${client.clientId}/refresh`, { headers: secret(otherClient), body: { refreshToken: managed.refreshToken } });
    assert.deepEqual([badSecret.status, badSecret.body.error.message], [401, 'Invalid client secret']);
    now = managed.refreshTokenExpiresAt + 1;
    try {
      const expired = await api.request('POST', `/v2/oauth/${client.clientId}/refresh`, { headers: secret(), body: { refreshToken: managed.refreshToken } });
      assert.deepEqual([expired.status, expired.body.error.details.reason], [400, 'refresh_token_expired']);
    } finally {
      now = START;
    }
    // Nothing was used up by the refusals.
    assert.equal((await api.request('POST', `/v2/oauth/${client.clientId}/refresh`, { headers: secret(), body: { refreshToken: managed.refreshToken } })).status, 200);
  });

  test('force-refresh gives a new pair and ends every earlier token of the user', async () => {
    const managed = await createManagedUser(api, client);
    const forced = await api.request('POST', `${usersPath()}/${managed.user.id}/force-refresh`, { headers: platformHeaders(client.clientId, client.clientSecret) });
    assert.equal(forced.status, 200, forced.text);
    assert.equal((await api.request('GET', '/v2/me', { key: forced.body.data.accessToken })).status, 200);
    assert.equal((await api.request('GET', '/v2/me', { key: managed.accessToken })).status, 401);
    const oldRefresh = await api.request('POST', `/v2/oauth/${client.clientId}/refresh`, { headers: secret(), body: { refreshToken: managed.refreshToken } });
    assert.equal(oldRefresh.status, 400);
    assert.equal((await api.request('POST', `/v2/oauth/${client.clientId}/refresh`, { headers: secret(), body: { refreshToken: forced.body.data.refreshToken } })).status, 200);
    assert.equal((await api.request('POST', `${usersPath(otherClient)}/${managed.user.id}/force-refresh`, { headers: secret(otherClient) })).status, 404);
  });

  test('housekeeping deletes access tokens a day after they expire (till then they answer 498) and refresh tokens once expired', async () => {
    const managed = await createManagedUser(api, client);
    const rows = async () => ({
      access: (await db().select().from(accessTokens).where(eq(accessTokens.userId, managed.user.id))).length,
      refresh: (await db().select().from(platformRefreshTokens).where(eq(platformRefreshTokens.userId, managed.user.id))).length,
    });
    await runHousekeeping(db(), api.config.jobs, new Date(managed.accessTokenExpiresAt + 23 * 60 * MINUTE));
    assert.deepEqual(await rows(), { access: 1, refresh: 1 });
    await runHousekeeping(db(), api.config.jobs, new Date(managed.accessTokenExpiresAt + 25 * 60 * MINUTE));
    assert.deepEqual(await rows(), { access: 0, refresh: 1 });
    await runHousekeeping(db(), api.config.jobs, new Date(managed.refreshTokenExpiresAt + 1));
    assert.deepEqual(await rows(), { access: 0, refresh: 0 });
  });

  test("deleting the client ends its users' tokens; the users stay in the organization", async () => {
    const c = await createClient(api, owner.apiKey);
    const managed = await createManagedUser(api, c);
    assert.equal((await api.request('GET', '/v2/me', { key: managed.accessToken })).status, 200);
    assert.equal((await api.request('DELETE', `/v2/oauth-clients/${c.clientId}`, { key: owner.apiKey })).status, 200);
    assert.equal((await api.request('GET', '/v2/me', { key: managed.accessToken })).status, 401);
    const stillMember = await api.request('GET', `/v2/organizations/${orgId}/users?emails=${encodeURIComponent(managed.user.email)}`, { key: owner.apiKey });
    assert.deepEqual(stillMember.body.data.map((user: { id: number }) => user.id), [managed.user.id]);
  });

  test('a client without BOOKING_WRITE: its token cannot cancel a booking (403 naming the permission)', async () => {
    const readOnly = await createClient(api, owner.apiKey, { permissions: ['BOOKING_READ', 'PROFILE_READ'] });
    const managed = await createManagedUser(api, readOnly);
    const refused = await api.request('POST', '/v2/bookings/00000000-0000-4000-8000-000000000000/cancel', { key: managed.accessToken, version: '2024-08-13', body: {} });
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.body.error.message, new RegExp(`oAuth client with id=${readOnly.clientId} does not have the required permissions=BOOKING_WRITE`));
    const patch = await api.request('PATCH', '/v2/me', { key: managed.accessToken, body: { name: 'x' } });
    assert.equal(patch.status, 403);
    assert.match(patch.body.error.message, /PROFILE_WRITE/);
    assert.equal((await api.request('GET', '/v2/me', { key: managed.accessToken })).status, 200);
  });
});

describe('managed-user tokens across processes sharing one PostgreSQL', { skip: backend !== 'postgres' && 'needs PostgreSQL (PGlite is single-process)' }, () => {
  let a: TestApp;
  let b: TestApp;
  let client: { clientId: string; clientSecret: string };
  let ownerKey: string;
  const longTtl = { SVC_AUTH_CACHE_TTL_MS: '60000' };
  before(async () => {
    a = await createTestApp(longTtl);
    b = await createPeerApp(a, longTtl);
    const { owner } = await createOrganization(a, { isPlatform: true });
    ownerKey = owner.apiKey;
    client = await createClient(a, owner.apiKey);
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  test('a family revoked on one process is refused by the other at once, though its tokens were cached there', async () => {
    const managed = await createManagedUser(a, client);
    const refresh = (refreshToken: string) => a.request('POST', `/v2/oauth/${client.clientId}/refresh`, { headers: { 'x-svc-secret-key': client.clientSecret }, body: { refreshToken } });
    const pair = (await refresh(managed.refreshToken)).body.data;
    assert.equal((await b.request('GET', '/v2/me', { key: pair.accessToken })).status, 200);
    assert.equal((await b.request('GET', '/v2/me', { key: managed.accessToken })).status, 200);
    assert.equal((await refresh(managed.refreshToken)).status, 400);
    const ms = await eventually(async () => (await b.request('GET', '/v2/me', { key: pair.accessToken })).status === 401);
    assert.ok(ms < 1000, `took ${ms} ms`);
    assert.equal((await b.request('GET', '/v2/me', { key: managed.accessToken })).status, 401);
  });

  test('two refreshes with one token at once: one gets the new pair, the other finds it used and revokes the family', async () => {
    const managed = await createManagedUser(a, client);
    const send = (app: TestApp) => app.request('POST', `/v2/oauth/${client.clientId}/refresh`, { headers: { 'x-svc-secret-key': client.clientSecret }, body: { refreshToken: managed.refreshToken } });
    const results = await Promise.all([send(a), send(b)]);
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 400]);
    const winner = results.find((r) => r.status === 200)!.body.data;
    // The loser saw a used token: the winner's pair belongs to the revoked family.
    assert.equal((await a.request('GET', '/v2/me', { key: winner.accessToken })).status, 401);
  });

  test('PATCHing the redirect URIs on one process applies to tokens cached on the other', async () => {
    const managed = await createManagedUser(a, client);
    const origin = { origin: 'https://new.example.test' };
    assert.equal((await b.request('GET', '/v2/me', { key: managed.accessToken, headers: origin })).status, 401);
    assert.equal((await b.request('GET', '/v2/me', { key: managed.accessToken })).status, 200);
    const patched = await a.request('PATCH', `/v2/oauth-clients/${client.clientId}`, { key: ownerKey, body: { redirectUris: ['https://new.example.test'] } });
    assert.equal(patched.status, 200, patched.text);
    await eventually(async () => (await b.request('GET', '/v2/me', { key: managed.accessToken, headers: origin })).status === 200);
  });
});
