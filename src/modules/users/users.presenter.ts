import type { UserRecord } from './users.repository.js';

/**
 * The reference's `GET /v2/me` shape (contract 9, "Me"), plus the profile fields PATCH accepts. With the
 * organization of the user's main profile (GET only, as the reference), `organizationId` is that organization's.
 */
export function presentMe(user: UserRecord, organization?: { id: number; isPlatform: boolean }) {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    name: user.name,
    avatarUrl: user.avatarUrl,
    bio: user.bio,
    timeFormat: user.timeFormat,
    defaultScheduleId: user.defaultScheduleId,
    weekStart: user.weekStart,
    timeZone: user.timeZone,
    locale: user.locale,
    metadata: user.metadata,
    // Else the organization that made the account (an organization's own or managed user), as the reference's User.organizationId.
    organizationId: organization?.id ?? user.organizationId,
    ...(organization ? { organization: { id: organization.id, isPlatform: organization.isPlatform } } : {}),
  };
}

/** The reference's ManagedUserOutput: a platform client's view of its users. */
export function presentManagedUser(user: UserRecord) {
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    name: user.name,
    bio: user.bio,
    timeZone: user.timeZone,
    weekStart: user.weekStart,
    createdDate: user.createdAt.toISOString(),
    timeFormat: user.timeFormat,
    defaultScheduleId: user.defaultScheduleId,
    locale: user.locale,
    avatarUrl: user.avatarUrl,
    metadata: user.metadata,
  };
}

/** A user as the system admin sees it (the managed-user shape plus `role`). */
export function presentUserForAdmin(user: UserRecord) {
  return { ...presentManagedUser(user), role: user.role };
}
