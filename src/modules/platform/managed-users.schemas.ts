import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import { Email, Metadata, TimeFormat, TimeZone, UpdateMeBody } from '../users/users.schemas.js';

const Id = Type.Integer({ minimum: 1, maximum: 2147483647, description: 'A managed user of the client' });
export const ManagedUserParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 64 }), userId: Id });

/** The reference's GetManagedUsersInput: `limit`/`offset`, and `emails` separated by commas. */
export const ManagedUsersQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 50, description: 'At most this many users (default 50)' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Users to skip' })),
  emails: Type.Optional(
    Type.String({ minLength: 1, maxLength: 5000, description: 'Only these users, by email as sent at creation or as stored: separate several with commas' }),
  ),
});

/** The reference's Pagination, the query of the older `.../managed-users` list. */
export const ManagedUsersPageQuery = Type.Object({ limit: ManagedUsersQuery.properties.limit, offset: ManagedUsersQuery.properties.offset });

/** The reference's UpdateManagedUserInput, which is also PATCH /v2/me's body. */
export const UpdateManagedUserBody = UpdateMeBody;

const { email: _email, name: _name, defaultScheduleId: _defaultScheduleId, ...profileFields } = UpdateMeBody.properties;

/**
 * The reference's CreateManagedUserInput, which also takes `timeZone: null` (as if not sent) and
 * `timeFormat` as a string (it converts it to a number).
 */
export const CreateManagedUserBody = Type.Object({
  email: Email,
  name: Type.String({ minLength: 1, maxLength: 255 }),
  ...profileFields,
  timeZone: Type.Optional(Type.Union([TimeZone, Type.Null()], { description: 'Gives the user a Monday-Friday 09:00-17:00 default schedule in this zone; null or absent: none' })),
  timeFormat: Type.Optional(Type.Union([TimeFormat, StringEnum(['12', '24'] as const)], { description: '12 or 24 hour clock' })),
});

export const RefreshTokenBody = Type.Object({ refreshToken: Type.String({ minLength: 1, maxLength: 512, description: 'The refresh token to exchange' }) });

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** ManagedUserOutput. */
export const ManagedUserOutput = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String({ description: "The address given, with `+<clientId>` added to its local part (alice+<clientId>@example.com)" }),
    username: NullableString,
    name: NullableString,
    bio: NullableString,
    timeZone: Type.String(),
    weekStart: Type.String(),
    createdDate: Type.String({ format: 'date-time' }),
    timeFormat: Type.Union([Type.Integer(), Type.Null()]),
    defaultScheduleId: Type.Union([Type.Integer(), Type.Null()]),
    locale: NullableString,
    avatarUrl: NullableString,
    metadata: Metadata,
  },
  { $id: 'ManagedUserOutput' },
);

const tokenFields = {
  accessToken: Type.String({ description: 'Valid 60 minutes; send it as `Authorization: Bearer`' }),
  refreshToken: Type.String({ description: 'Valid a year; exchange it at POST /v2/oauth/{clientId}/refresh' }),
  accessTokenExpiresAt: Type.Integer({ description: 'Epoch milliseconds' }),
  refreshTokenExpiresAt: Type.Integer({ description: 'Epoch milliseconds' }),
};

export const TokensOutput = Type.Object(tokenFields);
export const CreatedManagedUserOutput = Type.Object({ user: ManagedUserOutput, ...tokenFields });
