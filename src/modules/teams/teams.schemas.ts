import { Type } from 'typebox';
import { TakeSkipQuery } from '../../http/pagination.js';
import { StringEnum } from '../../http/schema-types.js';
import { Metadata, TimeFormat, TimeZone, WeekStart } from '../users/users.schemas.js';

export const MEMBERSHIP_ROLES = ['MEMBER', 'ADMIN', 'OWNER'] as const;
export const MembershipRoleSchema = StringEnum(MEMBERSHIP_ROLES, { description: 'MEMBER, ADMIN or OWNER' });

const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
export const TeamIdParams = Type.Object({ teamId: Id });
export const TeamMembershipParams = Type.Object({ teamId: Id, membershipId: Id });

export const Slug = Type.String({ pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', maxLength: 100, description: 'kebab-case; unique among the teams of the same parent' });
const Url = Type.String({ format: 'uri', maxLength: 2048 });
const HexColor = Type.String({ pattern: '^#(?:[0-9a-fA-F]{3}){1,2}$', description: 'Hex color, e.g. #ff0000' });

/** Fields a team is created and updated with (`CreateTeamInput` / `UpdateOrgTeamDto`). */
const teamFields = {
  slug: Type.Optional(Slug),
  logoUrl: Type.Optional(Url),
  svcVideoLogo: Type.Optional(Url),
  appLogo: Type.Optional(Url),
  appIconLogo: Type.Optional(Url),
  bio: Type.Optional(Type.String({ maxLength: 5000 })),
  hideBranding: Type.Optional(Type.Boolean()),
  isPrivate: Type.Optional(Type.Boolean()),
  hideBookATeamMember: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Metadata),
  theme: Type.Optional(Type.String({ maxLength: 100 })),
  brandColor: Type.Optional(HexColor),
  darkBrandColor: Type.Optional(HexColor),
  bannerUrl: Type.Optional(Url),
  timeFormat: Type.Optional(TimeFormat),
  timeZone: Type.Optional(TimeZone),
  weekStart: Type.Optional(WeekStart),
};

const TeamName = Type.String({ minLength: 1, maxLength: 255 });

export const CreateTeamBody = Type.Object({
  name: TeamName,
  ...teamFields,
  autoAcceptCreator: Type.Optional(Type.Boolean({ default: true, description: 'The creator\'s OWNER membership starts accepted (default true)' })),
});

export const BookingLimits = Type.Object(
  {
    day: Type.Optional(Type.Integer({ minimum: 1 })),
    week: Type.Optional(Type.Integer({ minimum: 1 })),
    month: Type.Optional(Type.Integer({ minimum: 1 })),
    year: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export const UpdateTeamBody = Type.Object({
  name: Type.Optional(TeamName),
  ...teamFields,
  bookingLimits: Type.Optional(BookingLimits),
  includeManagedEventsInLimits: Type.Optional(Type.Boolean()),
});

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** `TeamOutputDto` (and `OrgTeamOutputDto`). */
export const TeamOutput = Type.Object(
  {
    id: Type.Integer(),
    parentId: Type.Union([Type.Integer(), Type.Null()]),
    name: Type.String(),
    slug: NullableString,
    logoUrl: NullableString,
    svcVideoLogo: NullableString,
    appLogo: NullableString,
    appIconLogo: NullableString,
    bio: NullableString,
    hideBranding: Type.Boolean(),
    isOrganization: Type.Boolean(),
    isPrivate: Type.Boolean(),
    hideBookATeamMember: Type.Boolean(),
    metadata: Metadata,
    theme: NullableString,
    brandColor: NullableString,
    darkBrandColor: NullableString,
    bannerUrl: NullableString,
    timeFormat: Type.Union([TimeFormat, Type.Null()]),
    timeZone: Type.String(),
    weekStart: WeekStart,
  },
  { $id: 'TeamOutput' },
);

export const CreateMembershipBody = Type.Object({
  userId: Id,
  accepted: Type.Optional(Type.Boolean({ default: false })),
  role: Type.Optional(MembershipRoleSchema),
  disableImpersonation: Type.Optional(Type.Boolean({ default: false })),
});

export const UpdateMembershipBody = Type.Object({
  accepted: Type.Optional(Type.Boolean()),
  role: Type.Optional(MembershipRoleSchema),
  disableImpersonation: Type.Optional(Type.Boolean()),
  roleId: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
      description: 'svc extension: a custom role of this team or organization that adds its permissions to the member\'s (null removes it)',
    }),
  ),
});

/** `TeamMembershipOutput`. */
export const MembershipOutput = Type.Object(
  {
    id: Type.Integer(),
    userId: Type.Integer(),
    teamId: Type.Integer(),
    accepted: Type.Boolean(),
    role: MembershipRoleSchema,
    disableImpersonation: Type.Boolean(),
    customRoleId: NullableString,
    user: Type.Optional(
      Type.Object(
        {
          avatarUrl: NullableString,
          username: NullableString,
          name: NullableString,
          email: Type.String(),
          bio: NullableString,
          metadata: Metadata,
        },
        { description: 'Who the member is; absent while an invitation waits for their answer (svc: nobody is made a member without consent)' },
      ),
    ),
  },
  { $id: 'TeamMembershipOutput' },
);

/** `POST /v1/teams` (spec 2.8): the version 1 team input, with its required fields. */
export const CreateTeamBodyV1 = Type.Object({
  name: TeamName,
  slug: Slug,
  hideBookATeamMember: Type.Boolean(),
  brandColor: HexColor,
  darkBrandColor: HexColor,
  timeZone: TimeZone,
  weekStart: WeekStart,
  isPrivate: Type.Boolean(),
  ownerId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Only the system admin may set it: the user who becomes OWNER' })),
  parentId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'An organization the caller administers' })),
  bio: Type.Optional(Type.String({ maxLength: 5000 })),
  logoUrl: Type.Optional(Url),
  hideBranding: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Metadata),
});

export const ApiKeyQuery = Type.Object({ apiKey: Type.String({ minLength: 1, description: 'Your API key' }) });

/** `GetTeamMembershipsInput`: `take`/`skip`, and `emails` repeated or separated by commas (at most 20 distinct). */
export const TeamMembershipsQuery = Type.Object({
  ...TakeSkipQuery().properties,
  emails: Type.Optional(
    Type.Array(Type.String({ maxLength: 10000 }), {
      maxItems: 100,
      description: 'Only the members with one of these email addresses (any case): repeated, or separated by commas; at most 20 distinct addresses',
    }),
  ),
});
