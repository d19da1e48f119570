// Organization webhooks: the reference's OrganizationsWebhooksController behind IsOrgGuard (403),
// RolesGuard with ORG_ADMIN (403) and, on /:webhookId, IsWebhookInOrg. That guard looks the pair
// (organization, webhook) up and refuses with 403 "IsWebhookInOrg - webhook with id=W is not part of
// the organization with id=O." both for another organization's webhook and for an id that names no
// webhook at all: it never answers 404, so neither do these routes (the webhook service's own 404,
// webhook_not_found, is only reached when a webhook vanishes between the check and the write).
// Output: the reference's org webhook is the user-webhook shape with `teamId` = the organization.
// Delivery: an organization's subscriptions receive the bookings of the organization's members with
// an accepted membership, as the reference's getOrgIdFromMemberOrTeamId (members.some {accepted: true}).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { createEventType, createHost, type Host } from '../slots/helpers.js';
import { createMember, createOrganization, createOrgMember, type Member } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertSigned, deliveriesOf, fannedOutDeliveriesOf, type Receiver, startReceiver } from '../webhooks/helpers.js';

/** Invites the user to the organization; with `accepted`, the user (their API key) accepts. */
async function joinOrganization(api: TestApp, orgId: number, ownerKey: string, user: { userId: number; apiKey: string }, role = 'MEMBER', accepted = true): Promise<void> {
  const response = await api.request('POST', `/v2/organizations/${orgId}/memberships`, { key: ownerKey, body: { userId: user.userId, role, accepted } });
  assert.equal(response.status, 201, response.text);
  if (!accepted) return;
  const answer = await api.request('POST', `/v2/organizations/${orgId}/memberships/${response.body.data.id}/accept`, { key: user.apiKey });
  assert.equal(answer.status, 200, answer.text);
}


function assertNamesField(response: { status: number; body: any; text: string }, field: string): void {
  assert.equal(response.status, 400, response.text);
  const properties = (response.body.error.details.errors ?? []).map((error: { property: string }) => error.property);
  assert.ok(properties.includes(field), `should name ${field}: ${response.text}`);
}

describe('organization webhooks (/v2/organizations/{orgId}/webhooks)', () => {
  let api: TestApp;
  let receiver: Receiver;
  let orgId: number;
  let owner: Member;
  let admin: Member;
  const now = Date.parse('2027-01-01T12:00:00Z');
  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    receiver = await startReceiver();
    const made = await createOrganization(api);
    orgId = made.organization.id;
    owner = made.owner;
    admin = await createOrgMember(api, orgId, owner.apiKey, 'ADMIN');
  });
  after(async () => {
    await receiver.close();
    await api.close();
  });

  const path = (id?: number, org = orgId) => `/v2/organizations/${org}/webhooks${id === undefined ? '' : `/${id}`}`;
  const notInOrg = (id: number, org = orgId) => `IsWebhookInOrg - webhook with id=${id} is not part of the organization with id=${org}.`;

  test('an organization admin creates, lists, reads, updates and deletes webhooks; outputs carry teamId = the organization', async () => {
    const url = `${receiver.url}/crud`;
    const created = await api.request('POST', path(), { key: admin.apiKey, body: { subscriberUrl: url, active: true, triggers: ['BOOKING_CREATED', 'BOOKING_PAID'], secret: 'org secret' } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const expected = { id, subscriberUrl: url, active: true, triggers: ['BOOKING_CREATED', 'BOOKING_PAID'], payloadTemplate: null, secret: 'org secret', version: '2021-10-20', teamId: orgId };
    assert.deepEqual(created.body, { status: 'success', data: expected });

    const duplicate = await api.request('POST', path(), { key: owner.apiKey, body: { subscriberUrl: url, active: true, triggers: ['BOOKING_CREATED'] } });
    assert.deepEqual([duplicate.status, duplicate.body.error.message], [409, 'Webhook with this subscriber url already exists for this organization']);

    const list = await api.request('GET', path(), { key: admin.apiKey });
    assert.deepEqual(list.body, { status: 'success', data: [expected] });
    assert.deepEqual((await api.request('GET', `${path()}?skip=1`, { key: admin.apiKey })).body.data, []);
    assert.deepEqual((await api.request('GET', path(id), { key: owner.apiKey })).body, { status: 'success', data: expected });

    const patched = await api.request('PATCH', path(id), { key: admin.apiKey, body: { active: false, triggers: ['BOOKING_CANCELLED'], payloadTemplate: '{"title":"{{title}}"}', secret: null } });
    const updated = { ...expected, active: false, triggers: ['BOOKING_CANCELLED'], payloadTemplate: '{"title":"{{title}}"}', secret: null };
    assert.deepEqual([patched.status, patched.body.data], [200, updated]);

    const deleted = await api.request('DELETE', path(id), { key: admin.apiKey });
    assert.deepEqual([deleted.status, deleted.body.data], [200, updated]);
    // The reference's guard finds no (organization, webhook) pair: 403, not 404.
    const gone = await api.request('GET', path(id), { key: admin.apiKey });
    assert.deepEqual([gone.status, gone.body.error.message], [403, notInOrg(id)]);
    assert.deepEqual((await api.request('GET', path(), { key: admin.apiKey })).body.data, []);
  });

  test('the list pages as the reference\'s SkipTakePagination: 250 by default, not 25', async () => {
    // OrganizationsWebhooksController.getAllOrganizationWebhooks: `@Query() queryParams: SkipTakePagination` and
    // `getWebhooksPaginated(orgId, skip ?? 0, take ?? 250)`.
    const { organization, owner: orgOwner } = await createOrganization(api);
    const at = (id?: number) => `/v2/organizations/${organization.id}/webhooks${id === undefined ? '' : `/${id}`}`;
    for (let i = 0; i < 27; i++) {
      const made = await api.request('POST', at(), { key: orgOwner.apiKey, body: { subscriberUrl: `${receiver.url}/page-${i}`, active: true, triggers: ['BOOKING_CREATED'] } });
      assert.equal(made.status, 201, made.text);
    }
    assert.equal((await api.request('GET', at(), { key: orgOwner.apiKey })).body.data.length, 27);
    assert.equal((await api.request('GET', `${at()}?take=26`, { key: orgOwner.apiKey })).body.data.length, 26);
  });

  test('bad input is refused with 400 naming the field', async () => {
    assertNamesField(await api.request('POST', path(), { key: admin.apiKey, body: { active: true, triggers: ['BOOKING_CREATED'] } }), 'subscriberUrl');
    assertNamesField(await api.request('POST', path(), { key: admin.apiKey, body: { subscriberUrl: `${receiver.url}/x`, triggers: ['BOOKING_CREATED'] } }), 'active');
    assertNamesField(await api.request('POST', path(), { key: admin.apiKey, body: { subscriberUrl: `${receiver.url}/x`, active: true, triggers: [] } }), 'triggers');
    // Organization subscriptions take the base triggers only (spec section 6).
    const levelRefused = await api.request('POST', path(), { key: admin.apiKey, body: { subscriberUrl: `${receiver.url}/x`, active: true, triggers: ['WRONG_ASSIGNMENT_REPORT'] } });
    assertNamesField(levelRefused, 'triggers');
    assert.equal(levelRefused.body.error.details.reason, 'trigger_not_allowed');
    assertNamesField(await api.request('POST', path(), { key: admin.apiKey, body: { subscriberUrl: 'ftp://example.com/x', active: true, triggers: ['BOOKING_CREATED'] } }), 'subscriberUrl');
    assertNamesField(await api.request('GET', `${path()}?take=0`, { key: admin.apiKey }), 'take');
    assertNamesField(await api.request('GET', `${path()}?take=251`, { key: admin.apiKey }), 'take');
    const made = (await api.request('POST', path(), { key: admin.apiKey, body: { subscriberUrl: `${receiver.url}/valid`, active: true, triggers: ['BOOKING_CREATED'] } })).body.data;
    assertNamesField(await api.request('PATCH', path(made.id), { key: admin.apiKey, body: { triggers: ['NOT_A_TRIGGER'] } }), 'triggers');
    assertNamesField(await api.request('GET', `${path()}/abc`, { key: admin.apiKey }), 'webhookId');
    await api.request('DELETE', path(made.id), { key: admin.apiKey });
  });

  test('refusals follow the reference guards: another organization, its webhook, a user webhook, a MEMBER and an outsider get 403', async () => {
    const mine = (await api.request('POST', path(), { key: admin.apiKey, body: { subscriberUrl: `${receiver.url}/guarded`, active: true, triggers: ['BOOKING_CREATED'] } })).body.data;
    const other = await createOrganization(api);
    const theirs = (await api.request('POST', path(undefined, other.organization.id), { key: other.owner.apiKey, body: { subscriberUrl: `${receiver.url}/theirs`, active: true, triggers: ['BOOKING_CREATED'] } })).body.data;
    const personal = (await api.request('POST', '/v2/webhooks', { key: admin.apiKey, body: { subscriberUrl: `${receiver.url}/personal`, active: true, triggers: ['BOOKING_CREATED'] } })).body.data;

    for (const [method, body] of [['GET', undefined], ['PATCH', { active: false }], ['DELETE', undefined]] as const) {
      const crossed = await api.request(method, path(theirs.id), { key: admin.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual([crossed.status, crossed.body.error.message], [403, notInOrg(theirs.id)], `${method} another organization's webhook`);
      const user = await api.request(method, path(personal.id), { key: admin.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual([user.status, user.body.error.message], [403, notInOrg(personal.id)], `${method} a user webhook`);
      const missing = await api.request(method, path(2_000_000_000), { key: admin.apiKey, ...(body ? { body } : {}) });
      assert.deepEqual([missing.status, missing.body.error.message], [403, notInOrg(2_000_000_000)], `${method} a missing webhook`);
    }
    const still = await api.request('GET', path(theirs.id, other.organization.id), { key: other.owner.apiKey });
    assert.deepEqual([still.status, still.body.data.active], [200, true], 'untouched');
    assert.deepEqual((await api.request('GET', path(undefined, other.organization.id), { key: other.owner.apiKey })).body.data.map((hook: any) => hook.id), [theirs.id]);
    assert.equal((await api.request('GET', path(), { key: other.owner.apiKey })).status, 403, "another organization's owner");

    const member = await createOrgMember(api, orgId, owner.apiKey);
    for (const [method, target, body] of [
      ['GET', path(), undefined],
      ['POST', path(), { subscriberUrl: `${receiver.url}/member`, active: true, triggers: ['BOOKING_CREATED'] }],
      ['GET', path(mine.id), undefined],
      ['PATCH', path(mine.id), { active: false }],
      ['DELETE', path(mine.id), undefined],
    ] as const) {
      const byMember = await api.request(method, target, { key: member.apiKey, ...(body ? { body } : {}) });
      assert.equal(byMember.status, 403, `${method} ${target} by a member`);
      assert.equal(byMember.body.error.message, `RolesGuard - user with id=${member.user.id} does not have the minimum required role=ORG_ADMIN within organization with id=${orgId}.`);
    }
    const outsider = await createMember(api);
    const byOutsider = await api.request('GET', path(mine.id), { key: outsider.apiKey });
    assert.deepEqual([byOutsider.status, byOutsider.body.error.message], [403, `RolesGuard - User is not a member of the organization with id=${orgId}.`]);
    const notOrg = await api.request('GET', path(undefined, 2_000_000_000), { key: admin.apiKey });
    assert.deepEqual([notOrg.status, notOrg.body.error.message], [403, 'IsOrgGuard - provided organization id=2000000000 does not represent any existing organization.']);
    assert.equal((await api.request('GET', path())).status, 401);
    assert.equal((await api.request('GET', path(mine.id), { key: admin.apiKey })).body.data.active, true, 'nothing changed');
  });

  test("bookings of the organization's accepted members reach its subscriptions, signed; a non-member's and a pending member's do not", async () => {
    const secret = 'members-secret';
    const hook = (await api.request('POST', path(), { key: admin.apiKey, body: { subscriberUrl: `${receiver.url}/members`, active: true, triggers: ['BOOKING_CREATED'], secret } })).body.data;
    const host = async (membership: 'accepted' | 'pending' | 'none') => {
      const made: Host = await createHost(api, 'America/New_York');
      if (membership !== 'none') await joinOrganization(api, orgId, owner.apiKey, made, 'MEMBER', membership === 'accepted');
      return { host: made, eventType: await createEventType(api, made) };
    };
    const book = async (eventTypeId: number, start: string) => {
      const response = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId, start, attendee: { name: 'Bob Booker', email: 'bob@example.com', timeZone: 'Europe/Rome' } } });
      assert.equal(response.status, 201, response.text);
      return response.body.data;
    };

    // 2027-01-04 is a Monday; a New York host works 14:00Z-22:00Z in January.
    const member = await host('accepted');
    const booking = await book(member.eventType.id, '2027-01-04T15:00:00.000Z');
    const [request] = await receiver.waitFor(1, 10_000, (received) => received.url === '/hook/members');
    assertSigned(request!, secret);
    assert.equal(request!.json.triggerEvent, 'BOOKING_CREATED');
    assert.equal(request!.json.payload.uid, booking.uid);
    assert.equal(request!.json.payload.organizer.id, member.host.userId);

    const outsider = await host('none');
    await book(outsider.eventType.id, '2027-01-04T15:00:00.000Z');
    const pending = await host('pending');
    await book(pending.eventType.id, '2027-01-04T16:00:00.000Z');
    // Once every booking event is fanned out: no delivery was made for the other two bookings.
    const deliveries = await fannedOutDeliveriesOf(api.runtime.ctx.database.db, hook.id);
    assert.equal(deliveries.length, 1);
    assert.equal(JSON.parse(deliveries[0]!.body).payload.uid, booking.uid);

    // Another organization's subscription does not hear this organization's members.
    const other = await createOrganization(api);
    const elsewhere = (await api.request('POST', path(undefined, other.organization.id), { key: other.owner.apiKey, body: { subscriberUrl: `${receiver.url}/elsewhere`, active: true, triggers: ['BOOKING_CREATED'] } })).body.data;
    await book(member.eventType.id, '2027-01-04T17:00:00.000Z');
    assert.equal((await fannedOutDeliveriesOf(api.runtime.ctx.database.db, elsewhere.id)).length, 0);
    assert.equal((await deliveriesOf(api.runtime.ctx.database.db, hook.id)).length, 2);
  });
});
