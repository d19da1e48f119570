// The third-party OAuth benchmark: a client registered and approved through the API, a user with a
// password who logs in and consents on the pages (as a browser would, without one), then: code
// exchanges per second at POST /v2/auth/oauth2/token, and GET /v2/me with the resulting token.

export const OAUTH_TARGET_RATIO = 0.5;
export const OAUTH_CODES = 400;
export const OAUTH_NOTE = `oauth: tokenExchanges = ${OAUTH_CODES} authorization codes (made beforehand through the consent form) exchanged at POST /v2/auth/oauth2/token by a confidential client (secret checked in constant time; one transaction: code locked and marked used, access and refresh token inserted), 10 at a time; thirdPartyMe = GET /v2/me with a third-party access token (PROFILE_READ; resolved by its SHA-256 through the credential cache), ratio over GET /health in the same run (target >= ${OAUTH_TARGET_RATIO}).`;

type PostJson = (url: string, headers: Record<string, string>, body: unknown, what: string) => Promise<any>;

const PASSWORD = 'bench password 123';
const REDIRECT = 'https://bench.example.test/cb';

/** A cookie-keeping form poster (redirects not followed). */
function webClient(baseUrl: string) {
  let cookie = '';
  return async (method: string, path: string, form?: Record<string, string>) => {
    const response = await fetch(baseUrl + path, {
      method,
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    const set = response.headers.getSetCookie()[0];
    if (set) cookie = set.split(';')[0]!;
    return { status: response.status, location: response.headers.get('location'), html: await response.text() };
  };
}

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

export async function oauthFixture(baseUrl: string, adminHeaders: Record<string, string>, postJson: PostJson, label: string) {
  const owner = await postJson(`${baseUrl}/v2/admin/users`, adminHeaders, { email: 'oauth-dev@example.com', name: 'OAuth Dev' }, `${label}: POST /v2/admin/users (oauth developer)`);
  const client = await postJson(
    `${baseUrl}/v2/auth/oauth2/clients`,
    { authorization: `Bearer ${owner.apiKey}` },
    { name: 'Bench OAuth app', redirectUris: [REDIRECT], scopes: ['PROFILE_READ'] },
    `${label}: POST /v2/auth/oauth2/clients`,
  );
  const approved = await fetch(`${baseUrl}/v2/admin/oauth2-clients/${client.id}`, {
    method: 'PATCH',
    headers: { ...adminHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'approved' }),
  });
  if (approved.status !== 200) throw new Error(`${label}: approving the OAuth client answered ${approved.status}`);
  const user = await postJson(`${baseUrl}/v2/admin/users`, adminHeaders, { email: 'oauth-user@example.com', name: 'OAuth User', password: PASSWORD }, `${label}: POST /v2/admin/users (oauth user)`);
  const web = webClient(baseUrl);
  const login = await web('GET', '/auth/login');
  const loggedIn = await web('POST', '/auth/login', { csrf: csrfOf(login.html), email: user.user.email, password: PASSWORD, next: '/settings/developer' });
  if (loggedIn.status !== 303) throw new Error(`${label}: web login answered ${loggedIn.status}`);
  const params = { client_id: client.id, redirect_uri: REDIRECT, scope: 'PROFILE_READ', state: 'bench' };
  const consentPage = await web('GET', `/auth/oauth2/authorize?${new URLSearchParams(params)}`);
  const csrf = csrfOf(consentPage.html);
  const newCode = async () => {
    const answer = await web('POST', '/auth/oauth2/authorize', { ...params, csrf, decision: 'allow' });
    const code = answer.location ? new URL(answer.location).searchParams.get('code') : null;
    if (!code) throw new Error(`${label}: consent answered ${answer.status} ${answer.location}`);
    return code;
  };
  const exchange = async (code: string) => {
    const response = await fetch(`${baseUrl}/v2/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'authorization_code', client_id: client.id, client_secret: client.secret, code, redirect_uri: REDIRECT }),
    });
    const body = (await response.json()) as { access_token?: string };
    if (response.status !== 200 || !body.access_token) throw new Error(`${label}: token exchange answered ${response.status}`);
    return body.access_token;
  };
  const accessToken = await exchange(await newCode());

  /** Code exchanges per second: the codes are made first, then exchanged 10 at a time. */
  async function measureTokenExchanges() {
    const codes: string[] = [];
    for (let i = 0; i < OAUTH_CODES; i++) codes.push(await newCode());
    const started = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < codes.length) await exchange(codes[next++]!);
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { exchanges: codes.length, seconds: Math.round(seconds * 1000) / 1000, perSecond: Math.round(codes.length / seconds) };
  }

  return { url: `${baseUrl}/v2/me`, headers: { authorization: `Bearer ${accessToken}` }, measureTokenExchanges };
}
