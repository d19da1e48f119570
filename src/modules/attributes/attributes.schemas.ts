import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';

export const ATTRIBUTE_TYPES = ['TEXT', 'NUMBER', 'SINGLE_SELECT', 'MULTI_SELECT'] as const;

const OrgId = Type.Integer({ minimum: 1, maximum: 2147483647, description: 'The organization' });
const AttributeId = Type.String({ minLength: 1, maxLength: 64, description: 'The attribute' });
const UserId = Type.Integer({ minimum: 1, maximum: 2147483647, description: 'A member of the organization' });

export const OrgAttributesParams = Type.Object({ orgId: OrgId });
export const AttributeParams = Type.Object({ orgId: OrgId, attributeId: AttributeId });
export const AttributeSlugParams = Type.Object({ orgId: OrgId, attributeSlug: Type.String({ minLength: 1, maxLength: 255 }) });
export const OptionParams = Type.Object({ orgId: OrgId, attributeId: AttributeId, optionId: Type.String({ minLength: 1, maxLength: 64 }) });
export const MemberParams = Type.Object({ orgId: OrgId, userId: UserId });
export const MemberOptionParams = Type.Object({ orgId: OrgId, userId: UserId, attributeOptionId: Type.String({ minLength: 1, maxLength: 64 }) });

const Name = Type.String({ minLength: 1, maxLength: 255, description: 'Shown to people' });
const Slug = Type.String({ minLength: 1, maxLength: 255, description: 'Unique in the organization (case-insensitive)' });
const Value = Type.String({ minLength: 1, maxLength: 500 });
const OptionSlug = Type.String({ minLength: 1, maxLength: 255, description: 'Unique in the attribute (case-insensitive)' });
const OptionInput = Type.Object({ value: Value, slug: OptionSlug });

export const CreateAttributeBody = Type.Object({
  name: Name,
  slug: Slug,
  type: StringEnum(ATTRIBUTE_TYPES),
  options: Type.Array(OptionInput, { maxItems: 500, description: 'The choices of a SINGLE_SELECT or MULTI_SELECT attribute (ignored for TEXT and NUMBER, as the reference does: their options are the values given to members)' }),
  enabled: Type.Optional(Type.Boolean({ description: 'Shown on the members\' profiles (default true)' })),
});

export const UpdateAttributeBody = Type.Object({
  name: Type.Optional(Name),
  slug: Type.Optional(Slug),
  type: Type.Optional(StringEnum(ATTRIBUTE_TYPES)),
  enabled: Type.Optional(Type.Boolean()),
});

export const CreateOptionBody = OptionInput;
export const UpdateOptionBody = Type.Object({ value: Type.Optional(Value), slug: Type.Optional(OptionSlug) });

export const AssignBody = Type.Object({
  attributeId: AttributeId,
  attributeOptionId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'An option of the attribute' })),
  value: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'TEXT and NUMBER attributes: the member\'s value (an option of that value is made if none exists)' })),
});

export const AssignedOptionsQuery = Type.Object({
  skip: Type.Optional(Type.Integer({ minimum: 0, description: 'Number of options to skip' })),
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Number of options to return (default 250)' })),
  assignedOptionIds: Type.Optional(Type.Array(Type.String({ maxLength: 5000 }), { maxItems: 100, description: 'Options held by members who also hold one of these option ids (repeated, or separated by commas)' })),
  teamIds: Type.Optional(Type.Array(Type.String({ pattern: '^\\s*[0-9]{1,10}\\s*(,\\s*[0-9]{1,10}\\s*)*$' }), { maxItems: 100, description: 'Options held by members of one of these teams of the organization' })),
});

export const AttributeOutput = Type.Object({
  id: Type.String(),
  teamId: Type.Integer({ description: 'The organization' }),
  type: StringEnum(ATTRIBUTE_TYPES),
  name: Type.String(),
  slug: Type.String(),
  enabled: Type.Boolean(),
  usersCanEditRelation: Type.Boolean(),
});

export const OptionOutput = Type.Object({ id: Type.String(), attributeId: Type.String(), value: Type.String(), slug: Type.String() });
export const AssignedOptionOutput = Type.Object({ ...OptionOutput.properties, assignedUserIds: Type.Array(Type.Integer()) });
export const AssignmentOutput = Type.Object({ id: Type.String(), memberId: Type.Integer({ description: 'The member\'s organization membership' }), attributeOptionId: Type.String() });
