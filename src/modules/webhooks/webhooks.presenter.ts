import type { Static } from 'typebox';
import type { EventTypeWebhookOutput, UserWebhookOutput } from './webhooks.schemas.js';
import type { WebhookView } from './webhooks.service.js';

type BaseOutput = Omit<Static<typeof UserWebhookOutput>, 'userId'>;

/**
 * The fields every level shows. As the reference: `payloadTemplate` and `secret` are null when unset,
 * and the owner's id is the one field that differs between levels.
 */
function presentBase(view: WebhookView): BaseOutput {
  return {
    id: view.id,
    subscriberUrl: view.subscriberUrl,
    active: view.active,
    triggers: view.triggers,
    payloadTemplate: view.payloadTemplate,
    secret: view.secret,
    version: view.version,
    ...(view.time !== null && view.timeUnit !== null ? { time: view.time, timeUnit: view.timeUnit } : {}),
  };
}

export function presentUserWebhook(view: WebhookView): Static<typeof UserWebhookOutput> {
  if (view.owner.kind !== 'user') throw new Error(`webhook ${view.id} is not a user webhook`);
  return { ...presentBase(view), userId: view.owner.userId };
}

export function presentEventTypeWebhook(view: WebhookView): Static<typeof EventTypeWebhookOutput> {
  if (view.owner.kind !== 'eventType') throw new Error(`webhook ${view.id} is not an event-type webhook`);
  return { ...presentBase(view), eventTypeId: view.owner.eventTypeId };
}

/** The reference's organization webhook: the user-webhook shape with the organization's id as `teamId`. */
export function presentOrganizationWebhook(view: WebhookView): BaseOutput & { teamId: number } {
  if (view.owner.kind !== 'organization') throw new Error(`webhook ${view.id} is not an organization webhook`);
  return { ...presentBase(view), teamId: view.owner.organizationId };
}

/** The reference's OAuth-client webhook: the base fields and `oAuthClientId`. */
export function presentOAuthClientWebhook(view: WebhookView): BaseOutput & { oAuthClientId: string } {
  if (view.owner.kind !== 'oauthClient') throw new Error(`webhook ${view.id} is not an OAuth-client webhook`);
  return { ...presentBase(view), oAuthClientId: view.owner.oauthClientId };
}

/** The reference's delete-all answer: "2 webhooks deleted". */
export function presentDeletedCount(count: number): string {
  return `${count} webhooks deleted`;
}
