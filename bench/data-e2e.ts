// The cost that follows the data (`npm run bench -- --only=data`): the same routes measured with 2k,
// 20k and 210k bookings in the table on PostgreSQL, and with 20k on the embedded store.
//
// Fixture: everything a client makes (users, teams, organizations, event types, one webhook, and the
// first booking of each kind) is made through the API; the bulk (bookings, their hosts and attendees,
// 999 more event types and webhooks) is copied from those rows with INSERT ... SELECT over
// generate_series, with the server stopped, and read back through the API before anything is measured.
//
// Who holds the bookings at a size N (the two 100-booking shapes stay at 100, the rest scale with N):
// a user with (N - 200) * 100000 / 209800 of them (100,000 at 210k), a round-robin team of 10 hosts
// with as many, a user and a team with 100 each, and 20 other users with the rest. Each host's bookings
// are 30 minutes long and spread over 8 years around today (4 back, 4 ahead): booking j of a host
// takes the half hour (j * GRID_STRIDE) mod GRID_SLOTS of that span, so every size covers the whole
// span evenly and no two bookings of one host overlap; every 20th is cancelled.
import { createHash } from 'node:crypto';
import { dateOfDayNumber, formatDate, localDayNumber, startOfDayNumber, weekdayOfDayNumber, zonedToEpoch } from '../src/scheduling/zones.js';
import { bookingBody, BOOKINGS_API_VERSION, type BookingHost, bookingsPlan, SlotDealer } from './bookings-e2e.js';
import { EVENT_TYPES_API_VERSION, SLOTS_API_VERSION } from './slots-e2e.js';
import { type BenchReceiver, startBenchReceiver, WEBHOOK_SECRET } from './webhooks-e2e.js';

export const DATA_SIZES = [2_000, 20_000, 210_000] as const;
export const DATA_EMBEDDED_SIZE = 20_000;
const LARGEST = 210_000;
/** At the largest size: the heavy user's bookings, and the big team's. */
const HEAVY_AT_LARGEST = 100_000;
const SMALL = 100;
const TEAM_HOSTS = 10;
const SMALL_TEAM_HOSTS = 2;
const FILLER_USERS = 20;
const EVENT_TYPES = 1_000;
const WEBHOOKS = 1_000;
const ZONE = 'America/New_York';
const SCHEDULES_API_VERSION = '2024-06-11';

const HALF_HOUR = 30 * 60_000;
const DAY = 86_400_000;
/** 8 years of half hours; GRID_STRIDE shares no factor with it (2^7 * 3 * 5 * 73), so j -> position is one-to-one. */
const GRID_DAYS = 2920;
const GRID_SLOTS = GRID_DAYS * 48;
const GRID_STRIDE = 7919;

const WARMUP_REQUESTS = 10;
/** Rounds over every read route before any is measured. */
const WARMUP_PASSES = 3;
const SAMPLES = 200;
/** The slots window: 3 days (a Monday to a Wednesday) starting at least this many days ahead. */
const SLOTS_DAYS_AHEAD = 200;

/** Medians the issue sets on PostgreSQL at 210k bookings (ms), and the ratio of a booking with 1,000 webhooks to one with none. */
const GOALS = { user100: 10, heavyPage: 30, webhooksRatio: 1.2 } as const;

export interface DataServer {
  baseUrl: string;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** What the bench gives this file: servers, and SQL on the store while no server has it open. */
export interface DataHarness {
  startServer(env: Record<string, string>, label: string, args?: string[]): Promise<DataServer>;
  /** Runs statements (several, separated by semicolons) on the store; the server must be stopped. */
  exec(sqlText: string): Promise<void>;
  /** The rows of one SELECT; the server must be stopped. */
  rows<T>(sqlText: string): Promise<T[]>;
  /** What would refresh the planner's statistics after a bulk load: PostgreSQL's autovacuum (off on this test server), svc's hourly ANALYZE of the embedded store. */
  analyze: string | null;
  log(message: string): void;
  notes: string[];
}

// ---- the fixture ----

interface Account {
  userId: number;
  apiKey: string;
  scheduleId: number;
}

interface Group {
  /** Names uids and attendees: booking k of group g is md5('data-g-k') as a uuid. */
  name: string;
  /** Host of booking k: hosts[k % hosts.length], its j-th booking at j = floor(k / hosts.length). */
  hosts: number[];
  /** Event type of booking k (one per host for the filler users, else one for all). */
  eventTypes: number[];
  /** The booking made through the API whose shape the copies take. */
  templateId: number;
  /** Bookings of the group in the store, the template included (k runs from 1: k = 0 is the template). */
  count: number;
}

interface Fixture {
  heavy: Account & { eventTypeId: number };
  small: Account;
  teamOwner: Account & { teamId: number };
  smallTeamOwner: Account & { teamId: number };
  typesUser: Account;
  hooked: BookingHost;
  quiet: BookingHost;
  groups: { heavy: Group; small: Group; team: Group; smallTeam: Group; filler: Group };
  /** Grid start (epoch ms, a UTC midnight): 4 years before today. */
  gridStart: number;
}

type PostJson = (url: string, headers: Record<string, string>, body: unknown, what: string) => Promise<any>;

function poster(baseUrl: string): PostJson {
  return async (path, headers, body, what) => {
    const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.text();
    if (response.status !== 201 && response.status !== 200) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text).data;
  };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** A user made by the system admin, with the default Mon-Fri 09:00-17:00 schedule in ZONE. */
async function createAccount(post: PostJson, adminKey: string, handle: string): Promise<Account> {
  const created = await post('/v2/admin/users', bearer(adminKey), { email: `${handle}@example.com`, name: `Data ${handle}`, username: handle, timeZone: ZONE }, `POST /v2/admin/users (${handle})`);
  return { userId: created.user.id, apiKey: created.apiKey, scheduleId: created.user.defaultScheduleId };
}

async function createEventType(post: PostJson, account: Account, slug: string, lengthInMinutes: number): Promise<number> {
  const body = { title: `Data ${lengthInMinutes}`, slug, lengthInMinutes, minimumBookingNotice: 0 };
  return (await post('/v2/event-types', { ...bearer(account.apiKey), 'svc-api-version': EVENT_TYPES_API_VERSION }, body, `POST /v2/event-types (${slug})`)).id;
}

/** A membership the owner adds, accepted by the member where the route leaves it pending. */
async function addMember(post: PostJson, path: string, ownerKey: string, member: Account): Promise<void> {
  const membership = await post(path, bearer(ownerKey), { userId: member.userId, role: 'MEMBER', accepted: true }, `POST ${path}`);
  if (!membership.accepted) await post(`${path}/${membership.id}/accept`, bearer(member.apiKey), {}, `accept ${path}`);
}

async function createTeam(post: PostJson, owner: Account, name: string, hosts: Account[]): Promise<{ teamId: number; eventTypeId: number }> {
  const team = await post('/v2/teams', bearer(owner.apiKey), { name, timeZone: ZONE }, 'POST /v2/teams');
  for (const host of hosts) await addMember(post, `/v2/teams/${team.id}/memberships`, owner.apiKey, host);
  const eventType = await post(
    `/v2/teams/${team.id}/event-types`,
    bearer(owner.apiKey),
    { title: 'Round robin', slug: 'round-robin', lengthInMinutes: 30, minimumBookingNotice: 0, schedulingType: 'roundRobin', hosts: hosts.map((host) => ({ userId: host.userId })) },
    `POST /v2/teams/${team.id}/event-types`,
  );
  return { teamId: team.id, eventTypeId: eventType.id };
}

/** An organization whose member `member` has a 15-minute event type (the POST /v2/bookings fixture). */
async function createOrganization(post: PostJson, adminKey: string, name: string, handle: string): Promise<{ organizationId: number; owner: Account; member: BookingHost }> {
  const owner = await createAccount(post, adminKey, `${handle}-owner`);
  const organization = await post('/v2/admin/organizations', bearer(adminKey), { name, ownerId: owner.userId }, 'POST /v2/admin/organizations');
  const member = await createAccount(post, adminKey, handle);
  await addMember(post, `/v2/organizations/${organization.id}/memberships`, owner.apiKey, member);
  const eventTypeId = await createEventType(post, member, 'data-15', 15);
  return { organizationId: organization.id, owner, member: { userId: member.userId, eventTypeId, apiKey: member.apiKey } };
}

/** The first booking of a kind, through the API, on a weekday after the grid ends (so no copy collides with it). */
async function templateBooking(post: PostJson, eventTypeId: number, start: number, name: string): Promise<number> {
  const body = { eventTypeId, start: new Date(start).toISOString(), attendee: { name: `Booker ${name} 0`, email: `booker-${name}-0@example.com`, timeZone: 'Europe/Rome' } };
  return (await post('/v2/bookings', { 'svc-api-version': BOOKINGS_API_VERSION }, body, `POST /v2/bookings (${name} template)`)).id;
}

async function buildFixture(baseUrl: string, adminKey: string, receiverUrl: string, log: (message: string) => void): Promise<Fixture> {
  const post = poster(baseUrl);
  const now = Date.now();
  const today = Math.floor(now / DAY);
  const gridStart = (today - GRID_DAYS / 2) * DAY;

  const heavy = await createAccount(post, adminKey, 'data-heavy');
  const heavyType = await createEventType(post, heavy, 'data-30', 30);
  const small = await createAccount(post, adminKey, 'data-small');
  const smallType = await createEventType(post, small, 'data-30', 30);
  const fillers: Account[] = [];
  const fillerTypes: number[] = [];
  for (let i = 0; i < FILLER_USERS; i++) {
    fillers.push(await createAccount(post, adminKey, `data-filler-${i}`));
    fillerTypes.push(await createEventType(post, fillers[i]!, 'data-30', 30));
  }
  const teamOwner = await createAccount(post, adminKey, 'data-team-owner');
  const teamHosts: Account[] = [];
  for (let i = 0; i < TEAM_HOSTS; i++) teamHosts.push(await createAccount(post, adminKey, `data-team-host-${i}`));
  const team = await createTeam(post, teamOwner, 'Data Big Team', teamHosts);
  const smallTeamOwner = await createAccount(post, adminKey, 'data-small-team-owner');
  const smallTeamHosts: Account[] = [];
  for (let i = 0; i < SMALL_TEAM_HOSTS; i++) smallTeamHosts.push(await createAccount(post, adminKey, `data-small-team-host-${i}`));
  const smallTeam = await createTeam(post, smallTeamOwner, 'Data Small Team', smallTeamHosts);
  const typesUser = await createAccount(post, adminKey, 'data-types');
  await createEventType(post, typesUser, 'data-types-0', 30);
  const hookedOrg = await createOrganization(post, adminKey, 'Data Hooked Org', 'data-hooked');
  const quietOrg = await createOrganization(post, adminKey, 'Data Quiet Org', 'data-quiet');
  await post(
    `/v2/organizations/${hookedOrg.organizationId}/webhooks`,
    bearer(hookedOrg.owner.apiKey),
    { subscriberUrl: receiverUrl, active: true, triggers: ['BOOKING_CREATED'], secret: WEBHOOK_SECRET },
    'POST /v2/organizations/{orgId}/webhooks',
  );

  // Templates: weekdays at 10:00 in ZONE, 30 to 40 days after the grid's end.
  let day = today + GRID_DAYS / 2 + 30;
  const nextWeekday = () => {
    while (weekdayOfDayNumber(day) === 0 || weekdayOfDayNumber(day) === 6) day++;
    const { year, month, day: date } = dateOfDayNumber(day++);
    return zonedToEpoch(ZONE, year, month, date, 10 * 60);
  };
  const template = (eventTypeId: number, name: string) => templateBooking(post, eventTypeId, nextWeekday(), name);
  const groups = {
    heavy: { name: 'heavy', hosts: [heavy.userId], eventTypes: [heavyType], templateId: await template(heavyType, 'heavy'), count: 1 },
    small: { name: 'small', hosts: [small.userId], eventTypes: [smallType], templateId: await template(smallType, 'small'), count: 1 },
    team: { name: 'team', hosts: teamHosts.map((host) => host.userId), eventTypes: [team.eventTypeId], templateId: await template(team.eventTypeId, 'team'), count: 1 },
    smallTeam: { name: 'small-team', hosts: smallTeamHosts.map((host) => host.userId), eventTypes: [smallTeam.eventTypeId], templateId: await template(smallTeam.eventTypeId, 'small-team'), count: 1 },
    filler: { name: 'filler', hosts: fillers.map((filler) => filler.userId), eventTypes: fillerTypes, templateId: await template(fillerTypes[0]!, 'filler'), count: 1 },
  };
  log(`data: fixture made through the API (${FILLER_USERS + TEAM_HOSTS + SMALL_TEAM_HOSTS + 9} users, 5 template bookings)`);
  return {
    heavy: { ...heavy, eventTypeId: heavyType },
    small,
    teamOwner: { ...teamOwner, teamId: team.teamId },
    smallTeamOwner: { ...smallTeamOwner, teamId: smallTeam.teamId },
    typesUser,
    hooked: hookedOrg.member,
    quiet: quietOrg.member,
    groups,
    gridStart,
  };
}

// ---- bulk SQL ----

const ids = (values: number[]) => {
  if (!values.every(Number.isInteger)) throw new Error(`bad ids ${values.join(',')}`);
  return values.join(',');
};

/** The uid of booking k of a group, as the bulk SQL writes it (md5(...)::uuid::text). */
export function bulkUid(group: string, k: number): string {
  const hex = createHash('md5').update(`data-${group}-${k}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Start of the j-th booking of a host. */
const gridStartOf = (fixture: Fixture, j: number) => fixture.gridStart + ((j * GRID_STRIDE) % GRID_SLOTS) * HALF_HOUR;

/** Rows k in [from, to) of a group: their id, host, event type and start. */
function loadRowsSql(fixture: Fixture, group: Group, from: number, to: number): string {
  const hosts = group.hosts.length;
  const eventType = group.eventTypes.length === 1 ? `${group.eventTypes[0]}` : `(array[${ids(group.eventTypes)}])[k % ${hosts} + 1]`;
  return `select '${group.name}'::text as grp, k,
    (array[${ids(group.hosts)}])[k % ${hosts} + 1] as user_id, ${eventType} as event_type_id, ${group.templateId} as template_id,
    to_timestamp(${fixture.gridStart / 1000}) + ((k / ${hosts})::bigint * ${GRID_STRIDE} % ${GRID_SLOTS}) * interval '30 minutes' as start_at
    from generate_series(${from}, ${to - 1}) as k`;
}

/**
 * One transaction: the bookings as POST /v2/bookings writes them (title, location, metadata and
 * responses of the API-made template, with this booking's attendee), their booking_hosts rows (the
 * insert trigger's rows) and their attendees. Ids and table order follow creation time (ties in a
 * fixed shuffled order), as bookings made over time through the API would lie, not grouped by host.
 * The rows' triggers (the hosts trigger and the foreign-key checks) are off for this transaction
 * (session_replication_role, as a restore does): the rows reference users, event types and bookings
 * read in the same statements, and the checks more than double the time of a load. Unique, check and
 * exclusion constraints (no two accepted bookings of a host overlap) are still checked.
 */
function loadSql(parts: string[]): string {
  return `begin;
set local session_replication_role = replica;
create temp table data_rows on commit drop as
  select *, least(start_at - interval '14 days', now()) as created_at from (${parts.join('\nunion all\n')}) as generated;
create temp table data_load on commit drop as
  select ordered.*, nextval(pg_get_serial_sequence('bookings', 'id'))::int as id
  from (select * from data_rows order by created_at, md5(grp || '-' || k)) as ordered;
insert into bookings (id, uid, event_type_id, user_id, title, description, start_at, end_at, status, location, metadata, responses,
  cancellation_reason, cancelled_by_email, created_at, updated_at)
select l.id, md5('data-' || l.grp || '-' || l.k)::uuid::text, l.event_type_id, l.user_id,
  et.title || ' between ' || coalesce(u.name, u.username, u.email) || ' and Booker ' || l.grp || ' ' || l.k,
  t.description, l.start_at, l.start_at + (t.end_at - t.start_at),
  case when l.k % 20 = 19 then 'cancelled' else 'accepted' end, t.location, t.metadata,
  t.responses || jsonb_build_object('name', 'Booker ' || l.grp || ' ' || l.k, 'email', 'booker-' || l.grp || '-' || l.k || '@example.com'),
  case when l.k % 20 = 19 then 'Bench: cancelled' end, case when l.k % 20 = 19 then 'booker-' || l.grp || '-' || l.k || '@example.com' end,
  l.created_at, l.created_at
from data_load l join bookings t on t.id = l.template_id join event_types et on et.id = l.event_type_id join users u on u.id = l.user_id
order by l.id;
insert into booking_hosts (booking_id, user_id, start_at, end_at, status)
select b.id, b.user_id, b.start_at, b.end_at, b.status from data_load l join bookings b on b.id = l.id order by l.id;
insert into booking_attendees (booking_id, name, email, time_zone, locale)
select l.id, 'Booker ' || l.grp || ' ' || l.k, 'booker-' || l.grp || '-' || l.k || '@example.com', a.time_zone, a.locale
from data_load l join booking_attendees a on a.booking_id = l.template_id order by l.id;
commit;`;
}

/** Copies of one API-made row of `table` (every column but those named), with `changed` columns computed from i in 1..count. */
function copiesSql(table: string, templateWhere: string, count: number, changed: Record<string, string>): string {
  const skip = ['id', 'created_at', 'updated_at', ...Object.keys(changed)].map((name) => `'${name}'`).join(', ');
  const names = ['%s', ...Object.keys(changed)].join(', ');
  const values = ['%s', ...Object.values(changed)].join(', ').replaceAll("'", "''");
  return `do $$
declare kept text;
begin
  select string_agg(quote_ident(column_name), ', ' order by ordinal_position) into kept
    from information_schema.columns where table_schema = 'public' and table_name = '${table}' and column_name not in (${skip});
  execute format('insert into ${table} (${names}) select ${values} from ${table} t, generate_series(1, ${count}) as i where ${templateWhere.replaceAll("'", "''")}', kept, kept);
end $$;`;
}

/** The 999 event types and 999 webhooks besides the API-made ones (once per store). */
function extrasSql(fixture: Fixture): string {
  return [
    copiesSql('event_types', `t.user_id = ${fixture.typesUser.userId} and t.slug = 'data-types-0'`, EVENT_TYPES - 1, { slug: `'data-types-' || i`, title: `'Data types ' || i` }),
    copiesSql('webhooks', `t.id = (select min(id) from webhooks)`, WEBHOOKS - 1, {}),
  ].join('\n');
}

/** The `n` of a one-row count. */
async function countOf(harness: DataHarness, sqlText: string): Promise<number> {
  const [row] = await harness.rows<{ n: number }>(sqlText);
  return Number(row?.n);
}

/** How many bookings each group holds at size N (the fillers take what the others leave). */
function targets(size: number): { heavy: number; team: number; small: number; smallTeam: number } {
  const scaled = Math.round(((size - 2 * SMALL) * HEAVY_AT_LARGEST) / (LARGEST - 2 * SMALL));
  return { heavy: scaled, team: scaled, small: SMALL, smallTeam: SMALL };
}

/** Grows the store to `size` bookings; returns the seconds the SQL took. */
async function loadTo(harness: DataHarness, fixture: Fixture, size: number): Promise<{ loadSeconds: number; inserted: number }> {
  const present = await countOf(harness, 'select count(*)::int as n from bookings');
  const want = targets(size);
  const parts: string[] = [];
  let inserted = 0;
  const grow = (group: Group, to: number) => {
    if (to <= group.count) return;
    parts.push(loadRowsSql(fixture, group, group.count, to));
    inserted += to - group.count;
  };
  const { groups } = fixture;
  grow(groups.heavy, want.heavy);
  grow(groups.team, want.team);
  grow(groups.small, want.small);
  grow(groups.smallTeam, want.smallTeam);
  const fillerTo = groups.filler.count + (size - present - inserted);
  if (fillerTo < groups.filler.count) throw new Error(`data: the store already holds more than ${size} bookings`);
  grow(groups.filler, fillerTo);
  const started = performance.now();
  if (parts.length > 0) await harness.exec(loadSql(parts));
  const loadSeconds = (performance.now() - started) / 1000;
  groups.heavy.count = Math.max(groups.heavy.count, want.heavy);
  groups.team.count = Math.max(groups.team.count, want.team);
  groups.small.count = Math.max(groups.small.count, want.small);
  groups.smallTeam.count = Math.max(groups.smallTeam.count, want.smallTeam);
  groups.filler.count = fillerTo;
  return { loadSeconds, inserted };
}

// ---- measuring ----

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const nearestRank = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;

interface Timing {
  medianMs: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
  samples: number;
}

function summarize(times: number[]): Timing {
  const sorted = [...times].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { medianMs: round(median, 2), p95Ms: round(nearestRank(sorted, 95), 2), minMs: round(sorted[0]!, 2), maxMs: round(sorted.at(-1)!, 2), samples: sorted.length };
}

interface Request {
  method?: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  body?: () => string;
  status?: number;
}

/** One request, timed from send to the last byte of the answer; throws on an unexpected status. */
async function timed(baseUrl: string, request: Request): Promise<{ ms: number; text: string }> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method ?? 'GET',
    headers: request.body ? { ...request.headers, 'content-type': 'application/json' } : request.headers,
    ...(request.body ? { body: request.body() } : {}),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== (request.status ?? 200)) throw new Error(`${request.method ?? 'GET'} ${request.path} answered ${response.status}: ${text.slice(0, 300)}`);
  return { ms, text };
}

/** WARMUP_REQUESTS unmeasured, then SAMPLES sequential requests; `before` runs (unmeasured) before each. */
async function measure(baseUrl: string, request: Request, before?: () => Promise<void>): Promise<Timing> {
  for (let i = 0; i < WARMUP_REQUESTS; i++) {
    await before?.();
    await timed(baseUrl, request);
  }
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    await before?.();
    times.push((await timed(baseUrl, request)).ms);
  }
  return summarize(times);
}

interface RouteFigure extends Timing {
  route: string;
  goalMedianMs?: number;
  met?: boolean;
}

const withGoal = (route: string, timing: Timing, goalMedianMs?: number): RouteFigure =>
  goalMedianMs === undefined ? { route, ...timing } : { route, ...timing, goalMedianMs, met: timing.medianMs <= goalMedianMs };

async function getJson(baseUrl: string, path: string, headers: Record<string, string>): Promise<any> {
  return JSON.parse((await timed(baseUrl, { path, headers })).text);
}

/** The 3-day slots window (Monday to Wednesday in ZONE) at least SLOTS_DAYS_AHEAD days ahead. */
function slotsWindow(now: number): { start: string; end: string; from: number; to: number } {
  let day = localDayNumber(ZONE, now) + SLOTS_DAYS_AHEAD;
  while (weekdayOfDayNumber(day) !== 1) day++;
  return { start: formatDate(dateOfDayNumber(day)), end: formatDate(dateOfDayNumber(day + 2)), from: startOfDayNumber(ZONE, day), to: startOfDayNumber(ZONE, day + 3) };
}

/** The heavy user's accepted bookings in [from, to), from the grid (the inverse of j -> position). */
function heavyBusy(fixture: Fixture, from: number, to: number): { start: number; end: number }[] {
  const inverse = modularInverse(GRID_STRIDE, GRID_SLOTS);
  const busy: { start: number; end: number }[] = [];
  for (let position = Math.floor((from - fixture.gridStart) / HALF_HOUR) - 1; position * HALF_HOUR + fixture.gridStart < to; position++) {
    if (position < 0 || position >= GRID_SLOTS) continue;
    const j = Number((BigInt(position) * BigInt(inverse)) % BigInt(GRID_SLOTS));
    if (j < 1 || j >= fixture.groups.heavy.count || j % 20 === 19) continue;
    const start = fixture.gridStart + position * HALF_HOUR;
    if (start + HALF_HOUR > from && start < to) busy.push({ start, end: start + HALF_HOUR });
  }
  return busy;
}

function modularInverse(value: number, modulus: number): number {
  let [a, b, x, y] = [BigInt(value), BigInt(modulus), 1n, 0n];
  while (b !== 0n) {
    const q = a / b;
    [a, b] = [b, a - q * b];
    [x, y] = [y, x - q * y];
  }
  return Number(((x % BigInt(modulus)) + BigInt(modulus)) % BigInt(modulus));
}

/** Reads samples back through the API: list totals, a bulk booking by uid, the slots around known bookings. */
async function verify(baseUrl: string, fixture: Fixture, size: number) {
  const v = { 'svc-api-version': BOOKINGS_API_VERSION };
  const total = async (path: string, key: string) => (await getJson(baseUrl, path, { ...v, ...bearer(key) })).pagination.totalItems as number;
  const { groups } = fixture;
  const totals = {
    user100: await total('/v2/bookings?take=1', fixture.small.apiKey),
    heavyUser: await total('/v2/bookings?take=1', fixture.heavy.apiKey),
    team100: await total(`/v2/teams/${fixture.smallTeamOwner.teamId}/bookings?take=1`, fixture.smallTeamOwner.apiKey),
    heavyTeam: await total(`/v2/teams/${fixture.teamOwner.teamId}/bookings?take=1`, fixture.teamOwner.apiKey),
  };
  const expected = { user100: groups.small.count, heavyUser: groups.heavy.count, team100: groups.smallTeam.count, heavyTeam: groups.team.count };
  const sample = async (group: Group, k: number) => {
    const uid = bulkUid(group.name, k);
    const booking = (await getJson(baseUrl, `/v2/bookings/${uid}`, v)).data;
    const hostId = group.hosts[k % group.hosts.length]!;
    const start = gridStartOf(fixture, Math.floor(k / group.hosts.length));
    const ok =
      booking.uid === uid &&
      booking.attendees?.[0]?.email === `booker-${group.name}-${k}@example.com` &&
      booking.hosts?.[0]?.id === hostId &&
      Date.parse(booking.start) === start &&
      booking.status === (k % 20 === 19 ? 'cancelled' : 'accepted');
    return { uid, ok };
  };
  const samples = [await sample(groups.heavy, Math.floor(groups.heavy.count / 2)), await sample(groups.team, groups.team.count - 1), await sample(groups.small, 42)];
  const window = slotsWindow(Date.now());
  const slots = await slotsOf(baseUrl, fixture, window);
  const busy = heavyBusy(fixture, window.from, window.to);
  const slotOverBooking = slots.find((start) => busy.some((block) => start < block.end && start + HALF_HOUR > block.start));
  const ok =
    Object.entries(expected).every(([name, count]) => totals[name as keyof typeof totals] === count) &&
    samples.every((s) => s.ok) &&
    slots.length > 0 &&
    busy.length > 0 &&
    slotOverBooking === undefined;
  return { ok, size, totals, expected, samples, slots: { listed: slots.length, heavyBookingsInWindow: busy.length, slotOverBooking: slotOverBooking === undefined ? null : new Date(slotOverBooking).toISOString() } };
}

function slotsPath(fixture: Fixture, window: { start: string; end: string }): string {
  return `/v2/slots?${new URLSearchParams({ eventTypeId: String(fixture.heavy.eventTypeId), start: window.start, end: window.end, timeZone: ZONE })}`;
}

async function slotsOf(baseUrl: string, fixture: Fixture, window: { start: string; end: string }): Promise<number[]> {
  const data = (await getJson(baseUrl, slotsPath(fixture, window), { 'svc-api-version': SLOTS_API_VERSION })).data as Record<string, { start: string }[]>;
  return Object.values(data)
    .flat()
    .map((slot) => Date.parse(slot.start));
}

/**
 * POST /v2/bookings on the two 15-minute event types, taking turns request by request so that both
 * see the same machine: `hooked`'s organization has WEBHOOKS subscriptions to BOOKING_CREATED,
 * `quiet`'s none. Each request books the host's next free slot (bench/bookings-e2e.ts's plan).
 */
async function measureBookings(baseUrl: string, fixture: Fixture, dealer: SlotDealer) {
  const hosts = [fixture.hooked, fixture.quiet];
  let serial = dealer.handedOut;
  const book = (host: number) => timed(baseUrl, { method: 'POST', path: '/v2/bookings', headers: { 'svc-api-version': BOOKINGS_API_VERSION }, body: () => bookingBody(hosts[host]!, dealer.next(host), 'measured', serial++), status: 201 });
  for (let i = 0; i < WARMUP_REQUESTS; i++) for (const host of [0, 1]) await book(host);
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < SAMPLES; i++) {
    // Alternate which goes first, so neither always follows the other.
    for (const host of i % 2 ? [1, 0] : [0, 1]) times[host]!.push((await book(host)).ms);
  }
  const hooked = summarize(times[0]);
  const quiet = summarize(times[1]);
  const ratio = round(hooked.medianMs / quiet.medianMs, 3);
  return {
    withWebhooks: { route: `POST /v2/bookings (organization with ${WEBHOOKS} webhooks)`, ...hooked },
    withoutWebhooks: { route: 'POST /v2/bookings (organization without webhooks)', ...quiet },
    medianRatio: ratio,
    goalRatio: GOALS.webhooksRatio,
    met: ratio <= GOALS.webhooksRatio,
  };
}

/** Every route at one size, on a server of the loaded store. */
async function measureSize(baseUrl: string, fixture: Fixture, dealer: SlotDealer, log: (message: string) => void) {
  const v = { 'svc-api-version': BOOKINGS_API_VERSION };
  const user = (key: string) => ({ ...v, ...bearer(key) });
  const heavyTeam = `/v2/teams/${fixture.teamOwner.teamId}/bookings`;
  const smallTeam = `/v2/teams/${fixture.smallTeamOwner.teamId}/bookings`;
  const types = { ...bearer(fixture.typesUser.apiKey), 'svc-api-version': EVENT_TYPES_API_VERSION };
  const slots = { path: slotsPath(fixture, slotsWindow(Date.now())), headers: { 'svc-api-version': SLOTS_API_VERSION } };
  // A schedule change drops the host's cached availability (the change feed), so the next listing reads the store.
  let flip = 0;
  const changeSchedule = async () => {
    await timed(baseUrl, { method: 'PATCH', path: `/v2/schedules/${fixture.heavy.scheduleId}`, headers: { ...bearer(fixture.heavy.apiKey), 'svc-api-version': SCHEDULES_API_VERSION }, body: () => JSON.stringify({ name: `Data ${flip++ % 2}` }) });
  };
  const reads: { route: string; request: Request; goal?: number; before?: () => Promise<void> }[] = [
    { route: 'GET /v2/bookings (user with 100 bookings; default take=100)', request: { path: '/v2/bookings', headers: user(fixture.small.apiKey) }, goal: GOALS.user100 },
    { route: 'GET /v2/bookings?take=10 (user with 100 bookings)', request: { path: '/v2/bookings?take=10', headers: user(fixture.small.apiKey) }, goal: GOALS.user100 },
    { route: 'GET /v2/bookings?take=10 (heavy user)', request: { path: '/v2/bookings?take=10', headers: user(fixture.heavy.apiKey) }, goal: GOALS.heavyPage },
    { route: 'GET /v2/bookings (heavy user; default take=100)', request: { path: '/v2/bookings', headers: user(fixture.heavy.apiKey) }, goal: GOALS.heavyPage },
    { route: 'GET /v2/bookings?take=10&skip=1000 (heavy user)', request: { path: '/v2/bookings?take=10&skip=1000', headers: user(fixture.heavy.apiKey) }, goal: GOALS.heavyPage },
    { route: 'GET /v2/teams/{teamId}/bookings (team with 100 bookings; default take=100)', request: { path: smallTeam, headers: user(fixture.smallTeamOwner.apiKey) }, goal: GOALS.user100 },
    { route: 'GET /v2/teams/{teamId}/bookings?take=10 (team with 100 bookings)', request: { path: `${smallTeam}?take=10`, headers: user(fixture.smallTeamOwner.apiKey) }, goal: GOALS.user100 },
    { route: 'GET /v2/teams/{teamId}/bookings?take=10 (heavy team)', request: { path: `${heavyTeam}?take=10`, headers: user(fixture.teamOwner.apiKey) }, goal: GOALS.heavyPage },
    { route: 'GET /v2/teams/{teamId}/bookings (heavy team; default take=100)', request: { path: heavyTeam, headers: user(fixture.teamOwner.apiKey) }, goal: GOALS.heavyPage },
    { route: 'GET /v2/teams/{teamId}/bookings?take=10&skip=1000 (heavy team)', request: { path: `${heavyTeam}?take=10&skip=1000`, headers: user(fixture.teamOwner.apiKey) }, goal: GOALS.heavyPage },
    { route: `GET /v2/event-types (${EVENT_TYPES} event types; default and most: 250)`, request: { path: '/v2/event-types', headers: types } },
    { route: `GET /v2/slots (3 days, ${SLOTS_DAYS_AHEAD} days ahead, heavy user; after a schedule change: read from the store)`, request: slots, before: changeSchedule },
    { route: `GET /v2/slots (3 days, ${SLOTS_DAYS_AHEAD} days ahead, heavy user; repeated: the kept listing)`, request: slots },
  ];
  // A fresh server compiles as it goes: every route runs a few times before any is measured, so the first measured is not the one that pays for it.
  for (let pass = 0; pass < WARMUP_PASSES; pass++) for (const { request, before } of reads) {
    await before?.();
    await timed(baseUrl, request);
  }
  const routes: RouteFigure[] = [];
  for (const { route, request, goal, before } of reads) {
    const timing = await measure(baseUrl, request, before);
    routes.push(withGoal(route, timing, goal));
    log(`data:   ${route}: median ${timing.medianMs} ms, p95 ${timing.p95Ms} ms`);
  }
  const bookings = await measureBookings(baseUrl, fixture, dealer);
  log(`data:   POST /v2/bookings: ${bookings.withWebhooks.medianMs} ms with ${WEBHOOKS} webhooks, ${bookings.withoutWebhooks.medianMs} ms without (ratio ${bookings.medianRatio})`);
  return { routes, bookings };
}

/**
 * With the worker on: one booking on the event type with WEBHOOKS subscriptions, and how long until
 * every delivery arrived. The fan-out jobs the measured bookings queued (the measuring servers ran
 * without a worker) are deleted first: they would be WEBHOOKS deliveries each.
 */
async function fanOutCheck(harness: DataHarness, env: Record<string, string>, fixture: Fixture, receiver: BenchReceiver, dealer: SlotDealer, label: string) {
  const queued = await countOf(harness, `select count(*)::int as n from jobs where kind = 'webhook.fanout' and status = 'pending'`);
  await harness.exec(`delete from jobs where kind = 'webhook.fanout' and status = 'pending'`);
  const server = await harness.startServer(env, `${label}-worker`);
  try {
    // The first booking of a fresh process pays for compiling the path: made on the event type without webhooks.
    await timed(server.baseUrl, { method: 'POST', path: '/v2/bookings', headers: { 'svc-api-version': BOOKINGS_API_VERSION }, body: () => bookingBody(fixture.quiet, dealer.next(1), 'measured', dealer.handedOut), status: 201 });
    receiver.reset();
    const body = bookingBody(fixture.hooked, dealer.next(0), 'measured', dealer.handedOut);
    const { ms } = await timed(server.baseUrl, { method: 'POST', path: '/v2/bookings', headers: { 'svc-api-version': BOOKINGS_API_VERSION }, body: () => body, status: 201 });
    const bookedAt = performance.now();
    const arrived = await receiver.waitFor(WEBHOOKS, 120_000);
    const last = receiver.arrivals.at(-1)?.at;
    return {
      queuedFanOutJobsDeleted: queued,
      bookingMs: round(ms, 2),
      deliveries: receiver.arrivals.length,
      distinctWebhookIds: new Set(receiver.arrivals.map((arrival) => arrival.id)).size,
      receiverErrors: receiver.errors,
      allArrived: arrived,
      lastDeliveryAfter201Ms: last === undefined ? null : Math.round(last - bookedAt),
    };
  } finally {
    await server.stop();
  }
}

/**
 * The whole benchmark on one store: the fixture through the API, then for each size the bulk load
 * (server stopped), a server without a worker, the checks and the measurements; then the fan-out check.
 */
export async function dataBench(harness: DataHarness, env: Record<string, string>, adminKey: string, sizes: readonly number[], label: string) {
  const { log } = harness;
  const receiver = await startBenchReceiver();
  const serverEnv = { ...env, SVC_ALLOW_PRIVATE_WEBHOOKS: '1' };
  try {
    let server = await harness.startServer(serverEnv, label);
    let fixture: Fixture;
    try {
      fixture = await buildFixture(server.baseUrl, adminKey, receiver.url, log);
    } finally {
      await server.stop();
    }
    const extrasStarted = performance.now();
    await harness.exec(extrasSql(fixture));
    log(`data: ${EVENT_TYPES - 1} event types and ${WEBHOOKS - 1} webhooks copied in ${Math.round(performance.now() - extrasStarted)} ms`);
    const dealer = new SlotDealer(bookingsPlan(Date.now()), 'measured', 2);
    const results = [];
    for (const size of sizes) {
      const { loadSeconds, inserted } = await loadTo(harness, fixture, size);
      let analyzeSeconds: number | null = null;
      if (harness.analyze) {
        const started = performance.now();
        await harness.exec(harness.analyze);
        analyzeSeconds = round((performance.now() - started) / 1000, 2);
      }
      const bookingsInTable = await countOf(harness, 'select count(*)::int as n from bookings');
      log(`data: ${label} at ${bookingsInTable} bookings: ${inserted} inserted in ${round(loadSeconds, 1)} s${analyzeSeconds === null ? '' : `, ${harness.analyze} ${analyzeSeconds} s`}`);
      server = await harness.startServer(serverEnv, `${label}-${size}`, ['--no-worker']);
      try {
        const verification = await verify(server.baseUrl, fixture, size);
        if (!verification.ok) harness.notes.push(`${label} ${size}: the read-back check FAILED: ${JSON.stringify(verification)}`);
        log(`data: read-back check ${verification.ok ? 'ok' : 'FAILED'}`);
        const measured = await measureSize(server.baseUrl, fixture, dealer, log);
        results.push({
          bookingsInTable,
          heavyUserBookings: fixture.groups.heavy.count,
          heavyTeamBookings: fixture.groups.team.count,
          loadSeconds: round(loadSeconds, 1),
          analyzeSeconds,
          verification,
          ...measured,
        });
      } finally {
        await server.stop();
      }
    }
    const fanOut = await fanOutCheck(harness, serverEnv, fixture, receiver, dealer, label);
    log(`data: fan-out check: ${fanOut.deliveries} of ${WEBHOOKS} deliveries, the last ${fanOut.lastDeliveryAfter201Ms} ms after the 201`);
    return { sizes: results, fanOut };
  } finally {
    await receiver.close();
  }
}

/** The goals of the issue, read from the PostgreSQL run at the largest size. */
export function dataGoals(postgresSizes: { bookingsInTable: number; routes: RouteFigure[]; bookings: { medianRatio: number; met: boolean } }[]) {
  const largest = postgresSizes.at(-1);
  if (!largest) return null;
  const goals = largest.routes.filter((route) => route.goalMedianMs !== undefined).map(({ route, medianMs, goalMedianMs, met }) => ({ route, medianMs, goalMedianMs, met }));
  return {
    bookingsInTable: largest.bookingsInTable,
    routes: goals,
    bookingWithWebhooks: { medianRatio: largest.bookings.medianRatio, goalRatio: GOALS.webhooksRatio, met: largest.bookings.met },
    allMet: goals.every((goal) => goal.met) && largest.bookings.met,
  };
}

export const DATA_NOTE =
  `data (--only=data): sizes ${DATA_SIZES.join(', ')} bookings on PostgreSQL (one database grown size by size) and ${DATA_EMBEDDED_SIZE} on the embedded store. ` +
  `The fixture (users with the default Mon-Fri 09:00-17:00 ${ZONE} schedule, a round-robin team of ${TEAM_HOSTS} hosts, one of ${SMALL_TEAM_HOSTS}, two organizations, one event type of the event-types user, one webhook, and the first booking of each kind) is made through the API; ` +
  `the bulk is copied from those rows with INSERT ... SELECT over generate_series with the server stopped, in creation-time order: bookings with the API-made booking's title pattern, location, metadata and responses, their booking_hosts rows (the insert trigger's rows, written in one statement) and one attendee each, with the rows' triggers (hosts trigger, foreign-key checks) off for the load's transaction (session_replication_role = replica) and unique, check and exclusion constraints checked; ` +
  `booking_events, mail and job rows, which no measured route reads, are not copied. ` +
  `At N bookings: a heavy user with (N-200)*100000/209800 (100,000 at 210k), a round-robin team with as many, a user and a team with ${SMALL} each, ${FILLER_USERS} other users with the rest; 30-minute bookings spread over 8 years around today, every 20th cancelled. ` +
  `The event-types user has ${EVENT_TYPES} event types and the hooked organization ${WEBHOOKS} webhooks (BOOKING_CREATED, signed), ${WEBHOOKS - 1} of each copied with SQL. ` +
  `PostgreSQL: VACUUM ANALYZE after each load, what autovacuum would do (the test server runs with autovacuum off); the embedded store is ANALYZEd after its load, what svc's hourly housekeeping does there (PGlite has no autovacuum). ` +
  `Before measuring, samples are read back through the API: list totals of the four lists, three bulk bookings by uid (attendee, host, start, status), and GET /v2/slots of the heavy user listing no start over one of its bookings. ` +
  `Every route first runs ${WARMUP_PASSES} times (a fresh server compiles as it goes); then each route: ${WARMUP_REQUESTS} requests unmeasured, then ${SAMPLES} sequential ones (fetch over one keep-alive connection from this process), each timed from send to the answer's last byte; median and p95 (nearest rank). ` +
  `The measuring servers run \`svc serve --no-worker\`, so that the fan-out of ${WEBHOOKS} deliveries per booking does not run between measured requests; fanOut is then one booking on a server with its worker, with the measured bookings' queued fan-out jobs deleted first. ` +
  `GET /v2/slots: after a schedule change (PATCH /v2/schedules/{id} before each request, unmeasured, drops the host's cached availability) and repeated (the kept listing). ` +
  `POST /v2/bookings: the two organizations' event types take turns request by request; goal: median with webhooks within ${Math.round((GOALS.webhooksRatio - 1) * 100)}% of without. ` +
  `Goals (PostgreSQL at 210k): user with 100 bookings <= ${GOALS.user100} ms median, heavy user and heavy team pages <= ${GOALS.heavyPage} ms; shown as goalMedianMs/met at every size and store.`;
