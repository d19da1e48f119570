import type { Db } from '../../db/client.js';
import type { TeamMetadata } from '../../db/schema.js';
import { fieldRejected, notFound } from '../../lib/errors.js';
import * as teamsRepo from '../teams/teams.repository.js';
import type { TeamRow } from '../teams/teams.repository.js';
import { createTeamIn, type Deps, deleteTeam, updateTeamIn } from '../teams/teams.service.js';
import * as repo from './organizations.repository.js';
import { tenancyWrite } from '../access/tenancy-cache.js';

export interface AdminCreateOrganizationInput {
  name: string;
  slug?: string | undefined;
  ownerId: number;
  isPlatform?: boolean | undefined;
  metadata?: TeamMetadata | undefined;
}

const organizationNotFound = (orgId: number) => notFound('organization_not_found', `Organization with id=${orgId} not found`);

/** Creates an organization with its owner's accepted OWNER membership and profile (svc's bootstrap). */
export async function createOrganization(deps: Deps, input: AdminCreateOrganizationInput): Promise<TeamRow> {
  return tenancyWrite(deps, async (tx) => {
    if (!(await teamsRepo.userExists(tx, input.ownerId))) throw fieldRejected('ownerId', 'user_not_found', `User with id=${input.ownerId} does not exist`, input.ownerId);
    const organization = await createTeamIn(
      tx,
      { name: input.name, slug: input.slug, metadata: input.metadata, autoAcceptCreator: true },
      { parentId: null, isOrganization: true, isPlatform: input.isPlatform ?? false, ownerId: input.ownerId },
    );
    await repo.ensureProfile(tx, organization.id, input.ownerId);
    return organization;
  });
}

export async function getOrganization(db: Db, orgId: number): Promise<TeamRow> {
  const found = await teamsRepo.findTeamById(db, orgId);
  if (!found?.isOrganization) throw organizationNotFound(orgId);
  return found;
}

export const listOrganizations = repo.listOrganizations;

/** The organization `/v2/me` names for the user: their main profile's (see findMainProfileOrganization), if any. */
export const mainOrganizationOf = (db: Db, userId: number) => repo.findMainProfileOrganization(db, userId);

export async function updateOrganization(deps: Deps, orgId: number, input: { name?: string | undefined; slug?: string | undefined; isPlatform?: boolean | undefined; metadata?: TeamMetadata | undefined }): Promise<TeamRow> {
  return tenancyWrite(deps, async (tx) => {
    await getOrganization(tx, orgId);
    const { isPlatform, ...fields } = input;
    const updated = await updateTeamIn(tx, orgId, fields);
    return isPlatform === undefined || isPlatform === updated.isPlatform ? updated : teamsRepo.setPlatform(tx, orgId, isPlatform);
  });
}

/** Deletes an organization and everything in it: its teams, memberships, profiles, roles, schedules and subscriptions. */
export async function deleteOrganization(deps: Deps, orgId: number): Promise<TeamRow> {
  await getOrganization(deps.database.db, orgId);
  return deleteTeam(deps, orgId);
}
