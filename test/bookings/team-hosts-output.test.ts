// Team bookings show every host. The reference answers with the organizer in `hosts` and every other
// host of the booking among `attendees`, after the booker and guests
// (apps/api/v2/src/ee/bookings/2024-08-13/controllers/e2e/team-bookings.e2e-spec.ts, "should create a
// team 2 booking": `expect(data.attendees.length).toEqual(2)`, `data.attendees[1]` is
// `{name: teamUser2.name, email, displayEmail, timeZone: teamUser2.timeZone, language: teamUser2.locale,
// absent: false}`; "rrHostSubsetIds to force teamUser and teamUser2": the fixed host in `hosts`, the
// round-robin host found among `attendees`). Its webhooks keep the other hosts out of `attendees` and
// list them as `team.members` (handleNewBooking: `evt.team = { members: teamMembers, name, id }` for
// collective and round-robin event types).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createHost, type Host } from '../slots/helpers.js';
import { createTeamWithEventType } from '../support/team-scheduling.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';
import { startReceiver, type Receiver } from '../webhooks/helpers.js';
import { booked, BOOKINGS_VERSION, getBooking } from './helpers.js';

// 2027-03-01 is a Monday; London and Madrid hosts both work 09:00-16:00Z that day.
const MONDAY = '2027-03-01';

describe(`team bookings show every host (${backend})`, () => {
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

  const emailOf = async (host: Host): Promise<string> => (await api.request('GET', '/v2/me', { key: host.apiKey })).body.data.email;
  const asAttendee = async (host: Host, name: string, timeZone: string, language: string) => {
    const email = await emailOf(host);
    return { name, email, displayEmail: email, timeZone, language, absent: false };
  };
  const booker = { name: 'Bob Booker', email: 'bob@example.com', timeZone: 'Europe/Rome', language: 'it' };
  const bookerOutput = { ...booker, displayEmail: booker.email, absent: false };

  test('collective: the organizer is the host, the other host an attendee after the booker and guests, on create, GET and every list', async () => {
    const ann = await createHost(api, 'Europe/London', { name: 'Ann Organizer', locale: 'en' });
    const carla = await createHost(api, 'Europe/Madrid', { name: 'Carla Cohost', locale: 'es' });
    const { team, owner, eventType } = await createTeamWithEventType(api, [ann, carla], { title: 'Panel', lengthInMinutes: 60, schedulingType: 'collective', hosts: [{ userId: ann.userId }, { userId: carla.userId }] });
    const created = await booked(api, { eventTypeId: eventType.id, start: `${MONDAY}T10:00:00Z`, attendee: booker, guests: ['gus@example.com'] });
    const carlaAttendee = await asAttendee(carla, 'Carla Cohost', 'Europe/Madrid', 'es');
    const guest = { name: 'gus@example.com', email: 'gus@example.com', displayEmail: 'gus@example.com', timeZone: booker.timeZone, language: 'en', absent: false };

    assert.deepEqual(created.hosts.map((host: any) => host.id), [ann.userId]);
    assert.deepEqual(created.attendees, [bookerOutput, guest, carlaAttendee]);
    assert.deepEqual(created.guests, ['gus@example.com'], 'guests stay the booker\'s guests');

    const read = await getBooking(api, created.uid);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body.data.attendees, [bookerOutput, guest, carlaAttendee]);
    assert.deepEqual(read.body.data.hosts.map((host: any) => host.id), [ann.userId]);

    for (const [key, path] of [
      [ann.apiKey, '/v2/bookings'],
      [carla.apiKey, '/v2/bookings'],
      [owner.apiKey, `/v2/teams/${team.id}/bookings`],
    ] as const) {
      const list = await api.request('GET', path, { key, version: BOOKINGS_VERSION });
      assert.equal(list.status, 200, list.text);
      const listed = list.body.data.find((booking: any) => booking.uid === created.uid);
      assert.deepEqual(listed?.attendees, [bookerOutput, guest, carlaAttendee], `${path} as ${key === owner.apiKey ? 'owner' : 'host'}`);
    }
  });

  test('round robin with a fixed host: the fixed host organizes, the round-robin host is an attendee, also after a reassignment', async () => {
    const fixed = await createHost(api, 'Europe/London', { name: 'Fay Fixed', locale: 'en' });
    const first = await createHost(api, 'Europe/London', { name: 'Rob Robin', locale: 'fr' });
    const second = await createHost(api, 'Europe/London', { name: 'Rae Robin', locale: 'de' });
    const { eventType } = await createTeamWithEventType(api, [fixed, first, second], {
      title: 'Support',
      lengthInMinutes: 60,
      schedulingType: 'roundRobin',
      hosts: [{ userId: first.userId }, { userId: second.userId }, { userId: fixed.userId, mandatory: true }],
    });
    const created = await booked(api, { eventTypeId: eventType.id, start: `${MONDAY}T11:00:00Z`, attendee: booker });
    assert.deepEqual(created.hosts.map((host: any) => host.id), [fixed.userId]);
    assert.deepEqual(created.attendees, [bookerOutput, await asAttendee(first, 'Rob Robin', 'Europe/London', 'fr')]);

    const reassigned = await api.request('POST', `/v2/bookings/${created.uid}/reassign/${second.userId}`, { key: fixed.apiKey, version: BOOKINGS_VERSION, body: {} });
    assert.equal(reassigned.status, 200, reassigned.text);
    const read = await getBooking(api, created.uid);
    assert.deepEqual(read.body.data.hosts.map((host: any) => host.id), [fixed.userId]);
    assert.deepEqual(read.body.data.attendees, [bookerOutput, await asAttendee(second, 'Rae Robin', 'Europe/London', 'de')]);
  });

  test('webhooks keep the booker and guests as attendees and list the other hosts as team.members', async () => {
    const ann = await createHost(api, 'Europe/London', { name: 'Ann Organizer', locale: 'en' });
    const carla = await createHost(api, 'Europe/Madrid', { name: 'Carla Cohost', locale: 'es' });
    const { team, owner, eventType } = await createTeamWithEventType(api, [ann, carla], { title: 'Panel', lengthInMinutes: 60, schedulingType: 'collective', hosts: [{ userId: ann.userId }, { userId: carla.userId }] });
    const subscriberUrl = `${receiver.url}/team-hosts-${team.id}`;
    const subscribed = await api.request('POST', `/v2/teams/${team.id}/event-types/${eventType.id}/webhooks`, { key: owner.apiKey, body: { subscriberUrl, active: true, triggers: ['BOOKING_CREATED'] } });
    assert.equal(subscribed.status, 201, subscribed.text);
    const created = await booked(api, { eventTypeId: eventType.id, start: `${MONDAY}T13:00:00Z`, attendee: booker });
    const [delivery] = await receiver.waitFor(1, 10_000, (request) => request.url === new URL(subscriberUrl).pathname);
    const payload = delivery!.json.payload;
    assert.equal(payload.uid, created.uid);
    assert.equal(payload.organizer.id, ann.userId);
    assert.deepEqual(payload.attendees.map((attendee: any) => attendee.email), [booker.email]);
    assert.deepEqual(payload.team, {
      id: team.id,
      name: team.name,
      members: [{ id: carla.userId, name: 'Carla Cohost', email: await emailOf(carla), timeZone: 'Europe/Madrid', language: { locale: 'es' } }],
    });
  });
});
