// The token endpoint as a client of the reference sees it: its current path with the client id in the
// path (POST /v2/auth/oauth2/clients/{clientId}/token) beside /v2/auth/oauth2/token, its answers and
// headers, and its errors, status and body exactly. Reference: calcom/cal.com
// apps/api/v2/src/modules/auth/oauth2 (controllers/oauth2.controller.ts and its e2e spec at 4a30760e,
// inputs/token.input.pipe.ts, packages/features/oauth/services/OAuthService.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN_API_KEY, createTestApp, type TestApp } from '../support/test-app.js';
import { authorizationCode, createPasswordUser, logIn, pkce, registerClient, WebClient } from './helpers.js';

type Params = Record<string, string>;

describe('OAuth 2.0 token endpoint, wire-compatible with the reference', () => {
  let api: TestApp;
  let developer: Awaited<ReturnType<typeof createPasswordUser>>;
  let web: WebClient;
  let client: Awaited<ReturnType<typeof registerClient>>;
  let publicClient: Awaited<ReturnType<typeof registerClient>>;

  before(async () => {
    api = await createTestApp();
    developer = await createPasswordUser(api);
    const user = await createPasswordUser(api);
    client = await registerClient(api, developer.apiKey);
    publicClient = await registerClient(api, developer.apiKey, { clientType: 'public', redirectUris: ['http://localhost:8765/cb'] });
    web = new WebClient(api.baseUrl);
    await logIn(web, user.email);
  });
  after(() => api.close());

  const pathOf = (clientId: string) => `/v2/auth/oauth2/clients/${encodeURIComponent(clientId)}/token`;
  const post = (path: string, body: Params, form = false) =>
    form
      ? api.request('POST', path, { body: new URLSearchParams(body).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
      : api.request('POST', path, { body });
  /** The same request on both paths: the client's id in the path (and not in the body), or in the body. */
  const onBothPaths = async (clientId: string, body: Params) => ({
    inPath: await post(pathOf(clientId), body),
    inBody: await post('/v2/auth/oauth2/token', { client_id: clientId, ...body }),
  });
  const codeGrant = async (extra: Record<string, string> = {}) => ({
    grant_type: 'authorization_code',
    code: await authorizationCode(web, client, extra),
    client_secret: client.secret!,
    redirect_uri: client.redirectUri,
  });

  test('the client id in the path: code and refresh exchanges, JSON and form, with the reference\'s bare answer and headers', async () => {
    // e2e spec: .post(`/api/v2/auth/oauth2/clients/${testClientId}/token`).send({ grant_type: "authorization_code", code: authorizationCode, client_secret: testClientSecret, redirect_uri: testRedirectUri }).expect(200)
    for (const form of [false, true]) {
      const response = await post(pathOf(client.id), await codeGrant(), form);
      assert.equal(response.status, 200, response.text);
      // e2e spec: expect(response.headers["cache-control"]).toBe("no-store"); expect(response.headers["pragma"]).toBe("no-cache");
      assert.equal(response.headers.get('cache-control'), 'no-store');
      assert.equal(response.headers.get('pragma'), 'no-cache');
      // OAuth2TokensDto: access_token, token_type, refresh_token, expires_in (not enveloped); svc adds scope (RFC 6749 5.1).
      assert.deepEqual(Object.keys(response.body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
      assert.equal(response.body.token_type, 'bearer');
      assert.equal(response.body.expires_in, 1800);
      assert.equal(response.body.scope, 'PROFILE_READ BOOKING_READ');
      assert.equal((await api.request('GET', '/v2/me', { key: response.body.access_token })).status, 200);
      // e2e spec: .send({ grant_type: "refresh_token", refresh_token: refreshToken, client_secret: testClientSecret }).expect(200)
      const refreshed = await post(pathOf(client.id), { grant_type: 'refresh_token', refresh_token: response.body.refresh_token, client_secret: client.secret! }, form);
      assert.equal(refreshed.status, 200, refreshed.text);
      assert.equal(refreshed.headers.get('cache-control'), 'no-store');
      assert.equal(refreshed.body.expires_in, 1800);
      assert.notEqual(refreshed.body.refresh_token, response.body.refresh_token);
    }
    // A public client in the path proves the code with its PKCE verifier.
    const { verifier, challenge } = pkce();
    const code = await authorizationCode(web, publicClient, { code_challenge: challenge, code_challenge_method: 'S256' });
    const exchanged = await post(pathOf(publicClient.id), { grant_type: 'authorization_code', code, redirect_uri: publicClient.redirectUri, code_verifier: verifier }, true);
    assert.equal(exchanged.status, 200, exchanged.text);
  });

  test('a client_id in the body, or in HTTP Basic, must be the path\'s', async () => {
    const other = await registerClient(api, developer.apiKey);
    const grant = await codeGrant();
    const mismatch = await post(pathOf(client.id), { ...grant, client_id: other.id });
    assert.equal(mismatch.status, 400);
    assert.deepEqual(mismatch.body, { error: 'invalid_request', error_description: 'client_id does not match the client id in the path' });
    const basic = await api.request('POST', pathOf(client.id), {
      headers: { authorization: `Basic ${Buffer.from(`${other.id}:${other.secret}`).toString('base64')}` },
      body: { grant_type: grant.grant_type, code: grant.code, redirect_uri: grant.redirect_uri },
    });
    assert.equal(basic.status, 400);
    assert.deepEqual(basic.body, { error: 'invalid_request', error_description: 'client_id does not match the client id in the path' });
    // Neither refusal spent the code; the same client id in both places is fine.
    const same = await post(pathOf(client.id), { ...grant, client_id: client.id });
    assert.equal(same.status, 200, same.text);
  });

  test('request errors: the reference pipe\'s invalid_request descriptions, on both paths', async () => {
    // token.input.pipe.ts: this.throwOAuthError("grant_type must be 'authorization_code' or 'refresh_token'");
    for (const grant_type of ['invalid_grant', 'client_credentials', 'password']) {
      const { inPath, inBody } = await onBothPaths(client.id, { grant_type, code: 'some-code', redirect_uri: client.redirectUri });
      for (const response of [inPath, inBody]) {
        assert.equal(response.status, 400);
        assert.deepEqual(response.body, { error: 'invalid_request', error_description: "grant_type must be 'authorization_code' or 'refresh_token'" });
        assert.equal(response.headers.get('cache-control'), 'no-store');
      }
    }
    // e2e spec (newest): .send({ grant_type: "authorization_code", code: "some-code", client_secret, redirect_uri }) -> expect(response.body.error_description).toBe("client_id is required");
    const noClient = await post('/v2/auth/oauth2/token', { grant_type: 'authorization_code', code: 'some-code', client_secret: 'x', redirect_uri: client.redirectUri });
    assert.equal(noClient.status, 400);
    assert.deepEqual(noClient.body, { error: 'invalid_request', error_description: 'client_id is required' });
    // token.input.pipe.ts formatErrors: `${err.property} property is wrong,${constraints} ${childrenErrors}`, joined with ", ".
    const cases: [Params, string][] = [
      [{ grant_type: 'authorization_code', client_secret: 'x', redirect_uri: client.redirectUri }, 'code property is wrong,code must be a string '],
      [{ grant_type: 'authorization_code', client_secret: 'x' }, 'code property is wrong,code must be a string , redirect_uri property is wrong,redirect_uri must be a string '],
      // Without client_secret the reference validates the public shape: code_verifier is required.
      [{ grant_type: 'authorization_code', code: 'x', redirect_uri: client.redirectUri }, 'code_verifier property is wrong,code_verifier must be a string '],
      [{ grant_type: 'refresh_token', client_secret: 'x' }, 'refresh_token property is wrong,refresh_token must be a string '],
    ];
    for (const [body, description] of cases) {
      const { inPath, inBody } = await onBothPaths(client.id, body);
      for (const response of [inPath, inBody]) {
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.deepEqual(response.body, { error: 'invalid_request', error_description: description });
      }
    }
    // A JSON value that is not a string is refused by the same rule.
    const numeric = await api.request('POST', pathOf(client.id), { body: { grant_type: 'refresh_token', refresh_token: 42, client_secret: client.secret } });
    assert.deepEqual(numeric.body, { error: 'invalid_request', error_description: 'refresh_token property is wrong,refresh_token must be a string ' });
  });

  test('client errors: client_not_found and invalid_client_credentials (401), exactly', async () => {
    // e2e spec: expect(response.body.error).toBe("invalid_client"); expect(response.body.error_description).toBe("client_not_found");
    const unknown = await onBothPaths('oa2_00000000000000000000000000000000', { grant_type: 'refresh_token', refresh_token: 'x', client_secret: 'x' });
    for (const response of [unknown.inPath, unknown.inBody]) {
      assert.equal(response.status, 401);
      assert.deepEqual(response.body, { error: 'invalid_client', error_description: 'client_not_found' });
    }
    // e2e spec: .send({ ..., client_secret: "wrong-secret" }).expect(401); expect(response.body.error_description).toBe("invalid_client_credentials");
    const grant = await codeGrant();
    const wrong = await onBothPaths(client.id, { ...grant, client_secret: 'wrong-secret' });
    for (const response of [wrong.inPath, wrong.inBody]) {
      assert.equal(response.status, 401);
      assert.deepEqual(response.body, { error: 'invalid_client', error_description: 'invalid_client_credentials' });
    }
    const wrongOnRefresh = await onBothPaths(client.id, { grant_type: 'refresh_token', refresh_token: 'x', client_secret: 'wrong-secret' });
    for (const response of [wrongOnRefresh.inPath, wrongOnRefresh.inBody]) {
      assert.deepEqual(response.body, { error: 'invalid_client', error_description: 'invalid_client_credentials' });
    }
  });

  test('grant errors: code_invalid_or_expired, redirect_uri_mismatch, PKCE reasons, exactly', async () => {
    const grant = await codeGrant();
    assert.equal((await post(pathOf(client.id), grant)).status, 200);
    // e2e spec: used code -> .expect(400); expect(response.body.error).toBe("invalid_grant"); expect(response.body.error_description).toBe("code_invalid_or_expired");
    const used = await onBothPaths(client.id, grant);
    for (const response of [used.inPath, used.inBody]) {
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: 'invalid_grant', error_description: 'code_invalid_or_expired' });
    }
    const madeUp = await post(pathOf(client.id), { ...grant, code: 'made-up' });
    assert.deepEqual(madeUp.body, { error: 'invalid_grant', error_description: 'code_invalid_or_expired' });
    // OAuthService: throw new ErrorWithCode(ErrorCode.BadRequest, "invalid_grant", { reason: "redirect_uri_mismatch" });
    const elsewhere = await post(pathOf(client.id), { ...(await codeGrant()), redirect_uri: 'https://evil.example.com/callback' });
    assert.equal(elsewhere.status, 400);
    assert.deepEqual(elsewhere.body, { error: 'invalid_grant', error_description: 'redirect_uri_mismatch' });
    // OAuthService verifyPKCE: { error: "invalid_request", reason: "pkce_missing_parameters_or_invalid_method" } / { error: "invalid_grant", reason: "pkce_verification_failed" }
    const { verifier, challenge } = pkce();
    const challenged = await codeGrant({ code_challenge: challenge, code_challenge_method: 'S256' });
    const noVerifier = await post(pathOf(client.id), challenged);
    assert.equal(noVerifier.status, 400);
    assert.deepEqual(noVerifier.body, { error: 'invalid_request', error_description: 'pkce_missing_parameters_or_invalid_method' });
    const wrongVerifier = await post(pathOf(client.id), { ...challenged, code_verifier: pkce().verifier });
    assert.equal(wrongVerifier.status, 400);
    assert.deepEqual(wrongVerifier.body, { error: 'invalid_grant', error_description: 'pkce_verification_failed' });
    assert.equal((await post(pathOf(client.id), { ...challenged, code_verifier: verifier })).status, 200, 'the refusals did not spend the code');
  });

  test('refresh errors: invalid_refresh_token, client_id_mismatch, refresh_token_revoked, exactly', async () => {
    // e2e spec: refresh_token: "invalid-refresh-token" -> expect(response.body.error_description).toBe("invalid_refresh_token");
    const invalid = await onBothPaths(client.id, { grant_type: 'refresh_token', refresh_token: 'invalid-refresh-token', client_secret: client.secret! });
    for (const response of [invalid.inPath, invalid.inBody]) {
      assert.equal(response.status, 400);
      assert.deepEqual(response.body, { error: 'invalid_grant', error_description: 'invalid_refresh_token' });
    }
    const tokens = (await post(pathOf(client.id), await codeGrant())).body;
    // OAuthService: if (decodedToken.clientId !== clientId) ... "invalid_grant", { reason: "client_id_mismatch" }
    const other = await registerClient(api, developer.apiKey);
    const foreign = await post(pathOf(other.id), { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_secret: other.secret! });
    assert.equal(foreign.status, 400);
    assert.deepEqual(foreign.body, { error: 'invalid_grant', error_description: 'client_id_mismatch' });
    const first = await post(pathOf(client.id), { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_secret: client.secret! });
    assert.equal(first.status, 200, 'the foreign attempt did not spend the token');
    // OAuthService: a refresh token whose stored secret is gone -> "invalid_grant", { reason: "refresh_token_revoked" }; svc also revokes the family.
    const reused = await post(pathOf(client.id), { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_secret: client.secret! });
    assert.equal(reused.status, 400);
    assert.deepEqual(reused.body, { error: 'invalid_grant', error_description: 'refresh_token_revoked' });
    assert.equal((await api.request('GET', '/v2/me', { key: first.body.access_token })).status, 401);
  });

  test('a client rejected after issuing a code: unauthorized_client client_rejected (401)', async () => {
    const doomed = await registerClient(api, developer.apiKey);
    const code = await authorizationCode(web, doomed);
    const rejected = await api.request('PATCH', `/v2/admin/oauth2-clients/${doomed.id}`, { key: ADMIN_API_KEY, body: { status: 'rejected' } });
    assert.equal(rejected.status, 200);
    // e2e spec (newest): "should reject token exchange when client becomes rejected" -> .expect(401); error "unauthorized_client"; error_description "client_rejected"
    const response = await post(pathOf(doomed.id), { grant_type: 'authorization_code', code, client_secret: doomed.secret!, redirect_uri: doomed.redirectUri });
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, { error: 'unauthorized_client', error_description: 'client_rejected' });
  });
});
