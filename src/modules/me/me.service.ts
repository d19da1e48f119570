import type { ChangeFeed } from '../../db/change-feed.js';
import type { Database } from '../../db/client.js';
import { hashPassword } from '../../lib/crypto.js';
import { notFound } from '../../lib/errors.js';
import { assertOwnsSchedule } from '../schedules/schedules.service.js';
import { setPasswordHash, type UserChanges, type UserRecord } from '../users/users.repository.js';
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

/** Sets the caller's web-login password (svc's pages: login, OAuth consent, the admin review); other sessions end. */
export async function setMyPassword(deps: { database: Database }, userId: number, password: string): Promise<void> {
  const hash = await hashPassword(password);
  if (!(await setPasswordHash(deps.database.db, userId, hash))) throw notFound('user_not_found', `User with id ${userId} not found`);
}
