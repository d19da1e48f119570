import { Type } from 'typebox';

const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
const Reason = Type.Union([Type.Literal('unspecified'), Type.Literal('vacation'), Type.Literal('travel'), Type.Literal('sick'), Type.Literal('public_holiday')], {
  description: 'Why the user is away',
});
const Instant = (description: string, example: string) => Type.String({ description, examples: [example] });

/** The reference's CreateOutOfOfficeEntryDto: whole UTC days (the times of `start` and `end` are not kept). */
export const CreateOooBody = Type.Object(
  {
    start: Instant('First day away, in ISO 8601 in UTC: the entry starts at that day\'s 00:00:00.000Z.', '2023-05-01T00:00:00.000Z'),
    end: Instant('Last day away, in ISO 8601 in UTC: the entry ends at that day\'s 23:59:59.999Z.', '2023-05-10T23:59:59.999Z'),
    notes: Type.Optional(Type.String({ maxLength: 5000, description: 'Notes for the entry' })),
    toUserId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'The user covering for the time away' })),
    reason: Type.Optional(Reason),
  },
  { additionalProperties: false },
);
export const UpdateOooBody = Type.Partial(CreateOooBody, { additionalProperties: false });

export const OooOutput = Type.Object({
  userId: Type.Integer(),
  toUserId: Type.Union([Type.Integer(), Type.Null()]),
  id: Type.Integer(),
  uuid: Type.String(),
  start: Type.String({ format: 'date-time' }),
  end: Type.String({ format: 'date-time' }),
  notes: Type.Union([Type.String(), Type.Null()]),
  reason: Reason,
});

const Sort = Type.Union([Type.Literal('asc'), Type.Literal('desc')]);
export const OooListQuery = Type.Object({
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 250, description: 'Maximum number of items to return' })),
  skip: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Number of items to skip' })),
  sortStart: Type.Optional(Sort),
  sortEnd: Type.Optional(Sort),
});
export const OrgOooListQuery = Type.Object({
  ...OooListQuery.properties,
  email: Type.Optional(Type.String({ description: 'Only the entries of the organization user with this email' })),
});

export const OooIdParams = Type.Object({ oooId: Id });
export const OrgUserOooParams = Type.Object({ orgId: Id, userId: Id, oooId: Id });
