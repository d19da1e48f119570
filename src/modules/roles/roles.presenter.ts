import type { RoleView } from './roles.service.js';

function presentRoleFields(role: RoleView) {
  return { id: role.id, name: role.name, color: role.color, description: role.description };
}

function presentRoleTail(role: RoleView) {
  return { type: role.type, permissions: role.permissions, createdAt: role.createdAt.toISOString(), updatedAt: role.updatedAt.toISOString() };
}

/** `OrgRoleOutput`. */
export function presentOrgRole(role: RoleView) {
  return { ...presentRoleFields(role), organizationId: role.teamId, ...presentRoleTail(role) };
}

/** `TeamRoleOutput`. */
export function presentTeamRole(role: RoleView) {
  return { ...presentRoleFields(role), teamId: role.teamId, ...presentRoleTail(role) };
}
