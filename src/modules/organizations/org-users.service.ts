import type { ChangeFeed } from '../../db/change-feed.js';
import type { Database, Db } from '../../db/client.js';
import type { MembershipRole, Weekday } from '../../db/schema.js';
import { conflict, forbidden, invalidField } from '../../lib/errors.js';
import { assertOwnsSchedule } from '../schedules/schedules.service.js';
import * as teamsRepo from '../teams/teams.repository.js';
import { assertMayAddMember, grantorStanding } from '../access/role-grants.js';
import { insertMembershipIn, removeMemberIn } from '../teams/memberships.service.js';
import { createUser, deleteUser, updateUser } from '../users/users.service.js';
import * as repo from './org-users.repository.js';
import type { OrgUser } from './org-users.repository.js';
import { ensureProfile } from './organizations.repository.js';
import { tenancyWrite } from '../access/tenancy-cache.js';

interface Deps {
  database: Database;
  changes: ChangeFeed;
}

interface Caller {
  id: number;
  role: 'USER' | 'ADMIN';
}

/** The user fields svc stores; the reference's theme, colour and branding fields are accepted and not kept. */
interface UserFields {
  username?: string | undefined;
  name?: string | undefined;
  weekStart?: Weekday | undefined;
  weekday?: Weekday | undefined;
  timeZone?: string | undefined;
  timeFormat?: 12 | 24 | undefined;
  locale?: string | undefined;
  bio?: string | undefined;
  avatarUrl?: string | undefined;
  metadata?: Record<string, string | number | boolean> | undefined;
}

export interface CreateOrgUserInput extends UserFields {
  email: string;
  organizationRole?: MembershipRole | undefined;
  autoAccept?: boolean | undefined;
}

export interface UpdateOrgUserInput extends UserFields {
  email?: string | undefined;
  defaultScheduleId?: number | undefined;
}

export interface OrgUsersQuery {
  emails?: string[] | undefined;
  teamIds?: string[] | undefined;
  assignedOptionIds?: string[] | undefined;
  attributeQueryOperator?: 'AND' | 'OR' | 'NONE' | undefined;
  skip: number;
  take: number;
}

const EMAIL = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;

const emailTaken = () => conflict('email_taken', 'A user already exists with that email');
const usernameTaken = () => conflict('username_taken', 'Username is already taken');

/** `emails` and `teamIds` come repeated, comma-separated, or both. */
function splitList(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((value) => value.split(',')).map((item) => item.trim()).filter(Boolean);
}

export async function listOrganizationUsers(db: Db, organizationId: number, query: OrgUsersQuery): Promise<OrgUser[]> {
  const emails = splitList(query.emails);
  const invalid = emails.find((email) => !EMAIL.test(email));
  if (invalid !== undefined) throw invalidField('emails', 'must contain only email addresses', invalid);
  const teamIds = splitList(query.teamIds).map(Number);
  if (teamIds.some((id) => id < 1 || id > 2147483647)) throw invalidField('teamIds', 'must contain only team ids (positive integers)', query.teamIds);
  const optionIds = splitList(query.assignedOptionIds);
  const attributes = optionIds.length ? { optionIds, operator: query.attributeQueryOperator ?? 'AND' } : undefined;
  return repo.listOrgUsers(db, organizationId, { emails, teamIds, attributes, skip: query.skip, take: query.take });
}

/** The reference's IsUserInOrg: the user must have a profile in the organization (pending or not). */
export async function getOrganizationUser(db: Db, organizationId: number, userId: number): Promise<OrgUser> {
  const found = await repo.findOrgUser(db, organizationId, userId);
  if (!found) throw forbidden('user_not_in_organization', `IsUserInOrg - user with id=${userId} is not part of the organization with id=${organizationId}.`);
  return found;
}

/** A user of the organization that its admins may manage: one it created (see assertMayManage). */
export async function getManagedOrganizationUser(db: Db, caller: Caller, organizationId: number, userId: number): Promise<OrgUser> {
  const target = await getOrganizationUser(db, organizationId, userId);
  assertMayManage(caller, target, organizationId);
  return target;
}

/** The reference's IsUserInOrgTeam: a profile in the organization and a membership in the team. */
export async function assertUserInOrganizationTeam(db: Db, organizationId: number, teamId: number, userId: number): Promise<void> {
  if (!(await repo.isUserInOrgTeam(db, organizationId, teamId, userId))) {
    throw forbidden('user_not_in_team', `IsUserInOrgTeam - user with id=(${userId}) is not part of the team with id=(${teamId}) in the organization with id=(${organizationId})`);
  }
}

/** Only the system admin may change or delete a system admin's account. */
/**
 * An organization's admins change and delete only the users the organization created: a user who was
 * merely added to it (any user id can be) keeps their account to themselves.
 */
function assertMayManage(caller: Caller, target: OrgUser, organizationId: number): void {
  if (caller.role === 'ADMIN') return;
  if (target.user.role === 'ADMIN') {
    throw forbidden('user_is_system_admin', `User with id=${target.user.id} is a system admin: only a system admin can change or delete them.`);
  }
  if (target.user.organizationId !== organizationId) {
    throw forbidden(
      'user_not_created_by_organization',
      `User with id=${target.user.id} was not created by the organization with id=${organizationId}: its admins may only change or delete users it created.`,
    );
  }
}

function storedFields(input: UserFields) {
  return {
    name: input.name,
    weekStart: input.weekStart ?? input.weekday,
    timeZone: input.timeZone,
    timeFormat: input.timeFormat,
    locale: input.locale,
    bio: input.bio,
    avatarUrl: input.avatarUrl,
    metadata: input.metadata,
  };
}

/**
 * Creates a user in the organization: the user, an organization membership (`organizationRole`,
 * accepted when `autoAccept`) and a profile there, in one transaction. Emails and usernames are
 * lowercased, as the reference does.
 */
export async function createOrganizationUser(deps: Deps, caller: Caller, organizationId: number, input: CreateOrgUserInput): Promise<OrgUser> {
  const email = input.email.toLowerCase();
  const username = input.username?.toLowerCase();
  return tenancyWrite(deps, async (tx) => {
    await teamsRepo.lockTeamAndParent(tx, organizationId);
    assertMayAddMember(await grantorStanding(tx, caller, organizationId), { role: input.organizationRole ?? 'MEMBER', customPermissions: null });
    if (await repo.isEmailTaken(tx, email, null)) throw emailTaken();
    if (username !== undefined && (await repo.isUsernameTaken(tx, organizationId, username, null))) throw usernameTaken();
    const fields = storedFields(input);
    const user = await createUser(tx, {
      ...fields,
      email,
      username,
      locale: fields.locale ?? 'en',
      // The reference creates organization users without a name; the column allows none.
      name: fields.name as string,
    });
    await repo.markCreatedByOrganization(tx, user.id, organizationId);
    await insertMembershipIn(tx, organizationId, { userId: user.id, role: input.organizationRole ?? 'MEMBER', accepted: input.autoAccept ?? true });
    await ensureProfile(tx, organizationId, user.id);
    return (await repo.findOrgUser(tx, organizationId, user.id))!;
  });
}

/** Updates a user of the organization; a new username is their profile's there too. */
export async function updateOrganizationUser(deps: Deps, caller: Caller, organizationId: number, userId: number, input: UpdateOrgUserInput): Promise<OrgUser> {
  const email = input.email?.toLowerCase();
  const username = input.username?.toLowerCase();
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    assertMayManage(caller, await getOrganizationUser(tx, organizationId, userId), organizationId);
    if (email !== undefined && (await repo.isEmailTaken(tx, email, userId))) throw emailTaken();
    if (username !== undefined && (await repo.isUsernameTaken(tx, organizationId, username, userId))) throw usernameTaken();
    if (input.defaultScheduleId !== undefined) await assertOwnsSchedule(tx, userId, input.defaultScheduleId);
    const changes = Object.fromEntries(
      Object.entries({ ...storedFields(input), email, username, defaultScheduleId: input.defaultScheduleId }).filter(([, value]) => value !== undefined),
    );
    if (Object.keys(changes).length > 0) await updateUser(tx, userId, changes);
    if (username !== undefined) await repo.setProfileUsername(tx, organizationId, userId, username);
    await announce({ kind: 'user', userId });
    return (await repo.findOrgUser(tx, organizationId, userId))!;
  });
}

/**
 * Deletes the user's account (the reference's hard delete). Refused for a user who also belongs to
 * teams or organizations outside this one: an organization admin may not erase what is not theirs
 * (removing the membership is the way). The organization's last OWNER stays.
 */
export async function deleteOrganizationUser(deps: Deps, caller: Caller, organizationId: number, userId: number): Promise<OrgUser> {
  return deps.changes.transaction(deps.database, async (tx, announce) => {
    const target = await getOrganizationUser(tx, organizationId, userId);
    assertMayManage(caller, target, organizationId);
    if (caller.role !== 'ADMIN' && (await repo.belongsOutsideOrganization(tx, organizationId, userId))) {
      throw forbidden(
        'user_in_other_tenants',
        `User with id=${userId} also belongs to teams or organizations outside the organization with id=${organizationId}: remove their membership instead.`,
      );
    }
    const membership = await teamsRepo.findMembershipOfUser(tx, organizationId, userId);
    if (membership) await removeMemberIn(tx, caller, organizationId, membership.id);
    await deleteUser(tx, userId);
    await announce({ kind: 'user', userId });
    return target;
  });
}
