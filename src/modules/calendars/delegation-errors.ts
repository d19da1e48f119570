// What an organization hears when its delegation credential cannot read a member's calendars: a
// DELEGATION_CREDENTIAL_ERROR webhook to the organization's subscribers, once per run of failures
// (the member is not mailed: only the organization's admins can mend the workspace's side), and a retry
// an hour later.
import type { Db } from '../../db/client.js';
import { emitWebhookEvent } from '../webhooks/webhook-emission.js';
import { findSubscriptions } from '../webhooks/webhook-deliveries.repository.js';
import { DELEGATED_TYPES } from './calendar-oauth.js';
import { CALENDAR_APPS } from './calendars.service.js';
import * as repo from './delegation-credentials.repository.js';

export const DELEGATION_ERROR_TRIGGER = 'DELEGATION_CREDENTIAL_ERROR';
/** A member the key could not read is tried again after this long. */
export const MEMBER_RETRY_MS = 3_600_000;

/**
 * Records that the credential could not read `userId`'s calendars; the first failure of a run tells the
 * organization's webhooks. Runs in the caller's transaction.
 */
export async function recordDelegationFailure(tx: Db, credentialId: string, user: { id: number; email: string }, failure: string, now: number): Promise<void> {
  const credential = await repo.findDelegationCredentialById(tx, credentialId);
  if (!credential) return;
  const first = await repo.recordMemberFailure(tx, credentialId, user.id, failure.slice(0, 500), new Date(now), new Date(now + MEMBER_RETRY_MS));
  if (!first) return;
  const subscriptions = await findSubscriptions(tx, { userIds: [], eventTypeIds: [], teamIds: [], organizationIds: [credential.organizationId], oauthClientIds: [] }, [DELEGATION_ERROR_TRIGGER]);
  const type = DELEGATED_TYPES[credential.workspacePlatform];
  await emitWebhookEvent(
    tx,
    {
      trigger: DELEGATION_ERROR_TRIGGER,
      createdAt: new Date(now),
      bookingEventId: null,
      payload: {
        error: { name: 'DelegationCredentialError', message: failure.slice(0, 500) },
        credential: { delegationCredentialId: credential.id, type, appId: CALENDAR_APPS[type].appId, domain: credential.domain },
        user: { id: user.id, email: user.email, organizationId: credential.organizationId },
      },
    },
    subscriptions,
  );
}
