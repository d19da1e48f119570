import type { Static } from 'typebox';
import { guestsDisabled, presentBookingFields } from './booking-fields.js';
import type { BookingWindow, ConfirmationPolicy, EventTypeSettings, IntervalLimits } from './event-type-model.js';
import type { EventTypeOwner, EventTypeRow } from './event-types.repository.js';
import type { EventTypeOutput_2024_06_14 } from './event-types.schemas.js';
import type { EventTypeView } from './event-types.service.js';
import { presentLocations } from './locations.js';
import { presentRefundPolicy } from '../payments/event-type-prices.js';

type EventTypeOutput = Static<typeof EventTypeOutput_2024_06_14>;

/** No window is the reference's UNLIMITED period, which it prints as `{disabled: true}`. */
function presentBookingWindow(window: BookingWindow | null): EventTypeOutput['bookingWindow'] {
  if (!window) return { disabled: true };
  if (window.type === 'range') return { type: 'range', value: [window.start, window.end] };
  return { type: window.type, value: window.days, rolling: window.rolling };
}

function presentConfirmationPolicy(policy: ConfirmationPolicy | null): EventTypeOutput['confirmationPolicy'] {
  if (!policy) return { disabled: true };
  return {
    type: policy.type,
    ...(policy.noticeThreshold ? { noticeThreshold: policy.noticeThreshold } : {}),
    blockUnconfirmedBookingsInBooker: policy.blockUnconfirmedBookingsInBooker,
  };
}

/** Never-set limits are omitted; after `{disabled: true}` the reference prints `{}`, and so does svc. */
function presentLimits(limits: IntervalLimits | null): IntervalLimits | undefined {
  return limits ?? undefined;
}

/** The reference always prints `sendTranscriptionEmails`, and the other keys once the settings exist. */
function presentVideoSettings(settings: EventTypeSettings): EventTypeOutput['svcVideoSettings'] {
  return { ...(settings.svcVideoSettings ?? {}), sendTranscriptionEmails: settings.sendTranscriptionEmails };
}

function presentDisableRescheduling(settings: EventTypeSettings): EventTypeOutput['disableRescheduling'] {
  if (settings.disableRescheduling) return { disabled: true };
  return settings.minimumRescheduleNotice ? { disabled: false, minutesBefore: settings.minimumRescheduleNotice } : { disabled: false };
}

function presentUser(user: EventTypeOwner) {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    avatarUrl: user.avatarUrl,
    brandColor: null,
    darkBrandColor: null,
    weekStart: user.weekStart,
    metadata: user.metadata,
  };
}

/** Where links to svc's public pages start (`APP_URL`). */
export interface PageLinks {
  appUrl: string;
}

/** The public booking page: `<APP_URL>/<username>/<slug>`; a dynamic group event joins the usernames with `+`. */
function bookingUrlOf(users: readonly EventTypeOwner[], slug: string, links: PageLinks): string {
  const owners = users.map((user) => encodeURIComponent(user.username ?? String(user.id))).join('+');
  return `${links.appUrl.replace(/\/+$/, '')}/${owners}/${encodeURIComponent(slug)}`;
}

/** `EventTypeOutput_2024_06_14`; `calendarInvites` is write-only and never printed. */
export function presentEventType({ eventType: row, ownerId, users, destinationCalendar }: EventTypeView, links: PageLinks): EventTypeOutput {
  const { settings } = row;
  return {
    id: row.id,
    ownerId,
    lengthInMinutes: row.lengthInMinutes,
    lengthInMinutesOptions: row.lengthInMinutesOptions,
    title: row.title,
    slug: row.slug,
    description: row.description,
    locations: presentLocations(row.locations),
    bookingFields: presentBookingFields(row.bookingFields),
    disableGuests: guestsDisabled(row.bookingFields),
    slotInterval: row.slotInterval,
    minimumBookingNotice: row.minimumBookingNotice,
    beforeEventBuffer: row.beforeEventBuffer,
    afterEventBuffer: row.afterEventBuffer,
    recurrence: row.recurrence,
    metadata: {},
    price: row.price,
    currency: row.currency,
    // svc's extension, on paid event types only.
    ...(row.price > 0 ? { refundPolicy: presentRefundPolicy(row.refundPolicy) } : {}),
    lockTimeZoneToggleOnBookingPage: settings.lockTimeZoneToggleOnBookingPage,
    seatsPerTimeSlot: row.seatsPerTimeSlot,
    forwardParamsSuccessRedirect: true,
    successRedirectUrl: settings.successRedirectUrl,
    isInstantEvent: false,
    seatsShowAvailabilityCount: row.seatsShowAvailabilityCount,
    scheduleId: row.scheduleId,
    bookingLimitsCount: presentLimits(row.bookingLimitsCount),
    bookerActiveBookingsLimit: row.bookerActiveBookingsLimit ?? { disabled: true },
    onlyShowFirstAvailableSlot: row.onlyShowFirstAvailableSlot,
    bookingLimitsDuration: presentLimits(row.bookingLimitsDuration),
    bookingWindow: presentBookingWindow(row.bookingWindow),
    bookerLayouts: settings.bookerLayouts ?? undefined,
    confirmationPolicy: presentConfirmationPolicy(row.confirmationPolicy),
    requiresBookerEmailVerification: settings.requiresBookerEmailVerification,
    hideCalendarNotes: settings.hideCalendarNotes,
    color: settings.color ?? undefined,
    seats:
      row.seatsPerTimeSlot === null
        ? { disabled: true }
        : { seatsPerTimeSlot: row.seatsPerTimeSlot, showAttendeeInfo: row.seatsShowAttendees, showAvailabilityCount: row.seatsShowAvailabilityCount },
    offsetStart: row.offsetStart,
    customName: settings.customName ?? undefined,
    destinationCalendar,
    useDestinationCalendarEmail: settings.useDestinationCalendarEmail,
    hideCalendarEventDetails: settings.hideCalendarEventDetails,
    hideOrganizerEmail: settings.hideOrganizerEmail,
    svcVideoSettings: presentVideoSettings(settings),
    hidden: row.hidden,
    bookingRequiresAuthentication: row.bookingRequiresAuthentication,
    disableCancelling: { disabled: settings.disableCancelling },
    disableRescheduling: presentDisableRescheduling(settings),
    interfaceLanguage: settings.interfaceLanguage,
    allowReschedulingPastBookings: settings.allowReschedulingPastBookings,
    allowReschedulingCancelledBookings: settings.allowReschedulingCancelledBookings,
    showOptimizedSlots: row.showOptimizedSlots,
    privateNoteEnabled: settings.privateNoteEnabled,
    privateNoteMode: settings.privateNoteMode,
    privateNoteTemplate: settings.privateNoteTemplate,
    users: users.map(presentUser),
    bookingUrl: bookingUrlOf(users, row.slug, links),
  };
}

/** The list drops booking fields hidden from the booker, as the reference's list endpoint does. */
export function presentEventTypeInList(view: EventTypeView, links: PageLinks): EventTypeOutput {
  const output = presentEventType(view, links);
  return { ...output, bookingFields: output.bookingFields.filter((field) => field.hidden !== true) };
}

/** `DELETE` echoes only these four fields. */
export function presentDeletedEventType(row: EventTypeRow) {
  return { id: row.id, lengthInMinutes: row.lengthInMinutes, title: row.title, slug: row.slug };
}
