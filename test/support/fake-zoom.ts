// A local Zoom for the conferencing tests: the subset svc uses, answering as Zoom documents it. OAuth 2.0
// for a user-managed app (GET /oauth/authorize redirecting with a code, POST /oauth/token with the client
// in HTTP Basic for the authorization_code and refresh_token grants, refresh tokens rotated: the used one
// stops working) and the REST API's GET /v2/users/me, with Zoom's error bodies ({code, message} from the
// API, {reason, error} from the token endpoint). One account, on 127.0.0.1, on a free port.
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
  close(): Promise<void>;
}

const random = () => randomBytes(18).toString('base64url');

export async function startFakeZoom(options: { clientId: string; clientSecret: string; redirectUri: string; email: string }): Promise<FakeZoom> {
  const codes = new Map<string, { used: boolean }>();
  const accessTokens = new Set<string>();
  const refreshTokens = new Map<string, boolean>();
  const authorizeRequests: URLSearchParams[] = [];
  const tokenGrants: string[] = [];
  let tokenFailure: { status: number; error: string } | null = null;

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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
