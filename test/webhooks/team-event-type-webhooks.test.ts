// Team event-type webhooks (/v2/teams/{teamId}/event-types/{eventTypeId}/webhooks): managed by the
// team's admins through the same subscriptions as a personal event type's, and delivered every booking
// of the team event type (of a managed one's children too).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { booked } from '../bookings/helpers.js';
import { createEventType, createHost, type Host } from '../slots/helpers.js';
import { createTeamEventType } from '../support/team-scheduling.js';
import { addTeamMember, createTeam } from '../support/tenancy.js';
import { backend, createTestApp, type ApiResponse, type TestApp } from '../support/test-app.js';
import { assertSigned, type Receiver, startReceiver } from './helpers.js';

// 2030-01-07 is a Monday: hosts made by createHost work 09:00-17:00 UTC.
const MONDAY = '2030-01-07';

describe(`team event-type webhooks (${backend})`, () => {
  let api: TestApp;
  let receiver: Receiver;
  before(async () => {
    api = await createTestApp();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await api.close();
  });

  const asMember = (host: Host) => ({ user: { id: host.userId, email: '', username: host.username }, apiKey: host.apiKey });
  const data = (response: ApiResponse, status: number) => {
    assert.equal(response.status, status, response.text);
    return response.body.data;
  };
  let urls = 0;
  const nextUrl = () => `${receiver.url}/team-${++urls}`;

  /** A standalone team: its owner, an admin, a plain member and two hosts (members with schedules). */
  async function team() {
    const owner = await createHost(api, 'UTC');
    const created = await createTeam(api, asMember(owner));
    const [admin, member, alice, bob] = [await createHost(api, 'UTC'), await createHost(api, 'UTC'), await createHost(api, 'UTC'), await createHost(api, 'UTC')];
    await addTeamMember(api, owner.apiKey, created.id, asMember(admin), 'ADMIN');
    for (const each of [member, alice, bob]) await addTeamMember(api, owner.apiKey, created.id, asMember(each));
    return { team: created, owner, admin, member, alice, bob };
  }

  test("the team's admins create, list, read, update and delete them; team event-type triggers are accepted", async () => {
    const { team: t, owner, admin, alice, bob } = await team();
    const eventType = await createTeamEventType(api, owner.apiKey, t.id, { title: 'Panel', slug: 'panel', lengthInMinutes: 60, schedulingType: 'collective', hosts: [{ userId: alice.userId }, { userId: bob.userId }] });
    const base = `/v2/teams/${t.id}/event-types/${eventType.id}/webhooks`;
    const subscriberUrl = nextUrl();

    const made = data(await api.request('POST', base, { key: admin.apiKey, body: { subscriberUrl, active: true, triggers: ['BOOKING_CREATED', 'INSTANT_MEETING_ACCEPTED'], secret: 'team-secret' } }), 201);
    assert.deepEqual(made, { id: made.id, subscriberUrl, active: true, triggers: ['BOOKING_CREATED', 'INSTANT_MEETING_ACCEPTED'], payloadTemplate: null, secret: 'team-secret', version: '2021-10-20', eventTypeId: eventType.id });
    assert.equal((await api.request('POST', base, { key: owner.apiKey, body: { subscriberUrl, active: true, triggers: ['BOOKING_CREATED'] } })).status, 409, 'one subscription per URL and event type');
    const second = data(await api.request('POST', base, { key: owner.apiKey, body: { subscriberUrl: nextUrl(), active: true, triggers: ['BOOKING_CANCELLED'] } }), 201);

    assert.deepEqual(data(await api.request('GET', base, { key: admin.apiKey }), 200), [made, second]);
    assert.deepEqual(data(await api.request('GET', `${base}?take=1&skip=1`, { key: admin.apiKey }), 200), [second]);
    assert.deepEqual(data(await api.request('GET', `${base}/${made.id}`, { key: owner.apiKey }), 200), made);
    const patched = data(await api.request('PATCH', `${base}/${made.id}`, { key: admin.apiKey, body: { active: false, triggers: ['BOOKING_RESCHEDULED'] } }), 200);
    assert.deepEqual(patched, { ...made, active: false, triggers: ['BOOKING_RESCHEDULED'] });
    assert.deepEqual(data(await api.request('DELETE', `${base}/${second.id}`, { key: admin.apiKey }), 200), second);
    assert.equal((await api.request('GET', `${base}/${second.id}`, { key: admin.apiKey })).status, 404);
    assert.equal(data(await api.request('DELETE', base, { key: admin.apiKey }), 200), '1 webhooks deleted');
    assert.deepEqual(data(await api.request('GET', base, { key: admin.apiKey }), 200), []);
  });

  test("members, outsiders and the anonymous are refused; another team's event type is a 404; another event type's webhook is not reachable", async () => {
    const first = await team();
    const second = await team();
    const eventType = await createTeamEventType(api, first.owner.apiKey, first.team.id, { title: 'Panel', slug: 'panel', lengthInMinutes: 60, schedulingType: 'collective', assignAllTeamMembers: true });
    const foreign = await createTeamEventType(api, second.owner.apiKey, second.team.id, { title: 'Other', slug: 'other', lengthInMinutes: 60, schedulingType: 'collective', assignAllTeamMembers: true });
    const base = `/v2/teams/${first.team.id}/event-types/${eventType.id}/webhooks`;
    const hook = data(await api.request('POST', base, { key: first.admin.apiKey, body: { subscriberUrl: nextUrl(), active: true, triggers: ['BOOKING_CREATED'] } }), 201);

    for (const [key, who] of [[first.member.apiKey, 'member'], [first.alice.apiKey, 'host'], [second.owner.apiKey, "another team's owner"]] as const) {
      assert.equal((await api.request('GET', base, { key })).status, 403, who);
      assert.equal((await api.request('GET', `${base}/${hook.id}`, { key })).status, 403, who);
      assert.equal((await api.request('POST', base, { key, body: { subscriberUrl: nextUrl(), active: true, triggers: ['BOOKING_CREATED'] } })).status, 403, who);
      assert.equal((await api.request('DELETE', base, { key })).status, 403, who);
    }
    assert.equal((await api.request('GET', base)).status, 401);

    const crossed = await api.request('GET', `/v2/teams/${first.team.id}/event-types/${foreign.id}/webhooks`, { key: first.admin.apiKey });
    assert.equal(crossed.status, 404, crossed.text);
    assert.equal(crossed.body.error.message, `IsTeamEventTypeWebhookGuard - Event type (${foreign.id}) not found for team (${first.team.id})`);
    assert.equal((await api.request('DELETE', `/v2/teams/${first.team.id}/event-types/${foreign.id}/webhooks`, { key: first.admin.apiKey })).status, 404);

    // A webhook of another event type, and a user's own webhook, through this event type's path.
    const otherTypeHook = data(await api.request('POST', `/v2/teams/${second.team.id}/event-types/${foreign.id}/webhooks`, { key: second.owner.apiKey, body: { subscriberUrl: nextUrl(), active: true, triggers: ['BOOKING_CREATED'] } }), 201);
    assert.equal((await api.request('GET', `${base}/${otherTypeHook.id}`, { key: first.admin.apiKey })).status, 403);
    assert.equal((await api.request('DELETE', `${base}/${otherTypeHook.id}`, { key: first.admin.apiKey })).status, 403);
    const userHook = data(await api.request('POST', '/v2/webhooks', { key: first.admin.apiKey, body: { subscriberUrl: nextUrl(), active: true, triggers: ['BOOKING_CREATED'] } }), 201);
    assert.equal((await api.request('PATCH', `${base}/${userHook.id}`, { key: first.admin.apiKey, body: { active: false } })).status, 400);
    assert.equal(data(await api.request('GET', `/v2/teams/${second.team.id}/event-types/${foreign.id}/webhooks/${otherTypeHook.id}`, { key: second.owner.apiKey }), 200).active, true, 'untouched');

    // A personal event type is not the team's.
    const personal = await createEventType(api, first.alice);
    assert.equal((await api.request('POST', `/v2/teams/${first.team.id}/event-types/${personal.id}/webhooks`, { key: first.owner.apiKey, body: { subscriberUrl: nextUrl(), active: true, triggers: ['BOOKING_CREATED'] } })).status, 404);
  });

  test('a booking of the team event type is delivered, signed, to its webhooks; bookings of a managed one\'s children reach the parent\'s', async () => {
    const { team: t, owner, admin, alice, bob } = await team();
    const collective = await createTeamEventType(api, owner.apiKey, t.id, { title: 'Panel', slug: 'panel', lengthInMinutes: 60, minimumBookingNotice: 0, schedulingType: 'collective', hosts: [{ userId: alice.userId }, { userId: bob.userId }] });
    const url = nextUrl();
    await api.request('POST', `/v2/teams/${t.id}/event-types/${collective.id}/webhooks`, { key: admin.apiKey, body: { subscriberUrl: url, active: true, triggers: ['BOOKING_CREATED'], secret: 'panel-secret' } });
    const booking = await booked(api, { eventTypeId: collective.id, start: `${MONDAY}T10:00:00Z` });
    const [delivery] = await receiver.waitFor(1, 10_000, (request) => request.url === new URL(url).pathname);
    assert.equal(delivery!.json.triggerEvent, 'BOOKING_CREATED');
    assert.equal(delivery!.json.payload.uid, booking.uid);
    assert.equal(delivery!.json.payload.eventTypeId, collective.id);
    assertSigned(delivery!, 'panel-secret');

    const [parent, child] = await createTeamEventType(api, owner.apiKey, t.id, { title: 'Onboarding', slug: 'onboarding', lengthInMinutes: 30, minimumBookingNotice: 0, schedulingType: 'managed', hosts: [{ userId: alice.userId }] });
    const parentUrl = nextUrl();
    await api.request('POST', `/v2/teams/${t.id}/event-types/${parent.id}/webhooks`, { key: admin.apiKey, body: { subscriberUrl: parentUrl, active: true, triggers: ['BOOKING_CREATED'] } });
    const childBooking = await booked(api, { eventTypeId: child.id, start: `${MONDAY}T14:00:00Z` });
    const [childDelivery] = await receiver.waitFor(1, 10_000, (request) => request.url === new URL(parentUrl).pathname);
    assert.equal(childDelivery!.json.payload.uid, childBooking.uid);
    assert.equal(childDelivery!.json.payload.eventTypeId, child.id);
    // The collective type's webhook heard only its own booking.
    assert.equal(receiver.requests.filter((request) => request.url === new URL(url).pathname).length, 1);
  });
});
