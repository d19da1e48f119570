import type { TeamRow } from '../teams/teams.repository.js';

/** The reference's ManagedOrganizationOutput. */
export function presentManagedOrganization(organization: TeamRow) {
  return { id: organization.id, name: organization.name, slug: organization.slug, metadata: organization.metadata };
}
