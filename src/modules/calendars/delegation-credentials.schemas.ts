import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import { OrgIdParams } from '../organizations/organizations.schemas.js';

export const WORKSPACE_PLATFORMS = { google: 'Google', office365: 'Microsoft' } as const;

/**
 * A service account key as the workspace hands it out: Google's JSON key (client_email, client_id,
 * private_key and more, which svc ignores) or a Microsoft 365 app (tenant_id, client_id, and its client
 * secret in private_key, as the reference names it).
 */
const ServiceAccountKey = Type.Object(
  {
    private_key: Type.String({ minLength: 1, maxLength: 8192, description: 'Google: the PEM private key. Microsoft: the app\'s client secret. Stored sealed, never returned.' }),
    client_id: Type.String({ minLength: 1, maxLength: 255 }),
    client_email: Type.Optional(Type.String({ minLength: 3, maxLength: 320, description: 'Google: the service account\'s address.' })),
    tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Microsoft: the directory (tenant) id.' })),
  },
  { additionalProperties: true },
);

export const CreateDelegationCredentialBody = Type.Object(
  {
    workspacePlatformSlug: Type.String({ minLength: 1, maxLength: 40, description: '`google` (Google Workspace) or `office365` (Microsoft 365).' }),
    domain: Type.String({ minLength: 1, maxLength: 253, description: 'Members whose address is in this domain have their calendars read and written with the key.' }),
    serviceAccountKey: ServiceAccountKey,
  },
  { additionalProperties: false },
);

export const UpdateDelegationCredentialBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'true: the key is tried for a member of the domain, then their calendars are connected. false: those connections are removed.' })),
    serviceAccountKey: Type.Optional(ServiceAccountKey),
  },
  { additionalProperties: false },
);

export const DelegationCredentialParams = Type.Object({ ...OrgIdParams.properties, credentialId: Type.String({ minLength: 1, maxLength: 100 }) });

export const DelegationCredentialOutput = Type.Object({
  id: Type.String(),
  enabled: Type.Boolean(),
  domain: Type.String(),
  organizationId: Type.Integer(),
  workspacePlatform: Type.Object({ name: Type.String(), slug: StringEnum(['google', 'office365']) }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
