import { Type } from 'typebox';
import { Metadata } from '../users/users.schemas.js';
import { Slug } from '../teams/teams.schemas.js';

const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
export const OrgIdParams = Type.Object({ orgId: Id });

/** svc's bootstrap of organizations (the reference creates them in its web app). */
export const AdminCreateOrganizationBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  slug: Type.Optional(Slug),
  ownerId: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'The user who becomes its accepted OWNER' }),
  isPlatform: Type.Optional(Type.Boolean({ default: false, description: 'A platform organization: it may have OAuth clients, managed users and managed organizations' })),
  metadata: Type.Optional(Metadata),
});

export const AdminUpdateOrganizationBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  slug: Type.Optional(Slug),
  isPlatform: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Metadata),
});

export const AdminOrganizationOutput = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    slug: Type.String(),
    isOrganization: Type.Literal(true),
    isPlatform: Type.Boolean(),
    metadata: Metadata,
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'AdminOrganizationOutput' },
);

export const OrgTeamParams = Type.Object({ orgId: Id, teamId: Id });
export const OrgTeamMembershipParams = Type.Object({ orgId: Id, teamId: Id, membershipId: Id });
export const OrgMembershipParams = Type.Object({ orgId: Id, membershipId: Id });

export const InviteOutput = Type.Object({ token: Type.String({ description: '64 hexadecimal characters, shown once' }), inviteLink: Type.String({ format: 'uri' }) });
