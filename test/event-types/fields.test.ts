import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { created, patch, read } from './helpers.js';

const ALL_LOCATION_KINDS = [
  { type: 'address', address: '1 Main St, Springfield', public: true },
  { type: 'link', link: 'https://meet.example.com/room/42', public: false },
  { type: 'phone', phone: '+37120993151', public: true },
  { type: 'integration', integration: 'svc-video' },
  { type: 'attendeeAddress' },
  { type: 'attendeePhone' },
  { type: 'attendeeDefined' },
];

/** [label, field, value written on create, value written by PATCH]: each is read back unchanged. */
const ROUND_TRIPS: [string, string, unknown, unknown][] = [
  ['title', 'title', 'Coding class', 'Coding class in Italian'],
  ['lengthInMinutes', 'lengthInMinutes', 30, 50],
  ['lengthInMinutesOptions', 'lengthInMinutesOptions', [15, 30, 60], [30]],
  ['description', 'description', "Let's learn how to code like a pro.", ''],
  ['slotInterval', 'slotInterval', 15, 20],
  ['minimumBookingNotice', 'minimumBookingNotice', 0, 1440],
  ['beforeEventBuffer', 'beforeEventBuffer', 10, 0],
  ['afterEventBuffer', 'afterEventBuffer', 5, 15],
  ['offsetStart', 'offsetStart', 30, 0],
  ['hidden', 'hidden', true, false],
  ['onlyShowFirstAvailableSlot', 'onlyShowFirstAvailableSlot', true, false],
  ['showOptimizedSlots', 'showOptimizedSlots', true, false],
  ['bookingRequiresAuthentication', 'bookingRequiresAuthentication', true, false],
  ['requiresBookerEmailVerification', 'requiresBookerEmailVerification', true, false],
  ['hideCalendarNotes', 'hideCalendarNotes', true, false],
  ['lockTimeZoneToggleOnBookingPage', 'lockTimeZoneToggleOnBookingPage', true, false],
  ['useDestinationCalendarEmail (false here: true needs a connected calendar, test/calendars/destination-email.test.ts)', 'useDestinationCalendarEmail', false, false],
  ['hideCalendarEventDetails', 'hideCalendarEventDetails', true, false],
  ['hideOrganizerEmail', 'hideOrganizerEmail', true, false],
  ['allowReschedulingPastBookings', 'allowReschedulingPastBookings', true, false],
  ['allowReschedulingCancelledBookings', 'allowReschedulingCancelledBookings', true, false],
  ['privateNoteEnabled', 'privateNoteEnabled', true, false],
  ['privateNoteMode', 'privateNoteMode', 'duplicate_event', 'duplicate_event'],
  ['privateNoteTemplate', 'privateNoteTemplate', 'Call {Attendee name} about {Event type title}', 'Meet at {Location}'],
  ['interfaceLanguage', 'interfaceLanguage', 'pt-BR', ''],
  ['customName', 'customName', '{Event type title} between {Organiser} and {Scheduler}', '{HOST} meets {attendee} for {event duration}'],
  ['successRedirectUrl', 'successRedirectUrl', 'https://example.com/thanks', 'http://example.org/done?ref=svc'],
  ['color', 'color', { lightThemeHex: '#fafafa', darkThemeHex: '#292929' }, { lightThemeHex: '#abc', darkThemeHex: '#000' }],
  ['bookerLayouts', 'bookerLayouts', { defaultLayout: 'month', enabledLayouts: ['column', 'month', 'week'] }, { defaultLayout: 'column', enabledLayouts: ['column'] }],
  ['disableCancelling', 'disableCancelling', { disabled: true }, { disabled: false }],
  ['disableRescheduling', 'disableRescheduling', { disabled: true }, { disabled: false, minutesBefore: 60 }],
  ['bookingLimitsCount', 'bookingLimitsCount', { day: 2, week: 5 }, { month: 10, year: 100 }],
  ['bookingLimitsDuration', 'bookingLimitsDuration', { day: 60, week: 120 }, { month: 600 }],
  ['bookerActiveBookingsLimit', 'bookerActiveBookingsLimit', { maximumActiveBookings: 2, offerReschedule: true }, { maximumActiveBookings: 1, offerReschedule: false }],
  ['bookingWindow business and calendar days', 'bookingWindow', { type: 'businessDays', value: 5, rolling: true }, { type: 'calendarDays', value: 30, rolling: false }],
  ['bookingWindow range', 'bookingWindow', { type: 'range', value: ['2030-09-05', '2030-09-09'] }, { type: 'range', value: ['2031-01-01', '2031-01-01'] }],
  [
    'confirmationPolicy',
    'confirmationPolicy',
    { type: 'always', blockUnconfirmedBookingsInBooker: false },
    { type: 'time', noticeThreshold: { unit: 'hours', count: 12 }, blockUnconfirmedBookingsInBooker: true },
  ],
  ['seats', 'seats', { seatsPerTimeSlot: 4, showAttendeeInfo: true, showAvailabilityCount: false }, { seatsPerTimeSlot: 1000, showAttendeeInfo: false, showAvailabilityCount: true }],
  ['recurrence', 'recurrence', { interval: 2, occurrences: 10, frequency: 'weekly' }, { interval: 1, occurrences: 5, frequency: 'yearly' }],
  ['locations of every kind', 'locations', ALL_LOCATION_KINDS, [{ type: 'link', link: 'https://meet.example.com/other', public: true }]],
  ['disableGuests', 'disableGuests', true, false],
];

/** Output fields that follow another field. */
const DERIVED: Record<string, string[]> = { disableGuests: ['bookingFields'], seats: ['seatsPerTimeSlot', 'seatsShowAvailabilityCount'] };

describe('event types: every field round-trips create -> read -> update -> read', () => {
  let api: TestApp;
  let key: string;
  before(async () => {
    api = await createTestApp();
    key = (await api.createUser()).apiKey;
  });
  after(() => api.close());

  for (const [label, field, first, second] of ROUND_TRIPS) {
    test(label, async () => {
      // lengthInMinutesOptions must include the length, so the options follow the length written.
      const extra = field === 'lengthInMinutes' ? { lengthInMinutesOptions: [] } : {};
      const eventType = await created(api, key, { [field]: first, ...extra });
      assert.deepEqual(eventType[field], first, `${field} as created`);
      assert.deepEqual((await read(api, key, eventType.id))[field], first, `${field} read back`);
      const updated = await patch(api, key, eventType.id, { [field]: second });
      assert.equal(updated.status, 200, updated.text);
      assert.deepEqual(updated.body.data[field], second, `${field} as updated`);
      const reread = await read(api, key, eventType.id);
      assert.deepEqual(reread[field], second, `${field} read back after the update`);
      const derived = Object.fromEntries((DERIVED[field] ?? []).map((name) => [name, reread[name]]));
      assert.deepEqual({ ...reread, [field]: eventType[field] }, { ...eventType, ...derived }, 'nothing else changed');
    });
  }

  test('seats also set the top-level seatsPerTimeSlot and seatsShowAvailabilityCount', async () => {
    const eventType = await created(api, key, { seats: { seatsPerTimeSlot: 3, showAttendeeInfo: false, showAvailabilityCount: false } });
    assert.deepEqual([eventType.seatsPerTimeSlot, eventType.seatsShowAvailabilityCount], [3, false]);
  });

  test('svcVideoSettings: defaults when omitted, every key once set, and a PATCH merges key by key', async () => {
    const eventType = await created(api, key, { svcVideoSettings: { disableRecordingForGuests: true, redirectUrlOnExit: 'https://example.com/bye', sendTranscriptionEmails: false } });
    const full = {
      disableRecordingForOrganizer: false,
      disableRecordingForGuests: true,
      redirectUrlOnExit: 'https://example.com/bye',
      enableAutomaticRecordingForOrganizer: false,
      enableAutomaticTranscription: false,
      disableTranscriptionForGuests: false,
      disableTranscriptionForOrganizer: false,
      sendTranscriptionEmails: false,
    };
    assert.deepEqual(eventType.svcVideoSettings, full);
    assert.deepEqual((await read(api, key, eventType.id)).svcVideoSettings, full);
    const updated = await patch(api, key, eventType.id, { svcVideoSettings: { enableAutomaticTranscription: true, redirectUrlOnExit: null } });
    assert.deepEqual(updated.body.data.svcVideoSettings, { ...full, enableAutomaticTranscription: true, redirectUrlOnExit: null });
    const sendOnly = await created(api, key, { svcVideoSettings: { sendTranscriptionEmails: false } });
    assert.deepEqual(sendOnly.svcVideoSettings, { sendTranscriptionEmails: false });
  });

  test('{disabled: true} resets every "object or disabled" field to the form the reference prints', async () => {
    const eventType = await created(api, key, {
      bookingLimitsCount: { day: 1 },
      bookingLimitsDuration: { week: 90 },
      bookerActiveBookingsLimit: { maximumActiveBookings: 3 },
      bookingWindow: { type: 'calendarDays', value: 10, rolling: true },
      seats: { seatsPerTimeSlot: 2, showAttendeeInfo: true, showAvailabilityCount: true },
    });
    assert.deepEqual(eventType.bookerActiveBookingsLimit, { maximumActiveBookings: 3, offerReschedule: false }, 'offerReschedule defaults to false');
    const disabled = { disabled: true };
    const reset = await patch(api, key, eventType.id, { bookingLimitsCount: disabled, bookingLimitsDuration: disabled, bookerActiveBookingsLimit: disabled, bookingWindow: disabled, seats: disabled });
    assert.equal(reset.status, 200, reset.text);
    const other = await created(api, key, { confirmationPolicy: { type: 'always', blockUnconfirmedBookingsInBooker: true }, recurrence: { interval: 1, occurrences: 3, frequency: 'monthly' } });
    const resetOther = await patch(api, key, other.id, { confirmationPolicy: disabled, recurrence: disabled });
    assert.equal(resetOther.status, 200, resetOther.text);
    const first = await read(api, key, eventType.id);
    const second = await read(api, key, other.id);
    assert.deepEqual(
      {
        bookingLimitsCount: first.bookingLimitsCount,
        bookingLimitsDuration: first.bookingLimitsDuration,
        bookerActiveBookingsLimit: first.bookerActiveBookingsLimit,
        bookingWindow: first.bookingWindow,
        seats: first.seats,
        seatsPerTimeSlot: first.seatsPerTimeSlot,
        confirmationPolicy: second.confirmationPolicy,
        recurrence: second.recurrence,
      },
      {
        bookingLimitsCount: {},
        bookingLimitsDuration: {},
        bookerActiveBookingsLimit: disabled,
        bookingWindow: disabled,
        seats: disabled,
        seatsPerTimeSlot: null,
        confirmationPolicy: disabled,
        recurrence: null,
      },
    );
    const createdDisabled = await created(api, key, { bookingWindow: disabled, seats: disabled, confirmationPolicy: disabled, recurrence: disabled, bookingLimitsCount: disabled });
    assert.deepEqual([createdDisabled.bookingWindow, createdDisabled.seats, createdDisabled.recurrence, createdDisabled.bookingLimitsCount], [disabled, disabled, null, {}]);
  });

  test('bookingWindow rolling defaults to false; confirmation "always" drops a noticeThreshold', async () => {
    const eventType = await created(api, key, {
      bookingWindow: { type: 'businessDays', value: 7 },
      confirmationPolicy: { type: 'always', noticeThreshold: { unit: 'minutes', count: 5 }, blockUnconfirmedBookingsInBooker: true },
    });
    assert.deepEqual(eventType.bookingWindow, { type: 'businessDays', value: 7, rolling: false });
    assert.deepEqual(eventType.confirmationPolicy, { type: 'always', blockUnconfirmedBookingsInBooker: true });
  });
});
