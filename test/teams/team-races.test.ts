import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { CHILD_ENCRYPTION_KEY, type ChildServer, killAllChildren, startServer } from '../support/child-server.js';
import { ADMIN_API_KEY, backend, createTestApp, request, type TestApp } from '../support/test-app.js';
import { createTeamEventType, createTeamWithHosts } from '../support/team-scheduling.js';
import { createEventType, createHost, type Host } from '../slots/helpers.js';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';

const TEAM_UNAVAILABLE = 'One of the hosts either already has booking at this time or is not available';
const UNAVAILABLE = 'User either already has booking at this time or is not available';

/**
 * Team bookings raced through two svc processes on one PostgreSQL database: this test's own server
 * and a child process of the CLI. Host-time locks are what keep them apart; the exclusion constraint
 * on booking_hosts would turn a slip into a 500, which the tallies would show.
 */
describe('team bookings raced through two processes', { skip: backend !== 'postgres' && 'needs PostgreSQL: PGlite belongs to one process' }, () => {
  let api: TestApp;
  let child: ChildServer;
  before(async () => {
    api = await createTestApp({ SVC_ENCRYPTION_KEY: CHILD_ENCRYPTION_KEY });
    child = await startServer({ DATABASE_URL: api.databaseUrl!, SVC_ENCRYPTION_KEY: CHILD_ENCRYPTION_KEY, SVC_ADMIN_API_KEY: ADMIN_API_KEY, RATE_LIMIT_ENABLED: '0' });
  });
  after(async () => {
    await child?.stop();
    await killAllChildren();
    await api?.close();
  });

  const urls = () => [api.baseUrl, child.baseUrl];
  const post = (i: number, body: unknown) => request(urls()[i % 2]!, 'POST', '/v2/bookings', { version: BOOKINGS_VERSION, body });
  const attendee = (i: number) => ({ name: `Racer ${i}`, email: `racer${i}@example.com`, timeZone: 'UTC' });
  const rows = async <T>(query: ReturnType<typeof sql>) => ((await api.runtime.ctx.database.db.execute(query)) as unknown as { rows: T[] }).rows;
  const outcome = (response: { status: number; body: any }) => (response.status === 201 ? '201' : `${response.status} ${response.body?.error?.message}`);


  test('round robin: 10 requests for one slot with two free hosts give one booking to each; the rest are refused', async () => {
    const hosts = [await createHost(api, 'Europe/London'), await createHost(api, 'Europe/London')];
    const { team, owner } = await createTeamWithHosts(api, hosts);
    const eventType = await createTeamEventType(api, owner.apiKey, team.id, {
      title: 'Race RR', slug: 'race-rr', lengthInMinutes: 60, minimumBookingNotice: 0, schedulingType: 'roundRobin',
      hosts: hosts.map((host) => ({ userId: host.userId })),
    });
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => post(i, { eventTypeId: eventType.id, start: '2027-04-05T10:00:00Z', attendee: attendee(i) })));
    const tally = responses.map(outcome).sort();
    assert.deepEqual(tally, ['201', '201', ...Array(8).fill(`400 ${TEAM_UNAVAILABLE}`)]);
    const organizers = responses.filter((response) => response.status === 201).map((response) => response.body.data.hosts[0].id).sort((a, b) => a - b);
    assert.deepEqual(organizers, hosts.map((host) => host.userId).sort((a, b) => a - b), 'one booking per host');
  });

  test('collective booking racing personal bookings of one of its hosts: exactly one wins each time', async () => {
    const london = await createHost(api, 'Europe/London');
    const newYork = await createHost(api, 'America/New_York');
    const { team, owner } = await createTeamWithHosts(api, [london, newYork]);
    const collective = await createTeamEventType(api, owner.apiKey, team.id, {
      title: 'Race panel', slug: 'race-panel', lengthInMinutes: 60, minimumBookingNotice: 0, schedulingType: 'collective',
      hosts: [{ userId: london.userId }, { userId: newYork.userId }],
    });
    const personal = await createEventType(api, newYork, { lengthInMinutes: 60 });
    // Ten rounds on ten distinct hours (14:00-16:00Z, Monday to Friday of two weeks), each raced by one
    // collective and one personal booker on opposite processes, the order alternating.
    const hours = ['2027-04-05', '2027-04-06', '2027-04-07', '2027-04-08', '2027-04-09'].flatMap((date) => [`${date}T14:00:00Z`, `${date}T15:00:00Z`]);
    for (const [round, start] of hours.entries()) {
      const bodies = [
        { eventTypeId: collective.id, start, attendee: attendee(round) },
        { eventTypeId: personal.id, start, attendee: attendee(100 + round) },
      ];
      const [a, b] = round % 2 ? [bodies[1]!, bodies[0]!] : bodies;
      const responses = await Promise.all([post(round, a), post(round + 1, b)]);
      const won = responses.filter((response) => response.status === 201);
      assert.equal(won.length, 1, `round ${round}: ${responses.map(outcome).join(' | ')}`);
      const lost = responses.find((response) => response.status !== 201)!;
      assert.equal(lost.status, 400, lost.text);
      assert.ok([TEAM_UNAVAILABLE, UNAVAILABLE].includes(lost.body.error.message), lost.text);
    }
    const overlaps = await rows<{ n: number }>(sql`
      select count(*)::int as n from booking_hosts x join booking_hosts y
        on x.user_id = y.user_id and x.booking_id < y.booking_id and tstzrange(x.start_at, x.end_at) && tstzrange(y.start_at, y.end_at)
      where x.status = 'accepted' and y.status = 'accepted' and x.user_id = ${newYork.userId}`);
    assert.equal(overlaps[0]!.n, 0);
    assert.equal((await rows<{ n: number }>(sql`select count(*)::int as n from booking_hosts where user_id = ${newYork.userId} and status = 'accepted'`))[0]!.n, hours.length);
  });
});
