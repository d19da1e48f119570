// The whole OAuth flow in a real browser (Debian's chromium driven by playwright-core): a developer
// registers a client on the developer page, the admin approves it on the review page, a user logs in
// and consents, the client exchanges the code (confidential; public with PKCE), calls the API,
// refreshes, revokes, and the token is refused. Each spec 7.1 error case is walked in the browser too.
// Without chromium the suite is skipped, saying so (`.ci/run` installs it).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createPasswordUser, PASSWORD, pkce, tokenRequest } from './helpers.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => fs.existsSync(path));
const SKIP = CHROMIUM ? false : "Debian's chromium is not installed (apt-get install -y chromium): the browser tests are SKIPPED";
if (SKIP) console.log(`# ${SKIP}`);

describe('OAuth in the browser', { skip: SKIP }, () => {
  let api: TestApp;
  let browser: Browser;
  let callback: http.Server;
  let callbackUrl: string;
  let developer: Awaited<ReturnType<typeof createPasswordUser>>;
  let admin: Awaited<ReturnType<typeof createPasswordUser>>;
  let user: Awaited<ReturnType<typeof createPasswordUser>>;

  before(async () => {
    api = await createTestApp();
    developer = await createPasswordUser(api);
    admin = await createPasswordUser(api, { role: 'ADMIN' });
    user = await createPasswordUser(api);
    // The client's redirect target: a page that shows what it received.
    callback = http.createServer((request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(`<p id="got">${request.url}</p>`));
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/cb`;
    const { chromium } = await import('playwright-core');
    // No host name reaches the network: evil.example (where open-redirect attempts point) is the callback
    // server, so a browser sent there shows it; every other name resolves to nothing.
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-dev-shm-usage', `--host-resolver-rules=MAP evil.example 127.0.0.1:${(callback.address() as AddressInfo).port}, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1`] });
  });
  after(async () => {
    await browser?.close();
    callback?.closeAllConnections();
    await new Promise((resolve) => callback?.close(resolve));
    await api?.close();
  });

  async function loggedIn(email: string, next = '/settings/developer'): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ baseURL: api.baseUrl });
    const page = await context.newPage();
    await page.goto(`/auth/login?next=${encodeURIComponent(next)}`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/auth/login'));
    return { context, page };
  }

  /** Registers a client on the developer page; returns its id and (confidential) secret. */
  async function registerOnPage(page: Page, name: string, type: 'confidential' | 'public') {
    await page.goto('/settings/developer');
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel(/Redirect URIs/).fill(callbackUrl);
    await page.getByLabel(type === 'public' ? /^Public/ : /^Confidential/).check();
    for (const scope of ['PROFILE_READ', 'BOOKING_READ']) await page.locator(`#scope-${scope}`).check();
    await page.getByRole('button', { name: 'Register' }).click();
    const id = (await page.locator('#new-client-id').textContent())!;
    const secret = type === 'confidential' ? (await page.locator('#new-client-secret').textContent())! : null;
    assert.match(id, /^oa2_/);
    return { id, secret };
  }

  async function approveOnPage(clientName: string) {
    const { context, page } = await loggedIn(admin.email, '/settings/admin/oauth-clients');
    await page.getByRole('button', { name: `Approve ${clientName}` }).click();
    await page.waitForURL('**/settings/admin/oauth-clients');
    await context.close();
  }

  const authorizeUrl = (params: Record<string, string>) => `/auth/oauth2/authorize?${new URLSearchParams(params)}`;

  test('next=/%09/evil.example (the browser strips the tab: //evil.example) ends on svc, logging in and logged in', async () => {
    const context = await browser.newContext({ baseURL: api.baseUrl });
    const page = await context.newPage();
    const svcOrigin = new URL(api.baseUrl).origin;
    const offSite: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== svcOrigin) offSite.push(request.url());
    });
    await page.goto('/auth/login?next=/%09/evil.example');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/settings/developer', { timeout: 10_000 });
    // Already logged in, the login page redirects at once (no form, so no form-action CSP on the way).
    await page.goto('/auth/login?next=/%09/evil.example');
    assert.equal(new URL(page.url()).origin, svcOrigin, page.url());
    assert.equal(new URL(page.url()).pathname, '/settings/developer');
    assert.deepEqual(offSite, [], 'no request left svc');
    await context.close();
  });

  test('confidential client: register -> approve -> login -> consent -> code -> token -> API -> refresh -> revoke -> refused', async () => {
    const dev = await loggedIn(developer.email);
    const client = await registerOnPage(dev.page, 'Browser App', 'confidential');
    await dev.context.close();
    await approveOnPage('Browser App');

    const context = await browser.newContext({ baseURL: api.baseUrl });
    const page = await context.newPage();
    await page.goto(authorizeUrl({ client_id: client.id, redirect_uri: callbackUrl, scope: 'PROFILE_READ BOOKING_READ', state: 'browser-state' }));
    await page.waitForURL('**/auth/login**');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/auth/oauth2/authorize**');
    assert.equal(await page.locator('#client-name').textContent(), 'Browser App');
    assert.ok(await page.getByText('See your profile').isVisible());
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${callbackUrl}**`);
    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get('state'), 'browser-state');
    const code = landed.searchParams.get('code')!;
    await context.close();

    const tokens = await tokenRequest(api, { grant_type: 'authorization_code', client_id: client.id, client_secret: client.secret!, code, redirect_uri: callbackUrl }, true);
    assert.equal(tokens.status, 200, tokens.text);
    const me = await api.request('GET', '/v2/me', { key: tokens.body.access_token });
    assert.equal(me.body.data.email, user.email);
    const refreshed = await tokenRequest(api, { grant_type: 'refresh_token', client_id: client.id, client_secret: client.secret!, refresh_token: tokens.body.refresh_token });
    assert.equal(refreshed.status, 200);
    assert.equal((await api.request('GET', '/v2/me', { key: refreshed.body.access_token })).status, 200);
    const revoked = await api.request('POST', '/v2/auth/oauth2/revoke', { body: { token: refreshed.body.refresh_token, client_id: client.id, client_secret: client.secret! } });
    assert.equal(revoked.status, 200);
    assert.equal((await api.request('GET', '/v2/me', { key: refreshed.body.access_token })).status, 401);
  });

  test('public client with PKCE, through the pages', async () => {
    const dev = await loggedIn(developer.email);
    const client = await registerOnPage(dev.page, 'Browser SPA', 'public');
    await dev.context.close();
    await approveOnPage('Browser SPA');
    const { verifier, challenge } = pkce();
    const { context, page } = await loggedIn(user.email);
    await page.goto(authorizeUrl({ client_id: client.id, redirect_uri: callbackUrl, scope: 'PROFILE_READ', state: 's2', code_challenge: challenge, code_challenge_method: 'S256' }));
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${callbackUrl}**`);
    const code = new URL(page.url()).searchParams.get('code')!;
    await context.close();
    const tokens = await tokenRequest(api, { grant_type: 'authorization_code', client_id: client.id, code, redirect_uri: callbackUrl, code_verifier: verifier });
    assert.equal(tokens.status, 200, tokens.text);
    assert.equal((await api.request('GET', '/v2/me', { key: tokens.body.access_token })).status, 200);
  });

  test('each spec 7.1 error case in the browser: pages before the client is validated, redirects after', async () => {
    const dev = await loggedIn(developer.email);
    const client = await registerOnPage(dev.page, 'Error Cases', 'confidential');
    const pending = await registerOnPage(dev.page, 'Never Approved', 'confidential');
    await dev.context.close();
    await approveOnPage('Error Cases');
    const { context, page } = await loggedIn(user.email);
    const pages: [Record<string, string>, RegExp][] = [
      [{ client_id: 'oa2_unknown', redirect_uri: callbackUrl, scope: 'PROFILE_READ' }, /no OAuth client/],
      [{ client_id: pending.id, redirect_uri: callbackUrl, scope: 'PROFILE_READ' }, /not been approved/],
      [{ client_id: client.id, redirect_uri: `${callbackUrl}/other`, scope: 'PROFILE_READ' }, /redirect_uri does not match/],
      [{ client_id: client.id, redirect_uri: callbackUrl }, /scope parameter is required for this client/],
    ];
    for (const [params, message] of pages) {
      const response = await page.goto(authorizeUrl({ ...params, state: 's' }));
      assert.equal(response!.status(), 400);
      assert.match((await page.getByRole('alert').textContent())!, message);
    }
    const redirects: [Record<string, string>, string][] = [
      [{ scope: 'NOT_A_SCOPE' }, 'invalid_scope'],
      [{ scope: 'WEBHOOK_READ' }, 'invalid_request'],
    ];
    for (const [params, error] of redirects) {
      await page.goto(authorizeUrl({ client_id: client.id, redirect_uri: callbackUrl, state: 'st', ...params }));
      await page.waitForURL(`${callbackUrl}**`);
      const landed = new URL(page.url());
      assert.equal(landed.searchParams.get('error'), error);
      assert.equal(landed.searchParams.get('state'), 'st');
      assert.ok(landed.searchParams.get('error_description'));
    }
    await page.goto(authorizeUrl({ client_id: client.id, redirect_uri: callbackUrl, state: 'deny', scope: 'PROFILE_READ' }));
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(`${callbackUrl}**`);
    assert.equal(new URL(page.url()).searchParams.get('error'), 'access_denied');
    await context.close();
  });
});
