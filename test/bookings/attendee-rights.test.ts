import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';
import { createEventType, createHost, type Host } from '../slots/helpers.js';
import { booked, BOOKINGS_VERSION } from './helpers.js';

// Attendee rights (listing a booking, its calendar links, adding guests) follow the address a user is
// known to receive mail at: the one they were created with. PATCH /v2/me may set any address without
// proof, so an address set that way must not reach other people's bookings.
describe('attendee rights follow the verified email, not an unverified change', () => {
  let api: TestApp;
  let host: Host;
  let victimBooking: any;
  let attacker: { user: any; apiKey: string };
  let attendee: { user: any; apiKey: string };
  const victim = 'victim.person@example.com';

  before(async () => {
    const now = Date.parse('2027-03-01T12:00:00Z');
    api = await createTestApp({}, undefined, { clock: () => now });
    host = await createHost(api, 'UTC');
    const eventType = await createEventType(api, host);
    victimBooking = await booked(api, { eventTypeId: eventType.id, start: '2027-03-02T10:00:00Z', attendee: { name: 'Victim', email: victim, timeZone: 'UTC' } });
    attacker = await api.createUser({ email: 'mallory@example.com' });
    attendee = await api.createUser({ email: 'real.attendee@example.com' });
    await booked(api, { eventTypeId: eventType.id, start: '2027-03-02T11:00:00Z', attendee: { name: 'Real', email: 'real.attendee@example.com', timeZone: 'UTC' } });
  });
  after(() => api.close());

  test('a user created with an address sees the bookings they attend with it', async () => {
    const response = await api.request('GET', '/v2/bookings', { key: attendee.apiKey, version: BOOKINGS_VERSION });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data.map((booking: any) => booking.attendees[0].email), ['real.attendee@example.com']);
  });

  test('PATCH /v2/me to another person\'s address grants nothing over their bookings', async () => {
    const patched = await api.request('PATCH', '/v2/me', { key: attacker.apiKey, body: { email: victim } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.email, victim);

    const list = await api.request('GET', '/v2/bookings', { key: attacker.apiKey, version: BOOKINGS_VERSION });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.data, []);
    assert.equal(list.body.pagination.totalItems, 0);

    const links = await api.request('GET', `/v2/bookings/${victimBooking.uid}/calendar-links`, { key: attacker.apiKey, version: BOOKINGS_VERSION });
    assert.equal(links.status, 403, links.text);

    const guests = await api.request('POST', `/v2/bookings/${victimBooking.uid}/guests`, {
      key: attacker.apiKey,
      version: BOOKINGS_VERSION,
      body: { guests: [{ email: 'accomplice@example.com' }] },
    });
    assert.equal(guests.status, 403, guests.text);
  });

  test('a user who changes their email keeps attendee rights under the verified one', async () => {
    const patched = await api.request('PATCH', '/v2/me', { key: attendee.apiKey, body: { email: 'new.address@example.com' } });
    assert.equal(patched.status, 200, patched.text);
    const list = await api.request('GET', '/v2/bookings', { key: attendee.apiKey, version: BOOKINGS_VERSION });
    assert.deepEqual(list.body.data.map((booking: any) => booking.attendees[0].email), ['real.attendee@example.com']);
  });

  test('a verified address stays taken: another user cannot be created with it, nor switch to it', async () => {
    const created = await api.request('POST', '/v2/admin/users', { key: ADMIN_API_KEY, body: { email: 'real.attendee@example.com', name: 'Copy' } });
    assert.equal(created.status, 409, created.text);
    const switched = await api.request('PATCH', '/v2/me', { key: host.apiKey, body: { email: 'REAL.attendee@example.com' } });
    assert.equal(switched.status, 409, switched.text);
  });
});
