/**
 * Request and response examples of the main flows, in the order an integration makes the calls: each
 * request refers to what the previous answers created (schedule 12, event type 31, team 45...).
 * test/foundation/openapi-examples.test.ts sends them to a real app in this order, checks that the
 * answers have the examples' shape, and validates each against its route's schemas.
 */
export interface OperationExample {
  /** The operation: method and Fastify pattern. */
  operation: string;
  /** Names the example where an operation has several (the document's `examples` keys). */
  name: string;
  /** What the example does, shown by the UI next to it. */
  summary: string;
  /** Who calls, when it is not the caller the operation's access suggests (the API key of Ada, user 7). */
  caller?: 'invitee' | 'systemAdmin' | 'oauthClient';
  params?: Readonly<Record<string, string | number>>;
  query?: Readonly<Record<string, string | number>>;
  body?: unknown;
  status: number;
  response: unknown;
}

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
  location: 'https://meet.jit.si/svc-3q2-7wEvr0bEyWQ8aG5sTA',
  meetingUrl: 'https://meet.jit.si/svc-3q2-7wEvr0bEyWQ8aG5sTA',
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
  metadata: { source: 'website', videoCallUrl: 'https://meet.jit.si/svc-3q2-7wEvr0bEyWQ8aG5sTA' },
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

const BOOKING_FIELDS = [
  { isDefault: true, type: 'name', slug: 'name', required: true, disableOnPrefill: false },
  { isDefault: true, type: 'email', slug: 'email', required: true, hidden: false, disableOnPrefill: false },
  { isDefault: true, type: 'radioInput', slug: 'location', required: false, hidden: false },
  { isDefault: true, type: 'text', slug: 'title', required: true, hidden: true, disableOnPrefill: false },
  { isDefault: true, type: 'textarea', slug: 'notes', required: false, hidden: false, disableOnPrefill: false },
  { isDefault: true, type: 'multiemail', slug: 'guests', required: false, hidden: false, disableOnPrefill: false },
  { isDefault: true, type: 'textarea', slug: 'rescheduleReason', required: false, hidden: false, disableOnPrefill: false },
];

/** The settings an event type created with few fields answers with, personal or team. */
const EVENT_TYPE_SETTINGS = {
  lengthInMinutes: 30,
  lengthInMinutesOptions: [],
  locations: [{ type: 'integration', integration: 'svc-video' }],
  bookingFields: BOOKING_FIELDS,
  disableGuests: false,
  slotInterval: null,
  minimumBookingNotice: 120,
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
};

const ADA = { id: 7, name: 'Ada Lovelace', email: 'ada@example.com', username: 'ada' };
const GRACE = { id: 8, name: 'Grace Hopper', email: 'grace@example.com', username: 'grace' };

/** A team as svc answers it (POST /v2/teams, POST /v2/organizations/{orgId}/teams). */
const teamAnswer = (fields: { id: number; parentId: number | null; name: string; slug: string; timeZone: string }) => ({
  ...fields,
  logoUrl: null,
  svcVideoLogo: null,
  appLogo: null,
  appIconLogo: null,
  bio: null,
  hideBranding: false,
  isOrganization: false,
  isPrivate: false,
  hideBookATeamMember: false,
  metadata: {},
  theme: null,
  brandColor: null,
  darkBrandColor: null,
  bannerUrl: null,
  timeFormat: null,
  weekStart: 'Sunday',
});

const TEAM = { id: 45, name: 'Support', slug: 'support' };
/** Grace's membership of the team: pending until she accepts it. */
const TEAM_MEMBERSHIP = { id: 61, userId: GRACE.id, teamId: TEAM.id, accepted: false, role: 'MEMBER', disableImpersonation: false, customRoleId: null };
const ORGANIZATION = { id: 50, name: 'Acme Health', slug: 'acme-health' };
const OAUTH_CLIENT = { clientId: 'cm1x2y3z4a5b6c7d8e9f0g1h2', clientSecret: 'Zm9yLWV4YW1wbGVzLW9ubHktbm90LWEtcmVhbC1zZWNyZXQ' };
const MANAGED_USER_TOKENS = {
  accessToken: '6fb9e3483e6fbd95b33eb0fb7ccbf31600c939e7748e4580052bb8a12598a431',
  refreshToken: '7ddf67cee0e27bec7c1462968583182ce45b9ae027bb34a63c7093822b8e742b',
  accessTokenExpiresAt: 1913965200000,
  refreshTokenExpiresAt: 1945468800000,
};
const TEAM_BOOKING_START = '2030-09-02T13:00:00.000Z';

/** Every example, in the order of the flows: a person's bookings, a team's, an organization, a platform. */
export const EXAMPLE_FLOW: readonly OperationExample[] = [
  {
    operation: 'POST /v2/schedules',
    name: 'workingWeek',
    summary: 'A working week in Rome, with a shorter Friday',
    body: {
      name: 'Working hours',
      timeZone: 'Europe/Rome',
      isDefault: true,
      availability: [{ days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'], startTime: '09:00', endTime: '17:00' }],
      overrides: [{ date: '2030-09-06', startTime: '10:00', endTime: '12:00' }],
    },
    status: 201,
    response: {
      status: 'success',
      data: {
        id: 12,
        ownerId: ADA.id,
        name: 'Working hours',
        timeZone: 'Europe/Rome',
        availability: [{ days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'], startTime: '09:00', endTime: '17:00' }],
        isDefault: true,
        overrides: [{ date: '2030-09-06', startTime: '10:00', endTime: '12:00' }],
      },
    },
  },
  {
    operation: 'POST /v2/event-types',
    name: 'introCall',
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
        ownerId: ADA.id,
        bookingUrl: 'http://localhost:5555/ada/intro-call',
        title: 'Intro call',
        slug: 'intro-call',
        description: 'A first 30-minute call',
        ...EVENT_TYPE_SETTINGS,
        beforeEventBuffer: 5,
        afterEventBuffer: 10,
        scheduleId: 12,
        users: [
          { id: ADA.id, name: ADA.name, username: ADA.username, avatarUrl: null, brandColor: null, darkBrandColor: null, weekStart: 'Sunday', metadata: {} },
        ],
      },
    },
  },
  {
    operation: 'GET /v2/slots',
    name: 'personal',
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
  {
    operation: 'POST /v2/bookings',
    name: 'personal',
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
    response: { status: 'success', data: BOOKED },
  },
  {
    operation: 'POST /v2/bookings/:bookingUid/reschedule',
    name: 'nextDay',
    summary: 'Move the booking to the next day',
    params: { bookingUid: BOOKED.uid },
    body: { start: '2030-09-03T09:00:00Z', rescheduledBy: 'grace@example.com', reschedulingReason: 'A conflict came up' },
    status: 201,
    response: { status: 'success', data: RESCHEDULED },
  },
  {
    operation: 'POST /v2/bookings/:bookingUid/cancel',
    name: 'byAttendee',
    summary: 'Cancel the rescheduled booking',
    params: { bookingUid: RESCHEDULED.uid },
    body: { cancellationReason: 'No longer needed' },
    status: 200,
    response: {
      status: 'success',
      data: { ...RESCHEDULED, status: 'cancelled', updatedAt: '2030-08-27T10:15:00.000Z', cancellationReason: 'No longer needed', cancelledByEmail: 'grace@example.com' },
    },
  },
  {
    operation: 'POST /v2/webhooks',
    name: 'bookingChanges',
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
        userId: ADA.id,
      },
    },
  },
  {
    operation: 'POST /v2/teams',
    name: 'supportTeam',
    summary: 'Ada creates a team and becomes its owner',
    body: { name: TEAM.name, slug: TEAM.slug, timeZone: 'Europe/Rome' },
    status: 201,
    response: { status: 'success', data: teamAnswer({ ...TEAM, parentId: null, timeZone: 'Europe/Rome' }) },
  },
  {
    operation: 'POST /v2/teams/:teamId/memberships',
    name: 'inviteMember',
    summary: 'Ada invites Grace (user 8): the membership is pending (accepted: false) until Grace accepts it',
    params: { teamId: TEAM.id },
    body: { userId: GRACE.id, role: 'MEMBER' },
    status: 201,
    response: { status: 'success', data: TEAM_MEMBERSHIP },
  },
  {
    operation: 'POST /v2/teams/:teamId/memberships/:membershipId/accept',
    name: 'inviteeAccepts',
    summary: "Grace, with her own API key, accepts: she now counts as a host's team member",
    caller: 'invitee',
    params: { teamId: TEAM.id, membershipId: TEAM_MEMBERSHIP.id },
    status: 200,
    response: {
      status: 'success',
      data: {
        ...TEAM_MEMBERSHIP,
        accepted: true,
        user: { avatarUrl: null, username: GRACE.username, name: GRACE.name, email: GRACE.email, bio: null, metadata: {} },
      },
    },
  },
  {
    operation: 'POST /v2/teams/:teamId/event-types',
    name: 'roundRobin',
    summary: 'A round-robin call: each booking goes to whichever of Ada and Grace is free and has had fewer bookings',
    params: { teamId: TEAM.id },
    body: { title: 'Support call', slug: 'support-call', lengthInMinutes: 30, schedulingType: 'roundRobin', hosts: [{ userId: ADA.id }, { userId: GRACE.id }] },
    status: 201,
    response: {
      status: 'success',
      data: {
        id: 32,
        bookingUrl: 'http://localhost:5555/team/support/support-call',
        title: 'Support call',
        slug: 'support-call',
        description: '',
        ...EVENT_TYPE_SETTINGS,
        beforeEventBuffer: 0,
        afterEventBuffer: 0,
        scheduleId: null,
        teamId: TEAM.id,
        ownerId: null,
        parentEventTypeId: null,
        hosts: [ADA, GRACE].map((host) => ({ userId: host.id, name: host.name, username: host.username, avatarUrl: null, mandatory: false, priority: 'medium', weight: 100 })),
        assignAllTeamMembers: false,
        schedulingType: 'roundRobin',
        team: { ...TEAM, bannerUrl: null, logoUrl: null, weekStart: 'Sunday', brandColor: null, darkBrandColor: null, theme: null },
        rescheduleWithSameRoundRobinHost: false,
        assignRRMembersUsingSegment: false,
        rrSegmentQuery: null,
      },
    },
  },
  {
    operation: 'GET /v2/slots',
    name: 'team',
    summary: 'The team event type lists a start where at least one of its hosts is free',
    query: { eventTypeId: 32, start: '2030-09-02', end: '2030-09-03', timeZone: 'Europe/Rome' },
    status: 200,
    response: {
      status: 'success',
      data: {
        '2030-09-02': [{ start: '2030-09-02T09:00:00.000+02:00' }, { start: '2030-09-02T09:30:00.000+02:00' }, { start: '2030-09-02T10:00:00.000+02:00' }],
        '2030-09-03': [{ start: '2030-09-03T09:00:00.000+02:00' }, { start: '2030-09-03T09:30:00.000+02:00' }, { start: '2030-09-03T10:00:00.000+02:00' }],
      },
    },
  },
  {
    operation: 'POST /v2/bookings',
    name: 'team',
    summary: 'Book the team event type: svc picks the host (here Ada) and names them in hosts',
    body: { start: TEAM_BOOKING_START, eventTypeId: 32, attendee: { name: 'Alan Turing', email: 'alan@example.com', timeZone: 'Europe/London' } },
    status: 201,
    response: {
      status: 'success',
      data: {
        id: 103,
        uid: '0d6f3c2e-8b1a-4c5d-9e7f-a1b2c3d4e5f6',
        title: 'Support call between Ada Lovelace and Alan Turing',
        description: '',
        hosts: BOOKED.hosts,
        status: 'accepted',
        start: TEAM_BOOKING_START,
        end: '2030-09-02T13:30:00.000Z',
        duration: 30,
        eventTypeId: 32,
        eventType: { id: 32, slug: 'support-call' },
        location: 'https://meet.jit.si/svc-Kf9xLbQ1mZ0aR7yT2vWcNg',
        meetingUrl: 'https://meet.jit.si/svc-Kf9xLbQ1mZ0aR7yT2vWcNg',
        absentHost: false,
        createdAt: '2030-08-26T08:00:00.000Z',
        updatedAt: '2030-08-26T08:00:00.000Z',
        rating: null,
        icsUid: '3f2e1d0c-9b8a-4766-8554-433221100fed',
        attendees: [{ name: 'Alan Turing', email: 'alan@example.com', displayEmail: 'alan@example.com', timeZone: 'Europe/London', language: 'en', absent: false }],
        metadata: { videoCallUrl: 'https://meet.jit.si/svc-Kf9xLbQ1mZ0aR7yT2vWcNg' },
        bookingFieldsResponses: { name: 'Alan Turing', email: 'alan@example.com', location: { value: 'integration', optionValue: 'integrations:svc-video' }, displayEmail: 'alan@example.com' },
      },
    },
  },
  {
    operation: 'POST /v2/admin/organizations',
    name: 'platformOrganization',
    summary: 'The system admin creates an organization owned by Ada; isPlatform lets it have OAuth clients and managed users',
    caller: 'systemAdmin',
    body: { name: ORGANIZATION.name, slug: ORGANIZATION.slug, ownerId: ADA.id, isPlatform: true },
    status: 201,
    response: { status: 'success', data: { ...ORGANIZATION, isOrganization: true, isPlatform: true, metadata: {}, createdAt: '2030-08-26T08:00:00.000Z' } },
  },
  {
    operation: 'POST /v2/organizations/:orgId/teams',
    name: 'organizationTeam',
    summary: "Ada, the organization's owner, creates a team inside it",
    params: { orgId: ORGANIZATION.id },
    body: { name: 'Clinics', slug: 'clinics' },
    status: 201,
    response: { status: 'success', data: teamAnswer({ id: 51, parentId: ORGANIZATION.id, name: 'Clinics', slug: 'clinics', timeZone: 'Europe/London' }) },
  },
  {
    operation: 'POST /v2/organizations/:orgId/memberships',
    name: 'organizationAdmin',
    summary: 'Grace is invited as an admin of the organization; pending until she accepts it',
    params: { orgId: ORGANIZATION.id },
    body: { userId: GRACE.id, role: 'ADMIN' },
    status: 201,
    response: {
      status: 'success',
      data: { id: 62, userId: GRACE.id, teamId: ORGANIZATION.id, accepted: false, role: 'ADMIN', disableImpersonation: false, customRoleId: null, attributes: [] },
    },
  },
  {
    operation: 'POST /v2/organizations/:orgId/roles',
    name: 'bookingManager',
    summary: 'A custom role whose holders see and change every booking of the organization',
    params: { orgId: ORGANIZATION.id },
    body: { name: 'Booking manager', description: 'Sees and manages every booking', permissions: ['booking.read', 'booking.update'] },
    status: 201,
    response: {
      status: 'success',
      data: {
        id: '6875f742-ad6d-4f68-87f7-66aa8040f38e',
        name: 'Booking manager',
        color: null,
        description: 'Sees and manages every booking',
        organizationId: ORGANIZATION.id,
        type: 'CUSTOM',
        permissions: ['booking.read', 'booking.update'],
        createdAt: '2030-08-26T08:00:00.000Z',
        updatedAt: '2030-08-26T08:00:00.000Z',
      },
    },
  },
  {
    operation: 'POST /v2/oauth-clients',
    name: 'clinicApp',
    summary: 'Ada, owner of the platform organization, creates an OAuth client; the secret is shown only here',
    body: { name: 'Clinic app', redirectUris: ['https://clinic.example.com/callback'], permissions: ['*'] },
    status: 201,
    response: { status: 'success', data: OAUTH_CLIENT },
  },
  {
    operation: 'POST /v2/oauth-clients/:clientId/users',
    name: 'managedUser',
    summary: 'The client, with x-svc-client-id and x-svc-secret-key, creates a managed user and gets its tokens',
    caller: 'oauthClient',
    params: { clientId: OAUTH_CLIENT.clientId },
    body: { email: 'dr.who@example.com', name: 'Dr Who', timeZone: 'Europe/Lisbon' },
    status: 201,
    response: {
      status: 'success',
      data: {
        user: {
          id: 9,
          email: `dr.who+${OAUTH_CLIENT.clientId}@example.com`,
          username: `dr.who-${OAUTH_CLIENT.clientId}-example`,
          name: 'Dr Who',
          bio: null,
          timeZone: 'Europe/Lisbon',
          weekStart: 'Sunday',
          createdDate: '2030-08-26T08:00:00.000Z',
          timeFormat: 12,
          defaultScheduleId: 13,
          locale: 'en',
          avatarUrl: null,
          metadata: {},
        },
        ...MANAGED_USER_TOKENS,
      },
    },
  },
  {
    operation: 'POST /v2/oauth/:clientId/refresh',
    name: 'refreshTokens',
    summary: "The access token lasts 60 minutes: the client trades the refresh token for a new pair (the old refresh token stops working)",
    caller: 'oauthClient',
    params: { clientId: OAUTH_CLIENT.clientId },
    body: { refreshToken: MANAGED_USER_TOKENS.refreshToken },
    status: 200,
    response: {
      status: 'success',
      data: {
        accessToken: '21e011f4ad140b2c3e496a60ca1206d66765bd89a56b6013f42da2f57245f64a',
        refreshToken: '6d512fb9ced261ff2db96816bf89577cd30389d94369d2afee2db0e6a5e9b35c',
        accessTokenExpiresAt: 1913965200000,
        refreshTokenExpiresAt: 1945468800000,
      },
    },
  },
];

/** The examples of one operation (`POST /v2/bookings`), in flow order. */
export function examplesOf(operation: string): OperationExample[] {
  return EXAMPLE_FLOW.filter((example) => example.operation === operation);
}
