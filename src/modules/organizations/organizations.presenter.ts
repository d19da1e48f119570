import type { TeamRow } from '../teams/teams.repository.js';

/** svc's admin view of an organization. */
export function presentAdminOrganization(organization: TeamRow) {
  return {
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    isOrganization: true as const,
    isPlatform: organization.isPlatform,
    metadata: organization.metadata,
    createdAt: organization.createdAt.toISOString(),
  };
}
