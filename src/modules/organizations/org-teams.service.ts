import type { Db } from '../../db/client.js';
import type { MembershipRole } from '../../db/schema.js';
import { notFound, unprocessable } from '../../lib/errors.js';
import * as teamsRepo from '../teams/teams.repository.js';
import type { MembershipWithUser, TeamRow } from '../teams/teams.repository.js';
import type { Actor } from '../access/resource-policy.js';
import { addMemberIn, changeMembershipIn, type CreateMembershipInput, getTeamMembership, invitationContext, type MembershipDeps, removeMemberIn, type UpdateMembershipInput } from '../teams/memberships.service.js';
import { createTeam, type CreateTeamInput, type Deps } from '../teams/teams.service.js';
import * as repo from './organizations.repository.js';
import { tenancyWrite } from '../access/tenancy-cache.js';

/**
 * A team inside an organization. Its creator becomes an accepted OWNER, except the system admin, who
 * manages organizations without joining their teams (as the reference).
 */
export function createOrganizationTeam(deps: Deps, organizationId: number, caller: { id: number; role: string }, input: CreateTeamInput): Promise<TeamRow> {
  return createTeam(deps, input, { parentId: organizationId, ownerId: caller.role === 'ADMIN' ? null : caller.id });
}

export interface MyTeam {
  team: TeamRow;
  role: MembershipRole | null;
  accepted: boolean | null;
}

/** `GET .../teams/me`: every team of the organization for its admins and owners, the caller's own teams for members. */
export async function listMyOrganizationTeams(db: Db, organizationId: number, userId: number, organizationRole: MembershipRole | null): Promise<MyTeam[]> {
  const everything = organizationRole === 'ADMIN' || organizationRole === 'OWNER';
  return teamsRepo.listTeamsOfParentWithRole(db, organizationId, userId, !everything);
}

/** Team memberships under an organization are only for the organization's users (422 otherwise, as the reference). */
export async function createOrganizationTeamMembership(deps: MembershipDeps, actor: Actor, organizationId: number, teamId: number, input: CreateMembershipInput): Promise<MembershipWithUser> {
  return tenancyWrite(deps, async (tx) => {
    if (!(await repo.findProfile(tx, organizationId, input.userId))) throw unprocessable('user_not_in_organization', 'User is not part of the Organization');
    return addMemberIn(tx, invitationContext(deps), actor, teamId, input);
  });
}

export const getOrganizationTeamMembership = getTeamMembership;

export async function updateOrganizationTeamMembership(deps: Deps, actor: Actor, teamId: number, membershipId: number, input: UpdateMembershipInput): Promise<MembershipWithUser> {
  return tenancyWrite(deps, async (tx) => {
    await getOrganizationTeamMembership(tx, teamId, membershipId);
    return changeMembershipIn(tx, actor, teamId, membershipId, input);
  });
}

/** Removes a member from the team; one that is not the team's is the reference's deleteOrgTeamMembership 404, naming it. */
export async function deleteOrganizationTeamMembership(deps: Deps, actor: Actor, organizationId: number, teamId: number, membershipId: number): Promise<MembershipWithUser> {
  return tenancyWrite(deps, async (tx) => {
    if (!(await teamsRepo.findMembership(tx, teamId, membershipId))) {
      throw notFound('membership_not_found', `Membership with id ${membershipId} not found in team ${teamId} of organization ${organizationId}`);
    }
    return removeMemberIn(tx, actor, teamId, membershipId);
  });
}
