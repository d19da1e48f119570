import { Type, type TSchema } from 'typebox';
import { PaginationOutput } from '../../http/pagination.js';
import { StringEnum } from '../../http/schema-types.js';
import { Locale, Metadata, TimeZone } from '../users/users.schemas.js';
import { MAX_GUESTS_PER_BOOKING } from './create/booking-responses.js';
import { BookingPaymentOutput } from '../payments/payments.schemas.js';

const INT4_MAX = 2147483647;
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Text = (maxLength: number, description?: string) => Type.String({ maxLength, ...(description ? { description } : {}) });

export const LOCATION_CHOICES = ['address', 'link', 'phone', 'attendeeAddress', 'attendeePhone', 'attendeeDefined', 'integration', 'organizersDefaultApp'] as const;

/** One object for every kind (checked against the event type's locations by the service). */
const BookingLocationInput = Type.Object(
  {
    type: StringEnum(LOCATION_CHOICES, { description: 'One of the event type\'s location kinds' }),
    address: Type.Optional(Text(500, 'attendeeAddress: where to meet')),
    phone: Type.Optional(Text(32, 'attendeePhone: E.164 number to call')),
    location: Type.Optional(Text(500, 'attendeeDefined: any place')),
    integration: Type.Optional(Text(100, 'integration: the conferencing app')),
  },
  { description: 'Where the meeting happens, among the event type\'s locations (default: its first location)' },
);

const Attendee = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'Required unless the event type takes a required attendee phone instead' })),
  timeZone: TimeZone,
  phoneNumber: Type.Optional(Type.String({ pattern: '^\\+[1-9]\\d{6,14}$', description: 'E.164, e.g. +37120993151' })),
  language: Type.Optional(Locale),
});

export const CreateBookingBody_2024_08_13 = Type.Object({
  start: Type.String({ format: 'date-time', description: 'Start, ISO 8601 (e.g. 2024-08-13T09:00:00Z): one of the slots GET /v2/slots lists' }),
  attendee: Attendee,
  eventTypeId: Type.Optional(Type.Integer({ minimum: 1, maximum: INT4_MAX })),
  eventTypeSlug: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'With username (or teamSlug)' })),
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  teamSlug: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  organizationSlug: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  bookingFieldsResponses: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 100, description: 'Answers keyed by booking-field slug: long text (textarea) at most 1000 characters, other text 5000, lists 100 items, 65536 characters of JSON in all' })),
  guests: Type.Optional(
    Type.Array(Type.String({ format: 'email', maxLength: 254 }), {
      maxItems: MAX_GUESTS_PER_BOOKING,
      description: `Guest emails, at most ${MAX_GUESTS_PER_BOOKING} (refused when the event type disables guests)`,
    }),
  ),
  location: Type.Optional(BookingLocationInput),
  meetingUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'Deprecated; ignored' })),
  metadata: Type.Optional(Metadata),
  lengthInMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440, description: 'Variable-length event types: one of lengthInMinutesOptions' })),
  recurrenceCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Recurring event types: occurrences to book (at most the event type\'s)' })),
  instant: Type.Optional(Type.Boolean({ description: 'Instant meetings: team event types only' })),
  reservationUid: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'svc: a reservation you hold for this slot; it is used up by the booking' })),
  privateLinkId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'svc: a private link of the event type (its linkId); alone, it names the event type. The booking counts one use; an expired or used-up link is a 404' }),
  ),
  routing: Type.Optional(
    Type.Object(
      {
        responseId: Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'The routing form response this booking follows (once): it is linked to the booking' }),
        teamMemberIds: Type.Array(Type.Integer({ minimum: 1, maximum: INT4_MAX }), { minItems: 1, maxItems: 1000, description: 'Members the response was routed to: the round robin chooses among them' }),
        queuedResponseId: Type.Optional(Type.String({ maxLength: 255, description: 'Accepted for compatibility; svc queues no responses' })),
        teamMemberEmail: Type.Optional(Type.String({ maxLength: 254, description: 'Accepted for compatibility; svc has no CRM contact owners' })),
        skipContactOwner: Type.Optional(Type.Boolean({ description: 'Accepted for compatibility' })),
        crmAppSlug: Type.Optional(Type.String({ maxLength: 255, description: 'Accepted for compatibility' })),
        crmOwnerRecordType: Type.Optional(Type.String({ maxLength: 255, description: 'Accepted for compatibility' })),
      },
      { description: 'A booking that follows a routing form response (POST .../routing-forms/{id}/responses): its hosts are chosen among teamMemberIds' },
    ),
  ),
});

const BookingHostOutput = Type.Object({
  id: Type.Integer(),
  name: Nullable(Type.String()),
  email: Type.String(),
  displayEmail: Type.String({ description: "The email without a managed user's OAuth client id" }),
  username: Type.String({ description: 'unknown for a user without one' }),
  timeZone: Type.String(),
});

const AttendeeOutput = {
  name: Type.String(),
  email: Type.String(),
  displayEmail: Type.String(),
  timeZone: Type.String(),
  language: Type.String(),
  absent: Type.Boolean(),
  phoneNumber: Type.Optional(Type.String()),
};

const CommonOutput = {
  id: Type.Integer(),
  uid: Type.String(),
  title: Type.String(),
  description: Type.String(),
  hosts: Type.Array(BookingHostOutput),
  status: StringEnum(['accepted', 'pending', 'cancelled', 'rejected'] as const),
  cancellationReason: Type.Optional(Type.String()),
  cancelledByEmail: Type.Optional(Type.String()),
  reschedulingReason: Type.Optional(Type.String()),
  rescheduledByEmail: Type.Optional(Type.String()),
  rescheduledFromUid: Type.Optional(Type.String()),
  rescheduledToUid: Type.Optional(Type.String()),
  recurringBookingUid: Type.Optional(Type.String({ description: 'Recurring bookings: the series' })),
  start: Type.String(),
  end: Type.String(),
  duration: Type.Integer(),
  eventTypeId: Nullable(Type.Integer()),
  eventType: Nullable(Type.Object({ id: Type.Integer(), slug: Type.String() })),
  location: Type.String(),
  meetingUrl: Type.String({ description: 'Deprecated: the same as location' }),
  absentHost: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  rating: Nullable(Type.Integer()),
  icsUid: Type.String(),
  payment: Type.Optional(BookingPaymentOutput),
};

export const BookingOutput_2024_08_13 = Type.Object(
  {
    ...CommonOutput,
    attendees: Type.Array(Type.Object(AttendeeOutput)),
    guests: Type.Optional(Type.Array(Type.String())),
    metadata: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
    bookingFieldsResponses: Type.Record(Type.String(), Type.Unknown()),
  },
  { description: 'BookingOutput_2024_08_13 (RecurringBookingOutput adds recurringBookingUid)' },
);

export const SeatedBookingOutput_2024_08_13 = Type.Object(
  {
    ...CommonOutput,
    seatUid: Type.Optional(Type.String({ description: 'Create only: the seat just taken' })),
    attendees: Type.Array(
      Type.Object({
        ...AttendeeOutput,
        seatUid: Type.String(),
        bookingFieldsResponses: Type.Record(Type.String(), Type.Unknown()),
        metadata: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
      }),
    ),
  },
  { description: 'SeatedBookingOutput_2024_08_13' },
);

const AnyBooking = Type.Union([BookingOutput_2024_08_13, SeatedBookingOutput_2024_08_13]);
/** A booking, or every occurrence of a recurring one. */
export const BookingData_2024_08_13 = Type.Union([AnyBooking, Type.Array(AnyBooking)]);


export const BookingsListOutput_2024_08_13 = Type.Object({ status: Type.Literal('success'), data: Type.Array(AnyBooking), pagination: PaginationOutput });

const Sort = StringEnum(['asc', 'desc'] as const);
const Instant = (description: string) =>
  Type.Optional(Type.String({ format: 'iso-8601', description: `${description}: an ISO 8601 date or date-time (without an offset: UTC)` }));

export const BookingsQuery_2024_08_13 = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 100, description: 'Comma-separated: upcoming, recurring, past, cancelled, unconfirmed' })),
  attendeeEmail: Type.Optional(Type.String({ maxLength: 254 })),
  attendeeName: Type.Optional(Type.String({ maxLength: 255 })),
  bookingUid: Type.Optional(Type.String({ maxLength: 100 })),
  eventTypeIds: Type.Optional(Type.String({ maxLength: 2000, description: 'Comma-separated event type ids' })),
  eventTypeId: Type.Optional(Type.Integer({ minimum: 1, maximum: INT4_MAX })),
  teamsIds: Type.Optional(Type.String({ maxLength: 2000, description: "Comma-separated team ids: bookings of those teams' event types (and their managed copies); wins over teamId" })),
  teamId: Type.Optional(Type.Integer({ minimum: 1, maximum: INT4_MAX, description: "Bookings of this team's event types (and their managed copies)" })),
  afterStart: Instant('Bookings starting at or after this instant'),
  beforeEnd: Instant('Bookings ending at or before this instant'),
  afterCreatedAt: Instant('Created at or after'),
  beforeCreatedAt: Instant('Created at or before'),
  afterUpdatedAt: Instant('Updated at or after'),
  beforeUpdatedAt: Instant('Updated at or before'),
  sortStart: Type.Optional(Sort),
  sortEnd: Type.Optional(Sort),
  sortCreated: Type.Optional(Sort),
  sortUpdatedAt: Type.Optional(Sort),
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 100 })),
  skip: Type.Optional(Type.Integer({ minimum: 0, maximum: INT4_MAX, default: 0 })),
});

export const BookingUidParams = Type.Object({ bookingUid: Type.String({ minLength: 1, maxLength: 100 }) });

export const ReassignToUserParams = Type.Object({
  bookingUid: Type.String({ minLength: 1, maxLength: 100 }),
  userId: Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'A round-robin host of the booking\'s event type' }),
});

export const ReassignToUserBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1000, description: 'Why the booking changes hands (sent with BOOKING_REASSIGNED)' })) });

/** `ReassignBookingOutput_2024_08_13.data`. */
export const ReassignedBooking_2024_08_13 = Type.Object({
  bookingUid: Type.String(),
  reassignedTo: Type.Object({ id: Type.Integer(), name: Type.String(), email: Type.String(), displayEmail: Type.String({ description: 'The email without a managed user\'s OAuth client id' }) }),
});
