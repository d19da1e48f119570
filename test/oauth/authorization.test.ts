// The authorization endpoint and token endpoint over real HTTP (spec 5.2, 5.3, 7.1): login, consent,
// codes and tokens for confidential and public (PKCE) clients, every error case of 7.1, and the
// security cases (code replay, redirect-URI variants, PKCE, wrong client, expiry, refresh reuse and
// escalation, CSRF, open redirects).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../support/test-app.js';
import {
  authorizationCode,
  authorizePath,
  confidentialTokens,
  consent,
  createPasswordUser,
  csrfOf,
  logIn,
  pkce,
  registerClient,
  tokenRequest,
  WebClient,
} from './helpers.js';

describe('OAuth 2.0 authorization code flow', () => {
  let api: TestApp;
  let now = Date.now();
  let developer: Awaited<ReturnType<typeof createPasswordUser>>;
  let user: Awaited<ReturnType<typeof createPasswordUser>>;
  let web: WebClient;
  let client: Awaited<ReturnType<typeof registerClient>>;
  let publicClient: Awaited<ReturnType<typeof registerClient>>;

  before(async () => {
    api = await createTestApp({}, undefined, { clock: () => now });
    developer = await createPasswordUser(api);
    user = await createPasswordUser(api);
    client = await registerClient(api, developer.apiKey);
    publicClient = await registerClient(api, developer.apiKey, { clientType: 'public', redirectUris: ['http://localhost:8765/cb'] });
    web = new WebClient(api.baseUrl);
    await logIn(web, user.email);
  });
  after(() => api.close());

  test('confidential client: consent -> code -> tokens (JSON body) -> API call as the user, limited to the scopes', async () => {
    const code = await authorizationCode(web, client);
    const response = await tokenRequest(api, { grant_type: 'authorization_code', client_id: client.id, client_secret: client.secret!, code, redirect_uri: client.redirectUri });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.equal(response.headers.get('pragma'), 'no-cache');
    assert.equal(response.body.token_type, 'bearer');
    assert.equal(response.body.expires_in, 1800);
    assert.equal(response.body.scope, 'PROFILE_READ BOOKING_READ');
    assert.equal(response.body.status, undefined, 'bare RFC 6749 body, no envelope');
    const me = await api.request('GET', '/v2/me', { key: response.body.access_token });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.data.email, user.email);
    const schedules = await api.request('GET', '/v2/schedules', { key: response.body.access_token, version: '2024-06-11' });
    assert.equal(schedules.status, 403);
    assert.match(schedules.body.error.message, /SCHEDULE_READ/);
    const patch = await api.request('PATCH', '/v2/me', { key: response.body.access_token, body: { name: 'x' } });
    assert.equal(patch.status, 403);
    assert.match(patch.body.error.message, /PROFILE_WRITE/);
  });

  test('the access token expires after 1800 seconds (498 by the app clock)', async () => {
    const tokens = await confidentialTokens(api, web, client);
    now += 1799_000;
    assert.equal((await api.request('GET', '/v2/me', { key: tokens.access_token })).status, 200);
    now += 2_000;
    const expired = await api.request('GET', '/v2/me', { key: tokens.access_token });
    now = Date.now();
    assert.equal(expired.status, 498);
  });

  test('public client with PKCE S256 (form body); a wrong code_verifier is invalid_grant, a missing one invalid_request', async () => {
    const { verifier, challenge } = pkce();
    const code = await authorizationCode(web, publicClient, { code_challenge: challenge, code_challenge_method: 'S256' });
    const wrong = await tokenRequest(api, { grant_type: 'authorization_code', client_id: publicClient.id, code, redirect_uri: publicClient.redirectUri, code_verifier: pkce().verifier }, true);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'invalid_grant');
    // The reference's token pipe validates a request without client_secret as OAuth2ExchangePublicInput, whose code_verifier is required.
    const missing = await tokenRequest(api, { grant_type: 'authorization_code', client_id: publicClient.id, code, redirect_uri: publicClient.redirectUri }, true);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error, 'invalid_request');
    const good = await tokenRequest(api, { grant_type: 'authorization_code', client_id: publicClient.id, code, redirect_uri: publicClient.redirectUri, code_verifier: verifier }, true);
    assert.equal(good.status, 200, good.text);
    assert.equal((await api.request('GET', '/v2/me', { key: good.body.access_token })).status, 200);
    const secretSent = await tokenRequest(api, { grant_type: 'authorization_code', client_id: publicClient.id, client_secret: 'guess', code: 'x', redirect_uri: publicClient.redirectUri });
    assert.equal(secretSent.status, 401);
    assert.equal(secretSent.body.error, 'invalid_client');
  });

  test('spec 7.1 before the client is validated: error pages, never a redirect', async () => {
    const pending = await registerClient(api, developer.apiKey, { approve: false });
    const cases: [Record<string, string | undefined>, RegExp][] = [
      [{ client_id: 'oa2_nope', redirect_uri: client.redirectUri, scope: 'PROFILE_READ' }, /no OAuth client/],
      [{ redirect_uri: client.redirectUri, scope: 'PROFILE_READ' }, /client_id parameter is required/],
      [{ client_id: pending.id, redirect_uri: pending.redirectUri, scope: 'PROFILE_READ' }, /not been approved/],
      [{ client_id: client.id, redirect_uri: 'https://evil.example.com/callback', scope: 'PROFILE_READ' }, /redirect_uri does not match/],
      [{ client_id: client.id, redirect_uri: `${client.redirectUri}/more`, scope: 'PROFILE_READ' }, /redirect_uri does not match/],
      [{ client_id: client.id, redirect_uri: 'https://app.example.com/callbac', scope: 'PROFILE_READ' }, /redirect_uri does not match/],
      [{ client_id: client.id, redirect_uri: 'https://APP.example.com/callback', scope: 'PROFILE_READ' }, /redirect_uri does not match/],
      [{ client_id: client.id, redirect_uri: 'https://app.example.com/Callback', scope: 'PROFILE_READ' }, /redirect_uri does not match/],
      [{ client_id: client.id, redirect_uri: `${client.redirectUri}?next=https://evil.example.com`, scope: 'PROFILE_READ' }, /redirect_uri does not match/],
      [{ client_id: client.id, scope: 'PROFILE_READ' }, /redirect_uri does not match/],
      [{ client_id: client.id, redirect_uri: client.redirectUri }, /scope parameter is required for this client/],
    ];
    for (const [params, message] of cases) {
      const page = await web.get(authorizePath({ ...params, state: 's' }));
      assert.equal(page.status, 400, JSON.stringify(params));
      assert.equal(page.location, null, `no redirect for ${JSON.stringify(params)}`);
      assert.match(page.html, message);
      assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    }
  });

  test('spec 7.1 after the client is validated: redirects with error, error_description and state', async () => {
    const base = { client_id: client.id, redirect_uri: client.redirectUri, state: 'xyz 1' };
    const cases: [Record<string, string>, string][] = [
      [{ scope: 'PROFILE_READ NOT_A_SCOPE' }, 'invalid_scope'],
      [{ scope: 'PROFILE_READ,WEBHOOK_WRITE' }, 'invalid_request'],
      [{ scope: 'PROFILE_READ', code_challenge: pkce().challenge, code_challenge_method: 'plain' }, 'invalid_request'],
      [{ scope: 'PROFILE_READ', code_challenge: 'too-short' }, 'invalid_request'],
      [{ scope: 'PROFILE_READ', response_type: 'token' }, 'unsupported_response_type'],
    ];
    for (const [extra, error] of cases) {
      const answer = await web.get(authorizePath({ ...base, ...extra }));
      assert.equal(answer.status, 303, JSON.stringify(extra));
      const back = new URL(answer.location!);
      assert.equal(`${back.origin}${back.pathname}`, client.redirectUri);
      assert.equal(back.searchParams.get('error'), error, JSON.stringify(extra));
      assert.ok(back.searchParams.get('error_description'));
      assert.equal(back.searchParams.get('state'), 'xyz 1');
    }
    const noChallenge = await web.get(authorizePath({ client_id: publicClient.id, redirect_uri: publicClient.redirectUri, scope: 'PROFILE_READ', state: 'p' }));
    const back = new URL(noChallenge.location!);
    assert.equal(back.searchParams.get('error'), 'invalid_request');
    assert.match(back.searchParams.get('error_description')!, /code_challenge/);
    const denied = await consent(web, { ...base, scope: 'PROFILE_READ' }, 'deny');
    assert.equal(denied.searchParams.get('error'), 'access_denied');
    assert.equal(denied.searchParams.get('state'), 'xyz 1');
    assert.equal(denied.searchParams.get('code'), null);
  });

  test('RFC 9207: every redirect back to the client carries iss, the issuer the metadata announces', async () => {
    const metadata = await api.request('GET', '/.well-known/oauth-authorization-server');
    assert.equal(metadata.status, 200);
    assert.equal(metadata.body.authorization_response_iss_parameter_supported, true);
    const issuer: string = metadata.body.issuer;
    assert.ok(issuer);
    const base = { client_id: client.id, redirect_uri: client.redirectUri, state: 'iss-state' };

    const allowed = await consent(web, { ...base, scope: 'PROFILE_READ' });
    assert.ok(allowed.searchParams.get('code'));
    assert.equal(allowed.searchParams.get('iss'), issuer, 'code');

    const denied = await consent(web, { ...base, scope: 'PROFILE_READ' }, 'deny');
    assert.equal(denied.searchParams.get('error'), 'access_denied');
    assert.equal(denied.searchParams.get('iss'), issuer, 'access_denied');

    const errors: Record<string, string>[] = [
      { ...base, scope: 'NOT_A_SCOPE' },
      { ...base, scope: 'WEBHOOK_WRITE' },
      { ...base, scope: 'PROFILE_READ', response_type: 'token' },
      { ...base, scope: 'PROFILE_READ', code_challenge_method: 'plain', code_challenge: pkce().challenge },
      { client_id: publicClient.id, redirect_uri: publicClient.redirectUri, scope: 'PROFILE_READ', state: 'iss-state' },
    ];
    for (const params of errors) {
      const answer = await web.get(authorizePath(params));
      assert.equal(answer.status, 303, JSON.stringify(params));
      const back = new URL(answer.location!);
      assert.ok(back.searchParams.get('error'), JSON.stringify(params));
      assert.equal(back.searchParams.get('state'), 'iss-state');
      assert.equal(back.searchParams.get('iss'), issuer, JSON.stringify(params));
    }
    // The consent form checks the request again: an error found then goes back with iss too.
    const page = await web.get(authorizePath({ ...base, scope: 'PROFILE_READ' }));
    const rechecked = await web.post('/auth/oauth2/authorize', { ...base, scope: 'NOT_A_SCOPE', csrf: csrfOf(page.html), decision: 'allow' });
    assert.equal(rechecked.status, 303);
    const back = new URL(rechecked.location!);
    assert.equal(back.searchParams.get('error'), 'invalid_scope');
    assert.equal(back.searchParams.get('iss'), issuer);
  });

  test('a visitor is sent to log in first and comes back to the consent page; the consent names the client and scopes in words', async () => {
    const visitor = new WebClient(api.baseUrl);
    const path = authorizePath({ client_id: client.id, redirect_uri: client.redirectUri, state: 's', scope: 'PROFILE_READ BOOKING_READ' });
    const first = await visitor.get(path);
    assert.equal(first.status, 303);
    assert.equal(first.location, `/auth/login?next=${encodeURIComponent(path)}`);
    const loginPage = await visitor.get(first.location!);
    const wrong = await visitor.post('/auth/login', { csrf: csrfOf(loginPage.html), email: user.email, password: 'wrong password', next: path });
    assert.equal(wrong.status, 401);
    assert.match(wrong.html, /email or password is not right/);
    const loggedIn = await visitor.post('/auth/login', { csrf: csrfOf(wrong.html), email: user.email, password: 'correct horse battery staple', next: path });
    assert.equal(loggedIn.status, 303);
    assert.equal(loggedIn.location, path);
    const page = await visitor.get(path);
    assert.equal(page.status, 200);
    assert.match(page.html, /Calendar Helper/);
    assert.match(page.html, /See your profile/);
    assert.match(page.html, /See your bookings/);
    assert.match(page.html, /src="https:\/\/app\.example\.com\/logo\.png"/);
    const csp = page.headers.get('content-security-policy')!;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /form-action 'self' https:\/\/app\.example\.com/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    const cookie = loggedIn.headers.getSetCookie()[0]!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
  });

  test('login sends nowhere but this site (open redirect through next)', async () => {
    const visitor = new WebClient(api.baseUrl);
    for (const next of ['//evil.example.com/x', 'https://evil.example.com/', '/\\evil.example.com']) {
      visitor.cookies.clear();
      const page = await visitor.get(`/auth/login?next=${encodeURIComponent(next)}`);
      const done = await visitor.post('/auth/login', { csrf: csrfOf(page.html), email: user.email, password: 'correct horse battery staple', next });
      assert.equal(done.location, '/settings/developer', next);
    }
  });

  test('CSRF: the consent form without the session token (or from another session) is refused, and no code is issued', async () => {
    const params = { client_id: client.id, redirect_uri: client.redirectUri, scope: 'PROFILE_READ', state: 's', decision: 'allow' };
    const missing = await web.post('/auth/oauth2/authorize', params);
    assert.equal(missing.status, 403);
    assert.equal(missing.location, null);
    const other = new WebClient(api.baseUrl);
    await logIn(other, developer.email);
    const otherPage = await other.get(authorizePath(params));
    const forged = await web.post('/auth/oauth2/authorize', { ...params, csrf: csrfOf(otherPage.html) });
    assert.equal(forged.status, 403);
    assert.equal(forged.location, null);
    const loginWithoutToken = await new WebClient(api.baseUrl).post('/auth/login', { email: user.email, password: 'correct horse battery staple' });
    assert.equal(loginWithoutToken.status, 403);
  });

  test('code replay is refused and revokes the tokens issued from the code', async () => {
    const code = await authorizationCode(web, client);
    const body = { grant_type: 'authorization_code', client_id: client.id, client_secret: client.secret!, code, redirect_uri: client.redirectUri };
    const first = await tokenRequest(api, body);
    assert.equal(first.status, 200);
    assert.equal((await api.request('GET', '/v2/me', { key: first.body.access_token })).status, 200);
    const replay = await tokenRequest(api, body);
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error, 'invalid_grant');
    assert.equal((await api.request('GET', '/v2/me', { key: first.body.access_token })).status, 401);
    const refresh = await tokenRequest(api, { grant_type: 'refresh_token', client_id: client.id, client_secret: client.secret!, refresh_token: first.body.refresh_token });
    assert.equal(refresh.body.error, 'invalid_grant');
  });

  test('the code is bound to its redirect URI and client; a wrong secret is invalid_client (401); an expired code is invalid_grant', async () => {
    const other = await registerClient(api, developer.apiKey);
    const code = await authorizationCode(web, client);
    const base = { grant_type: 'authorization_code', client_id: client.id, client_secret: client.secret!, code, redirect_uri: client.redirectUri };
    for (const redirect_uri of [`${client.redirectUri}/`, 'https://APP.example.com/callback', 'https://app.example.com/callback?x=1']) {
      const mismatch = await tokenRequest(api, { ...base, redirect_uri });
      assert.equal(mismatch.body.error, 'invalid_grant', redirect_uri);
    }
    const wrongClient = await tokenRequest(api, { ...base, client_id: other.id, client_secret: other.secret! });
    assert.equal(wrongClient.body.error, 'invalid_grant');
    const wrongSecret = await tokenRequest(api, { ...base, client_secret: `${client.secret}x` });
    assert.equal(wrongSecret.status, 401);
    assert.equal(wrongSecret.body.error, 'invalid_client');
    const basic = await api.request('POST', '/v2/auth/oauth2/token', {
      headers: { authorization: `Basic ${Buffer.from(`${client.id}:wrong`).toString('base64')}` },
      body: { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri },
    });
    assert.equal(basic.status, 401);
    assert.match(basic.headers.get('www-authenticate') ?? '', /Basic/);
    // Still usable after those refusals (none of them consumed it), until it expires.
    now += 10 * 60_000 + 1;
    const expired = await tokenRequest(api, base);
    now = Date.now();
    assert.equal(expired.body.error, 'invalid_grant');
    assert.match(expired.body.error_description, /expired/);
    const viaBasic = await api.request('POST', '/v2/auth/oauth2/token', {
      headers: { authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
      body: { grant_type: 'authorization_code', code: await authorizationCode(web, client), redirect_uri: client.redirectUri },
    });
    assert.equal(viaBasic.status, 200, viaBasic.text);
  });

  test('a client_challenge sent by a confidential client is enforced too; a verifier without a challenge is refused', async () => {
    const { verifier, challenge } = pkce();
    const code = await authorizationCode(web, client, { code_challenge: challenge, code_challenge_method: 'S256' });
    const base = { grant_type: 'authorization_code', client_id: client.id, client_secret: client.secret!, code, redirect_uri: client.redirectUri };
    // OAuthService.verifyPKCE: no verifier for a challenged code -> { error: "invalid_request", reason: "pkce_missing_parameters_or_invalid_method" }
    assert.equal((await tokenRequest(api, base)).body.error, 'invalid_request');
    assert.equal((await tokenRequest(api, { ...base, code_verifier: verifier })).status, 200);
    const plainCode = await authorizationCode(web, client);
    assert.equal((await tokenRequest(api, { ...base, code: plainCode, code_verifier: verifier })).body.error, 'invalid_grant');
  });

  test('refresh: rotation, narrowing allowed, escalation refused (invalid_scope), reuse revokes the whole family', async () => {
    const tokens = await confidentialTokens(api, web, client);
    const refresh = (refresh_token: string, scope?: string) =>
      tokenRequest(api, { grant_type: 'refresh_token', client_id: client.id, client_secret: client.secret!, refresh_token, ...(scope ? { scope } : {}) });
    const escalate = await refresh(tokens.refresh_token, 'PROFILE_READ SCHEDULE_READ');
    assert.equal(escalate.status, 400);
    assert.equal(escalate.body.error, 'invalid_scope');
    const narrowed = await refresh(tokens.refresh_token, 'PROFILE_READ');
    assert.equal(narrowed.status, 200, narrowed.text);
    assert.equal(narrowed.body.scope, 'PROFILE_READ');
    assert.equal((await api.request('GET', '/v2/bookings', { key: narrowed.body.access_token, version: '2024-08-13' })).status, 403);
    // The narrowed pair's refresh token still carries the grant's scopes.
    const widenedBack = await refresh(narrowed.body.refresh_token);
    assert.equal(widenedBack.body.scope, 'PROFILE_READ BOOKING_READ');
    const reuse = await refresh(tokens.refresh_token);
    assert.equal(reuse.status, 400);
    assert.equal(reuse.body.error, 'invalid_grant');
    for (const access of [tokens.access_token, narrowed.body.access_token, widenedBack.body.access_token]) {
      assert.equal((await api.request('GET', '/v2/me', { key: access })).status, 401);
    }
    assert.equal((await refresh(widenedBack.body.refresh_token)).body.error, 'invalid_grant');
    const otherClient = await registerClient(api, developer.apiKey);
    const fresh = await confidentialTokens(api, web, client);
    const stolen = await tokenRequest(api, { grant_type: 'refresh_token', client_id: otherClient.id, client_secret: otherClient.secret!, refresh_token: fresh.refresh_token });
    assert.equal(stolen.body.error, 'invalid_grant');
  });

  test('token endpoint errors: invalid_request (also for other grant types, as the reference), invalid_client, unreadable bodies', async () => {
    assert.equal((await tokenRequest(api, {})).body.error, 'invalid_request');
    // token.input.pipe.ts: this.throwOAuthError("grant_type must be 'authorization_code' or 'refresh_token'");
    assert.equal((await tokenRequest(api, { grant_type: 'password', client_id: client.id })).body.error, 'invalid_request');
    assert.equal((await tokenRequest(api, { grant_type: 'client_credentials', client_id: client.id })).body.error, 'invalid_request');
    const unknown = await tokenRequest(api, { grant_type: 'authorization_code', client_id: 'oa2_nope', code: 'x', redirect_uri: client.redirectUri, code_verifier: pkce().verifier });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error, 'invalid_client');
    assert.equal((await tokenRequest(api, { grant_type: 'authorization_code', client_id: client.id, client_secret: client.secret!, redirect_uri: client.redirectUri })).body.error, 'invalid_request');
    const broken = await api.request('POST', '/v2/auth/oauth2/token', { body: '{not json', headers: { 'content-type': 'application/json' } });
    assert.equal(broken.status, 400);
    assert.equal(broken.body.error, 'invalid_request');
    const unknownCode = await tokenRequest(api, { grant_type: 'authorization_code', client_id: client.id, client_secret: client.secret!, code: 'made-up', redirect_uri: client.redirectUri });
    assert.equal(unknownCode.body.error, 'invalid_grant');
  });

  test('a rejected client gets no more codes or tokens, and its tokens stop working', async () => {
    const doomed = await registerClient(api, developer.apiKey);
    const tokens = await confidentialTokens(api, web, doomed);
    const rejected = await api.request('PATCH', `/v2/admin/oauth2-clients/${doomed.id}`, { key: 'svc_00000000000000000000000000000a11', body: { status: 'rejected' } });
    assert.equal(rejected.status, 200);
    assert.equal((await api.request('GET', '/v2/me', { key: tokens.access_token })).status, 401);
    const page = await web.get(authorizePath({ client_id: doomed.id, redirect_uri: doomed.redirectUri, scope: 'PROFILE_READ' }));
    assert.equal(page.status, 400);
    assert.match(page.html, /not been approved/);
  });
});
