// Routing forms over HTTP on the store of the run: an organization whose six sales members carry a region
// and languages; a form whose routes send Europe + German to the members who speak it, Europe to the
// European members, anything else to a message. A visitor's answers are routed (calculate-slots stores
// nothing; a response is stored and announced), the slots are exactly the routed members', the booking
// made with the response goes to one of them and links the response, once; a member's value changed
// changes the routing at once. Bad forms and answers are refused naming the field; another organization,
// a team member who is no admin, and strangers are refused; FORM_SUBMITTED at once and
// FORM_SUBMITTED_NO_EVENT 15 minutes later for a response nobody booked, once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { jobs } from '../../src/db/schema.js';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { eventually } from '../support/eventually.js';
import { acceptMembership, createOrganization, type Member } from '../support/tenancy.js';
import { backend, createPeerApp, createTestApp, type TestApp } from '../support/test-app.js';
import { type Receiver, startReceiver } from '../webhooks/helpers.js';

// 2027-01-11 is a Monday: Berlin +01:00, Kolkata +05:30, London +00:00, New York -05:00, Tokyo +09:00, Sydney +11:00.
const DAY = '2027-01-11';
const at = (time: string) => `${DAY}T${time}:00.000Z`;
/** Half-hourly starts of a 30-minute event in [from, to) UTC hours. */
const halfHours = (from: number, to: number) =>
  Array.from({ length: (to - from) * 2 }, (_, index) => {
    const minutes = from * 60 + index * 30;
    return at(`${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`);
  });

describe(`routing forms (${backend})`, () => {
  let api: TestApp;
  let hooks: Receiver;
  let orgId: number;
  let owner: Member;
  let teamId: number;
  let members: Record<'berlin' | 'kolkata' | 'london' | 'newYork' | 'tokyo' | 'sydney', Member>;
  let eventTypeId: number;
  let form: any;
  let attributeIds: { region: string; languages: string };

  const admin = (method: string, url: string, body?: unknown, key = owner.apiKey) => api.request(method, url, { key, ...(body === undefined ? {} : { body }) });
  const teamForms = () => `/v2/organizations/${orgId}/teams/${teamId}/routing-forms`;

  before(async () => {
    hooks = await startReceiver();
    api = await createTestApp({ SVC_JOB_RETRY_BASE_MS: '50' });
    const made = await createOrganization(api);
    orgId = made.organization.id;
    owner = made.owner;
    const team = await admin('POST', `/v2/organizations/${orgId}/teams`, { name: 'Sales' });
    assert.equal(team.status, 201, team.text);
    teamId = team.body.data.id;
    const zones = { berlin: 'Europe/Berlin', kolkata: 'Asia/Kolkata', london: 'Europe/London', newYork: 'America/New_York', tokyo: 'Asia/Tokyo', sydney: 'Australia/Sydney' } as const;
    members = {} as typeof members;
    for (const [name, timeZone] of Object.entries(zones) as [keyof typeof zones, string][]) {
      const member = await api.createUser({ timeZone });
      for (const path of [`/v2/organizations/${orgId}/memberships`, `/v2/organizations/${orgId}/teams/${teamId}/memberships`]) {
        const joined = await admin('POST', path, { userId: member.user.id, role: 'MEMBER', accepted: true });
        assert.equal(joined.status, 201, joined.text);
        if (!joined.body.data.accepted) await acceptMembership(api, member, `${path}/${joined.body.data.id}`);
      }
      members[name] = member;
    }
    const attribute = async (body: Record<string, unknown>) => {
      const created = await admin('POST', `/v2/organizations/${orgId}/attributes`, body);
      assert.equal(created.status, 201, created.text);
      const options = (await admin('GET', `/v2/organizations/${orgId}/attributes/${created.body.data.id}/options`)).body.data as { id: string; value: string }[];
      return { id: created.body.data.id as string, option: (value: string) => options.find((option) => option.value === value)!.id };
    };
    const region = await attribute({ name: 'Region', slug: 'region', type: 'SINGLE_SELECT', options: [{ value: 'Europe', slug: 'eu' }, { value: 'Americas', slug: 'am' }, { value: 'Asia', slug: 'as' }] });
    const languages = await attribute({ name: 'Languages', slug: 'languages', type: 'MULTI_SELECT', options: [{ value: 'German', slug: 'de' }, { value: 'English', slug: 'en' }] });
    attributeIds = { region: region.id, languages: languages.id };
    const give = async (member: Member, attributeId: string, optionId: string) => {
      const given = await admin('POST', `/v2/organizations/${orgId}/attributes/options/${member.user.id}`, { attributeId, attributeOptionId: optionId });
      assert.equal(given.status, 201, given.text);
    };
    for (const member of [members.berlin, members.kolkata, members.london]) await give(member, region.id, region.option('Europe'));
    await give(members.newYork, region.id, region.option('Americas'));
    for (const member of [members.tokyo, members.sydney]) await give(member, region.id, region.option('Asia'));
    for (const member of [members.berlin, members.kolkata]) await give(member, languages.id, languages.option('German'));
    for (const member of Object.values(members)) await give(member, languages.id, languages.option('English'));

    const eventType = await admin('POST', `/v2/organizations/${orgId}/teams/${teamId}/event-types`, {
      title: 'Discovery call',
      slug: 'discovery',
      lengthInMinutes: 30,
      minimumBookingNotice: 0,
      schedulingType: 'ROUND_ROBIN',
      hosts: Object.values(members).map((member) => ({ userId: member.user.id })),
    });
    assert.equal(eventType.status, 201, eventType.text);
    eventTypeId = eventType.body.data.id;
    const hook = await admin('POST', `/v2/organizations/${orgId}/webhooks`, { subscriberUrl: `${hooks.url}/forms`, active: true, triggers: ['FORM_SUBMITTED', 'FORM_SUBMITTED_NO_EVENT'] });
    assert.equal(hook.status, 201, hook.text);

    const sameRegion = { '==': [{ var: 'attributes.region' }, { var: 'answers.region' }] };
    const created = await admin('POST', teamForms(), {
      name: 'Contact sales',
      description: 'Find the right person',
      fields: [
        { identifier: 'email', label: 'Your email', type: 'email', required: true },
        { identifier: 'region', label: 'Where are you?', type: 'select', required: true, options: [{ label: 'Europe' }, { label: 'Americas' }, { label: 'Asia' }] },
        { identifier: 'language', label: 'Preferred language', type: 'radio', required: true, options: [{ label: 'German' }, { label: 'English' }] },
        { identifier: 'seats', label: 'How many seats?', type: 'number' },
      ],
      routes: [
        {
          condition: { and: [{ '==': [{ var: 'answers.region' }, 'Europe'] }, { '==': [{ var: 'answers.language' }, 'German'] }] },
          action: { type: 'eventType', eventTypeId, membersQuery: { and: [sameRegion, { in: [{ var: 'answers.language' }, { var: 'attributes.languages' }] }] } },
        },
        { condition: { '==': [{ var: 'answers.region' }, 'Europe'] }, action: { type: 'eventType', eventTypeId, membersQuery: sameRegion } },
        { isFallback: true, action: { type: 'customPageMessage', message: 'Thanks! We will write to you.' } },
      ],
    });
    assert.equal(created.status, 201, created.text);
    form = created.body.data;
  });
  after(async () => {
    await api?.close();
    await hooks?.close();
  });

  const ids = (...list: Member[]) => list.map((member) => member.user.id).sort((a, b) => a - b);
  const calculate = (answers: Record<string, unknown>, window = `?start=${DAY}&end=${DAY}&timeZone=UTC`) => api.request('POST', `/v2/routing-forms/${form.id}/calculate-slots${window}`, { body: answers });
  const startsOf = (slots: Record<string, { start: string }[]>) => Object.values(slots).flat().map((slot) => slot.start);

  test('the form as made: ids and identifiers kept or made, routes ending with the fallback', async () => {
    assert.deepEqual([form.name, form.teamId, form.disabled, form.userId], ['Contact sales', teamId, false, owner.user.id]);
    assert.deepEqual(form.fields.map((field: any) => field.identifier), ['email', 'region', 'language', 'seats']);
    assert.ok(form.fields.every((field: any) => typeof field.id === 'string' && field.id.length > 0));
    assert.deepEqual(form.fields[1].options.map((option: any) => option.label), ['Europe', 'Americas', 'Asia']);
    assert.deepEqual(form.routes.map((route: any) => [route.isFallback, route.action.type]), [[false, 'eventType'], [false, 'eventType'], [true, 'customPageMessage']]);
    const read = await admin('GET', `${teamForms()}/${form.id}`);
    assert.deepEqual(read.body.data, form);
    assert.deepEqual((await admin('GET', `/v2/organizations/${orgId}/routing-forms`)).body.data.map((item: any) => item.id), [form.id]);
  });

  test('calculate-slots: the routed members and exactly their slots; the fallback answers its message', async () => {
    const german = await calculate({ email: 'kim@example.com', region: 'Europe', language: 'German', seats: '12' });
    assert.equal(german.status, 200, german.text);
    assert.equal(german.body.data.eventTypeId, eventTypeId);
    assert.deepEqual(german.body.data.routing.teamMemberIds.sort((a: number, b: number) => a - b), ids(members.berlin, members.kolkata));
    // Kolkata 09:00-17:00 is 03:30-11:30 UTC, Berlin's 08:00-16:00 UTC: together 03:30-16:00.
    assert.deepEqual(startsOf(german.body.data.slots), halfHours(3.5, 16));
    const european = await calculate({ email: 'kim@example.com', region: 'europe', language: 'English' });
    assert.deepEqual(european.body.data.routing.teamMemberIds.sort((a: number, b: number) => a - b), ids(members.berlin, members.kolkata, members.london), 'a choice matches its label in any case');
    assert.deepEqual(startsOf(european.body.data.slots), halfHours(3.5, 17), 'London adds 16:00-17:00 UTC');
    const elsewhere = await calculate({ email: 'kim@example.com', region: 'Americas', language: 'English' });
    assert.deepEqual(elsewhere.body.data, { routingCustomMessage: 'Thanks! We will write to you.' });
    const noWindow = await calculate({ email: 'kim@example.com', region: 'Europe', language: 'German' }, '');
    assert.equal(noWindow.body.data.slots, undefined, 'slots only with start and end');
    assert.equal((await admin('GET', `${teamForms()}/${form.id}/responses`)).body.data.length, 0, 'calculating stores nothing');
  });

  test('a response is stored and announced; the booking made with it goes to a routed member and links it, once', async () => {
    const submitted = await api.request('POST', `/v2/routing-forms/${form.id}/responses?start=${DAY}&end=${DAY}&timeZone=UTC`, { body: { email: 'lea@example.com', region: 'Europe', language: 'German' } });
    assert.equal(submitted.status, 201, submitted.text);
    const { routing } = submitted.body.data;
    assert.ok(routing.responseId > 0);
    assert.deepEqual(routing.teamMemberIds.sort((a: number, b: number) => a - b), ids(members.berlin, members.kolkata));

    const [formCall] = await hooks.waitFor(1, 10_000, (request) => request.json?.triggerEvent === 'FORM_SUBMITTED' && request.json.payload.responseId === routing.responseId);
    assert.deepEqual(
      { formId: formCall!.json.payload.formId, formName: formCall!.json.payload.formName, teamId: formCall!.json.payload.teamId },
      { formId: form.id, formName: 'Contact sales', teamId },
    );
    assert.deepEqual(formCall!.json.payload.responses.region, { value: 'Europe', response: { label: 'Europe', id: form.fields[1].options[0].id } });
    assert.deepEqual(formCall!.json.payload.responses.email, { value: 'lea@example.com', response: 'lea@example.com' });

    const book = (body: Record<string, unknown>) =>
      api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId, start: at('04:00'), attendee: { name: 'Lea', email: 'lea@example.com', timeZone: 'UTC' }, ...body } });
    const outside = await book({ routing: { responseId: routing.responseId, teamMemberIds: ids(members.london) } });
    assert.equal(outside.status, 400, outside.text);
    assert.match(outside.body.error.message, /^routing\.teamMemberIds names members the response was not routed to/);
    const booked = await book({ routing: { responseId: routing.responseId, teamMemberIds: routing.teamMemberIds } });
    assert.equal(booked.status, 201, booked.text);
    assert.equal(booked.body.data.hosts[0].id, members.kolkata.user.id, 'at 04:00 UTC only Kolkata of the two works');
    const again = await book({ start: at('05:00'), routing: { responseId: routing.responseId, teamMemberIds: routing.teamMemberIds } });
    assert.equal(again.status, 409, again.text);

    const responses = (await admin('GET', `${teamForms()}/${form.id}/responses`)).body.data;
    assert.deepEqual(
      responses.map((response: any) => [response.id, response.routedToBookingUid, response.response[form.fields[0].id]]),
      [[routing.responseId, booked.body.data.uid, { label: 'Your email', value: 'lea@example.com' }]],
    );
    const byBooking = await admin('GET', `/v2/organizations/${orgId}/routing-forms/${form.id}/responses?routedToBookingUid=${booked.body.data.uid}`);
    assert.deepEqual(byBooking.body.data.map((response: any) => response.id), [routing.responseId]);

    const patched = await admin('PATCH', `${teamForms()}/${form.id}/responses/${routing.responseId}`, { response: { email: 'lea.new@example.com', region: 'Europe', language: 'German' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.response[form.fields[0].id].value, 'lea.new@example.com');
    assert.equal(patched.body.data.routedToBookingUid, booked.body.data.uid, 'where it was routed stays');
  });

  test('FORM_SUBMITTED_NO_EVENT: 15 minutes on, once, only for a response nobody booked', async () => {
    const unbooked = await api.request('POST', `/v2/routing-forms/${form.id}/responses`, { body: { email: 'nobody@example.com', region: 'Americas', language: 'English' } });
    assert.equal(unbooked.status, 201, unbooked.text);
    assert.deepEqual(unbooked.body.data, { routingCustomMessage: 'Thanks! We will write to you.' });
    const noEventJobs = async () => db().select().from(jobs).where(sql`${jobs.kind} = 'routing-form.no-event'`);
    const db = () => api.runtime.ctx.database.db;
    const scheduled = await noEventJobs();
    assert.equal(scheduled.length, 2, 'one per response (the booked one and this one) for the one listening subscription');
    for (const job of scheduled) assert.ok(job.runAt.getTime() - job.createdAt.getTime() >= 15 * 60_000 - 1000, 'a quarter of an hour on');
    const runAll = async () => {
      await db().update(jobs).set({ runAt: sql`now()`, status: 'pending' }).where(sql`${jobs.kind} = 'routing-form.no-event'`);
      await db().execute(sql`select pg_notify('svc_jobs', '')`);
      await eventually(async () => (await noEventJobs()).every((job) => job.status === 'done'), 10_000);
    };
    await runAll();
    await runAll();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const noEvent = hooks.requests.filter((request) => request.json?.triggerEvent === 'FORM_SUBMITTED_NO_EVENT');
    const unbookedId = (await admin('GET', `${teamForms()}/${form.id}/responses`)).body.data.find((response: any) => response.routedToBookingUid === null && response.response[form.fields[0].id].value === 'nobody@example.com').id;
    assert.deepEqual(noEvent.map((request) => request.json.payload.responseId), [unbookedId], 'the booked response is not announced; the other once');
    assert.deepEqual(noEvent[0]!.json.payload.redirect, { type: 'customPageMessage', value: 'Thanks! We will write to you.' });
  });

  test("a member's value changed changes the routing at once", async () => {
    const before = await calculate({ email: 'x@example.com', region: 'Europe', language: 'German' }, '');
    assert.deepEqual(before.body.data.routing.teamMemberIds.sort((a: number, b: number) => a - b), ids(members.berlin, members.kolkata));
    const options = (await admin('GET', `/v2/organizations/${orgId}/attributes/${attributeIds.languages}/options`)).body.data as { id: string; value: string }[];
    const given = await admin('POST', `/v2/organizations/${orgId}/attributes/options/${members.london.user.id}`, { attributeId: attributeIds.languages, attributeOptionId: options.find((option) => option.value === 'German')!.id });
    assert.equal(given.status, 201, given.text);
    const after = await calculate({ email: 'x@example.com', region: 'Europe', language: 'German' }, '');
    assert.deepEqual(after.body.data.routing.teamMemberIds.sort((a: number, b: number) => a - b), ids(members.berlin, members.kolkata, members.london));
  });

  test("another process sharing PostgreSQL routes by a changed value at once", { skip: backend !== 'postgres' && 'needs PostgreSQL (PGlite is single-process)' }, async () => {
    const peer = await createPeerApp(api);
    try {
      const routed = async () => {
        const answer = await peer.request('POST', `/v2/routing-forms/${form.id}/calculate-slots`, { body: { email: 'p@example.com', region: 'Europe', language: 'German' } });
        assert.equal(answer.status, 200, answer.text);
        return (answer.body.data.routing.teamMemberIds as number[]).sort((a, b) => a - b);
      };
      const before = await routed();
      assert.ok(!before.includes(members.newYork.user.id), 'kept by the peer: New York is in the Americas');
      const options = (await admin('GET', `/v2/organizations/${orgId}/attributes/${attributeIds.region}/options`)).body.data as { id: string; value: string }[];
      const moved = await admin('POST', `/v2/organizations/${orgId}/attributes/options/${members.newYork.user.id}`, { attributeId: attributeIds.region, attributeOptionId: options.find((option) => option.value === 'Europe')!.id });
      assert.equal(moved.status, 201, moved.text);
      const languages = (await admin('GET', `/v2/organizations/${orgId}/attributes/${attributeIds.languages}/options`)).body.data as { id: string; value: string }[];
      await admin('POST', `/v2/organizations/${orgId}/attributes/options/${members.newYork.user.id}`, { attributeId: attributeIds.languages, attributeOptionId: languages.find((option) => option.value === 'German')!.id });
      let after = before;
      for (let attempt = 0; attempt < 50 && !after.includes(members.newYork.user.id); attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        after = await routed();
      }
      assert.ok(after.includes(members.newYork.user.id), 'the peer dropped the values it kept on the change feed');
    } finally {
      await peer.close();
    }
  });

  test('bad answers and bad forms are refused naming the field; nothing is stored', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ region: 'Europe', language: 'German' }, /^response\.email is required/],
      [{ email: 'not-an-email', region: 'Europe', language: 'German' }, /^response\.email must be an email address/],
      [{ email: 'a@example.com', region: 'Mars', language: 'German' }, /^response\.region must be among "Europe", "Americas", "Asia"/],
      [{ email: 'a@example.com', region: 'Europe', language: 'German', seats: 'many' }, /^response\.seats must be a number/],
      [{ email: 'a@example.com', region: 'Europe', language: 'German', budget: 5 }, /^response\.budget is not a field of the form/],
    ];
    for (const [answers, message] of cases) {
      const refused = await calculate(answers);
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.body.error.message, message);
    }
    const bad = async (body: Record<string, unknown>, message: RegExp) => {
      const refused = await admin('POST', teamForms(), body);
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.body.error.message, message);
    };
    const fields = [{ identifier: 'email', label: 'Email', type: 'email' }];
    const fallback = { isFallback: true, action: { type: 'customPageMessage', message: 'Bye' } };
    await bad({ name: 'F', fields, routes: [{ condition: { '==': [{ var: 'answers.country' }, 'DE'] }, action: { type: 'customPageMessage', message: 'x' } }, fallback] }, /^routes\.0\.condition reads "answers\.country"/);
    await bad({ name: 'F', fields, routes: [{ condition: { '==': [{ var: 'answers.email' }, 'x'] }, action: { type: 'customPageMessage', message: 'x' } }] }, /^routes must end with the fallback route/);
    await bad({ name: 'F', fields, routes: [{ condition: { '==': [{ var: 'answers.email' }, 'x'] }, action: { type: 'eventType', eventTypeId: 999999 } }, fallback] }, /^routes\.0\.action\.eventTypeId must be one of the team's event types/);
    await bad({ name: 'F', fields, routes: [{ condition: { '==': [{ var: 'answers.email' }, 'x'] }, action: { type: 'eventType', eventTypeId, membersQuery: { '==': [{ var: 'attributes.shoeSize' }, 42] } } }, fallback] }, /^routes\.0\.action\.membersQuery reads "attributes\.shoeSize"/);
    await bad({ name: 'F', fields: [{ label: 'Pick', type: 'select' }], routes: [fallback] }, /^fields\.0\.options is required for a select field/);
    await bad({ name: 'F', fields: [{ identifier: 'a', label: 'A', type: 'text' }, { identifier: 'A', label: 'B', type: 'text' }], routes: [fallback] }, /^fields\.1\.identifier repeats "A"/);
    assert.equal((await admin('GET', teamForms())).body.data.length, 1);
    const disabled = await admin('PATCH', `${teamForms()}/${form.id}`, { disabled: true });
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal((await calculate({ email: 'a@example.com', region: 'Europe', language: 'German' })).status, 400);
    assert.equal((await admin('PATCH', `${teamForms()}/${form.id}`, { disabled: false })).status, 200);
  });

  test("another organization, a member who is no admin, and strangers are refused", async () => {
    const other = await createOrganization(api);
    const otherTeam = await api.request('POST', `/v2/organizations/${other.organization.id}/teams`, { key: other.owner.apiKey, body: { name: 'Theirs' } });
    assert.equal((await admin('GET', teamForms(), undefined, other.owner.apiKey)).status, 403);
    assert.equal((await admin('GET', `/v2/organizations/${orgId}/routing-forms/${form.id}/responses`, undefined, other.owner.apiKey)).status, 403);
    assert.equal((await admin('GET', `/v2/organizations/${other.organization.id}/routing-forms/${form.id}/responses`, undefined, other.owner.apiKey)).status, 404, 'our form at their path');
    assert.equal((await admin('GET', `/v2/organizations/${other.organization.id}/teams/${otherTeam.body.data.id}/routing-forms/${form.id}`, undefined, other.owner.apiKey)).status, 404);
    assert.equal((await admin('GET', `/v2/organizations/${orgId}/teams/${teamId}/routing-forms`, undefined, members.berlin.apiKey)).status, 403, 'a member of the team who is no admin');
    assert.equal((await api.request('GET', teamForms())).status, 401);
    assert.equal((await api.request('POST', '/v2/routing-forms/no-such-form/calculate-slots', { body: {} })).status, 404);
  });
});
