// Push notifications of Google Calendar: an events.watch channel per calendar. Google POSTs to the
// channel's address (headers only: X-Goog-Channel-ID, X-Goog-Channel-Token, X-Goog-Resource-State)
// whenever the calendar's events change; svc then reads the changes with its sync token. Channels end
// at their expiration and are opened again before it.
import { CalendarProviderError, type OAuthSession, type PushChannel, type PushChannelRequest } from '../calendar-types.js';
import { callApi, expectOk, optionalString, requiredString, segment } from './client.js';
import { statusFailure } from './errors.js';

export async function watchEvents(session: OAuthSession, calendarId: string, request: PushChannelRequest): Promise<PushChannel> {
  const what = 'POST events/watch';
  const answer = await callApi(session, {
    method: 'POST',
    path: `/calendars/${segment(calendarId)}/events/watch`,
    body: { id: request.id, type: 'web_hook', address: request.address, token: request.token, expiration: String(request.expiresAt) },
    what,
  });
  const body = expectOk(answer, what);
  const expiration = Number(optionalString(body, 'expiration', what) ?? request.expiresAt);
  if (!Number.isFinite(expiration)) throw new CalendarProviderError('invalid_data', `${what}: expiration is not a number`);
  return { id: requiredString(body, 'id', what), resourceId: requiredString(body, 'resourceId', what), expiresAt: expiration };
}

export async function stopWatching(session: OAuthSession, channel: PushChannel): Promise<void> {
  const what = 'POST channels/stop';
  const answer = await callApi(session, { method: 'POST', path: '/channels/stop', body: { id: channel.id, resourceId: channel.resourceId }, what });
  // 404: the channel ended already.
  if (answer.status === 404 || (answer.status >= 200 && answer.status < 300)) return;
  throw statusFailure(answer.status, answer.headers, answer.body, what);
}
