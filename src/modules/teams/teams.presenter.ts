import type { MembershipWithUser, TeamRow } from './teams.repository.js';

/** `TeamOutputDto`: what a team (or organization) shows of itself. */
export function presentTeam(team: TeamRow) {
  return {
    id: team.id,
    parentId: team.parentId,
    name: team.name,
    slug: team.slug,
    logoUrl: team.logoUrl,
    svcVideoLogo: team.svcVideoLogo,
    appLogo: team.appLogo,
    appIconLogo: team.appIconLogo,
    bio: team.bio,
    hideBranding: team.hideBranding,
    isOrganization: team.isOrganization,
    isPrivate: team.isPrivate,
    hideBookATeamMember: team.hideBookATeamMember,
    metadata: team.metadata,
    theme: team.theme,
    brandColor: team.brandColor,
    darkBrandColor: team.darkBrandColor,
    bannerUrl: team.bannerUrl,
    timeFormat: team.timeFormat,
    timeZone: team.timeZone,
    weekStart: team.weekStart,
  };
}

/** `TeamMembershipOutput`; who the member is stays hidden until they accept (membership-invitations.service.ts). */
export function presentMembership(membership: MembershipWithUser) {
  return {
    id: membership.id,
    userId: membership.userId,
    teamId: membership.teamId,
    accepted: membership.accepted,
    role: membership.role,
    disableImpersonation: membership.disableImpersonation,
    customRoleId: membership.customRoleId,
    ...(membership.userVisible ? { user: membership.user } : {}),
  };
}
