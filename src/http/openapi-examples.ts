/**
 * Request and response examples of the main flows, in the order a new integration makes the calls:
 * each request refers to what the previous answers created (schedule 12, event type 31, the booking
 * uids). test/foundation/openapi.test.ts sends them to a real app in this order and checks that the
 * answers have the examples' shape, and validates each against its route's schemas.
 */
export interface OperationExample {
  /** What the example does, shown by the UI next to it. */
  summary: string;
  params?: Readonly<Record<string, string | number>>;
  query?: Readonly<Record<string, string | number>>;
  body?: unknown;
  status: number;
  response: unknown;
}

/** Keyed by method and Fastify pattern. */
/** The booking the flow makes; the reschedule and cancel examples show what becomes of it. */
const BOOKED = {
  id: 101,
  uid: 'b8a5d4b2-3c1e-4f7a-9d2e-6a0f1c2b3d4e',
  title: 'Intro call between Ada Lovelace and Grace Hopper',
  description: 'Looking forward to it',
  hosts: [
    {
      id: 7,
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      displayEmail: 'ada@example.com',
      username: 'ada',
      timeZone: 'Europe/Rome',
    },
  ],
  status: 'accepted',
  start: '2030-09-02T08:00:00.000Z',
  end: '2030-09-02T08:30:00.000Z',
  duration: 30,
  eventTypeId: 31,
  eventType: { id: 31, slug: 'intro-call' },
  location: 'integrations:svc-video',
  meetingUrl: 'integrations:svc-video',
  absentHost: false,
  createdAt: '2030-08-26T08:00:00.000Z',
  updatedAt: '2030-08-26T08:00:00.000Z',
  rating: null,
  icsUid: '7c6b5a49-3827-4165-a4b3-c2d1e0f9a8b7',
  attendees: [
    {
      name: 'Grace Hopper',
      email: 'grace@example.com',
      displayEmail: 'grace@example.com',
      timeZone: 'America/New_York',
      language: 'en',
      absent: false,
    },
    {
      name: 'alan@example.com',
      email: 'alan@example.com',
      displayEmail: 'alan@example.com',
      timeZone: 'America/New_York',
      language: 'en',
      absent: false,
    },
  ],
  metadata: { source: 'website' },
  bookingFieldsResponses: {
    name: 'Grace Hopper',
    email: 'grace@example.com',
    notes: 'Looking forward to it',
    guests: ['alan@example.com'],
    location: { value: 'integration', optionValue: 'integrations:svc-video' },
    displayEmail: 'grace@example.com',
    displayGuests: ['alan@example.com'],
  },
  guests: ['alan@example.com'],
};

/** The new booking a reschedule makes: the same booking at the new time, linked to the old one. */
const RESCHEDULED = {
  ...BOOKED,
  id: 102,
  uid: 'e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b',
  start: '2030-09-03T09:00:00.000Z',
  end: '2030-09-03T09:30:00.000Z',
  bookingFieldsResponses: { ...BOOKED.bookingFieldsResponses, rescheduledReason: 'A conflict came up' },
  reschedulingReason: 'A conflict came up',
  rescheduledByEmail: 'grace@example.com',
  rescheduledFromUid: BOOKED.uid,
};

export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample>> = {
  'POST /v2/schedules': {
    summary: 'A working week in Rome, with a shorter Friday',
    body: {
      name: 'Working hours',
      timeZone: 'Europe/Rome',
      isDefault: true,
      availability: [
        {
          days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
          startTime: '09:00',
          endTime: '17:00',
        },
      ],
      overrides: [{ date: '2030-09-06', startTime: '10:00', endTime: '12:00' }],
    },
    status: 201,
    response: {
      status: 'success',
      data: {
        id: 12,
        ownerId: 7,
        name: 'Working hours',
        timeZone: 'Europe/Rome',
        availability: [
          {
            days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
            startTime: '09:00',
            endTime: '17:00',
          },
        ],
        isDefault: true,
        overrides: [{ date: '2030-09-06', startTime: '10:00', endTime: '12:00' }],
      },
    },
  },
  'POST /v2/event-types': {
    summary: 'A 30-minute call on that schedule',
    body: {
      title: 'Intro call',
      slug: 'intro-call',
      lengthInMinutes: 30,
      description: 'A first 30-minute call',
      scheduleId: 12,
      locations: [{ type: 'integration', integration: 'svc-video' }],
      minimumBookingNotice: 120,
      beforeEventBuffer: 5,
      afterEventBuffer: 10,
    },
    status: 201,
    response: {
      status: 'success',
      data: {
        id: 31,
        ownerId: 7,
        bookingUrl: 'http://localhost:5555/ada/intro-call',
        lengthInMinutes: 30,
        lengthInMinutesOptions: [],
        title: 'Intro call',
        slug: 'intro-call',
        description: 'A first 30-minute call',
        locations: [{ type: 'integration', integration: 'svc-video' }],
        bookingFields: [
          { isDefault: true, type: 'name', slug: 'name', required: true, disableOnPrefill: false },
          {
            isDefault: true,
            type: 'email',
            slug: 'email',
            required: true,
            hidden: false,
            disableOnPrefill: false,
          },
          { isDefault: true, type: 'radioInput', slug: 'location', required: false, hidden: false },
          {
            isDefault: true,
            type: 'text',
            slug: 'title',
            required: true,
            hidden: true,
            disableOnPrefill: false,
          },
          {
            isDefault: true,
            type: 'textarea',
            slug: 'notes',
            required: false,
            hidden: false,
            disableOnPrefill: false,
          },
          {
            isDefault: true,
            type: 'multiemail',
            slug: 'guests',
            required: false,
            hidden: false,
            disableOnPrefill: false,
          },
          {
            isDefault: true,
            type: 'textarea',
            slug: 'rescheduleReason',
            required: false,
            hidden: false,
            disableOnPrefill: false,
          },
        ],
        disableGuests: false,
        slotInterval: null,
        minimumBookingNotice: 120,
        beforeEventBuffer: 5,
        afterEventBuffer: 10,
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
        scheduleId: 12,
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
        users: [
          {
            id: 7,
            name: 'Ada Lovelace',
            username: 'ada',
            avatarUrl: null,
            brandColor: null,
            darkBrandColor: null,
            weekStart: 'Sunday',
            metadata: {},
          },
        ],
      },
    },
  },
  'GET /v2/slots': {
    summary: 'Two days of the event type, printed in Rome time',
    query: { eventTypeId: 31, start: '2030-09-02', end: '2030-09-03', timeZone: 'Europe/Rome' },
    status: 200,
    response: {
      status: 'success',
      data: {
        '2030-09-02': [
          { start: '2030-09-02T09:00:00.000+02:00' },
          { start: '2030-09-02T09:30:00.000+02:00' },
          { start: '2030-09-02T10:00:00.000+02:00' },
          { start: '2030-09-02T10:30:00.000+02:00' },
        ],
        '2030-09-03': [
          { start: '2030-09-03T09:00:00.000+02:00' },
          { start: '2030-09-03T09:30:00.000+02:00' },
          { start: '2030-09-03T10:00:00.000+02:00' },
          { start: '2030-09-03T10:30:00.000+02:00' },
        ],
      },
    },
  },
  'POST /v2/bookings': {
    summary: 'Book the first slot of the day',
    body: {
      start: '2030-09-02T08:00:00Z',
      eventTypeId: 31,
      attendee: { name: 'Grace Hopper', email: 'grace@example.com', timeZone: 'America/New_York', language: 'en' },
      guests: ['alan@example.com'],
      bookingFieldsResponses: { notes: 'Looking forward to it' },
      metadata: { source: 'website' },
    },
    status: 201,
    response: {
      status: 'success',
      data: BOOKED,
    },
  },
  'POST /v2/bookings/:bookingUid/reschedule': {
    summary: 'Move the booking to the next day',
    params: { bookingUid: BOOKED.uid },
    body: {
      start: '2030-09-03T09:00:00Z',
      rescheduledBy: 'grace@example.com',
      reschedulingReason: 'A conflict came up',
    },
    status: 201,
    response: { status: 'success', data: RESCHEDULED },
  },
  'POST /v2/bookings/:bookingUid/cancel': {
    summary: 'Cancel the rescheduled booking',
    params: { bookingUid: RESCHEDULED.uid },
    body: { cancellationReason: 'No longer needed' },
    status: 200,
    response: {
      status: 'success',
      data: {
        ...RESCHEDULED,
        status: 'cancelled',
        updatedAt: '2030-08-27T10:15:00.000Z',
        cancellationReason: 'No longer needed',
        cancelledByEmail: 'grace@example.com',
      },
    },
  },
  'POST /v2/webhooks': {
    summary: 'Hear about every booking change',
    body: {
      subscriberUrl: 'https://hooks.example.com/svc',
      active: true,
      triggers: ['BOOKING_CREATED', 'BOOKING_RESCHEDULED', 'BOOKING_CANCELLED'],
      secret: 'whsec_c2VjcmV0LWZvci1leGFtcGxlcw==',
    },
    status: 201,
    response: {
      status: 'success',
      data: {
        id: 5,
        subscriberUrl: 'https://hooks.example.com/svc',
        active: true,
        triggers: ['BOOKING_CREATED', 'BOOKING_RESCHEDULED', 'BOOKING_CANCELLED'],
        payloadTemplate: null,
        secret: 'whsec_c2VjcmV0LWZvci1leGFtcGxlcw==',
        version: '2021-10-20',
        userId: 7,
      },
    },
  },
};
