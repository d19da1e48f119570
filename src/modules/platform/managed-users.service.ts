import type { ChangeEvent } from '../../db/change-feed.js';
import type { Db } from '../../db/client.js';
import type { Weekday } from '../../db/schema.js';
import { conflict, fieldRejected, notFound } from '../../lib/errors.js';
import { ianaSpelling } from '../../lib/time-zones.js';
import { createDefaultEventTypesIn } from '../event-types/event-types.service.js';
import { markCreatedByOrganization, setProfileUsername } from '../organizations/org-users.repository.js';
import { ensureProfile } from '../organizations/organizations.repository.js';
import { assertOwnsSchedule, createDefaultScheduleIn } from '../schedules/schedules.service.js';
import { findMembershipOfUser } from '../teams/teams.repository.js';
import { deleteMembershipIn, insertMembershipIn } from '../teams/memberships.service.js';
import { findUserIdByEmail } from '../users/users.repository.js';
import type { UserChanges, UserRecord } from '../users/users.repository.js';
import { chooseUsername, createUser, deleteUser, updateUser } from '../users/users.service.js';
import * as repo from './oauth-clients.repository.js';
import type { OAuthClientRow } from './oauth-clients.repository.js';
import { forceRefreshTokens, issueTokens, type TokenPair } from './platform-tokens.service.js';

type Announce = (event: ChangeEvent) => Promise<void>;

interface ProfileFields {
  name?: string | undefined;
  timeFormat?: 12 | 24 | undefined;
  weekStart?: Weekday | undefined;
  timeZone?: string | undefined;
  locale?: string | undefined;
  avatarUrl?: string | undefined;
  bio?: string | undefined;
  metadata?: Record<string, string | number | boolean> | undefined;
}

export interface CreateManagedUserInput extends ProfileFields {
  email: string;
  name: string;
}

export interface UpdateManagedUserInput extends ProfileFields {
  email?: string | undefined;
  defaultScheduleId?: number | undefined;
}

const EMAIL = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;

/**
 * As the reference: `Alice@Example.com` of client `c1` is stored as `alice+c1@example.com` (once). The
 * reference's inputs lower-case the address; client ids are lower case already.
 */
export function managedUserEmail(clientId: string, email: string): string {
  const address = email.toLowerCase();
  if (address.includes(`+${clientId}@`)) return address;
  const at = address.lastIndexOf('@');
  return `${address.slice(0, at)}+${clientId}${address.slice(at)}`;
}

/** What the username is made from, as the reference's organization usernames: `alice+c1-example` (slugged). */
function usernameSource(email: string): string {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, at)}-${email.slice(at + 1).split('.')[0]}`;
}

const notOfClient = (userId: number) => notFound('managed_user_not_found', `User with ID ${userId} is not part of this OAuth client.`);

async function assertEmailFree(db: Db, email: string, exceptUserId?: number): Promise<void> {
  const existing = await findUserIdByEmail(db, email);
  if (existing !== undefined && existing !== exceptUserId) {
    throw conflict('managed_user_email_taken', `User with the provided e-mail already exists. Existing user ID=${existing}`, { property: 'email' });
  }
}

/**
 * Creates a user managed by the client: a member of its organization (accepted, with a profile), with
 * a Monday-Friday 09:00-17:00 default schedule when a time zone is given, the 4 default event types
 * when the client asks for them, and a first token pair.
 */
export async function createManagedUser(tx: Db, announce: Announce, client: OAuthClientRow, input: CreateManagedUserInput, now: Date): Promise<{ user: UserRecord; tokens: TokenPair }> {
  const email = managedUserEmail(client.id, input.email);
  await assertEmailFree(tx, email);
  const timeZone = input.timeZone === undefined ? undefined : ianaSpelling(input.timeZone);
  let user = await createUser(tx, {
    email,
    name: input.name,
    usernameFrom: usernameSource(email),
    timeZone,
    weekStart: input.weekStart,
    timeFormat: input.timeFormat,
    locale: input.locale ?? 'en',
    bio: input.bio,
    avatarUrl: input.avatarUrl,
    metadata: input.metadata,
  });
  await markCreatedByOrganization(tx, user.id, client.organizationId);
  await insertMembershipIn(tx, client.organizationId, { userId: user.id, role: 'MEMBER', accepted: true });
  await ensureProfile(tx, client.organizationId, user.id);
  await repo.insertManagedUser(tx, user.id, client.id);
  await announce({ kind: 'tenancy' });
  if (timeZone !== undefined) {
    const { schedule } = await createDefaultScheduleIn(tx, announce, user.id, timeZone);
    user = { ...user, defaultScheduleId: schedule.id, organizationId: client.organizationId };
  }
  if (client.areDefaultEventTypesEnabled) await createDefaultEventTypesIn(tx, announce, user.id);
  return { user, tokens: await issueTokens(tx, { clientId: client.id, userId: user.id }, now) };
}

/** The reference's findByIdWithinPlatformScope: a user of another client (or none) is a 404. */
export async function getManagedUser(db: Db, clientId: string, userId: number): Promise<UserRecord> {
  const user = await repo.findManagedUser(db, clientId, userId);
  if (!user) throw notOfClient(userId);
  return user;
}

/** The client's users; `emails` (comma-separated) may be given as sent at creation or as stored. */
export async function listManagedUsers(db: Db, clientId: string, query: { limit?: number | undefined; offset?: number | undefined; emails?: string | undefined }): Promise<UserRecord[]> {
  let emails: string[] | null = null;
  if (query.emails !== undefined) {
    emails = query.emails.split(',').map((email) => email.trim());
    const invalid = emails.find((email) => !EMAIL.test(email));
    if (invalid !== undefined) throw fieldRejected('emails', 'invalid_email', `Invalid email ${invalid}`, invalid);
    emails = emails.map((email) => managedUserEmail(clientId, email));
  }
  return repo.listManagedUsers(db, clientId, { offset: query.offset ?? 0, limit: query.limit ?? 50, emails });
}

/** Changes what was sent; a new email gets the client id added and a username made from it. */
export async function updateManagedUser(tx: Db, announce: Announce, client: OAuthClientRow, userId: number, input: UpdateManagedUserInput): Promise<UserRecord> {
  const current = await getManagedUser(tx, client.id, userId);
  const changes: UserChanges = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  if (input.timeZone !== undefined) changes.timeZone = ianaSpelling(input.timeZone);
  if (input.email !== undefined) {
    const email = managedUserEmail(client.id, input.email);
    await assertEmailFree(tx, email, userId);
    changes.email = email;
    if (email !== current.email) {
      changes.username = await chooseUsername(tx, undefined, usernameSource(email), userId);
      await setProfileUsername(tx, client.organizationId, userId, changes.username);
    }
  }
  if (input.defaultScheduleId !== undefined) await assertOwnsSchedule(tx, userId, input.defaultScheduleId);
  const updated = Object.keys(changes).length > 0 ? await updateUser(tx, userId, changes) : current;
  await announce({ kind: 'user', userId });
  return updated ?? current;
}

/** Deletes the user's account (the reference's hard delete); its tokens stop working on every process. */
export async function deleteManagedUser(tx: Db, announce: Announce, client: OAuthClientRow, userId: number): Promise<UserRecord> {
  const user = await getManagedUser(tx, client.id, userId);
  const membership = await findMembershipOfUser(tx, client.organizationId, userId);
  if (membership) await deleteMembershipIn(tx, client.organizationId, membership.id);
  await deleteUser(tx, userId);
  await announce({ kind: 'user', userId });
  await announce({ kind: 'tenancy' });
  return user;
}

/** New tokens for a user whose tokens were lost; the earlier ones stop working. */
export async function forceRefreshManagedUser(tx: Db, announce: Announce, clientId: string, userId: number, now: Date): Promise<TokenPair> {
  await getManagedUser(tx, clientId, userId);
  return forceRefreshTokens(tx, announce, clientId, userId, now);
}
