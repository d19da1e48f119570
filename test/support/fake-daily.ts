// A local Daily for the built-in video tests: the subset of its REST API svc uses, answering as Daily
// documents it (docs.daily.co, REST API): rooms (POST /rooms, POST and DELETE /rooms/:name), meeting
// sessions (GET /meetings?room=), meeting tokens (POST /meeting-tokens), recordings (GET /recordings?room_name=, GET /recordings/:id/access-link),
// transcripts (GET /transcript?roomId=, GET /transcript/:id/access-link), Bearer API-key authentication
// and {error, info} bodies; and Daily's side of its webhooks: events signed as Daily signs them
// (base64 HMAC-SHA256 over "timestamp.body" with the base64 secret). On 127.0.0.1, on a free port.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DailyRoom {
  id: string;
  name: string;
  privacy: string;
  exp: number | null;
  url: string;
}

export interface DailySessionFixture {
  id: string;
  start_time: number;
  duration: number;
  ongoing: boolean;
  max_participants: number;
  participants: { user_id: string | null; participant_id: string; user_name: string | null; join_time: number; duration: number }[];
}

export interface MeetingToken {
  room_name: string;
  user_id?: string;
  user_name?: string;
  is_owner?: boolean;
  exp?: number;
}

export interface FakeDaily {
  apiUrl: string;
  roomUrl: string;
  apiKey: string;
  /** The webhook's HMAC secret, base64 (as Daily gives it). */
  webhookSecret: string;
  rooms: Map<string, DailyRoom>;
  /** Meeting tokens made (POST /meeting-tokens), by token: who joins with each. */
  tokens: Map<string, MeetingToken>;
  /** Every API request, in order. */
  requests: { method: string; path: string }[];
  /** The next API call answers this status with Daily's error body. */
  failNext(status: number): void;
  addSession(room: string, session: Omit<DailySessionFixture, 'id'>): string;
  addRecording(room: string, recording: { start_ts: number; duration: number; max_participants: number; status?: string }): string;
  addTranscript(room: string, status?: string): string;
  /** Posts an event to `url` as Daily's webhook would, signed unless `sign` is given (a forgery). */
  sendEvent(url: string, type: string, payload: Record<string, unknown>, sign?: (timestamp: string, body: string) => string): Promise<Response>;
  sign(timestamp: string, body: string): string;
  close(): Promise<void>;
}

export async function startFakeDaily(): Promise<FakeDaily> {
  const apiKey = `daily-key-${randomBytes(12).toString('hex')}`;
  const webhookSecret = randomBytes(32).toString('base64');
  const rooms = new Map<string, DailyRoom>();
  const sessions = new Map<string, DailySessionFixture[]>();
  const recordings = new Map<string, { id: string; room_name: string; start_ts: number; status: string; max_participants: number; duration: number; share_token: string }>();
  const transcripts = new Map<string, { transcriptId: string; roomId: string; status: string }>();
  const requests: FakeDaily['requests'] = [];
  const tokens = new Map<string, MeetingToken>();
  let failure: number | null = null;
  const roomUrl = 'https://svc-test.daily.example';

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const roomView = (room: DailyRoom) => ({ id: room.id, name: room.name, api_created: true, privacy: room.privacy, url: room.url, created_at: new Date().toISOString(), config: room.exp === null ? {} : { exp: room.exp } });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const method = req.method ?? 'GET';
      requests.push({ method, path: `${url.pathname}${url.search}` });
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(res, 401, { error: 'authentication-error', info: 'Unauthorized' });
      if (failure !== null) {
        const status = failure;
        failure = null;
        return send(res, status, { error: 'server-error', info: 'Something went wrong' });
      }
      let body: Record<string, unknown> = {};
      try {
        body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
      } catch {
        return send(res, 400, { error: 'invalid-request-error', info: 'request body is not JSON' });
      }
      const path = url.pathname.replace(/^\/v1/, '');
      const properties = (body.properties ?? {}) as { exp?: number };
      if (path === '/rooms' && method === 'POST') {
        const name = String(body.name ?? randomBytes(8).toString('hex'));
        if (!/^[A-Za-z0-9_-]{1,128}$/.test(name)) return send(res, 400, { error: 'invalid-request-error', info: 'name must be letters, digits, - and _' });
        if (rooms.has(name)) return send(res, 400, { error: 'invalid-request-error', info: `a room named ${name} already exists` });
        const room: DailyRoom = { id: randomUUID(), name, privacy: String(body.privacy ?? 'public'), exp: properties.exp ?? null, url: `${roomUrl}/${name}` };
        rooms.set(name, room);
        return send(res, 200, roomView(room));
      }
      const roomPath = /^\/rooms\/([^/]+)$/.exec(path);
      if (roomPath) {
        const room = rooms.get(decodeURIComponent(roomPath[1]!));
        if (!room) return send(res, 404, { error: 'not-found', info: `room ${roomPath[1]} was not found` });
        if (method === 'POST') {
          if (properties.exp !== undefined) room.exp = properties.exp;
          return send(res, 200, roomView(room));
        }
        if (method === 'DELETE') {
          rooms.delete(room.name);
          return send(res, 200, { deleted: true, name: room.name });
        }
      }
      if (path === '/meeting-tokens' && method === 'POST') {
        const token = body.properties as MeetingToken | undefined;
        if (!token?.room_name || !rooms.has(token.room_name)) return send(res, 400, { error: 'invalid-request-error', info: 'room_name must name a room of the domain' });
        if (typeof token.exp === 'number' && token.exp * 1000 < Date.now()) return send(res, 400, { error: 'invalid-request-error', info: 'exp is in the past' });
        const value = `tok-${randomBytes(12).toString('hex')}`;
        tokens.set(value, token);
        return send(res, 200, { token: value });
      }
      if (path === '/meetings' && method === 'GET') {
        const data = sessions.get(url.searchParams.get('room') ?? '') ?? [];
        return send(res, 200, { total_count: data.length, data: data.map((session) => ({ ...session, room: url.searchParams.get('room') })) });
      }
      if (path === '/recordings' && method === 'GET') {
        const data = [...recordings.values()].filter((recording) => recording.room_name === url.searchParams.get('room_name'));
        return send(res, 200, { total_count: data.length, data });
      }
      const recordingLink = /^\/recordings\/([^/]+)\/access-link$/.exec(path);
      if (recordingLink && method === 'GET') {
        const recording = recordings.get(decodeURIComponent(recordingLink[1]!));
        if (!recording) return send(res, 404, { error: 'not-found', info: 'recording not found' });
        return send(res, 200, { download_link: `https://daily-recordings.example/${recording.id}.mp4?signature=${randomBytes(6).toString('hex')}`, expires: Math.floor(Date.now() / 1000) + 3600 });
      }
      if (path === '/transcript' && method === 'GET') {
        const data = [...transcripts.values()].filter((transcript) => transcript.roomId === url.searchParams.get('roomId'));
        return send(res, 200, { total_count: data.length, data });
      }
      const transcriptLink = /^\/transcript\/([^/]+)\/access-link$/.exec(path);
      if (transcriptLink && method === 'GET') {
        const transcript = transcripts.get(decodeURIComponent(transcriptLink[1]!));
        if (!transcript) return send(res, 404, { error: 'not-found', info: 'transcript not found' });
        return send(res, 200, { transcriptId: transcript.transcriptId, link: `https://daily-transcripts.example/${transcript.transcriptId}.vtt?signature=${randomBytes(6).toString('hex')}` });
      }
      return send(res, 404, { error: 'not-found', info: `${method} ${path} is not an endpoint` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const sign = (timestamp: string, body: string) => createHmac('sha256', Buffer.from(webhookSecret, 'base64')).update(`${timestamp}.${body}`).digest('base64');

  return {
    apiUrl: `http://127.0.0.1:${port}/v1`,
    roomUrl,
    apiKey,
    webhookSecret,
    rooms,
    tokens,
    requests,
    failNext(status) {
      failure = status;
    },
    addSession(room, session) {
      const id = randomUUID();
      sessions.set(room, [...(sessions.get(room) ?? []), { id, ...session }]);
      return id;
    },
    addRecording(room, recording) {
      const id = randomUUID();
      recordings.set(id, { id, room_name: room, start_ts: recording.start_ts, status: recording.status ?? 'finished', max_participants: recording.max_participants, duration: recording.duration, share_token: randomBytes(6).toString('hex') });
      return id;
    },
    addTranscript(room, status = 't_finished') {
      const transcriptId = randomUUID();
      transcripts.set(transcriptId, { transcriptId, roomId: rooms.get(room)?.id ?? 'no-such-room', status });
      return transcriptId;
    },
    async sendEvent(url, type, payload, signWith = sign) {
      const body = JSON.stringify({ version: '1.0.0', type, id: `evt-${randomUUID()}`, payload, event_ts: Date.now() / 1000 });
      const timestamp = String(Math.floor(Date.now() / 1000));
      return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-webhook-timestamp': timestamp, 'x-webhook-signature': signWith(timestamp, body) }, body });
    },
    sign,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
