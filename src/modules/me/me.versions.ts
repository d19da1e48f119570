import type { VersionTable } from '../../http/api-version.js';
import type { UserRecord } from '../users/users.repository.js';
import { presentMe } from '../users/users.presenter.js';

/**
 * `/v2/me` is version-agnostic in the reference: every `svc-api-version` gets the same shape, so the
 * table has only its fallback. A version that changes the shape adds a row here, not a new route.
 */
export const meVersions: VersionTable<{ present: (user: UserRecord, organization?: { id: number; isPlatform: boolean }) => ReturnType<typeof presentMe> }> = {
  variants: {},
  fallback: { present: presentMe },
};
