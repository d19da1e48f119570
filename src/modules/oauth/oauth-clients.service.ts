import { randomBytes } from 'node:crypto';
import type { ChangeEvent } from '../../db/change-feed.js';
import type { Db } from '../../db/client.js';
import type { OAuthClientStatus, OAuthClientType } from '../../db/schema.js';
import { sha256Hex } from '../../lib/crypto.js';
import { assertDisplayName } from '../../lib/display-name.js';
import { fieldRejected, invalidField, notFound } from '../../lib/errors.js';
import { queueOAuthClientReviewMail } from '../mail/oauth-client-mail.js';
import { isScope } from './oauth-scopes.js';
import * as repo from './oauth.repository.js';
import type { OAuthClientRecord } from './oauth.repository.js';

type Announce = (event: ChangeEvent) => Promise<void>;

export const MAX_REDIRECT_URIS = 10;

export interface RegisterClientInput {
  name: string;
  redirectUris: string[];
  scopes: string[];
  clientType: OAuthClientType;
  logo?: string | undefined;
}

/** A registered client; `secret` only right after registration of a confidential client (it is shown once). */
export interface RegisteredClient {
  client: OAuthClientRecord;
  secret: string | null;
}

/** Third-party client ids: `oa2_` and 128 random bits, unlike platform client ids (`c` + 24 characters). */
const newClientId = () => `oa2_${randomBytes(16).toString('hex')}`;
const newClientSecret = () => randomBytes(32).toString('base64url');

const isLoopback = (host: string) => host === 'localhost' || host === '127.0.0.1' || host === '[::1]';

/**
 * A redirect URI a client may register: an absolute https URL (http only on loopback, for native and
 * development apps), without a fragment (RFC 6749 3.1.2) or user info.
 */
export function redirectUriProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash !== '' || value.includes('#')) return 'must not contain a fragment';
  if (url.username !== '' || url.password !== '') return 'must not contain user information';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return null;
  return 'must use https (http is allowed on localhost only)';
}

function validateRegistration(input: RegisterClientInput): void {
  const name = input.name.trim();
  if (name === '' || name.length > 100) throw invalidField('name', 'must be 1 to 100 characters', input.name);
  assertDisplayName('name', input.name);
  if (input.redirectUris.length === 0) throw invalidField('redirectUris', 'must name at least one redirect URI', input.redirectUris);
  if (input.redirectUris.length > MAX_REDIRECT_URIS) throw invalidField('redirectUris', `must name at most ${MAX_REDIRECT_URIS} redirect URIs`, input.redirectUris);
  input.redirectUris.forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalidField(`redirectUris.${index}`, problem, uri);
  });
  if (input.scopes.length === 0) throw invalidField('scopes', 'must name at least one scope', input.scopes);
  const unknown = input.scopes.find((scope) => !isScope(scope));
  if (unknown !== undefined) throw fieldRejected('scopes', 'unknown_scope', `scopes: ${unknown} is not a scope`, input.scopes);
  if (input.clientType !== 'confidential' && input.clientType !== 'public') throw invalidField('clientType', "must be 'confidential' or 'public'", input.clientType);
  if (input.logo !== undefined && input.logo !== '') {
    let logo: URL | undefined;
    try {
      logo = new URL(input.logo);
    } catch {
      logo = undefined;
    }
    if (logo?.protocol !== 'https:') throw invalidField('logo', 'must be an https URL', input.logo);
  }
}

/** Registers a client for `ownerId`; it is `pending` until the system admin reviews it. */
export async function registerClient(tx: Db, ownerId: number, input: RegisterClientInput): Promise<RegisteredClient> {
  validateRegistration(input);
  const secret = input.clientType === 'confidential' ? newClientSecret() : null;
  const client = await repo.insertClient(tx, {
    id: newClientId(),
    ownerId,
    name: input.name.trim(),
    logo: input.logo ? input.logo : null,
    clientType: input.clientType,
    secretHash: secret === null ? null : sha256Hex(secret),
    redirectUris: [...new Set(input.redirectUris)],
    scopes: [...new Set(input.scopes)],
  });
  return { client, secret };
}

export const listClientsOfOwner = repo.listClientsOfOwner;
export const listClientsByStatus = repo.listClientsByStatus;

const clientNotFound = (clientId: string) => notFound('oauth2_client_not_found', `OAuth client with id ${clientId} not found`);

/** One of the caller's own clients; another user's is not found (its existence is not told). */
async function findOwnClient(db: Db, ownerId: number, clientId: string): Promise<OAuthClientRecord> {
  const client = await repo.findClient(db, clientId);
  if (!client || client.ownerId !== ownerId) throw clientNotFound(clientId);
  return client;
}

/**
 * A client as its authorization screen would show it: any user may read an approved client (as the
 * reference lets any authenticated caller); one under review or rejected only its owner.
 */
export async function findReadableClient(db: Db, callerId: number, clientId: string): Promise<OAuthClientRecord> {
  const client = await repo.findClient(db, clientId);
  if (!client || (client.status !== 'approved' && client.ownerId !== callerId)) throw clientNotFound(clientId);
  return client;
}

async function revokeClientTokens(tx: Db, announce: Announce, clientId: string): Promise<void> {
  for (const hash of await repo.deleteTokensOfClient(tx, clientId)) await announce({ kind: 'credential', hash });
}

/** Deletes one of the caller's clients; every token it was issued stops working. */
export async function deleteOwnClient(tx: Db, announce: Announce, ownerId: number, clientId: string): Promise<OAuthClientRecord> {
  await findOwnClient(tx, ownerId, clientId);
  await revokeClientTokens(tx, announce, clientId);
  return (await repo.deleteClient(tx, clientId))!;
}

/**
 * The system admin's decision on a client. The owner is told by email: the message is queued in the
 * mail outbox in this transaction, and the mail module sends it. Rejecting a client revokes every token it
 * holds; a client can be approved again after a rejection.
 */
export async function reviewClient(tx: Db, announce: Announce, clientId: string, decision: Exclude<OAuthClientStatus, 'pending'>, now: Date): Promise<OAuthClientRecord> {
  const before = await repo.findClient(tx, clientId);
  if (!before) throw clientNotFound(clientId);
  const client = (await repo.setClientStatus(tx, clientId, decision, now))!;
  if (decision === 'rejected') await revokeClientTokens(tx, announce, clientId);
  const owner = await repo.findClientOwner(tx, client.ownerId);
  if (owner && before.status !== decision) await queueOAuthClientReviewMail(tx, owner, client, decision);
  return client;
}
