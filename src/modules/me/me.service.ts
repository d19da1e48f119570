import type { Database } from '../../db/client.js';
import { notFound } from '../../lib/errors.js';
import { notifyCredentialChange } from '../auth/auth.repository.js';
import type { CredentialCache } from '../auth/credential-cache.js';
import { assertOwnsSchedule } from '../schedules/schedules.service.js';
import type { UserChanges, UserRecord } from '../users/users.repository.js';
import { updateUser } from '../users/users.service.js';

/** Updates the caller's profile; cached copies of the user are dropped on every process. */
export async function updateMyProfile(
  database: Database,
  credentials: CredentialCache,
  userId: number,
  changes: UserChanges,
): Promise<UserRecord> {
  const user = await database.transaction(async (tx) => {
    if (changes.defaultScheduleId != null) await assertOwnsSchedule(tx, userId, changes.defaultScheduleId);
    const updated = await updateUser(tx, userId, changes);
    if (!updated) throw notFound('user_not_found', `User with id ${userId} not found`);
    await notifyCredentialChange(tx, { kind: 'user', userId });
    return updated;
  });
  credentials.invalidate({ kind: 'user', userId });
  return user;
}
