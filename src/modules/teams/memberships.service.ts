// Memberships of teams and organizations: who may add, change and remove whom (access/role-grants.ts),
// the last owner, and the membership hooks of team event types. Shared by the team, organization and
// organization-team routes.
import type { Database, Db } from '../../db/client.js';
import type { MembershipRole } from '../../db/schema.js';
import { badRequest, conflict, fieldRejected, notFound } from '../../lib/errors.js';
import { customRolePermissions, findRoleOfTeam } from '../access/access.repository.js';
import { systemRole } from '../access/permissions.js';
import type { Actor } from '../access/resource-policy.js';
import { assertMayAddMember, assertMayChangeMember, assertMayRemoveMember, type Grant, grantorStanding, type MemberStanding } from '../access/role-grants.js';
import { type TenancyCache, tenancyWrite } from '../access/tenancy-cache.js';
import { syncTeamMemberEventTypes } from '../event-types/team-event-type-members.js';
import { type InvitationContext, inviteIn, joinsWithConsent, refuseAcceptanceForOthers } from './membership-invitations.service.js';
import * as repo from './teams.repository.js';
import type { MembershipWithUser } from './teams.repository.js';

export interface CreateMembershipInput {
  userId: number;
  accepted?: boolean | undefined;
  role?: MembershipRole | undefined;
  disableImpersonation?: boolean | undefined;
}

export interface UpdateMembershipInput {
  accepted?: boolean | undefined;
  role?: MembershipRole | undefined;
  disableImpersonation?: boolean | undefined;
  roleId?: string | null | undefined;
}

const membershipNotFound = (teamId: number, membershipId: number) =>
  notFound('membership_not_found', `Membership with id ${membershipId} not found in team ${teamId}`);

function definedOnly<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** `GET .../memberships/{membershipId}` of a team: the reference's TeamsMembershipsService.getTeamMembership message when it is not the team's. */
export async function getTeamMembership(db: Db, teamId: number, membershipId: number): Promise<MembershipWithUser> {
  const found = await repo.findMembership(db, teamId, membershipId);
  if (!found) throw notFound('membership_not_found', "Organization's Team membership not found");
  return found;
}

export async function getMembership(db: Db, teamId: number, membershipId: number): Promise<MembershipWithUser> {
  const found = await repo.findMembership(db, teamId, membershipId);
  if (!found) throw membershipNotFound(teamId, membershipId);
  return found;
}

const EMAIL = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;
const MAX_EMAIL_FILTER = 20;

/**
 * The `emails` filter of a team's membership list, as the reference's GetTeamMembershipsInput reads it:
 * values repeated or separated by commas, trimmed, lower-cased, each once; none left is no filter.
 */
export function parseEmailFilter(values: readonly string[] | undefined): string[] | undefined {
  const emails = [...new Set((values ?? []).flatMap((value) => value.split(',')).map((email) => email.trim().toLowerCase()).filter(Boolean))];
  if (emails.length === 0) return undefined;
  if (emails.length > MAX_EMAIL_FILTER) {
    throw fieldRejected('emails', 'validation_failed', `emails array cannot contain more than ${MAX_EMAIL_FILTER} email addresses for team membership filtering`, emails);
  }
  const invalid = emails.find((email) => !EMAIL.test(email));
  if (invalid !== undefined) throw fieldRejected('emails', 'validation_failed', 'Each email must be a valid email address', invalid);
  return emails;
}

/** A page of a team's (or organization's) members, served from the tenancy cache when it can be. */
export function listMemberships(
  deps: { database: Database; tenancy: TenancyCache },
  teamId: number,
  page: { skip: number; take: number; emails?: string[] | undefined },
): Promise<MembershipWithUser[]> {
  const key = `members:${teamId}:${page.skip}:${page.take}:${page.emails?.join(',') ?? ''}`;
  return deps.tenancy.read(key, () => repo.listMemberships(deps.database.db, teamId, page));
}

/**
 * Inserts a membership as asked, with no rule about who asks: for accounts svc or the organization
 * itself makes (organization users, platform managed users). Callers acting for a person use addMemberIn.
 */
export async function insertMembershipIn(tx: Db, teamId: number, input: CreateMembershipInput): Promise<MembershipWithUser> {
  if (!(await repo.userExists(tx, input.userId))) throw fieldRejected('userId', 'user_not_found', `User with id=${input.userId} does not exist`, input.userId);
  if (await repo.findMembershipOfUser(tx, teamId, input.userId)) {
    throw conflict('membership_exists', `User with id=${input.userId} is already a member of team with id=${teamId}`);
  }
  const row = await repo.insertMembership(tx, {
    teamId,
    userId: input.userId,
    role: input.role ?? 'MEMBER',
    accepted: input.accepted ?? false,
    disableImpersonation: input.disableImpersonation ?? false,
  });
  await syncTeamMemberEventTypes(tx, teamId, input.userId);
  return (await repo.findMembership(tx, teamId, row.id))!;
}

/**
 * `actor` adds a member, within the actor's own standing (role-grants.ts). Without the user's consent
 * (membership-invitations.service.ts) the membership starts pending whatever `accepted` says, and they
 * are mailed an invitation; so is any user added pending by someone else.
 */
export async function addMemberIn(tx: Db, context: InvitationContext, actor: Actor, teamId: number, input: CreateMembershipInput): Promise<MembershipWithUser> {
  const team = await repo.lockTeamAndParent(tx, teamId);
  assertMayAddMember(await grantorStanding(tx, actor, teamId), { role: input.role ?? 'MEMBER', customPermissions: null });
  const consented = await joinsWithConsent(tx, actor, teamId, input.userId);
  const membership = await insertMembershipIn(tx, teamId, { ...input, accepted: consented && input.accepted === true });
  if (!membership.accepted && actor.id !== input.userId) await inviteIn(tx, context, actor, team!, membership);
  return membership;
}

/** The last OWNER of a team or organization can be neither demoted nor removed: it would have no one to run it. */
async function assertKeepsAnOwner(tx: Db, membership: MembershipWithUser, change: 'demote' | 'remove'): Promise<void> {
  if (membership.role !== 'OWNER' || (await repo.countOwners(tx, membership.teamId)) > 1) return;
  const message =
    change === 'demote'
      ? `You can not change the role of the only owner of a team: membership ${membership.id} (user ${membership.userId}) is the last OWNER of team ${membership.teamId}.`
      : `You can not remove the only owner of a team: membership ${membership.id} (user ${membership.userId}) is the last OWNER of team ${membership.teamId}.`;
  throw badRequest('last_owner', message, { membershipId: membership.id, userId: membership.userId });
}

async function standingOfMember(tx: Db, membership: MembershipWithUser): Promise<MemberStanding> {
  return { userId: membership.userId, role: membership.role, customPermissions: await customRolePermissions(tx, membership.customRoleId) };
}

/** What `input` makes of the membership's role and custom role; a SYSTEM role id sets the role itself and drops the custom one. */
async function grantOf(tx: Db, teamId: number, current: MemberStanding & { customRoleId: string | null }, input: UpdateMembershipInput): Promise<Grant & { customRoleId: string | null }> {
  const grant = { role: input.role ?? current.role, customPermissions: current.customPermissions as readonly string[] | null, customRoleId: current.customRoleId };
  if (input.roleId === undefined) return grant;
  if (input.roleId === null) return { ...grant, customPermissions: null, customRoleId: null };
  const builtIn = systemRole(input.roleId, 'team');
  if (builtIn) return { role: builtIn.role, customPermissions: null, customRoleId: null };
  const custom = await findRoleOfTeam(tx, teamId, input.roleId);
  if (!custom) throw fieldRejected('roleId', 'role_not_found', `Role with id ${input.roleId} within team id ${teamId} not found`, input.roleId);
  return { ...grant, customPermissions: custom.permissions, customRoleId: custom.id };
}

/** `actor` changes a membership: the role rules first, then the last owner. */
export async function changeMembershipIn(tx: Db, actor: Actor, teamId: number, membershipId: number, input: UpdateMembershipInput): Promise<MembershipWithUser> {
  await repo.lockTeamAndParent(tx, teamId);
  const current = await getMembership(tx, teamId, membershipId);
  const target = await standingOfMember(tx, current);
  const grant = await grantOf(tx, teamId, { ...target, customRoleId: current.customRoleId }, input);
  assertMayChangeMember(await grantorStanding(tx, actor, teamId), target, grant);
  if (input.accepted === true && !current.accepted && !(await joinsWithConsent(tx, actor, teamId, current.userId))) throw refuseAcceptanceForOthers();
  if (grant.role !== 'OWNER') await assertKeepsAnOwner(tx, current, 'demote');
  const { accepted, disableImpersonation } = input;
  await repo.updateMembership(tx, membershipId, {
    ...definedOnly({ accepted, disableImpersonation }),
    ...(grant.role !== current.role ? { role: grant.role } : {}),
    ...(grant.customRoleId !== current.customRoleId ? { customRoleId: grant.customRoleId } : {}),
  });
  if (accepted !== undefined) await syncTeamMemberEventTypes(tx, teamId, current.userId);
  return getMembership(tx, teamId, membershipId);
}

/** Deletes a membership with no rule about who asks (an account's own deletion); keeps the last owner. */
export async function deleteMembershipIn(tx: Db, teamId: number, membershipId: number): Promise<MembershipWithUser> {
  await repo.lockTeamAndParent(tx, teamId);
  const current = await getMembership(tx, teamId, membershipId);
  await assertKeepsAnOwner(tx, current, 'remove');
  await repo.deleteMembership(tx, membershipId);
  await syncTeamMemberEventTypes(tx, teamId, current.userId);
  return current;
}

/** `actor` removes a member: nobody above the actor, and never the last owner. */
export async function removeMemberIn(tx: Db, actor: Actor, teamId: number, membershipId: number): Promise<MembershipWithUser> {
  await repo.lockTeamAndParent(tx, teamId);
  const current = await getMembership(tx, teamId, membershipId);
  assertMayRemoveMember(await grantorStanding(tx, actor, teamId), await standingOfMember(tx, current));
  return deleteMembershipIn(tx, teamId, membershipId);
}

type WriteDeps = Parameters<typeof tenancyWrite>[0];
/** What the routes hand the membership services: the store, and where svc's pages are and the time (for invitations). */
export type MembershipDeps = WriteDeps & { config: { appUrl: string }; clock: () => number };

export const invitationContext = (deps: MembershipDeps): InvitationContext => ({ appUrl: deps.config.appUrl, now: deps.clock() });

export const addMember = (deps: MembershipDeps, actor: Actor, teamId: number, input: CreateMembershipInput) =>
  tenancyWrite(deps, (tx) => addMemberIn(tx, invitationContext(deps), actor, teamId, input));

export const changeMembership = (deps: WriteDeps, actor: Actor, teamId: number, membershipId: number, input: UpdateMembershipInput) =>
  tenancyWrite(deps, (tx) => changeMembershipIn(tx, actor, teamId, membershipId, input));

export const removeMember = (deps: WriteDeps, actor: Actor, teamId: number, membershipId: number) => tenancyWrite(deps, (tx) => removeMemberIn(tx, actor, teamId, membershipId));
