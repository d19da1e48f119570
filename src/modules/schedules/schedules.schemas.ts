import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import { TimeZone, WEEKDAYS } from '../users/users.schemas.js';

const Time = Type.String({ format: 'hh-mm', description: 'HH:mm, 24-hour; an end of "23:59" means until midnight' });

export const AvailabilityRule = Type.Object({
  days: Type.Array(StringEnum(WEEKDAYS), { minItems: 1, maxItems: 7 }),
  startTime: Time,
  endTime: Time,
});

export const DateOverride = Type.Object({
  date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD in the schedule time zone' }),
  startTime: Type.String({ format: 'hh-mm', description: 'HH:mm; "00:00" to "00:00" makes the whole day unavailable' }),
  endTime: Time,
});

export const CreateScheduleBody_2024_06_11 = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  timeZone: TimeZone,
  isDefault: Type.Boolean(),
  availability: Type.Optional(Type.Array(AvailabilityRule, { maxItems: 100, description: 'Defaults to Monday-Friday 09:00-17:00' })),
  overrides: Type.Optional(Type.Array(DateOverride, { maxItems: 1000 })),
});

export const UpdateScheduleBody_2024_06_11 = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  timeZone: Type.Optional(TimeZone),
  isDefault: Type.Optional(Type.Boolean()),
  availability: Type.Optional(Type.Array(AvailabilityRule, { maxItems: 100 })),
  overrides: Type.Optional(Type.Array(DateOverride, { maxItems: 1000 })),
});

export const ScheduleOutput_2024_06_11 = Type.Object(
  {
    id: Type.Integer(),
    ownerId: Type.Integer(),
    name: Type.String(),
    timeZone: Type.String(),
    availability: Type.Array(AvailabilityRule),
    isDefault: Type.Boolean(),
    overrides: Type.Array(DateOverride),
  },
  { $id: 'ScheduleOutput_2024_06_11' },
);

export const ScheduleIdParams = Type.Object({ scheduleId: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
