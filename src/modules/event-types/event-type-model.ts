/**
 * The stored (internal) form of an event type's structured fields: what the `event_types` columns hold
 * and what the slot engine and the booking flow read. The wire shapes of 2024-06-14 are translated to
 * these in `event-types.versions.ts` and back in `event-types.presenter.ts`.
 */

/** Where the meeting happens; the same keys as the 2024-06-14 wire form. */
export type StoredLocation =
  | { type: 'address'; address: string; public: boolean }
  | { type: 'link'; link: string; public: boolean }
  | { type: 'phone'; phone: string; public: boolean }
  | { type: 'integration'; integration: string }
  | { type: 'attendeeAddress' }
  | { type: 'attendeePhone' }
  | { type: 'attendeeDefined' };

/** Internal booking-form field types (the reference's form-builder types; `name` covers both name variants). */
export type BookingFieldType =
  | 'name' | 'email' | 'radioInput' | 'text' | 'textarea' | 'multiemail' | 'phone' | 'address'
  | 'number' | 'select' | 'multiselect' | 'checkbox' | 'radio' | 'boolean' | 'url';

/**
 * One booking-form field. `slug` is the key of the booker's response (`name`, `email`, `location`,
 * `title`, `notes`, `guests`, `rescheduleReason`, `attendeePhoneNumber` or a custom slug).
 */
export interface StoredBookingField {
  slug: string;
  type: BookingFieldType;
  isDefault: boolean;
  required: boolean;
  hidden: boolean;
  disableOnPrefill: boolean;
  label?: string | undefined;
  placeholder?: string | undefined;
  options?: string[] | undefined;
  /** Set when the name field asks for first and last name separately (`splitName` on the wire). */
  split?: { firstNameLabel: string; firstNamePlaceholder: string; lastNameLabel: string; lastNamePlaceholder: string; lastNameRequired: boolean } | undefined;
}

/**
 * Booking limits (`{}` is what a reset leaves, as in the reference) and the booking window (null: no
 * limit) are stored exactly as the slot engine reads them.
 */
export type { BookingWindow, IntervalLimits } from '../../scheduling/slot-query.js';

export interface ConfirmationPolicy {
  type: 'always' | 'time';
  /** Only for `time`: bookings closer than this to their start need confirmation. */
  noticeThreshold?: { unit: 'minutes' | 'hours'; count: number } | undefined;
  blockUnconfirmedBookingsInBooker: boolean;
}

export interface Recurrence {
  interval: number;
  occurrences: number;
  frequency: 'yearly' | 'monthly' | 'weekly';
}

export interface BookerActiveBookingsLimit {
  maximumActiveBookings: number;
  offerReschedule: boolean;
}

export interface SvcVideoSettings {
  disableRecordingForOrganizer: boolean;
  disableRecordingForGuests: boolean;
  redirectUrlOnExit: string | null;
  enableAutomaticRecordingForOrganizer: boolean;
  enableAutomaticTranscription: boolean;
  disableTranscriptionForGuests: boolean;
  disableTranscriptionForOrganizer: boolean;
}

export type BookerLayout = 'month' | 'week' | 'column';

/** Settings the slot engine never reads: booking-page presentation, notifications, rescheduling rules. */
export interface EventTypeSettings {
  requiresBookerEmailVerification: boolean;
  hideCalendarNotes: boolean;
  lockTimeZoneToggleOnBookingPage: boolean;
  color: { lightThemeHex: string; darkThemeHex: string } | null;
  customName: string | null;
  useDestinationCalendarEmail: boolean;
  hideCalendarEventDetails: boolean;
  successRedirectUrl: string | null;
  hideOrganizerEmail: boolean;
  /** null until first set; then every key holds a value. */
  svcVideoSettings: SvcVideoSettings | null;
  sendTranscriptionEmails: boolean;
  disableCancelling: boolean;
  disableRescheduling: boolean;
  /** Rescheduling is refused within this many minutes of the start; null: no such limit. */
  minimumRescheduleNotice: number | null;
  interfaceLanguage: string | null;
  allowReschedulingPastBookings: boolean;
  allowReschedulingCancelledBookings: boolean;
  privateNoteEnabled: boolean;
  privateNoteMode: 'duplicate_event' | null;
  privateNoteTemplate: string | null;
  bookerLayouts: { defaultLayout: BookerLayout; enabledLayouts: BookerLayout[] } | null;
}

/**
 * The reference's defaults for an event type created without these fields (its database defaults;
 * `interfaceLanguage` is a nullable column there, printed as null until set).
 */
export const DEFAULT_SETTINGS: EventTypeSettings = {
  requiresBookerEmailVerification: false,
  hideCalendarNotes: false,
  lockTimeZoneToggleOnBookingPage: false,
  color: null,
  customName: null,
  useDestinationCalendarEmail: false,
  hideCalendarEventDetails: false,
  successRedirectUrl: null,
  hideOrganizerEmail: false,
  svcVideoSettings: null,
  sendTranscriptionEmails: true,
  disableCancelling: false,
  disableRescheduling: false,
  minimumRescheduleNotice: null,
  interfaceLanguage: null,
  allowReschedulingPastBookings: false,
  allowReschedulingCancelledBookings: false,
  privateNoteEnabled: false,
  privateNoteMode: null,
  privateNoteTemplate: null,
  bookerLayouts: null,
};

export type CalendarInviteMode = 'inherit' | 'standard' | 'custom';

/** Calendar-invite description settings per audience (spec 2.9); write-only on event-type routes. */
export interface CalendarInvites {
  host?: { mode: CalendarInviteMode; template: string | null } | undefined;
  guest?: { mode: CalendarInviteMode; template: string | null } | undefined;
}

/**
 * When an attendee's cancellation of a paid booking is refunded (the reference's Stripe app settings
 * refundPolicy, refundDaysCount, refundCountCalendarDays): always, never, or until `days` days before
 * the start (calendar days, or business days Monday to Friday). A host's cancellation always refunds.
 */
export interface StoredRefundPolicy {
  kind: 'never' | 'always' | 'days';
  days: number | null;
  calendarDays: boolean;
}
