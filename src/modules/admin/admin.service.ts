import type { ChangeFeed } from '../../db/change-feed.js';
import type { Database } from '../../db/client.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { issueApiKey } from '../api-keys/api-keys.service.js';
import { createDefaultScheduleIn } from '../schedules/schedules.service.js';
import type { UserRecord } from '../users/users.repository.js';
import { type CreateUserInput, createUser, deleteUser } from '../users/users.service.js';

/**
 * Creates a user with a first API key (valid 30 days, like the reference's default). Like the
 * reference's managed users, a user created with a time zone gets a Mon-Fri 09:00-17:00 default schedule.
 */
export async function createUserWithApiKey(deps: { database: Database; changes: ChangeFeed }, input: CreateUserInput): Promise<{ user: UserRecord; apiKey: string }> {
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    let user = await createUser(tx, input);
    if (input.timeZone !== undefined) {
      const { schedule } = await createDefaultScheduleIn(tx, announce, user.id, input.timeZone);
      user = { ...user, defaultScheduleId: schedule.id };
    }
    const apiKey = await issueApiKey(tx, user.id, { name: 'created by admin' });
    return { user, apiKey };
  });
}

/** Deletes a user and everything they own; their keys and tokens stop working on every process. */
export async function deleteUserAsAdmin(deps: { database: Database; changes: ChangeFeed }, adminId: number, userId: number): Promise<UserRecord> {
  if (userId === adminId) throw badRequest('cannot_delete_self', 'The system admin cannot delete their own account');
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    const deleted = await deleteUser(tx, userId);
    if (!deleted) throw notFound('user_not_found', `User with id ${userId} not found`);
    await announce({ kind: 'user', userId });
    return deleted;
  });
}
