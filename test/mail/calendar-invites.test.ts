// Calendar-invite templates (spec 2.9, endpoints 4-7, errors 7.2): the routes, their access rules, and
// the descriptions they give the invitations of booking mail (parsed back from real SMTP).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeHTML } from 'entities';
import { booked } from '../bookings/helpers.js';
import { createEventType, createHost, type Host, slotsOf, startsOf } from '../slots/helpers.js';
import { createTeamEventType, createTeamWithHosts } from '../support/team-scheduling.js';
import { createOrganization, createOrgMember, markCreatedByOrganization } from '../support/tenancy.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { type SmtpReceiver, startSmtpReceiver } from './helpers.js';

const VERSION = '2026-06-12';
let api: TestApp;
let smtp: SmtpReceiver;

before(async () => {
  smtp = await startSmtpReceiver();
  api = await createTestApp({ SMTP_URL: smtp.url, APP_URL: 'https://book.example' });
});
after(async () => {
  await api.close();
  await smtp.close();
});

const invitesPath = (id: number) => `/v2/event-types/${id}/calendar-invites`;
const getInvites = (path: string, key?: string) => api.request('GET', path, { version: VERSION, ...(key ? { key } : {}) });
const patchInvites = (path: string, key: string | undefined, body: unknown) => api.request('PATCH', path, { version: VERSION, body, ...(key ? { key } : {}) });
const standardPair = { host: { mode: 'inherit', template: null }, guest: { mode: 'inherit', template: null } };

function assertRefused(response: { status: number; body: any; text: string }, status: number, pattern?: RegExp) {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.status, 'error');
  if (pattern) assert.match(JSON.stringify(response.body.error), pattern);
}

/** Books the event type and returns the invitation descriptions the host and the attendee got. */
async function descriptions(host: Host, eventTypeId: number, fields: Record<string, unknown> = {}, day = '2027-05-03') {
  const [start] = startsOf(await slotsOf(api, { eventTypeId, start: day, end: day, timeZone: 'UTC' }));
  const hostEmail: string = (await api.request('GET', '/v2/me', { key: host.apiKey })).body.data.email;
  const attendeeEmail = `guest-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const before = smtp.messages.length;
  const booking = await booked(api, { eventTypeId, start, attendee: { name: 'Grace Hopper', email: attendeeEmail, timeZone: 'UTC' }, ...fields });
  await smtp.waitFor(before + 2);
  const of = (email: string) => smtp.messages.slice(before).find((message) => message.to.includes(email.toLowerCase()))!.invitation!.description;
  return { host: of(hostEmail), guest: of(attendeeEmail), booking };
}

/** A tag in `text`, read as HTML after any number of entity decodings (a reader may decode twice). */
function tagIn(text: string): string | null {
  let read = text;
  for (let decoded = decodeHTML(read); decoded !== read; decoded = decodeHTML(read)) read = decoded;
  return /<[a-z!/?][^>]*>?/i.exec(read)?.[0] ?? null;
}

const LINK = '[Join](https://meet.example/x?a=1&b=2&notify=1&copy=2)';

/** Entity and nesting tricks that each become a tag once decoded or once the inner tag is stripped. */
const HOSTILE_TEMPLATES = [
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  '&amp;lt;b&amp;gt;bold&amp;lt;/b&amp;gt;',
  '&amp;amp;lt;iframe src=x&amp;amp;gt;',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<<script>script>alert(1)<</script>/script>',
  '&#60;img src=x onerror=alert(1)&#62;',
  '&#x3C;svg onload=alert(1)&#x3E;',
  '&#60img src=x onerror=alert(1)&#62',
  '&ltscript&gt;alert(1)&lt/script&gt;',
  '&l<i></i>t;b&g<i></i>t;bold',
  '<![CDATA[<script>alert(1)</script>]]>',
  '<!--<script>-->alert(1)',
];

describe('calendar-invite templates', () => {
  test('no entity or nesting trick leaves a tag in the stored template or the invitation; Markdown links are kept', async () => {
    const host = await createHost(api, 'UTC');
    const eventType = await createEventType(api, host);
    const path = invitesPath(eventType.id);
    for (const hostile of HOSTILE_TEMPLATES) {
      const template = `Agenda ${hostile} ${LINK}`;
      const set = await patchInvites(path, host.apiKey, { guest: { mode: 'custom', template } });
      assert.equal(set.status, 200, set.text);
      const stored: string = (await getInvites(path, host.apiKey)).body.data.guest.template;
      assert.equal(tagIn(stored), null, `${hostile} was stored as ${JSON.stringify(stored)}`);
      assert.ok(stored.startsWith('Agenda '), stored);
      assert.ok(stored.endsWith(LINK), `the link is kept: ${stored}`);
    }
    assert.equal((await patchInvites(path, host.apiKey, { host: { mode: 'custom', template: '&lt;script&gt;alert(1)&lt;/script&gt;' } })).body.data.host.mode, 'standard', 'emptied once decoded');

    const all = HOSTILE_TEMPLATES.join('\n');
    const set = await patchInvites(path, host.apiKey, { host: { mode: 'custom', template: `${all}\n${LINK}` }, guest: { mode: 'custom', template: `{Location} ${all}\n${LINK}` } });
    assert.equal(set.status, 200, set.text);
    for (const audience of ['host', 'guest'] as const) assert.equal(tagIn(set.body.data[audience].template), null, set.body.data[audience].template);
    const { host: forHost, guest: forGuest } = await descriptions(host, eventType.id, {}, '2027-06-01');
    for (const description of [forHost, forGuest]) {
      assert.equal(tagIn(description), null, `DESCRIPTION: ${description}`);
      assert.ok(description.endsWith(LINK), description);
    }
  });

  test('a template stored with a tag before templates were sanitized this way reaches DESCRIPTION without it', async () => {
    const host = await createHost(api, 'UTC');
    const eventType = await createEventType(api, host);
    const stored = { host: { mode: 'custom', template: `<script>alert(1)</script>Hello <b>{HOST}</b> &lt;img src=x onerror=alert(1)&gt; ${LINK}` } };
    await api.runtime.ctx.database.db.execute(`update event_types set calendar_invites = '${JSON.stringify(stored)}'::jsonb where id = ${Number(eventType.id)}` as never);
    const { host: forHost } = await descriptions(host, eventType.id, {}, '2027-06-02');
    assert.equal(tagIn(forHost), null, forHost);
    assert.match(forHost, /^Hello \S/);
    assert.ok(forHost.endsWith(LINK), forHost);
  });

  test('event type: GET defaults, PATCH changes only the audience sent, sanitization keeps Markdown links, reads never expose templates', async () => {
    const host = await createHost(api, 'UTC');
    const eventType = await createEventType(api, host);
    const path = invitesPath(eventType.id);
    const initial = await getInvites(path, host.apiKey);
    assert.equal(initial.status, 200, initial.text);
    assert.deepEqual(initial.body.data, { ...standardPair, organizationDefault: null });

    const set = await patchInvites(path, host.apiKey, { host: { mode: 'custom', template: '<b>Agenda</b> for {HOST}: [Join](https://meet.example/x?a=1&b=2)<script>steal()</script>' } });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.data.host, { mode: 'custom', template: 'Agenda for {HOST}: [Join](https://meet.example/x?a=1&b=2)' });
    assert.deepEqual(set.body.data.guest, { mode: 'inherit', template: null });
    const guestOnly = await patchInvites(path, host.apiKey, { guest: { mode: 'standard' } });
    assert.deepEqual(guestOnly.body.data.host, set.body.data.host, 'host untouched by a guest patch');
    assert.deepEqual(guestOnly.body.data.guest, { mode: 'standard', template: null });
    assert.deepEqual((await getInvites(path, host.apiKey)).body.data, guestOnly.body.data);

    // Emptied by sanitization without an organization: standard.
    const emptied = await patchInvites(path, host.apiKey, { guest: { mode: 'custom', template: '<p></p><img src=x>' } });
    assert.deepEqual(emptied.body.data.guest, { mode: 'standard', template: null });

    const read = await api.request('GET', `/v2/event-types/${eventType.id}`, { key: host.apiKey, version: '2024-06-14' });
    assert.equal(read.status, 200);
    assert.ok(!read.text.includes('Agenda'), 'event-type responses never expose templates');
    assert.ok(!('calendarInvites' in read.body.data));
  });

  test('errors (7.2): 400 neither audience, custom without template, over 5,000 characters, bad mode; 401; 404 for another user', async () => {
    const host = await createHost(api, 'UTC');
    const other = await createHost(api, 'UTC');
    const eventType = await createEventType(api, host);
    const path = invitesPath(eventType.id);
    assertRefused(await patchInvites(path, host.apiKey, {}), 400, /calendar_invites_empty/);
    assertRefused(await patchInvites(path, host.apiKey, { host: { mode: 'custom' } }), 400, /host\.template/);
    assertRefused(await patchInvites(path, host.apiKey, { guest: { mode: 'custom', template: '   ' } }), 400, /guest\.template/);
    assertRefused(await patchInvites(path, host.apiKey, { host: { mode: 'custom', template: 'x'.repeat(5001) } }), 400, /template/);
    assert.equal((await patchInvites(path, host.apiKey, { host: { mode: 'custom', template: 'x'.repeat(5000) } })).status, 200);
    assertRefused(await patchInvites(path, host.apiKey, { host: { mode: 'fancy' } }), 400, /mode/);
    assertRefused(await getInvites(path), 401);
    assertRefused(await patchInvites(path, undefined, { host: { mode: 'standard' } }), 401);
    assertRefused(await getInvites(path, other.apiKey), 404, /event_type_not_found/);
    assertRefused(await patchInvites(path, other.apiKey, { host: { mode: 'standard' } }), 404, /event_type_not_found/);
    assertRefused(await getInvites(invitesPath(999_999), host.apiKey), 404);
    // The route exists from 2026-06-12 on.
    assertRefused(await api.request('GET', path, { key: host.apiKey }), 404, /route_not_found/);
    assertRefused(await api.request('PATCH', path, { key: host.apiKey, version: '2024-06-14', body: { host: { mode: 'standard' } } }), 404, /route_not_found/);
  });

  test('resolution order and every placeholder spelling, applied to the invitations of booking mail; hidden fields only for hosts', async () => {
    const host = await createHost(api, 'UTC', { name: 'Ada Lovelace' });
    const eventType = await createEventType(api, host, {
      title: 'Review',
      lengthInMinutes: 45,
      locations: [{ type: 'address', address: 'Piazza 1', public: true }],
      bookingFields: [
        { type: 'text', slug: 'Topic', label: 'Topic', required: false },
        { type: 'text', slug: 'internalCode', label: 'Code', required: false, hidden: true },
      ],
    });
    const path = invitesPath(eventType.id);
    const template = [
      '{Location}|{LOCATION}',
      '{Link title}|{LINK_TITLE}|{Event type title}|{EVENT_TYPE_TITLE}',
      '{Scheduler}|{USER}|{ATTENDEE}',
      '{Scheduler first name}|{ATTENDEE_FIRST_NAME}',
      '{Scheduler last name}|{ATTENDEE_LAST_NAME}',
      '{Organiser}|{HOST}|{ORGANIZER_NAME}',
      '{Organiser first name}|{ORGANIZER_FIRST_NAME}',
      '{Event duration}|{EVENT_DURATION}',
      '{MANAGE_LINK}',
      'topic={topic}|code={INTERNALCODE}|{unknown}',
    ].join('\n');
    assert.equal((await patchInvites(path, host.apiKey, { host: { mode: 'custom', template }, guest: { mode: 'custom', template } })).status, 200);
    const { host: forHost, guest: forGuest, booking } = await descriptions(host, eventType.id, { bookingFieldsResponses: { Topic: 'Budget', internalCode: 'X-42' } });
    const expected = (code: string) =>
      [
        'Piazza 1|Piazza 1',
        'Review|Review|Review|Review',
        'Grace Hopper|Grace Hopper|Grace Hopper',
        'Grace|Grace',
        'Hopper|Hopper',
        'Ada Lovelace|Ada Lovelace|Ada Lovelace',
        'Ada|Ada',
        '45 min|45 min',
        `https://book.example/booking/${booking.uid}`,
        `topic=Budget|code=${code}|{unknown}`,
      ].join('\n');
    assert.equal(forHost, expected('X-42'));
    assert.equal(forGuest, expected(''), 'a hidden field is not resolved for guests');

    // Explicit standard: the standard description, hidden answers kept for the host only.
    await patchInvites(path, host.apiKey, { host: { mode: 'standard' }, guest: { mode: 'standard' } });
    const standard = await descriptions(host, eventType.id, { bookingFieldsResponses: { Topic: 'Budget', internalCode: 'X-42' } }, '2027-05-04');
    assert.match(standard.host, /Manage this booking: https:\/\/book\.example\/booking\//);
    assert.match(standard.host, /Code: X-42/);
    assert.match(standard.guest, /Topic: Budget/);
    assert.ok(!standard.guest.includes('X-42'));
  });

  test('organization defaults: inherit uses them, standard ignores them, custom wins; ORG_ADMIN only; emptied becomes inherit', async () => {
    const { organization, owner } = await createOrganization(api);
    const orgPath = `/v2/organizations/${organization.id}/calendar-invites`;
    assert.deepEqual((await getInvites(orgPath, owner.apiKey)).body.data, standardPair);
    assertRefused(await patchInvites(orgPath, owner.apiKey, { host: { mode: 'standard' } }), 400, /mode/);
    assertRefused(await patchInvites(orgPath, owner.apiKey, {}), 400, /calendar_invites_empty/);
    const member = await createOrgMember(api, organization.id, owner.apiKey);
    assertRefused(await getInvites(orgPath, member.apiKey), 403);
    assertRefused(await patchInvites(orgPath, member.apiKey, { host: { mode: 'custom', template: 'x' } }), 403);
    const outsider = await createHost(api, 'UTC');
    assertRefused(await getInvites(orgPath, outsider.apiKey), 403);
    const set = await patchInvites(orgPath, owner.apiKey, { host: { mode: 'custom', template: 'ORG HOST {HOST}' }, guest: { mode: 'custom', template: 'ORG GUEST {ATTENDEE}' } });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.data.guest, { mode: 'custom', template: 'ORG GUEST {ATTENDEE}' });

    // A personal event type of a user the organization made.
    const host = await createHost(api, 'UTC', { name: 'Mia Member' });
    const joined = await api.request('POST', `/v2/organizations/${organization.id}/memberships`, { key: owner.apiKey, body: { userId: host.userId, role: 'MEMBER', accepted: true } });
    assert.equal(joined.status, 201, joined.text);
    await markCreatedByOrganization(api, host.userId, organization.id);
    const eventType = await createEventType(api, host);
    const path = invitesPath(eventType.id);
    assert.deepEqual((await getInvites(path, host.apiKey)).body.data.organizationDefault, set.body.data);
    const inherited = await descriptions(host, eventType.id, {}, '2027-05-05');
    assert.equal(inherited.host, 'ORG HOST Mia Member');
    assert.equal(inherited.guest, 'ORG GUEST Grace Hopper');

    await patchInvites(path, host.apiKey, { host: { mode: 'standard' }, guest: { mode: 'custom', template: 'OWN {Scheduler first name}' } });
    const mixed = await descriptions(host, eventType.id, {}, '2027-05-06');
    assert.match(mixed.host, /^Call between|Who: /);
    assert.ok(!mixed.host.includes('ORG HOST'));
    assert.equal(mixed.guest, 'OWN Grace');

    // Emptied by sanitization: the event type's becomes inherit (an organization is available); the organization's inherit.
    const emptied = await patchInvites(path, host.apiKey, { guest: { mode: 'custom', template: '<br/>' } });
    assert.deepEqual(emptied.body.data.guest, { mode: 'inherit', template: null });
    // The same through the event type's own body (2026-06-12).
    const viaBody = await api.request('PATCH', `/v2/event-types/${eventType.id}`, { key: host.apiKey, version: '2026-06-12', body: { calendarInvites: { host: { mode: 'custom', template: '<p></p>' } } } });
    assert.equal(viaBody.status, 200, viaBody.text);
    assert.deepEqual((await getInvites(path, host.apiKey)).body.data.host, { mode: 'inherit', template: null });
    const orgEmptied = await patchInvites(orgPath, owner.apiKey, { guest: { mode: 'custom', template: '<i></i>' } });
    assert.deepEqual(orgEmptied.body.data, { host: { mode: 'custom', template: 'ORG HOST {HOST}' }, guest: { mode: 'inherit', template: null } });
  });

  test('team routes: team admins only, the event type must be the team\'s (404), a managed child is read-only and shows its parent\'s settings', async () => {
    const member = await createHost(api, 'UTC');
    const { team, owner } = await createTeamWithHosts(api, [member]);
    const slug = () => `t-${Math.random().toString(36).slice(2, 8)}`;
    const collective = await createTeamEventType(api, owner.apiKey, team.id, { title: 'Team', slug: slug(), lengthInMinutes: 30, schedulingType: 'collective', hosts: [{ userId: member.userId }] });
    const path = `/v2/teams/${team.id}/event-types/${collective.id}/calendar-invites`;
    assert.equal((await getInvites(path, owner.apiKey)).status, 200);
    assertRefused(await getInvites(path, member.apiKey), 403);
    assertRefused(await patchInvites(path, member.apiKey, { host: { mode: 'standard' } }), 403);
    const { team: otherTeam, owner: otherOwner } = await createTeamWithHosts(api, []);
    assertRefused(await getInvites(`/v2/teams/${otherTeam.id}/event-types/${collective.id}/calendar-invites`, otherOwner.apiKey), 404, /event_type_not_found/);
    assertRefused(await getInvites(invitesPath(collective.id), owner.apiKey), 404, /event_type_not_found/);
    // A team outside any organization: a template emptied in the event type's body is standard.
    const emptiedInBody = await api.request('POST', `/v2/teams/${team.id}/event-types`, {
      key: owner.apiKey, version: '2026-06-12',
      body: { title: 'Emptied', slug: slug(), lengthInMinutes: 30, schedulingType: 'collective', hosts: [{ userId: member.userId }], calendarInvites: { guest: { mode: 'custom', template: '<b></b>' } } },
    });
    assert.equal(emptiedInBody.status, 201, emptiedInBody.text);
    const emptiedPath = `/v2/teams/${team.id}/event-types/${emptiedInBody.body.data.id}/calendar-invites`;
    assert.deepEqual((await getInvites(emptiedPath, owner.apiKey)).body.data.guest, { mode: 'standard', template: null });

    const [parent, child] = await createTeamEventType(api, owner.apiKey, team.id, { title: 'Managed', slug: slug(), lengthInMinutes: 30, schedulingType: 'managed', hosts: [{ userId: member.userId }] });
    const parentPath = `/v2/teams/${team.id}/event-types/${parent.id}/calendar-invites`;
    assert.equal((await patchInvites(parentPath, owner.apiKey, { guest: { mode: 'custom', template: 'From the parent' } })).status, 200);
    const childRead = await getInvites(invitesPath(child.id), member.apiKey);
    assert.equal(childRead.status, 200, childRead.text);
    assert.deepEqual(childRead.body.data.guest, { mode: 'custom', template: 'From the parent' });
    assertRefused(await patchInvites(invitesPath(child.id), member.apiKey, { guest: { mode: 'standard' } }), 400, /managed_event_type_child/);
  });

  test('organization team route: 404 when the event type is not of that team', async () => {
    const { organization, owner } = await createOrganization(api);
    const made = async () => (await api.request('POST', `/v2/organizations/${organization.id}/teams`, { key: owner.apiKey, body: { name: `T ${Math.random()}` } })).body.data;
    const [a, b] = [await made(), await made()];
    const created = await api.request('POST', `/v2/teams/${a.id}/event-types`, {
      key: owner.apiKey, version: '2026-06-12',
      body: { title: 'Org team', slug: `o-${Date.now()}`, lengthInMinutes: 30, schedulingType: 'collective', assignAllTeamMembers: true, calendarInvites: { host: { mode: 'custom', template: '<br>' }, guest: { mode: 'standard' } } },
    });
    assert.equal(created.status, 201, created.text);
    const eventType = created.body.data;
    const base = (teamId: number) => `/v2/organizations/${organization.id}/teams/${teamId}/event-types/${eventType.id}/calendar-invites`;
    const read = await getInvites(base(a.id), owner.apiKey);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body.data.organizationDefault, standardPair);
    // Emptied in the create body of an organization team's event type: it inherits the organization's.
    assert.deepEqual(read.body.data.host, { mode: 'inherit', template: null });
    assert.deepEqual(read.body.data.guest, { mode: 'standard', template: null });
    assertRefused(await getInvites(base(b.id), owner.apiKey), 404);
    assert.equal((await patchInvites(base(a.id), owner.apiKey, { host: { mode: 'custom', template: 'T' } })).status, 200);
  });
});
