import type { TeamRow } from '../teams/teams.repository.js';

/** The reference's ManagedOrganizationOutput. */
export function presentManagedOrganization(organization: TeamRow) {
  return { id: organization.id, name: organization.name, slug: organization.slug, metadata: organization.metadata };
}

/** The reference's pagination object (getPagination), for one page of `total` items. */
export function presentPagination(total: number, returned: number, page: { skip: number; take: number }) {
  return {
    totalItems: total,
    remainingItems: Math.max(0, total - (page.skip + page.take)),
    returnedItems: returned,
    itemsPerPage: page.take,
    currentPage: Math.floor(page.skip / page.take) + 1,
    totalPages: Math.ceil(total / page.take),
    hasNextPage: page.skip + page.take < total,
    hasPreviousPage: page.skip > 0,
  };
}
