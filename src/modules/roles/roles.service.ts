import { randomUUID } from 'node:crypto';
import type { ChangeFeed } from '../../db/change-feed.js';
import type { Database, Db } from '../../db/client.js';
import { badRequest, fieldRejected, notFound } from '../../lib/errors.js';
import { permissionsOfScope, type RoleScope, systemRole } from '../access/permissions.js';
import type { Actor } from '../access/resource-policy.js';
import { assertHoldsPermissions, grantorStanding } from '../access/role-grants.js';
import { lockTeamAndParent } from '../teams/teams.repository.js';
import { tenancyWrite } from '../access/tenancy-cache.js';
import * as repo from './roles.repository.js';
import type { RoleRow } from './roles.repository.js';

export interface Deps {
  database: Database;
  changes: ChangeFeed;
}

/** The organization or team whose roles a route works on. */
export interface RoleOwner {
  scope: RoleScope;
  teamId: number;
  /** When the organization or team was made: the date its built-in roles show. */
  createdAt: Date;
}

/** A role as the API shows it: a stored custom role, or one of the built-in SYSTEM roles. */
export interface RoleView {
  id: string;
  /** The owning organization or team; null for a SYSTEM role, which every one of them shares. */
  teamId: number | null;
  name: string;
  color: string | null;
  description: string | null;
  type: 'SYSTEM' | 'CUSTOM';
  permissions: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface CreateRoleInput {
  name: string;
  color?: string | undefined;
  description?: string | undefined;
  permissions?: string[] | undefined;
}

export type UpdateRoleInput = Partial<CreateRoleInput>;

const roleNotFound = (teamId: number, roleId: string) => notFound('role_not_found', `Role with id ${roleId} within team id ${teamId} not found`);

const UPDATE_REFUSED = 'Cannot update default roles';
const DELETE_REFUSED = 'Cannot delete default roles';

function customView(row: RoleRow): RoleView {
  return { ...row, type: 'CUSTOM' };
}

function systemView(owner: RoleOwner, roleId: string): RoleView | undefined {
  const builtIn = systemRole(roleId, owner.scope);
  if (!builtIn) return undefined;
  return {
    id: builtIn.id,
    teamId: null,
    name: builtIn.name,
    color: null,
    description: `Built-in role of every ${builtIn.role} membership`,
    type: 'SYSTEM',
    permissions: builtIn.permissions,
    createdAt: owner.createdAt,
    updatedAt: owner.createdAt,
  };
}

/** Each permission must be one of the scope's catalogue (the reference's 400 names the field). */
function assertPermissions(scope: RoleScope, permissions: readonly string[], field: string): void {
  const allowed = new Set(permissionsOfScope(scope));
  for (const permission of permissions) {
    if (!allowed.has(permission)) {
      throw fieldRejected(
        field,
        'invalid_permission',
        `Permission '${permission}' must be a valid permission string in format 'resource.action' (e.g., 'eventType.read', 'booking.create')`,
        permission,
      );
    }
  }
}

const distinct = (permissions: readonly string[]) => [...new Set(permissions)];

async function assertNameFree(tx: Db, teamId: number, name: string, exceptId?: string): Promise<void> {
  if (!(await repo.isNameTaken(tx, teamId, name, exceptId))) return;
  const message = `Role with name "${name}" already exists`;
  // The reference answers a taken name with 400 (its roles service maps "already exists" to BadRequestException).
  throw badRequest('role_name_taken', message, { errors: [{ property: 'name', value: name, constraints: { name: message } }] });
}

/**
 * The custom role a write changes, locked: SYSTEM roles are read-only, another team's role is not found,
 * and a role holding a permission the caller does not hold is not theirs to change.
 */
async function writableRole(tx: Db, actor: Actor, owner: RoleOwner, roleId: string, refusal: string): Promise<RoleRow> {
  if (systemRole(roleId, owner.scope)) throw badRequest('default_role_read_only', refusal);
  const row = await repo.findRole(tx, owner.teamId, roleId, true);
  if (!row) throw roleNotFound(owner.teamId, roleId);
  assertHoldsPermissions(await grantorStanding(tx, actor, owner.teamId), row.permissions, 'edit');
  return row;
}

/** A role write grants only permissions the caller holds there (read after the locks the write takes). */
async function assertMayGrant(tx: Db, actor: Actor, owner: RoleOwner, permissions: readonly string[]): Promise<void> {
  assertHoldsPermissions(await grantorStanding(tx, actor, owner.teamId), permissions, 'grant');
}

export async function createRole(deps: Deps, actor: Actor, owner: RoleOwner, input: CreateRoleInput): Promise<RoleView> {
  const permissions = distinct(input.permissions ?? []);
  assertPermissions(owner.scope, permissions, 'permissions');
  return tenancyWrite(deps, async (tx) => {
    // Role writes of one team serialize on its row (and its organization's), so two creates cannot both
    // take a name, and the caller's standing cannot change under the write.
    await lockTeamAndParent(tx, owner.teamId);
    await assertMayGrant(tx, actor, owner, permissions);
    await assertNameFree(tx, owner.teamId, input.name);
    const row = await repo.insertRole(tx, {
      id: randomUUID(),
      teamId: owner.teamId,
      name: input.name,
      color: input.color ?? null,
      description: input.description ?? null,
      permissions,
    });
    return customView(row);
  });
}

/** A custom role of the owner, or a SYSTEM role by its id. */
export async function getRole(db: Db, owner: RoleOwner, roleId: string): Promise<RoleView> {
  const builtIn = systemView(owner, roleId);
  if (builtIn) return builtIn;
  const row = await repo.findRole(db, owner.teamId, roleId);
  if (!row) throw roleNotFound(owner.teamId, roleId);
  return customView(row);
}

/** The owner's custom roles (SYSTEM roles are not listed). */
export async function listRoles(db: Db, owner: RoleOwner, page: { skip: number; take: number }): Promise<RoleView[]> {
  return (await repo.listRoles(db, owner.teamId, page)).map(customView);
}

/** Only the fields sent change; `permissions` replaces the whole set. */
export async function updateRole(deps: Deps, actor: Actor, owner: RoleOwner, roleId: string, input: UpdateRoleInput): Promise<RoleView> {
  const permissions = input.permissions === undefined ? undefined : distinct(input.permissions);
  if (permissions) assertPermissions(owner.scope, permissions, 'permissions');
  return tenancyWrite(deps, async (tx) => {
    await lockTeamAndParent(tx, owner.teamId);
    const current = await writableRole(tx, actor, owner, roleId, UPDATE_REFUSED);
    if (permissions) await assertMayGrant(tx, actor, owner, permissions);
    if (input.name !== undefined) await assertNameFree(tx, owner.teamId, input.name, roleId);
    const changes: repo.RoleChanges = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.color !== undefined ? { color: input.color } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(permissions !== undefined ? { permissions } : {}),
    };
    return customView(Object.keys(changes).length === 0 ? current : await repo.updateRole(tx, roleId, changes));
  });
}

/** Deletes a custom role and answers it as it was; memberships that used it go on without it. */
export async function deleteRole(deps: Deps, actor: Actor, owner: RoleOwner, roleId: string): Promise<RoleView> {
  return tenancyWrite(deps, async (tx) => {
    await lockTeamAndParent(tx, owner.teamId);
    const current = await writableRole(tx, actor, owner, roleId, DELETE_REFUSED);
    await repo.deleteRole(tx, roleId);
    return customView(current);
  });
}

// The permissions sub-resource

export async function listPermissions(db: Db, owner: RoleOwner, roleId: string): Promise<string[]> {
  return (await getRole(db, owner, roleId)).permissions;
}

async function changePermissions(deps: Deps, actor: Actor, owner: RoleOwner, roleId: string, change: (current: string[]) => string[]): Promise<string[]> {
  return tenancyWrite(deps, async (tx) => {
    await lockTeamAndParent(tx, owner.teamId);
    const current = await writableRole(tx, actor, owner, roleId, UPDATE_REFUSED);
    const next = distinct(change(current.permissions));
    await assertMayGrant(tx, actor, owner, next);
    return (await repo.updateRole(tx, roleId, { permissions: next })).permissions;
  });
}

export async function addPermissions(deps: Deps, actor: Actor, owner: RoleOwner, roleId: string, permissions: string[]): Promise<string[]> {
  assertPermissions(owner.scope, permissions, 'permissions');
  return changePermissions(deps, actor, owner, roleId, (current) => [...current, ...permissions]);
}

export async function setPermissions(deps: Deps, actor: Actor, owner: RoleOwner, roleId: string, permissions: string[]): Promise<string[]> {
  assertPermissions(owner.scope, permissions, 'permissions');
  return changePermissions(deps, actor, owner, roleId, () => permissions);
}

/**
 * Removes permissions (`field` names where they came from: the `permissions` query or the `permission`
 * path parameter). Permissions the role does not hold are ignored.
 */
export async function removePermissions(deps: Deps, actor: Actor, owner: RoleOwner, roleId: string, permissions: string[], field: 'permissions' | 'permission'): Promise<void> {
  assertPermissions(owner.scope, permissions, field);
  const removed = new Set(permissions);
  await changePermissions(deps, actor, owner, roleId, (current) => current.filter((permission) => !removed.has(permission)));
}

/** `?permissions=a,b` or `?permissions=a&permissions=b`; sent but empty is refused, as the reference's ArrayNotEmpty. */
export function permissionsOfQuery(values: string[] | undefined): string[] {
  if (values === undefined) return [];
  const permissions = values.flatMap((value) => value.split(',')).map((permission) => permission.trim()).filter(Boolean);
  if (permissions.length === 0) throw fieldRejected('permissions', 'empty_permissions', 'permissions cannot be empty.', values);
  return permissions;
}
