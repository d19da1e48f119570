import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { create, created, patch, read, V } from './helpers.js';

const DEFAULT_BOOKING_FIELDS = [
  { isDefault: true, type: 'name', slug: 'name', required: true, disableOnPrefill: false },
  { isDefault: true, type: 'email', slug: 'email', required: true, hidden: false, disableOnPrefill: false },
  { isDefault: true, type: 'radioInput', slug: 'location', required: false, hidden: false },
  { isDefault: true, type: 'text', slug: 'title', required: true, hidden: true, disableOnPrefill: false },
  { isDefault: true, type: 'textarea', slug: 'notes', required: false, hidden: false, disableOnPrefill: false },
  { isDefault: true, type: 'multiemail', slug: 'guests', required: false, hidden: false, disableOnPrefill: false },
  { isDefault: true, type: 'textarea', slug: 'rescheduleReason', required: false, hidden: false, disableOnPrefill: false },
];

describe('event types: create, read, update, delete (svc-api-version 2024-06-14)', () => {
  let api: TestApp;
  before(async () => {
    api = await createTestApp({ APP_URL: 'https://book.example.com/' });
  });
  after(() => api.close());

  test('a create with only the required fields returns the reference defaults, and GET reads the same', async () => {
    const username = `def-${Date.now()}`;
    const { user, apiKey } = await api.createUser({ username });
    const response = await create(api, apiKey, { title: 'Coffee', slug: 'coffee', lengthInMinutes: 25 });
    assert.equal(response.status, 201, response.text);
    const data = response.body.data;
    assert.deepEqual(data, {
      id: data.id,
      ownerId: user.id,
      // The reference's public booking page address: APP_URL, the owner's username, the slug.
      bookingUrl: `https://book.example.com/${username}/coffee`,
      lengthInMinutes: 25,
      lengthInMinutesOptions: [],
      title: 'Coffee',
      slug: 'coffee',
      description: '',
      locations: [{ type: 'integration', integration: 'svc-video' }],
      bookingFields: DEFAULT_BOOKING_FIELDS,
      disableGuests: false,
      slotInterval: null,
      minimumBookingNotice: 120,
      beforeEventBuffer: 0,
      afterEventBuffer: 0,
      recurrence: null,
      metadata: {},
      price: 0,
      currency: 'usd',
      lockTimeZoneToggleOnBookingPage: false,
      seatsPerTimeSlot: null,
      forwardParamsSuccessRedirect: true,
      successRedirectUrl: null,
      isInstantEvent: false,
      seatsShowAvailabilityCount: true,
      scheduleId: null,
      bookerActiveBookingsLimit: { disabled: true },
      onlyShowFirstAvailableSlot: false,
      bookingWindow: { disabled: true },
      confirmationPolicy: { disabled: true },
      requiresBookerEmailVerification: false,
      hideCalendarNotes: false,
      seats: { disabled: true },
      offsetStart: 0,
      useDestinationCalendarEmail: false,
      hideCalendarEventDetails: false,
      hideOrganizerEmail: false,
      svcVideoSettings: { sendTranscriptionEmails: true },
      hidden: false,
      bookingRequiresAuthentication: false,
      disableCancelling: { disabled: false },
      disableRescheduling: { disabled: false },
      interfaceLanguage: null,
      allowReschedulingPastBookings: false,
      allowReschedulingCancelledBookings: false,
      showOptimizedSlots: false,
      privateNoteEnabled: false,
      privateNoteMode: null,
      privateNoteTemplate: null,
      users: [{ id: user.id, name: user.name, username: user.username, avatarUrl: null, brandColor: null, darkBrandColor: null, weekStart: 'Sunday', metadata: {} }],
    });
    for (const omitted of ['bookingLimitsCount', 'bookingLimitsDuration', 'bookerLayouts', 'color', 'customName', 'destinationCalendar', 'calendarInvites']) {
      assert.ok(!(omitted in data), `${omitted} is omitted when never set`);
    }
    assert.deepEqual(await read(api, apiKey, data.id), data);
    const own = await api.request('GET', '/v2/event-types', { key: apiKey, version: V });
    assert.deepEqual(own.body.data.map((item: { id: number }) => item.id), [data.id]);
  });

  test('PATCH changes only the fields it is sent', async () => {
    const { apiKey } = await api.createUser();
    const before = await created(api, apiKey, { description: 'Before', minimumBookingNotice: 60 });
    const response = await patch(api, apiKey, before.id, { title: 'Renamed' });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data, { ...before, title: 'Renamed' });
    const bodiless = await api.request('PATCH', `/v2/event-types/${before.id}`, { key: apiKey, version: V });
    assert.deepEqual([bodiless.status, bodiless.body.data], [200, { ...before, title: 'Renamed' }]);
  });

  test('DELETE answers {id, lengthInMinutes, title, slug}; the event type is then gone', async () => {
    const { apiKey } = await api.createUser();
    const eventType = await created(api, apiKey, { title: 'Gone soon', slug: 'gone-soon', lengthInMinutes: 45 });
    const deleted = await api.request('DELETE', `/v2/event-types/${eventType.id}`, { key: apiKey, version: V });
    assert.deepEqual([deleted.status, deleted.body], [200, { status: 'success', data: { id: eventType.id, lengthInMinutes: 45, title: 'Gone soon', slug: 'gone-soon' } }]);
    const gone = await api.request('GET', `/v2/event-types/${eventType.id}`, { key: apiKey, version: V });
    assert.deepEqual([gone.status, gone.body.error.code], [404, 'NotFoundException']);
    assert.equal((await api.request('DELETE', `/v2/event-types/${eventType.id}`, { key: apiKey, version: V })).status, 404);
    assert.equal((await patch(api, apiKey, eventType.id, { title: 'x' })).status, 404);
  });

  // The reference (event-types_2024_06_14 service, checkHasUniqueSlug) answers 400 BadRequestException
  // "User already has an event type with this slug." on create and update.
  test('slugs are normalized and unique per owner (400 on create and on PATCH, as the reference), case-insensitively', async () => {
    const owner = await api.createUser();
    const other = await api.createUser();
    const first = await created(api, owner.apiKey, { slug: '  Team Sync! ' });
    assert.equal(first.slug, 'team-sync');
    const duplicate = await create(api, owner.apiKey, { slug: 'TEAM-SYNC' });
    assert.deepEqual([duplicate.status, duplicate.body.error.code, duplicate.body.error.message], [400, 'BadRequestException', 'User already has an event type with this slug.']);
    assert.equal(duplicate.body.error.details.errors[0].property, 'slug');
    assert.equal((await create(api, other.apiKey, { slug: 'team-sync' })).status, 201, 'another owner may use the slug');
    const second = await created(api, owner.apiKey, { slug: 'standup' });
    const clash = await patch(api, owner.apiKey, second.id, { slug: 'Team-Sync' });
    assert.deepEqual([clash.status, clash.body.error.code, clash.body.error.message], [400, 'BadRequestException', 'User already has an event type with this slug.']);
    assert.equal((await patch(api, owner.apiKey, first.id, { slug: 'team-sync', title: 'Same slug again' })).status, 200, 'keeping its own slug is no conflict');
    assert.equal((await read(api, owner.apiKey, second.id)).slug, 'standup');
  });

  test('scheduleId must be one of the owner\'s schedules; a deleted schedule falls back to null', async () => {
    const owner = await api.createUser();
    const other = await api.createUser();
    const schedule = (await api.request('POST', '/v2/schedules', { key: owner.apiKey, version: '2024-06-11', body: { name: 'Work', timeZone: 'Europe/Rome', isDefault: true } })).body.data;
    const foreign = (await api.request('POST', '/v2/schedules', { key: other.apiKey, version: '2024-06-11', body: { name: 'Theirs', timeZone: 'Europe/Rome', isDefault: true } })).body.data;
    const eventType = await created(api, owner.apiKey, { scheduleId: schedule.id });
    assert.equal(eventType.scheduleId, schedule.id);
    const refused = await create(api, owner.apiKey, { scheduleId: foreign.id });
    assert.deepEqual([refused.status, refused.body.error.code], [404, 'NotFoundException'], 'the reference answers a foreign schedule with 404');
    assert.equal((await patch(api, owner.apiKey, eventType.id, { scheduleId: foreign.id })).status, 404);
    assert.equal((await patch(api, owner.apiKey, eventType.id, { scheduleId: 999999 })).status, 404);
    assert.equal((await read(api, owner.apiKey, eventType.id)).scheduleId, schedule.id);
    await api.request('DELETE', `/v2/schedules/${schedule.id}`, { key: owner.apiKey, version: '2024-06-11' });
    assert.equal((await read(api, owner.apiKey, eventType.id)).scheduleId, null);
  });

  // The reference answers DELETE with 403 (the event type exists); svc answers 404 for all three, so
  // another user cannot tell an event type id in use from a free one.
  test("another user's event type: GET, PATCH and DELETE all answer 404, as for a missing one", async () => {
    const owner = await api.createUser();
    const other = await api.createUser();
    const eventType = await created(api, owner.apiKey, { title: 'Mine' });
    const get = await api.request('GET', `/v2/event-types/${eventType.id}`, { key: other.apiKey, version: V });
    assert.deepEqual([get.status, get.body.error.code], [404, 'NotFoundException']);
    const update = await patch(api, other.apiKey, eventType.id, { title: 'Stolen' });
    assert.deepEqual([update.status, update.body.error.code], [404, 'NotFoundException']);
    const remove = await api.request('DELETE', `/v2/event-types/${eventType.id}`, { key: other.apiKey, version: V });
    assert.deepEqual([remove.status, remove.body.error.code], [404, 'NotFoundException']);
    const missing = await api.request('DELETE', '/v2/event-types/999999', { key: other.apiKey, version: V });
    assert.deepEqual([missing.status, missing.body.error.message], [404, remove.body.error.message.replace(String(eventType.id), '999999')]);
    assert.deepEqual(await read(api, owner.apiKey, eventType.id), eventType, 'nothing changed');
    assert.deepEqual((await api.request('GET', '/v2/event-types', { key: other.apiKey, version: V })).body.data, []);
    assert.equal((await api.request('GET', '/v2/event-types/999999', { key: owner.apiKey, version: V })).status, 404);
  });

  test('reads and writes need credentials', async () => {
    const { apiKey } = await api.createUser();
    const eventType = await created(api, apiKey);
    for (const [method, path] of [['POST', '/v2/event-types'], ['GET', `/v2/event-types/${eventType.id}`], ['PATCH', `/v2/event-types/${eventType.id}`], ['DELETE', `/v2/event-types/${eventType.id}`]]) {
      assert.equal((await api.request(method!, path!, { version: V, body: method === 'GET' || method === 'DELETE' ? undefined : {} })).status, 401, `${method} ${path}`);
    }
  });
});
