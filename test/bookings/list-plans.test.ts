// A user's booking list is found through indexes: the bookings they host (booking_hosts by user), attend
// (booking_attendees by lower(email)) and those of their teams' event types (bookings by event type),
// never by reading every booking; so are a team's and an organization's. With sequential scans switched
// off, the planner still falls back to one when no index can answer a condition: the plans must hold
// none on the booking tables. A page reads as many bookings as it shows and skips, per source.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { bookingListStatements, type BookingListFilter } from '../../src/modules/bookings/bookings.repository.js';
import { insertEventType, insertTeamBooking } from '../support/team-bookings.js';
import { addTeamMember, createMember, createOrganization, createTeam, type Member } from '../support/tenancy.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';

const BOOKING_TABLES = /Seq Scan on (bookings|booking_hosts|booking_attendees)\b/;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  Plans?: PlanNode[];
}

const scansOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(scansOf)];

describe(`booking list plans (${backend})`, () => {
  let api: TestApp;
  let owner: Member;
  let admin: Member;
  let team: { id: number };
  let eventTypeId: number;

  before(async () => {
    api = await createTestApp();
    [owner, admin] = [await createMember(api), await createMember(api)];
    team = await createTeam(api, owner);
    await addTeamMember(api, owner.apiKey, team.id, admin, 'ADMIN');
    eventTypeId = (await insertEventType(api, { teamId: team.id })).id;
    for (let day = 10; day < 20; day++) await insertTeamBooking(api, { organizerId: owner.user.id, eventTypeId, start: `2030-01-${day}T10:00:00Z` });
  });
  after(() => api.close());

  async function plans(filter: Omit<BookingListFilter, 'now' | 'order' | 'take' | 'skip'>): Promise<string[]> {
    const statements = bookingListStatements(api.runtime.ctx.database.db, { now: Date.parse('2030-01-15T00:00:00Z'), order: { column: 'start', direction: 'asc' }, take: 10, skip: 0, ...filter });
    return api.runtime.ctx.database.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const explain = async (statement: typeof statements.page | typeof statements.count | typeof statements.pageWithCount) =>
        ((await tx.execute(sql`explain ${statement}`)) as unknown as { rows: Record<string, string>[] }).rows.map((row) => Object.values(row)[0]).join('\n');
      return [await explain(statements.page), await explain(statements.count), await explain(statements.pageWithCount)];
    });
  }

  test("the caller's bookings: hosted, attended, and their teams' event types", async () => {
    for (const plan of await plans({ scope: { kind: 'user', userId: admin.user.id, email: 'admin@example.com' } })) assert.doesNotMatch(plan, BOOKING_TABLES, plan);
  });

  test('with the teams and event types filters and a status', async () => {
    const filter = { scope: { kind: 'user' as const, userId: admin.user.id, email: null }, teamIds: [team.id], eventTypeIds: [eventTypeId], statuses: ['upcoming' as const] };
    for (const plan of await plans(filter)) assert.doesNotMatch(plan, BOOKING_TABLES, plan);
  });

  test("a team's list", async () => {
    for (const plan of await plans({ scope: { kind: 'team', teamId: team.id } })) assert.doesNotMatch(plan, BOOKING_TABLES, plan);
    const hostedBy = { userIds: [owner.user.id], emails: ['admin@example.com'] };
    for (const plan of await plans({ scope: { kind: 'team', teamId: team.id }, hostedBy })) assert.doesNotMatch(plan, BOOKING_TABLES, plan);
  });

  test('a page reads skip + take bookings of each source, not every booking the list holds', async () => {
    // The owner hosts the 10 bookings and, as the team's OWNER, lists them through its event type too.
    const filter = { scope: { kind: 'user' as const, userId: owner.user.id, email: null }, now: Date.parse('2030-01-15T00:00:00Z'), order: { column: 'start' as const, direction: 'asc' as const }, take: 2, skip: 3 };
    const statements = bookingListStatements(api.runtime.ctx.database.db, filter);
    // Ten bookings are read faster whole than walked: scans of whole tables and bitmaps (which lose the
    // index order) are off, so the plan is the one a host with thousands of bookings gets.
    const explained = await api.runtime.ctx.database.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      await tx.execute(sql`set local enable_bitmapscan = off`);
      return (await tx.execute(sql`explain (analyze, format json) ${statements.page}`)) as unknown as { rows: Record<string, unknown>[] };
    });
    const value = Object.values(explained.rows[0]!)[0];
    const plan = (typeof value === 'string' ? JSON.parse(value) : value) as { Plan: PlanNode }[];
    const reads = scansOf(plan[0]!.Plan).filter((node) => /^(bookings|booking_hosts|booking_attendees)$/.test(node['Relation Name'] ?? ''));
    assert.ok(reads.length > 0, JSON.stringify(plan));
    for (const node of reads) assert.ok(node['Actual Rows'] <= filter.skip + filter.take, `${node['Node Type']} on ${node['Relation Name']} read ${node['Actual Rows']} rows a loop`);
    const page = await statements.page;
    assert.equal(page.length, 2);
  });

  test("an organization's list, also of some of its users", async () => {
    const { organization } = await createOrganization(api);
    for (const plan of await plans({ scope: { kind: 'organization', organizationId: organization.id } })) assert.doesNotMatch(plan, BOOKING_TABLES, plan);
    const participants = { userIds: [owner.user.id], emails: ['owner@example.com'] };
    for (const plan of await plans({ scope: { kind: 'organization', organizationId: organization.id }, participants })) assert.doesNotMatch(plan, BOOKING_TABLES, plan);
  });
});
