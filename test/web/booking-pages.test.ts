// svc's booking pages over HTTP (a browser without a browser: test/oauth/helpers.ts WebClient), on the
// store of the run: a guest in +05:45 books a personal event type and sees the time they picked, in both
// zones; the form is built from the booking fields and a refusal keeps the answers; a time taken between
// load and submit gives a clear message and fresh times; the same form sent twice books once; the
// mailed links open the booking, its reschedule picker and its cancel form, which move and cancel it
// through the API; a team's round robin books; a hidden type and an expired private link are refused;
// embedding follows SVC_EMBED_ORIGINS; svc's own paths keep their JSON 404.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { booked, BOOKINGS_VERSION } from '../bookings/helpers.js';
import { startSmtpReceiver, type SmtpReceiver } from '../mail/helpers.js';
import { WebClient } from '../oauth/helpers.js';
import { createEventType, createHost, type Host } from '../slots/helpers.js';
import { eventually } from '../support/eventually.js';
import { createTeamWithEventType } from '../support/team-scheduling.js';
import { backend, createTestApp, type TestApp } from '../support/test-app.js';

// 2027-04-05 is a Monday: London is on BST (+01:00), Kathmandu +05:45 all year.
const MONDAY = '2027-04-05';
const unescape = (value: string) => value.replaceAll('&amp;', '&');

/** The links of a page whose text matches, in order. */
function linksOf(page: string, text: RegExp): { href: string; text: string }[] {
  return [...page.matchAll(/<a href="([^"]+)"[^>]*>([^<]*)<\/a>/g)].filter((match) => text.test(match[2]!)).map((match) => ({ href: unescape(match[1]!), text: match[2]! }));
}

function formOf(page: string) {
  const action = /<form method="post" action="([^"]+)"/.exec(page);
  assert.ok(action, `the page has a booking form: ${page.slice(0, 600)}`);
  const hidden = Object.fromEntries([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((match) => [match[1]!, unescape(match[2]!)]));
  return { action: unescape(action[1]!), hidden };
}

describe(`booking pages (${backend})`, () => {
  let api: TestApp;
  let smtp: SmtpReceiver;
  let host: Host;
  let eventType: any;

  before(async () => {
    smtp = await startSmtpReceiver();
    api = await createTestApp({ SMTP_URL: smtp.url, SVC_EMBED_ORIGINS: 'https://shop.example, http://localhost:3000' });
    // The mails' links point at this server.
    (api.config as { appUrl: string }).appUrl = api.baseUrl;
    host = await createHost(api, 'Europe/London');
    eventType = await createEventType(api, host, {
      title: 'Intro call',
      lengthInMinutes: 30,
      description: 'A first talk.',
      bookingFields: [
        { type: 'select', slug: 'topic', label: 'Topic', required: true, options: ['Sales', 'Support'] },
        { type: 'text', slug: 'company', label: 'Company', required: false },
      ],
    });
  });
  after(async () => {
    await api?.close();
    await smtp?.close();
  });

  const pagePath = () => `/${host.username}/${eventType.slug}`;
  const web = () => new WebClient(api.baseUrl);

  async function pickFirstTime(client: WebClient, path: string, tz: string, date = MONDAY, extra = '') {
    const day = await client.get(`${path}?tz=${encodeURIComponent(tz)}&month=${date.slice(0, 7)}&date=${date}${extra}`);
    assert.equal(day.status, 200, day.html);
    const [first] = linksOf(day.html, /\d:\d\d/);
    assert.ok(first, `a time on ${date}`);
    const form = await client.get(first.href);
    assert.equal(form.status, 200, form.html);
    return { day, first, form };
  }

  test('a guest in +05:45 sees the host\'s 09:00 London as 1:45 PM, books it, and the confirmation shows both zones', async () => {
    const client = web();
    const { day, first, form } = await pickFirstTime(client, pagePath(), 'Asia/Kathmandu');
    assert.match(day.html, /<h1>Intro call<\/h1>/);
    assert.match(day.html, /A first talk\./);
    assert.match(day.html, /aria-live="polite"/);
    assert.match(day.html, new RegExp(`aria-label="Monday, April 5, 2027: 16 times available" aria-current="date"`));
    assert.equal(first.text, '1:45 PM', 'London 09:00 BST is 13:45 in Kathmandu');
    assert.match(day.html, /<span aria-label="Saturday, April 3, 2027: No times available">3<\/span>/);
    const in24 = await client.get(`${pagePath()}?tz=Asia/Kathmandu&month=2027-04&date=${MONDAY}&h=24`);
    assert.equal(linksOf(in24.html, /\d:\d\d/)[0]!.text, '13:45');

    assert.match(form.html, /<label for="f-topic">Topic/);
    assert.match(form.html, /<select id="f-topic" name="f-topic" required>/);
    assert.match(form.html, /You chose Monday, April 5, 2027 at 1:45 PM \(Asia\/Kathmandu\)/);
    const { action, hidden } = formOf(form.html);
    const sent = await client.post(action, { ...hidden, name: 'Kiran Guest', email: 'kiran@example.com', 'f-topic': 'Support', 'f-company': 'Everest Ltd', notes: 'About my account', guests: 'pat@example.com' });
    assert.equal(sent.status, 303, sent.html);
    assert.match(sent.location!, /^\/booking\/[^?]+\?tz=Asia%2FKathmandu&h=12&new=1$/);
    const uid = sent.location!.split('/')[2]!.split('?')[0]!;

    const made = (await api.request('GET', `/v2/bookings/${uid}`, { version: BOOKINGS_VERSION })).body.data;
    assert.equal(made.start, `${MONDAY}T08:00:00.000Z`, 'the slot shown is the slot booked');
    assert.deepEqual([made.attendees[0].name, made.attendees[0].timeZone], ['Kiran Guest', 'Asia/Kathmandu']);
    assert.deepEqual([made.bookingFieldsResponses.topic, made.bookingFieldsResponses.company, made.bookingFieldsResponses.notes], ['Support', 'Everest Ltd', 'About my account']);
    assert.deepEqual(made.guests, ['pat@example.com']);

    const confirmation = await client.get(sent.location!);
    assert.equal(confirmation.status, 200);
    assert.match(confirmation.html, /<h1>This meeting is scheduled<\/h1>/);
    assert.match(confirmation.html, /Your time: Monday, April 5, 2027 at 1:45 PM \(Asia\/Kathmandu\)/);
    assert.match(confirmation.html, /Host&#39;s time: Monday, April 5, 2027 at 9:00 AM \(Europe\/London\)/);
    assert.match(confirmation.html, new RegExp(`id="meeting-link" href="${made.meetingUrl.replace(/[.?]/g, '\\$&')}"`));
    assert.match(confirmation.html, /dates=20270405T080000Z%2F20270405T083000Z/, 'the Google Calendar link');
    assert.match(confirmation.html, /data-type="bookingSuccessful"/);
    const ics = await client.get(`/booking/${uid}/ics`);
    assert.equal(ics.status, 200);
    assert.equal(ics.headers.get('content-type'), 'text/calendar; charset=utf-8');
    assert.match(ics.html, /DTSTART:20270405T080000Z/);
    assert.match(ics.html, /SUMMARY:Intro call/);
  });

  test('a refused form keeps the answers and shows the API\'s message; the same form sent twice books once', async () => {
    const client = web();
    const { form } = await pickFirstTime(client, pagePath(), 'UTC', '2027-04-06');
    const { action, hidden } = formOf(form.html);
    const refused = await client.post(action, { ...hidden, name: 'No Topic', email: 'no.topic@example.com', 'f-company': 'Kept Inc' });
    assert.equal(refused.status, 400, refused.html);
    assert.match(refused.html, /role="alert">The booking was not made: [^<]*topic/);
    assert.match(refused.html, /name="f-company" value="Kept Inc"/, 'the answers are kept');

    const again = formOf(refused.html);
    const answers = { ...again.hidden, name: 'Twice', email: 'twice@example.com', 'f-topic': 'Sales' };
    const first = await client.post(again.action, answers);
    const second = await client.post(again.action, answers);
    assert.equal(first.status, 303, first.html);
    assert.equal(second.location, first.location, 'the idempotency key of the form: one booking');
    const listed = await api.request('GET', '/v2/bookings?attendeeEmail=twice@example.com', { key: host.apiKey, version: BOOKINGS_VERSION });
    assert.equal(listed.body.data.length, 1);
  });

  test('a time taken between load and submit: a clear message and the times still free', async () => {
    const client = web();
    const { first, form } = await pickFirstTime(client, pagePath(), 'UTC', '2027-04-07');
    const { action, hidden } = formOf(form.html);
    await booked(api, { eventTypeId: eventType.id, start: hidden.slot!, bookingFieldsResponses: { topic: 'Sales' } });
    const late = await client.post(action, { ...hidden, name: 'Late', email: 'late@example.com', 'f-topic': 'Sales' });
    assert.ok(late.status === 409 || late.status === 400, `${late.status}`);
    assert.match(late.html, /role="alert">That time was taken a moment ago/);
    const times = linksOf(late.html, /\d:\d\d/).map((link) => link.text);
    assert.ok(times.length > 0, 'fresh times are shown');
    assert.ok(!times.includes(first.text), `${first.text} is no longer offered: ${times.join(', ')}`);
  });

  test('the mailed links: the booking, its reschedule picker (same slot rules) and its cancel form', async () => {
    const made = await booked(api, { eventTypeId: eventType.id, start: '2027-04-08T10:00:00.000Z', attendee: { name: 'Mo Mail', email: 'mo.mail@example.com', timeZone: 'America/St_Johns' }, bookingFieldsResponses: { topic: 'Sales' } });
    await eventually(async () => smtp.to('mo.mail@example.com').length > 0, 10_000);
    const text = smtp.to('mo.mail@example.com').at(-1)!.email.text!;
    const reschedule = /Reschedule: (\S+)/.exec(text)![1]!;
    const cancel = /Cancel: (\S+)/.exec(text)![1]!;
    assert.equal(reschedule, `${api.baseUrl}/reschedule/${made.uid}`);

    const client = web();
    const shown = await client.get(`/booking/${made.uid}`);
    assert.match(shown.html, /Your time: Thursday, April 8, 2027 at 7:30 AM \(America\/St_Johns\)/, 'the attendee\'s zone when none is asked');
    const picker = await client.get(reschedule);
    assert.equal(picker.status, 200, picker.html);
    assert.match(picker.html, /<h1>Reschedule: Intro call<\/h1>/);
    assert.match(picker.html, /Currently booked for Thursday, April 8, 2027 at 7:30 AM \(America\/St_Johns\)/);
    const { form } = await pickFirstTime(client, `/reschedule/${made.uid}`, 'America/St_Johns', '2027-04-09');
    assert.match(form.html, /<label for="rescheduleReason">/);
    assert.doesNotMatch(form.html, /id="email"|id="f-topic"/, 'moving a booking asks only why');
    const { action, hidden } = formOf(form.html);
    const moved = await client.post(action, { ...hidden, rescheduleReason: 'A clash' });
    assert.equal(moved.status, 303, moved.html);
    assert.match(moved.location!, /rescheduled=1/);
    const newUid = moved.location!.split('/')[2]!.split('?')[0]!;
    assert.notEqual(newUid, made.uid);
    const after = (await api.request('GET', `/v2/bookings/${newUid}`, { version: BOOKINGS_VERSION })).body.data;
    assert.equal(after.start, '2027-04-09T08:00:00.000Z');
    assert.equal(after.reschedulingReason, 'A clash');
    assert.match((await client.get(moved.location!)).html, /<h1>This meeting was rescheduled<\/h1>/);

    // The old booking's cancel link now says it is gone; the new one is cancelled from its own page.
    const cancelPath = cancel.replace(api.baseUrl, '').replace(made.uid, newUid);
    const cancelForm = await client.get(cancelPath);
    assert.match(cancelForm.html, /<h2 id="cancel-heading">Cancel this meeting<\/h2>/);
    const cancelled = await client.post(`/booking/${newUid}/cancel`, { cancellationReason: 'Plans changed' });
    assert.equal(cancelled.status, 303, cancelled.html);
    const gone = await client.get(cancelled.location!);
    assert.match(gone.html, /<h1>This meeting is cancelled<\/h1>/);
    assert.doesNotMatch(gone.html, /id="reschedule-link"|id="cancel-link"/);
    assert.match(gone.html, /data-type="bookingCancelled"/);
    const state = (await api.request('GET', `/v2/bookings/${newUid}`, { version: BOOKINGS_VERSION })).body.data;
    assert.deepEqual([state.status, state.cancellationReason], ['cancelled', 'Plans changed']);
    assert.equal((await client.get(`/reschedule/${newUid}`)).status, 410);
  });

  test("a cancellation the event type refuses: the API's message above the cancel form, the booking kept", async () => {
    const locked = await createEventType(api, host, { title: 'Fixed call', lengthInMinutes: 30, disableCancelling: { disabled: true } });
    const made = await booked(api, { eventTypeId: locked.id, start: '2027-04-13T10:00:00.000Z' });
    const refused = await web().post(`/booking/${made.uid}/cancel`, { cancellationReason: 'Please' });
    assert.ok(refused.status >= 400 && refused.status < 500, `${refused.status}`);
    assert.match(refused.html, /role="alert">Nothing was changed: This event type does not allow cancellations/);
    assert.match(refused.html, /<h2 id="cancel-heading">Cancel this meeting<\/h2>/, 'the form is shown again');
    const state = (await api.request('GET', `/v2/bookings/${made.uid}`, { version: BOOKINGS_VERSION })).body.data;
    assert.equal(state.status, 'accepted');
  });

  test('requires confirmation: the confirmation says it waits for the host', async () => {
    const confirmed = await createEventType(api, host, { title: 'Vetted call', lengthInMinutes: 30, confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: true } });
    const client = web();
    const { form } = await pickFirstTime(client, `/${host.username}/${confirmed.slug}`, 'UTC', '2027-04-12');
    const { action, hidden } = formOf(form.html);
    const sent = await client.post(action, { ...hidden, name: 'Val', email: 'val@example.com' });
    assert.equal(sent.status, 303, sent.html);
    const page = await client.get(sent.location!);
    assert.match(page.html, /<h1>Your request was sent<\/h1>/);
    assert.match(page.html, /Waiting for the host to confirm/);
  });

  test('seats left on a seated type; a length to choose on a variable-length type; a declined request says so', async () => {
    const WEDNESDAY = '2027-04-14';
    const seated = await createEventType(api, host, { title: 'Class', lengthInMinutes: 30, seats: { seatsPerTimeSlot: 3, showAttendeeInfo: false, showAvailabilityCount: true } });
    await booked(api, { eventTypeId: seated.id, start: `${WEDNESDAY}T08:00:00.000Z`, attendee: { name: 'Seat One', email: 'seat.one@example.com', timeZone: 'UTC' } });
    const classDay = await web().get(`/${host.username}/${seated.slug}?tz=UTC&month=2027-04&date=${WEDNESDAY}`);
    assert.match(classDay.html, />8:00 AM · 2 seats left<\/a>/);
    assert.match(classDay.html, />8:30 AM · 3 seats left<\/a>/);

    const flexible = await createEventType(api, host, { title: 'Flexible', lengthInMinutes: 30, lengthInMinutesOptions: [30, 60] });
    const client = web();
    const thirty = await client.get(`/${host.username}/${flexible.slug}?tz=UTC&month=2027-04&date=${WEDNESDAY}`);
    assert.match(thirty.html, /<select id="duration" name="duration"><option value="30" selected>30 min<\/option><option value="60">60 min<\/option><\/select>/);
    const hour = await client.get(`/${host.username}/${flexible.slug}?tz=UTC&month=2027-04&date=${WEDNESDAY}&duration=60`);
    assert.ok(linksOf(hour.html, /\d:\d\d/).length < linksOf(thirty.html, /\d:\d\d/).length, 'fewer hour-long times fit the day');
    const [last] = linksOf(hour.html, /\d:\d\d/).slice(-1);
    assert.equal(last!.text, '3:00 PM', 'the last hour ends at 16:00 UTC (17:00 London)');
    const form = await client.get(last!.href);
    const { action, hidden } = formOf(form.html);
    const sent = await client.post(action, { ...hidden, name: 'Long', email: 'long@example.com' });
    assert.equal(sent.status, 303, sent.html);
    const made = (await api.request('GET', `/v2/bookings/${sent.location!.split('/')[2]!.split('?')[0]}`, { version: BOOKINGS_VERSION })).body.data;
    assert.deepEqual([made.start, made.duration], [`${WEDNESDAY}T15:00:00.000Z`, 60]);

    const vetted = await createEventType(api, host, { title: 'Vetted', lengthInMinutes: 30, confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: true } });
    const request = await booked(api, { eventTypeId: vetted.id, start: `${WEDNESDAY}T12:00:00.000Z` });
    const declined = await api.request('POST', `/v2/bookings/${request.uid}/decline`, { key: host.apiKey, version: BOOKINGS_VERSION, body: { reason: 'Fully booked' } });
    assert.equal(declined.status, 200, declined.text);
    const page = await web().get(`/booking/${request.uid}`);
    assert.match(page.html, /The host declined this booking\./);
    assert.doesNotMatch(page.html, /id="cancel-link"/);
  });

  test("a round-robin team event type books one of its hosts from /team/{team}/{slug}", async () => {
    const members = [await createHost(api, 'Europe/London'), await createHost(api, 'Europe/London')];
    const { team, eventType: teamType } = await createTeamWithEventType(api, members, { title: 'Support rota', lengthInMinutes: 30, schedulingType: 'roundRobin' });
    const client = web();
    const { day, form } = await pickFirstTime(client, `/team/${team.slug}/${teamType.slug}`, 'Asia/Kolkata');
    assert.match(day.html, /<h1>Support rota<\/h1>/);
    assert.match(day.html, new RegExp(`With ${team.name}`));
    const { action, hidden } = formOf(form.html);
    const sent = await client.post(action, { ...hidden, name: 'Ria', email: 'ria@example.com' });
    assert.equal(sent.status, 303, sent.html);
    const uid = sent.location!.split('/')[2]!.split('?')[0]!;
    const made = (await api.request('GET', `/v2/bookings/${uid}`, { version: BOOKINGS_VERSION })).body.data;
    assert.equal(made.start, `${MONDAY}T08:00:00.000Z`);
    assert.ok(members.some((member) => member.userId === made.hosts[0].id));
  });

  test('a hidden event type is refused; a private link shows it until it expires', async () => {
    const hidden = await createEventType(api, host, { title: 'Secret call', lengthInMinutes: 30, hidden: true });
    const refused = await web().get(`/${host.username}/${hidden.slug}?month=2027-04`);
    assert.equal(refused.status, 404);
    assert.match(refused.html, /not open for booking/);
    const link = (await api.request('POST', `/v2/event-types/${hidden.id}/private-links`, { key: host.apiKey, body: { maxUsageCount: 1 } })).body.data;
    const client = web();
    const { form } = await pickFirstTime(client, `/d/${link.linkId}/${hidden.slug}`, 'UTC');
    const { action, hidden: fields } = formOf(form.html);
    const sent = await client.post(action, { ...fields, name: 'Lin', email: 'lin@example.com' });
    assert.equal(sent.status, 303, sent.html);
    const used = await web().get(`/d/${link.linkId}/${hidden.slug}?month=2027-04`);
    assert.equal(used.status, 404, 'used up');
    assert.match(used.html, /expired, has been used up/);
    const expired = (await api.request('POST', `/v2/event-types/${hidden.id}/private-links`, { key: host.apiKey, body: { expiresAt: '2020-01-01T00:00:00Z' } })).body.data;
    assert.equal((await web().get(`/d/${expired.linkId}/${hidden.slug}`)).status, 404);
  });

  test('framing follows SVC_EMBED_ORIGINS; the day\'s times alone for the script; svc\'s own paths keep their JSON 404', async () => {
    const page = await web().get(`${pagePath()}?month=2027-04&tz=UTC`);
    assert.match(page.headers.get('content-security-policy')!, /frame-ancestors https:\/\/shop\.example http:\/\/localhost:3000;/);
    assert.match(page.headers.get('content-security-policy')!, /script-src 'self';/);
    assert.equal(page.headers.get('x-frame-options'), null);
    const script = /<script src="([^"]+)" defer>/.exec(page.html)![1]!;
    const served = await web().get(script);
    assert.equal(served.status, 200);
    assert.match(served.headers.get('content-type')!, /^text\/javascript/);
    assert.match(served.html, /postMessage/);
    const login = await web().get('/auth/login');
    assert.equal(login.headers.get('x-frame-options'), 'DENY', 'other pages are never framed');

    const partial = await web().get(`${pagePath()}?month=2027-04&date=${MONDAY}&tz=UTC&partial=day`);
    assert.equal(partial.status, 200);
    assert.match(partial.html, /^<h2 id="day-heading">Times on Monday, April 5, 2027<\/h2>/);
    assert.doesNotMatch(partial.html, /<html/);

    const apiMiss = await api.request('GET', '/v2/no-such-thing');
    assert.equal(apiMiss.status, 404);
    assert.equal(apiMiss.body.error.details.reason, 'route_not_found');
    assert.equal((await web().get(`/${host.username}/no-such-type`)).status, 404);
    assert.equal((await web().get('/nobody-at-all/call')).status, 404);
  });
});

describe(`booking pages under the API's rules (${backend})`, () => {
  let api: TestApp;
  let host: Host;
  before(async () => {
    api = await createTestApp({ RATE_LIMIT_ANONYMOUS_SLOTS: '3' });
    host = await createHost(api, 'UTC');
  });
  after(() => api?.close());

  test("a phone field is the attendee's number, checked as the API checks it", async () => {
    const eventType = await createEventType(api, host, { title: 'Call me', lengthInMinutes: 30, bookingFields: [{ type: 'phone', slug: 'attendeePhoneNumber', label: 'Phone', required: true }] });
    const client = new WebClient(api.baseUrl);
    const form = await client.get(`/${host.username}/${eventType.slug}?tz=UTC&slot=2027-04-05T09:00:00Z`);
    assert.match(form.html, /<input type="tel" id="f-attendeePhoneNumber" name="f-attendeePhoneNumber" value="" required/);
    const { action, hidden } = formOf(form.html);
    const wrong = await client.post(action, { ...hidden, name: 'Phil', email: 'phil@example.com', 'f-attendeePhoneNumber': '555-0100' });
    assert.equal(wrong.status, 400, wrong.html);
    assert.match(wrong.html, /role="alert">The booking was not made: [^<]*phoneNumber/);
    const right = await client.post(action, { ...hidden, name: 'Phil', email: 'phil@example.com', 'f-attendeePhoneNumber': '+14155550100' });
    assert.equal(right.status, 303, right.html);
    const made = (await api.request('GET', `/v2/bookings/${right.location!.split('/')[2]!.split('?')[0]}`, { version: BOOKINGS_VERSION })).body.data;
    assert.equal(made.attendees[0].phoneNumber, '+14155550100');
  });

  test("the visitor's slot reads count against the anonymous slots limit, as their own API calls would", async () => {
    const eventType = await createEventType(api, host, { title: 'Limited', lengthInMinutes: 30 });
    const client = new WebClient(api.baseUrl);
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1) statuses.push((await client.get(`/${host.username}/${eventType.slug}?tz=UTC&month=2027-04`)).status);
    assert.ok(statuses.includes(429), `the page answers 429 once the slots limit is spent: ${statuses.join(', ')}`);
    assert.equal(statuses[0], 200);
  });
});
