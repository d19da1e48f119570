import type { MembershipRole } from '../../db/schema.js';

/**
 * PBAC permission strings (`resource.action`) an organization role may hold (contract 2.6). Team roles
 * hold the same minus the organization-only ones, with the team variants of the booking permissions.
 */
const SHARED_PERMISSIONS = [
  'role.create', 'role.read', 'role.update', 'role.delete',
  'eventType.create', 'eventType.read', 'eventType.update', 'eventType.delete',
  'team.read', 'team.update', 'team.delete', 'team.invite', 'team.remove', 'team.listMembers',
  'team.listMembersPrivate', 'team.changeMemberRole', 'team.impersonate',
  'booking.read', 'booking.readRecordings', 'booking.update',
  'insights.read',
  'workflow.create', 'workflow.read', 'workflow.update', 'workflow.delete',
  'routingForm.create', 'routingForm.read', 'routingForm.update', 'routingForm.delete',
  'webhook.create', 'webhook.read', 'webhook.update', 'webhook.delete',
] as const;

export const ORGANIZATION_PERMISSIONS: readonly string[] = [
  '*.*',
  ...SHARED_PERMISSIONS,
  'team.create',
  'organization.create', 'organization.read', 'organization.listMembers', 'organization.listMembersPrivate',
  'organization.invite', 'organization.remove', 'organization.manageBilling', 'organization.changeMemberRole',
  'organization.impersonate', 'organization.update',
  'booking.readOrgBookings', 'booking.readOrgAuditLogs',
  'organization.attributes.read', 'organization.attributes.update', 'organization.attributes.delete',
  'organization.attributes.create', 'organization.attributes.editUsers',
  'watchlist.create', 'watchlist.read', 'watchlist.update', 'watchlist.delete',
];

export const TEAM_PERMISSIONS: readonly string[] = [...SHARED_PERMISSIONS, 'booking.readTeamBookings', 'booking.readTeamAuditLogs'];

export type RoleScope = 'organization' | 'team';

export function permissionsOfScope(scope: RoleScope): readonly string[] {
  return scope === 'organization' ? ORGANIZATION_PERMISSIONS : TEAM_PERMISSIONS;
}

/**
 * The built-in (SYSTEM) roles, one per membership role, with the permissions the reference seeds them
 * with (its PBAC migrations), limited to the strings of each scope. They are read-only.
 */
const SYSTEM_ROLE_PERMISSIONS: Readonly<Record<MembershipRole, readonly string[]>> = {
  OWNER: ['*.*'],
  ADMIN: [
    'eventType.create', 'eventType.read', 'eventType.update', 'eventType.delete',
    'role.create', 'role.read', 'role.update', 'role.delete',
    'team.create', 'team.read', 'team.update', 'team.invite', 'team.remove', 'team.changeMemberRole', 'team.listMembers',
    'organization.read', 'organization.update', 'organization.listMembers', 'organization.invite', 'organization.remove', 'organization.manageBilling',
    'booking.read', 'booking.update', 'booking.readTeamBookings', 'booking.readOrgBookings', 'booking.readRecordings',
    'insights.read',
    'workflow.create', 'workflow.read', 'workflow.update', 'workflow.delete',
    'routingForm.create', 'routingForm.read', 'routingForm.update', 'routingForm.delete',
    'webhook.create', 'webhook.read', 'webhook.update', 'webhook.delete',
  ],
  MEMBER: [
    'eventType.read', 'team.read', 'team.listMembers', 'role.read', 'organization.read', 'organization.listMembers',
    'booking.read', 'booking.update', 'workflow.read', 'routingForm.read', 'webhook.read',
  ],
};

/**
 * What a membership role lets its holder do on svc's routes without a custom role, where the route
 * falls back to the role (`access.tenant` rules) for a permission the reference's seed of that role
 * lacks: an organization admin changes members' roles, deletes its teams and creates managed
 * organizations. test/roles/role-grants.test.ts fails when a route's rule and this table disagree.
 */
const ROLE_FALLBACK_PERMISSIONS: Readonly<Record<RoleScope, Partial<Record<MembershipRole, readonly string[]>>>> = {
  organization: {
    ADMIN: [
      'organization.changeMemberRole', 'organization.create', 'team.delete',
      'organization.attributes.read', 'organization.attributes.create', 'organization.attributes.update', 'organization.attributes.delete',
    ],
    MEMBER: ['organization.attributes.read'],
  },
  team: {},
};

/**
 * The PBAC permissions a membership role holds in an organization or team: all of them for an owner,
 * otherwise its built-in role's seed and what its role alone reaches on svc's routes. What a member
 * may grant to others is bounded by what they hold.
 */
export function permissionsHeldByRole(role: MembershipRole, scope: RoleScope): readonly string[] {
  if (role === 'OWNER') return ['*.*'];
  return [...SYSTEM_ROLE_PERMISSIONS[role], ...(ROLE_FALLBACK_PERMISSIONS[scope][role] ?? [])];
}

export const SYSTEM_ROLE_IDS: Readonly<Record<MembershipRole, string>> = { OWNER: 'owner_role', ADMIN: 'admin_role', MEMBER: 'member_role' };
const SYSTEM_ROLE_NAMES: Readonly<Record<MembershipRole, string>> = { OWNER: 'Owner', ADMIN: 'Admin', MEMBER: 'Member' };

export interface SystemRole {
  id: string;
  name: string;
  role: MembershipRole;
  permissions: string[];
}

export function systemRole(id: string, scope: RoleScope): SystemRole | undefined {
  const role = (Object.keys(SYSTEM_ROLE_IDS) as MembershipRole[]).find((key) => SYSTEM_ROLE_IDS[key] === id);
  if (!role) return undefined;
  const allowed = new Set(permissionsOfScope(scope));
  const permissions = role === 'OWNER' ? ['*.*'] : SYSTEM_ROLE_PERMISSIONS[role].filter((permission) => allowed.has(permission));
  return { id, name: SYSTEM_ROLE_NAMES[role], role, permissions };
}

/** Does a custom role's permission list grant every one of `required`? (`*.*` and `resource.*` are wildcards.) */
export function permissionsGrant(held: readonly string[], required: readonly string[]): boolean {
  if (required.length === 0 || held.includes('*.*')) return required.length > 0;
  return required.every((permission) => held.includes(permission) || held.includes(`${permission.slice(0, permission.lastIndexOf('.'))}.*`));
}
