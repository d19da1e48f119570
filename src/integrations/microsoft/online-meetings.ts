// Microsoft Teams meetings for bookings: Graph's onlineMeetings of the signed-in user (delegated
// permission OnlineMeetings.ReadWrite), created, moved and deleted on the user's OAuth session.
import type { OAuthSession } from '../calendar-types.js';
import { providerError, stringField } from '../provider-errors.js';
import { apiUrl, expectJson, graphCall, secretsOf, statusError } from './client.js';

export interface OnlineMeetingInput {
  subject: string;
  /** Epoch ms. */
  start: number;
  end: number;
}

export interface TeamsMeeting {
  id: string;
  joinUrl: string;
}

const fieldsOf = (input: OnlineMeetingInput) => ({ subject: input.subject.slice(0, 255), startDateTime: new Date(input.start).toISOString(), endDateTime: new Date(input.end).toISOString() });

export async function createOnlineMeeting(session: OAuthSession, input: OnlineMeetingInput): Promise<TeamsMeeting> {
  const what = 'creating a Teams meeting';
  const body = expectJson(session, await graphCall(session, { method: 'POST', url: apiUrl(session, '/me/onlineMeetings'), what, json: fieldsOf(input) }), what, [201, 200]);
  const id = stringField(body, 'id');
  const joinUrl = stringField(body, 'joinWebUrl') ?? stringField(body, 'joinUrl');
  if (!id || !joinUrl) throw providerError('invalid_data', `${what}: no id or joinWebUrl in the answer`, secretsOf(session));
  return { id, joinUrl };
}

/** Moves or renames a meeting; its join link stays. */
export async function updateOnlineMeeting(session: OAuthSession, meetingId: string, input: OnlineMeetingInput): Promise<void> {
  const what = 'updating a Teams meeting';
  const answer = await graphCall(session, { method: 'PATCH', url: apiUrl(session, `/me/onlineMeetings/${encodeURIComponent(meetingId)}`), what, json: fieldsOf(input) });
  if (answer.status !== 200 && answer.status !== 204) throw statusError(session, answer, what);
}

/** Deletes a meeting; one already gone counts as deleted. */
export async function deleteOnlineMeeting(session: OAuthSession, meetingId: string): Promise<void> {
  const what = 'deleting a Teams meeting';
  const answer = await graphCall(session, { method: 'DELETE', url: apiUrl(session, `/me/onlineMeetings/${encodeURIComponent(meetingId)}`), what });
  if (answer.status === 204 || answer.status === 200 || answer.status === 404) return;
  throw statusError(session, answer, what);
}
