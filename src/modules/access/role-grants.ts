/**
 * Who may give, change and take roles in a team or organization: the reference's role manager (its
 * messages), extended so that no permission becomes a ladder. A member acts on others only up to their
 * own standing: they give no role above their own (only an OWNER gives OWNER), no custom role holding a
 * permission they do not hold, touch no member above them (an ADMIN never changes or removes an OWNER),
 * and nobody raises their own role. Services ask these inside their transaction, after locking the team
 * (and its organization), with the caller's standing read there, so two changes racing see each other.
 */
import type { Db } from '../../db/client.js';
import type { MembershipRole } from '../../db/schema.js';
import { forbidden } from '../../lib/errors.js';
import { loadTenancy } from './access.repository.js';
import { permissionsGrant, permissionsHeldByRole } from './permissions.js';
import type { Actor } from './resource-policy.js';

const RANK: Readonly<Record<MembershipRole, number>> = { MEMBER: 0, ADMIN: 1, OWNER: 2 };
const NO_ROLE = -1;

/** What the caller holds in one team or organization. */
export interface GrantorStanding {
  userId: number;
  /** The system admin is bound by none of these rules. */
  systemAdmin: boolean;
  /** The highest membership role the caller acts with there (an organization's role counts on its teams); null without any. */
  role: MembershipRole | null;
  /** Every PBAC permission the caller holds there (`*.*` for an owner). */
  permissions: readonly string[];
}

/** A member as the rules see them: their membership role and the permissions of their custom role. */
export interface MemberStanding {
  userId: number;
  role: MembershipRole;
  customPermissions: readonly string[];
}

/** What a membership is to become: its role, and its custom role's permissions (null: none). */
export interface Grant {
  role: MembershipRole;
  customPermissions: readonly string[] | null;
}

const rankOf = (role: MembershipRole | null) => (role === null ? NO_ROLE : RANK[role]);

/** The permissions of `wanted` the grantor does not hold. */
export function permissionsNotHeld(grantor: GrantorStanding, wanted: readonly string[]): string[] {
  if (grantor.systemAdmin) return [];
  return wanted.filter((permission) => !permissionsGrant(grantor.permissions, [permission]));
}

/** Creating or editing a role grants only what the caller holds (and edits no role holding more). */
export function assertHoldsPermissions(grantor: GrantorStanding, permissions: readonly string[], what: 'grant' | 'edit'): void {
  const missing = permissionsNotHeld(grantor, permissions);
  if (missing.length === 0) return;
  throw forbidden(
    'permission_not_held',
    what === 'grant'
      ? `You can not grant permissions you do not hold: ${missing.join(', ')}.`
      : `You can not change a role holding permissions you do not hold: ${missing.join(', ')}.`,
  );
}

/** The member is nobody the grantor may act on: an OWNER for a non-owner, anyone ranked or holding above them. */
function assertNotAbove(grantor: GrantorStanding, target: MemberStanding, removal: boolean): void {
  if (target.userId === grantor.userId) return;
  if (target.role === 'OWNER' && rankOf(grantor.role) < RANK.OWNER) {
    throw forbidden(
      'owner_membership_owners_only',
      removal ? 'You can not remove an owner if you are not an owner.' : 'You can not change the role of an owner if you are an admin.',
    );
  }
  if (RANK[target.role] > rankOf(grantor.role)) {
    throw forbidden('member_above_own_role', `You can not ${removal ? 'remove' : 'change the membership of'} a member whose role (${target.role}) is above yours.`);
  }
  const beyond = permissionsNotHeld(grantor, target.customPermissions);
  if (beyond.length > 0) {
    throw forbidden('member_above_own_role', `You can not ${removal ? 'remove' : 'change the membership of'} a member holding permissions you do not hold: ${beyond.join(', ')}.`);
  }
}

/** The grant is within the grantor's own standing: no higher role (OWNER only from an owner), no unheld permission. */
function assertWithinOwnStanding(grantor: GrantorStanding, grant: Grant): void {
  if (grant.role === 'OWNER' && rankOf(grantor.role) < RANK.OWNER) throw forbidden('owner_role_owners_only', 'Only owners can award owner role');
  if (RANK[grant.role] > rankOf(grantor.role)) {
    throw forbidden('role_above_own', `You can not give a role (${grant.role}) above your own (${grantor.role ?? 'none'}).`);
  }
  const missing = permissionsNotHeld(grantor, grant.customPermissions ?? []);
  if (missing.length > 0) throw forbidden('permission_not_held', `You can not give a role holding permissions you do not hold: ${missing.join(', ')}.`);
}

/** Adding a member with `grant` (a new membership, or the organization upsert's new one). */
export function assertMayAddMember(grantor: GrantorStanding, grant: Grant): void {
  if (!grantor.systemAdmin) assertWithinOwnStanding(grantor, grant);
}

/** Changing `target`'s membership to `grant` (only a role that moves is judged; other fields need only the target within reach). */
export function assertMayChangeMember(grantor: GrantorStanding, target: MemberStanding, grant: Grant): void {
  if (grantor.systemAdmin) return;
  const roleChanges = grant.role !== target.role;
  const customChanges = !samePermissions(grant.customPermissions ?? [], target.customPermissions);
  // The reference's order: awarding OWNER, then an owner's membership, then oneself.
  if (roleChanges && grant.role === 'OWNER' && rankOf(grantor.role) < RANK.OWNER) throw forbidden('owner_role_owners_only', 'Only owners can award owner role');
  assertNotAbove(grantor, target, false);
  if (target.userId === grantor.userId && RANK[grant.role] > RANK[target.role]) {
    throw forbidden('own_role_raise', 'You can not change yourself to a higher role.');
  }
  if (roleChanges || customChanges) assertWithinOwnStanding(grantor, { role: grant.role, customPermissions: customChanges ? grant.customPermissions : null });
}

/** Removing `target` from the team or organization (leaving it oneself is always allowed here). */
export function assertMayRemoveMember(grantor: GrantorStanding, target: MemberStanding): void {
  if (!grantor.systemAdmin) assertNotAbove(grantor, target, true);
}

function samePermissions(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((permission) => b.includes(permission));
}

/**
 * The caller's standing in `teamId` as the database holds it now (read inside the change's transaction,
 * after its locks): their role there or, on a team of an organization, in the organization if higher,
 * and everything their roles and custom roles (the team's and the organization's) hold.
 */
export async function grantorStanding(db: Db, actor: Actor, teamId: number): Promise<GrantorStanding> {
  const rows = await loadTenancy(db, actor.id, [teamId]);
  const team = rows.teams.get(teamId);
  const own = rows.held.get(teamId);
  const parent = team?.parentId ? rows.held.get(team.parentId) : undefined;
  const scope = team?.isOrganization ? 'organization' : 'team';
  const role = [own?.role, parent?.role].reduce<MembershipRole | null>((best, held) => (held && rankOf(held) > rankOf(best) ? held : best), null);
  const permissions = [
    ...(own ? permissionsHeldByRole(own.role, scope) : []),
    ...(own?.customPermissions ?? []),
    ...(parent ? permissionsHeldByRole(parent.role, 'organization') : []),
    ...(parent?.customPermissions ?? []),
  ];
  return { userId: actor.id, systemAdmin: actor.role === 'ADMIN', role, permissions: [...new Set(permissions)] };
}
