// Out of office through the API: a user's own entries (/v2/me/ooo) and an organization admin's
// (/v2/organizations/{orgId}/users/{userId}/ooo, /v2/organizations/{orgId}/ooo), the reference's checks,
// and what an entry does: the days leave the user's slots (personal and round robin), a booking in them
// is refused naming the absence, and OOO_CREATED reaches the user's webhooks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createEventType, createHost, getSlots, type Host, slotsOf, startsOf } from '../slots/helpers.js';
import { eventually } from '../support/eventually.js';
import { createTeamEventType, createTeamWithHosts } from '../support/team-scheduling.js';
import { createMember, createOrganization, createOrgMember, type Member } from '../support/tenancy.js';
import { backend, createPeerApp, createTestApp, type TestApp } from '../support/test-app.js';

// 2030-06-03 is a Monday: hosts work 09:00-17:00 UTC on weekdays.
const MONDAY = '2030-06-03';
const TUESDAY = '2030-06-04';

const book = (api: TestApp, eventTypeId: number, start: string) =>
  api.request('POST', '/v2/bookings', { version: '2024-08-13', body: { eventTypeId, start, attendee: { name: 'Booker', email: 'booker@example.com', timeZone: 'UTC' } } });

describe('out of office', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());

  test('a user keeps their own entries: whole UTC days, the reference\'s shape, checks and errors', async () => {
    const ada = await createHost(api, 'UTC');
    const created = await api.request('POST', '/v2/me/ooo', { key: ada.apiKey, body: { start: `${MONDAY}T10:30:00Z`, end: `${TUESDAY}T05:00:00.000Z`, notes: 'Conference' } });
    assert.equal(created.status, 201, created.text);
    const entry = created.body.data;
    assert.deepEqual(entry, {
      userId: ada.userId,
      toUserId: null,
      id: entry.id,
      uuid: entry.uuid,
      start: `${MONDAY}T00:00:00.000Z`,
      end: `${TUESDAY}T23:59:59.999Z`,
      notes: 'Conference',
      reason: 'unspecified',
    });
    assert.match(entry.uuid, /^[0-9a-f-]{36}$/);

    const refused = async (body: Record<string, unknown>, status: number, message: string | RegExp, property?: string, method = 'POST', path = '/v2/me/ooo') => {
      const response = await api.request(method, path, { key: ada.apiKey, body });
      assert.equal(response.status, status, response.text);
      assert.equal(response.body.status, 'error');
      if (typeof message === 'string') assert.equal(response.body.error.message, message, response.text);
      else assert.match(response.body.error.message, message, response.text);
      if (property) assert.ok(response.text.includes(`"${property}"`), `names ${property}: ${response.text}`);
    };
    await refused({ start: '2030-06-10', end: '2030-06-11T00:00:00Z' }, 400, 'Invalid Date.', 'start');
    await refused({ start: '2030-06-11T00:00:00Z', end: '2030-06-10T23:00:00Z' }, 400, 'Start date must be before end date.', 'start');
    // Overlapping the first entry by one day.
    await refused({ start: `${TUESDAY}T00:00:00Z`, end: '2030-06-06T00:00:00Z' }, 409, /^Ooo entry already exists/);
    await refused({ start: '2030-06-10T00:00:00Z', end: '2030-06-10T00:00:00Z', toUserId: ada.userId }, 400, 'Cannot redirect to self.', 'toUserId');
    const stranger = await createHost(api, 'UTC');
    await refused({ start: '2030-06-10T00:00:00Z', end: '2030-06-10T00:00:00Z', toUserId: stranger.userId }, 400, 'Cannot redirect to this user.', 'toUserId');
    await refused({ start: '2030-06-10T00:00:00Z' }, 400, 'Please specify both ooo start and end time.', 'end', 'PATCH', `/v2/me/ooo/${entry.id}`);
    await refused({ reason: 'holiday' }, 400, /reason/, 'reason', 'PATCH', `/v2/me/ooo/${entry.id}`);

    // Nothing was written by the refused requests.
    assert.deepEqual((await api.request('GET', '/v2/me/ooo', { key: ada.apiKey })).body.data, [entry]);
    const moved = await api.request('PATCH', `/v2/me/ooo/${entry.id}`, { key: ada.apiKey, body: { start: '2030-06-05T00:00:00Z', end: '2030-06-05T00:00:00Z', reason: 'sick' } });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual([moved.body.data.start, moved.body.data.end, moved.body.data.reason, moved.body.data.notes], ['2030-06-05T00:00:00.000Z', '2030-06-05T23:59:59.999Z', 'sick', 'Conference']);
    const second = await api.request('POST', '/v2/me/ooo', { key: ada.apiKey, body: { start: `${MONDAY}T00:00:00Z`, end: `${MONDAY}T00:00:00Z`, reason: 'travel' } });
    assert.equal(second.status, 201, 'the moved entry no longer holds Monday');
    const byStart = await api.request('GET', '/v2/me/ooo?sortStart=desc', { key: ada.apiKey });
    assert.deepEqual(byStart.body.data.map((e: any) => e.id), [entry.id, second.body.data.id]);
    const paged = await api.request('GET', '/v2/me/ooo?sortStart=asc&take=1&skip=1', { key: ada.apiKey });
    assert.deepEqual(paged.body.data.map((e: any) => e.id), [entry.id]);

    // Another user's entry: 403, unchanged.
    const other = await api.request('PATCH', `/v2/me/ooo/${entry.id}`, { key: stranger.apiKey, body: { notes: 'mine now' } });
    assert.equal(other.status, 403, other.text);
    assert.equal(other.body.error.message, 'This OOO entry does not belong to this user.');
    assert.equal((await api.request('DELETE', `/v2/me/ooo/${entry.id}`, { key: stranger.apiKey })).status, 403);
    const missing = await api.request('PATCH', '/v2/me/ooo/2147483647', { key: ada.apiKey, body: { notes: 'x' } });
    assert.equal(missing.status, 404, missing.text);
    assert.equal(missing.body.error.message, 'OOO entry with id=2147483647 not found');
    assert.deepEqual((await api.request('GET', '/v2/me/ooo', { key: stranger.apiKey })).body.data, []);
    const deleted = await api.request('DELETE', `/v2/me/ooo/${entry.id}`, { key: ada.apiKey });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.data.id, entry.id);
    assert.deepEqual((await api.request('GET', '/v2/me/ooo', { key: ada.apiKey })).body.data.map((e: any) => e.id), [second.body.data.id]);
  });

  test('the days away leave the slots, a booking in them is refused naming the absence, and they come back when it goes', async () => {
    const host = await createHost(api, 'UTC');
    const eventType = await createEventType(api, host);
    const days = async () => Object.keys(await slotsOf(api, { eventTypeId: eventType.id, start: MONDAY, end: TUESDAY }));
    assert.deepEqual(await days(), [MONDAY, TUESDAY]);
    const away = await api.request('POST', '/v2/me/ooo', { key: host.apiKey, body: { start: `${MONDAY}T00:00:00Z`, end: `${MONDAY}T00:00:00Z`, reason: 'vacation' } });
    assert.equal(away.status, 201, away.text);
    assert.deepEqual(await days(), [TUESDAY], 'the cached listing was dropped');
    const refused = await book(api, eventType.id, `${MONDAY}T09:00:00.000Z`);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error.details?.cause, 'out_of_office', refused.text);
    const reserve = await api.request('POST', '/v2/slots/reservations', { version: '2024-09-04', body: { eventTypeId: eventType.id, slotStart: `${MONDAY}T09:00:00.000Z` } });
    assert.equal(reserve.status, 422, reserve.text);
    assert.match(reserve.body.error.message, /out of office/);
    assert.equal((await book(api, eventType.id, `${TUESDAY}T09:00:00.000Z`)).status, 201);
    assert.equal((await api.request('DELETE', `/v2/me/ooo/${away.body.data.id}`, { key: host.apiKey })).status, 200);
    assert.deepEqual(await days(), [MONDAY, TUESDAY]);
  });

  test('a slot answer names the host who is away in the window and who covers, not the entry\'s notes; none outside it', async () => {
    const [ada, bob] = [await createHost(api, 'UTC'), await createHost(api, 'UTC')];
    await createTeamWithHosts(api, [ada, bob]);
    const eventType = await createEventType(api, ada);
    const entry = (await api.request('POST', '/v2/me/ooo', { key: ada.apiKey, body: { start: `${TUESDAY}T00:00:00Z`, end: `${TUESDAY}T00:00:00Z`, toUserId: bob.userId, reason: 'vacation', notes: 'Back Wednesday' } })).body.data;
    const bobName = (await api.request('GET', '/v2/me', { key: bob.apiKey })).body.data.name;
    const listed = await getSlots(api, { eventTypeId: eventType.id, start: MONDAY, end: TUESDAY });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(Object.keys(listed.body.data), [MONDAY]);
    assert.deepEqual(listed.body.awayHosts, [
      { userId: ada.userId, oooId: entry.id, start: `${TUESDAY}T00:00:00.000Z`, end: `${TUESDAY}T23:59:59.999Z`, reason: 'vacation', toUser: { id: bob.userId, username: bob.username, name: bobName } },
    ]);
    assert.ok(!listed.text.includes('Back Wednesday'), 'the notes are not for anyone who lists slots');
    const monday = await getSlots(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY });
    assert.equal(monday.body.awayHosts, undefined, 'Monday alone meets no entry');
  });

  test('round robin leaves the away host out and books the other', async () => {
    const [away, present] = [await createHost(api, 'UTC'), await createHost(api, 'UTC')];
    const { team, owner } = await createTeamWithHosts(api, [away, present]);
    const eventType = await createTeamEventType(api, owner.apiKey, team.id, {
      title: 'Intro',
      slug: `intro-${Math.random().toString(36).slice(2, 8)}`,
      lengthInMinutes: 60,
      minimumBookingNotice: 0,
      schedulingType: 'roundRobin',
      hosts: [{ userId: away.userId }, { userId: present.userId }],
    });
    assert.equal((await api.request('POST', '/v2/me/ooo', { key: away.apiKey, body: { start: `${MONDAY}T00:00:00Z`, end: `${TUESDAY}T00:00:00Z` } })).status, 201);
    const listed = await getSlots(api, { eventTypeId: eventType.id, start: MONDAY, end: MONDAY, format: 'range' });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(startsOf(listed.body.data).length, 8, 'every hour of the day is still offered');
    for (let i = 0; i < 2; i++) {
      const booked = await book(api, eventType.id, `${MONDAY}T1${i}:00:00.000Z`);
      assert.equal(booked.status, 201, booked.text);
      assert.deepEqual(booked.body.data.hosts.map((h: any) => h.id), [present.userId], 'the host who is away is never chosen');
    }
  });

  test('organization admins manage their users\' entries; members and other organizations cannot', async () => {
    const { organization, owner } = await createOrganization(api);
    const admin = await createOrgMember(api, organization.id, owner.apiKey, 'ADMIN');
    const [ada, bob] = [await createOrgMember(api, organization.id, owner.apiKey), await createOrgMember(api, organization.id, owner.apiKey)];
    const base = (member: Member) => `/v2/organizations/${organization.id}/users/${member.user.id}/ooo`;
    const created = await api.request('POST', base(ada), { key: admin.apiKey, body: { start: '2030-07-01T00:00:00Z', end: '2030-07-05T00:00:00Z', toUserId: bob.user.id, reason: 'vacation' } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual([created.body.data.userId, created.body.data.toUserId], [ada.user.id, bob.user.id]);
    // Bob covering for Ada cannot send his bookers to her over the same days.
    const loop = await api.request('POST', base(bob), { key: admin.apiKey, body: { start: '2030-07-04T00:00:00Z', end: '2030-07-08T00:00:00Z', toUserId: ada.user.id } });
    assert.equal(loop.status, 400, loop.text);
    assert.equal(loop.body.error.message, 'Booking redirect infinite not allowed.');
    const outsider = await createMember(api);
    const foreign = await api.request('POST', base(ada), { key: admin.apiKey, body: { start: '2030-08-01T00:00:00Z', end: '2030-08-01T00:00:00Z', toUserId: outsider.user.id } });
    assert.equal(foreign.body.error?.message, 'Cannot redirect to this user.', foreign.text);
    assert.equal((await api.request('POST', base(bob), { key: admin.apiKey, body: { start: '2030-07-10T00:00:00Z', end: '2030-07-10T00:00:00Z' } })).status, 201);

    const all = await api.request('GET', `/v2/organizations/${organization.id}/ooo?sortStart=desc`, { key: admin.apiKey });
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.body.data.map((e: any) => [e.userId, e.start]), [[bob.user.id, '2030-07-10T00:00:00.000Z'], [ada.user.id, '2030-07-01T00:00:00.000Z']]);
    const adas = await api.request('GET', `/v2/organizations/${organization.id}/ooo?email=${encodeURIComponent(ada.user.email.toUpperCase())}`, { key: admin.apiKey });
    assert.deepEqual(adas.body.data.map((e: any) => e.id), [created.body.data.id]);
    assert.deepEqual((await api.request('GET', base(ada), { key: admin.apiKey })).body.data.map((e: any) => e.id), [created.body.data.id]);
    // Ada sees the entry as her own.
    assert.deepEqual((await api.request('GET', '/v2/me/ooo', { key: ada.apiKey })).body.data.map((e: any) => e.id), [created.body.data.id]);

    // A member is not an admin; another organization's owner is not this one's; a user outside it is no target.
    assert.equal((await api.request('GET', base(ada), { key: bob.apiKey })).status, 403);
    assert.equal((await api.request('POST', base(ada), { key: bob.apiKey, body: { start: '2030-09-01T00:00:00Z', end: '2030-09-01T00:00:00Z' } })).status, 403);
    const elsewhere = await createOrganization(api);
    assert.equal((await api.request('GET', `/v2/organizations/${organization.id}/ooo`, { key: elsewhere.owner.apiKey })).status, 403);
    assert.equal((await api.request('DELETE', `${base(ada)}/${created.body.data.id}`, { key: elsewhere.owner.apiKey })).status, 403);
    const notInOrg = await api.request('POST', `/v2/organizations/${organization.id}/users/${outsider.user.id}/ooo`, { key: admin.apiKey, body: { start: '2030-09-01T00:00:00Z', end: '2030-09-01T00:00:00Z' } });
    assert.equal(notInOrg.status, 403, notInOrg.text);
    // An entry id of another user, through this user's path.
    const wrongOwner = await api.request('PATCH', `${base(bob)}/${created.body.data.id}`, { key: admin.apiKey, body: { notes: 'x' } });
    assert.equal(wrongOwner.status, 403, wrongOwner.text);
    const removed = await api.request('DELETE', `${base(ada)}/${created.body.data.id}`, { key: admin.apiKey });
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual((await api.request('GET', base(ada), { key: admin.apiKey })).body.data, []);
  });

  test('OOO_CREATED reaches the user\'s webhooks with the entry, the user and who covers', async () => {
    const [ada, bob] = [await createHost(api, 'UTC'), await createHost(api, 'UTC')];
    await createTeamWithHosts(api, [ada, bob]);
    const hook = await api.request('POST', '/v2/webhooks', { key: ada.apiKey, body: { subscriberUrl: 'http://127.0.0.1:9/hook', active: true, triggers: ['OOO_CREATED'] } });
    assert.equal(hook.status, 201, hook.text);
    const created = await api.request('POST', '/v2/me/ooo', { key: ada.apiKey, body: { start: '2030-06-10T00:00:00Z', end: '2030-06-11T00:00:00Z', toUserId: bob.userId, reason: 'travel', notes: 'Away' } });
    assert.equal(created.status, 201, created.text);
    const rows = (await api.runtime.ctx.database.db.execute(sql`select body from webhook_deliveries where webhook_id = ${hook.body.data.id} and trigger = 'OOO_CREATED'`)) as unknown as { rows: { body: string }[] };
    assert.equal(rows.rows.length, 1);
    const sent = JSON.parse(rows.rows[0]!.body);
    assert.equal(sent.triggerEvent, 'OOO_CREATED');
    const { oooEntry } = sent.payload;
    assert.deepEqual(
      [oooEntry.id, oooEntry.uuid, oooEntry.start, oooEntry.end, oooEntry.notes, oooEntry.reason, oooEntry.reasonId, oooEntry.user.id, oooEntry.user.username, oooEntry.toUser.id],
      [created.body.data.id, created.body.data.uuid, '2030-06-10T00:00:00.000Z', '2030-06-11T23:59:59.999Z', 'Away', { reason: 'travel' }, 3, ada.userId, ada.username, bob.userId],
    );
    // Changing the entry is not a creation.
    await api.request('PATCH', `/v2/me/ooo/${created.body.data.id}`, { key: ada.apiKey, body: { notes: 'Later' } });
    const after = (await api.runtime.ctx.database.db.execute(sql`select count(*)::int as n from webhook_deliveries where webhook_id = ${hook.body.data.id}`)) as unknown as { rows: { n: number }[] };
    assert.equal(after.rows[0]!.n, 1);
  });

  test('another process sees an entry at once: its cached slots are dropped through the change feed', { skip: backend !== 'postgres' && 'needs PostgreSQL: two processes share one database' }, async () => {
    const peer = await createPeerApp(api);
    try {
      const host: Host = await createHost(api, 'UTC');
      const eventType = await createEventType(api, host);
      const days = async () => Object.keys(await slotsOf(peer, { eventTypeId: eventType.id, start: MONDAY, end: TUESDAY }));
      assert.deepEqual(await days(), [MONDAY, TUESDAY]);
      assert.deepEqual(await days(), [MONDAY, TUESDAY], 'kept');
      assert.equal((await api.request('POST', '/v2/me/ooo', { key: host.apiKey, body: { start: `${TUESDAY}T00:00:00Z`, end: `${TUESDAY}T00:00:00Z` } })).status, 201);
      await eventually(async () => (await days()).join() === MONDAY, 5000);
    } finally {
      await peer.close();
    }
  });
});
