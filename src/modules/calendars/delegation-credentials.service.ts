// Organizations' delegation credentials: a Google Workspace service account or a Microsoft 365 app that
// reads and writes the calendars of the organization's members in one domain, without each member
// connecting their own. Enabling one connects every accepted member of the domain (a job: one
// connection each, its primary calendar selected, as a member connecting it themselves would have);
// disabling removes those connections.
import { randomUUID } from 'node:crypto';
import type { WorkspacePlatformSlug } from '../../db/schema.js';
import { CalendarProviderError, type OAuthTokens } from '../../integrations/calendar-types.js';
import { privateKeyProblem } from '../../integrations/google/index.js';
import { insertJobs } from '../../jobs/jobs.repository.js';
import { badRequest, conflict, invalidField, notFound } from '../../lib/errors.js';
import { DELEGATED_TYPES, type DelegatedGrant, endpointsClient, OAUTH_ADAPTERS, type OAuthCredentials, oauthSession, type ServiceAccountKey } from './calendar-oauth.js';
import { calendarTransaction, type CalendarSyncDeps, outboundPolicy, syncCalendarSource } from './calendar-sync.js';
import * as calendarsRepo from './calendars.repository.js';
import { CALENDAR_APPS, type CalendarsDeps } from './calendars.service.js';
import { WORKSPACE_PLATFORMS } from './delegation-credentials.schemas.js';
import * as repo from './delegation-credentials.repository.js';
import { recordDelegationFailure } from './delegation-errors.js';

export const DELEGATION_PROVISION_JOB = 'calendar.delegation.provision';
/** Members one provisioning job connects (the sweep queues the next job for the rest). */
const PROVISION_BATCH = 50;

export interface DelegationCredentialView {
  id: string;
  enabled: boolean;
  domain: string;
  organizationId: number;
  workspacePlatform: { name: string; slug: WorkspacePlatformSlug };
  createdAt: string;
  updatedAt: string;
}

const viewOf = (row: repo.DelegationCredentialRow): DelegationCredentialView => ({
  id: row.id,
  enabled: row.enabled,
  domain: row.domain,
  organizationId: row.organizationId,
  workspacePlatform: { name: WORKSPACE_PLATFORMS[row.workspacePlatform], slug: row.workspacePlatform },
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

interface KeyInput {
  private_key: string;
  client_id: string;
  client_email?: string | undefined;
  tenant_id?: string | undefined;
}

function platformOf(slug: string): WorkspacePlatformSlug {
  if (slug === 'google' || slug === 'office365') return slug;
  throw invalidField('workspacePlatformSlug', 'must be one of the workspace platforms: google, office365', slug);
}

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

function domainOf(input: string): string {
  const domain = input.trim().toLowerCase().replace(/^@/, '');
  if (!DOMAIN.test(domain)) throw invalidField('domain', 'must be a domain name (example.com)', input);
  return domain;
}

/** The fields of the key the platform needs, checked; everything else a pasted JSON key holds is dropped. */
function keyOf(platform: WorkspacePlatformSlug, input: KeyInput): ServiceAccountKey {
  if (platform === 'google') {
    if (!input.client_email) throw invalidField('serviceAccountKey.client_email', 'is required for a Google service account');
    const problem = privateKeyProblem(input.private_key);
    if (problem) throw invalidField('serviceAccountKey.private_key', `is ${problem}`);
    return { client_email: input.client_email, client_id: input.client_id, private_key: input.private_key };
  }
  if (!input.tenant_id) throw invalidField('serviceAccountKey.tenant_id', 'is required for a Microsoft 365 app');
  return { tenant_id: input.tenant_id, client_id: input.client_id, private_key: input.private_key };
}

/** POST /v2/organizations/{orgId}/delegation-credentials: stored disabled; PATCH enables it. */
export async function createDelegationCredential(deps: CalendarsDeps, organizationId: number, input: { workspacePlatformSlug: string; domain: string; serviceAccountKey: KeyInput }): Promise<DelegationCredentialView> {
  const platform = platformOf(input.workspacePlatformSlug);
  const domain = domainOf(input.domain);
  const key = keyOf(platform, input.serviceAccountKey);
  const row = await repo.insertDelegationCredential(deps.database.db, { id: randomUUID(), organizationId, workspacePlatform: platform, domain, keySealed: deps.secrets.seal(JSON.stringify(key)) });
  if (!row) throw conflict('delegation_credential_exists', `The organization already has a ${platform} delegation credential for ${domain}: change it with PATCH`);
  return viewOf(row);
}

const NO_TOKENS: OAuthTokens = { accessToken: '', refreshToken: '', expiresAt: 0, scope: null };

function delegatedCredentials(credentialId: string, platform: WorkspacePlatformSlug, key: ServiceAccountKey, email: string): OAuthCredentials {
  const delegation: DelegatedGrant = { credentialId, platform, key };
  // Workspace addresses are case-insensitive; svc keeps the case a user typed.
  return { tokens: NO_TOKENS, email: email.toLowerCase(), delegation };
}

/** The member's calendars read with the key (what enabling tries, and what connecting a member reads). */
async function readMemberCalendars(deps: Pick<CalendarSyncDeps, 'config'>, credentials: OAuthCredentials) {
  const type = DELEGATED_TYPES[credentials.delegation!.platform];
  const session = oauthSession(endpointsClient(deps.config, type), credentials, outboundPolicy(deps.config), async () => {});
  const calendars = await OAUTH_ADAPTERS[type].listCalendars(session);
  return { calendars, tokens: session.tokens };
}

/**
 * PATCH /v2/organizations/{orgId}/delegation-credentials/{credentialId}. Enabling (or a new key on an
 * enabled credential) first reads the calendars of a member of the domain with the key (the caller when
 * they are one): a key the workspace refuses is a 400 and nothing changes. Connections already made
 * take the new key; disabling removes them.
 */
export async function updateDelegationCredential(
  deps: CalendarsDeps,
  organizationId: number,
  callerId: number,
  credentialId: string,
  input: { enabled?: boolean | undefined; serviceAccountKey?: KeyInput | undefined },
): Promise<DelegationCredentialView> {
  const current = await repo.findDelegationCredential(deps.database.db, organizationId, credentialId);
  if (!current) throw notFound('delegation_credential_not_found', `Delegation credential with id ${credentialId} not found`);
  const key = input.serviceAccountKey ? keyOf(current.workspacePlatform, input.serviceAccountKey) : (JSON.parse(deps.secrets.open(current.keySealed)) as ServiceAccountKey);
  const enabled = input.enabled ?? current.enabled;
  if (enabled && (!current.enabled || input.serviceAccountKey)) {
    const member = await repo.memberToTry(deps.database.db, current, callerId);
    if (member) {
      try {
        await readMemberCalendars(deps, delegatedCredentials(current.id, current.workspacePlatform, key, member.email));
      } catch (error) {
        const why = error instanceof CalendarProviderError ? `${error.kind}: ${error.message}` : 'the workspace did not answer';
        throw badRequest('delegation_credential_not_working', `The key could not read the calendars of ${member.email}, a member of ${current.domain}: ${why}`);
      }
    }
  }
  const keySealed = input.serviceAccountKey ? deps.secrets.seal(JSON.stringify(key)) : undefined;
  return calendarTransaction(deps, async (tx, busyTimeChanged) => {
    const locked = await repo.findDelegationCredential(tx, organizationId, credentialId, true);
    if (!locked) throw notFound('delegation_credential_not_found', `Delegation credential with id ${credentialId} not found`);
    const row = await repo.updateDelegationCredential(tx, credentialId, { enabled, ...(keySealed ? { keySealed } : {}) });
    if (!enabled) {
      for (const userId of await repo.deleteConnectionsOfCredential(tx, credentialId)) await busyTimeChanged(userId);
      return viewOf(row);
    }
    if (keySealed) {
      // A new key: members it could not read are tried again at once.
      await repo.clearFailuresOf(tx, credentialId);
      for (const connection of await repo.connectionsOfCredential(tx, credentialId)) {
        const credentials = JSON.parse(deps.secrets.open(connection.credentialsSealed)) as OAuthCredentials;
        const renewed = delegatedCredentials(credentialId, row.workspacePlatform, key, credentials.email);
        await repo.resealConnection(tx, connection.id, deps.secrets.seal(JSON.stringify(renewed)));
      }
    }
    await insertJobs(tx, [{ kind: DELEGATION_PROVISION_JOB, payload: { credentialId }, maxAttempts: 1, dedupeKey: `${DELEGATION_PROVISION_JOB}:${credentialId}@${row.updatedAt.getTime()}` }]);
    return viewOf(row);
  });
}

/** The sweep's part: a provisioning job for each enabled credential with a member to connect or a connection to drop. */
export async function queueDelegationProvisioning(deps: Pick<CalendarSyncDeps, 'database'>, now: Date): Promise<void> {
  const ids = await repo.credentialsNeedingWork(deps.database.db, now);
  const minute = Math.floor(now.getTime() / 60_000);
  await insertJobs(deps.database.db, ids.map((credentialId) => ({ kind: DELEGATION_PROVISION_JOB, payload: { credentialId }, maxAttempts: 1, dedupeKey: `${DELEGATION_PROVISION_JOB}:${credentialId}#${minute}` })));
}

/**
 * Connects the domain's members who have no connection of the credential yet (their calendars read with
 * the key, the primary one selected and synced at once), drops the connections of those who left the
 * organization or the domain, and tries again the connections the workspace refused. A member whose
 * calendars cannot be read is recorded (the organization's webhooks hear of it once) and tried again an
 * hour later.
 */
export async function provisionDelegatedCalendars(
  deps: CalendarSyncDeps,
  credentialId: string,
  now: number = Date.now(),
): Promise<{ connected: number; failed: number; dropped: number; restored: number }> {
  const credential = await repo.findDelegationCredentialById(deps.database.db, credentialId);
  if (!credential?.enabled) return { connected: 0, failed: 0, dropped: 0, restored: 0 };
  const stale = await repo.staleConnections(deps.database.db, credential);
  if (stale.length > 0) {
    await calendarTransaction(deps, async (tx, busyTimeChanged) => {
      await repo.deleteConnectionsById(tx, stale.map((connection) => connection.id));
      for (const userId of new Set(stale.map((connection) => connection.userId))) await busyTimeChanged(userId);
    });
  }
  const key = JSON.parse(deps.secrets.open(credential.keySealed)) as ServiceAccountKey;
  const type = DELEGATED_TYPES[credential.workspacePlatform];
  let connected = 0;
  let failed = 0;
  let restored = 0;
  const read = async (userId: number, email: string) => {
    const credentials = delegatedCredentials(credential.id, credential.workspacePlatform, key, email);
    try {
      const answer = await readMemberCalendars(deps, credentials);
      return { credentials, ...answer };
    } catch (error) {
      failed++;
      const failure = error instanceof CalendarProviderError ? `${error.kind}: ${error.message}` : `error: ${error instanceof Error ? error.message : String(error)}`;
      await deps.database.transaction((tx) => recordDelegationFailure(tx, credential.id, { id: userId, email }, failure, now));
      deps.log?.warn?.({ credentialId, userId, failure }, 'delegated calendars could not be read');
      return null;
    }
  };
  for (const connection of await repo.invalidConnectionsDue(deps.database.db, credential, new Date(now), PROVISION_BATCH)) {
    const email = (JSON.parse(deps.secrets.open(connection.credentialsSealed)) as OAuthCredentials).email;
    const answer = await read(connection.userId, email);
    if (!answer) continue;
    await calendarTransaction(deps, async (tx, busyTimeChanged) => {
      await repo.clearInvalid(tx, connection.id, deps.secrets.seal(JSON.stringify({ ...answer.credentials, tokens: answer.tokens } satisfies OAuthCredentials)));
      await repo.clearMemberFailure(tx, credential.id, connection.userId);
      await busyTimeChanged(connection.userId);
    });
    restored++;
  }
  for (const member of await repo.membersWithoutConnection(deps.database.db, credential, new Date(now), PROVISION_BATCH)) {
    const answer = await read(member.userId, member.email);
    if (!answer) continue;
    const sealed = deps.secrets.seal(JSON.stringify({ ...answer.credentials, tokens: answer.tokens } satisfies OAuthCredentials));
    const sources = await calendarTransaction(deps, async (tx, busyTimeChanged) => {
      const connection = await calendarsRepo.insertDelegatedConnection(tx, { userId: member.userId, type, appId: CALENDAR_APPS[type].appId, credentialsSealed: sealed, delegationCredentialId: credential.id, accountEmail: answer.credentials.email });
      if (!connection) return [];
      await repo.clearMemberFailure(tx, credential.id, member.userId);
      await busyTimeChanged(member.userId);
      return calendarsRepo.insertSources(tx, connection, answer.calendars, new Date(now), (calendar) => calendar.primary);
    });
    if (sources.length > 0) connected++;
    for (const source of sources) if (source.selected) await syncCalendarSource(deps, source.id, now);
  }
  return { connected, failed, dropped: stale.length, restored };
}
