// Daily's REST API (documented at docs.daily.co, base https://api.daily.co/v1) as the built-in video
// uses it: rooms made, given a new expiry and deleted; a room's meeting sessions, recordings and
// transcripts read, with their time-limited download links. Authenticated by the domain's API key.
import type { CalendarProviderError } from '../calendar-types.js';
import { jsonObject, providerError, retryAfterMs, stringField, transportError } from '../provider-errors.js';

export interface DailyAccount {
  apiKey: string;
  /** https://api.daily.co/v1, or a local server in tests. */
  apiUrl: string;
  fetch: typeof fetch;
}

interface DailyAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | null;
}

async function dailyCall(account: DailyAccount, method: 'GET' | 'POST' | 'DELETE', path: string, what: string, json?: unknown): Promise<DailyAnswer> {
  try {
    const response = await account.fetch(`${account.apiUrl.replace(/\/+$/, '')}${path}`, {
      method,
      headers: { authorization: `Bearer ${account.apiKey}`, accept: 'application/json', ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    return { status: response.status, headers: response.headers, body: jsonObject(await response.text()) };
  } catch (error) {
    throw transportError(error, what, [account.apiKey]);
  }
}

/** Daily's failures by status ({error, info} bodies). */
function statusError(account: DailyAccount, answer: DailyAnswer, what: string): CalendarProviderError {
  const { status } = answer;
  const info = stringField(answer.body, 'info') ?? stringField(answer.body, 'error');
  const line = `${what}: HTTP ${status}${info ? `: ${info.slice(0, 200)}` : ''}`;
  const secrets = [account.apiKey];
  if (status === 401 || status === 403) return providerError('unauthorized', line, secrets);
  if (status === 404) return providerError('not_found', line, secrets);
  if (status === 429 || status === 503) return providerError('rate_limited', line, secrets, retryAfterMs(answer.headers, Date.now()));
  if (status >= 500) return providerError('unreachable', line, secrets);
  return providerError('invalid_data', line, secrets);
}

const expect = (account: DailyAccount, answer: DailyAnswer, what: string): Record<string, unknown> => {
  if (answer.status !== 200 || !answer.body) throw statusError(account, answer, what);
  return answer.body;
};

const dataOf = (body: Record<string, unknown>): Record<string, unknown>[] =>
  Array.isArray(body.data) ? body.data.filter((item): item is Record<string, unknown> => item !== null && typeof item === 'object') : [];

const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * A public room of that name (whoever has the link may join, as with the built-in video's Jitsi rooms),
 * closed to joining after `expiresAt` (epoch ms). A room already made under that name (a retried
 * job) counts as made.
 */
export async function createRoom(account: DailyAccount, name: string, expiresAt: number): Promise<{ id: string }> {
  const what = `creating the Daily room ${name}`;
  const answer = await dailyCall(account, 'POST', '/rooms', what, { name, privacy: 'public', properties: { exp: seconds(expiresAt), enable_prejoin_ui: true } });
  const info = stringField(answer.body, 'info') ?? '';
  if (answer.status === 400 && /already exists/i.test(info)) return setRoomExpiry(account, name, expiresAt);
  return roomOf(account, expect(account, answer, what), what);
}

function roomOf(account: DailyAccount, body: Record<string, unknown>, what: string): { id: string } {
  const id = stringField(body, 'id');
  if (!id) throw providerError('invalid_data', `${what}: no id in the answer`, [account.apiKey]);
  return { id };
}

/** A room moved with its booking: joinable until the new expiry. */
export async function setRoomExpiry(account: DailyAccount, name: string, expiresAt: number): Promise<{ id: string }> {
  const what = `updating the Daily room ${name}`;
  return roomOf(account, expect(account, await dailyCall(account, 'POST', `/rooms/${encodeURIComponent(name)}`, what, { properties: { exp: seconds(expiresAt) } }), what), what);
}

/** Deletes a room; one already gone counts as deleted. */
export async function deleteRoom(account: DailyAccount, name: string): Promise<void> {
  const what = `deleting the Daily room ${name}`;
  const answer = await dailyCall(account, 'DELETE', `/rooms/${encodeURIComponent(name)}`, what);
  if (answer.status === 200 || answer.status === 404) return;
  throw statusError(account, answer, what);
}

export interface DailySession {
  id: string;
  room: string;
  startTime: number;
  duration: number;
  ongoing: boolean;
  maxParticipants: number;
  participants: { userId: string | null; userName: string | null; joinTime: number; duration: number }[];
}

const num = (record: Record<string, unknown>, name: string) => (typeof record[name] === 'number' ? (record[name] as number) : 0);

/** The room's meeting sessions (GET /meetings?room=), newest first as Daily lists them. */
export async function listSessions(account: DailyAccount, room: string): Promise<DailySession[]> {
  const what = `reading the sessions of the Daily room ${room}`;
  const body = expect(account, await dailyCall(account, 'GET', `/meetings?room=${encodeURIComponent(room)}`, what), what);
  return dataOf(body).map((session) => ({
    id: stringField(session, 'id') ?? '',
    room: stringField(session, 'room') ?? room,
    startTime: num(session, 'start_time'),
    duration: num(session, 'duration'),
    ongoing: session.ongoing === true,
    maxParticipants: num(session, 'max_participants'),
    participants: (Array.isArray(session.participants) ? (session.participants as Record<string, unknown>[]) : []).map((participant) => ({
      userId: stringField(participant, 'user_id'),
      userName: stringField(participant, 'user_name'),
      joinTime: num(participant, 'join_time'),
      duration: num(participant, 'duration'),
    })),
  }));
}

export interface DailyRecording {
  id: string;
  roomName: string;
  startTs: number;
  status: string;
  maxParticipants: number | null;
  duration: number;
  shareToken: string | null;
}

/** The room's recordings (GET /recordings?room_name=). */
export async function listRecordings(account: DailyAccount, room: string): Promise<DailyRecording[]> {
  const what = `reading the recordings of the Daily room ${room}`;
  const body = expect(account, await dailyCall(account, 'GET', `/recordings?room_name=${encodeURIComponent(room)}`, what), what);
  return dataOf(body).map((recording) => ({
    id: stringField(recording, 'id') ?? '',
    roomName: stringField(recording, 'room_name') ?? room,
    startTs: num(recording, 'start_ts'),
    status: stringField(recording, 'status') ?? 'unknown',
    maxParticipants: typeof recording.max_participants === 'number' ? recording.max_participants : null,
    duration: num(recording, 'duration'),
    shareToken: stringField(recording, 'share_token'),
  }));
}

/** A recording's download link (valid for a limited time, Daily's access-link). */
export async function recordingLink(account: DailyAccount, recordingId: string): Promise<string> {
  const what = `reading the download link of the Daily recording ${recordingId}`;
  const body = expect(account, await dailyCall(account, 'GET', `/recordings/${encodeURIComponent(recordingId)}/access-link`, what), what);
  const link = stringField(body, 'download_link');
  if (!link) throw providerError('invalid_data', `${what}: no download_link in the answer`, [account.apiKey]);
  return link;
}

/** The room's finished transcripts' ids (GET /transcript?roomId=, by the room's id). */
export async function listTranscripts(account: DailyAccount, roomId: string): Promise<string[]> {
  const what = `reading the transcripts of the Daily room ${roomId}`;
  const body = expect(account, await dailyCall(account, 'GET', `/transcript?roomId=${encodeURIComponent(roomId)}`, what), what);
  return dataOf(body)
    .filter((transcript) => transcript.status === 't_finished')
    .map((transcript) => stringField(transcript, 'transcriptId') ?? '')
    .filter((id) => id !== '');
}

/** A transcript's download link (a WebVTT file; valid for an hour). */
export async function transcriptLink(account: DailyAccount, transcriptId: string): Promise<string> {
  const what = `reading the download link of the Daily transcript ${transcriptId}`;
  const body = expect(account, await dailyCall(account, 'GET', `/transcript/${encodeURIComponent(transcriptId)}/access-link`, what), what);
  const link = stringField(body, 'link');
  if (!link) throw providerError('invalid_data', `${what}: no link in the answer`, [account.apiKey]);
  return link;
}

export interface MeetingTokenRequest {
  room: string;
  /** Shown in the room's sessions as the participant's `user_id`: how a host's presence is told from a guest's. */
  userId: string;
  userName: string;
  isOwner: boolean;
  /** Epoch ms after which the token no longer lets anyone in. */
  expiresAt: number;
}

/** A meeting token (POST /meeting-tokens) that joins the room as this user: the link is the room's with `?t=`. */
export async function createMeetingToken(account: DailyAccount, request: MeetingTokenRequest): Promise<string> {
  const what = `making a meeting token for the Daily room ${request.room}`;
  const properties = { room_name: request.room, user_id: request.userId, user_name: request.userName, is_owner: request.isOwner, exp: seconds(request.expiresAt) };
  const token = stringField(expect(account, await dailyCall(account, 'POST', '/meeting-tokens', what, { properties }), what), 'token');
  if (!token) throw providerError('invalid_data', `${what}: no token in the answer`, [account.apiKey]);
  return token;
}
