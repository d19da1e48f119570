import type { Config } from '../../app/config.js';
import type { Db } from '../../db/client.js';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors.js';
import { mayManageUserWebhook, ownsEventType } from '../access/resource-policy.js';
import type { SecretBox } from '../../lib/secrets.js';
import { findBookableEventType } from '../event-types/event-types.service.js';
import { findTeamEventType } from '../event-types/team-event-types.repository.js';
import type { UserRecord } from '../users/users.repository.js';
import { parsePayloadTemplate } from './payload-template.js';
import { assertOutboundUrl } from '../../lib/outbound-address.js';
import { assertNoShowDelay, assertTriggers, DEFAULT_WEBHOOK_VERSION, type NoShowTimeUnit, type WebhookLevel, type WebhookTrigger, type WebhookVersion } from './webhook-triggers.js';
import * as repo from './webhooks.repository.js';
import type { WebhookFields, WebhookOwner, WebhookRow } from './webhooks.repository.js';

export type { WebhookOwner } from './webhooks.repository.js';

/** What the service needs besides the database: the private-address policy and the secret box. */
export interface WebhookDeps {
  config: Pick<Config, 'allowPrivateWebhooks'>;
  secrets: SecretBox;
}

/** The caller as the access rules see them (the system admin may manage other users' webhooks). */
export type WebhookCaller = Pick<UserRecord, 'id' | 'role'>;

/**
 * A subscription level as one route family addresses it: whose subscriptions, which triggers they may
 * list, and who is asking. Team, organization and OAuth-client routes add their own scopes.
 */
export interface WebhookScope {
  level: WebhookLevel;
  owner: WebhookOwner;
  caller: WebhookCaller;
}

/** A subscription as the presenters see it: the secret opened. */
export interface WebhookView {
  id: number;
  owner: WebhookOwner;
  subscriberUrl: string;
  active: boolean;
  triggers: WebhookTrigger[];
  payloadTemplate: string | null;
  secret: string | null;
  version: WebhookVersion;
  time: number | null;
  timeUnit: NoShowTimeUnit | null;
}

/** A create body; `null` and absent mean "none" for the template and the secret. */
export interface WebhookInput {
  subscriberUrl: string;
  active: boolean;
  triggers: string[];
  payloadTemplate?: string | null | undefined;
  secret?: string | null | undefined;
  version?: WebhookVersion | undefined;
  time?: number | null | undefined;
  timeUnit?: NoShowTimeUnit | null | undefined;
}

/** An update body: a key that is undefined was not sent; `null` removes the template or the secret. */
export type WebhookChanges = Partial<WebhookInput>;

/** Checked values ready to store (the secret sealed). */
export type PreparedWebhook = WebhookFields;
export type PreparedChanges = Partial<WebhookFields>;

// ---------------------------------------------------------------------------------------------------
// Scopes and access (the reference's guards)

export function userScope(caller: WebhookCaller): WebhookScope {
  return { level: 'user', owner: { kind: 'user', userId: caller.id }, caller };
}

/**
 * The caller's personal event type: 404 when there is none, 403 when it is someone else's (the
 * reference's IsUserEventTypeWebhookGuard).
 */
export async function eventTypeScope(db: Db, caller: WebhookCaller, eventTypeId: number): Promise<WebhookScope> {
  const found = await findBookableEventType(db, { id: eventTypeId });
  if (!found) throw notFound('event_type_not_found', `Event type (${eventTypeId}) not found`);
  if (!ownsEventType(caller.id, found.eventType)) {
    throw forbidden('event_type_not_owned', `User (${caller.id}) is not the owner of event type (${eventTypeId})`);
  }
  return { level: 'eventType', owner: { kind: 'eventType', eventTypeId }, caller };
}

/**
 * A team's event type (`/v2/teams/{teamId}/event-types/{eventTypeId}/webhooks`); the route has checked
 * that the caller administers the team. Its subscriptions hang on the event type, as a personal one's,
 * and take the team event-type triggers. 404 when the team has no such event type (the reference's
 * IsTeamEventTypeWebhookGuard).
 */
export async function teamEventTypeScope(db: Db, caller: WebhookCaller, teamId: number, eventTypeId: number): Promise<WebhookScope> {
  if (!(await findTeamEventType(db, teamId, eventTypeId))) {
    throw notFound('event_type_not_found', `IsTeamEventTypeWebhookGuard - Event type (${eventTypeId}) not found for team (${teamId})`);
  }
  return { level: 'teamEventType', owner: { kind: 'eventType', eventTypeId }, caller };
}

/** An organization's own subscriptions (`/v2/organizations/{orgId}/webhooks`); the route has checked the caller's role. */
export function organizationScope(caller: WebhookCaller, organizationId: number): WebhookScope {
  return { level: 'organization', owner: { kind: 'organization', organizationId }, caller };
}

/** A platform OAuth client's subscriptions (`/v2/oauth-clients/{clientId}/webhooks`); the route has checked the caller. */
export function oauthClientScope(caller: WebhookCaller, oauthClientId: string): WebhookScope {
  return { level: 'oauthClient', owner: { kind: 'oauthClient', oauthClientId }, caller };
}

/**
 * The reference's IsWebhookInOrg guard: a subscription that is not the organization's is refused with
 * 403, and so is an id that names no subscription at all (the guard looks the pair up and never
 * answers 404).
 */
export async function assertWebhookInOrganization(db: Db, organizationId: number, id: number): Promise<void> {
  const row = await repo.findWebhookById(db, id);
  const owner = row ? ownerOf(row) : undefined;
  if (owner?.kind !== 'organization' || owner.organizationId !== organizationId) {
    throw forbidden('webhook_not_in_organization', `IsWebhookInOrg - webhook with id=${id} is not part of the organization with id=${organizationId}.`);
  }
}

export function ownerOf(row: WebhookRow): WebhookOwner {
  switch (row.ownerKind) {
    case 'user':
      return { kind: 'user', userId: row.userId! };
    case 'eventType':
      return { kind: 'eventType', eventTypeId: row.eventTypeId! };
    case 'team':
      return { kind: 'team', teamId: row.teamId! };
    case 'organization':
      return { kind: 'organization', organizationId: row.organizationId! };
    case 'oauthClient':
      return { kind: 'oauthClient', oauthClientId: row.oauthClientId! };
  }
}

function sameOwner(a: WebhookOwner, b: WebhookOwner): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The subscription `id` if the scope may reach it; otherwise the reference's refusal for that level. */
function assertInScope(row: WebhookRow | undefined, scope: WebhookScope, id: number): WebhookRow {
  if (!row) throw notFound('webhook_not_found', `Webhook (${id}) not found`);
  const owner = ownerOf(row);
  switch (scope.owner.kind) {
    case 'user':
      // The reference's IsUserWebhookGuard: another user's webhook is refused (403) except to the system admin.
      if (owner.kind !== 'user' || !mayManageUserWebhook(scope.caller, owner.userId)) {
        throw forbidden('webhook_not_owned', 'Forbidden resource');
      }
      return row;
    case 'eventType':
      if (owner.kind !== 'eventType') throw badRequest('webhook_not_of_event_type', `Webhook (${id}) is not associated with an event type`);
      if (owner.eventTypeId !== scope.owner.eventTypeId) {
        throw forbidden('webhook_of_other_event_type', `Webhook (${id}) is not associated with event type (${scope.owner.eventTypeId})`);
      }
      return row;
    case 'oauthClient':
      // The reference's IsOAuthClientWebhookGuard.
      if (!sameOwner(owner, scope.owner)) throw forbidden('webhook_not_of_oauth_client', 'IsOAuthClientWebhookGuard - Webhook does not belong to this oAuthClient');
      return row;
    default:
      if (!sameOwner(owner, scope.owner)) throw notFound('webhook_not_found', `Webhook (${id}) not found`);
      return row;
  }
}

// ---------------------------------------------------------------------------------------------------
// Input checks (run before the write's transaction: resolving the subscriber's host may take a while)

const OWNER_WORDS: Record<WebhookOwner['kind'], string> = {
  user: 'user',
  eventType: 'event type',
  team: 'team',
  organization: 'organization',
  oauthClient: 'OAuth client',
};

async function checkUrl(deps: WebhookDeps, url: string): Promise<string> {
  await assertOutboundUrl(url, deps.config.allowPrivateWebhooks, 'subscriberUrl');
  return url;
}

function checkTemplate(template: string | null | undefined): string | null {
  if (template === undefined || template === null) return null;
  parsePayloadTemplate(template);
  return template;
}

function seal(deps: WebhookDeps, secret: string | null | undefined): string | null {
  return secret === undefined || secret === null ? null : deps.secrets.seal(secret);
}

export async function prepareCreate(deps: WebhookDeps, level: WebhookLevel, input: WebhookInput): Promise<PreparedWebhook> {
  const triggers = assertTriggers(level, input.triggers);
  const payloadTemplate = checkTemplate(input.payloadTemplate);
  const subscriberUrl = await checkUrl(deps, input.subscriberUrl);
  return {
    subscriberUrl,
    active: input.active,
    triggers,
    payloadTemplate,
    secretSealed: seal(deps, input.secret),
    version: input.version ?? DEFAULT_WEBHOOK_VERSION,
    ...assertNoShowDelay(input.time ?? null, input.timeUnit ?? null),
  };
}

export async function prepareUpdate(deps: WebhookDeps, level: WebhookLevel, changes: WebhookChanges): Promise<PreparedChanges> {
  const prepared: PreparedChanges = {};
  if (changes.triggers !== undefined) prepared.triggers = assertTriggers(level, changes.triggers);
  if (changes.payloadTemplate !== undefined) prepared.payloadTemplate = checkTemplate(changes.payloadTemplate);
  if (changes.subscriberUrl !== undefined) prepared.subscriberUrl = await checkUrl(deps, changes.subscriberUrl);
  if (changes.active !== undefined) prepared.active = changes.active;
  if (changes.secret !== undefined) prepared.secretSealed = seal(deps, changes.secret);
  if (changes.version !== undefined) prepared.version = changes.version;
  if (changes.time !== undefined) prepared.time = changes.time;
  if (changes.timeUnit !== undefined) prepared.timeUnit = changes.timeUnit;
  return prepared;
}

// ---------------------------------------------------------------------------------------------------
// Reads and writes

function view(deps: WebhookDeps, row: WebhookRow): WebhookView {
  return {
    id: row.id,
    owner: ownerOf(row),
    subscriberUrl: row.subscriberUrl,
    active: row.active,
    triggers: row.triggers as WebhookTrigger[],
    payloadTemplate: row.payloadTemplate,
    secret: row.secretSealed === null ? null : deps.secrets.open(row.secretSealed),
    version: row.version as WebhookVersion,
    time: row.time,
    timeUnit: row.timeUnit,
  };
}

/** One subscription per subscriber URL and owner (the reference's 409 on create). */
async function assertUrlFree(tx: Db, owner: WebhookOwner, subscriberUrl: string, exceptId?: number): Promise<void> {
  await repo.lockOwner(tx, owner);
  if (await repo.isSubscriberUrlTaken(tx, owner, subscriberUrl, exceptId)) {
    throw conflict('webhook_subscriber_url_taken', `Webhook with this subscriber url already exists for this ${OWNER_WORDS[owner.kind]}`, { property: 'subscriberUrl' });
  }
}

export async function createWebhook(tx: Db, deps: WebhookDeps, scope: WebhookScope, prepared: PreparedWebhook): Promise<WebhookView> {
  await assertUrlFree(tx, scope.owner, prepared.subscriberUrl);
  return view(deps, await repo.insertWebhook(tx, scope.owner, prepared));
}

export async function listWebhooks(db: Db, deps: WebhookDeps, scope: WebhookScope, page: { skip: number; take: number }): Promise<WebhookView[]> {
  const rows = await repo.listWebhooks(db, scope.owner, page);
  return rows.map((row) => view(deps, row));
}

export async function getWebhook(db: Db, deps: WebhookDeps, scope: WebhookScope, id: number): Promise<WebhookView> {
  return view(deps, assertInScope(await repo.findWebhookById(db, id), scope, id));
}

/** Checks that the scope reaches the subscription, without changing anything (before a write's input checks). */
export async function assertWebhookReachable(db: Db, scope: WebhookScope, id: number): Promise<void> {
  assertInScope(await repo.findWebhookById(db, id), scope, id);
}

export async function updateWebhook(tx: Db, deps: WebhookDeps, scope: WebhookScope, id: number, changes: PreparedChanges): Promise<WebhookView> {
  const row = assertInScope(await repo.lockWebhook(tx, id), scope, id);
  if (changes.subscriberUrl !== undefined && changes.subscriberUrl !== row.subscriberUrl) {
    await assertUrlFree(tx, ownerOf(row), changes.subscriberUrl, id);
  }
  // The delay is checked as it will be stored: one of the two changed alone must still fit the other.
  if (changes.time !== undefined || changes.timeUnit !== undefined) {
    Object.assign(changes, assertNoShowDelay(changes.time === undefined ? row.time : changes.time, changes.timeUnit === undefined ? row.timeUnit : changes.timeUnit));
  }
  if (Object.keys(changes).length === 0) return view(deps, row);
  return view(deps, await repo.updateWebhook(tx, id, changes));
}

/** Deletes one subscription and returns it as it was. */
export async function deleteWebhook(tx: Db, deps: WebhookDeps, scope: WebhookScope, id: number): Promise<WebhookView> {
  const row = assertInScope(await repo.lockWebhook(tx, id), scope, id);
  await repo.deleteWebhook(tx, id);
  return view(deps, row);
}

/** Deletes every subscription of the scope's owner; returns how many. */
export async function deleteAllWebhooks(tx: Db, scope: WebhookScope): Promise<number> {
  return repo.deleteWebhooksOf(tx, scope.owner);
}
