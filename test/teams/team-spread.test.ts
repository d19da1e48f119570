import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/db/client.js';
import { book, BOOKINGS_VERSION } from '../bookings/helpers.js';
import { createHost, type Host } from '../slots/helpers.js';
import { holdHostLocks } from '../support/host-locks.js';
import { createTeamEventType, createTeamWithHosts } from '../support/team-scheduling.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';

/**
 * Round-robin bookings decided side by side: a plain round robin (one group, no fixed host, nothing
 * counted) takes no event-type lock, so a booking passes over a host that another booking is holding
 * instead of waiting for it. Another session holds host locks here, as a booking in flight would.
 */
describe('round-robin bookings made together', { skip: backend !== 'postgres' && 'needs PostgreSQL: PGlite is one session' }, () => {
  let api: TestApp;
  let holder: Awaited<ReturnType<typeof openDatabase>>;
  before(async () => {
    api = await createTestApp();
    holder = await openDatabase({ databaseUrl: api.databaseUrl!, poolSize: 2 });
  });
  after(async () => {
    await holder?.close();
    await api?.close();
  });

  const hold = (userIds: number[]) => holdHostLocks(holder, userIds);

  const settledWithin = <T>(promise: Promise<T>, ms: number) =>
    Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
  const attendee = (i: number) => ({ name: `Booker ${i}`, email: `booker${i}@example.com`, timeZone: 'UTC' });

  async function roundRobin(fields: Record<string, unknown> = {}) {
    const hosts: Host[] = [await createHost(api, 'Europe/London'), await createHost(api, 'Europe/London')];
    const { team, owner } = await createTeamWithHosts(api, hosts);
    const eventType = await createTeamEventType(api, owner.apiKey, team.id, {
      title: 'Support', slug: `support-${Math.random().toString(36).slice(2, 8)}`, lengthInMinutes: 60, minimumBookingNotice: 0, schedulingType: 'roundRobin',
      hosts: hosts.map((host) => ({ userId: host.userId })), ...fields,
    });
    return { hosts, eventType };
  }

  test('a host another booking holds is passed over: the next-ranked host takes it at once', async () => {
    const { hosts, eventType } = await roundRobin();
    // Never booked, equal: the first host listed ranks first.
    const release = await hold([hosts[0]!.userId]);
    try {
      const booking = book(api, { eventTypeId: eventType.id, start: '2027-03-01T10:00:00Z', attendee: attendee(1) });
      assert.ok(await settledWithin(booking, 5000), 'the booking waited for the held host');
      const response = await booking;
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.data.hosts[0].id, hosts[1]!.userId);
    } finally {
      await release();
    }
  });

  /** Books `start` while the first host is held (and the second too, with `both`): it must wait, and get the first host once released. */
  async function waitsForFirstHost(fields: Record<string, unknown>, start: string, both: boolean) {
    const { hosts, eventType } = await roundRobin(fields);
    const releases = [await hold([hosts[0]!.userId]), ...(both ? [await hold([hosts[1]!.userId])] : [])];
    try {
      const booking = book(api, { eventTypeId: eventType.id, start, attendee: attendee(start.length) });
      assert.equal(await settledWithin(booking, 500), false, 'answered without waiting for the first host');
      await releases[0]!();
      const response = await booking;
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.data.hosts[0].id, hosts[0]!.userId);
    } finally {
      for (const release of releases) await release();
    }
  }

  test('when every free host is held, it waits for the best-ranked one', async () => {
    await waitsForFirstHost({}, '2027-03-01T11:00:00Z', true);
  });

  test('an event type that counts its bookings still takes them one at a time: its first choice is waited for', async () => {
    await waitsForFirstHost({ bookingLimitsCount: { day: 5 } }, '2027-03-01T12:00:00Z', false);
  });

  test('bookings made together at different hours all succeed, and both hosts take some', async () => {
    const { hosts, eventType } = await roundRobin();
    const responses = await Promise.all(
      ['09', '10', '11', '12'].map((hour, i) => api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId: eventType.id, start: `2027-03-02T${hour}:00:00Z`, attendee: attendee(10 + i) } })),
    );
    assert.deepEqual(responses.map((response) => response.status), [201, 201, 201, 201], responses.map((response) => response.text).join('\n'));
    const perHost = new Map<number, number>();
    for (const response of responses) perHost.set(response.body.data.hosts[0].id, (perHost.get(response.body.data.hosts[0].id) ?? 0) + 1);
    assert.deepEqual([...perHost.keys()].sort((a, b) => a - b), hosts.map((host) => host.userId).sort((a, b) => a - b), 'both hosts took bookings');
  });
});
