import type { Db } from '../../db/client.js';
import type { Weekday } from '../../db/schema.js';
import { hashPassword } from '../../lib/crypto.js';
import { conflict } from '../../lib/errors.js';
import * as repo from './users.repository.js';
import type { UserChanges, UserRecord } from './users.repository.js';

export interface CreateUserInput {
  email: string;
  name: string;
  username?: string | undefined;
  timeZone?: string | undefined;
  weekStart?: Weekday | undefined;
  timeFormat?: 12 | 24 | undefined;
  locale?: string | undefined;
  password?: string | undefined;
  role?: 'USER' | 'ADMIN' | undefined;
  bio?: string | undefined;
  avatarUrl?: string | undefined;
  metadata?: Record<string, string | number | boolean> | undefined;
  /** What to derive a username from when none is requested (default: the email's local part). */
  usernameFrom?: string | undefined;
}

function usernameBase(text: string): string {
  const slug = text.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 48);
  return slug || 'user';
}

/** The requested username, or one derived from `from` that no one has yet. */
export async function chooseUsername(db: Db, requested: string | undefined, from: string, exceptUserId?: number): Promise<string> {
  if (requested !== undefined) {
    if (await repo.isUsernameTaken(db, requested)) throw conflict('username_taken', `Username ${requested} is already taken`);
    return requested;
  }
  const base = usernameBase(from);
  for (let suffix = 0; suffix < 1000; suffix++) {
    const candidate = suffix === 0 ? base : `${base}-${suffix}`;
    if (!(await repo.isUsernameTaken(db, candidate, exceptUserId))) return candidate;
  }
  return `${base}-${Date.now().toString(36)}`;
}

export async function createUser(db: Db, input: CreateUserInput): Promise<UserRecord> {
  if ((await repo.findUserIdByEmail(db, input.email)) !== undefined) {
    throw conflict('email_taken', `User with email ${input.email} already exists`);
  }
  const username = await chooseUsername(db, input.username, input.usernameFrom ?? input.email.split('@')[0] ?? 'user');
  return repo.insertUser(db, {
    email: input.email,
    // Users are created by the system admin, who vouches for the address.
    verifiedEmail: input.email,
    name: input.name,
    username,
    timeZone: input.timeZone ?? 'Europe/London',
    weekStart: input.weekStart ?? 'Sunday',
    timeFormat: input.timeFormat ?? 12,
    locale: input.locale ?? 'en',
    bio: input.bio ?? null,
    avatarUrl: input.avatarUrl ?? null,
    metadata: input.metadata ?? {},
    role: input.role ?? 'USER',
    passwordHash: input.password ? await hashPassword(input.password) : null,
  });
}

export async function updateUser(db: Db, userId: number, changes: UserChanges): Promise<UserRecord | undefined> {
  if (changes.email !== undefined) {
    const owner = await repo.findUserIdByEmail(db, changes.email);
    if (owner !== undefined && owner !== userId) throw conflict('email_taken', `User with email ${changes.email} already exists`);
  }
  return repo.updateUser(db, userId, changes);
}

export const deleteUser = repo.deleteUser;
export const findSystemAdminId = repo.findSystemAdminId;
export const listUsers = repo.listUsers;
export const countUsers = repo.countUsers;
