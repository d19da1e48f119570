import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cancelBookings } from '../support/bookings.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertError, assertNamesField, createEventType, createHost, type Host } from '../slots/helpers.js';
import { booked, BOOKINGS_VERSION, getBooking } from './helpers.js';

describe('GET /v2/bookings (svc-api-version 2024-08-13)', () => {
  let api: TestApp;
  let now = Date.parse('2027-01-01T12:00:00Z');
  let host: Host;
  let other: Host;
  let plain: any;
  let pending: any;
  const uids: Record<string, string> = {};
  const list = async (query: string, key = host.apiKey) => {
    const response = await api.request('GET', `/v2/bookings${query}`, { key, version: BOOKINGS_VERSION });
    assert.equal(response.status, 200, response.text);
    return response.body;
  };
  const uidsOf = (body: any) => body.data.map((booking: any) => booking.uid);

  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    host = await createHost(api, 'America/New_York');
    other = await createHost(api, 'America/New_York', { email: 'ann.attendee@example.com' });
    plain = await createEventType(api, host);
    pending = await createEventType(api, host, { confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: false } });
    // Made in this order while "now" is Jan 1; the clock then moves to Jan 6 12:00Z.
    uids.past = (await booked(api, { eventTypeId: plain.id, start: '2027-01-04T15:00:00Z' })).uid;
    uids.cancelled = (await booked(api, { eventTypeId: plain.id, start: '2027-01-05T15:00:00Z' })).uid;
    uids.upcoming = (await booked(api, { eventTypeId: plain.id, start: '2027-01-07T15:00:00Z', attendee: { name: 'Ann Attendee', email: 'ann.attendee@example.com', timeZone: 'UTC' } })).uid;
    uids.later = (await booked(api, { eventTypeId: plain.id, start: '2027-01-08T16:00:00Z' })).uid;
    uids.unconfirmed = (await booked(api, { eventTypeId: pending.id, start: '2027-01-11T15:00:00Z' })).uid;
    await cancelBookings(api, host.userId, { uids: [uids.cancelled!] });
    now = Date.parse('2027-01-06T12:00:00Z');
  });
  after(() => api.close());

  test('lists the organizer\'s bookings with the pagination object', async () => {
    const body = await list('');
    assert.deepEqual(uidsOf(body), [uids.past, uids.cancelled, uids.upcoming, uids.later, uids.unconfirmed]);
    assert.deepEqual(body.pagination, { totalItems: 5, remainingItems: 0, returnedItems: 5, itemsPerPage: 100, currentPage: 1, totalPages: 1, hasNextPage: false, hasPreviousPage: false });
  });

  test('status filters: upcoming, past, cancelled, unconfirmed, and several at once', async () => {
    assert.deepEqual(uidsOf(await list('?status=upcoming')), [uids.upcoming, uids.later, uids.unconfirmed]);
    assert.deepEqual(uidsOf(await list('?status=past')), [uids.past]);
    assert.deepEqual(uidsOf(await list('?status=cancelled')), [uids.cancelled]);
    assert.deepEqual(uidsOf(await list('?status=unconfirmed')), [uids.unconfirmed]);
    assert.deepEqual(uidsOf(await list('?status=past,cancelled&sortStart=asc')), [uids.past, uids.cancelled]);
    assertNamesField(await api.request('GET', '/v2/bookings?status=soon', { key: host.apiKey, version: BOOKINGS_VERSION }), 'status');
  });

  test('attendee, event type, time and uid filters', async () => {
    assert.deepEqual(uidsOf(await list('?attendeeEmail=ANN.attendee@example.com')), [uids.upcoming]);
    assert.deepEqual(uidsOf(await list('?attendeeName=Ann%20Attendee')), [uids.upcoming]);
    assert.deepEqual(uidsOf(await list(`?eventTypeIds=${pending.id}`)), [uids.unconfirmed]);
    assert.deepEqual(uidsOf(await list(`?eventTypeId=${plain.id}&afterStart=2027-01-07T15:00:00Z&beforeEnd=2027-01-08T17:00:00Z`)), [uids.upcoming, uids.later]);
    assert.deepEqual(uidsOf(await list(`?bookingUid=${uids.later}`)), [uids.later]);
  });

  // The reference's input service passes `eventTypeIds: queryParams.eventTypeIds || (queryParams.eventTypeId ?
  // [queryParams.eventTypeId] : undefined)`, and its handler's getEventTypeIdsFromEventTypeIdsFilter answers
  // BAD_REQUEST "The requested event-types do not exist." when none of them is an event type (its team-bookings
  // e2e spec: `?teamId=...&eventTypeId=90909` is a 400).
  test('eventTypeIds wins over eventTypeId; event types none of which exists are a 400; an empty list names the field', async () => {
    assert.deepEqual(uidsOf(await list(`?eventTypeIds=${pending.id}&eventTypeId=${plain.id}`)), [uids.unconfirmed]);
    const unknown = await api.request('GET', '/v2/bookings?eventTypeId=2000000000', { key: host.apiKey, version: BOOKINGS_VERSION });
    assertError(unknown, 400, 'BadRequestException', 'The requested event-types do not exist.');
    assert.equal(unknown.body.error.details.reason, 'event_types_not_found');
    assertError(await api.request('GET', '/v2/bookings?eventTypeIds=2000000000,2000000001', { key: host.apiKey, version: BOOKINGS_VERSION }), 400, 'BadRequestException', 'The requested event-types do not exist.');
    // One that exists is enough (another user's: the list is still the caller's).
    const others = await createEventType(api, other);
    assert.deepEqual(uidsOf(await list(`?eventTypeIds=2000000000,${others.id}`)), []);
    assertNamesField(await api.request('GET', '/v2/bookings?eventTypeIds=', { key: host.apiKey, version: BOOKINGS_VERSION }), 'eventTypeIds');
  });

  // The reference validates these filters with @IsDateString({ strict: true }): any strict ISO 8601
  // value, a bare date included (get-bookings.input.ts, 2024-08-13).
  test('date filters take a bare date or a date-time without an offset (read as UTC); anything else names the field', async () => {
    assert.deepEqual(uidsOf(await list('?afterStart=2027-01-07&beforeEnd=2027-01-09')), [uids.upcoming, uids.later]);
    assert.deepEqual(uidsOf(await list('?afterStart=2027-01-07T15:30&beforeEnd=2027-01-09')), [uids.later]);
    assert.deepEqual(uidsOf(await list('?afterCreatedAt=2020-01-01&beforeCreatedAt=2099-12-31&afterUpdatedAt=2020-01-01&beforeUpdatedAt=2099-12-31')).length, 5);
    for (const field of ['afterStart', 'beforeEnd', 'afterCreatedAt', 'beforeCreatedAt', 'afterUpdatedAt', 'beforeUpdatedAt']) {
      assertNamesField(await api.request('GET', `/v2/bookings?${field}=2027-02-30`, { key: host.apiKey, version: BOOKINGS_VERSION }), field);
    }
  });

  test('sorting and paging', async () => {
    assert.deepEqual(uidsOf(await list('?sortStart=desc&take=2')), [uids.unconfirmed, uids.later]);
    const page = await list('?sortStart=desc&take=2&skip=2');
    assert.deepEqual(uidsOf(page), [uids.upcoming, uids.cancelled]);
    assert.deepEqual(page.pagination, { totalItems: 5, remainingItems: 1, returnedItems: 2, itemsPerPage: 2, currentPage: 2, totalPages: 3, hasNextPage: true, hasPreviousPage: true });
    // Past the last page no row carries the count: it is still the list's.
    const beyond = await list('?sortStart=desc&take=2&skip=10');
    assert.deepEqual(uidsOf(beyond), []);
    assert.equal(beyond.pagination.totalItems, 5);
    assert.equal(beyond.pagination.returnedItems, 0);
    assertNamesField(await api.request('GET', '/v2/bookings?take=251', { key: host.apiKey, version: BOOKINGS_VERSION }), 'take');
  });

  test('a user sees what they organize or attend (by email), never anyone else\'s bookings', async () => {
    assert.deepEqual(uidsOf(await list('', other.apiKey)), [uids.upcoming]);
    const stranger = await createHost(api, 'UTC');
    assert.deepEqual(uidsOf(await list('', stranger.apiKey)), []);
    assertError(await api.request('GET', '/v2/bookings', { version: BOOKINGS_VERSION }), 401, 'UnauthorizedException');
  });

  test('GET one by uid is open to whoever holds the uid, as in the reference', async () => {
    const read = await getBooking(api, uids.cancelled!);
    assert.equal(read.status, 200);
    assert.equal(read.body.data.status, 'cancelled');
  });
});
