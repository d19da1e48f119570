import { Type } from 'typebox';
import { PaginationOutput, TakeSkipQuery } from '../../http/pagination.js';
import { MAX_API_KEY_DAYS_VALID } from '../api-keys/api-keys.schemas.js';
import { Slug } from '../teams/teams.schemas.js';
import { Metadata } from '../users/users.schemas.js';

const Id = (description: string) => Type.Integer({ minimum: 1, maximum: 2147483647, description });

export const ManagerOrgParams = Type.Object({ orgId: Id('The manager organization (a platform organization)') });
export const ManagedOrgParams = Type.Object({ orgId: Id('The manager organization'), managedOrganizationId: Id('One of its managed organizations') });

const Name = Type.String({ minLength: 1, maxLength: 255 });

/** The reference's CreateOrganizationInput (with RefreshApiKeyInput's key validity). */
export const CreateManagedOrganizationBody = Type.Object({
  name: Name,
  slug: Type.Optional(Slug),
  metadata: Type.Optional(Metadata),
  // No schema default: a default filled in here could not be told from a value sent with apiKeyNeverExpires.
  apiKeyDaysValid: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_API_KEY_DAYS_VALID, description: "Days until the caller's new API key expires, at most 36500; default 30" })),
  apiKeyNeverExpires: Type.Optional(Type.Boolean({ description: 'When true the new API key never expires' })),
});

/** The reference's UpdateOrganizationInput. */
export const UpdateManagedOrganizationBody = Type.Object({
  name: Type.Optional(Name),
  metadata: Type.Optional(Metadata),
});

export const ManagedOrganizationsQuery = Type.Object({
  ...TakeSkipQuery().properties,
  slug: Type.Optional(Type.String({ maxLength: 100, description: 'Only the managed organization with this slug' })),
  metadataKey: Type.Optional(Type.String({ maxLength: 40, description: 'A metadata key, case-sensitive; needs metadataValue' })),
  metadataValue: Type.Optional(Type.String({ maxLength: 500, description: 'Its string value, case-sensitive; needs metadataKey' })),
});

export const ManagedOrganizationOutput = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  slug: Type.String(),
  metadata: Metadata,
});

export const ManagedOrganizationWithApiKeyOutput = Type.Object({
  ...ManagedOrganizationOutput.properties,
  apiKey: Type.String({ pattern: '^svc_', description: "An API key of the caller's, shown this once" }),
});

export const ManagedOrganizationsListOutput = Type.Object({ status: Type.Literal('success'), data: Type.Array(ManagedOrganizationOutput), pagination: PaginationOutput });
