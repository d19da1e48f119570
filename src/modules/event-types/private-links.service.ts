import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { sha256Hex } from '../../lib/crypto.js';
import { fieldRejected, invalidField, notFound } from '../../lib/errors.js';
import { parseIsoInstant } from '../../lib/iso-instant.js';
import type { SecretBox } from '../../lib/secrets.js';
import { ownsEventType } from '../access/resource-policy.js';
import { type EventTypeRow, findEventTypeById } from './event-types.repository.js';
import * as repo from './private-links.repository.js';
import type { PrivateLinkLimits, PrivateLinkRow, PrivateLinkWithSlug } from './private-links.repository.js';
import { findTeamEventType } from './team-event-types.repository.js';

/**
 * Whose event type a route manages the links of: the caller's own (the reference's
 * EventTypeOwnershipGuard) or one of a team's (the route has checked the caller's team role).
 */
export type LinkScope = { kind: 'personal'; callerId: number } | { kind: 'team'; teamId: number };

/** A link as the presenter shows it: its id opened. */
export interface PrivateLinkView {
  linkId: string;
  eventTypeId: number;
  slug: string;
  expiresAt: Date | null;
  maxUsageCount: number | null;
  usageCount: number;
  isExpired: boolean;
}

/** A create or update body; `null` is "not sent", as the reference's optional fields take it. */
export interface PrivateLinkInput {
  expiresAt?: string | null | undefined;
  maxUsageCount?: number | null | undefined;
}

/** A link that a booking or a slot listing may use, and whether bookings count against it. */
export interface UsableLink {
  id: number;
  eventTypeId: number;
  countsUses: boolean;
}

const eventTypeNotFound = (id: number) => notFound('event_type_not_found', `Event type with id ${id} not found`);

/** The event type of the scope: anything else, another user's or another team's included, is a 404 as in the reference. */
async function eventTypeInScope(db: Db, scope: LinkScope, eventTypeId: number): Promise<EventTypeRow> {
  const row = scope.kind === 'team' ? await findTeamEventType(db, scope.teamId, eventTypeId) : await findEventTypeById(db, eventTypeId);
  if (!row || (scope.kind === 'personal' && !ownsEventType(scope.callerId, row))) throw eventTypeNotFound(eventTypeId);
  return row;
}

/** Time-based links expire at `expiresAt`; usage-based ones once `maxUsageCount` bookings used them. */
function isExpired(link: PrivateLinkRow, now: number): boolean {
  if (link.expiresAt) return link.expiresAt.getTime() < now;
  return link.maxUsageCount !== null && link.usageCount >= link.maxUsageCount;
}

function view(secrets: SecretBox, { link, slug }: PrivateLinkWithSlug, now: number): PrivateLinkView {
  return {
    linkId: secrets.open(link.linkSealed),
    eventTypeId: link.eventTypeId,
    slug,
    expiresAt: link.expiresAt,
    maxUsageCount: link.maxUsageCount,
    usageCount: link.usageCount,
    isExpired: isExpired(link, now),
  };
}

/**
 * The limits a body sets: one of expiresAt and maxUsageCount (the reference's messages), or none at all
 * (undefined, allowed on update only).
 */
function limitsOf(input: PrivateLinkInput): PrivateLinkLimits | undefined {
  const hasExpiry = input.expiresAt !== undefined && input.expiresAt !== null;
  const hasCount = input.maxUsageCount !== undefined && input.maxUsageCount !== null;
  if (hasExpiry && hasCount) throw fieldRejected('maxUsageCount', 'private_link_limits_conflict', 'Provide only one of expiresAt or maxUsageCount', input.maxUsageCount);
  if (hasCount) return { expiresAt: null, maxUsageCount: input.maxUsageCount! };
  if (!hasExpiry) return undefined;
  const expiresAt = parseIsoInstant(input.expiresAt!);
  if (expiresAt === null) throw invalidField('expiresAt', 'must be an ISO 8601 date-time', input.expiresAt);
  return { expiresAt: new Date(expiresAt), maxUsageCount: null };
}

/** 16 random bytes, URL-safe: the link is a bearer secret, so nothing about it can be guessed. */
const newLinkId = () => randomBytes(16).toString('base64url');

const hashOf = (linkId: string) => sha256Hex(linkId);

export async function createPrivateLink(tx: Db, secrets: SecretBox, scope: LinkScope, eventTypeId: number, input: PrivateLinkInput, now: number): Promise<PrivateLinkView> {
  const { slug } = await eventTypeInScope(tx, scope, eventTypeId);
  const limits = limitsOf(input);
  if (!limits) throw fieldRejected('expiresAt', 'private_link_limit_required', 'Either expiresAt or maxUsageCount must be provided', input.expiresAt);
  const linkId = newLinkId();
  const link = await repo.insertPrivateLink(tx, eventTypeId, { hash: hashOf(linkId), sealed: secrets.seal(linkId) }, limits);
  return view(secrets, { link, slug }, now);
}

export async function listPrivateLinks(db: Db, secrets: SecretBox, scope: LinkScope, eventTypeId: number, now: number): Promise<PrivateLinkView[]> {
  await eventTypeInScope(db, scope, eventTypeId);
  return (await repo.listPrivateLinks(db, eventTypeId)).map((row) => view(secrets, row, now));
}

/**
 * Sending expiresAt makes the link time-based, maxUsageCount usage-based (its uses so far still
 * count); a body with neither changes nothing.
 */
export async function updatePrivateLink(tx: Db, secrets: SecretBox, scope: LinkScope, eventTypeId: number, linkId: string, input: PrivateLinkInput, now: number): Promise<PrivateLinkView> {
  await eventTypeInScope(tx, scope, eventTypeId);
  const limits = limitsOf(input);
  const found = await repo.lockPrivateLinkOf(tx, eventTypeId, hashOf(linkId));
  if (!found) throw notFound('private_link_not_found', 'Updated link not found');
  if (!limits) return view(secrets, found, now);
  return view(secrets, { link: await repo.updatePrivateLinkLimits(tx, found.link.id, limits), slug: found.slug }, now);
}

export async function deletePrivateLink(tx: Db, scope: LinkScope, eventTypeId: number, linkId: string): Promise<void> {
  await eventTypeInScope(tx, scope, eventTypeId);
  const found = await repo.lockPrivateLinkOf(tx, eventTypeId, hashOf(linkId));
  if (!found) throw notFound('private_link_not_found', 'Deleted link not found');
  await repo.deletePrivateLink(tx, found.link.id);
}

/**
 * svc's refusal of a link that cannot be used: unknown, of another event type, expired or used up,
 * all alike (the reference's `private_link_expired`, whose booking page answers 404 for each).
 */
function linkRefused(): Error {
  return notFound('private_link_expired', 'This private link has expired, has been used up, or is not a link of this event type.');
}

function usable(link: PrivateLinkRow | undefined, now: number): UsableLink {
  if (!link || isExpired(link, now)) throw linkRefused();
  return { id: link.id, eventTypeId: link.eventTypeId, countsUses: link.maxUsageCount !== null };
}

/** A link a slot listing may use (nothing is counted). */
export async function findUsableLink(db: Db, linkId: string, now: number): Promise<UsableLink> {
  return usable(await repo.findPrivateLink(db, hashOf(linkId)), now);
}

/**
 * A link a booking uses, counted as one use inside the booking's transaction. The row stays locked
 * until the booking commits, so two bookings through the last use of a link cannot both succeed; a
 * booking that fails rolls its use back.
 */
export async function useLinkForBooking(tx: Db, linkId: string, now: number): Promise<UsableLink> {
  const link = usable(await repo.lockPrivateLink(tx, hashOf(linkId)), now);
  if (link.countsUses) await repo.countPrivateLinkUse(tx, link.id);
  return link;
}

/** A link names one event type: used with another, it is refused as any unusable link. */
export function assertLinkOf(link: UsableLink, eventTypeId: number | null): void {
  if (link.eventTypeId !== eventTypeId) throw linkRefused();
}
