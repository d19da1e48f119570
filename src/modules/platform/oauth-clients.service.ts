import { randomBytes, randomInt } from 'node:crypto';
import type { ChangeEvent } from '../../db/change-feed.js';
import type { Db } from '../../db/client.js';
import { PLATFORM_PERMISSIONS, type PlatformPermission } from '../../http/scopes.js';
import { sha256Hex } from '../../lib/crypto.js';
import { assertDisplayName } from '../../lib/display-name.js';
import { badRequest, fieldRejected, forbidden, invalidField, notFound } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/secrets.js';
import type { Principal } from '../auth/principal.js';
import { findMembershipOfUser } from '../teams/teams.repository.js';
import * as repo from './oauth-clients.repository.js';
import type { OAuthClientChanges, OAuthClientRow } from './oauth-clients.repository.js';
import { deleteAccessTokensOfClient } from './platform-tokens.service.js';

type Announce = (event: ChangeEvent) => Promise<void>;

/** A client as the presenter shows it: the secret opened. */
export interface OAuthClientView {
  client: OAuthClientRow;
  secret: string;
}

interface ClientSettings {
  logo?: string | undefined;
  redirectUris?: string[] | undefined;
  bookingRedirectUri?: string | undefined;
  bookingCancelRedirectUri?: string | undefined;
  bookingRescheduleRedirectUri?: string | undefined;
  areEmailsEnabled?: boolean | undefined;
  areDefaultEventTypesEnabled?: boolean | undefined;
  areCalendarEventsEnabled?: boolean | undefined;
}

export interface CreateOAuthClientInput extends ClientSettings {
  name: string;
  redirectUris: string[];
  permissions: (PlatformPermission | '*')[];
}

export interface UpdateOAuthClientInput extends ClientSettings {
  name?: string | undefined;
  permissions?: unknown;
}

const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Client ids look like the reference's (cuid-like: `c` and 24 lowercase letters and digits). */
function newClientId(): string {
  let id = 'c';
  for (let i = 0; i < 24; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

/** 256 random bits, base64url. */
const newClientSecret = () => randomBytes(32).toString('base64url');

/** The permissions to store: `*` is all of them; kept in the reference's order. */
function normalizePermissions(requested: readonly string[]): PlatformPermission[] {
  if (requested.includes('*')) return [...PLATFORM_PERMISSIONS];
  return PLATFORM_PERMISSIONS.filter((permission) => requested.includes(permission));
}

export function viewOf(secrets: SecretBox, client: OAuthClientRow): OAuthClientView {
  return { client, secret: secrets.open(client.secretSealed) };
}

const isSystemAdmin = (principal: Principal) => principal.user.role === 'ADMIN';

/**
 * The reference's OAuthClientGuard with its OrganizationRolesGuard: the client exists (404) and the
 * caller is an accepted ADMIN or OWNER of its organization, or the client itself (403 otherwise).
 * Creating, changing and reading clients needs ADMIN or OWNER: a client's secret acts as the owner.
 */
async function authorizeClientAccess(db: Db, principal: Principal, clientId: string): Promise<OAuthClientRow> {
  const client = await repo.findOAuthClient(db, clientId);
  if (!client) throw notFound('oauth_client_not_found', 'OAuthClientGuard - OAuth client not found.');
  if (principal.kind === 'oauthClient') {
    if (principal.client?.id === client.id) return client;
  } else if (isSystemAdmin(principal)) {
    return client;
  } else {
    const membership = await findMembershipOfUser(db, client.organizationId, principal.user.id);
    if (membership?.accepted && membership.role !== 'MEMBER') return client;
  }
  throw forbidden(
    'oauth_client_not_in_organization',
    `OAuthClientGuard - forbidden. oAuth client with id=${clientId} does not belong to an organization where user with id=${principal.user.id} is an admin or owner.`,
  );
}

/** Only admins and owners of a platform organization (and the system admin) manage OAuth clients. */
async function assertAdministersPlatformOrganization(db: Db, principal: Principal): Promise<void> {
  if (isSystemAdmin(principal)) return;
  if ((await repo.listAdministeredPlatformOrganizations(db, principal.user.id)).length === 0) {
    throw forbidden('not_platform_organization_admin', 'Only an admin or owner of a platform organization can manage OAuth clients.');
  }
}

/** The access check of the platform routes (`access.platform`), run with the credential check. */
export async function authorizePlatform(db: Db, principal: Principal, rule: 'organizationAdmin' | 'client', clientId: string | undefined): Promise<OAuthClientRow | null> {
  if (rule === 'organizationAdmin') {
    await assertAdministersPlatformOrganization(db, principal);
    return null;
  }
  if (clientId === undefined) throw new Error('a platform client route without :clientId');
  return authorizeClientAccess(db, principal, clientId);
}

/**
 * The platform organization a new client goes to: the one the caller administers, or the one named by
 * `organizationId` when they administer several (the system admin names any platform organization).
 */
export async function chooseOrganization(db: Db, principal: Principal, requested: number | undefined): Promise<number> {
  if (isSystemAdmin(principal)) {
    if (requested === undefined) throw invalidField('organizationId', 'is required: the system admin names the platform organization of the new client');
    if (!(await repo.isPlatformOrganization(db, requested))) {
      throw fieldRejected('organizationId', 'not_platform_organization', `Organization with id=${requested} is not a platform organization.`, requested);
    }
    return requested;
  }
  const administered = await repo.listAdministeredPlatformOrganizations(db, principal.user.id);
  if (administered.length === 0) {
    throw forbidden('not_platform_organization_admin', 'Only an admin or owner of a platform organization can manage OAuth clients.');
  }
  if (requested !== undefined) {
    if (!administered.includes(requested)) {
      throw forbidden('not_platform_organization_admin', `User with id=${principal.user.id} is not an admin or owner of the platform organization with id=${requested}.`);
    }
    return requested;
  }
  if (administered.length > 1) {
    throw invalidField('organizationId', `is required: you administer several platform organizations (${administered.join(', ')})`);
  }
  return administered[0]!;
}

export async function createOAuthClient(tx: Db, secrets: SecretBox, organizationId: number, input: CreateOAuthClientInput): Promise<{ clientId: string; clientSecret: string }> {
  assertDisplayName('name', input.name);
  const secret = newClientSecret();
  const client = await repo.insertOAuthClient(tx, {
    id: newClientId(),
    organizationId,
    name: input.name,
    secretHash: sha256Hex(secret),
    secretSealed: secrets.seal(secret),
    permissions: normalizePermissions(input.permissions),
    logo: input.logo ?? null,
    redirectUris: input.redirectUris,
    bookingRedirectUri: input.bookingRedirectUri ?? null,
    bookingCancelRedirectUri: input.bookingCancelRedirectUri ?? null,
    bookingRescheduleRedirectUri: input.bookingRescheduleRedirectUri ?? null,
    areEmailsEnabled: input.areEmailsEnabled ?? false,
    areDefaultEventTypesEnabled: input.areDefaultEventTypesEnabled ?? false,
    areCalendarEventsEnabled: input.areCalendarEventsEnabled ?? true,
  });
  return { clientId: client.id, clientSecret: secret };
}

/** The clients of the platform organizations the caller administers (every client, to the system admin). */
export async function listOAuthClients(db: Db, secrets: SecretBox, principal: Principal): Promise<OAuthClientView[]> {
  const organizations = isSystemAdmin(principal) ? null : await repo.listAdministeredPlatformOrganizations(db, principal.user.id);
  return (await repo.listOAuthClients(db, organizations)).map((client) => viewOf(secrets, client));
}

/** Changes what was sent; new redirect URIs reach every process's cached tokens of the client at once. */
export async function updateOAuthClient(tx: Db, announce: Announce, secrets: SecretBox, clientId: string, input: UpdateOAuthClientInput): Promise<OAuthClientView> {
  if (input.permissions !== undefined) {
    throw fieldRejected('permissions', 'permissions_not_updatable', 'An OAuth client\'s permissions cannot be changed: create a new client instead.', input.permissions);
  }
  if (input.name !== undefined) assertDisplayName('name', input.name);
  const existing = await repo.lockOAuthClient(tx, clientId);
  if (!existing) throw notFound('oauth_client_not_found', `OAuth client with ID ${clientId} not found`);
  const { permissions: _fixed, ...fields } = input;
  const changes = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as OAuthClientChanges;
  if (Object.keys(changes).length === 0) return viewOf(secrets, existing);
  const updated = await repo.updateOAuthClient(tx, clientId, changes);
  await announce({ kind: 'oauthClient', clientId });
  return viewOf(secrets, updated);
}

/**
 * Deletes the client with its tokens and webhook subscriptions. Its managed users stay, as users of
 * its organization (the reference keeps them too); its admins manage them through the organization's
 * user routes.
 */
export async function deleteOAuthClient(tx: Db, announce: Announce, secrets: SecretBox, clientId: string): Promise<OAuthClientView> {
  const existing = await repo.lockOAuthClient(tx, clientId);
  if (!existing) throw notFound('oauth_client_not_found', `OAuth client with ID ${clientId} not found`);
  await deleteAccessTokensOfClient(tx, clientId);
  await repo.deleteOAuthClient(tx, clientId);
  await announce({ kind: 'oauthClient', clientId });
  return viewOf(secrets, existing);
}

/**
 * The reference's canUserBeAddedToOrg: a user no OAuth client manages joins only organizations without
 * clients, a managed user only an organization one of whose clients manages them.
 */
export async function assertMayJoinOrganization(db: Db, userId: number, organizationId: number): Promise<void> {
  const { userClientId, organizationClientIds } = await repo.findClientsOfUserAndOrganization(db, userId, organizationId);
  if (userClientId === null && organizationClientIds.length === 0) return;
  if (userClientId !== null && organizationClientIds.includes(userClientId)) return;
  if (userClientId === null) {
    throw badRequest(
      'regular_user_platform_organization',
      "Can't add user to organization - the user is not platform managed user but organization is platform managed. Both have to be created using OAuth credentials.",
    );
  }
  if (organizationClientIds.length === 0) {
    throw badRequest(
      'managed_user_regular_organization',
      "Can't add user to organization - the user is platform managed user but organization is not because organization probably was not created using OAuth credentials.",
    );
  }
  throw badRequest('managed_user_other_client', "Can't add user to organization - managed user and organization were created using different OAuth clients.");
}
