import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { ADMIN_API_KEY, type TestApp } from '../support/test-app.js';

export const PASSWORD = 'correct horse battery staple';

/** A user who can log in on the web pages (and an API key). */
export async function createPasswordUser(api: TestApp, fields: Record<string, unknown> = {}) {
  const { user, apiKey } = await api.createUser({ password: PASSWORD, ...fields });
  return { user, apiKey, email: user.email as string };
}

/** A browser without a browser: cookies kept, redirects not followed, so each hop can be checked. */
export class WebClient {
  readonly cookies = new Map<string, string>();
  /** The path of the last page asked for: a link of only a query (`?date=...`) goes there, as in a browser. */
  private lastPath = '/';
  constructor(readonly baseUrl: string) {}

  async send(method: string, target: string, form?: Record<string, string | string[]>, headers: Record<string, string> = {}) {
    const path = target.startsWith('?') ? `${this.lastPath}${target}` : target;
    this.lastPath = new URL(path, this.baseUrl).pathname;
    const all: Record<string, string> = { ...headers };
    if (this.cookies.size) all.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    let body: string | undefined;
    if (form) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(form)) for (const item of Array.isArray(value) ? value : [value]) params.append(name, item);
      body = params.toString();
      all['content-type'] = 'application/x-www-form-urlencoded';
    }
    const response = await fetch(path.startsWith('http') ? path : this.baseUrl + path, { method, headers: all, body, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (value === '' || /Max-Age=0/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, location: response.headers.get('location'), headers: response.headers, html: await response.text() };
  }

  get(path: string) {
    return this.send('GET', path);
  }

  post(path: string, form: Record<string, string | string[]>) {
    return this.send('POST', path, form);
  }
}

export function csrfOf(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  assert.ok(match, `the page has a CSRF field: ${html.slice(0, 400)}`);
  return match[1]!;
}

export async function logIn(web: WebClient, email: string, password = PASSWORD) {
  const page = await web.get('/auth/login');
  assert.equal(page.status, 200);
  const done = await web.post('/auth/login', { csrf: csrfOf(page.html), email, password, next: '/settings/developer' });
  assert.equal(done.status, 303, done.html);
  return done;
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface ClientOptions {
  clientType?: 'confidential' | 'public';
  scopes?: string[];
  redirectUris?: string[];
  approve?: boolean;
}

/** A client registered through the API by `apiKey`'s user, approved by the system admin unless told not to. */
export async function registerClient(api: TestApp, apiKey: string, options: ClientOptions = {}) {
  const response = await api.request('POST', '/v2/auth/oauth2/clients', {
    key: apiKey,
    body: {
      name: 'Calendar Helper',
      redirectUris: options.redirectUris ?? ['https://app.example.com/callback'],
      scopes: options.scopes ?? ['PROFILE_READ', 'BOOKING_READ', 'SCHEDULE_READ'],
      clientType: options.clientType ?? 'confidential',
      logo: 'https://app.example.com/logo.png',
    },
  });
  assert.equal(response.status, 201, response.text);
  const client = response.body.data;
  if (options.approve !== false) {
    const approved = await api.request('PATCH', `/v2/admin/oauth2-clients/${client.id}`, { key: ADMIN_API_KEY, body: { status: 'approved' } });
    assert.equal(approved.status, 200, approved.text);
  }
  return { id: client.id as string, secret: client.secret as string | null, redirectUri: client.redirectUris[0] as string, scopes: client.scopes as string[] };
}

export function authorizePath(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value);
  return `/auth/oauth2/authorize?${query}`;
}

/** Walks the consent page (already logged in) and returns the redirect back to the client. */
export async function consent(web: WebClient, params: Record<string, string | undefined>, decision: 'allow' | 'deny' = 'allow') {
  const page = await web.get(authorizePath(params));
  assert.equal(page.status, 200, page.html);
  const form: Record<string, string> = { csrf: csrfOf(page.html), decision };
  for (const [name, value] of Object.entries(params)) if (value !== undefined) form[name] = value;
  const answer = await web.post('/auth/oauth2/authorize', form);
  assert.equal(answer.status, 303, answer.html);
  return new URL(answer.location!);
}

/** A code for `client` from `web`'s logged-in user. */
export async function authorizationCode(web: WebClient, client: { id: string; redirectUri: string }, extra: Record<string, string | undefined> = {}) {
  const back = await consent(web, { client_id: client.id, redirect_uri: client.redirectUri, scope: 'PROFILE_READ BOOKING_READ', state: 'st-1', ...extra });
  const code = back.searchParams.get('code');
  assert.ok(code, `a code in ${back}`);
  return code;
}

export function tokenRequest(api: TestApp, body: Record<string, string>, form = false) {
  if (form) {
    return api.request('POST', '/v2/auth/oauth2/token', { body: new URLSearchParams(body).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }
  return api.request('POST', '/v2/auth/oauth2/token', { body });
}

/** Tokens for a confidential client, through the whole flow. */
export async function confidentialTokens(api: TestApp, web: WebClient, client: { id: string; secret: string | null; redirectUri: string }, scope?: string) {
  const code = await authorizationCode(web, client, scope ? { scope } : {});
  const response = await tokenRequest(api, { grant_type: 'authorization_code', client_id: client.id, client_secret: client.secret!, code, redirect_uri: client.redirectUri });
  assert.equal(response.status, 200, response.text);
  return response.body as { access_token: string; refresh_token: string; scope: string; expires_in: number };
}
