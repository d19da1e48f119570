import { Type } from 'typebox';

/** `take` (1-250, default 250) and `skip` (>= 0, default 0): the reference's defaults for most lists. */
export const TakeSkipQuery = (defaultTake = 250) =>
  Type.Object({
    take: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: defaultTake, description: 'Maximum number of items to return' })),
    skip: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Number of items to skip' })),
  });
