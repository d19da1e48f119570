// OAuth-client webhooks (the reference's OAuthClientWebhooksController, spec endpoints 9 and 10):
// managed with the client's secret (or an admin's API key), shaped as the user webhook with
// `oAuthClientId`; another owner's webhook is the reference's 403 (IsOAuthClientWebhookGuard). They
// receive every booking event of the client's managed users, and nothing of anyone else's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { assertNamesField, createEventType, createHost } from '../slots/helpers.js';
import { createOrganization, type Member } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertSigned, deliveriesOf, type Receiver, startReceiver } from '../webhooks/helpers.js';
import { createClient, createManagedUser } from './helpers.js';

describe('OAuth-client webhooks (/v2/oauth-clients/{clientId}/webhooks)', () => {
  let api: TestApp;
  let receiver: Receiver;
  let owner: Member;
  let client: { clientId: string; clientSecret: string };
  let otherClient: { clientId: string; clientSecret: string };
  let foreignOwner: Member;
  // 2031-03-10 is a Monday.
  const now = Date.parse('2031-03-10T08:00:00Z');
  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    receiver = await startReceiver();
    const platform = await createOrganization(api, { isPlatform: true });
    owner = platform.owner;
    client = await createClient(api, owner.apiKey);
    otherClient = await createClient(api, owner.apiKey);
    foreignOwner = (await createOrganization(api, { isPlatform: true })).owner;
  });
  after(async () => {
    await receiver.close();
    await api.close();
  });

  const path = (id?: number, c = client) => `/v2/oauth-clients/${c.clientId}/webhooks${id === undefined ? '' : `/${id}`}`;
  const secret = (c = client) => ({ 'x-svc-secret-key': c.clientSecret });

  test('created, listed, read, updated and deleted with the client secret; outputs carry oAuthClientId', async () => {
    const url = `${receiver.url}/crud`;
    const created = await api.request('POST', path(), { headers: secret(), body: { subscriberUrl: url, active: true, triggers: ['BOOKING_CREATED', 'WRONG_ASSIGNMENT_REPORT'], secret: 'shh' } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const expected = { id, subscriberUrl: url, active: true, triggers: ['BOOKING_CREATED', 'WRONG_ASSIGNMENT_REPORT'], payloadTemplate: null, secret: 'shh', version: '2021-10-20', oAuthClientId: client.clientId };
    assert.deepEqual(created.body.data, expected);
    assert.deepEqual((await api.request('GET', path(), { headers: secret() })).body.data, [expected]);
    assert.deepEqual((await api.request('GET', path(id), { key: owner.apiKey })).body.data, expected);
    const patched = await api.request('PATCH', path(id), { headers: secret(), body: { active: false, secret: null } });
    assert.deepEqual([patched.status, patched.body.data], [200, { ...expected, active: false, secret: null }]);
    const again = await api.request('POST', path(), { headers: secret(), body: { subscriberUrl: url, active: true, triggers: ['BOOKING_CREATED'] } });
    assert.equal(again.status, 409, 'one subscription per URL and client');
    const deleted = await api.request('DELETE', path(id), { headers: secret() });
    assert.deepEqual([deleted.status, deleted.body.data.id], [200, id]);
    assert.equal((await api.request('GET', path(id), { headers: secret() })).status, 404);

    for (const n of [1, 2]) await api.request('POST', path(), { headers: secret(), body: { subscriberUrl: `${url}/${n}`, active: true, triggers: ['BOOKING_CREATED'] } });
    const all = await api.request('DELETE', path(), { headers: secret() });
    assert.deepEqual([all.status, all.body.data], [200, '2 webhooks deleted']);
    assertNamesField(await api.request('POST', path(), { headers: secret(), body: { active: true, triggers: ['BOOKING_CREATED'] } }), 'subscriberUrl');
    assertNamesField(await api.request('POST', path(), { headers: secret(), body: { subscriberUrl: `${url}/x`, active: true, triggers: ['INSTANT_MEETING_ACCEPTED'] } }), 'triggers');
  });

  test('the list gives up to 250 without take, as the reference (take defaults to 250)', async () => {
    const mine = await createClient(api, owner.apiKey);
    // oauth-client-webhooks.controller.ts: getOAuthClientWebhooksPaginated(oAuthClientId, pagination.skip ?? 0, pagination.take ?? 250); SkipTakePagination: take default 250, maximum 250
    for (let n = 0; n < 27; n++) {
      const made = await api.request('POST', path(undefined, mine), { headers: secret(mine), body: { subscriberUrl: `${receiver.url}/many/${n}`, active: false, triggers: ['BOOKING_CREATED'] } });
      assert.equal(made.status, 201, made.text);
    }
    const all = await api.request('GET', path(undefined, mine), { headers: secret(mine) });
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.data.length, 27);
    assert.equal((await api.request('GET', `${path(undefined, mine)}?take=5&skip=25`, { headers: secret(mine) })).body.data.length, 2);
    assert.equal((await api.request('GET', `${path(undefined, mine)}?take=251`, { headers: secret(mine) })).status, 400);
  });

  test("another client's webhook is a 403; another organization's admin and a wrong secret are refused", async () => {
    const theirs = (await api.request('POST', path(undefined, otherClient), { headers: secret(otherClient), body: { subscriberUrl: `${receiver.url}/theirs`, active: true, triggers: ['BOOKING_CREATED'] } })).body.data;
    for (const [method, body] of [['GET', undefined], ['PATCH', { active: false }], ['DELETE', undefined]] as const) {
      const refused = await api.request(method, path(theirs.id), { headers: secret(), ...(body ? { body } : {}) });
      assert.deepEqual([refused.status, refused.body.error.message], [403, 'IsOAuthClientWebhookGuard - Webhook does not belong to this oAuthClient'], method);
    }
    assert.equal((await api.request('GET', path(theirs.id, otherClient), { headers: secret(otherClient) })).body.data.active, true, 'untouched');
    assert.equal((await api.request('GET', path(), { key: foreignOwner.apiKey })).status, 403);
    assert.equal((await api.request('GET', path(), { headers: secret(otherClient) })).status, 401);
    assert.deepEqual((await api.request('GET', path(), { headers: secret() })).body.data, []);
  });

  test("every booking event of the client's managed users reaches its webhooks, signed; other users' bookings do not", async () => {
    const hook = (await api.request('POST', path(), { headers: secret(), body: { subscriberUrl: `${receiver.url}/client`, active: true, triggers: ['BOOKING_CREATED', 'BOOKING_CANCELLED'], secret: 'client-secret' } })).body.data;
    const otherHook = (await api.request('POST', path(undefined, otherClient), { headers: secret(otherClient), body: { subscriberUrl: `${receiver.url}/other-client`, active: true, triggers: ['BOOKING_CREATED'] } })).body.data;
    const eventTypeOf = async (accessToken: string) => {
      const response = await api.request('POST', '/v2/event-types', { key: accessToken, version: '2024-06-14', body: { title: 'Call', slug: 'call', lengthInMinutes: 30, minimumBookingNotice: 0 } });
      assert.equal(response.status, 201, response.text);
      return response.body.data.id as number;
    };
    const book = async (eventTypeId: number, start: string) => {
      const response = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId, start, attendee: { name: 'Bob Booker', email: 'bob@example.com', timeZone: 'Europe/Rome' } } });
      assert.equal(response.status, 201, response.text);
      return response.body.data;
    };

    const managed = await createManagedUser(api, client, { timeZone: 'UTC' });
    const booking = await book(await eventTypeOf(managed.accessToken), '2031-03-11T10:00:00.000Z');
    const [request] = await receiver.waitFor(1, 10_000, (received) => received.url.endsWith('/client'));
    assertSigned(request!, 'client-secret');
    assert.equal(request!.json.triggerEvent, 'BOOKING_CREATED');
    assert.equal(request!.json.payload.uid, booking.uid);
    assert.equal(request!.json.payload.organizer.id, managed.user.id);
    const cancelled = await api.request('POST', `/v2/bookings/${booking.uid}/cancel`, { key: managed.accessToken, version: BOOKINGS_VERSION, body: { cancellationReason: 'Busy' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    await receiver.waitFor(1, 10_000, (received) => received.url.endsWith('/client') && received.json?.triggerEvent === 'BOOKING_CANCELLED');

    // Another client's user, and a user no client manages.
    const otherManaged = await createManagedUser(api, otherClient, { timeZone: 'UTC' });
    await book(await eventTypeOf(otherManaged.accessToken), '2031-03-11T11:00:00.000Z');
    const plain = await createHost(api, 'UTC');
    await book((await createEventType(api, plain, { lengthInMinutes: 30 })).id, '2031-03-11T12:00:00.000Z');
    const db = api.runtime.ctx.database.db;
    assert.deepEqual((await deliveriesOf(db, hook.id)).map((delivery) => delivery.trigger), ['BOOKING_CREATED', 'BOOKING_CANCELLED']);
    const others = await deliveriesOf(db, otherHook.id);
    assert.equal(others.length, 1);
    assert.equal(JSON.parse(others[0]!.body).payload.organizer.id, otherManaged.user.id);
  });
});
