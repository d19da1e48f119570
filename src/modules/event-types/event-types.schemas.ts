import { Type, type TSchema } from 'typebox';
import { Nullable, StringEnum } from '../../http/schema-types.js';
import { Metadata } from '../users/users.schemas.js';
import { BookingFieldInput, BookingFieldOutput } from './booking-fields.js';
import {
  BookerActiveBookingsLimitInput,
  BookingLimitsCountInput,
  BookingLimitsDurationInput,
  BookingWindowInput,
  ConfirmationPolicyInput,
  RecurrenceInput,
  SeatsInput,
} from './event-type-limits.js';
import { CalendarInvitesInput, ColorInput, DestinationCalendarInput, SettingsFields } from './event-type-settings.js';
import { LocationInput, LocationOutput } from './locations.js';
import { RefundPolicyInput, RefundPolicyOutput } from '../payments/payments.schemas.js';

const INT4_MAX = 2147483647;
/**
 * Upper bounds of the durations the slot engine works with. The reference's DTOs set none (only
 * minimums), so these are svc's: the reference's own longest event (MAX_EVENT_DURATION_MINUTES, 24
 * hours), and a year of notice. Nothing real goes beyond them, and every instant derived from them
 * stays far inside what dates can hold.
 */
export const MAX_EVENT_MINUTES = 1440;
export const MAX_NOTICE_MINUTES = 525_600;
const Minutes = (description: string, minimum = 0, maximum = MAX_EVENT_MINUTES) => Type.Integer({ minimum, maximum, description });
const Flag = (description?: string) => Type.Optional(Type.Boolean(description ? { description } : {}));

export const LengthInMinutes = Minutes('Event length, at most 24 hours', 1);
export const Title = Type.String({ minLength: 1, maxLength: 255 });
export const Slug = Type.String({ minLength: 1, maxLength: 255, description: 'Unique among your event types; lower-cased, other characters than a-z and 0-9 become "-"' });

/** Every field of `CreateEventTypeInput_2024_06_14` except the three required ones (spec 2.1, contract 5.1). */
export const OptionalFields = {
  lengthInMinutesOptions: Type.Optional(Type.Array(LengthInMinutes, { maxItems: 50, uniqueItems: true, description: 'Lengths the booker may pick; must include lengthInMinutes' })),
  description: Type.Optional(Type.String({ maxLength: 10000 })),
  locations: Type.Optional(Type.Array(LocationInput, { minItems: 1, maxItems: 50, description: 'Default: [{type: "integration", integration: "svc-video"}]' })),
  bookingFields: Type.Optional(Type.Array(BookingFieldInput, { minItems: 1, maxItems: 100, description: 'The complete form: replaces every custom field; the default fields are always kept' })),
  disableGuests: Flag('true: the booker cannot add guests (hides the guests field)'),
  slotInterval: Type.Optional(Minutes('Spacing of offered slots, at most 24 hours; default: the event length', 1)),
  minimumBookingNotice: Type.Optional(Minutes('Minimum minutes of notice, at most a year (525600); default 120', 0, MAX_NOTICE_MINUTES)),
  beforeEventBuffer: Type.Optional(Minutes('Minutes blocked before the meeting, at most 24 hours')),
  afterEventBuffer: Type.Optional(Minutes('Minutes blocked after the meeting, at most 24 hours')),
  scheduleId: Type.Optional(Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'One of your schedules; default: your default schedule' })),
  bookingLimitsCount: Type.Optional(BookingLimitsCountInput),
  bookerActiveBookingsLimit: Type.Optional(BookerActiveBookingsLimitInput),
  onlyShowFirstAvailableSlot: Flag('One slot per day, the earliest'),
  bookingLimitsDuration: Type.Optional(BookingLimitsDurationInput),
  bookingWindow: Type.Optional(BookingWindowInput),
  offsetStart: Type.Optional(Minutes('Shifts the offered slots by this many minutes, at most 24 hours')),
  confirmationPolicy: Type.Optional(ConfirmationPolicyInput),
  recurrence: Type.Optional(RecurrenceInput),
  seats: Type.Optional(SeatsInput),
  destinationCalendar: Type.Optional(DestinationCalendarInput),
  hidden: Flag('Hidden from your public event-type list'),
  bookingRequiresAuthentication: Flag('Default false: only you can book it through the API'),
  showOptimizedSlots: Flag('Default false'),
  price: Type.Optional(Type.Integer({ minimum: 0, maximum: 99_999_999, description: "What a booking costs, in minor units of currency (cents; 0: free). Above 0 needs the owner's connected Stripe account (GET /v2/stripe/connect); bookings then wait for payment" })),
  currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3, description: 'ISO 4217 code of a currency Stripe takes (default usd); stored lower-case' })),
  refundPolicy: Type.Optional(Type.Union([RefundPolicyInput, Type.Null()])),
  ...SettingsFields,
  calendarInvites: Type.Optional(CalendarInvitesInput),
};

export const CreateEventTypeBody_2024_06_14 = Type.Object({ lengthInMinutes: LengthInMinutes, title: Title, slug: Slug, ...OptionalFields });

export const UpdateEventTypeBody_2024_06_14 = Type.Object({
  lengthInMinutes: Type.Optional(LengthInMinutes),
  title: Type.Optional(Title),
  slug: Type.Optional(Slug),
  ...OptionalFields,
});

const Limits = Type.Object({ day: Type.Optional(Type.Integer()), week: Type.Optional(Type.Integer()), month: Type.Optional(Type.Integer()), year: Type.Optional(Type.Integer()) });
const DisabledFlag = Type.Optional(Type.Literal(true));

const EventTypeUser = Type.Object({
  id: Type.Integer(),
  name: Nullable(Type.String()),
  username: Nullable(Type.String()),
  avatarUrl: Nullable(Type.String()),
  brandColor: Nullable(Type.String()),
  darkBrandColor: Nullable(Type.String()),
  weekStart: Type.String(),
  metadata: Metadata,
});

/** The fields of `EventTypeOutput_2024_06_14` (contract 5.4); team outputs share them. */
export const EventTypeOutputFields = {
  id: Type.Integer(),
  ownerId: Type.Integer(),
  bookingUrl: Type.String({ description: 'The public booking page: <APP_URL>/<username>/<slug>' }),
  lengthInMinutes: Type.Integer(),
  lengthInMinutesOptions: Type.Array(Type.Integer()),
  title: Type.String(),
  slug: Type.String(),
  description: Type.String(),
  locations: Type.Array(LocationOutput),
  bookingFields: Type.Array(BookingFieldOutput),
  disableGuests: Type.Boolean(),
  slotInterval: Nullable(Type.Integer()),
  minimumBookingNotice: Type.Integer(),
  beforeEventBuffer: Type.Integer(),
  afterEventBuffer: Type.Integer(),
  recurrence: Nullable(Type.Object({ interval: Type.Integer(), occurrences: Type.Integer(), frequency: Type.String() })),
  metadata: Type.Object({}),
  price: Type.Integer({ description: 'Minor units of currency (cents); 0: free' }),
  currency: Type.String(),
  refundPolicy: Type.Optional(RefundPolicyOutput),
  lockTimeZoneToggleOnBookingPage: Type.Boolean(),
  seatsPerTimeSlot: Nullable(Type.Integer()),
  forwardParamsSuccessRedirect: Type.Boolean(),
  successRedirectUrl: Nullable(Type.String()),
  isInstantEvent: Type.Boolean(),
  seatsShowAvailabilityCount: Type.Boolean(),
  scheduleId: Nullable(Type.Integer()),
  bookingLimitsCount: Type.Optional(Limits),
  bookerActiveBookingsLimit: Type.Object({ disabled: DisabledFlag, maximumActiveBookings: Type.Optional(Type.Integer()), offerReschedule: Type.Optional(Type.Boolean()) }),
  onlyShowFirstAvailableSlot: Type.Boolean(),
  bookingLimitsDuration: Type.Optional(Limits),
  bookingWindow: Type.Object({
    disabled: DisabledFlag,
    type: Type.Optional(StringEnum(['businessDays', 'calendarDays', 'range'] as const)),
    value: Type.Optional(Type.Union([Type.Integer(), Type.Array(Type.String())])),
    rolling: Type.Optional(Type.Boolean()),
  }),
  bookerLayouts: Type.Optional(Type.Object({ defaultLayout: Type.String(), enabledLayouts: Type.Array(Type.String()) })),
  confirmationPolicy: Type.Object({
    disabled: DisabledFlag,
    type: Type.Optional(Type.String()),
    noticeThreshold: Type.Optional(Type.Object({ unit: Type.String(), count: Type.Integer() })),
    blockUnconfirmedBookingsInBooker: Type.Optional(Type.Boolean()),
  }),
  requiresBookerEmailVerification: Type.Boolean(),
  hideCalendarNotes: Type.Boolean(),
  color: Type.Optional(ColorInput),
  seats: Type.Object({
    disabled: DisabledFlag,
    seatsPerTimeSlot: Type.Optional(Type.Integer()),
    showAttendeeInfo: Type.Optional(Type.Boolean()),
    showAvailabilityCount: Type.Optional(Type.Boolean()),
  }),
  offsetStart: Type.Integer(),
  customName: Type.Optional(Type.String()),
  destinationCalendar: Type.Optional(DestinationCalendarInput),
  useDestinationCalendarEmail: Type.Boolean(),
  hideCalendarEventDetails: Type.Boolean(),
  hideOrganizerEmail: Type.Boolean(),
  svcVideoSettings: Type.Object({
    disableRecordingForOrganizer: Type.Optional(Type.Boolean()),
    disableRecordingForGuests: Type.Optional(Type.Boolean()),
    redirectUrlOnExit: Type.Optional(Nullable(Type.String())),
    enableAutomaticRecordingForOrganizer: Type.Optional(Type.Boolean()),
    enableAutomaticTranscription: Type.Optional(Type.Boolean()),
    disableTranscriptionForGuests: Type.Optional(Type.Boolean()),
    disableTranscriptionForOrganizer: Type.Optional(Type.Boolean()),
    sendTranscriptionEmails: Type.Boolean(),
  }),
  hidden: Type.Boolean(),
  bookingRequiresAuthentication: Type.Boolean(),
  disableCancelling: Type.Object({ disabled: Type.Boolean() }),
  disableRescheduling: Type.Object({ disabled: Type.Boolean(), minutesBefore: Type.Optional(Type.Integer()) }),
  interfaceLanguage: Nullable(Type.String()),
  allowReschedulingPastBookings: Type.Boolean(),
  allowReschedulingCancelledBookings: Type.Boolean(),
  showOptimizedSlots: Type.Boolean(),
  privateNoteEnabled: Type.Boolean(),
  privateNoteMode: Nullable(Type.String()),
  privateNoteTemplate: Nullable(Type.String()),
  users: Type.Array(EventTypeUser),
};

/** `EventTypeOutput_2024_06_14` (contract 5.4). `calendarInvites` is never part of it. */
export const EventTypeOutput_2024_06_14 = Type.Object(EventTypeOutputFields, { $id: 'EventTypeOutput_2024_06_14' });

export const DeletedEventTypeOutput_2024_06_14 = Type.Object({
  id: Type.Integer(),
  lengthInMinutes: Type.Integer(),
  title: Type.String(),
  slug: Type.String(),
});

export const EventTypeIdParams = Type.Object({ eventTypeId: Type.Integer({ minimum: 1, maximum: INT4_MAX }) });

export const EventTypesQuery_2024_06_14 = Type.Object({
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Event types of this user (hidden ones only for the user themself)' })),
  eventSlug: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'With username: that one event type' })),
  usernames: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Comma-separated usernames: the dynamic group event type' })),
  orgSlug: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Organization of username' })),
  orgId: Type.Optional(Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'Organization of username' })),
  sortCreatedAt: Type.Optional(StringEnum(['asc', 'desc'] as const, { description: 'Order by creation; default: oldest first' })),
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, description: 'svc: at most this many event types (default and most 250)' })),
  skip: Type.Optional(Type.Integer({ minimum: 0, maximum: INT4_MAX, description: 'svc: event types to skip first (default 0)' })),
});
