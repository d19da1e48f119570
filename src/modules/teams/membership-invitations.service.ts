// Nobody is made a member without their consent. A user added to a team or organization by someone else
// gets a pending membership and a mailed invitation; until they accept (the API's accept route, or the
// mailed link on svc's invitation page) the team sees nothing of theirs and cannot make them a host.
// The exceptions are the reference's own: an organization's accepted members added to its teams, and
// accounts the organization made (its users, its platform clients' managed users); and the system admin.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/client.js';
import type { MembershipRole } from '../../db/schema.js';
import { hashToken } from '../../lib/crypto.js';
import { conflict, forbidden, notFound } from '../../lib/errors.js';
import type { Actor } from '../access/resource-policy.js';
import { syncTeamMemberEventTypes } from '../event-types/team-event-type-members.js';
import { tenancyWrite } from '../access/tenancy-cache.js';
import { queueTeamInvitationMail } from '../mail/team-invitation-mail.js';
import { ensureProfile } from '../organizations/organizations.repository.js';
import * as repo from './teams.repository.js';
import type { MembershipWithUser, TeamRow } from './teams.repository.js';

export const INVITE_VALIDITY_MS = 7 * 86_400_000;
/** One invitation mail per user and team a day, however often they are removed and added again. */
const INVITATION_MAIL_INTERVAL_MS = 86_400_000;

/** What an invitation needs beyond the transaction: where svc's pages are, and the time. */
export interface InvitationContext {
  appUrl: string;
  now: number;
}

/** The user has agreed to join, or need not: they act themselves, the system admin acts, or consentImplied. */
export async function joinsWithConsent(tx: Db, actor: Actor, teamId: number, userId: number): Promise<boolean> {
  return actor.role === 'ADMIN' || actor.id === userId || repo.consentImplied(tx, teamId, userId);
}

export const refuseAcceptanceForOthers = () =>
  forbidden(
    'membership_acceptance_by_member_only',
    'Only the invited user can accept this membership: they accept it with POST .../memberships/{membershipId}/accept or the link mailed to them.',
  );

/** The API path of a membership, as its invitee calls it. */
export function membershipPath(team: Pick<TeamRow, 'id' | 'parentId' | 'isOrganization'>, membershipId: number): string {
  if (team.isOrganization) return `/v2/organizations/${team.id}/memberships/${membershipId}`;
  if (team.parentId !== null) return `/v2/organizations/${team.parentId}/teams/${team.id}/memberships/${membershipId}`;
  return `/v2/teams/${team.id}/memberships/${membershipId}`;
}

export const invitationLink = (appUrl: string, token: string) => `${appUrl.replace(/\/+$/, '')}/teams?token=${token}`;

/** An invitation link to the team anyone may join by (its invite routes): a 64-hex token, shown once, valid a week. */
export async function createInviteLink(db: Db, appUrl: string, teamId: number, now: number): Promise<{ token: string; inviteLink: string }> {
  const token = randomBytes(32).toString('hex');
  await repo.insertInviteToken(db, { teamId, hashedToken: hashToken(token), expiresAt: new Date(now + INVITE_VALIDITY_MS) });
  return { token, inviteLink: invitationLink(appUrl, token) };
}

/** Mails the invitee of a pending membership their invitation (at most once a day per team), in `tx`. */
export async function inviteIn(tx: Db, context: InvitationContext, actor: Actor, team: TeamRow, membership: MembershipWithUser): Promise<void> {
  if (await repo.invitedSince(tx, team.id, membership.userId, new Date(context.now - INVITATION_MAIL_INTERVAL_MS))) return;
  const { invitee, inviter } = await repo.findInvitationParties(tx, membership.userId, actor.id);
  if (!invitee) return;
  const token = randomBytes(32).toString('hex');
  await repo.insertInviteToken(tx, { teamId: team.id, inviteeUserId: membership.userId, hashedToken: hashToken(token), expiresAt: new Date(context.now + INVITE_VALIDITY_MS) });
  const path = membershipPath(team, membership.id);
  await queueTeamInvitationMail(tx, {
    invitee,
    inviterName: inviter?.name ?? inviter?.username ?? 'A member',
    teamName: team.name,
    role: membership.role,
    link: invitationLink(context.appUrl, token),
    acceptPath: `${path}/accept`,
    declinePath: `${path}/decline`,
    validDays: INVITE_VALIDITY_MS / 86_400_000,
  });
}

/** The caller's own membership of the team (anyone else's is not found: the route reveals no one). */
async function ownMembership(tx: Db, actor: Actor, teamId: number, membershipId: number): Promise<MembershipWithUser> {
  await repo.lockTeamAndParent(tx, teamId);
  const membership = await repo.findMembership(tx, teamId, membershipId);
  if (!membership || membership.userId !== actor.id) throw notFound('membership_not_found', `Membership with id ${membershipId} not found in team ${teamId}`);
  return membership;
}

/** The member says yes: the membership is accepted (an organization's also gives them a profile there). */
export async function acceptMembershipIn(tx: Db, actor: Actor, teamId: number, membershipId: number): Promise<MembershipWithUser> {
  const membership = await ownMembership(tx, actor, teamId, membershipId);
  if (!membership.accepted) {
    await repo.updateMembership(tx, membershipId, { accepted: true });
    await syncTeamMemberEventTypes(tx, teamId, actor.id);
  }
  const team = (await repo.findTeamById(tx, teamId))!;
  if (team.isOrganization) await ensureProfile(tx, teamId, actor.id);
  await repo.deleteInvitesOf(tx, teamId, actor.id);
  return (await repo.findMembership(tx, teamId, membershipId))!;
}

/** The member says no: the pending membership goes (an accepted one is left by its admins' routes). */
export async function declineMembershipIn(tx: Db, actor: Actor, teamId: number, membershipId: number): Promise<MembershipWithUser> {
  const membership = await ownMembership(tx, actor, teamId, membershipId);
  if (membership.accepted) throw conflict('membership_already_accepted', `Membership with id ${membershipId} is already accepted: only a pending invitation can be declined.`);
  await repo.deleteMembership(tx, membershipId);
  await repo.deleteInvitesOf(tx, teamId, actor.id);
  return membership;
}

/** An invitation link as its page shows it: the team (and organization) it opens, and for whom. */
export interface OpenedInvitation {
  team: TeamRow;
  organization: TeamRow | null;
  /** The pending membership it answers (a mailed invitation), or null (a link anyone may join by). */
  membership: MembershipWithUser | null;
}

const invitationGone = () => notFound('invitation_not_found', 'This invitation link is not valid any more: it has expired, was used, or was withdrawn.');

/** The live invitation of a token, for `userId` (a mailed invitation is its invitee's alone). */
export async function openInvitation(db: Db, token: string, userId: number, now: number): Promise<OpenedInvitation> {
  const found = /^[0-9a-f]{64}$/.test(token) ? await repo.findLiveInvite(db, hashToken(token), new Date(now)) : undefined;
  if (!found) throw invitationGone();
  const organization = found.team.parentId !== null ? ((await repo.findTeamById(db, found.team.parentId)) ?? null) : null;
  if (found.invite.inviteeUserId === null) return { team: found.team, organization, membership: null };
  if (found.invite.inviteeUserId !== userId) throw forbidden('invitation_for_another_user', 'This invitation is for another account: log in as the user it was sent to.');
  const own = await repo.findMembershipOfUser(db, found.team.id, userId);
  if (!own || own.accepted) throw invitationGone();
  return { team: found.team, organization, membership: (await repo.findMembership(db, found.team.id, own.id))! };
}

/**
 * Answers an invitation link for `actor`. A mailed invitation accepts or declines their pending
 * membership; a link anyone may join by makes them a MEMBER (of the team's organization too, when they
 * are not one yet: joining its team is joining it).
 */
export async function answerInvitationIn(tx: Db, actor: Actor, token: string, accept: boolean, now: number): Promise<OpenedInvitation> {
  const opened = await openInvitation(tx, token, actor.id, now);
  const { team, organization, membership } = opened;
  if (membership) {
    if (accept) await acceptMembershipIn(tx, actor, team.id, membership.id);
    else await declineMembershipIn(tx, actor, team.id, membership.id);
    return opened;
  }
  if (!accept) return opened;
  if (organization) await joinAsMember(tx, actor, organization.id);
  await joinAsMember(tx, actor, team.id);
  return opened;
}

async function joinAsMember(tx: Db, actor: Actor, teamId: number, role: MembershipRole = 'MEMBER'): Promise<void> {
  await repo.lockTeamAndParent(tx, teamId);
  const existing = await repo.findMembershipOfUser(tx, teamId, actor.id);
  if (existing) {
    if (!existing.accepted) await acceptMembershipIn(tx, actor, teamId, existing.id);
    return;
  }
  const row = await repo.insertMembership(tx, { teamId, userId: actor.id, role, accepted: true, disableImpersonation: false });
  await acceptMembershipIn(tx, actor, teamId, row.id);
}

/** Where a membership route says the membership is: a team, an organization, or a team of an organization. */
export interface MembershipPlace {
  teamId: number;
  /** Organization routes: `teamId` is an organization. */
  organization?: boolean;
  /** Organization team routes: the team belongs to this organization. */
  organizationId?: number;
}

async function assertPlaced(tx: Db, place: MembershipPlace): Promise<void> {
  const team = await repo.findTeamById(tx, place.teamId);
  const placed = team && (!place.organization || team.isOrganization) && (place.organizationId === undefined || team.parentId === place.organizationId);
  if (!placed) throw notFound('team_not_found', `Team with id=${place.teamId} not found`);
}

type WriteDeps = Parameters<typeof tenancyWrite>[0];

export const acceptMembership = (deps: WriteDeps, actor: Actor, place: MembershipPlace, membershipId: number) =>
  tenancyWrite(deps, async (tx) => {
    await assertPlaced(tx, place);
    return acceptMembershipIn(tx, actor, place.teamId, membershipId);
  });

export const declineMembership = (deps: WriteDeps, actor: Actor, place: MembershipPlace, membershipId: number) =>
  tenancyWrite(deps, async (tx) => {
    await assertPlaced(tx, place);
    return declineMembershipIn(tx, actor, place.teamId, membershipId);
  });

export const answerInvitation = (deps: WriteDeps & { clock: () => number }, actor: Actor, token: string, accept: boolean) =>
  tenancyWrite(deps, (tx) => answerInvitationIn(tx, actor, token, accept, deps.clock()));
