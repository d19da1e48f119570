import type { Db } from '../../db/client.js';
import { notFound } from '../../lib/errors.js';
import { syncOrganizationMemberEventTypes } from '../event-types/team-event-type-members.js';
import * as teamsRepo from '../teams/teams.repository.js';
import type { MembershipWithUser } from '../teams/teams.repository.js';
import { createMembershipIn, type CreateMembershipInput, deleteMembershipIn, type Deps, updateMembershipIn, type UpdateMembershipInput } from '../teams/teams.service.js';
import * as repo from './organizations.repository.js';
import { tenancyWrite } from '../access/tenancy-cache.js';
import { revokeTokensOfOrganizationMember } from '../platform/platform-tokens.service.js';

const membershipNotInOrganization = (membershipId: number) => notFound('membership_not_found', `IsMembershipInOrg - Membership (${membershipId}) not found.`);

export async function getOrganizationMembership(db: Db, organizationId: number, membershipId: number): Promise<MembershipWithUser> {
  const found = await teamsRepo.findMembership(db, organizationId, membershipId);
  if (!found) throw membershipNotInOrganization(membershipId);
  return found;
}

/**
 * Adds a user to the organization, with a profile there. As in the reference, a user who already
 * belongs to it has their membership updated instead (the reference upserts).
 */
export async function createOrganizationMembership(deps: Deps, organizationId: number, input: CreateMembershipInput): Promise<MembershipWithUser> {
  return tenancyWrite(deps, async (tx) => {
    const existing = await teamsRepo.findMembershipOfUser(tx, organizationId, input.userId);
    const membership = existing
      ? await updateMembershipIn(tx, organizationId, existing.id, { role: input.role ?? 'MEMBER', accepted: input.accepted ?? false, disableImpersonation: input.disableImpersonation ?? false })
      : await createMembershipIn(tx, organizationId, input);
    await repo.ensureProfile(tx, organizationId, input.userId);
    return membership;
  });
}

export async function updateOrganizationMembership(deps: Deps, organizationId: number, membershipId: number, input: UpdateMembershipInput): Promise<MembershipWithUser> {
  return tenancyWrite(deps, async (tx) => {
    await getOrganizationMembership(tx, organizationId, membershipId);
    return updateMembershipIn(tx, organizationId, membershipId, input);
  });
}

/** Removes a member from the organization: from its teams too, and their profile there. The last OWNER stays. */
export async function deleteOrganizationMembership(deps: Deps, organizationId: number, membershipId: number): Promise<MembershipWithUser> {
  return tenancyWrite(deps, async (tx, announce) => {
    await getOrganizationMembership(tx, organizationId, membershipId);
    const removed = await deleteMembershipIn(tx, organizationId, membershipId);
    await teamsRepo.deleteMembershipsInChildTeams(tx, organizationId, removed.userId);
    await syncOrganizationMemberEventTypes(tx, organizationId, removed.userId);
    await repo.deleteProfile(tx, organizationId, removed.userId);
    await revokeTokensOfOrganizationMember(tx, announce, organizationId, removed.userId);
    return removed;
  });
}
