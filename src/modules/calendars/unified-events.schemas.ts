import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../http/schema-types.js';

/** The reference's CalendarEventStatus and CalendarEventResponseStatus. */
export const EVENT_STATUSES = ['accepted', 'pending', 'declined', 'cancelled'] as const;
export const RESPONSE_STATUSES = ['accepted', 'pending', 'declined', 'needsAction'] as const;

export const UnifiedEventParams = Type.Object({
  calendar: Type.String({ description: 'The calendar app: `google` (the only one the reference serves here)' }),
  eventUid: Type.String({ minLength: 1, maxLength: 1024, description: "The provider's event id: a booking reference's `eventUid`" }),
});

const DateTimeWithZone = Type.Object({ time: Type.String({ format: 'date-time' }), timeZone: Type.String() });

const Location = Type.Object({
  type: StringEnum(['video', 'phone', 'sip', 'more'] as const),
  url: Type.String(),
  label: Type.Optional(Type.String()),
  pin: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  meetingCode: Type.Optional(Type.String()),
  accessCode: Type.Optional(Type.String()),
  regionCode: Type.Optional(Type.String()),
});

const Person = {
  email: Type.String(),
  name: Type.Optional(Type.String()),
  responseStatus: Nullable(StringEnum(RESPONSE_STATUSES)),
};

export const UnifiedEvent = Type.Object({
  start: DateTimeWithZone,
  end: DateTimeWithZone,
  id: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  locations: Type.Array(Location),
  attendees: Type.Array(Type.Object({ ...Person, self: Type.Optional(Type.Boolean()), optional: Type.Optional(Type.Boolean()), host: Type.Optional(Type.Boolean()) })),
  status: Nullable(StringEnum(EVENT_STATUSES)),
  hosts: Type.Array(Type.Object(Person)),
  calendarEventOwner: Type.Optional(Type.Object({ email: Type.String(), name: Type.Optional(Type.String()) })),
  source: StringEnum(['google'] as const),
});

const UpdateDateTime = Type.Object(
  {
    time: Type.Optional(Type.String({ format: 'date-time' })),
    timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

export const UpdateUnifiedEventBody = Type.Object(
  {
    start: Type.Optional(UpdateDateTime),
    end: Type.Optional(UpdateDateTime),
    title: Type.Optional(Type.String({ maxLength: 1024 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 8192 }))),
    attendees: Type.Optional(
      Type.Array(
        Type.Object({
          email: Type.String({ format: 'email', maxLength: 254 }),
          name: Type.Optional(Type.String({ maxLength: 255 })),
          responseStatus: Type.Optional(Nullable(StringEnum(RESPONSE_STATUSES))),
          self: Type.Optional(Nullable(Type.Boolean())),
          optional: Type.Optional(Nullable(Type.Boolean())),
          host: Type.Optional(Nullable(Type.Boolean())),
        }),
        { maxItems: 100, description: 'The whole list: attendees left out are removed from the event' },
      ),
    ),
    status: Type.Optional(Nullable(StringEnum(EVENT_STATUSES))),
  },
  { additionalProperties: false },
);
