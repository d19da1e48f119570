import { Type } from 'typebox';

/** `take` (1-250, default 250) and `skip` (>= 0, default 0): the reference's defaults for most lists. */
export const TakeSkipQuery = (defaultTake = 250) =>
  Type.Object({
    take: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: defaultTake, description: 'Maximum number of items to return' })),
    skip: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Number of items to skip' })),
  });

/** The reference's pagination object (its getPagination), as lists that carry one answer it. */
export const PaginationOutput = Type.Object({
  totalItems: Type.Integer(),
  remainingItems: Type.Integer(),
  returnedItems: Type.Integer(),
  itemsPerPage: Type.Integer(),
  currentPage: Type.Integer(),
  totalPages: Type.Integer(),
  hasNextPage: Type.Boolean(),
  hasPreviousPage: Type.Boolean(),
});

/** The pagination object of one page of `total` items. */
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
