import { Type, type Static } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import { invalidField } from '../../lib/errors.js';
import type { BookerActiveBookingsLimit, BookingWindow, ConfirmationPolicy, IntervalLimits, Recurrence } from './event-type-model.js';

/**
 * The "object or disabled" fields the slot engine reads. Each is one object schema whose keys are all
 * optional (a union of object schemas would be stripped branch by branch by the validator); the
 * parsers below check which keys a variant needs. `{"disabled": true}` resets any of them.
 */
const Disabled = Type.Optional(Type.Boolean({ description: 'true resets the setting (`{"disabled": true}`)' }));
const PERIODS = ['day', 'week', 'month', 'year'] as const;
const MAX_SEATS_PER_TIME_SLOT = 1000;

const limitsSchema = (unit: Record<string, unknown>, description: string) =>
  Type.Object(
    {
      day: Type.Optional(Type.Integer({ ...unit, maximum: 2147483647 })),
      week: Type.Optional(Type.Integer({ ...unit, maximum: 2147483647 })),
      month: Type.Optional(Type.Integer({ ...unit, maximum: 2147483647 })),
      year: Type.Optional(Type.Integer({ ...unit, maximum: 2147483647 })),
      disabled: Disabled,
    },
    { description },
  );

export const BookingLimitsCountInput = limitsSchema({ minimum: 1 }, 'How many bookings per day, week, month and year; or {disabled: true}');
export const BookingLimitsDurationInput = limitsSchema({ minimum: 15, multipleOf: 15 }, 'Booked minutes per period, multiples of 15; or {disabled: true}');

export const BookerActiveBookingsLimitInput = Type.Object(
  {
    maximumActiveBookings: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
    offerReschedule: Type.Optional(Type.Boolean({ description: 'Offer to reschedule an active booking when the limit is reached (default false)' })),
    disabled: Disabled,
  },
  { description: 'How many upcoming bookings one booker may hold; or {disabled: true}' },
);

const BOOKING_WINDOW_TYPES = ['businessDays', 'calendarDays', 'range'] as const;
const IsoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' });

export const BookingWindowInput = Type.Object(
  {
    type: Type.Optional(StringEnum(BOOKING_WINDOW_TYPES)),
    value: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 36500 }), Type.Array(IsoDate, { minItems: 2, maxItems: 2 })], {
        description: 'businessDays and calendarDays: a number of days; range: [start, end] dates',
      }),
    ),
    rolling: Type.Optional(Type.Boolean({ description: 'true keeps that many bookable days visible; false: only the next that many days (default)' })),
    disabled: Disabled,
  },
  { description: '{type: businessDays|calendarDays, value, rolling}, {type: range, value: [start, end]} or {disabled: true}' },
);

export const ConfirmationPolicyInput = Type.Object(
  {
    type: Type.Optional(StringEnum(['always', 'time'] as const, { description: 'always, or time: only bookings made less than noticeThreshold ahead' })),
    noticeThreshold: Type.Optional(
      Type.Object({ unit: StringEnum(['minutes', 'hours'] as const), count: Type.Integer({ minimum: 1, maximum: 2147483647 }) }, { description: 'Required for type time' }),
    ),
    blockUnconfirmedBookingsInBooker: Type.Optional(Type.Boolean({ description: 'Unconfirmed bookings still block their slot' })),
    disabled: Disabled,
  },
  { description: 'Bookings the host must confirm; or {disabled: true}' },
);

export const SeatsInput = Type.Object(
  {
    seatsPerTimeSlot: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SEATS_PER_TIME_SLOT })),
    showAttendeeInfo: Type.Optional(Type.Boolean()),
    showAvailabilityCount: Type.Optional(Type.Boolean()),
    disabled: Disabled,
  },
  { description: 'Several bookers per slot: all three keys; or {disabled: true}' },
);

export const RecurrenceInput = Type.Object(
  {
    interval: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Repeats every interval frequency units' })),
    occurrences: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'At most this many events' })),
    frequency: Type.Optional(StringEnum(['yearly', 'monthly', 'weekly'] as const)),
    disabled: Disabled,
  },
  { description: 'A recurring event type: all three keys; or {disabled: true}' },
);

function need<T>(value: T | undefined, field: string, why = 'is required unless disabled is true'): T {
  if (value === undefined) throw invalidField(field, why);
  return value;
}

/** A reset leaves `{}`, which is what the reference stores and prints after `{disabled: true}`. */
export function parseIntervalLimits(input: Static<typeof BookingLimitsCountInput>, field: string): IntervalLimits {
  if (input.disabled === true) return {};
  const limits: IntervalLimits = {};
  for (const period of PERIODS) if (input[period] !== undefined) limits[period] = input[period];
  PERIODS.forEach((period, index) => {
    const value = limits[period];
    const longer = PERIODS.slice(index + 1).find((other) => limits[other] !== undefined && limits[other]! < value!);
    if (value !== undefined && longer) throw invalidField(`${field}.${period}`, `cannot exceed the ${longer} limit`, value);
  });
  return limits;
}

export function parseBookerActiveBookingsLimit(input: Static<typeof BookerActiveBookingsLimitInput>): BookerActiveBookingsLimit | null {
  if (input.disabled === true) return null;
  return { maximumActiveBookings: need(input.maximumActiveBookings, 'bookerActiveBookingsLimit.maximumActiveBookings'), offerReschedule: input.offerReschedule === true };
}

function isRealDate(date: string): boolean {
  const parsed = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === date;
}

export function parseBookingWindow(input: Static<typeof BookingWindowInput>): BookingWindow | null {
  if (input.disabled === true) return null;
  const type = need(input.type, 'bookingWindow.type');
  const value = need(input.value, 'bookingWindow.value');
  if (type === 'range') {
    if (!Array.isArray(value)) throw invalidField('bookingWindow.value', 'must be [start, end] dates for a range', value);
    const [start, end] = value as [string, string];
    for (const date of [start, end]) if (!isRealDate(date)) throw invalidField('bookingWindow.value', 'must hold real calendar dates (YYYY-MM-DD)', value);
    if (start > end) throw invalidField('bookingWindow.value', 'must not end before it starts', value);
    return { type, start, end };
  }
  if (Array.isArray(value)) throw invalidField('bookingWindow.value', `must be a number of days for ${type}`, value);
  return { type, days: value, rolling: input.rolling === true };
}

export function parseConfirmationPolicy(input: Static<typeof ConfirmationPolicyInput>): ConfirmationPolicy | null {
  if (input.disabled === true) return null;
  const type = need(input.type, 'confirmationPolicy.type');
  const blockUnconfirmedBookingsInBooker = need(input.blockUnconfirmedBookingsInBooker, 'confirmationPolicy.blockUnconfirmedBookingsInBooker');
  if (type === 'always') return { type, blockUnconfirmedBookingsInBooker };
  const noticeThreshold = need(input.noticeThreshold, 'confirmationPolicy.noticeThreshold', 'is required when type is time');
  return { type, noticeThreshold, blockUnconfirmedBookingsInBooker };
}

export interface SeatOptions {
  seatsPerTimeSlot: number | null;
  seatsShowAttendees: boolean;
  seatsShowAvailabilityCount: boolean;
}

export const NO_SEATS: SeatOptions = { seatsPerTimeSlot: null, seatsShowAttendees: false, seatsShowAvailabilityCount: true };

export function parseSeats(input: Static<typeof SeatsInput>): SeatOptions {
  if (input.disabled === true) return NO_SEATS;
  return {
    seatsPerTimeSlot: need(input.seatsPerTimeSlot, 'seats.seatsPerTimeSlot'),
    seatsShowAttendees: need(input.showAttendeeInfo, 'seats.showAttendeeInfo'),
    seatsShowAvailabilityCount: need(input.showAvailabilityCount, 'seats.showAvailabilityCount'),
  };
}

/** Longest span of a recurring series, first to last occurrence, per frequency: 100 years. */
const MAX_RECURRENCE_SPAN = { weekly: 5214, monthly: 1200, yearly: 100 } as const;

export function parseRecurrence(input: Static<typeof RecurrenceInput>): Recurrence | null {
  if (input.disabled === true) return null;
  const recurrence = {
    interval: need(input.interval, 'recurrence.interval'),
    occurrences: need(input.occurrences, 'recurrence.occurrences'),
    frequency: need(input.frequency, 'recurrence.frequency'),
  };
  // A series must end where bookings can still be stored: within 100 years of its first occurrence.
  const { interval, occurrences, frequency } = recurrence;
  const span = MAX_RECURRENCE_SPAN[frequency];
  if ((occurrences - 1) * interval > span) {
    const unit = { weekly: 'weeks', monthly: 'months', yearly: 'years' }[frequency];
    throw invalidField('recurrence.occurrences', `must end the series within 100 years: (occurrences - 1) x interval is at most ${span} ${unit}`, occurrences);
  }
  return recurrence;
}

/** The rules that tie fields together, checked on the event type as it will be stored. */
export interface RuleSubject {
  lengthInMinutes: number;
  lengthInMinutesOptions: number[];
  locationCount: number;
  seatsPerTimeSlot: number | null;
  confirmationPolicy: ConfirmationPolicy | null;
  recurrence: Recurrence | null;
  bookerActiveBookingsLimit: BookerActiveBookingsLimit | null;
}

/** `sent` names the fields of the request: the error names the one the caller changed. */
export function assertEventTypeRules(subject: RuleSubject, sent: ReadonlySet<string>): void {
  const blame = (preferred: string, other: string) => (sent.has(preferred) || !sent.has(other) ? preferred : other);
  const { lengthInMinutes, lengthInMinutesOptions } = subject;
  if (lengthInMinutesOptions.length > 0 && !lengthInMinutesOptions.includes(lengthInMinutes)) {
    throw invalidField(blame('lengthInMinutesOptions', 'lengthInMinutes'), `must include lengthInMinutes (${lengthInMinutes}) among the options [${lengthInMinutesOptions.join(', ')}]`);
  }
  const seats = subject.seatsPerTimeSlot !== null;
  if (seats && subject.locationCount > 1) throw invalidField(blame('seats', 'locations'), 'seats cannot be enabled on an event type with more than one location');
  if (seats && subject.confirmationPolicy) throw invalidField(blame('seats', 'confirmationPolicy'), 'seats cannot be enabled on an event type that requires confirmation');
  if (subject.recurrence && subject.bookerActiveBookingsLimit) {
    throw invalidField(blame('recurrence', 'bookerActiveBookingsLimit'), 'a recurring event type cannot limit the active bookings of a booker');
  }
}
