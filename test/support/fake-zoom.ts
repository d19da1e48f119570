// A local Zoom for the conferencing tests: the subset svc uses, answering as Zoom documents it. OAuth 2.0
// for a user-managed app (GET /oauth/authorize redirecting with a code, POST /oauth/token with the client
// in HTTP Basic for the authorization_code and refresh_token grants, refresh tokens rotated: the used one
// stops working) and the REST API's GET /v2/users/me and meetings (POST /v2/users/me/meetings, PATCH and
// DELETE /v2/meetings/{meetingId}), with Zoom's error bodies ({code, message} from the API, {reason, error}
// from the token endpoint). One account, on 127.0.0.1, on a free port.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeZoom {
  endpoints: { authorize: string; token: string; api: string };
  clientId: string;
  clientSecret: string;
  /** Query parameters of every authorize request. */
  authorizeRequests: URLSearchParams[];
  /** grant_type of every token request that passed client authentication, in order. */
  tokenGrants: string[];
  /** The next token request answers this status with Zoom's error body. */
  failNextToken(status: number, error: string): void;
  /** The next meetings call answers this status (Zoom's {code, message} body). */
  failNextMeetingCall(status: number): void;
  /** Meetings on the account, by id. */
  meetings: Map<string, StoredMeeting>;
  /** Access tokens stop working before their expires_in (revocation): the next call gets 401 code 124. */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

export interface StoredMeeting {
  id: number;
  topic: string;
  startTime: string;
  duration: number;
  timezone: string;
  agenda: string | null;
  joinUrl: string;
  password: string;
}

const random = () => randomBytes(18).toString('base64url');

export async function startFakeZoom(options: { clientId: string; clientSecret: string; redirectUri: string; email: string }): Promise<FakeZoom> {
  const codes = new Map<string, { used: boolean }>();
  const accessTokens = new Set<string>();
  const refreshTokens = new Map<string, boolean>();
  const authorizeRequests: URLSearchParams[] = [];
  const tokenGrants: string[] = [];
  let tokenFailure: { status: number; error: string } | null = null;
  let meetingFailure: number | null = null;
  const meetings = new Map<string, StoredMeeting>();
  let nextMeetingId = 84_310_000_001;

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
    res.end(JSON.stringify(body));
  };
  const issueTokens = (res: http.ServerResponse) => {
    const accessToken = `eyJzdiI6Inpvb20ifQ.${random()}`;
    const refreshToken = `eyJyZWZyZXNoIjoxfQ.${random()}`;
    accessTokens.add(accessToken);
    refreshTokens.set(refreshToken, true);
    send(res, 200, { access_token: accessToken, token_type: 'bearer', refresh_token: refreshToken, expires_in: 3599, scope: 'meeting:write:meeting user:read:user' });
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (url.pathname === '/oauth/authorize' && req.method === 'GET') {
        authorizeRequests.push(url.searchParams);
        if (url.searchParams.get('client_id') !== options.clientId || url.searchParams.get('redirect_uri') !== options.redirectUri || url.searchParams.get('response_type') !== 'code') {
          res.writeHead(400, { 'content-type': 'text/html' });
          return res.end('<p>Invalid client_id or redirect_uri (4,700)</p>');
        }
        const code = random();
        codes.set(code, { used: false });
        const back = new URL(options.redirectUri);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        res.writeHead(302, { location: back.href });
        return res.end();
      }
      if (url.pathname === '/oauth/token' && req.method === 'POST') {
        const expected = `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`;
        if (req.headers.authorization !== expected) return send(res, 401, { reason: 'Invalid client_id or client_secret', error: 'invalid_client' });
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const grant = form.get('grant_type') ?? '';
        tokenGrants.push(grant);
        if (tokenFailure) {
          const failure = tokenFailure;
          tokenFailure = null;
          return send(res, failure.status, { reason: 'Failure', error: failure.error });
        }
        if (grant === 'authorization_code') {
          const code = codes.get(form.get('code') ?? '');
          if (!code || code.used) return send(res, 400, { reason: 'Invalid authorization code', error: 'invalid_grant' });
          if (form.get('redirect_uri') !== options.redirectUri) return send(res, 400, { reason: 'Redirect URI mismatch.', error: 'invalid_request' });
          code.used = true;
          return issueTokens(res);
        }
        if (grant === 'refresh_token') {
          const token = form.get('refresh_token') ?? '';
          if (refreshTokens.get(token) !== true) return send(res, 400, { reason: 'Invalid Token!', error: 'invalid_grant' });
          refreshTokens.set(token, false);
          return issueTokens(res);
        }
        return send(res, 400, { reason: 'Unsupported grant type', error: 'unsupported_grant_type' });
      }
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!bearer || !accessTokens.has(bearer)) return send(res, 401, { code: 124, message: 'Invalid access token.' });
      if (url.pathname === '/v2/users/me' && req.method === 'GET') {
        return send(res, 200, { id: 'KDcuGIm1QgePTO8WbOqwIQ', first_name: 'Ada', last_name: 'Host', email: options.email, type: 2, timezone: 'Europe/London' });
      }
      const isMeetings = url.pathname === '/v2/users/me/meetings' || url.pathname.startsWith('/v2/meetings/');
      if (isMeetings && meetingFailure !== null) {
        const status = meetingFailure;
        meetingFailure = null;
        return send(res, status, { code: status === 429 ? 429 : 300, message: status === 429 ? "You have reached the maximum per-second rate limit for this API." : 'Request failed.' });
      }
      let json: Record<string, unknown> = {};
      if (chunks.length > 0) {
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          return send(res, 400, { code: 300, message: 'Invalid request body.' });
        }
      }
      const invalid = checkMeetingFields(json, req.method === 'POST');
      if (url.pathname === '/v2/users/me/meetings' && req.method === 'POST') {
        if (invalid) return send(res, 400, { code: 300, message: invalid });
        const id = nextMeetingId++;
        const password = randomBytes(4).toString('hex');
        const meeting: StoredMeeting = {
          id,
          topic: json.topic as string,
          startTime: json.start_time as string,
          duration: json.duration as number,
          timezone: (json.timezone as string | undefined) ?? 'UTC',
          agenda: (json.agenda as string | undefined) ?? null,
          joinUrl: `https://us05web.zoom.example/j/${id}?pwd=${random()}`,
          password,
        };
        meetings.set(String(id), meeting);
        return send(res, 201, { id, uuid: random(), host_id: 'KDcuGIm1QgePTO8WbOqwIQ', topic: meeting.topic, type: 2, start_time: meeting.startTime, duration: meeting.duration, timezone: meeting.timezone, join_url: meeting.joinUrl, password });
      }
      const meetingId = /^\/v2\/meetings\/(\d+)$/.exec(url.pathname)?.[1];
      if (meetingId !== undefined) {
        const meeting = meetings.get(meetingId);
        if (!meeting) return send(res, 404, { code: 3001, message: 'Meeting does not exist: ' + meetingId + '.' });
        if (req.method === 'DELETE') {
          meetings.delete(meetingId);
          res.writeHead(204);
          return res.end();
        }
        if (req.method === 'PATCH') {
          if (invalid) return send(res, 400, { code: 300, message: invalid });
          if (typeof json.topic === 'string') meeting.topic = json.topic;
          if (typeof json.start_time === 'string') meeting.startTime = json.start_time;
          if (typeof json.duration === 'number') meeting.duration = json.duration;
          if (typeof json.timezone === 'string') meeting.timezone = json.timezone;
          res.writeHead(204);
          return res.end();
        }
      }
      return send(res, 404, { code: 404, message: 'Not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoints: { authorize: `${base}/oauth/authorize`, token: `${base}/oauth/token`, api: `${base}/v2` },
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    authorizeRequests,
    tokenGrants,
    failNextToken(status, error) {
      tokenFailure = { status, error };
    },
    failNextMeetingCall(status) {
      meetingFailure = status;
    },
    meetings,
    expireAccessTokens() {
      accessTokens.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Zoom's checks of a meeting's fields: `required` on create (topic, type 2, start_time in UTC, duration). */
function checkMeetingFields(json: Record<string, unknown>, required: boolean): string | null {
  if ((required || json.topic !== undefined) && (typeof json.topic !== 'string' || json.topic.length > 200)) return 'Invalid field: topic.';
  if (required && json.type !== 2) return 'Invalid field: type.';
  if ((required || json.start_time !== undefined) && (typeof json.start_time !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(json.start_time))) return 'Invalid field: start_time.';
  if ((required || json.duration !== undefined) && (!Number.isInteger(json.duration) || (json.duration as number) < 1)) return 'Invalid field: duration.';
  return null;
}
