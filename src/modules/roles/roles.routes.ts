import { type TSchema, Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { access } from '../../http/access.js';
import type { App } from '../../http/app.js';
import { Envelope, ok } from '../../http/envelope.js';
import { TakeSkipQuery } from '../../http/pagination.js';
import { principalOf, tenantOf } from '../../http/request-guard.js';
import { OrgIdParams, OrgTeamParams } from '../organizations/organizations.schemas.js';
import { presentOrgRole, presentTeamRole } from './roles.presenter.js';
import {
  CreateRoleBody,
  OrgRoleOutput,
  OrgRoleParams,
  OrgRolePermissionParams,
  OrgTeamRoleParams,
  OrgTeamRolePermissionParams,
  RemovePermissionsQuery,
  RolePermissionsBody,
  TeamRoleOutput,
  UpdateRoleBody,
} from './roles.schemas.js';
import * as roles from './roles.service.js';
import type { RoleOwner, RoleView } from './roles.service.js';

type Request = Parameters<typeof tenantOf>[0];

/** What differs between the organization's roles and an organization team's roles. */
interface RoleRoutesSpec {
  /** `/v2/organizations/:orgId/roles` or `/v2/organizations/:orgId/teams/:teamId/roles`. */
  base: string;
  /** As the reference's summaries say it. */
  noun: 'organization role' | 'organization team role';
  tag: string;
  params: { owner: TSchema; role: TSchema; permission: TSchema };
  output: TSchema;
  present: (role: RoleView) => unknown;
  owner: (request: Request) => RoleOwner;
}

const ACCESS_NOTE =
  'Required membership role: organization ADMIN (or OWNER), or a custom role holding the PBAC permission. Team roles too need the organization role, as in the reference.';
const SYSTEM_NOTE = 'SYSTEM roles (owner_role, admin_role, member_role) are read-only.';

const roleIdOf = (request: Request) => (request.params as { roleId: string }).roleId;

/** The reference's OrganizationsRolesController and its permissions controller, or their team twins. */
function registerRoleRoutes(app: App, ctx: AppContext, spec: RoleRoutesSpec): void {
  const tags = [spec.tag];
  const permissionTags = [`${spec.tag} / Permissions`];
  const tenant = (scope: 'ORG_MEMBERSHIP_READ' | 'ORG_MEMBERSHIP_WRITE', permission: string) =>
    access.tenant(scope, { role: 'ORG_ADMIN', permissions: [permission] });

  app.post(spec.base, {
    config: { access: tenant('ORG_MEMBERSHIP_WRITE', 'role.create') },
    schema: {
      tags,
      summary: `Create a new ${spec.noun}`,
      description: `${ACCESS_NOTE} PBAC permission: role.create. The name is unique within its owner, case-insensitively (409 naming name).`,
      params: spec.params.owner,
      body: CreateRoleBody,
      response: { 201: Envelope(spec.output) },
    },
    handler: async (request, reply) => reply.status(201).send(ok(spec.present(await roles.createRole(ctx, principalOf(request).user, spec.owner(request), request.body)))),
  });

  app.get(spec.base, {
    config: { access: tenant('ORG_MEMBERSHIP_READ', 'role.read') },
    schema: {
      tags,
      summary: `Get all ${spec.noun}s`,
      description: `${ACCESS_NOTE} PBAC permission: role.read. Lists the custom roles; SYSTEM roles are read by their id.`,
      params: spec.params.owner,
      querystring: TakeSkipQuery(),
      response: { 200: Envelope(Type.Array(spec.output)) },
    },
    handler: async (request) => {
      const rows = await roles.listRoles(ctx.database.db, spec.owner(request), { skip: request.query.skip ?? 0, take: request.query.take ?? 250 });
      return ok(rows.map(spec.present));
    },
  });

  app.get(`${spec.base}/:roleId`, {
    config: { access: tenant('ORG_MEMBERSHIP_READ', 'role.read') },
    schema: { tags, summary: `Get a specific ${spec.noun}`, description: `${ACCESS_NOTE} PBAC permission: role.read.`, params: spec.params.role, response: { 200: Envelope(spec.output) } },
    handler: async (request) => ok(spec.present(await roles.getRole(ctx.database.db, spec.owner(request), roleIdOf(request)))),
  });

  app.patch(`${spec.base}/:roleId`, {
    config: { access: tenant('ORG_MEMBERSHIP_WRITE', 'role.update') },
    schema: {
      tags,
      summary: `Update an ${spec.noun}`,
      description: `${ACCESS_NOTE} PBAC permission: role.update. Only the fields sent change; \`permissions\` replaces the whole set. ${SYSTEM_NOTE}`,
      params: spec.params.role,
      body: UpdateRoleBody,
      response: { 200: Envelope(spec.output) },
    },
    handler: async (request) => ok(spec.present(await roles.updateRole(ctx, principalOf(request).user, spec.owner(request), roleIdOf(request), request.body))),
  });

  app.delete(`${spec.base}/:roleId`, {
    config: { access: tenant('ORG_MEMBERSHIP_WRITE', 'role.delete') },
    schema: {
      tags,
      summary: `Delete an ${spec.noun}`,
      description: `${ACCESS_NOTE} PBAC permission: role.delete. Answers the deleted role; memberships that had it keep their membership role without it. ${SYSTEM_NOTE}`,
      params: spec.params.role,
      response: { 200: Envelope(spec.output) },
    },
    handler: async (request) => ok(spec.present(await roles.deleteRole(ctx, principalOf(request).user, spec.owner(request), roleIdOf(request)))),
  });

  const permissionsPath = `${spec.base}/:roleId/permissions`;
  const PermissionList = Envelope(Type.Array(Type.String(), { description: "The role's permissions" }));
  const noContent = { 204: Type.Null({ description: 'No content' }) };

  app.post(permissionsPath, {
    config: { access: tenant('ORG_MEMBERSHIP_WRITE', 'role.update') },
    schema: {
      tags: permissionTags,
      summary: `Add permissions to an ${spec.noun} (single or batch)`,
      description: `${ACCESS_NOTE} PBAC permission: role.update. Answers 200 with the role's permissions. ${SYSTEM_NOTE}`,
      params: spec.params.role,
      body: RolePermissionsBody,
      response: { 200: PermissionList },
    },
    handler: async (request) => ok(await roles.addPermissions(ctx, principalOf(request).user, spec.owner(request), roleIdOf(request), request.body.permissions)),
  });

  app.get(permissionsPath, {
    config: { access: tenant('ORG_MEMBERSHIP_READ', 'role.read') },
    schema: { tags: permissionTags, summary: `List permissions for an ${spec.noun}`, description: `${ACCESS_NOTE} PBAC permission: role.read.`, params: spec.params.role, response: { 200: PermissionList } },
    handler: async (request) => ok(await roles.listPermissions(ctx.database.db, spec.owner(request), roleIdOf(request))),
  });

  app.put(permissionsPath, {
    config: { access: tenant('ORG_MEMBERSHIP_WRITE', 'role.update') },
    schema: {
      tags: permissionTags,
      summary: `Replace all permissions for an ${spec.noun}`,
      description: `${ACCESS_NOTE} PBAC permission: role.update. ${SYSTEM_NOTE}`,
      params: spec.params.role,
      body: RolePermissionsBody,
      response: { 200: PermissionList },
    },
    handler: async (request) => ok(await roles.setPermissions(ctx, principalOf(request).user, spec.owner(request), roleIdOf(request), request.body.permissions)),
  });

  app.delete(permissionsPath, {
    config: { access: tenant('ORG_MEMBERSHIP_WRITE', 'role.update') },
    schema: {
      tags: permissionTags,
      summary: `Remove multiple permissions from an ${spec.noun}`,
      description: `${ACCESS_NOTE} PBAC permission: role.update. Answers 204 without a body. ${SYSTEM_NOTE}`,
      params: spec.params.role,
      querystring: RemovePermissionsQuery,
      response: noContent,
    },
    handler: async (request, reply) => {
      const permissions = roles.permissionsOfQuery(request.query.permissions);
      await roles.removePermissions(ctx, principalOf(request).user, spec.owner(request), roleIdOf(request), permissions, 'permissions');
      return reply.status(204).send(null);
    },
  });

  app.delete(`${permissionsPath}/:permission`, {
    config: { access: tenant('ORG_MEMBERSHIP_WRITE', 'role.update') },
    schema: {
      tags: permissionTags,
      summary: `Remove a permission from an ${spec.noun}`,
      description: `${ACCESS_NOTE} PBAC permission: role.update. Answers 204 without a body. ${SYSTEM_NOTE}`,
      params: spec.params.permission,
      response: noContent,
    },
    handler: async (request, reply) => {
      const { permission } = request.params as { permission: string };
      await roles.removePermissions(ctx, principalOf(request).user, spec.owner(request), roleIdOf(request), [permission], 'permission');
      return reply.status(204).send(null);
    },
  });
}

/** `/v2/organizations/:orgId/roles...` and `/v2/organizations/:orgId/teams/:teamId/roles...`: PBAC custom roles. */
export function registerRolesRoutes(app: App, ctx: AppContext): void {
  registerRoleRoutes(app, ctx, {
    base: '/v2/organizations/:orgId/roles',
    noun: 'organization role',
    tag: 'Orgs / Roles',
    params: { owner: OrgIdParams, role: OrgRoleParams, permission: OrgRolePermissionParams },
    output: OrgRoleOutput,
    present: presentOrgRole,
    owner: (request) => {
      const organization = tenantOf(request).organization!;
      return { scope: 'organization', teamId: organization.id, createdAt: organization.createdAt };
    },
  });
  registerRoleRoutes(app, ctx, {
    base: '/v2/organizations/:orgId/teams/:teamId/roles',
    noun: 'organization team role',
    tag: 'Orgs / Teams / Roles',
    params: { owner: OrgTeamParams, role: OrgTeamRoleParams, permission: OrgTeamRolePermissionParams },
    output: TeamRoleOutput,
    present: presentTeamRole,
    owner: (request) => {
      const team = tenantOf(request).team!;
      return { scope: 'team', teamId: team.id, createdAt: team.createdAt };
    },
  });
}
