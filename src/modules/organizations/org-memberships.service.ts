import type { Db } from '../../db/client.js';
import { notFound } from '../../lib/errors.js';
import { syncOrganizationMemberEventTypes } from '../event-types/team-event-type-members.js';
import * as teamsRepo from '../teams/teams.repository.js';
import type { MembershipWithUser } from '../teams/teams.repository.js';
import type { Actor } from '../access/resource-policy.js';
import { addMemberIn, changeMembershipIn, type CreateMembershipInput, invitationContext, type MembershipDeps, removeMemberIn, type UpdateMembershipInput } from '../teams/memberships.service.js';
import * as repo from './organizations.repository.js';
import { tenancyWrite } from '../access/tenancy-cache.js';
import { assertMayJoinOrganization } from '../platform/oauth-clients.service.js';
import { revokeTokensOfOrganizationMember } from '../platform/platform-tokens.service.js';

const membershipNotInOrganization = (membershipId: number) => notFound('membership_not_found', `IsMembershipInOrg - Membership (${membershipId}) not found.`);

export async function getOrganizationMembership(db: Db, organizationId: number, membershipId: number): Promise<MembershipWithUser> {
  const found = await teamsRepo.findMembership(db, organizationId, membershipId);
  if (!found) throw membershipNotInOrganization(membershipId);
  return found;
}

/** An accepted member of an organization has a profile there (their username in it); a pending one none yet. */
async function profileIfAccepted(tx: Db, membership: MembershipWithUser): Promise<MembershipWithUser> {
  if (membership.accepted) await repo.ensureProfile(tx, membership.teamId, membership.userId);
  return membership;
}

/**
 * Adds a user to the organization (pending until they accept, unless the organization made their
 * account), with a profile there once accepted. As in the reference, a user who already belongs to it
 * has their membership updated instead (the reference upserts).
 */
export async function createOrganizationMembership(deps: MembershipDeps, actor: Actor, organizationId: number, input: CreateMembershipInput): Promise<MembershipWithUser> {
  return tenancyWrite(deps, async (tx) => {
    if (await teamsRepo.userExists(tx, input.userId)) await assertMayJoinOrganization(tx, input.userId, organizationId);
    const existing = await teamsRepo.findMembershipOfUser(tx, organizationId, input.userId);
    const membership = existing
      ? await changeMembershipIn(tx, actor, organizationId, existing.id, { role: input.role ?? 'MEMBER', accepted: input.accepted ?? false, disableImpersonation: input.disableImpersonation ?? false })
      : await addMemberIn(tx, invitationContext(deps), actor, organizationId, input);
    return profileIfAccepted(tx, membership);
  });
}

export async function updateOrganizationMembership(deps: MembershipDeps, actor: Actor, organizationId: number, membershipId: number, input: UpdateMembershipInput): Promise<MembershipWithUser> {
  return tenancyWrite(deps, async (tx) => {
    await getOrganizationMembership(tx, organizationId, membershipId);
    return profileIfAccepted(tx, await changeMembershipIn(tx, actor, organizationId, membershipId, input));
  });
}

/** Removes a member from the organization: from its teams too, and their profile there. The last OWNER stays. */
export async function deleteOrganizationMembership(deps: MembershipDeps, actor: Actor, organizationId: number, membershipId: number): Promise<MembershipWithUser> {
  return tenancyWrite(deps, async (tx, announce) => {
    await getOrganizationMembership(tx, organizationId, membershipId);
    const removed = await removeMemberIn(tx, actor, organizationId, membershipId);
    await teamsRepo.deleteMembershipsInChildTeams(tx, organizationId, removed.userId);
    await syncOrganizationMemberEventTypes(tx, organizationId, removed.userId);
    await repo.deleteProfile(tx, organizationId, removed.userId);
    await revokeTokensOfOrganizationMember(tx, announce, organizationId, removed.userId);
    return removed;
  });
}
