// Push notifications of Microsoft Graph: a subscription to a calendar's events. Graph first checks the
// notification URL (it POSTs `?validationToken=...` and wants it echoed as text/plain within 10 s), then
// POSTs `{value: [{subscriptionId, clientState, changeType, resource}]}` on each change; svc then reads
// the changes through its delta link. Subscriptions to events last at most 4,230 minutes and are made
// again before they end, or when a lifecycle notification says Graph removed one or wants it authorized
// again.
import type { OAuthSession, PushChannel, PushChannelRequest } from '../calendar-types.js';
import { apiUrl, expectJson, graphCall, secretsOf, statusError } from './client.js';
import { providerError, stringField } from '../provider-errors.js';

/** Graph's longest lifetime of a subscription to Outlook events. */
export const MAX_SUBSCRIPTION_MS = 4230 * 60_000;

export async function watchEvents(session: OAuthSession, calendarId: string, request: PushChannelRequest): Promise<PushChannel> {
  const what = 'creating a subscription';
  const owner = session.mailbox ? `users/${session.mailbox}` : 'me';
  const expiresAt = Math.min(request.expiresAt, session.now() + MAX_SUBSCRIPTION_MS - 60_000);
  const answer = await graphCall(session, {
    method: 'POST',
    url: apiUrl(session, '/subscriptions'),
    what,
    json: {
      changeType: 'created,updated,deleted',
      notificationUrl: request.address,
      // Lifecycle notifications (subscriptionRemoved, reauthorizationRequired, missed) come to the same address.
      lifecycleNotificationUrl: request.address,
      // Outlook ids can hold '/' and '+': encoded, as in every other path svc sends.
      resource: `${owner}/calendars/${encodeURIComponent(calendarId)}/events`,
      expirationDateTime: new Date(expiresAt).toISOString(),
      clientState: request.token,
    },
  });
  const body = expectJson(session, answer, what, [201, 200]);
  const id = stringField(body, 'id');
  const end = Date.parse(stringField(body, 'expirationDateTime') ?? '');
  if (!id || !Number.isFinite(end)) throw providerError('invalid_data', `${what}: the answer lacks id or expirationDateTime`, [...secretsOf(session), request.token]);
  return { id, resourceId: null, expiresAt: end };
}

export async function stopWatching(session: OAuthSession, channel: PushChannel): Promise<void> {
  const what = 'deleting a subscription';
  const answer = await graphCall(session, { method: 'DELETE', url: apiUrl(session, `/subscriptions/${encodeURIComponent(channel.id)}`), what });
  if (answer.status === 204 || answer.status === 200 || answer.status === 404) return;
  throw statusError(session, answer, what);
}
