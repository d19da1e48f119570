import type { Db } from '../../db/client.js';
import type { TeamMetadata } from '../../db/schema.js';
import { conflict, fieldRejected, forbidden } from '../../lib/errors.js';
import { issueApiKey } from '../api-keys/api-keys.service.js';
import * as teamsRepo from '../teams/teams.repository.js';
import type { TeamRow } from '../teams/teams.repository.js';
import { createTeamIn, type Deps, deleteTeam, slugify, updateTeamIn } from '../teams/teams.service.js';
import * as repo from './managed-organizations.repository.js';
import { ensureProfile } from './organizations.repository.js';
import { tenancyWrite } from '../access/tenancy-cache.js';

export interface CreateManagedOrganizationInput {
  name: string;
  slug?: string | undefined;
  metadata?: TeamMetadata | undefined;
  apiKeyDaysValid?: number | undefined;
  apiKeyNeverExpires?: boolean | undefined;
}

export interface UpdateManagedOrganizationInput {
  name?: string | undefined;
  metadata?: TeamMetadata | undefined;
}

export interface ManagedOrganizationsQuery {
  slug?: string | undefined;
  metadataKey?: string | undefined;
  metadataValue?: string | undefined;
  skip: number;
  take: number;
}

/** The reference's IsManagedOrgInManagerOrg guard (its newest version answers 403, never 404). */
const notManaged = (managerId: number, managedId: number) =>
  forbidden('managed_organization_not_in_manager', `IsManagedOrgInManagerOrg - Managed organization with id=${managedId} is not owned by manager organization with id=${managerId}.`);

async function assertSlugFree(tx: Db, slug: string): Promise<void> {
  // Organizations live at the top level, where every slug is unique (teams_parent_slug_lower_key).
  if (await teamsRepo.isSlugTaken(tx, null, slug)) {
    throw conflict(
      'managed_organization_slug_taken',
      `Organization with slug '${slug}' already exists. Please, either provide a different slug or change name so that the automatically generated slug is different.`,
      { errors: [{ property: 'slug', value: slug, constraints: { slug: 'slug must be unique among organizations' } }] },
    );
  }
}

/**
 * Creates an organization managed by `manager` (which must be a platform organization, as the
 * reference): the caller becomes its accepted OWNER with a profile in it, and gets a new API key,
 * returned here once. Managed organizations are platform organizations themselves, as the reference
 * makes them.
 */
export async function createManagedOrganization(
  deps: Deps,
  manager: TeamRow,
  caller: { id: number },
  input: CreateManagedOrganizationInput,
): Promise<{ organization: TeamRow; apiKey: string }> {
  if (!manager.isPlatform) {
    throw forbidden('manager_not_platform', "Manager organization must be a platform organization. Normal organizations can't create managed organizations yet.");
  }
  const { apiKeyDaysValid, apiKeyNeverExpires, ...fields } = input;
  if (apiKeyDaysValid && apiKeyNeverExpires) {
    throw fieldRejected('apiKeyNeverExpires', 'api_key_validity_conflict', 'Cannot set both apiKeyDaysValid and apiKeyNeverExpires. It has to be either or none of them.', true);
  }
  const slug = fields.slug ?? slugify(fields.name);
  return tenancyWrite(deps, async (tx) => {
    await assertSlugFree(tx, slug);
    const organization = await createTeamIn(
      tx,
      { name: fields.name, slug, metadata: fields.metadata, autoAcceptCreator: true },
      { parentId: null, isOrganization: true, isPlatform: true, managerOrganizationId: manager.id, ownerId: caller.id },
    );
    await ensureProfile(tx, organization.id, caller.id);
    const apiKey = await issueApiKey(tx, caller.id, {
      daysValid: apiKeyDaysValid,
      neverExpires: apiKeyNeverExpires,
      name: `Managed organization API key. ManagerOrgId: ${manager.id}. ManagedOrgId: ${organization.id}`,
    });
    return { organization, apiKey };
  });
}

export async function getManagedOrganization(db: Db, managerId: number, managedId: number): Promise<TeamRow> {
  const found = await repo.findManagedOrganization(db, managerId, managedId);
  if (!found) throw notManaged(managerId, managedId);
  return found;
}

/** A page of the manager's organizations; `metadataKey` and `metadataValue` filter together or not at all. */
export async function listManagedOrganizations(db: Db, managerId: number, query: ManagedOrganizationsQuery): Promise<{ rows: TeamRow[]; total: number }> {
  const { metadataKey, metadataValue } = query;
  if (metadataKey !== undefined && metadataValue === undefined) {
    throw fieldRejected('metadataValue', 'metadata_filter_incomplete', 'metadataValue is required when metadataKey is provided', metadataValue);
  }
  if (metadataValue !== undefined && metadataKey === undefined) {
    throw fieldRejected('metadataKey', 'metadata_filter_incomplete', 'metadataKey is required when metadataValue is provided', metadataKey);
  }
  const metadata = metadataKey !== undefined && metadataValue !== undefined ? { key: metadataKey, value: metadataValue } : undefined;
  return repo.listManagedOrganizations(db, managerId, { slug: query.slug, metadata }, { skip: query.skip, take: query.take });
}

export async function updateManagedOrganization(deps: Deps, managerId: number, managedId: number, input: UpdateManagedOrganizationInput): Promise<TeamRow> {
  return tenancyWrite(deps, async (tx) => {
    await getManagedOrganization(tx, managerId, managedId);
    return updateTeamIn(tx, managedId, input);
  });
}

/** Deletes a managed organization with everything it owns (teams, memberships, profiles, roles, schedules, subscriptions, its own managed organizations). */
export async function deleteManagedOrganization(deps: Deps, managerId: number, managedId: number): Promise<TeamRow> {
  await getManagedOrganization(deps.database.db, managerId, managedId);
  return deleteTeam(deps, managedId);
}
