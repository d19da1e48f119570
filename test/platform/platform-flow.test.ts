// The whole platform flow over HTTP, as a platform customer's backend runs it: an organization admin
// creates an OAuth client; the client creates a managed user with a time zone; the user's token lists
// slots, books, reschedules and cancels, and the client's webhook hears each event; a refresh rotates
// the tokens; the old refresh token is refused and its family revoked; force-refresh gets a fresh pair;
// an expired token answers 498; the user is deleted.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { SLOTS_VERSION } from '../slots/helpers.js';
import { createOrganization, createOrgMember } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertSigned, type Receiver, startReceiver } from '../webhooks/helpers.js';

describe('the platform flow, end to end', () => {
  let api: TestApp;
  let receiver: Receiver;
  // Monday 2031-03-10, 07:00 in Lisbon (UTC+0 in March).
  let now = Date.parse('2031-03-10T07:00:00Z');
  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await api.close();
  });

  test('org admin -> client -> managed user -> slots, book, reschedule, cancel with webhooks -> refresh, reuse, force-refresh, 498 -> delete', async () => {
    const { organization, owner } = await createOrganization(api, { isPlatform: true });
    const admin = await createOrgMember(api, organization.id, owner.apiKey, 'ADMIN');

    // 1. The organization admin creates the client.
    const clientResponse = await api.request('POST', '/v2/oauth-clients', { key: admin.apiKey, body: { name: 'Clinic app', redirectUris: ['https://clinic.example.test'], permissions: ['*'] } });
    assert.equal(clientResponse.status, 201, clientResponse.text);
    const { clientId, clientSecret } = clientResponse.body.data;
    const asClient = { 'x-svc-secret-key': clientSecret };

    const hook = await api.request('POST', `/v2/oauth-clients/${clientId}/webhooks`, {
      headers: asClient,
      body: { subscriberUrl: `${receiver.url}/flow`, active: true, triggers: ['BOOKING_CREATED', 'BOOKING_RESCHEDULED', 'BOOKING_CANCELLED'], secret: 'flow-secret' },
    });
    assert.equal(hook.status, 201, hook.text);

    // 2. The client creates a managed user with a time zone: a Mon-Fri 09:00-17:00 schedule.
    const created = await api.request('POST', `/v2/oauth-clients/${clientId}/users`, { headers: asClient, body: { email: 'dr.who@clinic.test', name: 'Dr Who', timeZone: 'Europe/Lisbon' } });
    assert.equal(created.status, 201, created.text);
    const { user, accessToken, refreshToken } = created.body.data;
    const eventType = await api.request('POST', '/v2/event-types', {
      key: accessToken,
      version: '2024-06-14',
      headers: { origin: 'https://clinic.example.test' },
      body: { title: 'Consultation', slug: 'consultation', lengthInMinutes: 30, minimumBookingNotice: 0 },
    });
    assert.equal(eventType.status, 201, eventType.text);
    const eventTypeId = eventType.body.data.id;

    // 3. The token lists slots, books, reschedules and cancels.
    const slots = await api.request('GET', `/v2/slots?eventTypeId=${eventTypeId}&start=2031-03-11&end=2031-03-11&timeZone=Europe/Lisbon`, { key: accessToken, version: SLOTS_VERSION });
    assert.equal(slots.status, 200, slots.text);
    const starts = slots.body.data['2031-03-11'].map((slot: { start: string }) => slot.start);
    assert.equal(starts[0], '2031-03-11T09:00:00.000+00:00');
    assert.equal(starts.at(-1), '2031-03-11T16:30:00.000+00:00');

    const attendee = { name: 'Amy Pond', email: 'amy@example.com', timeZone: 'Europe/London' };
    const booking = await api.request('POST', '/v2/bookings', { key: accessToken, version: BOOKINGS_VERSION, body: { eventTypeId, start: starts[2], attendee } });
    assert.equal(booking.status, 201, booking.text);
    const uid = booking.body.data.uid;
    const moved = await api.request('POST', `/v2/bookings/${uid}/reschedule`, { key: accessToken, version: BOOKINGS_VERSION, body: { start: starts[4], reschedulingReason: 'Clash' } });
    assert.equal(moved.status, 201, moved.text);
    const newUid = moved.body.data.uid;
    const cancelled = await api.request('POST', `/v2/bookings/${newUid}/cancel`, { key: accessToken, version: BOOKINGS_VERSION, body: { cancellationReason: 'Unwell' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.data.status, 'cancelled');
    const listed = await api.request('GET', '/v2/bookings?status=cancelled', { key: accessToken, version: BOOKINGS_VERSION });
    assert.deepEqual(listed.body.data.map((b: { uid: string }) => b.uid).sort(), [uid, newUid].sort());

    // 4. The client's webhook heard each event, signed with its secret.
    const received = await receiver.waitFor(3, 10_000, (request) => request.url.endsWith('/flow'));
    for (const request of received) assertSigned(request, 'flow-secret');
    const events = received.map((request) => [request.json.triggerEvent, request.json.payload.uid]);
    assert.deepEqual(events, [
      ['BOOKING_CREATED', uid],
      ['BOOKING_RESCHEDULED', newUid],
      ['BOOKING_CANCELLED', newUid],
    ]);

    // 5. Refresh rotates the pair; the old refresh token is refused and its family revoked.
    const refresh = (token: string) => api.request('POST', `/v2/oauth/${clientId}/refresh`, { headers: asClient, body: { refreshToken: token } });
    const rotated = await refresh(refreshToken);
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal((await api.request('GET', '/v2/me', { key: rotated.body.data.accessToken })).body.data.id, user.id);
    const reused = await refresh(refreshToken);
    assert.deepEqual([reused.status, reused.body.error.details.reason], [400, 'refresh_token_reused']);
    for (const token of [accessToken, rotated.body.data.accessToken]) assert.equal((await api.request('GET', '/v2/me', { key: token })).status, 401);
    assert.equal((await refresh(rotated.body.data.refreshToken)).status, 400);

    // 6. Force-refresh gets the client going again.
    const forced = await api.request('POST', `/v2/oauth-clients/${clientId}/users/${user.id}/force-refresh`, { headers: asClient });
    assert.equal(forced.status, 200, forced.text);
    const fresh = forced.body.data;
    assert.equal((await api.request('GET', '/v2/me', { key: fresh.accessToken })).status, 200);

    // 7. An hour later the access token has expired: 498, and a refresh brings a working one.
    now = fresh.accessTokenExpiresAt + 1000;
    const expired = await api.request('GET', '/v2/me', { key: fresh.accessToken });
    assert.deepEqual([expired.status, expired.body.error.code, expired.body.error.message], [498, 'TokenExpiredException', 'ACCESS_TOKEN_IS_EXPIRED']);
    const renewed = await refresh(fresh.refreshToken);
    assert.equal(renewed.status, 200, renewed.text);
    assert.equal((await api.request('GET', '/v2/me', { key: renewed.body.data.accessToken })).status, 200);

    // 8. The user is deleted: gone from the client, and its tokens with it.
    const deleted = await api.request('DELETE', `/v2/oauth-clients/${clientId}/users/${user.id}`, { headers: asClient });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await api.request('GET', `/v2/oauth-clients/${clientId}/users/${user.id}`, { headers: asClient })).status, 404);
    assert.equal((await api.request('GET', '/v2/me', { key: renewed.body.data.accessToken })).status, 401);
    assert.deepEqual((await api.request('GET', `/v2/oauth-clients/${clientId}/users`, { headers: asClient })).body.data, []);
  });
});
