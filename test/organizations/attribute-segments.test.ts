// Round robin by attributes (assignRRMembersUsingSegment with a JsonLogic rrSegmentQuery) over HTTP: an
// organization team's round-robin type whose hosts work in four zones offers only the times of the
// hosts the condition keeps, and books only them; changing a member's value changes the slots at once
// (and in another process sharing PostgreSQL); a condition naming an unknown attribute or operator, a
// segment on a collective type or a standalone team, are refused naming the field.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { slotsOf } from '../slots/helpers.js';
import { acceptMembership, createOrganization, createTeam, type Member } from '../support/tenancy.js';
import { backend, createPeerApp, createTestApp, type TestApp } from '../support/test-app.js';

// 2027-01-11 is a Monday; London is on UTC, Berlin +01:00, New York -05:00, Tokyo +09:00.
const DAY = '2027-01-11';
const hour = (h: number, m = 0) => `${DAY}T${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:00.000Z`;

describe(`round robin by attributes (${backend})`, () => {
  let api: TestApp;
  let orgId: number;
  let owner: Member;
  let hosts: Record<'london' | 'berlin' | 'newYork' | 'tokyo', Member>;
  let teamPath: string;
  let region: { id: string; europe: string; americas: string };

  const admin = (method: string, url: string, body?: unknown, on = api) => on.request(method, url, { key: owner.apiKey, ...(body === undefined ? {} : { body }) });

  before(async () => {
    api = await createTestApp();
    const made = await createOrganization(api);
    orgId = made.organization.id;
    owner = made.owner;
    const team = await admin('POST', `/v2/organizations/${orgId}/teams`, { name: 'Sales' });
    assert.equal(team.status, 201, team.text);
    teamPath = `/v2/organizations/${orgId}/teams/${team.body.data.id}`;
    const zones = { london: 'Europe/London', berlin: 'Europe/Berlin', newYork: 'America/New_York', tokyo: 'Asia/Tokyo' } as const;
    hosts = {} as typeof hosts;
    for (const [name, timeZone] of Object.entries(zones) as [keyof typeof zones, string][]) {
      const member = await api.createUser({ timeZone });
      for (const path of [`/v2/organizations/${orgId}/memberships`, `${teamPath}/memberships`]) {
        const joined = await admin('POST', path, { userId: member.user.id, role: 'MEMBER', accepted: true });
        assert.equal(joined.status, 201, joined.text);
        if (!joined.body.data.accepted) await acceptMembership(api, member, `${path}/${joined.body.data.id}`);
      }
      hosts[name] = member;
    }
    const attribute = await admin('POST', `/v2/organizations/${orgId}/attributes`, { name: 'Region', slug: 'Region', type: 'SINGLE_SELECT', options: [{ value: 'Europe', slug: 'eu' }, { value: 'Americas', slug: 'am' }] });
    assert.equal(attribute.status, 201, attribute.text);
    const options = (await admin('GET', `/v2/organizations/${orgId}/attributes/${attribute.body.data.id}/options`)).body.data as { id: string; value: string }[];
    region = { id: attribute.body.data.id, europe: options.find((o) => o.value === 'Europe')!.id, americas: options.find((o) => o.value === 'Americas')!.id };
    for (const [member, option] of [[hosts.london, region.europe], [hosts.berlin, region.europe], [hosts.newYork, region.americas]] as const) {
      const given = await admin('POST', `/v2/organizations/${orgId}/attributes/options/${member.user.id}`, { attributeId: region.id, attributeOptionId: option });
      assert.equal(given.status, 201, given.text);
    }
  });
  after(() => api?.close());

  const roundRobin = (body: Record<string, unknown>) =>
    admin('POST', `${teamPath}/event-types`, {
      title: 'Intro',
      slug: `intro-${Math.random().toString(36).slice(2, 8)}`,
      lengthInMinutes: 60,
      minimumBookingNotice: 0,
      schedulingType: 'ROUND_ROBIN',
      hosts: Object.values(hosts).map((member) => ({ userId: member.user.id })),
      ...body,
    });
  const starts = async (eventTypeId: number, on = api) => Object.values(await slotsOf(on, { eventTypeId, start: DAY, end: DAY, timeZone: 'UTC' })).flat().map((slot: any) => slot.start);

  test('only the hosts the condition keeps: their times, their bookings; a value changed shows at once', async () => {
    const everyone = await roundRobin({});
    assert.equal(everyone.status, 201, everyone.text);
    assert.ok((await starts(everyone.body.data.id)).includes(hour(0)), 'Tokyo works 00:00-08:00 UTC');

    const europe = await roundRobin({ assignRRMembersUsingSegment: true, rrSegmentQuery: { '==': [{ var: 'attributes.region' }, 'Europe'] } });
    assert.equal(europe.status, 201, europe.text);
    assert.deepEqual([europe.body.data.assignRRMembersUsingSegment, europe.body.data.rrSegmentQuery], [true, { '==': [{ var: 'attributes.region' }, 'Europe'] }]);
    assert.deepEqual(await starts(europe.body.data.id), [8, 9, 10, 11, 12, 13, 14, 15, 16].map((h) => hour(h)), 'Berlin 08-16 UTC and London 09-17 UTC only');

    const late = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId: europe.body.data.id, start: hour(16), attendee: { name: 'Ola', email: 'ola@example.com', timeZone: 'UTC' } } });
    assert.equal(late.status, 201, late.text);
    assert.equal(late.body.data.hosts[0].id, hosts.london.user.id, 'at 16:00 UTC only London works');
    const evening = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId: europe.body.data.id, start: hour(20), attendee: { name: 'Eve', email: 'eve@example.com', timeZone: 'UTC' } } });
    assert.equal(evening.status, 400, 'New York is free at 20:00 UTC but not in the segment');

    // New York moves to Europe: their times join at once.
    const moved = await admin('POST', `/v2/organizations/${orgId}/attributes/options/${hosts.newYork.user.id}`, { attributeId: region.id, attributeOptionId: region.europe });
    assert.equal(moved.status, 201, moved.text);
    assert.ok((await starts(europe.body.data.id)).includes(hour(20)));
    // `in` a list of values (the attribute's slug in any case): nobody is in the Americas any more.
    const either = await admin('PATCH', `${teamPath}/event-types/${europe.body.data.id}`, { rrSegmentQuery: { in: [{ var: 'attributes.Region' }, ['Americas']] } });
    assert.equal(either.status, 200, either.text);
    assert.deepEqual(await starts(europe.body.data.id), [], 'nobody is in the Americas now');
    const off = await admin('PATCH', `${teamPath}/event-types/${europe.body.data.id}`, { assignRRMembersUsingSegment: false });
    assert.equal(off.status, 200, off.text);
    assert.ok((await starts(europe.body.data.id)).includes(hour(0)), 'without the segment every host counts again');
  });

  test('a condition naming an unknown attribute or operator, or a segment where none can be, is refused naming the field', async () => {
    const unknown = await roundRobin({ assignRRMembersUsingSegment: true, rrSegmentQuery: { '==': [{ var: 'attributes.language' }, 'German'] } });
    assert.equal(unknown.status, 400, unknown.text);
    assert.match(unknown.body.error.message, /^rrSegmentQuery reads "attributes\.language"/);
    const badOperator = await roundRobin({ assignRRMembersUsingSegment: true, rrSegmentQuery: { method: [{ var: 'attributes.region' }, 'toUpperCase'] } });
    assert.equal(badOperator.status, 400, badOperator.text);
    assert.match(badOperator.body.error.message, /^rrSegmentQuery uses the operator "method"/);
    const outside = await roundRobin({ assignRRMembersUsingSegment: true, rrSegmentQuery: { '==': [{ var: 'user.email' }, 'x'] } });
    assert.equal(outside.status, 400);
    const collective = await roundRobin({ schedulingType: 'COLLECTIVE', assignRRMembersUsingSegment: true });
    assert.equal(collective.status, 400, collective.text);
    assert.match(collective.body.error.message, /^assignRRMembersUsingSegment is for round-robin event types only/);

    const standalone = await createTeam(api, owner);
    const plain = await api.request('POST', `/v2/teams/${standalone.id}/event-types`, {
      key: owner.apiKey,
      body: { title: 'Plain', slug: 'plain', lengthInMinutes: 30, schedulingType: 'ROUND_ROBIN', hosts: [{ userId: owner.user.id }], assignRRMembersUsingSegment: true },
    });
    assert.equal(plain.status, 400, plain.text);
    assert.match(plain.body.error.message, /^assignRRMembersUsingSegment is for the teams of an organization/);
  });

  test('another process sharing PostgreSQL sees a changed value at once', { skip: backend !== 'postgres' && 'needs PostgreSQL (PGlite is single-process)' }, async () => {
    const peer = await createPeerApp(api);
    try {
      const eventType = await roundRobin({ assignRRMembersUsingSegment: true, rrSegmentQuery: { '==': [{ var: 'attributes.region' }, 'Americas'] } });
      assert.equal(eventType.status, 201, eventType.text);
      await admin('POST', `/v2/organizations/${orgId}/attributes/options/${hosts.tokyo.user.id}`, { attributeId: region.id, attributeOptionId: region.europe });
      assert.deepEqual(await starts(eventType.body.data.id, peer), [], 'cached on the peer: nobody in the Americas');
      const given = await admin('POST', `/v2/organizations/${orgId}/attributes/options/${hosts.tokyo.user.id}`, { attributeId: region.id, attributeOptionId: region.americas });
      assert.equal(given.status, 201, given.text);
      let seen: string[] = [];
      for (let attempt = 0; attempt < 50 && !seen.includes(hour(0)); attempt += 1) {
        seen = await starts(eventType.body.data.id, peer);
        if (!seen.includes(hour(0))) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(seen.includes(hour(0)), 'the peer dropped its profile on the change feed');
    } finally {
      await peer.close();
    }
  });
});
