import { Type } from 'typebox';
import { TimeZone } from '../users/users.schemas.js';

const INT4_MAX = 2147483647;
const Name = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 255, description }));

/** Longest query window: a year and a day (366 days), enough for any calendar view or "next free" search. */
export const MAX_WINDOW_DAYS = 366;

export const SlotsQuery_2024_09_04 = Type.Object({
  start: Type.String({
    maxLength: 64,
    description: 'Earliest slot start: a date (YYYY-MM-DD, 00:00 in timeZone) or an ISO 8601 date-time (read in timeZone when it has no offset)',
  }),
  end: Type.String({
    maxLength: 64,
    description: `Latest slot start: a date (the end of that day in timeZone) or an ISO 8601 date-time; at most ${MAX_WINDOW_DAYS} days after start`,
  }),
  timeZone: Type.Optional({ ...TimeZone, description: 'Zone the slots are printed and grouped in (default UTC); it never changes which instants are offered' }),
  eventTypeId: Type.Optional(Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'The event type' })),
  eventTypeSlug: Name('With username (or teamSlug): the event type of that owner'),
  username: Name('Owner of eventTypeSlug'),
  teamSlug: Name('Team owning eventTypeSlug'),
  organizationSlug: Name('Organization of username, teamSlug or usernames'),
  usernames: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'At least two comma-separated usernames: slots of a dynamic group event they all attend' })),
  duration: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440, description: 'Slot length in minutes: one of the event type\'s lengths (dynamic events: 15, 30, 45, 60, 90; default 30)' })),
  format: Type.Optional(Type.String({ maxLength: 10, description: 'time (default): {start}; range: {start, end}' })),
  bookingUidToReschedule: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'A booking being rescheduled: its own time counts as free' })),
  privateLinkId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'svc: a private link of the event type (its linkId); alone, it names the event type. An expired or used-up link is a 404' }),
  ),
});

const SlotItem = Type.Object({
  start: Type.String({ description: 'ISO 8601 with the offset of timeZone (Z without one)' }),
  end: Type.Optional(Type.String({ description: 'format=range only' })),
  seatsBooked: Type.Optional(Type.Integer({ description: 'Seated event types only' })),
  seatsRemaining: Type.Optional(Type.Integer()),
  seatsTotal: Type.Optional(Type.Integer()),
  bookingUid: Type.Optional(Type.String({ description: 'The seated booking a new attendee joins' })),
});

export const SlotsOutput_2024_09_04 = Type.Record(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }), Type.Array(SlotItem), {
  description: 'Slots by local date in timeZone, in ascending order; {} when there are none',
});

export const ReserveSlotBody_2024_09_04 = Type.Object({
  eventTypeId: Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'The event type' }),
  slotStart: Type.String({ format: 'date-time', description: 'Start of an available slot, ISO 8601 (e.g. 2050-09-05T09:00:00Z)' }),
  slotDuration: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440, description: 'Variable-length event types: one of lengthInMinutesOptions (default: the event length)' })),
  reservationDuration: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1440, description: 'Minutes to hold the slot (default 5); only authenticated callers may set it' }),
  ),
});

export const ReservationOutput_2024_09_04 = Type.Object({
  eventTypeId: Type.Integer(),
  slotStart: Type.String(),
  slotEnd: Type.String(),
  slotDuration: Type.Integer(),
  reservationUid: Type.String(),
  reservationDuration: Type.Integer(),
  reservationUntil: Type.String(),
});

export const ReservedSlotOutput_2024_09_04 = Type.Object({
  eventTypeId: Type.Integer(),
  slotStart: Type.String(),
  slotEnd: Type.String(),
  slotDuration: Type.Integer(),
  reservationUid: Type.String(),
  reservationUntil: Type.String(),
});

export const ReservationUidParams = Type.Object({ uid: Type.String({ minLength: 1, maxLength: 100 }) });

/**
 * svc: hosts counted busy over part of the window because their connected calendars cannot be read
 * there (present only when there are some).
 */
export const DegradedHosts = Type.Array(
  Type.Object({
    userId: Type.Integer(),
    reason: Type.Union([Type.Literal('invalid_credentials'), Type.Literal('sync_failing'), Type.Literal('never_synced'), Type.Literal('beyond_sync_range')], {
      description: 'invalid_credentials: the calendar provider refused the connection (connect it again); sync_failing: reads have failed for longer than the grace period; never_synced: not read yet; beyond_sync_range: later than the time svc keeps synced.',
    }),
    since: Type.String({ format: 'date-time' }),
  }),
  { description: 'svc: hosts treated as busy where their connected calendars cannot be read (never shown free). Present only when not empty.' },
);

export const AwayHosts = Type.Array(
  Type.Object({
    userId: Type.Integer(),
    oooId: Type.Integer(),
    start: Type.String({ format: 'date-time' }),
    end: Type.String({ format: 'date-time' }),
    reason: Type.Union([Type.Literal('unspecified'), Type.Literal('vacation'), Type.Literal('travel'), Type.Literal('sick'), Type.Literal('public_holiday')]),
    toUser: Type.Union([Type.Object({ id: Type.Integer(), username: Type.Union([Type.String(), Type.Null()]), name: Type.Union([Type.String(), Type.Null()]) }), Type.Null()]),
  }),
  {
    description:
      "svc: hosts out of office somewhere in the window (their out-of-office entries, whose days offer no slot), with who covers for them (`toUser`): a booker can be sent to that user's event types. The entries' notes are not shown. Present only when not empty.",
  },
);
