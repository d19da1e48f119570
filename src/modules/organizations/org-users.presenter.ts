import type { OrgUser } from './org-users.repository.js';

/**
 * `GetOrgUsersWithProfileOutput`. svc stores no email verification date, themes, brand colours,
 * branding or dynamic-booking setting, verification flag or inviter: those come out null (false for
 * hideBranding).
 */
export function presentOrgUser({ user, profile }: OrgUser) {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    email: user.email,
    emailVerified: null,
    bio: user.bio,
    avatarUrl: user.avatarUrl,
    timeZone: user.timeZone,
    weekStart: user.weekStart,
    appTheme: null,
    theme: null,
    defaultScheduleId: user.defaultScheduleId,
    locale: user.locale,
    timeFormat: user.timeFormat,
    hideBranding: false,
    brandColor: null,
    darkBrandColor: null,
    allowDynamicBooking: null,
    createdDate: user.createdAt.toISOString(),
    verified: null,
    invitedTo: null,
    metadata: user.metadata,
    profile: { id: profile.id, organizationId: profile.organizationId, userId: profile.userId, username: profile.username },
  };
}
