import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app/context.js';
import type { ChangeEvent } from '../db/change-feed.js';
import type { Db } from '../db/client.js';
import { invalidField } from '../lib/errors.js';
import { ok } from './envelope.js';
import { type MutationResponse, requestFingerprint, runIdempotent } from '../modules/idempotency/idempotency.service.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export type MutationWork = (tx: Db, announce: (event: ChangeEvent) => Promise<void>) => Promise<MutationResponse>;

/**
 * Runs a write endpoint's work in one transaction. With an `Idempotency-Key` header the key is claimed
 * and the response stored in that same transaction: a retry with the same request gets the first
 * response back (header `Idempotent-Replayed: true`) and changes nothing.
 */
export async function runMutation(ctx: Pick<AppContext, 'database' | 'changes' | 'clock' | 'secrets'>, request: FastifyRequest, reply: FastifyReply, work: MutationWork) {
  const sent = request.headers[IDEMPOTENCY_HEADER];
  const key = Array.isArray(sent) ? sent[0] : sent;
  if (key !== undefined && !KEY_PATTERN.test(key)) throw invalidField('Idempotency-Key', 'must be 1 to 255 visible ASCII characters', key);
  const result = await ctx.changes.transaction(ctx.database, async (tx, announce) => {
    if (key === undefined) return { ...(await work(tx, announce)), replayed: false };
    const principal = request.principal;
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    // Anonymous callers have no identity to scope keys by: a key is theirs together with the exact
    // request, so another caller cannot read an answer without sending the same request.
    // Platform credentials act as their organization's owner: a key is the client's, not the owner's.
    const scope = !principal ? `anonymous:${fingerprint}` : principal.kind === 'oauthClient' && principal.client ? `oauthClient:${principal.client.id}` : `${principal.kind}:${principal.user.id}`;
    const claim = { scope, key, fingerprint };
    return runIdempotent(tx, claim, new Date(ctx.clock()), ctx.secrets, () => work(tx, announce));
  });
  if (result.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.status(result.status).send(result.body);
}

/**
 * A write answering `status` with its result in svc's envelope, announcing `event` when it commits (what
 * every process must drop from its caches: a tenancy change for what decides who hosts or is routed).
 */
export function runAnnouncedMutation<T>(
  ctx: Pick<AppContext, 'database' | 'changes' | 'clock' | 'secrets'>,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  event: ChangeEvent,
  work: (tx: Db) => Promise<T>,
) {
  return runMutation(ctx, request, reply, async (tx, announce) => {
    const body = ok(await work(tx));
    await announce(event);
    return { status, body };
  });
}
