import { offsetMinutes } from '../../scheduling/zones.js';
import type { StoredBookingField } from '../event-types/event-type-model.js';
import type { AttendeeRow, BookingCoHost, BookingRecord } from '../bookings/bookings.repository.js';
import { parsePayloadTemplate, renderPayloadTemplate } from './payload-template.js';
import type { PayloadContext } from './webhook-deliveries.repository.js';

/**
 * Webhook bodies (contract section 7): `{triggerEvent, createdAt, payload}` with the reference's
 * booking payload, or the subscription's payloadTemplate rendered against `{...payload, triggerEvent,
 * createdAt}`. Bodies are rendered once, when the event is recorded, and stored: every retry sends
 * the same bytes.
 */

/** Labels the reference gives its default booking fields (its i18n keys) when the form sets none. */
const DEFAULT_LABELS: Record<string, string> = {
  name: 'your_name',
  email: 'email_address',
  location: 'location',
  title: 'what_is_this_meeting_about',
  notes: 'additional_notes',
  guests: 'additional_guests',
  rescheduleReason: 'reason_for_reschedule',
  attendeePhoneNumber: 'phone_number',
};

/** Minutes east of UTC in `zone` at `at` (0 for a zone the runtime does not know). */
function utcOffset(zone: string, at: number): number {
  try {
    return offsetMinutes(zone, at);
  } catch {
    return 0;
  }
}

type LabelledResponses = Record<string, { label: string; value?: unknown }>;

/** `responses` (every field of the form, answered or not, then answers without a field) and `userFieldsResponses` (custom fields). */
function labelledResponses(fields: StoredBookingField[], answers: Record<string, unknown>): { responses: LabelledResponses; userFieldsResponses: LabelledResponses } {
  const responses: LabelledResponses = {};
  const userFieldsResponses: LabelledResponses = {};
  for (const field of fields) {
    const entry = { label: field.label || DEFAULT_LABELS[field.slug] || field.slug, ...(answers[field.slug] !== undefined ? { value: answers[field.slug] } : {}) };
    responses[field.slug] = entry;
    if (!field.isDefault && !(field.slug in DEFAULT_LABELS)) userFieldsResponses[field.slug] = entry;
  }
  for (const [slug, value] of Object.entries(answers)) {
    if (!(slug in responses) && value !== undefined) responses[slug] = { label: DEFAULT_LABELS[slug] ?? slug, value };
  }
  return { responses, userFieldsResponses };
}

function presentAttendee(attendee: AttendeeRow, at: number) {
  return {
    name: attendee.name,
    email: attendee.email,
    timeZone: attendee.timeZone,
    language: { locale: attendee.locale ?? 'en' },
    utcOffset: utcOffset(attendee.timeZone, at),
    ...(attendee.phoneNumber ? { phoneNumber: attendee.phoneNumber } : {}),
  };
}

/** A host besides the organizer, as the reference's `team.members` carry them (no utcOffset: it adds that to attendees only). */
function presentTeamMember(coHost: BookingCoHost) {
  return { id: coHost.id, name: coHost.name ?? '', email: coHost.email, timeZone: coHost.timeZone, language: { locale: coHost.locale ?? 'en' } };
}

/** What each trigger adds to the booking payload, taken from the booking event's extra. */
function triggerFields(trigger: string, record: BookingRecord, extra: Record<string, unknown>): Record<string, unknown> {
  const { booking } = record;
  switch (trigger) {
    case 'BOOKING_RESCHEDULED':
      return {
        rescheduleUid: extra.rescheduleUid ?? booking.rescheduledFromUid,
        rescheduleStartTime: extra.rescheduleStartTime ?? null,
        rescheduleEndTime: extra.rescheduleEndTime ?? null,
        rescheduledBy: extra.rescheduledBy ?? booking.rescheduledByEmail,
      };
    case 'BOOKING_CANCELLED':
      return { cancellationReason: extra.cancellationReason ?? booking.cancellationReason, cancelledBy: booking.cancelledByEmail ?? extra.attendeeEmail ?? null };
    case 'BOOKING_REJECTED':
      return { rejectionReason: extra.rejectionReason ?? booking.rejectionReason };
    case 'BOOKING_REASSIGNED':
      return { reassignedFrom: extra.reassignedFrom ?? null, reassignedTo: extra.reassignedTo ?? null, reassignReason: extra.reassignReason ?? null, reassignedBy: extra.reassignedBy ?? null };
    // The video room's recording and its transcript, with links Daily signed when the event was recorded.
    case 'RECORDING_READY':
      return { downloadLink: extra.downloadLink ?? null };
    case 'RECORDING_TRANSCRIPTION_GENERATED':
      return { downloadLinks: { transcription: extra.transcription ?? [], recording: extra.recording ?? null } };
    // The reference's payment fields: its Payment id and what svc knows of the payment.
    case 'BOOKING_PAYMENT_INITIATED':
    case 'BOOKING_PAID':
      return { paymentId: extra.paymentId ?? record.payment?.id ?? null, paymentData: extra.paymentData ?? paymentDataOf(record) };
    default:
      return {};
  }
}

function paymentDataOf({ payment }: BookingRecord): Record<string, unknown> | null {
  if (!payment) return null;
  return { uid: payment.uid, status: payment.status, amount: payment.amount, currency: payment.currency, paymentLink: payment.checkoutUrl, expiresAt: payment.holdUntil };
}

/** The reference's booking payload (BOOKING_* but no-show, MEETING_STARTED, MEETING_ENDED). */
export function bookingPayload(trigger: string, record: BookingRecord, extra: Record<string, unknown>, context: PayloadContext): Record<string, unknown> {
  const { booking, host } = record;
  const start = booking.startAt.getTime();
  const eventType = context.eventType;
  const organizer = context.organizer ?? { ...host, locale: null, timeFormat: 12 as const };
  const seatUid = typeof extra.seatUid === 'string' ? extra.seatUid : undefined;
  const seat = seatUid === undefined ? undefined : record.attendees.find((attendee) => attendee.seatUid === seatUid);
  // A seat's own event shows that seat's booker and answers; the rest of the booking shows everyone.
  const attendees = seat ? [seat] : record.attendees;
  const answers = seat?.seatResponses ?? booking.responses;
  const { responses, userFieldsResponses } = labelledResponses(eventType?.bookingFields ?? [], answers);
  const notes = booking.description || null;
  return {
    type: eventType?.slug ?? null,
    title: booking.title,
    description: eventType?.description || notes,
    additionalNotes: notes,
    customInputs: {},
    startTime: booking.startAt.toISOString(),
    endTime: booking.endAt.toISOString(),
    organizer: {
      id: organizer.id,
      name: organizer.name,
      email: organizer.email,
      username: organizer.username,
      timeZone: organizer.timeZone,
      language: { locale: organizer.locale ?? 'en' },
      timeFormat: organizer.timeFormat === 24 ? 'HH:mm' : 'h:mma',
      utcOffset: utcOffset(organizer.timeZone, start),
    },
    responses,
    userFieldsResponses,
    attendees: attendees.map((attendee) => presentAttendee(attendee, start)),
    // Collective and round-robin bookings name their other hosts apart from the attendees.
    ...(context.team ? { team: { id: context.team.id, name: context.team.name, members: record.coHosts.map(presentTeamMember) } } : {}),
    location: booking.location ?? '',
    destinationCalendar: null,
    hideCalendarNotes: eventType?.hideCalendarNotes ?? false,
    requiresConfirmation: eventType?.requiresConfirmation ?? false,
    eventTypeId: booking.eventTypeId,
    seatsShowAttendees: eventType?.seatsShowAttendees ?? false,
    seatsPerTimeSlot: eventType?.seatsPerTimeSlot ?? null,
    ...(seatUid !== undefined ? { seatUid } : {}),
    uid: booking.uid,
    bookingId: booking.id,
    eventTitle: eventType?.title ?? null,
    eventDescription: eventType?.description ?? null,
    price: record.payment?.amount ?? 0,
    currency: record.payment?.currency ?? 'usd',
    length: Math.round((booking.endAt.getTime() - start) / 60_000),
    metadata: booking.metadata,
    status: booking.status.toUpperCase(),
    ...(booking.recurringBookingUid !== null ? { recurringEventId: booking.recurringBookingUid } : {}),
    ...triggerFields(trigger, record, extra),
  };
}

/** BOOKING_NO_SHOW_UPDATED: `{message, bookingUid, bookingId, attendees: [{email, noShow}]}`. */
export function noShowPayload(record: BookingRecord, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    message: typeof extra.message === 'string' ? extra.message : '',
    bookingUid: record.booking.uid,
    bookingId: record.booking.id,
    attendees: Array.isArray(extra.attendees) ? extra.attendees : [],
  };
}

/** Who joined a booking's video room, as the no-show payloads list them (Daily's names, an svc user's email where known). */
export interface NoShowParticipant {
  user_id: string | null;
  user_name: string | null;
  join_time: number;
  duration: number;
  email?: string;
}

export interface NoShowSubscriptionView {
  id: number;
  subscriberUrl: string;
  active: boolean;
  triggers: string[];
  payloadTemplate: string | null;
  time: number | null;
  timeUnit: string | null;
}

/** "2027-03-01 10:05:00 +00:00": the instant by which someone should have joined, as the reference words it. */
const humanInstant = (at: Date) => `${at.toISOString().slice(0, 10)} ${at.toISOString().slice(11, 19)} +00:00`;

/**
 * AFTER_HOSTS_SVC_VIDEO_NO_SHOW (one per absent host, `hostEmail` naming them) and
 * AFTER_GUESTS_SVC_VIDEO_NO_SHOW payloads, with the reference's fields: the booking's title, ids and
 * times, its attendees, who joined, its event type, the subscription (without its secret) and a message.
 */
export function videoNoShowPayload(
  trigger: 'AFTER_HOSTS_SVC_VIDEO_NO_SHOW' | 'AFTER_GUESTS_SVC_VIDEO_NO_SHOW',
  record: BookingRecord,
  check: { by: Date; participants: NoShowParticipant[]; webhook: NoShowSubscriptionView; hostEmail?: string; rescheduledBy?: string | null },
): Record<string, unknown> {
  const { booking } = record;
  const message =
    trigger === 'AFTER_GUESTS_SVC_VIDEO_NO_SHOW'
      ? `Guest didn't join the call or didn't join before ${humanInstant(check.by)}`
      : `Host with email ${check.hostEmail} didn't join the call or didn't join before ${humanInstant(check.by)}`;
  return {
    title: booking.title,
    bookingId: booking.id,
    bookingUid: booking.uid,
    startTime: booking.startAt.toISOString(),
    endTime: booking.endAt.toISOString(),
    attendees: record.attendees.map((attendee) => ({ name: attendee.name, email: attendee.email, timeZone: attendee.timeZone, locale: attendee.locale, noShow: attendee.absent })),
    participants: check.participants,
    ...(check.hostEmail ? { hostEmail: check.hostEmail } : {}),
    ...(check.rescheduledBy ? { rescheduledBy: check.rescheduledBy } : {}),
    eventType: record.eventType ? { id: record.eventType.id, slug: record.eventType.slug, teamId: record.eventType.teamId } : { id: booking.eventTypeId },
    webhook: check.webhook,
    message,
  };
}

export interface RenderedBody {
  body: string;
  contentType: string;
  /** Set when the subscription's template could not be used: the default body was stored instead. */
  templateError?: string;
}

/** The exact bytes one subscription receives for one event. */
export function renderBody(trigger: string, createdAt: string, payload: Record<string, unknown>, template: string | null): RenderedBody {
  const standard = () => ({ body: JSON.stringify({ triggerEvent: trigger, createdAt, payload }), contentType: 'application/json' });
  if (template === null || template === '') return standard();
  try {
    return renderPayloadTemplate(parsePayloadTemplate(template), { ...payload, triggerEvent: trigger, createdAt });
  } catch (error) {
    return { ...standard(), templateError: `payloadTemplate cannot be rendered: ${error instanceof Error ? error.message : String(error)}` };
  }
}
