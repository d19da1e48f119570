import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';
import { createTeamEventType, createTeamWithHosts } from '../support/team-scheduling.js';
import { createEventType, createHost, type Host, slotsOf, startsOf } from '../slots/helpers.js';
import { book, booked } from '../bookings/helpers.js';

// Mondays 2027-03-01, 03-08, 03-15: London stays at +00:00, New York changes to -04:00 on 03-14.
const OCCURRENCES = ['2027-03-01', '2027-03-08', '2027-03-15'];

describe(`recurring and seated team bookings (${backend})`, () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp();
  });
  after(() => api.close());


  const rows = async <T>(query: ReturnType<typeof sql>) => ((await api.runtime.ctx.database.db.execute(query)) as unknown as { rows: T[] }).rows;
  /** Host ids of each booking of the series, by start. */
  const seriesHosts = async (recurringUid: string) =>
    (
      await rows<{ start: string; hosts: number[] }>(sql`
        select to_char(b.start_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI') as start, array_agg(bh.user_id order by bh.user_id) as hosts
        from bookings b join booking_hosts bh on bh.booking_id = b.id
        where b.recurring_booking_uid = ${recurringUid} and bh.status = 'accepted' group by b.start_at order by b.start_at`)
    ).map((row) => `${row.start} ${row.hosts.join(',')}`);
  const personalStarts = async (host: Host, date: string) => {
    const eventType = await createEventType(api, host, { lengthInMinutes: 60 });
    return startsOf(await slotsOf(api, { eventTypeId: eventType.id, start: date, end: date, timeZone: 'UTC' }));
  };

  test('a recurring collective booking needs every host at every occurrence, and takes each of them', async () => {
    const london = await createHost(api, 'Europe/London');
    const newYork = await createHost(api, 'America/New_York');
    const { team, owner } = await createTeamWithHosts(api, [london, newYork]);
    const eventType = await createTeamEventType(api, owner.apiKey, team.id, {
      title: 'Weekly panel',
      slug: 'weekly-panel',
      lengthInMinutes: 60,
      minimumBookingNotice: 0,
      schedulingType: 'collective',
      hosts: [{ userId: london.userId }, { userId: newYork.userId }],
      recurrence: { frequency: 'weekly', interval: 1, occurrences: 3 },
    });
    // New York's personal booking on the second Monday at 15:00Z makes that series impossible.
    const blocker = await createEventType(api, newYork, { lengthInMinutes: 60 });
    await booked(api, { eventTypeId: blocker.id, start: '2027-03-08T15:00:00Z' });
    const refused = await book(api, { eventTypeId: eventType.id, start: '2027-03-01T15:00:00Z', recurrenceCount: 3 });
    assert.equal(refused.status, 400, refused.text);
    assert.equal((await rows<{ n: number }>(sql`select count(*)::int as n from bookings where event_type_id = ${eventType.id}`))[0]!.n, 0, 'nothing half-written');

    // At 16:00Z every occurrence is free for both (New York works 13:00-21:00Z after 03-14, 14:00-22:00Z before).
    const series = await book(api, { eventTypeId: eventType.id, start: '2027-03-01T16:00:00Z', recurrenceCount: 3 });
    assert.equal(series.status, 201, series.text);
    const recurringUid = series.body.data[0].recurringBookingUid;
    const both = [london.userId, newYork.userId].sort((a, b) => a - b).join(',');
    assert.deepEqual(await seriesHosts(recurringUid), OCCURRENCES.map((date) => `${date}T16:00 ${both}`));
    for (const date of OCCURRENCES) {
      assert.ok(!(await personalStarts(newYork, date)).includes(`${date}T16:00:00.000Z`), `New York is busy on ${date}`);
      assert.ok(!(await personalStarts(london, date)).includes(`${date}T16:00:00.000Z`), `London is busy on ${date}`);
    }
  });

  test('a recurring round-robin booking goes to one host free at every occurrence', async () => {
    const first = await createHost(api, 'Europe/London');
    const second = await createHost(api, 'Asia/Dubai');
    const { team, owner } = await createTeamWithHosts(api, [first, second]);
    // Dubai (+04:00) works 09:00-17:00 local = 05:00-13:00Z; London 09:00-17:00Z.
    const eventType = await createTeamEventType(api, owner.apiKey, team.id, {
      title: 'Weekly support',
      slug: 'weekly-support',
      lengthInMinutes: 60,
      minimumBookingNotice: 0,
      schedulingType: 'roundRobin',
      hosts: [{ userId: first.userId }, { userId: second.userId }],
      recurrence: { frequency: 'weekly', interval: 1, occurrences: 3 },
    });
    // The first host, ranked first, is busy on the third Monday: the whole series goes to the second.
    const blocker = await createEventType(api, first, { lengthInMinutes: 60 });
    await booked(api, { eventTypeId: blocker.id, start: '2027-03-15T10:00:00Z' });
    const series = await book(api, { eventTypeId: eventType.id, start: '2027-03-01T10:00:00Z', recurrenceCount: 3 });
    assert.equal(series.status, 201, series.text);
    assert.deepEqual(await seriesHosts(series.body.data[0].recurringBookingUid), OCCURRENCES.map((date) => `${date}T10:00 ${second.userId}`));
    // With both busy on some occurrence, the series is refused.
    const other = await createEventType(api, second, { lengthInMinutes: 60 });
    await booked(api, { eventTypeId: other.id, start: '2027-03-08T09:00:00Z' });
    await booked(api, { eventTypeId: blocker.id, start: '2027-03-08T09:00:00Z' });
    const refused = await book(api, { eventTypeId: eventType.id, start: '2027-03-01T09:00:00Z', recurrenceCount: 3, attendee: { name: 'Late', email: 'late@example.com', timeZone: 'UTC' } });
    assert.equal(refused.status, 400, refused.text);
  });

  test('a seated collective booking: bookers share one booking that holds every host, until the seats run out', async () => {
    const london = await createHost(api, 'Europe/London');
    const newYork = await createHost(api, 'America/New_York');
    const { team, owner } = await createTeamWithHosts(api, [london, newYork]);
    const eventType = await createTeamEventType(api, owner.apiKey, team.id, {
      title: 'Workshop',
      slug: 'workshop',
      lengthInMinutes: 60,
      minimumBookingNotice: 0,
      schedulingType: 'collective',
      hosts: [{ userId: london.userId }, { userId: newYork.userId }],
      seats: { seatsPerTimeSlot: 2, showAttendeeInfo: false, showAvailabilityCount: true },
    });
    const start = '2027-03-01T15:00:00Z';
    const first = await booked(api, { eventTypeId: eventType.id, start, attendee: { name: 'One', email: 'one@example.com', timeZone: 'UTC' } });
    const slots = await slotsOf(api, { eventTypeId: eventType.id, start: '2027-03-01', end: '2027-03-01', timeZone: 'UTC' });
    const listed = Object.values(slots).flat().find((slot: any) => slot.start === '2027-03-01T15:00:00.000Z');
    assert.equal(listed?.seatsRemaining, 1, JSON.stringify(listed));
    const second = await booked(api, { eventTypeId: eventType.id, start, attendee: { name: 'Two', email: 'two@example.com', timeZone: 'UTC' } });
    assert.equal(second.uid, first.uid, 'the second booker takes a seat of the same booking');
    const full = await book(api, { eventTypeId: eventType.id, start, attendee: { name: 'Three', email: 'three@example.com', timeZone: 'UTC' } });
    assert.equal(full.status, 409, full.text);
    const hosts = await rows<{ user_id: number }>(sql`select bh.user_id from booking_hosts bh join bookings b on b.id = bh.booking_id where b.uid = ${first.uid} order by 1`);
    assert.deepEqual(hosts.map((row) => row.user_id), [london.userId, newYork.userId].sort((a, b) => a - b));
    assert.ok(!(await personalStarts(newYork, '2027-03-01')).includes('2027-03-01T15:00:00.000Z'), 'the co-host is busy for their own event types');
  });
});
