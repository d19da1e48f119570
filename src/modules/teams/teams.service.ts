import type { ChangeFeed } from '../../db/change-feed.js';
import type { Database, Db } from '../../db/client.js';
import type { TeamMetadata, Weekday } from '../../db/schema.js';
import { badRequest, conflict, fieldRejected, notFound, unauthorized } from '../../lib/errors.js';
import { revokeTokensOfClientsUnder } from '../platform/platform-tokens.service.js';
import { createTeamScheduleIn } from '../schedules/schedules.service.js';
import * as repo from './teams.repository.js';
import type { MembershipWithUser, TeamChanges, TeamRow } from './teams.repository.js';
import { tenancyWrite } from '../access/tenancy-cache.js';

export interface Deps {
  database: Database;
  changes: ChangeFeed;
}

export interface TeamFields {
  slug?: string | undefined;
  logoUrl?: string | undefined;
  svcVideoLogo?: string | undefined;
  appLogo?: string | undefined;
  appIconLogo?: string | undefined;
  bio?: string | undefined;
  hideBranding?: boolean | undefined;
  isPrivate?: boolean | undefined;
  hideBookATeamMember?: boolean | undefined;
  metadata?: TeamMetadata | undefined;
  theme?: string | undefined;
  brandColor?: string | undefined;
  darkBrandColor?: string | undefined;
  bannerUrl?: string | undefined;
  timeFormat?: 12 | 24 | undefined;
  timeZone?: string | undefined;
  weekStart?: Weekday | undefined;
}

export interface CreateTeamInput extends TeamFields {
  name: string;
  autoAcceptCreator?: boolean | undefined;
}

export interface UpdateTeamInput extends TeamFields {
  name?: string | undefined;
  bookingLimits?: Record<string, number> | undefined;
  includeManagedEventsInLimits?: boolean | undefined;
}

/** Where a team is made: standalone (`/v2/teams`), inside an organization, or an organization itself. */
export interface TeamPlacement {
  parentId: number | null;
  isOrganization?: boolean;
  isPlatform?: boolean;
  managerOrganizationId?: number | null;
  /** The creator's OWNER membership; none for a system admin creating an organization team (as the reference). */
  ownerId: number | null;
}

/** The reference's slugify: lower case, runs of anything but letters and digits become one hyphen. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
  return slug || 'team';
}

function definedOnly<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<T>;
}

async function assertSlugFree(tx: Db, parentId: number | null, slug: string, exceptId?: number): Promise<void> {
  if (await repo.isSlugTaken(tx, parentId, slug, exceptId)) {
    throw conflict('team_slug_taken', `A team with the slug ${slug} already exists here. Send another slug.`, {
      errors: [{ property: 'slug', value: slug, constraints: { slug: 'slug must be unique among the teams of the same organization' } }],
    });
  }
}

/** Creates a team (or organization) in `tx`, with its creator's OWNER membership and its own default schedule. */
export async function createTeamIn(tx: Db, input: CreateTeamInput, placement: TeamPlacement): Promise<TeamRow> {
  const { name, autoAcceptCreator, ...fields } = input;
  const slug = input.slug ?? slugify(name);
  await assertSlugFree(tx, placement.parentId, slug);
  const team = await repo.insertTeam(tx, {
    ...definedOnly(fields),
    name,
    slug,
    parentId: placement.parentId,
    isOrganization: placement.isOrganization ?? false,
    isPlatform: placement.isPlatform ?? false,
    managerOrganizationId: placement.managerOrganizationId ?? null,
  });
  if (placement.ownerId !== null) {
    await repo.insertMembership(tx, { teamId: team.id, userId: placement.ownerId, role: 'OWNER', accepted: autoAcceptCreator ?? true, disableImpersonation: false });
  }
  const schedule = await createTeamScheduleIn(tx, team.id, team.timeZone);
  return repo.updateTeam(tx, team.id, { defaultScheduleId: schedule.id });
}

/** `POST /v2/teams`: refused, as the reference does, when the caller already belongs to a team of that name. */
export async function createStandaloneTeam(deps: Deps, callerId: number, input: CreateTeamInput): Promise<TeamRow> {
  return tenancyWrite(deps, async (tx) => {
    const mine = await repo.listTeamsOfUser(tx, callerId);
    if (mine.some((team) => team.name === input.name)) throw badRequest('team_name_taken', `You already have created a team with name=${input.name}`);
    return createTeamIn(tx, input, { parentId: null, ownerId: callerId });
  });
}

export async function createTeam(deps: Deps, input: CreateTeamInput, placement: TeamPlacement): Promise<TeamRow> {
  return tenancyWrite(deps, (tx) => createTeamIn(tx, input, placement));
}

export async function getTeam(db: Db, teamId: number): Promise<TeamRow> {
  const team = await repo.findTeamById(db, teamId);
  if (!team) throw notFound('team_not_found', `Team with id=${teamId} not found`);
  return team;
}

export const listTeamsOfUser = repo.listTeamsOfUser;
export const listTeamsOfParent = repo.listTeamsOfParent;

export async function updateTeamIn(tx: Db, teamId: number, input: UpdateTeamInput): Promise<TeamRow> {
  const team = await repo.lockTeam(tx, teamId);
  if (!team) throw notFound('team_not_found', `Team with id=${teamId} not found`);
  if (input.slug !== undefined) await assertSlugFree(tx, team.parentId, input.slug, teamId);
  const changes = definedOnly(input) as TeamChanges;
  return Object.keys(changes).length === 0 ? team : repo.updateTeam(tx, teamId, changes);
}

export async function updateTeam(deps: Deps, teamId: number, input: UpdateTeamInput): Promise<TeamRow> {
  return tenancyWrite(deps, (tx) => updateTeamIn(tx, teamId, input));
}

export async function deleteTeam(deps: Deps, teamId: number): Promise<TeamRow> {
  return tenancyWrite(deps, async (tx, announce) => {
    await revokeTokensOfClientsUnder(tx, announce, teamId);
    const deleted = await repo.deleteTeam(tx, teamId);
    if (!deleted) throw notFound('team_not_found', `Team with id=${teamId} not found`);
    return deleted;
  });
}

export interface CreateTeamV1Input extends CreateTeamInput {
  ownerId?: number | undefined;
  parentId?: number | undefined;
}

/**
 * `POST /v1/teams`: the owner is the caller, or `ownerId` when the system admin sends it; `parentId`
 * places the team in an organization the caller (or the system admin) administers.
 */
export async function createTeamV1(deps: Deps, caller: { id: number; role: string }, input: CreateTeamV1Input): Promise<{ team: TeamRow; owner: MembershipWithUser | undefined }> {
  const { ownerId, parentId, ...fields } = input;
  const systemAdmin = caller.role === 'ADMIN';
  if (ownerId !== undefined && !systemAdmin) throw unauthorized('owner_id_admin_only', 'ADMIN required for `ownerId`');
  return tenancyWrite(deps, async (tx) => {
    if (ownerId !== undefined && !(await repo.userExists(tx, ownerId))) throw fieldRejected('ownerId', 'user_not_found', `User with id=${ownerId} does not exist`, ownerId);
    // Version 1 refuses a slug any team has, wherever it is, before looking at parentId (the reference's order).
    if (await repo.isSlugTakenByAnyTeam(tx, fields.slug!)) throw conflict('team_slug_taken', 'Team slug already exists');
    if (parentId !== undefined) {
      const parent = await repo.findTeamById(tx, parentId);
      const held = parent && !systemAdmin ? await repo.findMembershipOfUser(tx, parentId, caller.id) : undefined;
      if (!parent || (!systemAdmin && (!held || held.role === 'MEMBER'))) {
        throw unauthorized('not_organization_admin', 'Unauthorized: Invalid parent id. You can only use parent id if you are org owner or admin.');
      }
      if (!parent.isOrganization) throw fieldRejected('parentId', 'parent_not_organization', 'parentId must be of an organization, not a team.', parentId);
    }
    const owner = ownerId ?? caller.id;
    const team = await createTeamIn(tx, { ...fields, autoAcceptCreator: true }, { parentId: parentId ?? null, ownerId: owner });
    const membership = await repo.findMembershipOfUser(tx, team.id, owner);
    return { team, owner: membership ? await repo.findMembership(tx, team.id, membership.id) : undefined };
  });
}
