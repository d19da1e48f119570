import type { Db } from '../../db/client.js';
import type { MembershipRole } from '../../db/schema.js';
import { forbidden, notFound } from '../../lib/errors.js';
import type { PlatformClientRef, Principal } from '../auth/principal.js';
import { type HeldRole, loadTenancy, type TeamRow } from './access.repository.js';
import { permissionsGrant } from './permissions.js';
import type { TenancyCache } from './tenancy-cache.js';

/** The minimum role a route needs, as the reference's `@Roles` (OWNER > ADMIN > MEMBER). */
export type RequiredRole = 'ORG_OWNER' | 'ORG_ADMIN' | 'ORG_MEMBER' | 'TEAM_OWNER' | 'TEAM_ADMIN' | 'TEAM_MEMBER';

/**
 * What an organization or team route needs (`config.access.tenant`). The organization and team come
 * from the `:orgId` and `:teamId` path parameters.
 */
export interface TenantRule {
  role: RequiredRole;
  /** PBAC permissions that let a member through whatever their membership role (the reference's `@Pbac`). */
  permissions: readonly string[];
  /**
   * Check that the team belongs to the organization before the role (404 first), as the reference's
   * team-schedules routes do; elsewhere the role is checked first, so an outsider learns nothing.
   */
  teamInOrgFirst?: boolean;
}

/** What the handler of an organization or team route may rely on after the access check. */
export interface TenantContext {
  organization: TeamRow | null;
  team: TeamRow | null;
  /** The caller's role in the organization and in the team, when they have one. */
  organizationRole: MembershipRole | null;
  teamRole: MembershipRole | null;
}

const RANK: Readonly<Record<MembershipRole, number>> = { MEMBER: 0, ADMIN: 1, OWNER: 2 };

function atLeast(held: HeldRole | undefined, required: RequiredRole): boolean {
  if (!held) return false;
  return RANK[held.role] >= RANK[required.slice(required.indexOf('_') + 1) as MembershipRole];
}

function positiveId(value: unknown): number | null {
  if (typeof value !== 'string' || !/^[1-9]\d{0,9}$/.test(value)) return null;
  const id = Number(value);
  return id <= 2_147_483_647 ? id : null;
}

/** PBAC: the custom role of the caller's membership in the team (else the organization) grants every permission. */
function pbacGrants(rows: { held: Map<number, HeldRole>; teams: Map<number, TeamRow> }, effectiveId: number, permissions: readonly string[]): boolean {
  const custom = rows.held.get(effectiveId)?.customPermissions;
  if (custom && permissionsGrant(custom, permissions)) return true;
  const parentId = rows.teams.get(effectiveId)?.parentId;
  const parentCustom = parentId ? rows.held.get(parentId)?.customPermissions : null;
  return Boolean(parentCustom && permissionsGrant(parentCustom, permissions));
}

function teamInOrganizationOrThrow(team: TeamRow | undefined, orgId: number, teamId: number): TeamRow {
  if (!team || team.isOrganization || team.parentId !== orgId) throw notFound('team_not_found', `IsTeamInOrg - Team (${teamId}) not found.`);
  return team;
}

/**
 * Platform credentials act as their organization's owner, but only within that organization (its
 * own routes, its teams, the organizations it manages through its own routes): an owner of several
 * organizations does not lend the others to a client of one.
 */
function assertWithinClientOrganization(client: PlatformClientRef, orgId: number | null, teamId: number | null, teams: Map<number, TeamRow>): void {
  const within = orgId !== null ? orgId === client.organizationId : teamId !== null && teams.get(teamId)?.parentId === client.organizationId;
  if (!within) {
    throw forbidden(
      'outside_oauth_client_organization',
      `OAuth client with id=${client.id} can only act within its organization with id=${client.organizationId}.`,
    );
  }
}

/** The reference's RolesGuard, membership by membership; throws its 403 with the reason. */
function assertRole(rows: { held: Map<number, HeldRole> }, rule: TenantRule, userId: number, orgId: number | null, teamId: number | null): void {
  const wantsOrgRole = rule.role.startsWith('ORG_');
  if (orgId !== null && teamId === null) {
    const held = rows.held.get(orgId);
    if (!held) throw forbidden('not_organization_member', `RolesGuard - User is not a member of the organization with id=${orgId}.`);
    if (wantsOrgRole && atLeast(held, rule.role)) return;
  } else if (orgId === null && teamId !== null) {
    const held = rows.held.get(teamId);
    if (!held) throw forbidden('not_team_member', `RolesGuard - User is not a member of the team with id=${teamId}.`);
    if (!wantsOrgRole && atLeast(held, rule.role)) return;
  } else if (orgId !== null && teamId !== null) {
    const orgHeld = rows.held.get(orgId);
    if (!orgHeld) throw forbidden('not_organization_member', `RolesGuard - User is not part of the organization with id=${orgId}.`);
    if (wantsOrgRole) {
      if (atLeast(orgHeld, rule.role)) return;
    } else {
      // An organization's admins and owners act on every team of it.
      if (orgHeld.role !== 'MEMBER') return;
      const teamHeld = rows.held.get(teamId);
      if (!teamHeld) {
        throw forbidden('not_team_member', `RolesGuard - User is not part of the team with id=${teamId} and/or, is not an admin nor an owner of the organization with id=${orgId}.`);
      }
      if (atLeast(teamHeld, rule.role)) return;
    }
  }
  const where = [orgId !== null ? `organization with id=${orgId}` : null, teamId !== null ? `team with id=${teamId}` : null].filter(Boolean).join(' ');
  throw forbidden('insufficient_role', `RolesGuard - user with id=${userId} does not have the minimum required role=${rule.role} within ${where}.`);
}

/**
 * Decides whether the caller may use an organization or team route, in the reference's order: the
 * organization exists (403 otherwise, as IsOrgGuard), the caller's role or PBAC permissions suffice
 * (403, as RolesGuard and PbacGuard), and the team belongs to the organization (404, as IsTeamInOrg).
 * The system admin may do everything. Pending memberships count, as in the reference.
 */
export async function authorizeTenant(
  deps: { database: { db: Db }; tenancy: TenancyCache },
  principal: Principal,
  rule: TenantRule,
  params: Record<string, unknown>,
): Promise<TenantContext | null> {
  const orgParam = 'orgId' in params;
  const teamParam = 'teamId' in params;
  const orgId = positiveId(params.orgId);
  const teamId = positiveId(params.teamId);
  // A malformed id is left to validation (400 naming the parameter).
  if ((orgParam && orgId === null) || (teamParam && teamId === null)) return null;

  const ids = [orgId, teamId].filter((id): id is number => id !== null);
  const rows = await deps.tenancy.read(`access:${principal.user.id}:${ids.join(',')}`, () => loadTenancy(deps.database.db, principal.user.id, ids));
  let organization: TeamRow | null = null;
  if (orgId !== null) {
    const found = rows.teams.get(orgId);
    if (!found?.isOrganization) throw forbidden('not_an_organization', `IsOrgGuard - provided organization id=${orgId} does not represent any existing organization.`);
    organization = found;
  }
  if (principal.kind === 'oauthClient' && principal.client) assertWithinClientOrganization(principal.client, orgId, teamId, rows.teams);
  let team: TeamRow | null = null;
  if (orgId !== null && teamId !== null && rule.teamInOrgFirst) team = teamInOrganizationOrThrow(rows.teams.get(teamId), orgId, teamId);

  const systemAdmin = principal.user.role === 'ADMIN';
  if (!systemAdmin && !pbacGrants(rows, teamId ?? orgId!, rule.permissions)) assertRole(rows, rule, principal.user.id, orgId, teamId);

  if (teamId !== null) team = orgId !== null ? teamInOrganizationOrThrow(rows.teams.get(teamId), orgId, teamId) : (rows.teams.get(teamId) ?? null);
  return {
    organization,
    team,
    organizationRole: orgId !== null ? (rows.held.get(orgId)?.role ?? null) : null,
    teamRole: teamId !== null ? (rows.held.get(teamId)?.role ?? null) : null,
  };
}

/**
 * Whether a user still holds what `rule` asks in an organization's team: for a step that comes back
 * without credentials (a provider's redirect) on the strength of a state sealed when an authorized call
 * began it. Read fresh, not from the tenancy cache.
 */
export async function stillHoldsTenantRule(db: Db, userId: number, rule: TenantRule, orgId: number, teamId: number): Promise<boolean> {
  const rows = await loadTenancy(db, userId, [orgId, teamId]);
  if (rows.teams.get(teamId)?.parentId !== orgId) return false;
  if (pbacGrants(rows, teamId, rule.permissions)) return true;
  try {
    assertRole(rows, rule, userId, orgId, teamId);
    return true;
  } catch {
    return false;
  }
}
