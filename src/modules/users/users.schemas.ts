import { Type } from 'typebox';
import { IntegerEnum, StringEnum } from '../../http/schema-types.js';

export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

/** Locales the reference accepts for users (contract 2.3). */
export const LOCALES = [
  'ar', 'ca', 'de', 'es', 'eu', 'he', 'id', 'ja', 'lv', 'pl', 'ro', 'sr', 'th', 'vi', 'az', 'cs', 'el', 'es-419',
  'fi', 'hr', 'it', 'km', 'nl', 'pt', 'ru', 'sv', 'tr', 'zh-CN', 'bg', 'da', 'en', 'et', 'fr', 'hu', 'iw', 'ko',
  'no', 'pt-BR', 'sk', 'ta', 'uk', 'zh-TW', 'bn',
] as const;

export const TimeZone = Type.String({ format: 'time-zone', description: 'IANA time zone name, e.g. Europe/Rome' });
export const WeekStart = StringEnum(WEEKDAYS, { description: 'First day of the week' });
export const TimeFormat = IntegerEnum([12, 24] as const, { description: '12 or 24 hour clock' });
export const Locale = StringEnum(LOCALES);

/** At most 50 keys of up to 40 characters; values are strings (up to 500 characters), numbers or booleans. */
export const Metadata = Type.Record(
  Type.String(),
  Type.Union([Type.String({ maxLength: 500 }), Type.Number(), Type.Boolean()]),
  { maxProperties: 50, propertyNames: { maxLength: 40 }, description: 'Up to 50 keys (40 chars), values string (500 chars), number or boolean' },
);

export const Email = Type.String({ format: 'email', maxLength: 254 });
export const Username = Type.String({
  pattern: '^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$',
  description: 'Letters, digits, ".", "_" and "-"; unique',
});

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);

export const MeOutput = Type.Object(
  {
    id: Type.Integer(),
    username: NullableString,
    email: Type.String(),
    name: NullableString,
    avatarUrl: NullableString,
    bio: NullableString,
    timeFormat: TimeFormat,
    defaultScheduleId: NullableInteger,
    weekStart: WeekStart,
    timeZone: Type.String(),
    locale: NullableString,
    metadata: Metadata,
    organizationId: NullableInteger,
    organization: Type.Optional(Type.Object({ isPlatform: Type.Boolean(), id: Type.Integer() })),
  },
  { $id: 'MeOutput' },
);

export const AdminUserOutput = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    username: NullableString,
    name: NullableString,
    bio: NullableString,
    timeZone: Type.String(),
    weekStart: WeekStart,
    createdDate: Type.String({ format: 'date-time' }),
    timeFormat: TimeFormat,
    defaultScheduleId: NullableInteger,
    locale: NullableString,
    avatarUrl: NullableString,
    metadata: Metadata,
    role: Type.Union([Type.Literal('USER'), Type.Literal('ADMIN')]),
  },
  { $id: 'AdminUserOutput' },
);

/** `PATCH /v2/me`: the reference's managed-user update body; every field optional. */
export const UpdateMeBody = Type.Object({
  email: Type.Optional(Email),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  timeFormat: Type.Optional(TimeFormat),
  defaultScheduleId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'One of your schedules' })),
  weekStart: Type.Optional(WeekStart),
  timeZone: Type.Optional(TimeZone),
  locale: Type.Optional(Locale),
  avatarUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
  bio: Type.Optional(Type.String({ maxLength: 5000 })),
  metadata: Type.Optional(Metadata),
});

export const CreateUserBody = Type.Object({
  email: Email,
  name: Type.String({ minLength: 1, maxLength: 255 }),
  username: Type.Optional(Username),
  timeZone: Type.Optional(TimeZone),
  weekStart: Type.Optional(WeekStart),
  timeFormat: Type.Optional(TimeFormat),
  locale: Type.Optional(Locale),
  password: Type.Optional(Type.String({ minLength: 8, maxLength: 256 })),
  role: Type.Optional(
    StringEnum(['USER', 'ADMIN'] as const, {
      description: 'Default USER. ADMIN makes another system admin: full access to every /v2/admin route (creating and deleting users) with its API key.',
    }),
  ),
  bio: Type.Optional(Type.String({ maxLength: 5000 })),
  avatarUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
  metadata: Type.Optional(Metadata),
});

/** `PUT /v2/me/password`: the same bounds as a password given at creation. */
export const SetPasswordBody = Type.Object({ password: Type.String({ minLength: 8, maxLength: 256, description: 'The new password, 8 to 256 characters' }) });
