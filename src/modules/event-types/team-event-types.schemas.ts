import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import { EventTypeOutputFields, LengthInMinutes, OptionalFields, Slug, Title } from './event-types.schemas.js';

const INT4_MAX = 2147483647;
const Id = Type.Integer({ minimum: 1, maximum: INT4_MAX });

/** The reference's labels of host priorities, lowest (0) to highest (4). */
export const HOST_PRIORITIES = ['lowest', 'low', 'medium', 'high', 'highest'] as const;
/** The wire values; the reference also lets its internal upper-case names through its enum check. */
const SCHEDULING_TYPES = ['collective', 'roundRobin', 'managed', 'COLLECTIVE', 'ROUND_ROBIN', 'MANAGED'] as const;

const HostInput = Type.Object({
  userId: Id,
  mandatory: Type.Optional(Type.Boolean({ description: 'Round robin: this host attends every booking (default false); collective hosts always do' })),
  priority: Type.Optional(StringEnum(HOST_PRIORITIES, { description: 'Round robin: preference among available hosts (default medium)' })),
  weight: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'svc: round-robin share of bookings (default 100)' })),
});

const EmailSettingsInput = Type.Object(
  { disableEmailsToAttendees: Type.Optional(Type.Boolean()), disableEmailsToHosts: Type.Optional(Type.Boolean()) },
  { description: 'Organization team event types only' },
);

const TeamFields = {
  hosts: Type.Optional(
    Type.Array(HostInput, {
      maxItems: 1000,
      description: 'Accepted members of the team. Collective and managed: either hosts or assignAllTeamMembers. Round robin with assignAllTeamMembers: only mandatory entries count (fixed hosts)',
    }),
  ),
  assignAllTeamMembers: Type.Optional(Type.Boolean({ description: 'Every current and future accepted member is a host (managed: gets the event type)' })),
  emailSettings: Type.Optional(EmailSettingsInput),
  rescheduleWithSameRoundRobinHost: Type.Optional(Type.Boolean({ description: 'Round robin: a rescheduled booking keeps its host' })),
  isRRWeightsEnabled: Type.Optional(Type.Boolean({ description: "svc extension. Round robin: share bookings by the hosts' weights" })),
  assignRRMembersUsingSegment: Type.Optional(Type.Boolean({ description: 'Round robin in an organization team: only hosts whose organization attributes satisfy rrSegmentQuery take bookings' })),
  rrSegmentQuery: Type.Optional(
    Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description: 'svc extension. A JsonLogic condition over the hosts\' attributes, `attributes.<slug>`: e.g. {"==": [{"var": "attributes.region"}, "Europe"]}; a MULTI_SELECT value is an array ({"in": ["German", {"var": "attributes.languages"}]}). null: every host',
    }),
  ),
};

export const CreateTeamEventTypeBody = Type.Object({
  lengthInMinutes: LengthInMinutes,
  title: Title,
  slug: Slug,
  schedulingType: StringEnum(SCHEDULING_TYPES, { description: 'collective, roundRobin or managed' }),
  ...OptionalFields,
  ...TeamFields,
});

export const UpdateTeamEventTypeBody = Type.Object({
  lengthInMinutes: Type.Optional(LengthInMinutes),
  title: Type.Optional(Title),
  slug: Type.Optional(Slug),
  schedulingType: Type.Optional(StringEnum(SCHEDULING_TYPES, { description: 'collective <-> roundRobin only, with hosts or assignAllTeamMembers' })),
  ...OptionalFields,
  ...TeamFields,
});

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const HostOutput = Type.Object({
  userId: Type.Integer(),
  name: Type.String(),
  username: Type.String(),
  avatarUrl: Type.Union([Type.String(), Type.Null()]),
  mandatory: Type.Optional(Type.Boolean()),
  priority: Type.Optional(StringEnum(HOST_PRIORITIES)),
  weight: Type.Optional(Type.Integer()),
});

const { users: _users, ownerId: _ownerId, ...sharedOutputFields } = EventTypeOutputFields;

/** `TeamEventTypeOutput_2024_06_14`: the personal output without `users`, with the team's fields. */
export const TeamEventTypeOutput = Type.Object(
  {
    ...sharedOutputFields,
    bookingUrl: Type.String({ description: 'The public booking page: <APP_URL>/team/<team slug>/<slug>' }),
    teamId: Type.Union([Type.Integer(), Type.Null()]),
    ownerId: Type.Union([Type.Integer(), Type.Null()]),
    parentEventTypeId: Type.Union([Type.Integer(), Type.Null()]),
    hosts: Type.Array(HostOutput),
    assignAllTeamMembers: Type.Boolean(),
    schedulingType: Type.Union([StringEnum(['collective', 'roundRobin', 'managed'] as const), Type.Null()]),
    team: Type.Object({
      id: Type.Integer(),
      slug: Type.String(),
      name: Type.String(),
      bannerUrl: Nullable(Type.String()),
      logoUrl: Nullable(Type.String()),
      weekStart: Type.String(),
      brandColor: Nullable(Type.String()),
      darkBrandColor: Nullable(Type.String()),
      theme: Nullable(Type.String()),
    }),
    emailSettings: Type.Optional(Type.Object({ disableEmailsToAttendees: Type.Boolean(), disableEmailsToHosts: Type.Boolean() })),
    rescheduleWithSameRoundRobinHost: Type.Boolean(),
    assignRRMembersUsingSegment: Type.Boolean(),
    rrSegmentQuery: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'svc extension (see the input)' }),
  },
  { title: 'TeamEventTypeOutput_2024_06_14' },
);

export const DeletedTeamEventTypeOutput = Type.Object({ id: Type.Integer(), title: Type.String() });

export const TeamEventTypeParams = Type.Object({ teamId: Id, eventTypeId: Id });
export const OrgTeamEventTypeParams = Type.Object({ orgId: Id, teamId: Id, eventTypeId: Id });

const SortCreatedAt = Type.Optional(StringEnum(['asc', 'desc'] as const, { description: 'Order by creation; default: oldest first' }));

export const TeamEventTypesQuery = Type.Object({
  eventSlug: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only the event type with this slug' })),
  hostsLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'With eventSlug: at most this many hosts are printed' })),
  sortCreatedAt: SortCreatedAt,
});

export const OrganizationEventTypesQuery = Type.Object({
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, description: 'Maximum number of items to return (default 250)' })),
  skip: Type.Optional(Type.Integer({ minimum: 0, description: 'Number of items to skip (default 0)' })),
  sortCreatedAt: SortCreatedAt,
});
