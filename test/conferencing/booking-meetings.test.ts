// Meetings made for bookings by the job runner, over HTTP against local servers implementing Zoom's and
// Microsoft Graph's documented meeting APIs (test/support/fake-zoom.ts, fake-microsoft.ts): an event type
// names an app only once it is installed; a booking on it gets a meeting of its own whose link is the
// booking's location, in its webhook, its mail and invitation and its references; rescheduling moves the
// meeting, cancelling deletes it; a provider failure keeps the booking, tells the organizer and retries;
// disconnecting an app turns its event types to the built-in video.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FakeMicrosoft } from '../support/fake-microsoft.js';
import type { FakeZoom } from '../support/fake-zoom.js';
import { type ConferencingProviders, startConferencingProviders } from '../support/conferencing-providers.js';
import { eventually } from '../support/eventually.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { type SmtpReceiver, startSmtpReceiver } from '../mail/helpers.js';
import { type Receiver, startReceiver } from '../webhooks/helpers.js';
import { BOOKINGS_VERSION } from '../bookings/helpers.js';
import { createEventType, createHost, type Host, slotsOf, startsOf } from '../slots/helpers.js';
import { acceptMembership, createOrganization } from '../support/tenancy.js';
import { connectOAuthCalendar } from '../support/oauth-calendar-connect.js';

const APP_URL = 'https://svc.example.test';
// 2027-03-01 is a Monday; London is on UTC then.
const unfold = (ics: string) => ics.replace(/\r?\n[ \t]/g, '');
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const at = (day: number, time: string) => `2027-03-${String(day).padStart(2, '0')}T${time}:00.000Z`;

describe('meetings of bookings made by Zoom and Microsoft Teams', () => {
  let providers: ConferencingProviders;
  let microsoft: FakeMicrosoft;
  let zoom: FakeZoom;
  let smtp: SmtpReceiver;
  let hooks: Receiver;
  let api: TestApp;
  let host: Host;
  let zoomType: any;

  before(async () => {
    providers = await startConferencingProviders(APP_URL);
    ({ microsoft, zoom } = providers);
    smtp = await startSmtpReceiver();
    hooks = await startReceiver();
    api = await createTestApp({ ...providers.env, SMTP_URL: smtp.url, SVC_JOB_RETRY_BASE_MS: '100' });
    host = await createHost(api, 'Europe/London', { name: 'Ada Host', email: 'ada.meetings@example.com' });
  });
  after(async () => {
    await api?.close();
    await providers?.close();
    await smtp?.close();
    await hooks?.close();
  });

  /** The consent round trip a browser makes, ending on svc's callback. */
  async function connect(app: 'zoom' | 'msteams', key: string) {
    const answer = await api.request('GET', `/v2/conferencing/${app}/oauth/auth-url`, { key });
    assert.equal(answer.status, 200, answer.text);
    const page = await fetch(answer.body.data.url, { redirect: 'manual' });
    assert.equal(page.status, 302, await page.text());
    const callback = new URL(page.headers.get('location')!);
    const back = await fetch(`${api.baseUrl}${callback.pathname}${callback.search}`, { redirect: 'manual' });
    assert.equal(back.status, 200, await back.text());
  }

  async function book(eventTypeId: number, start: string, email: string, key?: string) {
    const response = await api.request('POST', '/v2/bookings', {
      version: BOOKINGS_VERSION,
      ...(key ? { key } : {}),
      body: { eventTypeId, start, attendee: { name: 'Bea Booker', email, timeZone: 'Asia/Kathmandu' }, guests: ['guest.of.bea@example.com'] },
    });
    assert.equal(response.status, 201, response.text);
    return response.body.data;
  }
  const getBookingOf = async (owner: Host, uid: string) => (await api.request('GET', `/v2/bookings/${uid}`, { version: BOOKINGS_VERSION, key: owner.apiKey })).body.data;
  /** The booking once its job has put a provider's link on it. */
  async function withLinkOf(owner: Host, uid: string, prefix: string) {
    let booking: any;
    await eventually(async () => {
      booking = await getBookingOf(owner, uid);
      return typeof booking.location === 'string' && booking.location.startsWith(prefix);
    }, 10_000);
    return booking;
  }
  const withLink = (uid: string, prefix: string) => withLinkOf(host, uid, prefix);
  const references = async (uid: string, key = host.apiKey) => api.request('GET', `/v2/bookings/${uid}/references`, { version: BOOKINGS_VERSION, key });
  const zoomMeetingWithLink = (link: string) => [...zoom.meetings.values()].find((meeting) => meeting.joinUrl === link);

  test('an event type names Zoom only once it is installed, and an app svc cannot install never', async () => {
    const early = await api.request('POST', '/v2/event-types', {
      key: host.apiKey,
      version: '2024-06-14',
      body: { title: 'Zoom call', slug: 'zoom-call', lengthInMinutes: 30, locations: [{ type: 'integration', integration: 'zoom' }] },
    });
    assert.equal(early.status, 400, early.text);
    assert.match(early.body.error.message, /locations\.0\.integration/);
    assert.match(early.body.error.message, /not installed/);
    const never = await api.request('POST', '/v2/event-types', {
      key: host.apiKey,
      version: '2024-06-14',
      body: { title: 'Whereby call', slug: 'whereby-call', lengthInMinutes: 30, locations: [{ type: 'integration', integration: 'whereby-video' }] },
    });
    assert.equal(never.status, 400, never.text);
    assert.match(never.body.error.message, /cannot install/);

    await connect('zoom', host.apiKey);
    zoomType = await createEventType(api, host, { title: 'Zoom call', lengthInMinutes: 30, locations: [{ type: 'integration', integration: 'zoom' }] });
    assert.deepEqual(zoomType.locations, [{ type: 'integration', integration: 'zoom' }]);
  });

  test('a booking on Zoom gets a meeting of its own: its link is the location, in the webhook, the mail, the invitation and the references', async () => {
    const hook = await api.request('POST', '/v2/webhooks', { key: host.apiKey, body: { subscriberUrl: `${hooks.url}/zoom`, active: true, triggers: ['BOOKING_CREATED'] } });
    assert.equal(hook.status, 201, hook.text);
    const created = await book(zoomType.id, at(1, '10:00'), 'bea.zoom@example.com');
    // The answer comes before the meeting: the job makes it after the booking commits (README).
    assert.equal(created.location, 'integrations:zoom');
    const second = await book(zoomType.id, at(1, '11:00'), 'bea.zoom2@example.com');

    const booking = await withLink(created.uid, 'https://');
    const meeting = zoomMeetingWithLink(booking.location);
    assert.ok(meeting, 'the link is a meeting Zoom made');
    assert.equal(booking.meetingUrl, booking.location);
    assert.equal(booking.metadata.videoCallUrl, booking.location);
    assert.equal(meeting.startTime, '2027-03-01T10:00:00Z');
    assert.equal(meeting.duration, 30);
    assert.equal(meeting.timezone, 'Europe/London');
    const other = await withLink(second.uid, 'https://');
    assert.notEqual(other.location, booking.location, 'each booking its own meeting');

    const [delivery] = await hooks.waitFor(1, 10_000, (request) => request.url.endsWith('/zoom') && request.json?.payload?.uid === created.uid);
    assert.equal(delivery!.json.triggerEvent, 'BOOKING_CREATED');
    assert.equal(delivery!.json.payload.metadata.videoCallUrl, booking.location, 'the event went out with the link');
    assert.equal(delivery!.json.payload.location, booking.location);

    await eventually(async () => smtp.to('bea.zoom@example.com').length >= 1 && smtp.to('guest.of.bea@example.com').length >= 1, 10_000);
    const [mail] = smtp.to('bea.zoom@example.com');
    assert.ok(mail!.email.text?.includes(booking.location), 'the confirmation carries the link');
    assert.equal(mail!.invitation?.location, booking.location);
    assert.match(unfold(mail!.calendarPart!.ics), new RegExp(`^URL;VALUE=URI:${escaped(booking.location)}\r?$`, 'm'), 'the link is the event URL');
    assert.doesNotMatch(mail!.calendarPart!.ics, /X-GOOGLE-CONFERENCE/, 'not a Meet link');
    assert.equal(smtp.to('bea.zoom@example.com').length, 1, 'told once, with the link');

    const listed = await references(created.uid);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.data, [{ id: listed.body.data[0].id, type: 'zoom_video', eventUid: String(meeting.id), destinationCalendarId: null }]);
    assert.deepEqual((await api.request('GET', `/v2/bookings/${created.uid}/references?type=google_video`, { version: BOOKINGS_VERSION, key: host.apiKey })).body.data, []);
    const stranger = await createHost(api, 'Europe/London');
    assert.equal((await references(created.uid, stranger.apiKey)).status, 403);
  });

  test('rescheduling moves the meeting and keeps its link; cancelling deletes it', async () => {
    const created = await book(zoomType.id, at(2, '09:00'), 'bea.moves@example.com');
    const booking = await withLink(created.uid, 'https://');
    const meetingId = String(zoomMeetingWithLink(booking.location)!.id);

    const moved = await api.request('POST', `/v2/bookings/${created.uid}/reschedule`, { version: BOOKINGS_VERSION, body: { start: at(2, '14:00') } });
    assert.equal(moved.status, 201, moved.text);
    const rescheduled = moved.body.data;
    assert.equal(rescheduled.location, booking.location, 'the same link');
    await eventually(async () => zoom.meetings.get(meetingId)?.startTime === '2027-03-02T14:00:00Z', 10_000);
    assert.deepEqual((await references(rescheduled.uid)).body.data.map((reference: any) => reference.eventUid), [meetingId]);
    assert.deepEqual((await references(created.uid)).body.data, [], 'the old booking no longer holds it');

    const cancelled = await api.request('POST', `/v2/bookings/${rescheduled.uid}/cancel`, { version: BOOKINGS_VERSION, key: host.apiKey, body: { cancellationReason: 'no longer needed' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    await eventually(async () => !zoom.meetings.has(meetingId), 10_000);
    await eventually(async () => (await references(rescheduled.uid)).body.data.length === 0, 10_000);
  });

  test('Zoom failing keeps the booking: its event goes out without a link, the organizer is told, and the retry brings the link as a location change', async () => {
    zoom.failNextMeetingCall(500);
    const created = await book(zoomType.id, at(3, '10:00'), 'bea.fails@example.com');
    const booking = await withLink(created.uid, 'https://');
    assert.ok(zoomMeetingWithLink(booking.location), 'the second attempt made it');

    const notices = () => smtp.to('ada.meetings@example.com').filter((mail) => mail.email.subject?.startsWith('No Zoom meeting yet'));
    await eventually(async () => notices().length === 1, 10_000);
    const [notice] = notices();
    assert.match(notice!.email.text ?? '', /HTTP 500/);
    assert.match(notice!.email.text ?? '', /keeps trying/);
    assert.match(notice!.email.text ?? '', new RegExp(created.uid));

    // First the booking without a link, then the change that brings it.
    await eventually(async () => smtp.to('bea.fails@example.com').length === 2, 10_000);
    const [first, second] = smtp.to('bea.fails@example.com');
    assert.ok(!first!.email.text?.includes(booking.location));
    assert.equal(first!.invitation?.location ?? null, null);
    assert.ok(second!.email.text?.includes(booking.location), 'the update carries the link');
    assert.equal(second!.invitation?.location, booking.location);
    assert.equal(second!.invitation?.uid, first!.invitation?.uid);
    assert.ok(second!.invitation!.sequence > first!.invitation!.sequence);
  });

  test('without the app any more, the booking stands, the organizer is told once and nothing retries', async () => {
    const cleo = await createHost(api, 'Asia/Kolkata', { name: 'Cleo Host', email: 'cleo.meetings@example.com' });
    await connect('zoom', cleo.apiKey);
    const type = await createEventType(api, cleo, { title: 'Cleo on Zoom', lengthInMinutes: 30, locations: [{ type: 'integration', integration: 'zoom' }] });
    // The app's tokens stop working (consent withdrawn at Zoom): the refresh fails too.
    zoom.expireAccessTokens();
    zoom.failNextToken(400, 'invalid_grant');
    const created = await book(type.id, at(4, '05:30'), 'bea.noapp@example.com');
    const notices = () => smtp.to('cleo.meetings@example.com').filter((mail) => mail.email.subject?.startsWith('No Zoom meeting yet'));
    await eventually(async () => notices().length === 1 && smtp.to('bea.noapp@example.com').length === 1, 10_000);
    assert.match(notices()[0]!.email.text ?? '', /stopped trying/);
    assert.match(notices()[0]!.email.text ?? '', /11:00 \(Asia\/Kolkata\)/);
    const apps = (await api.request('GET', '/v2/conferencing', { key: cleo.apiKey })).body.data;
    assert.equal(apps.find((app: any) => app.type === 'zoom_video').invalid, true, 'the app is marked for connecting again');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal((await getBookingOf(cleo, created.uid)).location, 'integrations:zoom');
    assert.equal(notices().length, 1);
  });

  test('Microsoft Teams: a meeting per booking, moved and deleted with it', async () => {
    await connect('msteams', host.apiKey);
    const type = await createEventType(api, host, { title: 'Teams call', lengthInMinutes: 45, locations: [{ type: 'integration', integration: 'office365-video' }] });
    const created = await book(type.id, at(5, '12:45'), 'bea.teams@example.com');
    const booking = await withLink(created.uid, 'https://teams.microsoft.example/');
    const meeting = [...microsoft.onlineMeetings.values()].find((candidate) => candidate.joinWebUrl === booking.location)!;
    assert.ok(meeting);
    assert.equal(new Date(meeting.start).toISOString(), at(5, '12:45'));
    assert.equal(new Date(meeting.end).toISOString(), at(5, '13:30'));
    assert.equal(meeting.subject, booking.title);
    assert.deepEqual((await references(created.uid)).body.data.map((reference: any) => [reference.type, reference.eventUid]), [['office365_video', meeting.id]]);

    const moved = await api.request('POST', `/v2/bookings/${created.uid}/reschedule`, { version: BOOKINGS_VERSION, body: { start: at(5, '15:00') } });
    assert.equal(moved.status, 201, moved.text);
    await eventually(async () => microsoft.onlineMeetings.get(meeting.id)?.start === Date.parse(at(5, '15:00')), 10_000);
    const cancelled = await api.request('POST', `/v2/bookings/${moved.body.data.uid}/cancel`, { version: BOOKINGS_VERSION, key: host.apiKey, body: { cancellationReason: 'ill' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    await eventually(async () => !microsoft.onlineMeetings.has(meeting.id), 10_000);
  });

  test("Google Meet: the link comes with the host's Google Calendar event; a booking awaiting confirmation gets it when confirmed", async () => {
    const gia = await createHost(api, 'Europe/London', { name: 'Gia Host', email: 'gia.meetings@example.com' });
    const early = await api.request('POST', '/v2/event-types', {
      key: gia.apiKey,
      version: '2024-06-14',
      body: { title: 'Meet', slug: 'meet-early', lengthInMinutes: 30, locations: [{ type: 'integration', integration: 'google-meet' }] },
    });
    assert.equal(early.status, 400, early.text);
    assert.match(early.body.error.message, /connect Google Meet first \(POST \/v2\/conferencing\/google-meet\/connect\)/);
    const { saved } = await connectOAuthCalendar(api, APP_URL, 'google', gia.apiKey);
    assert.ok(saved.status < 400, await saved.text());
    assert.equal((await api.request('POST', '/v2/conferencing/google-meet/connect', { key: gia.apiKey })).status, 200);
    const type = await createEventType(api, gia, { title: 'Meet call', lengthInMinutes: 30, locations: [{ type: 'integration', integration: 'google-meet' }] });

    const created = await book(type.id, at(11, '10:00'), 'bea.meet@example.com');
    assert.equal(created.location, 'integrations:google-meet');
    const booking = await withLinkOf(gia, created.uid, 'https://meet.google.com/');
    assert.equal(booking.metadata.videoCallUrl, booking.location);
    const calendarId = 'ada@gmail.example';
    const eventOf = () => providers.google.events(calendarId).find((event) => event.iCalUID === booking.icsUid && event.status !== 'cancelled');
    await eventually(async () => eventOf()?.location === booking.location, 10_000);
    assert.equal(eventOf()!.hangoutLink, booking.location, "the link is the event's own conference");
    assert.equal(providers.google.events(calendarId).filter((event) => event.iCalUID === booking.icsUid).length, 1, 'one event, written once and then updated');
    const listed = (await references(created.uid, gia.apiKey)).body.data;
    assert.deepEqual(listed.map((reference: any) => reference.type).sort(), ['google_calendar', 'google_video']);
    await eventually(async () => smtp.to('bea.meet@example.com').length === 1, 10_000);
    assert.equal(smtp.to('bea.meet@example.com')[0]!.invitation?.location, booking.location);
    assert.match(unfold(smtp.to('bea.meet@example.com')[0]!.calendarPart!.ics), new RegExp(`^X-GOOGLE-CONFERENCE:${escaped(booking.location)}\r?$`, 'm'));

    const moved = await api.request('POST', `/v2/bookings/${created.uid}/reschedule`, { version: BOOKINGS_VERSION, body: { start: at(11, '14:00') } });
    assert.equal(moved.status, 201, moved.text);
    assert.equal(moved.body.data.location, booking.location);
    await eventually(async () => eventOf()?.start?.dateTime?.startsWith('2027-03-11T14:00') === true, 10_000);
    assert.equal(eventOf()!.hangoutLink, booking.location, 'the same conference');
    const cancelled = await api.request('POST', `/v2/bookings/${moved.body.data.uid}/cancel`, { version: BOOKINGS_VERSION, key: gia.apiKey, body: { cancellationReason: 'done' } });
    assert.equal(cancelled.status, 200, cancelled.text);
    await eventually(async () => eventOf() === undefined, 10_000);

    const waiting = await createEventType(api, gia, { title: 'Meet on request', lengthInMinutes: 30, confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: true }, locations: [{ type: 'integration', integration: 'google-meet' }] });
    const requested = await book(waiting.id, at(12, '10:00'), 'bea.waits@example.com');
    assert.equal(requested.status, 'pending');
    await eventually(async () => smtp.to('bea.waits@example.com').length === 1, 10_000);
    assert.equal((await getBookingOf(gia, requested.uid)).location, 'integrations:google-meet', 'no conference while it waits');
    const made = providers.google.conferencesMade;
    assert.equal((await api.request('POST', `/v2/bookings/${requested.uid}/confirm`, { key: gia.apiKey, version: BOOKINGS_VERSION })).status, 200);
    const confirmed = await withLinkOf(gia, requested.uid, 'https://meet.google.com/');
    assert.equal(providers.google.conferencesMade, made + 1);
    await eventually(async () => smtp.to('bea.waits@example.com').some((mail) => mail.invitation?.location === confirmed.location), 10_000);
  });

  test('a seat moved into a booking of its own gets a meeting of its own; the seats that stay keep theirs', async () => {
    const seated = await createEventType(api, host, { title: 'Zoom class', lengthInMinutes: 30, seats: { seatsPerTimeSlot: 3, showAttendeeInfo: true, showAvailabilityCount: true }, locations: [{ type: 'integration', integration: 'zoom' }] });
    const first = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId: seated.id, start: at(15, '10:00'), attendee: { name: 'Ann', email: 'ann.seat@example.com', timeZone: 'UTC' } } });
    assert.equal(first.status, 201, first.text);
    const class1 = await withLink(first.body.data.uid, 'https://');
    const second = await api.request('POST', '/v2/bookings', { version: BOOKINGS_VERSION, body: { eventTypeId: seated.id, start: at(15, '10:00'), attendee: { name: 'Ben', email: 'ben.seat@example.com', timeZone: 'UTC' } } });
    assert.equal(second.status, 201, second.text);
    assert.equal(second.body.data.uid, first.body.data.uid, 'the same seated booking');
    const classMeeting = String(zoomMeetingWithLink(class1.location)!.id);

    const moved = await api.request('POST', `/v2/bookings/${first.body.data.uid}/reschedule`, { version: BOOKINGS_VERSION, body: { start: at(15, '14:00'), seatUid: second.body.data.seatUid } });
    assert.equal(moved.status, 201, moved.text);
    assert.notEqual(moved.body.data.uid, first.body.data.uid);
    assert.equal(moved.body.data.location, 'integrations:zoom', 'not the class link: its own meeting is on the way');
    const own = await withLink(moved.body.data.uid, 'https://');
    assert.notEqual(own.location, class1.location);
    assert.equal(zoomMeetingWithLink(own.location)!.startTime, '2027-03-15T14:00:00Z');
    assert.equal(zoom.meetings.get(classMeeting)?.startTime, '2027-03-15T10:00:00Z', 'the class meeting stays where it is');
    assert.equal((await getBookingOf(host, first.body.data.uid)).location, class1.location);
  });

  test('a new location deletes the meeting', async () => {
    const created = await book(zoomType.id, at(8, '10:00'), 'bea.relocates@example.com');
    const booking = await withLink(created.uid, 'https://');
    const meetingId = String(zoomMeetingWithLink(booking.location)!.id);
    const changed = await api.request('PATCH', `/v2/bookings/${created.uid}/location`, { version: BOOKINGS_VERSION, key: host.apiKey, body: { location: { type: 'address', address: '1 Main Street' } } });
    assert.equal(changed.status, 200, changed.text);
    await eventually(async () => !zoom.meetings.has(meetingId), 10_000);
  });

  test("an organization team's event type uses the team's Zoom, for a host without one of their own; a team without Zoom cannot name it", async () => {
    const { organization, owner } = await createOrganization(api);
    const sales = (await api.request('POST', `/v2/organizations/${organization.id}/teams`, { key: owner.apiKey, body: { name: `Sales ${Date.now()}` } })).body.data;
    const hostOfTeam = await createHost(api, 'UTC');
    const member = { user: { id: hostOfTeam.userId }, apiKey: hostOfTeam.apiKey };
    const joined = await api.request('POST', `/v2/organizations/${organization.id}/memberships`, { key: owner.apiKey, body: { userId: member.user.id, role: 'MEMBER', accepted: true } });
    assert.equal(joined.status, 201, joined.text);
    if (!joined.body.data.accepted) await acceptMembership(api, { ...member, user: { ...member.user, email: '', username: '' } }, `/v2/organizations/${organization.id}/memberships/${joined.body.data.id}`);
    const added = await api.request('POST', `/v2/organizations/${organization.id}/teams/${sales.id}/memberships`, { key: owner.apiKey, body: { userId: member.user.id, role: 'MEMBER', accepted: true } });
    assert.equal(added.status, 201, added.text);
    const typeBody = {
      title: 'Sales call',
      slug: `sales-${Date.now()}`,
      lengthInMinutes: 30,
      minimumBookingNotice: 0,
      schedulingType: 'COLLECTIVE',
      hosts: [{ userId: member.user.id }],
      locations: [{ type: 'integration', integration: 'zoom' }],
    };
    const typesPath = `/v2/organizations/${organization.id}/teams/${sales.id}/event-types`;
    const refused = await api.request('POST', typesPath, { key: owner.apiKey, body: typeBody });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.error.message, /locations\.0\.integration names zoom, which the team has not installed/);

    const answer = await api.request('GET', `/v2/organizations/${organization.id}/teams/${sales.id}/conferencing/zoom/oauth/auth-url`, { key: owner.apiKey });
    const page = await fetch(answer.body.data.url, { redirect: 'manual' });
    const callback = new URL(page.headers.get('location')!);
    assert.equal((await fetch(`${api.baseUrl}${callback.pathname}${callback.search}`)).status, 200);
    const created = await api.request('POST', typesPath, { key: owner.apiKey, body: typeBody });
    assert.equal(created.status, 201, created.text);

    const [start] = startsOf(await slotsOf(api, { eventTypeId: created.body.data.id, start: '2027-03-10', end: '2027-03-10', timeZone: 'UTC' }));
    const booking = await book(created.body.data.id, start!, 'bea.sales@example.com');
    let withMeeting: any;
    await eventually(async () => {
      withMeeting = (await api.request('GET', `/v2/bookings/${booking.uid}`, { version: BOOKINGS_VERSION, key: member.apiKey })).body.data;
      return withMeeting.location.startsWith('https://');
    }, 10_000);
    assert.ok(zoomMeetingWithLink(withMeeting.location), "made with the team's Zoom");
    const listed = await api.request('GET', `/v2/bookings/${booking.uid}/references`, { version: BOOKINGS_VERSION, key: member.apiKey });
    assert.deepEqual(listed.body.data.map((reference: any) => reference.type), ['zoom_video']);
  });

  test('disconnecting Zoom turns its event types to the built-in video', async () => {
    const gone = await api.request('DELETE', '/v2/conferencing/zoom/disconnect', { key: host.apiKey });
    assert.equal(gone.status, 200, gone.text);
    const type = await api.request('GET', `/v2/event-types/${zoomType.id}`, { key: host.apiKey, version: '2024-06-14' });
    assert.deepEqual(type.body.data.locations, [{ type: 'integration', integration: 'svc-video' }]);
    const created = await book(zoomType.id, at(9, '10:00'), 'bea.after@example.com');
    assert.match(created.location, /^https:\/\/meet\.jit\.si\/svc-/);
  });
});
