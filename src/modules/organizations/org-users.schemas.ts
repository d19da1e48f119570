import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import { MembershipRoleSchema } from '../teams/teams.schemas.js';
import { Email, Locale, Metadata, TimeFormat, TimeZone, Username, WEEKDAYS, WeekStart } from '../users/users.schemas.js';

const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
export const OrgUserParams = Type.Object({ orgId: Id, userId: Id });
export const OrgUserScheduleParams = Type.Object({ orgId: Id, userId: Id, scheduleId: Id });
export const OrgTeamUserParams = Type.Object({ orgId: Id, teamId: Id, userId: Id });

/** `GetOrganizationsUsersInput`: `take` up to 1000; `emails` and `teamIds` repeated or comma-separated. */
export const OrgUsersQuery = Type.Object({
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 250, description: 'Maximum number of users to return (at most 1000)' })),
  skip: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Number of users to skip' })),
  emails: Type.Optional(Type.Array(Type.String({ maxLength: 5000 }), { maxItems: 100, description: 'Email addresses to filter by: repeated, or separated by commas' })),
  teamIds: Type.Optional(
    Type.Array(Type.String({ pattern: '^\\s*[0-9]{1,10}\\s*(,\\s*[0-9]{1,10}\\s*)*$' }), {
      maxItems: 100,
      description: 'Users with a membership in any of these teams of the organization: repeated, or separated by commas (e.g. 100,200)',
    }),
  ),
  assignedOptionIds: Type.Optional(
    Type.Array(Type.String({ maxLength: 5000 }), { maxItems: 100, description: 'Attribute option ids (repeated, or separated by commas): users holding them as attributeQueryOperator says' }),
  ),
  attributeQueryOperator: Type.Optional(StringEnum(['AND', 'OR', 'NONE'] as const, { description: 'AND (default): every option of assignedOptionIds; OR: at least one; NONE: none of them' })),
});

const HexColor = Type.String({ pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', description: 'Accepted for compatibility; svc does not store it' });
const Theme = Type.Union([Type.String({ maxLength: 32 }), Type.Null()], { description: 'Accepted for compatibility; svc does not store it' });

/** The user fields both bodies take (the reference's `CreateUserInput`, plus svc's `name` and `weekStart`). */
const userFields = {
  username: Type.Optional(Username),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  weekStart: Type.Optional(WeekStart),
  weekday: Type.Optional(StringEnum(WEEKDAYS, { description: "The reference's name for weekStart" })),
  timeZone: Type.Optional(TimeZone),
  timeFormat: Type.Optional(TimeFormat),
  locale: Type.Optional(Locale),
  bio: Type.Optional(Type.String({ maxLength: 5000 })),
  avatarUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
  metadata: Type.Optional(Metadata),
  brandColor: Type.Optional(HexColor),
  darkBrandColor: Type.Optional(HexColor),
  hideBranding: Type.Optional(Type.Boolean({ description: 'Accepted for compatibility; svc does not store it' })),
  theme: Type.Optional(Theme),
  appTheme: Type.Optional(Theme),
};

export const CreateOrgUserBody = Type.Object({
  email: Email,
  ...userFields,
  organizationRole: Type.Optional(MembershipRoleSchema),
  autoAccept: Type.Optional(Type.Boolean({ default: true, description: 'Whether the organization membership starts accepted' })),
});

export const UpdateOrgUserBody = Type.Object({
  email: Type.Optional(Email),
  ...userFields,
  defaultScheduleId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: "One of the user's schedules" })),
});

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableBoolean = Type.Union([Type.Boolean(), Type.Null()]);

/** `GetOrgUsersWithProfileOutput`. */
export const OrgUserOutput = Type.Object(
  {
    id: Type.Integer(),
    username: NullableString,
    name: NullableString,
    email: Type.String(),
    emailVerified: NullableString,
    bio: NullableString,
    avatarUrl: NullableString,
    timeZone: Type.String(),
    weekStart: Type.String(),
    appTheme: NullableString,
    theme: NullableString,
    defaultScheduleId: Type.Union([Type.Integer(), Type.Null()]),
    locale: NullableString,
    timeFormat: Type.Union([Type.Integer(), Type.Null()]),
    hideBranding: Type.Boolean(),
    brandColor: NullableString,
    darkBrandColor: NullableString,
    allowDynamicBooking: NullableBoolean,
    createdDate: Type.String({ format: 'date-time' }),
    verified: NullableBoolean,
    invitedTo: Type.Union([Type.Integer(), Type.Null()]),
    metadata: Metadata,
    profile: Type.Object({ id: Type.Integer(), organizationId: Type.Integer(), userId: Type.Integer(), username: NullableString }),
  },
  { $id: 'OrgUserOutput' },
);
