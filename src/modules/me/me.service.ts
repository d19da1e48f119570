import type { ChangeFeed } from '../../db/change-feed.js';
import type { Database } from '../../db/client.js';
import { notFound } from '../../lib/errors.js';
import { assertOwnsSchedule } from '../schedules/schedules.service.js';
import type { UserChanges, UserRecord } from '../users/users.repository.js';
import { updateUser } from '../users/users.service.js';

/** Updates the caller's profile; cached copies of the user are dropped on every process. */
export async function updateMyProfile(deps: { database: Database; changes: ChangeFeed }, userId: number, changes: UserChanges): Promise<UserRecord> {
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    if (changes.defaultScheduleId != null) await assertOwnsSchedule(tx, userId, changes.defaultScheduleId);
    const updated = await updateUser(tx, userId, changes);
    if (!updated) throw notFound('user_not_found', `User with id ${userId} not found`);
    await announce({ kind: 'user', userId });
    return updated;
  });
}
