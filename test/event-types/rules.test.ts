import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { assertNamesField, create, created, patch, V } from './helpers.js';

const ALWAYS = { type: 'always', blockUnconfirmedBookingsInBooker: false };
const SEATS = { seatsPerTimeSlot: 4, showAttendeeInfo: true, showAvailabilityCount: true };
const TWO_LOCATIONS = [{ type: 'integration', integration: 'svc-video' }, { type: 'attendeePhone' }];

/** [rule, create-body fields, the field the 400 must name]. */
const CREATE_CASES: [string, Record<string, unknown>, string][] = [
  ['lengthInMinutes is at least 1', { lengthInMinutes: 0 }, 'lengthInMinutes'],
  ['lengthInMinutes is a number, not text', { lengthInMinutes: '30' }, 'lengthInMinutes'],
  ['title is not empty', { title: '' }, 'title'],
  ['slug needs a letter or digit', { slug: '!!!' }, 'slug'],
  ['lengthInMinutesOptions must contain lengthInMinutes', { lengthInMinutes: 30, lengthInMinutesOptions: [15, 60] }, 'lengthInMinutesOptions'],
  ['lengthInMinutesOptions has no repeats', { lengthInMinutesOptions: [30, 30] }, 'lengthInMinutesOptions'],
  ['slotInterval is at least 1', { slotInterval: 0 }, 'slotInterval'],
  ['minimumBookingNotice is not negative', { minimumBookingNotice: -1 }, 'minimumBookingNotice'],
  ['beforeEventBuffer is not negative', { beforeEventBuffer: -5 }, 'beforeEventBuffer'],
  ['afterEventBuffer is an integer', { afterEventBuffer: 2.5 }, 'afterEventBuffer'],
  ['offsetStart is not negative', { offsetStart: -1 }, 'offsetStart'],
  ['scheduleId is an id', { scheduleId: 'work' }, 'scheduleId'],
  ['hidden is a boolean', { hidden: 'yes' }, 'hidden'],
  ['interfaceLanguage only from spec 2.1.3', { interfaceLanguage: 'xx' }, 'interfaceLanguage'],
  ['interfaceLanguage is case-sensitive', { interfaceLanguage: 'pt-br' }, 'interfaceLanguage'],
  ['customName uses only documented variables', { customName: '{Event type title} with {Favourite colour}' }, 'customName'],
  ['successRedirectUrl must be a URL', { successRedirectUrl: 'not a url' }, 'successRedirectUrl'],
  ['successRedirectUrl must be http(s)', { successRedirectUrl: 'ftp://example.com/x' }, 'successRedirectUrl'],
  ['color is hex', { color: { lightThemeHex: 'red', darkThemeHex: '#000' } }, 'color.lightThemeHex'],
  ['color hex has 3 or 6 digits', { color: { lightThemeHex: '#fff', darkThemeHex: '#12345' } }, 'color.darkThemeHex'],
  ['color needs both themes', { color: { lightThemeHex: '#fff' } }, 'color.darkThemeHex'],
  ['bookerLayouts default is one of the enabled', { bookerLayouts: { defaultLayout: 'week', enabledLayouts: ['month'] } }, 'bookerLayouts.defaultLayout'],
  ['bookerLayouts are month, week or column', { bookerLayouts: { defaultLayout: 'month', enabledLayouts: ['month', 'day'] } }, 'bookerLayouts.enabledLayouts.1'],
  ['bookingWindow type is businessDays, calendarDays or range', { bookingWindow: { type: 'weeks', value: 5 } }, 'bookingWindow.type'],
  ['bookingWindow needs a type unless disabled', { bookingWindow: { value: 5 } }, 'bookingWindow.type'],
  ['bookingWindow days need a value', { bookingWindow: { type: 'calendarDays', rolling: true } }, 'bookingWindow.value'],
  ['bookingWindow days are a number', { bookingWindow: { type: 'businessDays', value: ['2030-01-01', '2030-01-02'] } }, 'bookingWindow.value'],
  ['bookingWindow range is two dates', { bookingWindow: { type: 'range', value: 5 } }, 'bookingWindow.value'],
  ['bookingWindow range dates are real', { bookingWindow: { type: 'range', value: ['2030-02-30', '2030-03-01'] } }, 'bookingWindow.value'],
  ['bookingWindow range starts before it ends', { bookingWindow: { type: 'range', value: ['2030-09-09', '2030-09-05'] } }, 'bookingWindow.value'],
  ['bookingLimitsCount values are at least 1', { bookingLimitsCount: { day: 0 } }, 'bookingLimitsCount.day'],
  ['bookingLimitsCount day cannot exceed week', { bookingLimitsCount: { day: 5, week: 3 } }, 'bookingLimitsCount.day'],
  ['bookingLimitsDuration values are multiples of 15', { bookingLimitsDuration: { day: 20 } }, 'bookingLimitsDuration.day'],
  ['bookingLimitsDuration values are at least 15', { bookingLimitsDuration: { week: 0 } }, 'bookingLimitsDuration.week'],
  ['bookingLimitsDuration month cannot exceed year', { bookingLimitsDuration: { month: 600, year: 300 } }, 'bookingLimitsDuration.month'],
  ['bookerActiveBookingsLimit needs maximumActiveBookings', { bookerActiveBookingsLimit: { offerReschedule: true } }, 'bookerActiveBookingsLimit.maximumActiveBookings'],
  ['confirmationPolicy type is always or time', { confirmationPolicy: { type: 'sometimes', blockUnconfirmedBookingsInBooker: true } }, 'confirmationPolicy.type'],
  ['confirmationPolicy time needs noticeThreshold', { confirmationPolicy: { type: 'time', blockUnconfirmedBookingsInBooker: true } }, 'confirmationPolicy.noticeThreshold'],
  ['confirmationPolicy needs blockUnconfirmedBookingsInBooker', { confirmationPolicy: { type: 'always' } }, 'confirmationPolicy.blockUnconfirmedBookingsInBooker'],
  ['confirmationPolicy threshold unit is minutes or hours', { confirmationPolicy: { type: 'time', noticeThreshold: { unit: 'days', count: 1 }, blockUnconfirmedBookingsInBooker: true } }, 'confirmationPolicy.noticeThreshold.unit'],
  ['seats are at most 1000', { seats: { ...SEATS, seatsPerTimeSlot: 1001 } }, 'seats.seatsPerTimeSlot'],
  ['seats are at least 1', { seats: { ...SEATS, seatsPerTimeSlot: 0 } }, 'seats.seatsPerTimeSlot'],
  ['seats need every key unless disabled', { seats: { seatsPerTimeSlot: 3, showAvailabilityCount: true } }, 'seats.showAttendeeInfo'],
  ['seats need a single location', { seats: SEATS, locations: TWO_LOCATIONS }, 'seats'],
  ['seats cannot require confirmation', { seats: SEATS, confirmationPolicy: ALWAYS }, 'seats'],
  ['recurrence needs a frequency', { recurrence: { interval: 1, occurrences: 3 } }, 'recurrence.frequency'],
  ['recurrence frequency is yearly, monthly or weekly', { recurrence: { interval: 1, occurrences: 3, frequency: 'daily' } }, 'recurrence.frequency'],
  ['recurrence excludes bookerActiveBookingsLimit', { recurrence: { interval: 1, occurrences: 3, frequency: 'weekly' }, bookerActiveBookingsLimit: { maximumActiveBookings: 1 } }, 'recurrence'],
  ['disableRescheduling minutesBefore only when not disabled', { disableRescheduling: { disabled: true, minutesBefore: 30 } }, 'disableRescheduling.minutesBefore'],
  ['disableRescheduling minutesBefore is at least 1', { disableRescheduling: { minutesBefore: 0 } }, 'disableRescheduling.minutesBefore'],
  ['disableCancelling disabled is a boolean', { disableCancelling: { disabled: 'yes' } }, 'disableCancelling.disabled'],
  ['privateNoteMode is only duplicate_event', { privateNoteMode: 'append' }, 'privateNoteMode'],
  ['svcVideoSettings redirectUrlOnExit is a URL', { svcVideoSettings: { redirectUrlOnExit: 'nowhere' } }, 'svcVideoSettings.redirectUrlOnExit'],
  ['svcVideoSettings flags are booleans', { svcVideoSettings: { disableRecordingForGuests: 'no' } }, 'svcVideoSettings.disableRecordingForGuests'],
  ['locations are not empty', { locations: [] }, 'locations'],
  ['a location names a known kind', { locations: [{ type: 'teleport' }] }, 'locations.0.type'],
  ['organizersDefaultApp is for team event types only', { locations: [{ type: 'organizersDefaultApp' }] }, 'locations.0.type'],
  ['an address location needs the address', { locations: [{ type: 'address', public: true }] }, 'locations.0.address'],
  ['a link location needs public', { locations: [{ type: 'link', link: 'https://meet.example.com/x' }] }, 'locations.0.public'],
  ['a link location is http(s)', { locations: [{ type: 'link', link: 'ftp://files.example.com/x', public: true }] }, 'locations.0.link'],
  ['a phone location is E.164', { locations: [{ type: 'phone', phone: '12345', public: true }] }, 'locations.0.phone'],
  ['an integration is a known app', { locations: [{ type: 'integration', integration: 'skype' }] }, 'locations.0.integration'],
  ['an integration must be installed', { locations: [{ type: 'attendeeDefined' }, { type: 'integration', integration: 'zoom' }] }, 'locations.1.integration'],
  ['destinationCalendar must be a connected calendar', { destinationCalendar: { integration: 'google_calendar', externalId: 'me@example.com' } }, 'destinationCalendar'],
  ['useDestinationCalendarEmail needs a connected calendar', { useDestinationCalendarEmail: true }, 'useDestinationCalendarEmail'],
  ['calendarInvites modes are inherit, standard or custom', { calendarInvites: { host: { mode: 'fancy' } } }, 'calendarInvites.host.mode'],
  ['calendarInvites templates are at most 5000 characters', { calendarInvites: { guest: { mode: 'custom', template: 'x'.repeat(5001) } } }, 'calendarInvites.guest.template'],
];

describe('event types: each rule answers 400 naming the field', () => {
  let api: TestApp;
  let key: string;
  before(async () => {
    api = await createTestApp();
    key = (await api.createUser()).apiKey;
  });
  after(() => api.close());

  for (const [rule, fields, property] of CREATE_CASES) {
    test(rule, async () => assertNamesField(await create(api, key, fields), property, rule));
  }

  test('the required fields are named together, and a refused create writes nothing', async () => {
    const { apiKey } = await api.createUser();
    const response = await api.request('POST', '/v2/event-types', { key: apiKey, version: V, body: {} });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body.error.details.errors.map((error: { property: string }) => error.property).sort(), ['lengthInMinutes', 'slug', 'title']);
    await create(api, apiKey, { seats: SEATS, locations: TWO_LOCATIONS });
    assert.deepEqual((await api.request('GET', '/v2/event-types', { key: apiKey, version: V })).body.data, []);
  });

  test('an uninstalled conferencing app, or one svc cannot install, is refused with a clear message naming the location', async () => {
    const uninstalled = await create(api, key, { locations: [{ type: 'address', address: 'Here', public: true }, { type: 'integration', integration: 'zoom' }] });
    assert.equal(uninstalled.status, 400);
    assert.match(uninstalled.body.error.message, /locations\.1\.integration names zoom, which you have not installed: connect Zoom first/);
    const never = await create(api, key, { locations: [{ type: 'integration', integration: 'whereby-video' }] });
    assert.equal(never.status, 400);
    assert.match(never.body.error.message, /whereby-video, which svc cannot install: use svc-video, zoom, office365-video, google-meet, or a link location/);
  });

  test('PATCH checks the rules against the stored event type and names the field it sent', async () => {
    const withOptions = await created(api, key, { lengthInMinutes: 30, lengthInMinutesOptions: [30, 60] });
    assertNamesField(await patch(api, key, withOptions.id, { lengthInMinutes: 45 }), 'lengthInMinutes', 'length outside the stored options');
    assertNamesField(await patch(api, key, withOptions.id, { lengthInMinutesOptions: [15] }), 'lengthInMinutesOptions', 'options without the stored length');
    assert.equal((await patch(api, key, withOptions.id, { lengthInMinutes: 60 })).status, 200);

    const seated = await created(api, key, { seats: SEATS });
    assertNamesField(await patch(api, key, seated.id, { locations: TWO_LOCATIONS }), 'locations', 'two locations on a seated event type');
    assertNamesField(await patch(api, key, seated.id, { confirmationPolicy: ALWAYS }), 'confirmationPolicy', 'confirmation on a seated event type');
    assert.equal((await patch(api, key, seated.id, { seats: { disabled: true }, confirmationPolicy: ALWAYS })).status, 200, 'disabling seats first allows it');

    const recurring = await created(api, key, { recurrence: { interval: 1, occurrences: 4, frequency: 'weekly' } });
    assertNamesField(await patch(api, key, recurring.id, { bookerActiveBookingsLimit: { maximumActiveBookings: 2 } }), 'bookerActiveBookingsLimit', 'active-bookings limit on a recurring event type');
    assertNamesField(await patch(api, key, recurring.id, { slug: '---' }), 'slug', 'slug without letters');
  });
});
