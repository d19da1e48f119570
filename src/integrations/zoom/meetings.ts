// Zoom meetings for bookings through the Zoom API v2 (documented: POST /users/me/meetings, PATCH and
// DELETE /meetings/{meetingId}), on a user's OAuth session with tokens refreshed as they run out.
import type { CalendarProviderError, OAuthSession } from '../calendar-types.js';
import { callWithFreshToken } from '../oauth-session.js';
import { jsonObject, providerError, retryAfterMs, stringField, transportError } from '../provider-errors.js';
import { refreshTokens } from './oauth.js';

export interface MeetingInput {
  topic: string;
  /** Epoch ms. */
  start: number;
  end: number;
  /** The organizer's zone: Zoom shows the meeting in it. */
  timeZone: string;
  agenda?: string | undefined;
}

export interface ZoomMeeting {
  id: string;
  joinUrl: string;
  password: string | null;
}

interface ZoomAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | null;
}

const secretsOf = (session: OAuthSession) => [session.tokens.accessToken, session.tokens.refreshToken, session.client.clientSecret];

async function zoomCall(session: OAuthSession, method: 'POST' | 'PATCH' | 'DELETE', path: string, what: string, json?: unknown): Promise<ZoomAnswer> {
  const refresh = () => refreshTokens(session.client, session.tokens.refreshToken, session.fetch, session.now());
  const answer = await callWithFreshToken(session, refresh, async (accessToken) => {
    try {
      const response = await session.fetch(`${session.client.endpoints.api.replace(/\/+$/, '')}${path}`, {
        method,
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
      return { status: response.status, headers: response.headers, body: jsonObject(await response.text()) };
    } catch (error) {
      throw transportError(error, what, secretsOf(session));
    }
  });
  return answer;
}

/** Zoom's failures by status ({code, message} bodies: 124 an invalid token, 3001 no such meeting). */
function statusError(session: OAuthSession, answer: ZoomAnswer, what: string): CalendarProviderError {
  const { status } = answer;
  const code = answer.body?.code;
  const line = `${what}: HTTP ${status}${typeof code === 'number' ? ` (Zoom code ${code})` : ''}${stringField(answer.body, 'message') ? `: ${stringField(answer.body, 'message')!.slice(0, 200)}` : ''}`;
  const secrets = secretsOf(session);
  if (status === 401 || status === 403) return providerError('unauthorized', line, secrets);
  if (status === 404) return providerError('not_found', line, secrets);
  if (status === 429 || status === 503) return providerError('rate_limited', line, secrets, retryAfterMs(answer.headers, session.now()));
  if (status >= 500) return providerError('unreachable', line, secrets);
  return providerError('invalid_data', line, secrets);
}

/** Zoom's start_time in UTC ("yyyy-MM-ddTHH:mm:ssZ") and a whole-minute duration. */
function meetingFields(input: MeetingInput) {
  return {
    topic: input.topic.slice(0, 200),
    type: 2,
    start_time: new Date(input.start).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    duration: Math.max(1, Math.round((input.end - input.start) / 60_000)),
    timezone: input.timeZone,
    ...(input.agenda ? { agenda: input.agenda.slice(0, 2000) } : {}),
  };
}

/** A scheduled meeting (type 2) on the account: its id, join link and passcode. */
export async function createMeeting(session: OAuthSession, input: MeetingInput): Promise<ZoomMeeting> {
  const what = 'creating a Zoom meeting';
  const answer = await zoomCall(session, 'POST', '/users/me/meetings', what, { ...meetingFields(input), settings: { join_before_host: true, waiting_room: false } });
  if (answer.status !== 201 && answer.status !== 200) throw statusError(session, answer, what);
  const id = answer.body?.id;
  const joinUrl = stringField(answer.body, 'join_url');
  if ((typeof id !== 'number' && typeof id !== 'string') || !joinUrl) throw providerError('invalid_data', `${what}: no id or join_url in the answer`, secretsOf(session));
  return { id: String(id), joinUrl, password: stringField(answer.body, 'password') };
}

/** Moves or renames a meeting; its link stays. */
export async function updateMeeting(session: OAuthSession, meetingId: string, input: MeetingInput): Promise<void> {
  const what = 'updating a Zoom meeting';
  const answer = await zoomCall(session, 'PATCH', `/meetings/${encodeURIComponent(meetingId)}`, what, meetingFields(input));
  if (answer.status !== 204 && answer.status !== 200) throw statusError(session, answer, what);
}

/** Deletes a meeting; one already gone counts as deleted. */
export async function deleteMeeting(session: OAuthSession, meetingId: string): Promise<void> {
  const what = 'deleting a Zoom meeting';
  const answer = await zoomCall(session, 'DELETE', `/meetings/${encodeURIComponent(meetingId)}`, what);
  if (answer.status === 204 || answer.status === 200 || answer.status === 404) return;
  throw statusError(session, answer, what);
}
