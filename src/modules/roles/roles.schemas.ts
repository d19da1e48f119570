import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';

const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
const RoleId = Type.String({ minLength: 1, maxLength: 64, description: 'A custom role id, or a SYSTEM role id: owner_role, admin_role, member_role' });
const Permission = Type.String({ minLength: 1, maxLength: 100, description: "A permission string 'resource.action' of the role's scope, e.g. 'eventType.read'" });

export const OrgRoleParams = Type.Object({ orgId: Id, roleId: RoleId });
export const OrgTeamRoleParams = Type.Object({ orgId: Id, teamId: Id, roleId: RoleId });
export const OrgRolePermissionParams = Type.Object({ orgId: Id, roleId: RoleId, permission: Permission });
export const OrgTeamRolePermissionParams = Type.Object({ orgId: Id, teamId: Id, roleId: RoleId, permission: Permission });

const roleFields = {
  color: Type.Optional(Type.String({ maxLength: 50, description: 'Color for the role (hex code)' })),
  description: Type.Optional(Type.String({ maxLength: 1000, description: 'Description of the role' })),
  permissions: Type.Optional(
    Type.Array(Permission, {
      maxItems: 200,
      description: 'Permissions for this role (format: resource.action). On update, this field replaces the entire permission set of the role (full replace).',
    }),
  ),
};

const RoleName = Type.String({ minLength: 1, maxLength: 255, description: 'Name of the role: unique within its organization or team, case-insensitively' });

export const CreateRoleBody = Type.Object({ name: RoleName, ...roleFields });
export const UpdateRoleBody = Type.Object({ name: Type.Optional(RoleName), ...roleFields });

export const RolePermissionsBody = Type.Object({
  permissions: Type.Array(Permission, { maxItems: 200, description: 'Permissions (format: resource.action)' }),
});

export const RemovePermissionsQuery = Type.Object({
  permissions: Type.Optional(
    Type.Array(Type.String({ maxLength: 2000 }), {
      maxItems: 200,
      description: 'Permissions to remove (format: resource.action): comma-separated values, or the parameter repeated',
    }),
  ),
});

const roleOutputFields = {
  id: Type.String(),
  name: Type.String(),
  color: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
};
const roleOutputTail = {
  type: StringEnum(['SYSTEM', 'CUSTOM'] as const, { description: 'SYSTEM roles are built in and read-only' }),
  permissions: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};

/** `OrgRoleOutput`: `organizationId` is null for a SYSTEM role (shared by every organization). */
export const OrgRoleOutput = Type.Object(
  { ...roleOutputFields, organizationId: Type.Union([Type.Integer(), Type.Null()]), ...roleOutputTail },
  { $id: 'OrgRoleOutput' },
);

/** `TeamRoleOutput`: `teamId` is null for a SYSTEM role. */
export const TeamRoleOutput = Type.Object({ ...roleOutputFields, teamId: Type.Union([Type.Integer(), Type.Null()]), ...roleOutputTail }, { $id: 'TeamRoleOutput' });
